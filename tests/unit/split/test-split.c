/* Unit tests of the splitting engine: partitions, their order and options.
 *
 * Graphs and expectations are the lines tests/oracle/split_cases.py prints
 * with Debian's torch 1.13 (section names match).  Where torch 1.13 lacks
 * current PyTorch's behaviour, the expectation is derived by hand from a
 * 1.13 section and current PyTorch's split_module source; those tests say
 * which section and which rule. */
#include "split-test.h"

/* ---- the docstring example ------------------------------------------------ */

static const char docstring_graph[] =
  "placeholder x x ()\n"
  "placeholder y y ()\n"
  "get_attr param param ()\n"
  "call_function add _operator.add (x, param)\n"
  "call_module linear linear (add,)\n"
  "call_method clamp clamp (linear,) {'min': 0.0, 'max': 1.0}\n"
  "call_module linear_1 linear (y,)\n"
  "call_method clamp_1 clamp (linear_1,) {'min': 0.0, 'max': 1.0}\n"
  "call_function add_1 _operator.add (clamp, clamp_1)\n"
  "output output output (add_1,)\n";
static const char docstring_attrs[] = "param:parameter linear:module:torch.nn.modules.linear.Linear";
static const char docstring_ids[] = "add=0 linear=1 clamp=2 linear_1=0 clamp_1=1 add_1=2";

static const char docstring_top[] =
  "--- top\n"
  "placeholder x x ()\n"
  "placeholder y y ()\n"
  "get_attr param param ()\n"
  "call_module submod_0 submod_0 (x, param, y)\n"
  "call_function getitem _operator.getitem (submod_0, 0)\n"
  "call_function getitem_1 _operator.getitem (submod_0, 1)\n"
  "call_module submod_1 submod_1 (getitem, getitem_1)\n"
  "call_function getitem_2 _operator.getitem (submod_1, 0)\n"
  "call_function getitem_3 _operator.getitem (submod_1, 1)\n"
  "call_module submod_2 submod_2 (getitem_2, getitem_3)\n"
  "output output output (submod_2,)\n";

/* section "docstring" */
static const char docstring_expected[] =
  "--- submod_0\n"
  "placeholder x x ()\n"
  "placeholder param param ()\n"
  "placeholder y y ()\n"
  "call_function add _operator.add (x, param)\n"
  "call_module linear linear (y,)\n"
  "output output output ((add, linear),)\n"
  "--- submod_1\n"
  "placeholder add add ()\n"
  "placeholder linear_1 linear_1 ()\n"
  "call_module linear linear (add,)\n"
  "call_method clamp clamp (linear_1,) {'min': 0.0, 'max': 1.0}\n"
  "output output output ((linear, clamp),)\n"
  "--- submod_2\n"
  "placeholder linear linear ()\n"
  "placeholder clamp_1 clamp_1 ()\n"
  "call_method clamp clamp (linear,) {'min': 0.0, 'max': 1.0}\n"
  "call_function add _operator.add (clamp, clamp_1)\n"
  "output output output (add,)\n"
  "--- qualname_map\n"
  "submod_1.linear -> linear\n"
  "submod_0.linear -> linear\n";

typedef struct {
  GPtrArray *seen;
  guint counter;
} ModuloState;

/* The docstring's mod_partition: a counter modulo 3. */
static gboolean
modulo_partition (const FxsNode *n, gpointer data, gint64 *partition, GError **error)
{
  (void) error;
  ModuloState *state = data;
  g_ptr_array_add (state->seen, (gpointer) fxs_node_name (n));
  *partition = state->counter++ % 3;
  return TRUE;
}

