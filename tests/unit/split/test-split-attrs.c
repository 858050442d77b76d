/* Unit tests of the splitting engine: attributes, node names, ids and metadata.
 *
 * Graphs and expectations are the lines tests/oracle/split_cases.py prints
 * with Debian's torch 1.13 (section names match).  Where torch 1.13 lacks
 * current PyTorch's behaviour, the expectation is derived by hand from a
 * 1.13 section and current PyTorch's split_module source; those tests say
 * which section and which rule. */
#include "split-test.h"

static const char module_input_graph[] =
  "placeholder x x ()\n"
  "get_attr sub sub ()\n"
  "call_function apply_mod __main__.apply_mod (sub, x)\n"
  "call_function relu torch.relu (apply_mod,)\n"
  "output output output (relu,)\n";
static const char module_input_attrs[] = "sub:module:torch.nn.modules.linear.Linear";

static void
test_module_input (void)
{
  /* By hand from "module_input": current PyTorch fetches a module with
   * get_attr inside the submodule (first, as it is the first input) and
   * does not pass it; torch 1.13 passes it as a placeholder. */
  Split s = split_ids (module_input_graph, module_input_attrs, "apply_mod=0 relu=1", NULL);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "get_attr sub sub ()\n"
                  "call_module submod_0 submod_0 (x,)\n"
                  "call_module submod_1 submod_1 (submod_0,)\n"
                  "output output output (submod_1,)\n"
                  "--- submod_0\n"
                  "get_attr sub sub ()\n"
                  "placeholder x x ()\n"
                  "call_function apply_mod __main__.apply_mod (sub, x)\n"
                  "output output output (apply_mod,)\n"
                  "--- submod_1\n"
                  "placeholder apply_mod apply_mod ()\n"
                  "call_function relu torch.relu (apply_mod,)\n"
                  "output output output (relu,)\n");
  const FxsPartition *p0 = fxs_split_result_partition (s.result, 0);
  check_partition (p0, "apply_mod", "x", "apply_mod");
  check_attrs (fxs_partition_graph (p0), "sub:module:torch.nn.modules.linear.Linear");
  check_attrs (fxs_split_result_top (s.result),
               "sub:module:torch.nn.modules.linear.Linear "
               "submod_0:module:torch.fx.graph_module.GraphModule "
               "submod_1:module:torch.fx.graph_module.GraphModule");
  split_clear (&s);

  /* with keep_original_order the top level never fetches it, and arg_N
   * numbering skips it */
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_keep_original_order (o, TRUE);
  fxs_split_options_set_keep_original_input_name (o, FALSE);
  check_split (module_input_graph, module_input_attrs, "apply_mod=0 relu=1", o,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_0 submod_0 (x,)\n"
               "call_module submod_1 submod_1 (submod_0,)\n"
               "output output output (submod_1,)\n"
               "--- submod_0\n"
               "get_attr sub sub ()\n"
               "placeholder arg_0 arg_0 ()\n"
               "call_function apply_mod __main__.apply_mod (sub, arg_0)\n"
               "output output output (apply_mod,)\n"
               "--- submod_1\n"
               "placeholder arg_0 arg_0 ()\n"
               "call_function relu torch.relu (arg_0,)\n"
               "output output output (relu,)\n");
  fxs_split_options_free (o);
}

