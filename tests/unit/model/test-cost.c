/* Unit tests of the shared node cost definition (include/fxsplit/cost.h):
 * each kind on hand-made nodes with known answers, unknown costs, and the
 * kind names. */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "../test-partitioners-graphs.h"
#include "../test-util.h"

static void
test_kind_names (void)
{
  static const char *const names[] = { "nodes", "param_bytes", "output_bytes", "flops" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      FxsCostKind kind;
      CU_ASSERT_TRUE (fxs_cost_kind_from_string (names[i], &kind));
      CU_ASSERT_EQUAL (kind, (FxsCostKind) i);
      CU_ASSERT_STRING_EQUAL (fxs_cost_kind_to_string (kind), names[i]);
      CU_ASSERT_PTR_NOT_NULL (strstr (FXS_COST_KIND_NAMES, names[i]));
    }
  FxsCostKind kind = FXS_COST_FLOPS;
  CU_ASSERT_FALSE (fxs_cost_kind_from_string ("bytes", &kind));
  CU_ASSERT_FALSE (fxs_cost_kind_from_string ("", &kind));
  CU_ASSERT_FALSE (fxs_cost_kind_from_string (NULL, &kind));
  CU_ASSERT_EQUAL (kind, FXS_COST_FLOPS);
}

/* x -> lin (Linear 8->4) -> relu -> conv (F.conv2d with a get_attr weight)
 * -> getitem-free tail: an unknown function, a node without meta, a view. */
typedef struct {
  FxsGraph *g;
  FxsNode *x, *lin, *relu, *weight, *conv, *mystery, *blind, *view, *mm, *addmm, *mha;
} CostGraph;

static CostGraph
cost_graph (void)
{
  CostGraph c;
  FxsGraph *g = c.g = fxs_graph_new ();
  static const gint64 lin_w[2] = { 4, 8 }, lin_b[1] = { 4 }, conv_w[4] = { 16, 3, 3, 3 };
  static const gint64 in_proj[2] = { 24, 8 }, out_proj[2] = { 8, 8 };
  tp_attr (g, "lin", FXS_ATTR_MODULE, "torch.nn.modules.linear.Linear", 0, NULL);
  tp_attr (g, "lin.weight", FXS_ATTR_PARAMETER, NULL, 2, lin_w);
  tp_attr (g, "lin.bias", FXS_ATTR_PARAMETER, NULL, 1, lin_b);
  tp_attr (g, "conv_w", FXS_ATTR_PARAMETER, NULL, 4, conv_w);
  tp_attr (g, "attn", FXS_ATTR_MODULE, "torch.nn.modules.activation.MultiheadAttention", 0, NULL);
  tp_attr (g, "attn.in_proj_weight", FXS_ATTR_PARAMETER, NULL, 2, in_proj);
  tp_attr (g, "attn.out_proj", FXS_ATTR_MODULE,
           "torch.nn.modules.linear.NonDynamicallyQuantizableLinear", 0, NULL);
  tp_attr (g, "attn.out_proj.weight", FXS_ATTR_PARAMETER, NULL, 2, out_proj);
  tp_attr (g, "attn.out_proj.bias", FXS_ATTR_BUFFER, NULL, 1, lin_b);

  c.x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  tp_tensor (g, c.x, "torch.float32", 2, (gint64) 2, (gint64) 8);
  c.lin = tp_call (g, FXS_OP_CALL_MODULE, "lin", "lin", c.x, NULL);
  tp_tensor (g, c.lin, "torch.float32", 2, (gint64) 2, (gint64) 4);
  c.relu = tp_call (g, FXS_OP_CALL_FUNCTION, "relu", "torch.relu", c.lin, NULL);
  tp_tensor (g, c.relu, "torch.float16", 4, (gint64) 1, (gint64) 3, (gint64) 8, (gint64) 8);
  c.weight = tp_node (g, FXS_OP_GET_ATTR, "conv_w", "conv_w", NULL, 0);
  c.conv = tp_call (g, FXS_OP_CALL_FUNCTION, "conv2d", "torch.conv2d", c.relu, c.weight, NULL);
  tp_tensor (g, c.conv, "torch.float32", 4, (gint64) 1, (gint64) 16, (gint64) 6, (gint64) 6);
  c.mystery = tp_call (g, FXS_OP_CALL_FUNCTION, "mystery", "my.lib.mystery", c.conv, NULL);
  tp_tensor (g, c.mystery, "torch.int64", 1, (gint64) 5);
  c.blind = tp_call (g, FXS_OP_CALL_FUNCTION, "blind", "torch.relu", c.mystery, NULL);
  c.view = tp_call (g, FXS_OP_CALL_METHOD, "view", "view", c.conv, NULL);
  tp_tensor (g, c.view, "torch.float32", 2, (gint64) 16, (gint64) 36);
  c.mm = tp_call (g, FXS_OP_CALL_FUNCTION, "mm", "torch.mm", c.view, c.x, NULL);
  tp_tensor (g, c.mm, "torch.float32", 2, (gint64) 16, (gint64) 8);
  /* addmm(bias, mat1, mat2): K is mat1's last dimension (36). */
  c.addmm = tp_call (g, FXS_OP_CALL_FUNCTION, "addmm", "torch.addmm", c.mm, c.view, c.x, NULL);
  tp_tensor (g, c.addmm, "torch.float32", 2, (gint64) 16, (gint64) 8);
  FxsNode *seq = tp_call (g, FXS_OP_CALL_METHOD, "seq", "reshape", c.addmm, NULL);
  tp_tensor (g, seq, "torch.float32", 3, (gint64) 1, (gint64) 16, (gint64) 8);
  c.mha = tp_call (g, FXS_OP_CALL_MODULE, "attn", "attn", seq, seq, seq, NULL);
  tp_output (g, c.mha);
  return c;
}