static void
test_docstring (void)
{
  FxsGraph *g = fxs_test_graph_new (docstring_graph);
  fxs_test_add_attrs (g, docstring_attrs);
  ModuloState state = { g_ptr_array_new (), 0 };
  GError *error = NULL;
  FxsSplitResult *r = fxs_split (g, modulo_partition, &state, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);

  /* once per call node, in graph order */
  CU_ASSERT_EQUAL (state.seen->len, 6);
  static const char *const calls[] = { "add", "linear", "clamp", "linear_1", "clamp_1", "add_1" };
  for (guint i = 0; i < state.seen->len && i < 6; i++)
    CU_ASSERT_STRING_EQUAL (state.seen->pdata[i], calls[i]);

  char *dump = fxs_test_dump_split (r);
  char *expected = g_strconcat (docstring_top, docstring_expected, NULL);
  CU_ASSERT_TRUE (fxs_test_text_equal (dump, expected));
  g_free (dump);
  g_free (expected);

  CU_ASSERT_PTR_EQUAL (fxs_split_result_original (r), g);
  CU_ASSERT_EQUAL (fxs_split_result_n_partitions (r), 3);
  const FxsPartition *p0 = fxs_split_result_partition (r, 0);
  const FxsPartition *p1 = fxs_split_result_partition (r, 1);
  const FxsPartition *p2 = fxs_split_result_partition (r, 2);
  check_partition (p0, "add linear_1", "x param y", "add linear_1");
  check_partition (p1, "linear clamp_1", "add linear_1", "linear clamp_1");
  check_partition (p2, "clamp add_1", "linear clamp_1", "add_1");
  CU_ASSERT_EQUAL (fxs_partition_index (p1), 1);
  CU_ASSERT_EQUAL (fxs_partition_id (p1), 1);
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (p1), "1");
  CU_ASSERT_STRING_EQUAL (fxs_partition_submod_name (p1), "submod_1");
  CU_ASSERT_EQUAL (fxs_partition_n_dependencies (p0), 0);
  CU_ASSERT_EQUAL (fxs_partition_n_dependents (p0), 1);
  CU_ASSERT_PTR_EQUAL (fxs_partition_dependent (p0, 0), p1);
  CU_ASSERT_EQUAL (fxs_partition_n_dependencies (p2), 1);
  CU_ASSERT_PTR_EQUAL (fxs_partition_dependency (p2, 0), p1);
  CU_ASSERT_PTR_EQUAL (fxs_split_result_partition_of (r, fxs_graph_lookup_node (g, "clamp_1")), p1);
  CU_ASSERT_PTR_NULL (fxs_split_result_partition_of (r, fxs_graph_lookup_node (g, "param")));
  CU_ASSERT_PTR_NULL (fxs_split_result_partition_of (r, fxs_graph_lookup_node (g, "output")));

  CU_ASSERT_EQUAL (fxs_split_result_n_qualnames (r), 2);
  const char *new_name, *old_name;
  fxs_split_result_qualname (r, 1, &new_name, &old_name);
  CU_ASSERT_STRING_EQUAL (new_name, "submod_0.linear");
  CU_ASSERT_STRING_EQUAL (old_name, "linear");

  check_attrs (fxs_split_result_top (r),
               "param:parameter submod_0:module:torch.fx.graph_module.GraphModule "
               "submod_1:module:torch.fx.graph_module.GraphModule "
               "submod_2:module:torch.fx.graph_module.GraphModule");
  check_attrs (fxs_partition_graph (p0), "linear:module:torch.nn.modules.linear.Linear");
  check_attrs (fxs_partition_graph (p2), "");

  fxs_split_result_free (r);
  g_ptr_array_free (state.seen, TRUE);
  fxs_graph_unref (g);
}

/* The same split with the ids given up front; the result outlives the
 * caller's reference to the graph. */
static void
test_with_ids_keeps_graph (void)
{
  Split s = split_ids (docstring_graph, docstring_attrs, docstring_ids, NULL);
  fxs_graph_unref (s.graph);
  s.graph = NULL;
  char *expected = g_strconcat (docstring_top, docstring_expected, NULL);
  check_dump (&s, expected);
  g_free (expected);
  const FxsNode *add = fxs_partition_node (fxs_split_result_partition (s.result, 0), 0);
  CU_ASSERT_STRING_EQUAL (fxs_node_name (add), "add");
  split_clear (&s);
}

