/* Unit tests of the capability partitioner's algorithm
 * (plugins/common/capability-assign.c): one backend on hand-made graphs
 * and against the lower bound on seeded random DAGs; several backends,
 * dtype conditions and non-compute nodes, each split by the engine (no
 * cycle between partitions). */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "call-dag.h"
#include "capability-assign.h"
#include "../test-partitioners-checks.h"
#include "../test-util.h"

/* ---- one backend ------------------------------------------------------------------ */

static gint64 *
capability (FxsGraph *g, const char *allow, const char *deny, gint64 min_size,
            CapabilityIds scheme, CapabilityStats *stats)
{
  Capability cap = { .allow = selector_list_parse ("allow", allow, NULL),
                     .deny = selector_list_parse ("deny", deny, NULL), .min_size = min_size,
                     .getitem_with_producer = TRUE, .ids = scheme };
  CU_ASSERT_PTR_NOT_NULL_FATAL (cap.allow);
  CallDag *dag = call_dag_new (g);
  gint64 *ids = g_new (gint64, fxs_graph_n_nodes (g));
  capability_assign (&cap, g, dag, ids, NULL, stats);
  g_clear_pointer (&stats->part_kind, g_free);
  call_dag_free (dag);
  selector_list_free (cap.allow);
  selector_list_free (cap.deny);
  return ids;
}

static void
test_capability_hand (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  /* a (S) -> b (U) -> d (S);  a -> c (S) -> d;  u (U) from x -> e (S);
   * f (S) alone after a. */
  FxsNode *a = tp_call (g, FXS_OP_CALL_FUNCTION, "a", "_operator.add", x, x, NULL);
  FxsNode *b = tp_call (g, FXS_OP_CALL_FUNCTION, "b", "my.mystery", a, NULL);
  FxsNode *c = tp_call (g, FXS_OP_CALL_METHOD, "c", "relu", a, NULL);
  FxsNode *d = tp_call (g, FXS_OP_CALL_FUNCTION, "d", "torch.add", b, c, NULL);
  FxsNode *u = tp_call (g, FXS_OP_CALL_FUNCTION, "u", "my.other", x, NULL);
  FxsNode *e = tp_call (g, FXS_OP_CALL_METHOD, "e", "relu", u, NULL);
  FxsNode *f = tp_call (g, FXS_OP_CALL_METHOD, "f", "relu", a, NULL);
  FxsNode *t = tp_call (g, FXS_OP_CALL_FUNCTION, "t", "torch.split", d, NULL);
  const FxsValue *args[2] = { fxs_value_new_node (g, t), fxs_value_new_int (g, 0) };
  fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, "item", "_operator.getitem",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, args, 2), NULL, NULL);
  const FxsNode *outs[3] = { e, f, fxs_graph_lookup_node (g, "item") };
  const FxsValue *items[3];
  for (guint i = 0; i < 3; i++)
    items[i] = fxs_value_new_node (g, outs[i]);
  const FxsValue *ret = fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items, 3);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &ret, 1), NULL, NULL);

  /* a, c, e, f can share one partition (e follows only unsupported u);
   * d cannot (a -> b -> d); the getitem goes with the split. */
  CapabilityStats stats;
  gint64 *ids = capability (g, "function:add method:relu function:torch.split", NULL, 1,
                            CAPABILITY_IDS_ORDER, &stats);
  assert_ids (g, ids, "u=0 a=1 c=1 e=1 f=1 b=2 d=3 t=3 item=3");
  CU_ASSERT_EQUAL (stats.supported_parts, 2);
  CU_ASSERT_EQUAL (stats.unsupported_parts, 2);
  CU_ASSERT_EQUAL (stats.supported_nodes, 7);
  fxs_split_result_free (split_checked (g, ids));
  g_free (ids);

  /* Supported groups first; deny takes torch.add out. */
  ids = capability (g, "function:*add method:relu", "function:torch.add", 1,
                    CAPABILITY_IDS_SUPPORTED_FIRST, &stats);
  assert_ids (g, ids, "a=0 c=0 e=0 f=0 u=1 b=2 d=2 t=2 item=2");
  CU_ASSERT_EQUAL (stats.supported_parts, 1);
  fxs_split_result_free (split_checked (g, ids));
  g_free (ids);

  /* min_size: the group {d, t, item} (3 nodes) survives 3, not 4. */
  ids = capability (g, "function:add method:relu function:split", NULL, 3,
                    CAPABILITY_IDS_ORDER, &stats);
  CU_ASSERT_EQUAL (stats.supported_parts, 2);
  CU_ASSERT_EQUAL (stats.demoted_nodes, 0);
  g_free (ids);
  ids = capability (g, "function:add method:relu function:split", NULL, 4,
                    CAPABILITY_IDS_ORDER, &stats);
  CU_ASSERT_EQUAL (stats.supported_parts, 1);
  CU_ASSERT_EQUAL (stats.demoted_nodes, 3);
  CU_ASSERT_EQUAL (id_of (g, ids, "d"), id_of (g, ids, "item"));
  CU_ASSERT_NOT_EQUAL (id_of (g, ids, "d"), id_of (g, ids, "a"));
  fxs_split_result_free (split_checked (g, ids));
  g_free (ids);
  fxs_graph_unref (g);
}