static void
test_nested_targets (void)
{
  /* section "nested": call_module targets flattened, the qualname map in
   * graph order with repeated entries in their first position */
  Split s = split_ids ("placeholder x x ()\n"
                       "call_module layer_0_linear layer.0.linear (x,)\n"
                       "call_module layer_1_linear layer.1.linear (layer_0_linear,)\n"
                       "call_module layer_0_linear_1 layer.0.linear (layer_1_linear,)\n"
                       "call_module layer_1_linear_1 layer.1.linear (layer_0_linear_1,)\n"
                       "output output output (layer_1_linear_1,)\n",
                       "layer:module:torch.nn.modules.container.ModuleList "
                       "layer.0:module:__main__.Inner "
                       "layer.0.linear:module:torch.nn.modules.linear.Linear "
                       "layer.1:module:__main__.Inner "
                       "layer.1.linear:module:torch.nn.modules.linear.Linear",
                       "layer_0_linear=0 layer_1_linear=1 layer_0_linear_1=1 layer_1_linear_1=1",
                       NULL);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "call_module submod_0 submod_0 (x,)\n"
                  "call_module submod_1 submod_1 (submod_0,)\n"
                  "output output output (submod_1,)\n"
                  "--- submod_0\n"
                  "placeholder x x ()\n"
                  "call_module layer_0_linear layer_0_linear (x,)\n"
                  "output output output (layer_0_linear,)\n"
                  "--- submod_1\n"
                  "placeholder layer_0_linear layer_0_linear ()\n"
                  "call_module layer_1_linear layer_1_linear (layer_0_linear,)\n"
                  "call_module layer_0_linear_1 layer_0_linear (layer_1_linear,)\n"
                  "call_module layer_1_linear_1 layer_1_linear (layer_0_linear_1,)\n"
                  "output output output (layer_1_linear_1,)\n"
                  "--- qualname_map\n"
                  "submod_0.layer_0_linear -> layer.0.linear\n"
                  "submod_1.layer_1_linear -> layer.1.linear\n"
                  "submod_1.layer_0_linear -> layer.0.linear\n");
  check_attrs (fxs_partition_graph (fxs_split_result_partition (s.result, 1)),
               "layer_1_linear:module:torch.nn.modules.linear.Linear "
               "layer_0_linear:module:torch.nn.modules.linear.Linear");
  split_clear (&s);
}

static void
test_flattened_name_clash (void)
{
  /* section "flat_clash": "a.b" and "a_b" both become attribute a_b of the
   * submodule, a dict entry the last call assigns (torch ends up with
   * ReLU, the module at a.b) */
  Split s = split_ids ("placeholder x x ()\n"
                       "call_module a_b a.b (x,)\n"
                       "call_module a_b_1 a_b (a_b,)\n"
                       "call_module a_b_2 a.b (a_b_1,)\n"
                       "output output output (a_b_2,)\n",
                       "a:module:torch.nn.modules.module.Module "
                       "a.b:module:torch.nn.modules.activation.ReLU "
                       "a_b:module:torch.nn.modules.activation.Tanh",
                       "a_b=0 a_b_1=0 a_b_2=0", NULL);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "call_module submod_0 submod_0 (x,)\n"
                  "output output output (submod_0,)\n"
                  "--- submod_0\n"
                  "placeholder x x ()\n"
                  "call_module a_b a_b (x,)\n"
                  "call_module a_b_1 a_b (a_b,)\n"
                  "call_module a_b_2 a_b (a_b_1,)\n"
                  "output output output (a_b_2,)\n"
                  "--- qualname_map\n"
                  "submod_0.a_b -> a.b\n");
  check_attrs (fxs_partition_graph (fxs_split_result_partition (s.result, 0)),
               "a_b:module:torch.nn.modules.activation.ReLU");
  split_clear (&s);
}

static void
test_missing_attr (void)
{
  Split s = split_ids ("placeholder x x ()\n"
                       "call_module lin foo.bar (x,)\n"
                       "output output output (lin,)\n", "foo:module:M", "lin=0", NULL);
  check_error (&s, FXS_ERROR_GRAPH,
               "node 'lin': call_module target 'foo.bar' is not in the attribute table");
  split_clear (&s);
  s = split_ids ("placeholder x x ()\n"
                 "get_attr w w ()\n"
                 "call_function add _operator.add (x, w)\n"
                 "output output output (add,)\n", "", "add=0", NULL);
  check_error (&s, FXS_ERROR_GRAPH, "node 'w': get_attr target 'w' is not in the attribute table");
  split_clear (&s);
}

/* The attribute positions a graph keeps for its splits follow attributes
 * added after a split: a target missing at first is found later. */
static void
test_attr_added_later (void)
{
  Split s = split_ids ("placeholder x x ()\n"
                       "get_attr w w ()\n"
                       "call_module lin foo.bar (x,)\n"
                       "call_function add _operator.add (lin, w)\n"
                       "output output output (add,)\n", "foo.bar:module:M", "lin=0 add=1", NULL);
  check_error (&s, FXS_ERROR_GRAPH, "node 'w': get_attr target 'w' is not in the attribute table");
  g_clear_error (&s.error);
  CU_ASSERT_PTR_NOT_NULL (fxs_graph_add_attr (s.graph, "w", FXS_ATTR_PARAMETER, NULL, NULL, NULL));
  gint64 *ids = fxs_test_ids (s.graph, "lin=0 add=1");
  s.result = fxs_split_with_ids (s.graph, ids, NULL, &s.error);
  g_free (ids);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "get_attr w w ()\n"
                  "call_module submod_0 submod_0 (x,)\n"
                  "call_module submod_1 submod_1 (submod_0, w)\n"
                  "output output output (submod_1,)\n"
                  "--- submod_0\n"
                  "placeholder x x ()\n"
                  "call_module foo_bar foo_bar (x,)\n"
                  "output output output (foo_bar,)\n"
                  "--- submod_1\n"
                  "placeholder lin lin ()\n"
                  "placeholder w w ()\n"
                  "call_function add _operator.add (lin, w)\n"
                  "output output output (add,)\n"
                  "--- qualname_map\n"
                  "submod_0.foo_bar -> foo.bar\n");
  split_clear (&s);
}

