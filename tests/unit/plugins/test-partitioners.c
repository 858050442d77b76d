/* Unit tests of the built-in partitioners' algorithms (plugins/common/):
 * balanced and splitpoints on hand-made graphs, and on seeded random DAGs
 * checked against brute force and the splitting engine. */
#include "partitioners-test.h"

/* ---- balanced ------------------------------------------------------------------ */

static gint64
max_stage (const gint64 *costs, const guint32 *stage_of, guint n, guint *n_stages)
{
  gint64 sum = 0, top = 0;
  *n_stages = n ? 1 : 0;
  for (guint i = 0; i < n; i++)
    {
      if (i > 0 && stage_of[i] != stage_of[i - 1])
        {
          /* Contiguous: stages go up by exactly one. */
          CU_ASSERT_EQUAL (stage_of[i], stage_of[i - 1] + 1);
          sum = 0;
          (*n_stages)++;
        }
      sum += costs[i];
      top = MAX (top, sum);
    }
  if (n)
    CU_ASSERT_EQUAL (stage_of[0], 0);
  return top;
}

/* The smallest bottleneck of at most @k contiguous stages, by trying every
 * split: best[j][i] over the first i elements in j stages. */
static gint64
brute_bottleneck (const gint64 *costs, guint n, guint k)
{
  gint64 best[12][12];
  for (guint j = 0; j <= k; j++)
    for (guint i = 0; i <= n; i++)
      best[j][i] = G_MAXINT64;
  best[0][0] = 0;
  for (guint j = 1; j <= k; j++)
    for (guint i = 0; i <= n; i++)
      for (guint s = 0; s <= i; s++)
        if (best[j - 1][s] != G_MAXINT64)
          {
            gint64 sum = 0;
            for (guint t = s; t < i; t++)
              sum += costs[t];
            best[j][i] = MIN (best[j][i], MAX (best[j - 1][s], sum));
          }
  gint64 answer = G_MAXINT64;
  for (guint j = 1; j <= k; j++)
    answer = MIN (answer, best[j][n]);
  return answer;
}

