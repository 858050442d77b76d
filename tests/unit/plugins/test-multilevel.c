/* mincut's multilevel algorithm (plugins/common/acyclic-level.c,
 * acyclic-bisect.c): property tests over many seeds on random DAGs.
 * Coarsening never makes a cycle and keeps costs and the cut; every level
 * of every bisection is acyclic and within its limits; results are the
 * same for the same seed and never worse than the refinement alone. */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "acyclic-cut.h"
#include "acyclic-level.h"
#include "contiguous.h"
#include "cost-option.h"
#include "../test-partitioners-graphs.h"
#include "../test-util.h"

typedef struct {
  FxsGraph *graph;
  CallDag *dag;
  gint64 *cost;
  gint64 *bytes;
  guint32 *index;
  guint n;
} Fixture;

static Fixture
fixture (GRand *rng, guint n_calls, FxsCostKind kind)
{
  Fixture f = { .graph = tp_random_dag (rng, n_calls) };
  f.cost = cost_option_call_costs (NULL, f.graph, kind, &f.n, &f.index);
  f.dag = call_dag_new (f.graph);
  f.bytes = call_dag_value_bytes (f.dag, f.graph);
  return f;
}

static void
fixture_clear (Fixture *f)
{
  g_free (f->cost);
  g_free (f->bytes);
  g_free (f->index);
  call_dag_free (f->dag);
  fxs_graph_unref (f->graph);
}

typedef void (*RoundFunc) (Fixture *f, GRand *rng, guint round, gpointer data);

/* Calls @func on @rounds random DAGs of @min..@max call nodes (RNG seeded
 * with @seed), with cost @kind or, when -1, each kind in turn. */
static void
for_rounds (guint32 seed, guint rounds, guint min, guint max, gint kind, RoundFunc func,
            gpointer data)
{
  GRand *rng = g_rand_new_with_seed (seed);
  for (guint round = 0; round < rounds; round++)
    {
      Fixture f = fixture (rng, g_rand_int_range (rng, min, max), kind < 0 ? (FxsCostKind) (round % 4) : (FxsCostKind) kind);
      func (&f, rng, round, data);
      fixture_clear (&f);
    }
  g_rand_free (rng);
}

static gint64
sum (const gint64 *v, guint n)
{
  gint64 s = 0;
  for (guint i = 0; i < n; i++)
    s += v[i];
  return s;
}

/* Every edge of @l goes from a lower to a higher node number. */
static gboolean
numbered_topologically (const Level *l)
{
  for (guint32 u = 0; u < l->n; u++)
    for (guint32 i = l->succ_off[u]; i < l->succ_off[u + 1]; i++)
      if (l->succs[i] <= u)
        return FALSE;
  return TRUE;
}

static void
coarsen_round (Fixture *f, GRand *rng, guint round, gpointer data)
{
  guint *levels = data;
  Level *l = level_from_dag (f->dag, f->cost, f->bytes);
  CU_ASSERT_TRUE (numbered_topologically (l));
  /* cluster[v]: the node of the current level that holds call node v. */
  guint32 *cluster = g_new (guint32, f->n);
  for (guint v = 0; v < f->n; v++)
    cluster[v] = v;
  gint64 total = sum (f->cost, f->n);
  gint64 cap = g_rand_int_range (rng, 0, 4) == 0 ? G_MAXINT64 : MAX (2, total / 8);
  while (TRUE)
    {
      guint32 *map = g_new (guint32, l->n);
      Level *next = level_coarsen (l, cap, round * 7 + *levels, 0.01, map);
      if (!next)
        {
          g_free (map);
          break;
        }
      (*levels)++;
      CU_ASSERT_TRUE (next->n < l->n);
      CU_ASSERT_TRUE (numbered_topologically (next));
      CU_ASSERT_EQUAL (sum (next->cost, next->n), total);
      guint *members = g_new0 (guint, next->n);
      for (guint v = 0; v < l->n; v++)
        members[map[v]]++;
      for (guint c = 0; c < next->n; c++)
        {
          CU_ASSERT_TRUE (members[c] == 1 || members[c] == 2);
          CU_ASSERT_TRUE (members[c] == 1 || next->cost[c] <= cap);
        }
      g_free (members);
      for (guint v = 0; v < f->n; v++)
        cluster[v] = map[cluster[v]];
      /* Independently of the numbering: the clusters form no cycle. */
      CU_ASSERT_EQUAL (call_dag_parts_on_cycles (f->dag, cluster, next->n), 0);
      /* The coarse nets count what the call nodes would send. */
      guint8 *side = g_new (guint8, next->n);
      guint32 *projected = g_new (guint32, f->n);
      for (guint c = 0; c < next->n; c++)
        side[c] = (guint8) g_rand_int_range (rng, 0, 2);
      for (guint v = 0; v < f->n; v++)
        projected[v] = side[cluster[v]];
      CU_ASSERT_EQUAL (level_cut2 (next, side), call_dag_cut (f->dag, f->bytes, projected, 2));
      g_free (side);
      g_free (projected);
      g_free (map);
      level_free (l);
      l = next;
    }
  g_free (cluster);
  level_free (l);
}