/* ---- names -------------------------------------------------------------------- */

static void
test_builtin_names_and_defaults (void)
{
  /* section "builtins": names that are builtins get suffixes, the
   * placeholder default stays on the top level only */
  check_split ("placeholder input_1 input ()\n"
               "placeholder y y (2,)\n"
               "call_function sum_1 torch.sum (input_1,)\n"
               "call_method type_1 type (input_1, torch.float64)\n"
               "call_function getattr_1 getattr (type_1, 'T')\n"
               "call_function add _operator.add (sum_1, getattr_1)\n"
               "call_function add_1 _operator.add (add, y)\n"
               "output output output (add_1,)\n",
               "", "sum_1=0 type_1=1 getattr_1=1 add=2 add_1=2", NULL,
               "--- top\n"
               "placeholder input_1 input ()\n"
               "placeholder y y (2,)\n"
               "call_module submod_1 submod_1 (input_1,)\n"
               "call_module submod_0 submod_0 (input_1,)\n"
               "call_module submod_2 submod_2 (submod_0, submod_1, y)\n"
               "output output output (submod_2,)\n"
               "--- submod_1\n"
               "placeholder input_1 input_1 ()\n"
               "call_method type_1 type (input_1, torch.float64)\n"
               "call_function getattr_1 getattr (type_1, 'T')\n"
               "output output output (getattr_1,)\n"
               "--- submod_0\n"
               "placeholder input_1 input_1 ()\n"
               "call_function sum_1 torch.sum (input_1,)\n"
               "output output output (sum_1,)\n"
               "--- submod_2\n"
               "placeholder sum_1 sum_1 ()\n"
               "placeholder getattr_1 getattr_1 ()\n"
               "placeholder y y ()\n"
               "call_function add _operator.add (sum_1, getattr_1)\n"
               "call_function add_1 _operator.add (add, y)\n"
               "output output output (add_1,)\n");
}

static void
test_collide_x (void)
{
  /* section "collide_x": a placeholder named x_1, then nodes named after
   * a function x */
  check_split ("placeholder x_1 x_1 ()\n"
               "call_function x __main__.x (x_1,)\n"
               "call_function x_2 __main__.x (x,)\n"
               "call_function x_3 __main__.x (x_2,)\n"
               "output output output (x_3,)\n",
               "", "x=0 x_2=0 x_3=1", NULL,
               "--- top\n"
               "placeholder x_1 x_1 ()\n"
               "call_module submod_0 submod_0 (x_1,)\n"
               "call_module submod_1 submod_1 (submod_0,)\n"
               "output output output (submod_1,)\n"
               "--- submod_0\n"
               "placeholder x_1 x_1 ()\n"
               "call_function x __main__.x (x_1,)\n"
               "call_function x_2 __main__.x (x,)\n"
               "output output output (x_2,)\n"
               "--- submod_1\n"
               "placeholder x_2 x_2 ()\n"
               "call_function x __main__.x (x_2,)\n"
               "output output output (x,)\n");
}