/* ---- partition order ------------------------------------------------------ */

static const char independent_graph[] =
  "placeholder x x ()\n"
  "call_function relu torch.relu (x,)\n"
  "call_function neg torch.neg (x,)\n"
  "call_function sin torch.sin (x,)\n"
  "output output output ((relu, neg, sin),)\n";

static void
test_independent_order (void)
{
  /* section "independent": the stack pops the last root first */
  check_split (independent_graph, "", "relu=0 neg=1 sin=2", NULL,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_2 submod_2 (x,)\n"
               "call_module submod_1 submod_1 (x,)\n"
               "call_module submod_0 submod_0 (x,)\n"
               "output output output ((submod_0, submod_1, submod_2),)\n"
               "--- submod_2\n"
               "placeholder x x ()\n"
               "call_function sin torch.sin (x,)\n"
               "output output output (sin,)\n"
               "--- submod_1\n"
               "placeholder x x ()\n"
               "call_function neg torch.neg (x,)\n"
               "output output output (neg,)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "call_function relu torch.relu (x,)\n"
               "output output output (relu,)\n");

  /* section "independent_keep_order" */
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_keep_original_order (o, TRUE);
  check_split (independent_graph, "", "relu=0 neg=1 sin=2", o,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_0 submod_0 (x,)\n"
               "call_module submod_1 submod_1 (x,)\n"
               "call_module submod_2 submod_2 (x,)\n"
               "output output output ((submod_0, submod_1, submod_2),)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "call_function relu torch.relu (x,)\n"
               "output output output (relu,)\n"
               "--- submod_1\n"
               "placeholder x x ()\n"
               "call_function neg torch.neg (x,)\n"
               "output output output (neg,)\n"
               "--- submod_2\n"
               "placeholder x x ()\n"
               "call_function sin torch.sin (x,)\n"
               "output output output (sin,)\n");
  fxs_split_options_free (o);
}

static const char two_params_graph[] =
  "placeholder x x ()\n"
  "get_attr w1 w1 ()\n"
  "call_function add _operator.add (x, w1)\n"
  "get_attr w2 w2 ()\n"
  "call_function mul _operator.mul (add, w2)\n"
  "output output output (mul,)\n";

static void
test_keep_order_attrs (void)
{
  static const char subs[] =
    "--- submod_0\n"
    "placeholder x x ()\n"
    "placeholder w1 w1 ()\n"
    "call_function add _operator.add (x, w1)\n"
    "output output output (add,)\n"
    "--- submod_1\n"
    "placeholder add add ()\n"
    "placeholder w2 w2 ()\n"
    "call_function mul _operator.mul (add, w2)\n"
    "output output output (mul,)\n";
  /* section "keep_order_attrs" */
  char *expected = g_strconcat ("--- top\n"
                                "placeholder x x ()\n"
                                "get_attr w1 w1 ()\n"
                                "get_attr w2 w2 ()\n"
                                "call_module submod_0 submod_0 (x, w1)\n"
                                "call_module submod_1 submod_1 (submod_0, w2)\n"
                                "output output output (submod_1,)\n", subs, NULL);
  check_split (two_params_graph, "w1:parameter w2:parameter", "add=0 mul=1", NULL, expected);
  g_free (expected);

  /* By hand (torch 1.13 builds the attributes first either way): current
   * PyTorch with keep_original_order emits every placeholder before the
   * first call, then each partition's get_attr inputs just before it. */
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_keep_original_order (o, TRUE);
  expected = g_strconcat ("--- top\n"
                          "placeholder x x ()\n"
                          "get_attr w1 w1 ()\n"
                          "call_module submod_0 submod_0 (x, w1)\n"
                          "get_attr w2 w2 ()\n"
                          "call_module submod_1 submod_1 (submod_0, w2)\n"
                          "output output output (submod_1,)\n", subs, NULL);
  Split s = split_ids (two_params_graph, "w1:parameter w2:parameter", "add=0 mul=1", o);
  check_dump (&s, expected);
  check_attrs (fxs_split_result_top (s.result),
               "w1:parameter submod_0:module:torch.fx.graph_module.GraphModule "
               "w2:parameter submod_1:module:torch.fx.graph_module.GraphModule");
  split_clear (&s);
  g_free (expected);

  /* keep_original_order cannot call a partition before one it needs */
  s = split_ids (two_params_graph, "w1:parameter w2:parameter", "add=1 mul=0", o);
  CU_ASSERT_PTR_NOT_NULL (s.result);
  split_clear (&s);
  s = split_ids ("placeholder x x ()\n"
                 "call_function a torch.relu (x,)\n"
                 "call_function b torch.neg (x,)\n"
                 "call_function c _operator.add (a, b)\n"
                 "output output output (c,)\n", "", "a=1 b=0 c=1", o);
  check_error (&s, FXS_ERROR_GRAPH,
               "keep_original_order: partition 1 comes first in the graph but needs 'b' from "
               "partition 0 (used by 'c')");
  split_clear (&s);
  fxs_split_options_free (o);
}

