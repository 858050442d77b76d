/* Unit tests of the built-in partitioners' algorithms (plugins/common/):
 * capability and mincut on hand-made graphs, and on seeded random DAGs
 * checked against lower bounds and the splitting engine (no cycle between
 * partitions). */
#include "partitioners-test.h"

/* ---- capability ------------------------------------------------------------------ */

static gint64 *
capability (FxsGraph *g, const char *allow, const char *deny, gint64 min_size,
            CapabilityIds scheme, CapabilityStats *stats)
{
  Capability cap = { selector_list_parse ("allow", allow, NULL),
                     selector_list_parse ("deny", deny, NULL), min_size, TRUE, scheme };
  CU_ASSERT_PTR_NOT_NULL_FATAL (cap.allow);
  CallDag *dag = call_dag_new (g);
  gint64 *ids = g_new (gint64, fxs_graph_n_nodes (g));
  capability_assign (&cap, g, dag, ids, NULL, stats);
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
      Capability cap = { selector_list_parse ("allow", allow, NULL), NULL,
                         1 + (round % 3 == 0 ? g_rand_int_range (rng, 1, 4) : 0), round % 2,
                         round % 4 < 2 ? CAPABILITY_IDS_ORDER : CAPABILITY_IDS_SUPPORTED_FIRST };
      CallDag *dag = call_dag_new (g);
      gint64 *ids = g_new (gint64, fxs_graph_n_nodes (g));
      guint8 *supported = g_new (guint8, dag->n);
      CapabilityStats stats;
      capability_assign (&cap, g, dag, ids, supported, &stats);
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

/* ---- mincut ------------------------------------------------------------------- */

/* Two independent chains interleaved in graph order: a contiguous split
 * cuts both chains, the best split puts one chain in each part. */
static void
test_mincut_interleaved (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  const FxsNode *last[2] = { x, x };
  for (guint i = 0; i < 16; i++)
    {
      char name[16];
      g_snprintf (name, sizeof name, "%c%u", i % 2 ? 'b' : 'a', i / 2);
      FxsNode *n = tp_call (g, FXS_OP_CALL_FUNCTION, name, "torch.relu", last[i % 2], NULL);
      tp_tensor (g, n, "torch.float32", 1, (gint64) 1000);
      last[i % 2] = n;
    }
  FxsNode *join = tp_call (g, FXS_OP_CALL_FUNCTION, "join", "_operator.add", last[0], last[1], NULL);
  tp_tensor (g, join, "torch.float32", 1, (gint64) 1);
  tp_output (g, join);

  CallDag *dag = call_dag_new (g);
  gint64 *bytes = call_dag_value_bytes (dag, g);
  gint64 *cost = g_new (gint64, dag->n);
  for (guint v = 0; v < dag->n; v++)
    cost[v] = 1;
  guint32 *part = g_new (guint32, dag->n);
  AcyclicCutParams params = { .parts = 2, .tolerance = 0.1, .passes = 8, .seed = 0 };
  AcyclicCutStats stats;
  acyclic_cut (dag, cost, bytes, &params, part, &stats);
  /* Contiguous: a3 and b3 cross the boundary (8000 bytes).  Best: one
   * chain crosses (4000 bytes): a whole chain in part 0, the other chain
   * with join in part 1 (9 nodes of 17, within 1.1 * 17 / 2). */
  CU_ASSERT_EQUAL (stats.contiguous_cut, 8000);
  CU_ASSERT_EQUAL (stats.cut, 4000);
  CU_ASSERT_EQUAL (stats.cut, call_dag_cut (dag, bytes, part, 2));
  CU_ASSERT (stats.max_load <= stats.limit);
  CU_ASSERT_EQUAL (stats.limit, 9);
  gint64 *ids = graph_ids (g, dag, part);
  FxsSplitResult *result = split_checked (g, ids);
  if (result)
    CU_ASSERT_EQUAL (engine_cut (result), stats.cut);
  fxs_split_result_free (result);
  g_free (ids);
  g_free (part);
  g_free (cost);
  g_free (bytes);
  call_dag_free (dag);
  fxs_graph_unref (g);
}

/* One value used by three later partitions is sent three times; one used
 * twice in one partition once. */
static void
test_cut_counting (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  FxsNode *a = tp_call (g, FXS_OP_CALL_FUNCTION, "a", "torch.relu", x, NULL);
  tp_tensor (g, a, "torch.float32", 1, (gint64) 10);
  FxsNode *b = tp_call (g, FXS_OP_CALL_FUNCTION, "b", "torch.relu", a, NULL);
  FxsNode *c = tp_call (g, FXS_OP_CALL_FUNCTION, "c", "torch.relu", a, NULL);
  FxsNode *d = tp_call (g, FXS_OP_CALL_FUNCTION, "d", "_operator.add", a, c, NULL);
  FxsNode *e = tp_call (g, FXS_OP_CALL_FUNCTION, "e", "_operator.add", a, d, NULL);
  tp_tensor (g, c, "torch.float16", 1, (gint64) 3);
  tp_tensor (g, d, "torch.float32", 1, (gint64) 10);
  (void) b;
  tp_output (g, e);
  CallDag *dag = call_dag_new (g);
  gint64 *bytes = call_dag_value_bytes (dag, g);
  CU_ASSERT_EQUAL (bytes[1], 1);   /* b has no meta */
  /* a | b c | d | e: a goes to 3 partitions, c to 1, d to 1. */
  const guint32 part[5] = { 0, 1, 1, 2, 3 };
  CU_ASSERT_EQUAL (call_dag_cut (dag, bytes, part, 4), 3 * 40 + 6 + 40);
  CU_ASSERT_EQUAL (call_dag_parts_on_cycles (dag, part, 4), 0);
  gint64 *ids = graph_ids (g, dag, part);
  FxsSplitResult *result = split_checked (g, ids);
  if (result)
    CU_ASSERT_EQUAL (engine_cut (result), 3 * 40 + 6 + 40);
  fxs_split_result_free (result);
  g_free (ids);
  /* a and d together, c apart: a cycle between two partitions. */
  const guint32 cyclic[5] = { 0, 0, 1, 0, 0 };
  CU_ASSERT_EQUAL (call_dag_parts_on_cycles (dag, cyclic, 2), 2);
  g_free (bytes);
  call_dag_free (dag);
  fxs_graph_unref (g);
}

static void
test_mincut_random (void)
{
  GRand *rng = g_rand_new_with_seed (5);
  for (guint round = 0; round < 300; round++)
    {
      FxsGraph *g = tp_random_dag (rng, g_rand_int_range (rng, 1, 120));
      FxsCostKind kind = round % 4;
      guint n;
      guint32 *index;
      gint64 *cost = cost_option_call_costs (NULL, g, kind, &n, &index);
      CallDag *dag = call_dag_new (g);
      gint64 *bytes = call_dag_value_bytes (dag, g);
      AcyclicCutParams params = { .parts = g_rand_int_range (rng, 1, 9),
                                  .tolerance = g_rand_int_range (rng, 0, 4) * 0.1,
                                  .passes = 8, .seed = round };
      guint32 *part = g_new (guint32, n ? n : 1);
      AcyclicCutStats stats;
      acyclic_cut (dag, cost, bytes, &params, part, &stats);

      CU_ASSERT_EQUAL (stats.parts, MIN (params.parts, n));
      CU_ASSERT (stats.cut <= stats.contiguous_cut);
      CU_ASSERT (stats.max_load <= stats.limit);
      CU_ASSERT_EQUAL (stats.cut, call_dag_cut (dag, bytes, part, MAX (stats.parts, 1)));
      /* Never worse than balanced's split with the same K. */
      guint32 *stage_of = g_new (guint32, n ? n : 1);
      contiguous_split (cost, n, params.parts, stage_of);
      CU_ASSERT (stats.cut <= call_dag_cut (dag, bytes, stage_of, MAX (stats.parts, 1)));
      /* Parts in topological order, none empty. */
      guint *count = g_new0 (guint, stats.parts + 1);
      for (guint v = 0; v < n; v++)
        {
          count[part[v]]++;
          for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++)
            CU_ASSERT (part[dag->preds[e]] <= part[v]);
        }
      for (guint p = 0; p < stats.parts; p++)
        CU_ASSERT (count[p] > 0);
      /* The same seed gives the same result. */
      guint32 *again = g_new (guint32, n ? n : 1);
      AcyclicCutStats stats2;
      acyclic_cut (dag, cost, bytes, &params, again, &stats2);
      CU_ASSERT_EQUAL (memcmp (part, again, n * sizeof (guint32)), 0);
      /* The engine agrees: no cycle, and the same bytes cross. */
      gint64 *ids = graph_ids (g, dag, part);
      FxsSplitResult *result = split_checked (g, ids);
      if (result)
        CU_ASSERT_EQUAL (engine_cut (result), stats.cut);
      fxs_split_result_free (result);
      g_free (ids);
      g_free (again);
      g_free (count);
      g_free (stage_of);
      g_free (part);
      g_free (bytes);
      call_dag_free (dag);
      g_free (cost);
      g_free (index);
      fxs_graph_unref (g);
    }
  g_rand_free (rng);
}