/* The most supported runs on any path: no acyclic grouping has fewer
 * supported partitions.  Computed independently of the partitioner. */
static guint
most_supported_runs (const CallDag *dag, const guint8 *supported)
{
  guint *runs = g_new0 (guint, dag->n ? dag->n : 1);
  guint best = 0;
  for (guint v = 0; v < dag->n; v++)
    {
      guint r = supported[v] ? 1 : 0;
      for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++)
        {
          guint32 p = dag->preds[e];
          r = MAX (r, runs[p] + (supported[v] && !supported[p]));
        }
      runs[v] = r;
      best = MAX (best, r);
    }
  g_free (runs);
  return best;
}

static void
test_capability_random (void)
{
  GRand *rng = g_rand_new_with_seed (11);
  static const char *const allows[] = {
    "function:add function:relu", "function:matmul module:lin* method:view",
    "function:* method:*", "class:Linear function:linear function:getitem",
  };
  for (guint round = 0; round < 300; round++)
    {
      FxsGraph *g = tp_random_dag (rng, g_rand_int_range (rng, 1, 60));
      const char *allow = allows[round % G_N_ELEMENTS (allows)];
      Capability cap = { .allow = selector_list_parse ("allow", allow, NULL),
                         .min_size = 1 + (round % 3 == 0 ? g_rand_int_range (rng, 1, 4) : 0),
                         .getitem_with_producer = round % 2,
                         .ids = round % 4 < 2 ? CAPABILITY_IDS_ORDER
                                              : CAPABILITY_IDS_SUPPORTED_FIRST };
      CallDag *dag = call_dag_new (g);
      gint64 *ids = g_new (gint64, fxs_graph_n_nodes (g));
      guint8 *supported = g_new (guint8, dag->n);
      CapabilityStats stats;
      capability_assign (&cap, g, dag, ids, supported, &stats);
      g_free (stats.part_kind);
      FxsSplitResult *result = split_checked (g, ids);
      if (result)
        CU_ASSERT_EQUAL (fxs_split_result_n_partitions (result),
                         stats.supported_parts + stats.unsupported_parts);
      fxs_split_result_free (result);
      if (cap.min_size == 1)
        CU_ASSERT_EQUAL (stats.supported_parts, most_supported_runs (dag, supported));
      /* Partitions hold only supported or only unsupported nodes. */
      for (guint v = 1; v < dag->n; v++)
        for (guint w = 0; w < v; w++)
          if (ids[dag->node_index[v]] == ids[dag->node_index[w]])
            CU_ASSERT_EQUAL (supported[v], supported[w]);
      g_free (supported);
      g_free (ids);
      call_dag_free (dag);
      selector_list_free (cap.allow);
      fxs_graph_unref (g);
    }
  g_rand_free (rng);
}


/* ---- several backends, dtypes, non-compute nodes ------------------------------ */

typedef struct {
  const char *allow;                 /* or backends */
  const char *const *backends;       /* NULL-terminated selector lists */
  const char *deny;
  const char *non_compute;
  gint64 min_size;
  CapabilityIds ids;
} Spec;

/* Runs capability_assign for @spec; *@kind (per call node) and
 * stats->part_kind are the caller's to free. */