/* PyTorch fails on an attribute only the output uses under
 * keep_original_order; fxsplit fetches it before the output. */
static void
test_keep_order_output_attr (void)
{
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_keep_original_order (o, TRUE);
  check_split ("placeholder x x ()\n"
               "get_attr p p ()\n"
               "call_function relu torch.relu (x,)\n"
               "output output output ((relu, p),)\n",
               "p:parameter", "relu=0", o,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_0 submod_0 (x,)\n"
               "get_attr p p ()\n"
               "output output output ((submod_0, p),)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "call_function relu torch.relu (x,)\n"
               "output output output (relu,)\n");
  /* no call node at all: everything is constructed at the end */
  check_split ("placeholder x x ()\n"
               "get_attr p p ()\n"
               "output output output ((x, p),)\n",
               "p:parameter", "", o,
               "--- top\n"
               "placeholder x x ()\n"
               "get_attr p p ()\n"
               "output output output ((x, p),)\n");
  fxs_split_options_free (o);
  check_split ("placeholder x x ()\n"
               "output output output (x,)\n", "", "", NULL,
               "--- top\n"
               "placeholder x x ()\n"
               "output output output (x,)\n");
}

static void
test_cycle (void)
{
  /* section "cycle": torch raises "cycle exists between partitions!" */
  Split s = split_ids ("placeholder x x ()\n"
                       "call_function relu torch.relu (x,)\n"
                       "call_function neg torch.neg (relu,)\n"
                       "call_function sin torch.sin (neg,)\n"
                       "output output output (sin,)\n", "", "relu=0 neg=1 sin=0", NULL);
  check_error (&s, FXS_ERROR_CYCLE,
               "cycle between partitions 0 -> 1 -> 0: 'relu' (partition 0) is used by 'neg' "
               "(partition 1); 'neg' (partition 1) is used by 'sin' (partition 0)");
  split_clear (&s);

  /* a longer ring behind an acyclic prefix, named with the affix */
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_partition_affix (o, "s");
  s = split_ids ("placeholder x x ()\n"
                 "call_function a torch.relu (x,)\n"
                 "call_function b torch.neg (a,)\n"
                 "call_function c torch.sin (b,)\n"
                 "call_function d torch.cos (c,)\n"
                 "call_function e torch.tan (d,)\n"
                 "output output output (e,)\n", "", "a=5 b=7 c=8 d=9 e=7", o);
  check_error (&s, FXS_ERROR_CYCLE,
               "cycle between partitions s_7 -> s_8 -> s_9 -> s_7: 'b' (partition s_7) is used "
               "by 'c' (partition s_8); 'c' (partition s_8) is used by 'd' (partition s_9); "
               "'d' (partition s_9) is used by 'e' (partition s_7)");
  split_clear (&s);
  fxs_split_options_free (o);
}