static void
test_node_count (void)
{
  CostGraph c = cost_graph ();
  FxsNodeCosts *costs = fxs_node_costs_new (c.g, FXS_COST_NODES);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.x)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.weight)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.lin)), 1);
  CU_ASSERT_EQUAL (fxs_node_costs_total (costs), 10);
  CU_ASSERT_EQUAL (fxs_node_costs_n_unknown (costs), 0);
  CU_ASSERT_PTR_NULL (fxs_node_costs_first_unknown (costs));
  fxs_node_costs_free (costs);
  fxs_graph_unref (c.g);
}

static void
test_param_bytes (void)
{
  CostGraph c = cost_graph ();
  FxsNodeCosts *costs = fxs_node_costs_new (c.g, FXS_COST_PARAM_BYTES);
  const gint64 *a = fxs_node_costs_array (costs);
  CU_ASSERT_EQUAL (a[fxs_node_index (c.lin)], (32 + 4) * 4);      /* weight and bias */
  CU_ASSERT_EQUAL (a[fxs_node_index (c.relu)], 0);
  CU_ASSERT_EQUAL (a[fxs_node_index (c.conv)], 16 * 3 * 3 * 3 * 4); /* the get_attr argument */
  /* Everything under the module, nested modules and buffers included. */
  CU_ASSERT_EQUAL (a[fxs_node_index (c.mha)], (24 * 8 + 8 * 8 + 4) * 4);
  CU_ASSERT_EQUAL (fxs_node_costs_total (costs), 144 + 1728 + 1040);
  CU_ASSERT_EQUAL (fxs_node_costs_n_unknown (costs), 0);
  fxs_node_costs_free (costs);
  fxs_graph_unref (c.g);
}

static void
test_output_bytes (void)
{
  CostGraph c = cost_graph ();
  FxsNodeCosts *costs = fxs_node_costs_new (c.g, FXS_COST_OUTPUT_BYTES);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.lin)), 2 * 4 * 4);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.relu)), 3 * 8 * 8 * 2);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.mystery)), 5 * 8);
  /* No meta: unknown, counted, 0. */
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.blind)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_n_unknown (costs), 2);   /* blind and the attention */
  CU_ASSERT_PTR_EQUAL (fxs_node_costs_first_unknown (costs), c.blind);
  fxs_node_costs_free (costs);
  fxs_graph_unref (c.g);
}

static void
test_flops (void)
{
  CostGraph c = cost_graph ();
  FxsNodeCosts *costs = fxs_node_costs_new (c.g, FXS_COST_FLOPS);
  /* Linear: 2 * out * in + bias per output element. */
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.lin)), 2 * 8 * 8 + 8);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.relu)), 3 * 8 * 8);
  /* Convolution: 2 * output elements * (in channels * kernel), no bias. */
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.conv)), 2 * 576 * 27);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.view)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.mm)), 2 * 128 * 36);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.addmm)), 2 * 128 * 36 + 128);
  /* Attention on [1, 16, 8]: projections 8 * 16 * 8 * 8, products 4 * 16 * 16 * 8. */
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.mha)),
                   8 * 16 * 8 * 8 + 4 * 16 * 16 * 8);
  /* An unknown function and a relu without shapes: 0, counted. */
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.mystery)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (c.blind)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_n_unknown (costs), 2);
  CU_ASSERT_PTR_EQUAL (fxs_node_costs_first_unknown (costs), c.mystery);
  fxs_node_costs_free (costs);
  fxs_graph_unref (c.g);
}

/* Modules: convolutions with weight and bias from the attribute table,
 * normalization, pooling by input, and shapes that are symbolic. */