static gint64 *
assign (FxsGraph *g, const Spec *spec, CallDag **dag, guint8 **kind, CapabilityStats *stats)
{
  Capability cap = { .min_size = spec->min_size ? spec->min_size : 1,
                     .getitem_with_producer = TRUE, .ids = spec->ids };
  if (spec->allow)
    cap.allow = selector_list_parse_dtypes ("allow", spec->allow, NULL);
  else
    {
      cap.backends = g_ptr_array_new_with_free_func ((GDestroyNotify) selector_list_free);
      for (const char *const *b = spec->backends; *b; b++)
        g_ptr_array_add (cap.backends, selector_list_parse_dtypes ("backends", *b, NULL));
    }
  if (spec->deny)
    cap.deny = selector_list_parse_dtypes ("deny", spec->deny, NULL);
  if (spec->non_compute)
    cap.non_compute = selector_list_parse_dtypes ("non_compute_ops", spec->non_compute, NULL);
  *dag = call_dag_new (g);
  gint64 *ids = g_new (gint64, fxs_graph_n_nodes (g));
  *kind = g_new (guint8, (*dag)->n ? (*dag)->n : 1);
  capability_assign (&cap, g, *dag, ids, *kind, stats);
  selector_list_free (cap.allow);
  selector_list_free (cap.deny);
  selector_list_free (cap.non_compute);
  if (cap.backends)
    g_ptr_array_unref (cap.backends);
  return ids;
}

/* Checks @ids for @spec by hand-computed "name=id ..." and the kinds of
 * partitions 0, 1, ... as a string of digits ("1210"). */
static void
check (FxsGraph *g, const Spec *spec, const char *expected, const char *part_kinds)
{
  CallDag *dag;
  guint8 *kind;
  CapabilityStats stats;
  gint64 *ids = assign (g, spec, &dag, &kind, &stats);
  assert_ids (g, ids, expected);
  GString *kinds = g_string_new (NULL);
  for (guint i = 0; i < stats.n_parts; i++)
    g_string_append_c (kinds, (char) ('0' + stats.part_kind[i]));
  CU_ASSERT_STRING_EQUAL (kinds->str, part_kinds);
  g_string_free (kinds, TRUE);
  fxs_split_result_free (split_checked (g, ids));
  g_free (stats.part_kind);
  g_free (kind);
  g_free (ids);
  call_dag_free (dag);
}

static void
test_capability_backends (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  /* a (gpu) -> b (dsp) -> c (gpu) -> d (none) -> e (dsp); f (gpu) and
   * h (mul: both backends, gpu first) beside a. */
  FxsNode *a = tp_call (g, FXS_OP_CALL_FUNCTION, "a", "torch.relu", x, NULL);
  FxsNode *b = tp_call (g, FXS_OP_CALL_FUNCTION, "b", "_operator.add", a, a, NULL);
  FxsNode *c = tp_call (g, FXS_OP_CALL_FUNCTION, "c", "torch.relu", b, NULL);
  FxsNode *d = tp_call (g, FXS_OP_CALL_FUNCTION, "d", "my.mystery", c, NULL);
  FxsNode *e = tp_call (g, FXS_OP_CALL_FUNCTION, "e", "_operator.add", d, d, NULL);
  FxsNode *f = tp_call (g, FXS_OP_CALL_FUNCTION, "f", "torch.relu", x, NULL);
  FxsNode *h = tp_call (g, FXS_OP_CALL_FUNCTION, "h", "torch.mul", x, x, NULL);
  const FxsValue *items[3] = { fxs_value_new_node (g, e), fxs_value_new_node (g, f),
                               fxs_value_new_node (g, h) };
  const FxsValue *ret = fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items, 3);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &ret, 1), NULL, NULL);
  static const char *const backends[] = { "function:relu function:mul", "function:add function:mul",
                                          NULL };
  Spec spec = { .backends = backends };
  check (g, &spec, "a=0 f=0 h=0 b=1 c=2 d=3 e=4", "12102");
  spec.ids = CAPABILITY_IDS_SUPPORTED_FIRST;
  check (g, &spec, "a=0 f=0 h=0 b=1 c=2 e=3 d=4", "12120");
  /* deny applies to every backend */
  spec.deny = "name:b";
  spec.ids = CAPABILITY_IDS_ORDER;
  check (g, &spec, "a=0 f=0 h=0 b=1 c=2 d=3 e=4", "10102");
  fxs_graph_unref (g);
}