/* 100,000 nodes in well under the test timeout. */
static void
test_mincut_large (void)
{
  GRand *rng = g_rand_new_with_seed (9);
  FxsGraph *g = tp_random_dag (rng, 100000);
  guint n;
  guint32 *index;
  gint64 *cost = cost_option_call_costs (NULL, g, FXS_COST_FLOPS, &n, &index);
  CallDag *dag = call_dag_new (g);
  gint64 *bytes = call_dag_value_bytes (dag, g);
  AcyclicCutParams params = { .parts = 8, .tolerance = 0.05, .passes = 8, .seed = 1 };
  guint32 *part = g_new (guint32, n);
  AcyclicCutStats stats;
  gint64 start = g_get_monotonic_time ();
  acyclic_cut (dag, cost, bytes, &params, part, &stats);
  double seconds = (g_get_monotonic_time () - start) / 1e6;
  CU_ASSERT (stats.cut < stats.contiguous_cut);
  CU_ASSERT_EQUAL (call_dag_parts_on_cycles (dag, part, stats.parts), 0);
  fprintf (stderr, " [%u nodes: cut %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT " contiguous, %.2f s] ",
           n, stats.cut, stats.contiguous_cut, seconds);
  g_free (part);
  g_free (bytes);
  call_dag_free (dag);
  g_free (cost);
  g_free (index);
  fxs_graph_unref (g);
  g_rand_free (rng);
}

static void
register_tests (void)
{
  static const FxsTestCase capability_cases[] = {
    FXS_TEST (test_capability_hand),
    FXS_TEST (test_capability_random),
    { NULL, NULL },
  };
  static const FxsTestCase mincut[] = {
    FXS_TEST (test_cut_counting),
    FXS_TEST (test_mincut_interleaved),
    FXS_TEST (test_mincut_random),
    FXS_TEST (test_mincut_large),
    { NULL, NULL },
  };
  fxs_test_add_suite ("capability", capability_cases);
  fxs_test_add_suite ("mincut", mincut);
}

FXS_TEST_MAIN (register_tests)
