/* Unit tests of the built-in partitioners' algorithms (plugins/common/):
 * mincut on hand-made graphs, and on seeded random DAGs
 * checked against lower bounds and the splitting engine (no cycle between
 * partitions). */
#include "partitioners-test.h"

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
  static const FxsTestCase mincut[] = {
    FXS_TEST (test_cut_counting),
    FXS_TEST (test_mincut_interleaved),
    FXS_TEST (test_mincut_random),
    FXS_TEST (test_mincut_large),
    { NULL, NULL },
  };
  fxs_test_add_suite ("mincut", mincut);
}

FXS_TEST_MAIN (register_tests)