static void
test_capability_dtypes (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  tp_tensor (g, x, "torch.float32", 1, (gint64) 4);
  FxsNode *a = tp_call (g, FXS_OP_CALL_FUNCTION, "a", "torch.relu", x, NULL);
  tp_tensor (g, a, "torch.float16", 1, (gint64) 4);
  FxsNode *b = tp_call (g, FXS_OP_CALL_FUNCTION, "b", "torch.relu", a, NULL);
  tp_tensor (g, b, "torch.float32", 1, (gint64) 4);
  FxsNode *c = tp_call (g, FXS_OP_CALL_FUNCTION, "c", "torch.relu", b, NULL); /* no meta */
  tp_output (g, c);
  check (g, &(Spec) { .allow = "function:relu@float16|bfloat16" }, "a=0 b=1 c=1", "10");
  check (g, &(Spec) { .allow = "function:relu@torch.float32" }, "a=0 b=1 c=2", "010");
  check (g, &(Spec) { .allow = "function:relu", .deny = "function:relu@float16" },
         "a=0 b=1 c=1", "01");

  static const char *const bad[][2] = {
    { "function:relu@flaot16", "allow: unknown dtype 'flaot16' in 'function:relu@flaot16' "
                               "(names as torch prints them: float32, float16, bfloat16, int64, "
                               "bool, ...)" },
    { "function:relu@", "allow: an empty dtype in 'function:relu@'" },
    { "relu@float16|", "allow: an empty dtype in 'relu@float16|'" },
    { "@float16", "allow: '@float16' has an empty pattern" },
    { "op:relu@float16", "allow: unknown selector kind 'op' in 'op:relu@float16' (valid: name, "
                         "function, method, class, module)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      CU_ASSERT_PTR_NULL (selector_list_parse_dtypes ("allow", bad[i][0], &error));
      CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_OPTION));
      if (error && strcmp (error->message, bad[i][1]) != 0)
        {
          fprintf (stderr, "\ngot: %s\n", error->message);
          CU_FAIL ("wrong message");
        }
      g_clear_error (&error);
    }
  /* without dtypes (splitpoints), '@' is part of the pattern */
  SelectorList *plain = selector_list_parse ("begin_at", "relu@float16", NULL);
  CU_ASSERT_PTR_NULL (((Selector *) plain->items->pdata[0])->dtypes);
  selector_list_free (plain);
  fxs_graph_unref (g);
}

static void
test_capability_non_compute (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  /* v1 -> r1 -> v2 -> r2 -> v3 -> v4, all supported, the views non-compute */
  FxsNode *v1 = tp_call (g, FXS_OP_CALL_METHOD, "v1", "view", x, NULL);
  FxsNode *r1 = tp_call (g, FXS_OP_CALL_FUNCTION, "r1", "torch.relu", v1, NULL);
  FxsNode *v2 = tp_call (g, FXS_OP_CALL_METHOD, "v2", "view", r1, NULL);
  FxsNode *r2 = tp_call (g, FXS_OP_CALL_FUNCTION, "r2", "torch.relu", v2, NULL);
  FxsNode *v3 = tp_call (g, FXS_OP_CALL_METHOD, "v3", "view", r2, NULL);
  FxsNode *v4 = tp_call (g, FXS_OP_CALL_METHOD, "v4", "view", v3, NULL);
  tp_output (g, v4);
  Spec spec = { .allow = "method:view function:relu", .non_compute = "method:view" };
  /* v1 leaves below the group, v3 and v4 above; v2 stays inside */
  check (g, &spec, "v1=0 r1=1 v2=1 r2=1 v3=2 v4=2", "010");
  /* two compute nodes: min_size 2 keeps the group, 3 does not */
  spec.min_size = 2;
  check (g, &spec, "v1=0 r1=1 v2=1 r2=1 v3=2 v4=2", "010");
  spec.min_size = 3;
  check (g, &spec, "v1=0 r1=0 v2=0 r2=0 v3=0 v4=0", "0");
  /* groups of views alone are no groups: each joins the unsupported
   * partition after it */
  check (g, &(Spec) { .allow = "method:view", .non_compute = "method:view" },
         "v1=0 r1=0 v2=1 r2=1 v3=2 v4=2", "000");
  /* without non_compute_ops every node counts and stays */
  check (g, &(Spec) { .allow = "method:view function:relu", .min_size = 6 },
         "v1=0 r1=0 v2=0 r2=0 v3=0 v4=0", "1");
  fxs_graph_unref (g);
}

