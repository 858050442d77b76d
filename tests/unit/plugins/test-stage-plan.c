/* Stages under device constraints (plugins/common/stage-plan.c) against
 * brute force: on many small random problems (elements with costs,
 * parameter and value bytes, reads of earlier elements and graph inputs;
 * stages with speeds, capacities, a bandwidth or none) every assignment of
 * contiguous, possibly empty runs is tried, with memory and time computed
 * here independently from stage-plan.h's definitions.  The plan must fit
 * exactly when some assignment fits, reach the smallest largest time
 * exactly, and otherwise name a stage that really cannot fit. */
#include <string.h>

#include "stage-plan.h"
#include "../test-util.h"

#define MAX_N 9
#define MAX_EXT 2
#define MAX_K 4

typedef struct {
  StageGraph g;
  StageDevices d;
  gint64 cost[MAX_N], params[MAX_N], bytes[MAX_N + MAX_EXT];
  guint32 in_start[MAX_N + 1], in[MAX_N * (MAX_N + MAX_EXT)];
  double speed[MAX_K];
  gint64 capacity[MAX_K];
  /* reads[j][v]: element j reads value v */
  gboolean reads[MAX_N][MAX_N + MAX_EXT];
} Problem;

static void
random_problem (GRand *rng, Problem *p)
{
  static const double speeds[] = { 0.5, 1, 1.5, 2, 3 };
  static const double bandwidths[] = { 0.5, 1, 4 };
  memset (p, 0, sizeof *p);
  guint n = (guint) g_rand_int_range (rng, 0, MAX_N + 1);
  guint x = (guint) g_rand_int_range (rng, 0, MAX_EXT + 1);
  guint r = 0;
  for (guint v = 0; v < n + x; v++)
    p->bytes[v] = g_rand_int_range (rng, 0, 31);
  for (guint j = 0; j < n; j++)
    {
      p->cost[j] = g_rand_int_range (rng, 0, 10);
      p->params[j] = g_rand_int_range (rng, 0, 3) ? 0 : g_rand_int_range (rng, 0, 41);
      p->in_start[j] = r;
      for (guint v = 0; v < n + x; v++)
        if ((v < j && g_rand_int_range (rng, 0, 5) < 2) || (v >= n && g_rand_int_range (rng, 0, 3) == 0))
          {
            p->in[r++] = v;
            p->reads[j][v] = TRUE;
          }
    }
  p->in_start[n] = r;
  p->g = (StageGraph) { .n = n, .n_external = x, .cost = p->cost, .params = p->params,
                        .bytes = p->bytes, .in_start = p->in_start, .in = p->in };
  guint k = (guint) g_rand_int_range (rng, 1, MAX_K + 1);
  for (guint i = 0; i < k; i++)
    {
      p->speed[i] = speeds[g_rand_int_range (rng, 0, G_N_ELEMENTS (speeds))];
      p->capacity[i] = g_rand_int_range (rng, 10, 160);
    }
  p->d = (StageDevices) { .k = k, .speed = p->speed,
                          .capacity = g_rand_boolean (rng) ? p->capacity : NULL,
                          .bandwidth = g_rand_boolean (rng) ? 0
                            : bandwidths[g_rand_int_range (rng, 0, G_N_ELEMENTS (bandwidths))] };
}

/* The definitions of stage-plan.h, written out. */
static gint64
memory (const Problem *p, guint s, guint e)
{
  guint n = p->g.n, x = p->g.n_external;
  gint64 m = 0;
  for (guint j = s; j < e; j++)
    m += p->params[j] + p->bytes[j];
  for (guint v = 0; v < n + x; v++)
    if (v < s || v >= n)
      for (guint j = s; j < e; j++)
        if (p->reads[j][v])
          {
            m += p->bytes[v];
            break;
          }
  return m;
}

static double
stage_time (const Problem *p, guint k, guint s, guint e)
{
  gint64 cost = 0, sent = 0;
  for (guint j = s; j < e; j++)
    {
      cost += p->cost[j];
      for (guint later = e; later < p->g.n; later++)
        if (p->reads[later][j])
          {
            sent += p->bytes[j];
            break;
          }
    }
  return (double) cost / p->speed[k] + (p->d.bandwidth > 0 ? (double) sent / p->d.bandwidth : 0.0);
}

static gboolean
fits (const Problem *p, guint k, guint s, guint e)
{
  return !p->d.capacity || memory (p, s, e) <= p->capacity[k];
}

/* The smallest largest time of stages k.. over elements s..n; INFINITY
 * when none fits. */
static double
brute (const Problem *p, guint k, guint s)
{
  guint n = p->g.n;
  if (k == p->d.k - 1)
    return fits (p, k, s, n) ? stage_time (p, k, s, n) : INFINITY;
  double best = INFINITY;
  for (guint e = s; e <= n; e++)
    if (fits (p, k, s, e))
      best = MIN (best, MAX (stage_time (p, k, s, e), brute (p, k + 1, e)));
  return best;
}