/* ---- outputs and options ---------------------------------------------------- */

static void
test_zero_outputs (void)
{
  /* By hand: torch 1.13 fails on a partition without outputs; current
   * PyTorch returns () from it and binds nothing.  Both partitions are
   * roots, so the stack calls partition 1 first. */
  Split s = split_ids ("placeholder x x ()\n"
                       "call_function relu torch.relu (x,)\n"
                       "call_function neg torch.neg (x,)\n"
                       "output output output (relu,)\n", "", "relu=0 neg=1", NULL);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "call_module submod_1 submod_1 (x,)\n"
                  "call_module submod_0 submod_0 (x,)\n"
                  "output output output (submod_0,)\n"
                  "--- submod_1\n"
                  "placeholder x x ()\n"
                  "call_function neg torch.neg (x,)\n"
                  "output output output ((),)\n"
                  "--- submod_0\n"
                  "placeholder x x ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "output output output (relu,)\n");
  CU_ASSERT_EQUAL (fxs_partition_n_outputs (fxs_split_result_partition (s.result, 0)), 0);
  split_clear (&s);
}

static void
test_chain_and_tuple_return (void)
{
  /* section "chain2" */
  check_split (chain_graph, "", chain_ids, NULL,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_0 submod_0 (x,)\n"
               "call_module submod_1 submod_1 (submod_0,)\n"
               "output output output (submod_1,)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "call_function relu torch.relu (x,)\n"
               "call_function neg torch.neg (relu,)\n"
               "output output output (neg,)\n"
               "--- submod_1\n"
               "placeholder neg neg ()\n"
               "call_function sin torch.sin (neg,)\n"
               "call_function cos torch.cos (sin,)\n"
               "output output output (cos,)\n");

  /* By hand from "chain2": tuple_return wraps the single outputs in
   * tuples, which the top level unpacks with getitem. */
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_tuple_return (o, TRUE);
  check_split (chain_graph, "", chain_ids, o,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_0 submod_0 (x,)\n"
               "call_function getitem _operator.getitem (submod_0, 0)\n"
               "call_module submod_1 submod_1 (getitem,)\n"
               "call_function getitem_1 _operator.getitem (submod_1, 0)\n"
               "output output output (getitem_1,)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "call_function relu torch.relu (x,)\n"
               "call_function neg torch.neg (relu,)\n"
               "output output output ((neg,),)\n"
               "--- submod_1\n"
               "placeholder neg neg ()\n"
               "call_function sin torch.sin (neg,)\n"
               "call_function cos torch.cos (sin,)\n"
               "output output output ((cos,),)\n");
  fxs_split_options_free (o);
}

static void
test_partition_affix (void)
{
  /* By hand from "chain2": partitions are named "<affix>_<id>" and their
   * submodules "submod_<affix>_<id>"; the call nodes' names go through
   * _snake_case ("submod_Stage_0" -> "submod_stage_0"). */
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_partition_affix (o, "Stage");
  CU_ASSERT_STRING_EQUAL (fxs_split_options_get_partition_affix (o), "Stage");
  Split s = split_ids (chain_graph, "", chain_ids, o);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "call_module submod_stage_0 submod_Stage_0 (x,)\n"
                  "call_module submod_stage_1 submod_Stage_1 (submod_stage_0,)\n"
                  "output output output (submod_stage_1,)\n"
                  "--- submod_Stage_0\n"
                  "placeholder x x ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_function neg torch.neg (relu,)\n"
                  "output output output (neg,)\n"
                  "--- submod_Stage_1\n"
                  "placeholder neg neg ()\n"
                  "call_function sin torch.sin (neg,)\n"
                  "call_function cos torch.cos (sin,)\n"
                  "output output output (cos,)\n");
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (fxs_split_result_partition (s.result, 1)), "Stage_1");
  split_clear (&s);
  fxs_split_options_set_partition_affix (o, NULL);
  CU_ASSERT_PTR_NULL (fxs_split_options_get_partition_affix (o));
  fxs_split_options_free (o);
}