/* Whether call node @v is at an edge of its partition in direction
 * @forward: a non-compute node whose inputs (users) in the partition are
 * all such nodes, found over the final partitions independently. */
static guint8 *
edges (const CallDag *dag, const gint64 *ids, const guint8 *nc, gboolean forward)
{
  guint n = dag->n;
  guint8 *edge = g_new0 (guint8, n ? n : 1);
  for (guint i = 0; i < n; i++)
    {
      guint v = forward ? i : n - 1 - i;
      edge[v] = nc[v];
      guint32 lo = forward ? dag->pred_off[v] : dag->succ_off[v];
      guint32 hi = forward ? dag->pred_off[v + 1] : dag->succ_off[v + 1];
      for (guint32 e = lo; e < hi; e++)
        {
          guint32 w = forward ? dag->preds[e] : dag->succs[e];
          if (ids[dag->node_index[w]] == ids[dag->node_index[v]] && !edge[w])
            edge[v] = 0;
        }
    }
  return edge;
}

static void
test_capability_random_backends (void)
{
  GRand *rng = g_rand_new_with_seed (19);
  static const char *const backends[] = { "function:relu function:matmul method:view",
                                          "function:* module:lin1", "method:*", NULL };
  for (guint round = 0; round < 300; round++)
    {
      FxsGraph *g = tp_random_dag (rng, g_rand_int_range (rng, 1, 60));
      Spec spec = { .backends = backends + round % 3,
                    .non_compute = round % 2 ? "method:view function:getitem" : NULL,
                    .min_size = 1 + (round % 5 == 0 ? g_rand_int_range (rng, 1, 4) : 0),
                    .ids = round % 4 < 2 ? CAPABILITY_IDS_ORDER : CAPABILITY_IDS_SUPPORTED_FIRST };
      CallDag *dag;
      guint8 *kind;
      CapabilityStats stats;
      gint64 *ids = assign (g, &spec, &dag, &kind, &stats);
      FxsSplitResult *result = split_checked (g, ids);
      if (result)
        CU_ASSERT_EQUAL (fxs_split_result_n_partitions (result), stats.n_parts);
      fxs_split_result_free (result);
      /* one kind per partition, as part_kind says; enough compute nodes;
       * no non-compute node at a supported partition's edge */
      guint8 *nc = g_new0 (guint8, dag->n ? dag->n : 1);
      SelectorList *ncl = spec.non_compute
                          ? selector_list_parse ("non_compute_ops", spec.non_compute, NULL) : NULL;
      guint *compute = g_new0 (guint, stats.n_parts ? stats.n_parts : 1);
      for (guint v = 0; v < dag->n; v++)
        {
          gint64 id = ids[dag->node_index[v]];
          CU_ASSERT_TRUE_FATAL (id >= 0 && id < (gint64) stats.n_parts);
          CU_ASSERT_EQUAL (stats.part_kind[id], kind[v]);
          nc[v] = ncl && selector_list_match (ncl, fxs_graph_node (g, dag->node_index[v]));
          compute[id] += !nc[v];
        }
      guint8 *in = edges (dag, ids, nc, TRUE), *out = edges (dag, ids, nc, FALSE);
      for (guint v = 0; v < dag->n; v++)
        if (kind[v])
          {
            CU_ASSERT_TRUE (compute[ids[dag->node_index[v]]] >= (guint) spec.min_size);
            CU_ASSERT_FALSE (in[v] || out[v]);
          }
      g_free (in);
      g_free (out);
      g_free (compute);
      selector_list_free (ncl);
      g_free (nc);
      g_free (stats.part_kind);
      g_free (kind);
      g_free (ids);
      call_dag_free (dag);
      fxs_graph_unref (g);
    }
  g_rand_free (rng);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_capability_hand),
    FXS_TEST (test_capability_random),
    FXS_TEST (test_capability_backends),
    FXS_TEST (test_capability_dtypes),
    FXS_TEST (test_capability_non_compute),
    FXS_TEST (test_capability_random_backends),
    { NULL, NULL },
  };
  fxs_test_add_suite ("capability", cases);
}

FXS_TEST_MAIN (register_tests)