static void
test_against_brute_force (void)
{
  GRand *rng = g_rand_new_with_seed (19);
  guint infeasible = 0, with_bandwidth = 0;
  for (guint seed = 0; seed < 20000; seed++)
    {
      Problem p;
      random_problem (rng, &p);
      guint32 stage_of[MAX_N + 1];
      double bottleneck = -1;
      guint left = G_MAXUINT, last = G_MAXUINT;
      gboolean ok = stage_plan (&p.g, &p.d, stage_of, &bottleneck, &left, &last);
      double best = brute (&p, 0, 0);
      CU_ASSERT_EQUAL (ok, best < INFINITY);
      if (!ok)
        {
          /* The stage it names cannot fit the last stage's capacity. */
          infeasible++;
          CU_ASSERT_TRUE (left < p.g.n && last <= left);
          if (left < p.g.n && last <= left)
            CU_ASSERT_TRUE (memory (&p, last, left + 1) > p.capacity[p.d.k - 1]);
          CU_ASSERT_EQUAL (stage_plan_memory (&p.g, last, left + 1), memory (&p, last, left + 1));
          continue;
        }
      with_bandwidth += p.d.bandwidth > 0;
      if (bottleneck != best)
        fprintf (stderr, "\nseed %u: plan %.17g, brute force %.17g\n", seed, bottleneck, best);
      CU_ASSERT_EQUAL (bottleneck, best);
      /* The plan itself: runs in order, each fitting, none slower. */
      double worst = 0;
      for (guint k = 0, s = 0; k < p.d.k; k++)
        {
          guint e = s;
          while (e < p.g.n && stage_of[e] == k)
            e++;
          CU_ASSERT_TRUE (fits (&p, k, s, e));
          CU_ASSERT_EQUAL (stage_plan_memory (&p.g, s, e), memory (&p, s, e));
          worst = MAX (worst, stage_time (&p, k, s, e));
          s = e;
          if (k == p.d.k - 1)
            CU_ASSERT_EQUAL (e, p.g.n);
        }
      CU_ASSERT_EQUAL (worst, best);
    }
  /* The seeds reach every case. */
  CU_ASSERT_TRUE (infeasible > 500);
  CU_ASSERT_TRUE (with_bandwidth > 5000);
  g_rand_free (rng);
}

static void
test_hand (void)
{
  /* a -> b -> c, costs 4, 4, 2, each value 10 bytes, b has 100 bytes of
   * parameters; two stages, the second twice as fast. */
  static const gint64 cost[3] = { 4, 4, 2 }, params[3] = { 0, 100, 0 }, bytes[3] = { 10, 10, 10 };
  static const guint32 in_start[4] = { 0, 0, 1, 2 }, in[2] = { 0, 1 };
  StageGraph g = { .n = 3, .cost = cost, .params = params, .bytes = bytes, .in_start = in_start, .in = in };
  double speed[2] = { 1, 2 };
  gint64 capacity[2] = { 1000, 1000 };
  StageDevices d = { .k = 2, .speed = speed, .capacity = capacity };
  guint32 stage_of[3];
  double bottleneck;
  guint left, last;
  /* a alone takes 4, b and c take (4 + 2) / 2 = 3: bottleneck 4. */
  CU_ASSERT_TRUE (stage_plan (&g, &d, stage_of, &bottleneck, &left, &last));
  CU_ASSERT_EQUAL (bottleneck, 4);
  CU_ASSERT_EQUAL (stage_of[0], 0);
  CU_ASSERT_EQUAL (stage_of[1], 1);
  /* Sending a's 10 bytes at 2 bytes per unit makes a alone 9, a and b 13:
   * everything on the fast stage (5) is best, the first stage empty. */
  d.bandwidth = 2;
  CU_ASSERT_TRUE (stage_plan (&g, &d, stage_of, &bottleneck, &left, &last));
  CU_ASSERT_EQUAL (bottleneck, 5);
  CU_ASSERT_EQUAL (stage_of[0], 1);
  /* b's parameters fit no stage of 100 bytes: its memory is 100 + 10 + 10. */
  capacity[0] = capacity[1] = 100;
  CU_ASSERT_FALSE (stage_plan (&g, &d, stage_of, &bottleneck, &left, &last));
  CU_ASSERT_EQUAL (left, 1);
  CU_ASSERT_EQUAL (stage_plan_memory (&g, 1, 2), 120);
  /* No elements: nothing to plan. */
  g.n = 0;
  CU_ASSERT_TRUE (stage_plan (&g, &d, stage_of, &bottleneck, &left, &last));
  CU_ASSERT_EQUAL (bottleneck, 0);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_hand),
    FXS_TEST (test_against_brute_force),
    { NULL, NULL },
  };
  fxs_test_add_suite ("stage-plan", cases);
}

FXS_TEST_MAIN (register_tests)