static void
test_input_names (void)
{
  /* By hand from "docstring": keep_original_input_name=False names the
   * placeholders arg_0, arg_1, ... per submodule; the top level is the same. */
  FxsSplitOptions *o = fxs_split_options_new ();
  CU_ASSERT_TRUE (fxs_split_options_get_keep_original_input_name (o));
  fxs_split_options_set_keep_original_input_name (o, FALSE);
  char *expected = g_strconcat (docstring_top,
                                "--- submod_0\n"
                                "placeholder arg_0 arg_0 ()\n"
                                "placeholder arg_1 arg_1 ()\n"
                                "placeholder arg_2 arg_2 ()\n"
                                "call_function add _operator.add (arg_0, arg_1)\n"
                                "call_module linear linear (arg_2,)\n"
                                "output output output ((add, linear),)\n"
                                "--- submod_1\n"
                                "placeholder arg_0 arg_0 ()\n"
                                "placeholder arg_1 arg_1 ()\n"
                                "call_module linear linear (arg_0,)\n"
                                "call_method clamp clamp (arg_1,) {'min': 0.0, 'max': 1.0}\n"
                                "output output output ((linear, clamp),)\n"
                                "--- submod_2\n"
                                "placeholder arg_0 arg_0 ()\n"
                                "placeholder arg_1 arg_1 ()\n"
                                "call_method clamp clamp (arg_0,) {'min': 0.0, 'max': 1.0}\n"
                                "call_function add _operator.add (clamp, arg_1)\n"
                                "output output output (add,)\n"
                                "--- qualname_map\n"
                                "submod_1.linear -> linear\n"
                                "submod_0.linear -> linear\n", NULL);
  check_split (docstring_graph, docstring_attrs, docstring_ids, o, expected);
  g_free (expected);
  fxs_split_options_free (o);
}

static void
test_node_names (void)
{
  /* By hand from "docstring": keep_original_node_name asks the namespace
   * for the original names (linear_1, clamp_1, add_1 instead of names from
   * the targets). */
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_keep_original_node_name (o, TRUE);
  CU_ASSERT_TRUE (fxs_split_options_get_keep_original_node_name (o));
  char *expected = g_strconcat (docstring_top,
                                "--- submod_0\n"
                                "placeholder x x ()\n"
                                "placeholder param param ()\n"
                                "placeholder y y ()\n"
                                "call_function add _operator.add (x, param)\n"
                                "call_module linear_1 linear (y,)\n"
                                "output output output ((add, linear_1),)\n"
                                "--- submod_1\n"
                                "placeholder add add ()\n"
                                "placeholder linear_1 linear_1 ()\n"
                                "call_module linear linear (add,)\n"
                                "call_method clamp_1 clamp (linear_1,) {'min': 0.0, 'max': 1.0}\n"
                                "output output output ((linear, clamp_1),)\n"
                                "--- submod_2\n"
                                "placeholder linear linear ()\n"
                                "placeholder clamp_1 clamp_1 ()\n"
                                "call_method clamp clamp (linear,) {'min': 0.0, 'max': 1.0}\n"
                                "call_function add_1 _operator.add (clamp, clamp_1)\n"
                                "output output output (add_1,)\n"
                                "--- qualname_map\n"
                                "submod_1.linear -> linear\n"
                                "submod_0.linear -> linear\n", NULL);
  check_split (docstring_graph, docstring_attrs, docstring_ids, o, expected);
  g_free (expected);

  /* By hand from "builtins": the top-level placeholders take the original
   * node names as their targets (input_1, not input). */
  Split s = split_ids ("placeholder input_1 input ()\n"
                       "call_function relu torch.relu (input_1,)\n"
                       "output output output (relu,)\n", "", "relu=0", o);
  check_dump (&s, "--- top\n"
                  "placeholder input_1 input_1 ()\n"
                  "call_module submod_0 submod_0 (input_1,)\n"
                  "output output output (submod_0,)\n"
                  "--- submod_0\n"
                  "placeholder input_1 input_1 ()\n"
                  "call_function relu torch.relu (input_1,)\n"
                  "output output output (relu,)\n");
  split_clear (&s);
  fxs_split_options_free (o);
}