static void
test_balanced_hand (void)
{
  const gint64 costs[8] = { 5, 1, 1, 1, 5, 1, 1, 1 };
  guint32 stage_of[8];
  guint stages;
  CU_ASSERT_EQUAL (contiguous_split (costs, 8, 2, stage_of), 8);
  const guint32 two[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
  CU_ASSERT_EQUAL (memcmp (stage_of, two, sizeof two), 0);

  CU_ASSERT_EQUAL (contiguous_split (costs, 8, 3, stage_of), 7);
  const guint32 three[8] = { 0, 0, 0, 1, 1, 1, 2, 2 };
  CU_ASSERT_EQUAL (memcmp (stage_of, three, sizeof three), 0);

  /* More stages than elements: one each, none empty. */
  CU_ASSERT_EQUAL (contiguous_split (costs, 8, 20, stage_of), 5);
  CU_ASSERT_EQUAL (max_stage (costs, stage_of, 8, &stages), 5);
  CU_ASSERT_EQUAL (stages, 8);

  CU_ASSERT_EQUAL (contiguous_split (costs, 8, 1, stage_of), 16);
  CU_ASSERT_EQUAL (stage_of[7], 0);

  /* All free: still exactly k non-empty stages. */
  const gint64 zeros[5] = { 0 };
  CU_ASSERT_EQUAL (contiguous_split (zeros, 5, 3, stage_of), 0);
  const guint32 free3[5] = { 0, 0, 0, 1, 2 };
  CU_ASSERT_EQUAL (memcmp (stage_of, free3, sizeof free3), 0);

  /* Nothing to split. */
  CU_ASSERT_EQUAL (contiguous_split (costs, 0, 4, stage_of), 0);
}

static void
check_balanced (const gint64 *costs, guint n, guint k)
{
  guint32 stage_of[16];
  gint64 bottleneck = contiguous_split (costs, n, k, stage_of);
  guint stages;
  CU_ASSERT_EQUAL (max_stage (costs, stage_of, n, &stages), bottleneck);
  CU_ASSERT_EQUAL (stages, MIN (n, k));
  gint64 brute = brute_bottleneck (costs, n, k);
  if (bottleneck != brute)
    {
      fprintf (stderr, "\nn=%u k=%u: %" G_GINT64_FORMAT " but brute force %" G_GINT64_FORMAT "\n",
               n, k, bottleneck, brute);
      CU_FAIL ("balanced is not optimal");
    }
}

/* Optimal against brute force: random sequences, then random graphs for
 * every cost kind (costs from the shared definition). */
static void
test_balanced_brute_force (void)
{
  GRand *rng = g_rand_new_with_seed (42);
  for (guint round = 0; round < 3000; round++)
    {
      guint n = g_rand_int_range (rng, 1, 11);
      guint k = g_rand_int_range (rng, 1, 12);
      gint64 costs[16];
      gint64 range = g_rand_int_range (rng, 0, 3) == 0 ? 2 : 1000000;
      for (guint i = 0; i < n; i++)
        costs[i] = g_rand_int_range (rng, 0, (gint32) range);
      check_balanced (costs, n, k);
    }
  for (guint round = 0; round < 200; round++)
    {
      FxsGraph *g = tp_random_dag (rng, g_rand_int_range (rng, 1, 11));
      for (FxsCostKind kind = FXS_COST_NODES; kind <= FXS_COST_FLOPS; kind++)
        {
          guint n;
          guint32 *index;
          gint64 *costs = cost_option_call_costs (NULL, g, kind, &n, &index);
          guint k = g_rand_int_range (rng, 1, 8);
          check_balanced (costs, n, k);
          /* The split has no cycle. */
          guint32 stage_of[16];
          contiguous_split (costs, n, k, stage_of);
          gint64 *ids = g_new0 (gint64, fxs_graph_n_nodes (g));
          for (guint i = 0; i < n; i++)
            ids[index[i]] = stage_of[i];
          fxs_split_result_free (split_checked (g, ids));
          g_free (ids);
          g_free (costs);
          g_free (index);
        }
      fxs_graph_unref (g);
    }
  g_rand_free (rng);
}

static void
test_balanced_large (void)
{
  /* 10^6 elements with large costs: O(n log total) is instant. */
  guint n = 1000000;
  gint64 *costs = g_new (gint64, n);
  guint32 *stage_of = g_new (guint32, n);
  GRand *rng = g_rand_new_with_seed (3);
  for (guint i = 0; i < n; i++)
    costs[i] = g_rand_int_range (rng, 0, 1 << 30);
  gint64 bottleneck = contiguous_split (costs, n, 64, stage_of);
  guint stages;
  CU_ASSERT_EQUAL (max_stage (costs, stage_of, n, &stages), bottleneck);
  CU_ASSERT_EQUAL (stages, 64);
  /* One less is not enough. */
  CU_ASSERT_TRUE (contiguous_min_bottleneck (costs, n, 64) == bottleneck);
  g_rand_free (rng);
  g_free (costs);
  g_free (stage_of);
}

static void
test_cost_option (void)
{
  FxsCostKind kind;
  GError *error = NULL;
  CU_ASSERT_TRUE (cost_option_parse ("flops", &kind, &error));
  CU_ASSERT_EQUAL (kind, FXS_COST_FLOPS);
  CU_ASSERT_FALSE (cost_option_parse ("time", &kind, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_OPTION));
  CU_ASSERT_STRING_EQUAL (error->message, "cost: unknown cost kind 'time' "
                          "(valid: nodes, param_bytes, output_bytes, flops)");
  g_clear_error (&error);
}

/* ---- splitpoints ------------------------------------------------------------------ */

/* emb -> layers.0.attn -> layers.0.mlp -> extra (linear on a layers.0
 * parameter) -> add -> pipe_split -> layers.1.attn -> layers.1.mlp ->
 * relu (method) -> head (Linear). */
static FxsGraph *
pipeline_graph (void)
{
  FxsGraph *g = fxs_graph_new ();
  static const char *const modules[][2] = {
    { "embed", "torch.nn.modules.sparse.Embedding" },
    { "layers", "torch.nn.modules.container.ModuleList" },
    { "layers.0.attn", "my.Attention" }, { "layers.0.mlp", "my.Mlp" },
    { "layers.1.attn", "my.Attention" }, { "layers.1.mlp", "my.Mlp" },
    { "head", "torch.nn.modules.linear.Linear" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (modules); i++)
    tp_attr (g, modules[i][0], FXS_ATTR_MODULE, modules[i][1], 0, NULL);
  static const gint64 dims[2] = { 4, 4 };
  tp_attr (g, "layers.0.extra", FXS_ATTR_PARAMETER, NULL, 2, dims);
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  FxsNode *emb = tp_call (g, FXS_OP_CALL_MODULE, "emb", "embed", x, NULL);
  FxsNode *a0 = tp_call (g, FXS_OP_CALL_MODULE, "a0", "layers.0.attn", emb, NULL);
  FxsNode *m0 = tp_call (g, FXS_OP_CALL_MODULE, "m0", "layers.0.mlp", a0, NULL);
  FxsNode *w = tp_node (g, FXS_OP_GET_ATTR, "extra_w", "layers.0.extra", NULL, 0);
  FxsNode *extra = tp_call (g, FXS_OP_CALL_FUNCTION, "extra", "torch._C._nn.linear", m0, w, NULL);
  FxsNode *add = tp_call (g, FXS_OP_CALL_FUNCTION, "add", "_operator.add", extra, emb, NULL);
  FxsNode *ps = tp_call (g, FXS_OP_CALL_FUNCTION, "ps",
                         "torch.distributed.pipelining._IR.pipe_split", NULL);
  FxsNode *a1 = tp_call (g, FXS_OP_CALL_MODULE, "a1", "layers.1.attn", add, NULL);
  FxsNode *m1 = tp_call (g, FXS_OP_CALL_MODULE, "m1", "layers.1.mlp", a1, NULL);
  FxsNode *ps2 = tp_call (g, FXS_OP_CALL_FUNCTION, "ps2", "torch.ops.pippy._pipe_split.default",
                          NULL);
  FxsNode *relu = tp_call (g, FXS_OP_CALL_METHOD, "relu", "relu", m1, NULL);
  (void) ps2;
  FxsNode *head = tp_call (g, FXS_OP_CALL_MODULE, "head_1", "head", relu, NULL);
  (void) ps;
  tp_output (g, head);
  return g;
}

/* Runs splitpoints; returns the ids (free with g_free) or NULL with @error. */
static gint64 *
split_points (FxsGraph *g, const char *begin_at, const char *end_after, gboolean pipe_split,
              gboolean allow_unmatched, guint *n_stages, GError **error)
{
  SplitPoints sp = { NULL, NULL, pipe_split, allow_unmatched };
  gint64 *ids = NULL;
  if ((sp.begin_at = selector_list_parse ("begin_at", begin_at, error))
      && (sp.end_after = selector_list_parse ("end_after", end_after, error)))
    {
      ids = g_new (gint64, fxs_graph_n_nodes (g));
      if (!split_points_assign (&sp, g, ids, n_stages, error))
        g_clear_pointer (&ids, g_free);
    }
  selector_list_free (sp.begin_at);
  selector_list_free (sp.end_after);
  return ids;
}

static void
test_splitpoints_modules (void)
{
  FxsGraph *g = pipeline_graph ();
  guint stages;
  GError *error = NULL;
  /* Each layer begins a stage (SplitPoint.BEGINNING), pipe_split too. */
  gint64 *ids = split_points (g, "module:layers.*", NULL, TRUE, FALSE, &stages, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ids);
  assert_ids (g, ids, "emb=0 a0=1 m0=1 extra=1 add=1 ps=2 a1=3 m1=3 ps2=4 relu=4 head_1=4");
  CU_ASSERT_EQUAL (stages, 5);
  fxs_split_result_free (split_checked (g, ids));
  g_free (ids);

  /* SplitPoint.END: after each layer's last node (the linear on one of
   * layers.0's parameters belongs to it). */
  ids = split_points (g, "", "module:layers.?", FALSE, FALSE, &stages, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ids);
  assert_ids (g, ids, "emb=0 a0=0 m0=0 extra=0 add=1 ps=1 a1=1 m1=1 ps2=2 relu=2 head_1=2");
  CU_ASSERT_EQUAL (stages, 3);
  g_free (ids);
  fxs_graph_unref (g);
}

static void
test_splitpoints_nodes (void)
{
  FxsGraph *g = pipeline_graph ();
  guint stages;
  GError *error = NULL;
  gint64 *ids = split_points (g, "name:relu, function:add", NULL, FALSE, FALSE, &stages, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ids);
  assert_ids (g, ids, "emb=0 a0=0 extra=0 add=1 ps=1 m1=1 relu=2 head_1=2");
  g_free (ids);

  /* Classes (short or qualified), methods, qualified functions, bare names. */
  ids = split_points (g, "class:Linear method:relu", "function:torch.distributed.*.pipe_split m0",
                      FALSE, FALSE, &stages, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ids);
  assert_ids (g, ids, "emb=0 m0=0 extra=1 add=1 ps=1 a1=2 m1=2 relu=3 head_1=4");
  CU_ASSERT_EQUAL (stages, 5);
  g_free (ids);

  /* Split points at the very beginning or end make no empty stage. */
  ids = split_points (g, "name:emb", "name:head_1", FALSE, FALSE, &stages, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ids);
  CU_ASSERT_EQUAL (stages, 1);
  assert_ids (g, ids, "emb=0 head_1=0");
  g_free (ids);
  fxs_graph_unref (g);
}

static void
test_splitpoints_errors (void)
{
  FxsGraph *g = pipeline_graph ();
  guint stages;
  GError *error = NULL;
  CU_ASSERT_PTR_NULL (split_points (g, "name:a0 name:nothere", NULL, TRUE, FALSE, &stages, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED));
  CU_ASSERT_STRING_EQUAL (error->message, "begin_at: 'name:nothere' matches no call node of the "
                          "graph (set allow_unmatched = true to accept that)");
  g_clear_error (&error);

  gint64 *ids = split_points (g, "name:a0 name:nothere", NULL, TRUE, TRUE, &stages, &error);
  CU_ASSERT_PTR_NOT_NULL (ids);
  CU_ASSERT_EQUAL (stages, 4);
  g_free (ids);

  CU_ASSERT_PTR_NULL (split_points (g, NULL, "node:a0", TRUE, FALSE, &stages, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_OPTION));
  CU_ASSERT_STRING_EQUAL (error->message, "end_after: unknown selector kind 'node' in 'node:a0' "
                          "(valid: name, function, method, class, module)");
  g_clear_error (&error);

  CU_ASSERT_PTR_NULL (split_points (g, "module:", NULL, TRUE, FALSE, &stages, &error));
  CU_ASSERT_STRING_EQUAL (error->message, "begin_at: 'module:' has an empty pattern");
  g_clear_error (&error);
  fxs_graph_unref (g);
}

static void
register_tests (void)
{
  static const FxsTestCase balanced[] = {
    FXS_TEST (test_balanced_hand),
    FXS_TEST (test_balanced_brute_force),
    FXS_TEST (test_balanced_large),
    FXS_TEST (test_cost_option),
    { NULL, NULL },
  };
  static const FxsTestCase splitpoints[] = {
    FXS_TEST (test_splitpoints_modules),
    FXS_TEST (test_splitpoints_nodes),
    FXS_TEST (test_splitpoints_errors),
    { NULL, NULL },
  };
  fxs_test_add_suite ("balanced", balanced);
  fxs_test_add_suite ("splitpoints", splitpoints);
}

FXS_TEST_MAIN (register_tests)