static void
test_extreme_ids (void)
{
  /* section "extreme_ids" */
  char *ids = g_strdup_printf ("relu=%" G_GINT64_FORMAT " neg=%" G_GINT64_FORMAT " sin=-1 cos=0",
                               G_MAXINT64, G_MININT64);
  Split s = split_ids (chain_graph, "", ids, NULL);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "call_module submod_9223372036854775807 submod_9223372036854775807 (x,)\n"
                  "call_module submod__9223372036854775808 submod_-9223372036854775808 "
                  "(submod_9223372036854775807,)\n"
                  "call_module submod__1 submod_-1 (submod__9223372036854775808,)\n"
                  "call_module submod_0 submod_0 (submod__1,)\n"
                  "output output output (submod_0,)\n"
                  "--- submod_9223372036854775807\n"
                  "placeholder x x ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "output output output (relu,)\n"
                  "--- submod_-9223372036854775808\n"
                  "placeholder relu relu ()\n"
                  "call_function neg torch.neg (relu,)\n"
                  "output output output (neg,)\n"
                  "--- submod_-1\n"
                  "placeholder neg neg ()\n"
                  "call_function sin torch.sin (neg,)\n"
                  "output output output (sin,)\n"
                  "--- submod_0\n"
                  "placeholder sin sin ()\n"
                  "call_function cos torch.cos (sin,)\n"
                  "output output output (cos,)\n");
  CU_ASSERT_EQUAL (fxs_partition_id (fxs_split_result_partition (s.result, 1)), G_MININT64);
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (fxs_split_result_partition (s.result, 2)), "-1");
  split_clear (&s);
  g_free (ids);
}

/* ---- types and metadata ---------------------------------------------------------- */

static void
test_types_and_meta (void)
{
  /* Current PyTorch copies type annotations into the submodules (1.13
   * does not); metadata is shared with the original node. */
  FxsGraph *g = fxs_test_graph_new (chain_graph);
  fxs_node_set_type (node (g, "x"), "torch.Tensor");
  fxs_node_set_type (node (g, "relu"), "torch.Tensor");
  fxs_node_set_type (node (g, "neg"), "typing.Any");
  gint64 dims[2] = { 2, 3 };
  const FxsTensorMeta *t = fxs_tensor_meta_new (g, 2, dims, NULL, "torch.float32");
  fxs_node_set_tensors (node (g, "neg"), &t, 1, FALSE);
  fxs_node_set_meta (node (g, "x"), "tag", fxs_value_new_string (g, "input"));
  gint64 *ids = fxs_test_ids (g, chain_ids);
  GError *error = NULL;
  FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  const FxsGraph *top = fxs_split_result_top (r);
  const FxsGraph *g0 = fxs_partition_graph (fxs_split_result_partition (r, 0));
  const FxsGraph *g1 = fxs_partition_graph (fxs_split_result_partition (r, 1));
  CU_ASSERT_STRING_EQUAL (fxs_node_type (fxs_graph_lookup_node (top, "x")), "torch.Tensor");
  CU_ASSERT_PTR_NULL (fxs_node_type (fxs_graph_lookup_node (top, "submod_0")));
  CU_ASSERT_STRING_EQUAL (fxs_node_type (fxs_graph_lookup_node (g0, "x")), "torch.Tensor");
  CU_ASSERT_STRING_EQUAL (fxs_node_type (fxs_graph_lookup_node (g0, "relu")), "torch.Tensor");
  CU_ASSERT_STRING_EQUAL (fxs_node_type (fxs_graph_lookup_node (g1, "neg")), "typing.Any");
  CU_ASSERT_PTR_NULL (fxs_node_type (fxs_graph_lookup_node (g1, "sin")));
  CU_ASSERT_EQUAL (fxs_node_n_tensors (fxs_graph_lookup_node (g1, "neg")), 1);
  CU_ASSERT_EQUAL (fxs_node_output_bytes (fxs_graph_lookup_node (g0, "neg")), 24);
  const FxsValue *tag = fxs_node_meta_lookup (fxs_graph_lookup_node (top, "x"), "tag");
  CU_ASSERT_PTR_NOT_NULL_FATAL (tag);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (tag), "input");
  CU_ASSERT_PTR_NULL (fxs_node_meta_lookup (fxs_graph_lookup_node (top, "output"), "tag"));
  g_free (ids);
  /* the produced graphs keep the original's memory alive */
  fxs_graph_unref (g);
  CU_ASSERT_EQUAL (fxs_node_n_tensors (fxs_graph_lookup_node (g1, "neg")), 1);
  fxs_split_result_free (r);
}

/* ---- global-state regions ------------------------------------------------------- */

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_module_input),
    FXS_TEST (test_nested_targets),
    FXS_TEST (test_flattened_name_clash),
    FXS_TEST (test_missing_attr),
    FXS_TEST (test_attr_added_later),
    FXS_TEST (test_builtin_names_and_defaults),
    FXS_TEST (test_collide_x),
    FXS_TEST (test_extreme_ids),
    FXS_TEST (test_types_and_meta),
    { NULL, NULL },
  };
  fxs_test_add_suite ("split-attrs", cases);
}

FXS_TEST_MAIN (register_tests)