static void
test_options (void)
{
  FxsSplitOptions *o = fxs_split_options_new ();
  CU_ASSERT_FALSE (fxs_split_options_get_keep_original_order (o));
  CU_ASSERT_FALSE (fxs_split_options_get_keep_original_node_name (o));
  CU_ASSERT_TRUE (fxs_split_options_get_keep_original_input_name (o));
  CU_ASSERT_FALSE (fxs_split_options_get_tuple_return (o));
  CU_ASSERT_PTR_NULL (fxs_split_options_get_partition_affix (o));
  fxs_split_options_set_tuple_return (o, TRUE);
  fxs_split_options_set_keep_original_order (o, TRUE);
  fxs_split_options_set_partition_affix (o, "pp");
  CU_ASSERT_TRUE (fxs_split_options_get_tuple_return (o));
  CU_ASSERT_TRUE (fxs_split_options_get_keep_original_order (o));
  CU_ASSERT_STRING_EQUAL (fxs_split_options_get_partition_affix (o), "pp");
  fxs_split_options_free (o);
}

/* ---- attributes ------------------------------------------------------------ */

static void
test_shared_param (void)
{
  /* section "shared_param": a parameter passed to two partitions, a list
   * argument collecting values of two partitions */
  check_split ("placeholder x x ()\n"
               "get_attr p p ()\n"
               "call_function add _operator.add (x, p)\n"
               "call_function neg torch.neg (x,)\n"
               "call_function mul _operator.mul (neg, p)\n"
               "call_function cat torch.cat ([add, mul],) {'dim': 0}\n"
               "output output output (cat,)\n",
               "p:parameter", "add=0 neg=1 mul=1 cat=2", NULL,
               "--- top\n"
               "placeholder x x ()\n"
               "get_attr p p ()\n"
               "call_module submod_1 submod_1 (x, p)\n"
               "call_module submod_0 submod_0 (x, p)\n"
               "call_module submod_2 submod_2 (submod_0, submod_1)\n"
               "output output output (submod_2,)\n"
               "--- submod_1\n"
               "placeholder x x ()\n"
               "placeholder p p ()\n"
               "call_function neg torch.neg (x,)\n"
               "call_function mul _operator.mul (neg, p)\n"
               "output output output (mul,)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "placeholder p p ()\n"
               "call_function add _operator.add (x, p)\n"
               "output output output (add,)\n"
               "--- submod_2\n"
               "placeholder add add ()\n"
               "placeholder mul mul ()\n"
               "call_function cat torch.cat ([add, mul],) {'dim': 0}\n"
               "output output output (cat,)\n");
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_docstring),
    FXS_TEST (test_with_ids_keeps_graph),
    FXS_TEST (test_independent_order),
    FXS_TEST (test_keep_order_attrs),
    FXS_TEST (test_keep_order_output_attr),
    FXS_TEST (test_cycle),
    FXS_TEST (test_zero_outputs),
    FXS_TEST (test_chain_and_tuple_return),
    FXS_TEST (test_partition_affix),
    FXS_TEST (test_input_names),
    FXS_TEST (test_node_names),
    FXS_TEST (test_options),
    FXS_TEST (test_shared_param),
    { NULL, NULL },
  };
  fxs_test_add_suite ("split", cases);
}

FXS_TEST_MAIN (register_tests)