static void
test_coarsening_keeps_acyclic (void)
{
  guint levels = 0;
  for_rounds (21, 150, 2, 400, -1, coarsen_round, &levels);
  CU_ASSERT_TRUE (levels > 300);
}

/* Recursive bisection splits nets so that the cuts add up. */
static void
induced_round (Fixture *f, GRand *rng, guint round, gpointer data)
{
  (void) round;
  (void) data;
  Level *l = level_from_dag (f->dag, f->cost, f->bytes);
  guint8 *side = g_new (guint8, f->n);
  guint32 *part = g_new (guint32, f->n), *keep = g_new (guint32, f->n);
  for (guint v = 0; v < f->n; v++)
    side[v] = (guint8) g_rand_int_range (rng, 0, 2);
  gint64 cut = level_cut2 (l, side);
  for (guint s = 0; s < 2; s++)
    {
      guint n_keep = 0;
      for (guint v = 0; v < f->n; v++)
        if (side[v] == s)
          keep[n_keep++] = v;
      Level *sub = level_induced (l, keep, n_keep);
      CU_ASSERT_TRUE (numbered_topologically (sub));
      guint8 *half = g_new (guint8, n_keep ? n_keep : 1);
      for (guint i = 0; i < n_keep; i++)
        {
          half[i] = (guint8) g_rand_int_range (rng, 0, 2);
          part[keep[i]] = 2 * s + half[i];
        }
      cut += level_cut2 (sub, half);
      g_free (half);
      level_free (sub);
    }
  CU_ASSERT_EQUAL (cut, call_dag_cut (f->dag, f->bytes, part, 4));
  g_free (side);
  g_free (part);
  g_free (keep);
  level_free (l);
}

static void
test_induced_cuts_add_up (void)
{
  for_rounds (22, 100, 4, 300, -1, induced_round, NULL);
}

typedef struct {
  guint calls, failures;
} HookCheck;

/* At every level: no edge from side 1 to side 0, each side within its
 * limit. */
static void
check_level (const Level *l, const guint8 *side, const gint64 *lim, gpointer data)
{
  HookCheck *h = data;
  gint64 load[2] = { 0, 0 };
  gboolean ok = TRUE;
  for (guint32 u = 0; u < l->n; u++)
    {
      load[side[u]] += l->cost[u];
      for (guint32 i = l->succ_off[u]; i < l->succ_off[u + 1]; i++)
        ok = ok && side[l->succs[i]] >= side[u];
    }
  ok = ok && load[0] <= lim[0] && load[1] <= lim[1] && load[0] > 0 && load[1] > 0;
  h->calls++;
  h->failures += !ok;
}