static void
test_flops_modules (void)
{
  FxsGraph *g = fxs_graph_new ();
  static const gint64 w[4] = { 8, 2, 3, 3 }, b[1] = { 8 }, tw[4] = { 4, 2, 2, 2 };
  tp_attr (g, "conv", FXS_ATTR_MODULE, "torch.nn.modules.conv.Conv2d", 0, NULL);
  tp_attr (g, "conv.weight", FXS_ATTR_PARAMETER, NULL, 4, w);
  tp_attr (g, "conv.bias", FXS_ATTR_PARAMETER, NULL, 1, b);
  tp_attr (g, "up", FXS_ATTR_MODULE, "torch.nn.modules.conv.ConvTranspose2d", 0, NULL);
  tp_attr (g, "up.weight", FXS_ATTR_PARAMETER, NULL, 4, tw);
  tp_attr (g, "bn", FXS_ATTR_MODULE, "torch.nn.modules.batchnorm.BatchNorm2d", 0, NULL);
  tp_attr (g, "pool", FXS_ATTR_MODULE, "torch.nn.modules.pooling.AdaptiveAvgPool2d", 0, NULL);
  tp_attr (g, "odd", FXS_ATTR_MODULE, "my.Odd", 0, NULL);
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  tp_tensor (g, x, "torch.float32", 4, (gint64) 1, (gint64) 4, (gint64) 6, (gint64) 6);
  FxsNode *conv = tp_call (g, FXS_OP_CALL_MODULE, "conv", "conv", x, NULL);
  tp_tensor (g, conv, "torch.float32", 4, (gint64) 1, (gint64) 8, (gint64) 4, (gint64) 4);
  FxsNode *up = tp_call (g, FXS_OP_CALL_MODULE, "up", "up", conv, NULL);
  tp_tensor (g, up, "torch.float32", 4, (gint64) 1, (gint64) 8, (gint64) 8, (gint64) 8);
  FxsNode *bn = tp_call (g, FXS_OP_CALL_MODULE, "bn", "bn", up, NULL);
  tp_tensor (g, bn, "torch.float32", 4, (gint64) 1, (gint64) 8, (gint64) 8, (gint64) 8);
  FxsNode *pool = tp_call (g, FXS_OP_CALL_MODULE, "pool", "pool", bn, NULL);
  tp_tensor (g, pool, "torch.float32", 4, (gint64) 1, (gint64) 8, (gint64) 1, (gint64) 1);
  FxsNode *odd = tp_call (g, FXS_OP_CALL_MODULE, "odd", "odd", pool, NULL);
  tp_tensor (g, odd, "torch.float32", 1, (gint64) 8);
  const gint64 dims[2] = { -1, 8 };
  const char *const syms[2] = { "s0", NULL };
  FxsNode *sym = tp_call (g, FXS_OP_CALL_FUNCTION, "sym", "_operator.add", odd, odd, NULL);
  const FxsTensorMeta *t = fxs_tensor_meta_new (g, 2, dims, syms, "torch.float32");
  fxs_node_set_tensors (sym, &t, 1, FALSE);
  tp_output (g, sym);

  FxsNodeCosts *costs = fxs_node_costs_new (g, FXS_COST_FLOPS);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (conv)), 2 * 128 * 18 + 128);
  /* Transposed: 2 * input elements * (out channels / groups * kernel). */
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (up)), 2 * 128 * 8);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (bn)), 5 * 512);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (pool)), 512);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (odd)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_get (costs, fxs_node_index (sym)), 0);
  CU_ASSERT_EQUAL (fxs_node_costs_n_unknown (costs), 2);
  CU_ASSERT_EQUAL (fxs_node_costs_total (costs), 2 * 128 * 18 + 128 + 2 * 128 * 8 + 5 * 512 + 512);
  fxs_node_costs_free (costs);
  fxs_graph_unref (g);
}

/* Costs of a random graph add up, and every kind is linear enough to run
 * on a large one quickly (the test's timeout catches a quadratic one). */
static void
test_large_graph (void)
{
  GRand *rng = g_rand_new_with_seed (7);
  FxsGraph *g = tp_random_dag (rng, 200000);
  for (FxsCostKind kind = FXS_COST_NODES; kind <= FXS_COST_FLOPS; kind++)
    {
      FxsNodeCosts *costs = fxs_node_costs_new (g, kind);
      gint64 sum = 0;
      for (guint i = 0; i < fxs_graph_n_nodes (g); i++)
        {
          CU_ASSERT (fxs_node_costs_get (costs, i) >= 0);
          sum += fxs_node_costs_get (costs, i);
        }
      CU_ASSERT_EQUAL (sum, fxs_node_costs_total (costs));
      if (kind == FXS_COST_NODES)
        CU_ASSERT_EQUAL (sum, 200000);
      fxs_node_costs_free (costs);
    }
  fxs_graph_unref (g);
  g_rand_free (rng);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_kind_names),
    FXS_TEST (test_node_count),
    FXS_TEST (test_param_bytes),
    FXS_TEST (test_output_bytes),
    FXS_TEST (test_flops),
    FXS_TEST (test_flops_modules),
    FXS_TEST (test_large_graph),
    { NULL, NULL },
  };
  fxs_test_add_suite ("cost", cases);
}

FXS_TEST_MAIN (register_tests)