static gboolean
valid_parts (const Fixture *f, const guint32 *part, guint m, gint64 limit)
{
  gint64 *load = g_new0 (gint64, m);
  guint *size = g_new0 (guint, m);
  gboolean ok = TRUE;
  for (guint v = 0; v < f->n; v++)
    {
      load[part[v]] += f->cost[v];
      size[part[v]]++;
      for (guint32 e = f->dag->succ_off[v]; e < f->dag->succ_off[v + 1]; e++)
        ok = ok && part[f->dag->succs[e]] >= part[v];
    }
  for (guint p = 0; p < m; p++)
    ok = ok && size[p] > 0 && load[p] <= limit;
  g_free (load);
  g_free (size);
  return ok && call_dag_parts_on_cycles (f->dag, part, m) == 0;
}

/* Unit costs: every level can be balanced, so every level must be. */
static void
levels_round (Fixture *f, GRand *rng, guint round, gpointer data)
{
  static const double tolerances[] = { 0.02, 0.05, 0.1, 0.3 };
  AcyclicCutParams params = { .parts = g_rand_int_range (rng, 2, 9),
                              .tolerance = tolerances[round % 4], .passes = 4,
                              .seed = round, .coarsest = g_rand_int_range (rng, 2, 40),
                              .tries = g_rand_int_range (rng, 1, 5),
                              .level_hook = check_level, .hook_data = data };
  guint m = MIN (params.parts, f->n);
  gint64 limit = MAX ((gint64) ((1.0 + params.tolerance) * f->n / params.parts),
                      contiguous_min_bottleneck (f->cost, f->n, params.parts));
  guint32 *part = g_new (guint32, f->n);
  CU_ASSERT_TRUE (acyclic_multilevel (f->dag, f->cost, f->bytes, m, limit, &params, part));
  CU_ASSERT_TRUE (valid_parts (f, part, m, limit));
  g_free (part);
}

static void
test_every_level_acyclic_balanced (void)
{
  HookCheck h = { 0, 0 };
  for_rounds (23, 120, 16, 1500, FXS_COST_NODES, levels_round, &h);
  CU_ASSERT_EQUAL (h.failures, 0);
  CU_ASSERT_TRUE (h.calls > 1000);
}

/* Any costs: valid parts, the same result for the same seed, never worse
 * than the refinement alone or the balanced split. */
static void
deterministic_round (Fixture *f, GRand *rng, guint round, gpointer data)
{
  (void) data;
  AcyclicCutParams params = { .parts = g_rand_int_range (rng, 1, 9),
                              .tolerance = g_rand_int_range (rng, 0, 4) * 0.05,
                              .passes = 8, .seed = round % 5, .coarsest = 16, .tries = 4 };
  guint32 *part = g_new (guint32, f->n ? f->n : 1), *again = g_new (guint32, f->n ? f->n : 1);
  AcyclicCutStats stats, stats2, old;
  acyclic_cut (f->dag, f->cost, f->bytes, &params, part, &stats);
  acyclic_cut (f->dag, f->cost, f->bytes, &params, again, &stats2);
  CU_ASSERT_EQUAL (memcmp (part, again, f->n * sizeof (guint32)), 0);
  CU_ASSERT_EQUAL (stats.cut, call_dag_cut (f->dag, f->bytes, part, MAX (stats.parts, 1)));
  if (f->n > 0)
    CU_ASSERT_TRUE (valid_parts (f, part, stats.parts, stats.limit));
  params.algorithm = ACYCLIC_REFINE;
  acyclic_cut (f->dag, f->cost, f->bytes, &params, again, &old);
  CU_ASSERT_TRUE (stats.cut <= old.cut);
  CU_ASSERT_TRUE (stats.cut <= stats.contiguous_cut);
  g_free (part);
  g_free (again);
}

static void
test_multilevel_deterministic (void)
{
  for_rounds (24, 120, 1, 800, -1, deterministic_round, NULL);
}

static void
register_tests (void)
{
  static const FxsTestCase multilevel[] = {
    FXS_TEST (test_coarsening_keeps_acyclic),
    FXS_TEST (test_induced_cuts_add_up),
    FXS_TEST (test_every_level_acyclic_balanced),
    FXS_TEST (test_multilevel_deterministic),
    { NULL, NULL },
  };
  fxs_test_add_suite ("multilevel", multilevel);
}

FXS_TEST_MAIN (register_tests)
