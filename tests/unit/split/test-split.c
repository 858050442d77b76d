/* Unit tests of the splitting engine.
 *
 * Graphs and expectations are the lines tests/oracle/split_cases.py prints
 * with Debian's torch 1.13 (section names match).  Where torch 1.13 lacks
 * current PyTorch's behaviour, the expectation is derived by hand from a
 * 1.13 section and current PyTorch's split_module source; those tests say
 * which section and which rule. */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "../graph-builders.h"
#include "../test-util.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct {
  FxsGraph *graph;
  FxsSplitResult *result;
  GError *error;
} Split;

static Split
split_ids (const char *graph_text, const char *attrs, const char *ids,
           const FxsSplitOptions *options)
{
  Split s = { fxs_test_graph_new (graph_text), NULL, NULL };
  fxs_test_add_attrs (s.graph, attrs);
  gint64 *id_array = fxs_test_ids (s.graph, ids);
  s.result = fxs_split_with_ids (s.graph, id_array, options, &s.error);
  g_free (id_array);
  return s;
}

static void
split_clear (Split *s)
{
  fxs_split_result_free (s->result);
  fxs_graph_unref (s->graph);
  g_clear_error (&s->error);
}

static void
check_dump (const Split *s, const char *expected)
{
  if (s->error)
    fprintf (stderr, "\nsplit failed: %s\n", s->error->message);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s->result);
  char *dump = fxs_test_dump_split (s->result);
  CU_ASSERT_TRUE (fxs_test_text_equal (dump, expected));
  g_free (dump);
}

/* Splits, compares with the oracle's sections, frees. */
static void
check_split (const char *graph_text, const char *attrs, const char *ids,
             const FxsSplitOptions *options, const char *expected)
{
  Split s = split_ids (graph_text, attrs, ids, options);
  check_dump (&s, expected);
  split_clear (&s);
}

/* Original node names in a partition list, space separated. */
static char *
node_names (const FxsPartition *p, guint (*count) (const FxsPartition *),
            const FxsNode *(*item) (const FxsPartition *, guint))
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < count (p); i++)
    g_string_append_printf (s, "%s%s", i ? " " : "", fxs_node_name (item (p, i)));
  return g_string_free (s, FALSE);
}

static void
check_partition (const FxsPartition *p, const char *nodes, const char *inputs,
                 const char *outputs)
{
  char *n = node_names (p, fxs_partition_n_nodes, fxs_partition_node);
  char *i = node_names (p, fxs_partition_n_inputs, fxs_partition_input);
  char *o = node_names (p, fxs_partition_n_outputs, fxs_partition_output);
  CU_ASSERT_TRUE (fxs_test_text_equal (n, nodes));
  CU_ASSERT_TRUE (fxs_test_text_equal (i, inputs));
  CU_ASSERT_TRUE (fxs_test_text_equal (o, outputs));
  g_free (n);
  g_free (i);
  g_free (o);
}

/* The attribute table as "name:kind[:class]" entries. */
static char *
attr_table (const FxsGraph *g)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < fxs_graph_n_attrs (g); i++)
    {
      const FxsAttr *a = fxs_graph_attr (g, i);
      g_string_append_printf (s, "%s%s:%s", i ? " " : "", fxs_attr_name (a),
                              fxs_attr_kind_to_string (fxs_attr_kind (a)));
      if (fxs_attr_class (a))
        g_string_append_printf (s, ":%s", fxs_attr_class (a));
    }
  return g_string_free (s, FALSE);
}

static void
check_attrs (const FxsGraph *g, const char *expected)
{
  char *table = attr_table (g);
  CU_ASSERT_TRUE (fxs_test_text_equal (table, expected));
  g_free (table);
}

static void
check_error (const Split *s, int code, const char *message)
{
  CU_ASSERT_PTR_NULL (s->result);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s->error);
  CU_ASSERT_TRUE (g_error_matches (s->error, FXS_ERROR, code));
  CU_ASSERT_TRUE (fxs_test_text_equal (s->error->message, message));
}

static FxsNode *
node (FxsGraph *g, const char *name)
{
  return (FxsNode *) fxs_graph_lookup_node (g, name);
}

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
  CU_ASSERT_STRING_EQUAL (fxs_split_result_lookup_qualname (r, "submod_0.linear"), "linear");
  CU_ASSERT_PTR_NULL (fxs_split_result_lookup_qualname (r, "submod_2.linear"));

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

static const char chain_graph[] =
  "placeholder x x ()\n"
  "call_function relu torch.relu (x,)\n"
  "call_function neg torch.neg (relu,)\n"
  "call_function sin torch.sin (neg,)\n"
  "call_function cos torch.cos (sin,)\n"
  "output output output (cos,)\n";
static const char chain_ids[] = "relu=0 neg=0 sin=1 cos=1";

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
test_options_copy (void)
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
  FxsSplitOptions *c = fxs_split_options_copy (o);
  fxs_split_options_free (o);
  CU_ASSERT_TRUE (fxs_split_options_get_tuple_return (c));
  CU_ASSERT_TRUE (fxs_split_options_get_keep_original_order (c));
  CU_ASSERT_STRING_EQUAL (fxs_split_options_get_partition_affix (c), "pp");
  fxs_split_options_free (c);
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
  CU_ASSERT_STRING_EQUAL (fxs_split_result_lookup_qualname (s.result, "submod_1.layer_0_linear"),
                          "layer.0.linear");
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

static const char global_state_graph[] =
  "placeholder x x ()\n"
  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
  "call_function relu torch.relu (x,)\n"
  "call_function _enter_autocast torch.amp.autocast_mode._enter_autocast "
  "('cuda', None, True, None)\n"
  "call_function neg torch.neg (relu,)\n"
  "call_function sin torch.sin (neg,)\n"
  "call_function _exit_autocast torch.amp.autocast_mode._exit_autocast (_enter_autocast,)\n"
  "call_function cos torch.cos (sin,)\n"
  "output output output (cos,)\n";

static void
test_global_state (void)
{
  /* By hand (torch 1.13 has no global-state handling), from current
   * PyTorch's split_module: the grad region spans partitions [0, 1, 2, 3],
   * the autocast region [0, 1, 2].  Partitions regions[1:] start with
   * copies of the region's node (autocast regions first, then grad
   * regions, before the placeholders); partitions regions[:-1] of an
   * autocast region end with an _exit_autocast of their own copy.  The
   * global-state nodes pass nothing between partitions. */
  Split s = split_ids (global_state_graph, "",
                       "_set_grad_enabled=0 relu=0 _enter_autocast=0 neg=1 sin=2 "
                       "_exit_autocast=2 cos=3", NULL);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "call_module submod_0 submod_0 (x,)\n"
                  "call_module submod_1 submod_1 (submod_0,)\n"
                  "call_module submod_2 submod_2 (submod_1,)\n"
                  "call_module submod_3 submod_3 (submod_2,)\n"
                  "output output output (submod_3,)\n"
                  "--- submod_0\n"
                  "placeholder x x ()\n"
                  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_function _enter_autocast torch.amp.autocast_mode._enter_autocast "
                  "('cuda', None, True, None)\n"
                  "call_function _exit_autocast torch.amp.autocast_mode._exit_autocast "
                  "(_enter_autocast,)\n"
                  "output output output (relu,)\n"
                  "--- submod_1\n"
                  "call_function _enter_autocast torch.amp.autocast_mode._enter_autocast "
                  "('cuda', None, True, None)\n"
                  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
                  "placeholder relu relu ()\n"
                  "call_function neg torch.neg (relu,)\n"
                  "call_function _exit_autocast torch.amp.autocast_mode._exit_autocast "
                  "(_enter_autocast,)\n"
                  "output output output (neg,)\n"
                  "--- submod_2\n"
                  "call_function _enter_autocast torch.amp.autocast_mode._enter_autocast "
                  "('cuda', None, True, None)\n"
                  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
                  "placeholder neg neg ()\n"
                  "call_function sin torch.sin (neg,)\n"
                  "call_function _exit_autocast torch.amp.autocast_mode._exit_autocast "
                  "(_enter_autocast,)\n"
                  "output output output (sin,)\n"
                  "--- submod_3\n"
                  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
                  "placeholder sin sin ()\n"
                  "call_function cos torch.cos (sin,)\n"
                  "output output output (cos,)\n");
  check_partition (fxs_split_result_partition (s.result, 0), "_set_grad_enabled relu _enter_autocast",
                   "x", "relu");
  check_partition (fxs_split_result_partition (s.result, 2), "sin _exit_autocast", "neg", "sin");
  split_clear (&s);

  /* a second set_grad_enabled ends the first one's region; torch's short
   * names are accepted too */
  check_split ("placeholder x x ()\n"
               "call_function g1 torch._C._set_grad_enabled (False,)\n"
               "call_function a torch.relu (x,)\n"
               "call_function b torch.neg (a,)\n"
               "call_function g2 torch._C._set_grad_enabled (True,)\n"
               "call_function e torch.amp._enter_autocast ('cpu',)\n"
               "call_function c torch.sin (b,)\n"
               "call_function f torch.amp._exit_autocast (e,)\n"
               "output output output (c,)\n",
               "", "g1=0 a=0 b=1 g2=1 e=1 c=2 f=2", NULL,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_0 submod_0 (x,)\n"
               "call_module submod_1 submod_1 (submod_0,)\n"
               "call_module submod_2 submod_2 (submod_1,)\n"
               "output output output (submod_2,)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
               "call_function relu torch.relu (x,)\n"
               "output output output (relu,)\n"
               "--- submod_1\n"
               "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
               "placeholder a a ()\n"
               "call_function neg torch.neg (a,)\n"
               "call_function _set_grad_enabled_1 torch._C._set_grad_enabled (True,)\n"
               "call_function _enter_autocast torch.amp._enter_autocast ('cpu',)\n"
               "call_function _exit_autocast torch.amp._exit_autocast (_enter_autocast,)\n"
               "output output output (neg,)\n"
               "--- submod_2\n"
               "call_function _enter_autocast torch.amp._enter_autocast ('cpu',)\n"
               "call_function _set_grad_enabled torch._C._set_grad_enabled (True,)\n"
               "placeholder b b ()\n"
               "call_function sin torch.sin (b,)\n"
               "call_function _exit_autocast torch.amp._exit_autocast (_enter_autocast,)\n"
               "output output output (sin,)\n");

  /* negative ids work (PyTorch starts its check at -1 and would refuse) */
  s = split_ids (global_state_graph, "",
                 "_set_grad_enabled=-5 relu=-5 _enter_autocast=-5 neg=-5 sin=-5 "
                 "_exit_autocast=-5 cos=-5", NULL);
  CU_ASSERT_PTR_NOT_NULL (s.result);
  split_clear (&s);
}

static void
test_global_state_errors (void)
{
  Split s = split_ids (global_state_graph, "",
                       "_set_grad_enabled=0 relu=0 _enter_autocast=0 neg=1 sin=2 "
                       "_exit_autocast=2 cos=1", NULL);
  check_error (&s, FXS_ERROR_GLOBAL_STATE,
               "node 'cos': partition 1 comes after partition 2 (node '_exit_autocast'), but "
               "set_grad_enabled and autocast regions need partition ids that never decrease "
               "in graph order");
  split_clear (&s);

  s = split_ids ("placeholder x x ()\n"
                 "call_function e torch.amp._enter_autocast ('cpu',)\n"
                 "call_function a torch.relu (x,)\n"
                 "output output output (a,)\n", "", "e=0 a=0", NULL);
  check_error (&s, FXS_ERROR_GRAPH, "node 'e': torch.amp._enter_autocast has no matching "
                                    "_exit_autocast");
  split_clear (&s);

  s = split_ids ("placeholder x x ()\n"
                 "call_function f torch.amp._exit_autocast (x,)\n"
                 "output output output (x,)\n", "", "f=0", NULL);
  check_error (&s, FXS_ERROR_GRAPH,
               "node 'f': torch.amp._exit_autocast takes exactly one argument, an "
               "_enter_autocast node whose region is still open");
  split_clear (&s);

  s = split_ids ("placeholder x x ()\n"
                 "call_function g torch._C._set_grad_enabled (x,)\n"
                 "output output output (x,)\n", "", "g=0", NULL);
  check_error (&s, FXS_ERROR_GRAPH,
               "node 'g': torch._C._set_grad_enabled takes exactly one argument, a bool");
  split_clear (&s);

  s = split_ids ("placeholder x x ()\n"
                 "call_function e torch.amp._enter_autocast ((x,),)\n"
                 "call_function f torch.amp._exit_autocast (e,)\n"
                 "output output output (x,)\n", "", "e=0 f=0", NULL);
  check_error (&s, FXS_ERROR_GRAPH,
               "node 'e': torch.amp._enter_autocast takes constants only, not node 'x'");
  split_clear (&s);
}

/* ---- symbolic sizes ----------------------------------------------------------------- */

static const char symbolic_graph[] =
  "placeholder x x ()\n"
  "placeholder s0 s0 ()\n"
  "call_function relu torch.relu (x,)\n"
  "call_method size size (x, 0)\n"
  "call_function zeros torch.zeros (size,)\n"
  "call_method size_1 size (x, 1)\n"
  "call_function ones torch.ones (s0,)\n"
  "call_function add _operator.add (relu, zeros)\n"
  "call_function mul _operator.mul (add, ones)\n"
  "output output output (mul,)\n";
static const char symbolic_ids[] = "relu=0 size=0 zeros=0 size_1=1 ones=0 add=1 mul=1";

static FxsGraph *
symbolic_graph_new (void)
{
  FxsGraph *g = fxs_test_graph_new (symbolic_graph);
  const char *s0[] = { "s0" }, *u0[] = { "u0" }, *s0_u1[] = { "s0", "u1" };
  fxs_node_set_symbol (node (g, "s0"), "s0");
  fxs_node_set_symbol (node (g, "size"), "u0");
  fxs_node_set_symbol (node (g, "size_1"), "u1");
  fxs_node_set_free_symbols (node (g, "relu"), s0, 1);
  fxs_node_set_free_symbols (node (g, "zeros"), u0, 1);
  fxs_node_set_free_symbols (node (g, "ones"), s0_u1, 2);
  return g;
}

static void
test_symbolic_sizes (void)
{
  /* By hand from current PyTorch's record_cross_partition_use (torch 1.13
   * has none of this): a value crossing into a partition brings the nodes
   * binding its free symbols along as inputs; a binder that is not a
   * placeholder becomes an output of its partition.  ones's symbol u1 is
   * bound inside partition 1 itself, so nothing is passed for it (PyTorch
   * would make partition 1 depend on itself). */
  FxsGraph *g = symbolic_graph_new ();
  gint64 *ids = fxs_test_ids (g, symbolic_ids);
  Split s = { g, NULL, NULL };
  s.result = fxs_split_with_ids (g, ids, NULL, &s.error);
  g_free (ids);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "placeholder s0 s0 ()\n"
                  "call_module submod_0 submod_0 (x, s0)\n"
                  "call_function getitem _operator.getitem (submod_0, 0)\n"
                  "call_function getitem_1 _operator.getitem (submod_0, 1)\n"
                  "call_function getitem_2 _operator.getitem (submod_0, 2)\n"
                  "call_function getitem_3 _operator.getitem (submod_0, 3)\n"
                  "call_module submod_1 submod_1 (x, getitem, s0, getitem_1, getitem_2, getitem_3)\n"
                  "output output output (submod_1,)\n"
                  "--- submod_0\n"
                  "placeholder x x ()\n"
                  "placeholder s0 s0 ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_method size size (x, 0)\n"
                  "call_function zeros torch.zeros (size,)\n"
                  "call_function ones torch.ones (s0,)\n"
                  "output output output ((relu, zeros, size, ones),)\n"
                  "--- submod_1\n"
                  "placeholder x x ()\n"
                  "placeholder relu relu ()\n"
                  "placeholder s0 s0 ()\n"
                  "placeholder zeros zeros ()\n"
                  "placeholder size size ()\n"
                  "placeholder ones ones ()\n"
                  "call_method size_1 size (x, 1)\n"
                  "call_function add _operator.add (relu, zeros)\n"
                  "call_function mul _operator.mul (add, ones)\n"
                  "output output output (mul,)\n");
  const FxsPartition *p1 = fxs_split_result_partition (s.result, 1);
  CU_ASSERT_EQUAL (fxs_partition_n_dependencies (p1), 1);
  split_clear (&s);

  /* a symbol nothing binds */
  g = symbolic_graph_new ();
  const char *q9[] = { "q9" };
  fxs_node_set_free_symbols (node (g, "zeros"), q9, 1);
  ids = fxs_test_ids (g, symbolic_ids);
  s = (Split) { g, NULL, NULL };
  s.result = fxs_split_with_ids (g, ids, NULL, &s.error);
  g_free (ids);
  check_error (&s, FXS_ERROR_GRAPH,
               "node 'add': its input 'zeros' has a size with symbol 'q9', but no node binds "
               "that symbol");
  split_clear (&s);
}

/* A symbol first bound by a node after its use: the binder is looked for
 * in the whole graph (here it is in the user's own partition: nothing is
 * passed for it), as when uses were recorded in a pass of their own. */
static void
test_symbol_bound_later (void)
{
  FxsGraph *g = symbolic_graph_new ();
  const char *u7[] = { "u7" };
  fxs_node_set_free_symbols (node (g, "zeros"), u7, 1);
  fxs_node_set_symbol (node (g, "mul"), "u7");
  gint64 *ids = fxs_test_ids (g, symbolic_ids);
  Split s = { g, NULL, NULL };
  s.result = fxs_split_with_ids (g, ids, NULL, &s.error);
  g_free (ids);
  check_dump (&s, "--- top\n"
                  "placeholder x x ()\n"
                  "placeholder s0 s0 ()\n"
                  "call_module submod_0 submod_0 (x, s0)\n"
                  "call_function getitem _operator.getitem (submod_0, 0)\n"
                  "call_function getitem_1 _operator.getitem (submod_0, 1)\n"
                  "call_function getitem_2 _operator.getitem (submod_0, 2)\n"
                  "call_module submod_1 submod_1 (x, getitem, s0, getitem_1, getitem_2)\n"
                  "output output output (submod_1,)\n"
                  "--- submod_0\n"
                  "placeholder x x ()\n"
                  "placeholder s0 s0 ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_method size size (x, 0)\n"
                  "call_function zeros torch.zeros (size,)\n"
                  "call_function ones torch.ones (s0,)\n"
                  "output output output ((relu, zeros, ones),)\n"
                  "--- submod_1\n"
                  "placeholder x x ()\n"
                  "placeholder relu relu ()\n"
                  "placeholder s0 s0 ()\n"
                  "placeholder zeros zeros ()\n"
                  "placeholder ones ones ()\n"
                  "call_method size size (x, 1)\n"
                  "call_function add _operator.add (relu, zeros)\n"
                  "call_function mul _operator.mul (add, ones)\n"
                  "output output output (mul,)\n");
  split_clear (&s);
}

/* A dependency that exists only through a symbol shows in a cycle:
 * partition 2 takes n from partition 0 because a's size has n's symbol. */
static void
test_symbolic_cycle (void)
{
  FxsGraph *g = fxs_test_graph_new ("placeholder x x ()\n"
                                    "call_method n size (x, 0)\n"
                                    "call_function a torch.relu (x,)\n"
                                    "call_function b torch.neg (a,)\n"
                                    "call_function c torch.sin (b,)\n"
                                    "output output output (c,)\n");
  const char *u0[] = { "u0" };
  fxs_node_set_symbol (node (g, "n"), "u0");
  fxs_node_set_free_symbols (node (g, "a"), u0, 1);
  gint64 *ids = fxs_test_ids (g, "n=0 a=1 b=2 c=0");
  Split s = { g, NULL, NULL };
  s.result = fxs_split_with_ids (g, ids, NULL, &s.error);
  g_free (ids);
  check_error (&s, FXS_ERROR_CYCLE,
               "cycle between partitions 0 -> 2 -> 0: 'n' (partition 0) binds symbol 'u0' of an "
               "input of 'b' (partition 2); 'b' (partition 2) is used by 'c' (partition 0)");
  split_clear (&s);
}

/* ---- callback and graph errors ------------------------------------------------------ */

static gboolean
failing_partition (const FxsNode *n, gpointer data, gint64 *partition, GError **error)
{
  gboolean with_message = GPOINTER_TO_INT (data);
  if (strcmp (fxs_node_name (n), "neg") != 0)
    {
      *partition = 0;
      return TRUE;
    }
  if (with_message)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "no partition for %s", fxs_node_name (n));
  return FALSE;
}

static void
test_callback_error (void)
{
  FxsGraph *g = fxs_test_graph_new (chain_graph);
  GError *error = NULL;
  CU_ASSERT_PTR_NULL (fxs_split (g, failing_partition, GINT_TO_POINTER (TRUE), NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_CALLBACK));
  CU_ASSERT_STRING_EQUAL (error->message, "node 'neg': no partition for neg");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (fxs_split (g, failing_partition, GINT_TO_POINTER (FALSE), NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_CALLBACK));
  CU_ASSERT_STRING_EQUAL (error->message,
                          "node 'neg': the partition callback failed without an error message");
  g_clear_error (&error);
  fxs_graph_unref (g);
}

static void
test_graph_errors (void)
{
  Split s = split_ids ("placeholder x x ()\n"
                       "placeholder y y (x,)\n"
                       "output output output (y,)\n", "", "", NULL);
  check_error (&s, FXS_ERROR_GRAPH,
               "node 'y': a placeholder's default value may not refer to node 'x'");
  split_clear (&s);
  s = split_ids ("placeholder x x ()\n"
                 "call_function a torch.relu (x,)\n", "", "a=0", NULL);
  check_error (&s, FXS_ERROR_GRAPH, "the graph has no output node");
  split_clear (&s);
  s = split_ids ("placeholder x x ()\n"
                 "output output output (x, x)\n", "", "", NULL);
  check_error (&s, FXS_ERROR_GRAPH,
               "node 'output': the output node takes exactly one argument, not 2");
  split_clear (&s);
}

/* ---- values ----------------------------------------------------------------------- */

static void
test_nested_values (void)
{
  /* references inside lists, dicts and slices are remapped; constants and
   * dict keys are not */
  check_split ("placeholder x x ()\n"
               "call_function a torch.relu (x,)\n"
               "call_function b _operator.getitem (a, (slice(None, x, None), Ellipsis))\n"
               "call_function c __main__.f ([a, [b, 1.5]], {'k': (b,), 'n': None}) "
               "{'t': 'text', 'u': [x]}\n"
               "output output output ({'out': c, 'a': a},)\n",
               "", "a=0 b=1 c=1", NULL,
               "--- top\n"
               "placeholder x x ()\n"
               "call_module submod_0 submod_0 (x,)\n"
               "call_module submod_1 submod_1 (submod_0, x)\n"
               "output output output ({'out': submod_1, 'a': submod_0},)\n"
               "--- submod_0\n"
               "placeholder x x ()\n"
               "call_function relu torch.relu (x,)\n"
               "output output output (relu,)\n"
               "--- submod_1\n"
               "placeholder a a ()\n"
               "placeholder x x ()\n"
               "call_function getitem _operator.getitem (a, (slice(None, x, None), Ellipsis))\n"
               "call_function f __main__.f ([a, [getitem, 1.5]], {'k': (getitem,), 'n': None}) "
               "{'t': 'text', 'u': [x]}\n"
               "output output output (f,)\n");
}

/* ---- threads ------------------------------------------------------------------ */

/* A residual chain big enough for the engine to build on several threads
 * (it does from 16,384 nodes on): per block a module call, a parameter and
 * an addition reading the block before (and, every seventh, one further
 * back: partitions with several outputs); every 50th block also passes its
 * module on as a value (a module get_attr, which submodules fetch
 * themselves).  Five contiguous partitions whose ids go down and up. */
static void
big_graph (guint blocks, GString *graph, GString *attrs, GString *ids)
{
  static const int stage_ids[] = { 3, 1, 4, 0, 2 };
  g_string_append (graph, "placeholder x x ()\n");
  const char *prev = "x";
  char *prev_owned = NULL;
  for (guint i = 0; i < blocks; i++)
    {
      int id = stage_ids[5 * i / blocks];
      g_string_append_printf (attrs, "layers.%u.fc:module:torch.nn.Linear "
                                     "layers.%u.scale:parameter ", i, i);
      g_string_append_printf (graph, "call_module fc_%u layers.%u.fc (%s,)\n"
                                     "get_attr layers_%u_scale layers.%u.scale ()\n",
                              i, i, prev, i, i);
      g_string_append_printf (ids, "fc_%u=%d add_%u=%d ", i, id, i, id);
      if (i % 7 == 3)
        g_string_append_printf (graph, "call_function add_%u _operator.add (fc_%u, "
                                       "layers_%u_scale) {'alpha': add_%u}\n",
                                i, i, i, i - 3);
      else
        g_string_append_printf (graph, "call_function add_%u _operator.add (fc_%u, "
                                       "layers_%u_scale)\n", i, i, i);
      g_free (prev_owned);
      prev = prev_owned = g_strdup_printf ("add_%u", i);
      if (i % 50 == 49)
        {
          g_string_append_printf (graph, "get_attr mod_%u layers.%u.fc ()\n"
                                         "call_function use_%u __main__.f (%s, mod_%u)\n",
                                  i, i, i, prev, i);
          g_string_append_printf (ids, "use_%u=%d ", i, stage_ids[MIN (5 * i / blocks + 1, 4)]);
        }
    }
  g_string_append_printf (graph, "output output output (%s,)\n", prev);
  g_free (prev_owned);
}

/* The split of the big graph with @threads threads, as JSON; or its error. */
static char *
split_with_threads (FxsGraph *graph, const gint64 *ids, guint threads,
                    gboolean keep_original_order, GError **error)
{
  FxsSplitOptions *options = fxs_split_options_new ();
  fxs_split_options_set_threads (options, threads);
  fxs_split_options_set_keep_original_order (options, keep_original_order);
  FxsSplitResult *result = fxs_split_with_ids (graph, ids, options, error);
  fxs_split_options_free (options);
  if (!result)
    return NULL;
  GString *json = g_string_new (NULL);
  fxs_split_result_to_json (result, json);
  fxs_split_result_free (result);
  return g_string_free (json, FALSE);
}

static void
test_threads_same_result (void)
{
  GString *text = g_string_new (NULL), *attrs = g_string_new (NULL), *ids = g_string_new (NULL);
  big_graph (6000, text, attrs, ids);
  FxsGraph *graph = fxs_test_graph_new (text->str);
  fxs_test_add_attrs (graph, attrs->str);
  gint64 *id_array = fxs_test_ids (graph, ids->str);
  CU_ASSERT_TRUE (fxs_graph_n_nodes (graph) >= 16384);
  for (guint keep = 0; keep < 2; keep++)
    {
      GError *error = NULL;
      char *serial = split_with_threads (graph, id_array, 1, keep, &error);
      if (error)
        fprintf (stderr, "\nsplit failed: %s\n", error->message);
      CU_ASSERT_PTR_NULL (error);
      CU_ASSERT_PTR_NOT_NULL_FATAL (serial);
      CU_ASSERT_PTR_NOT_NULL (strstr (serial, "\"submod_2.layers_5999_fc\""));
      const guint counts[] = { 0, 2, 3, 8 };
      for (guint k = 0; k < G_N_ELEMENTS (counts); k++)
        {
          char *json = split_with_threads (graph, id_array, counts[k], keep, &error);
          CU_ASSERT_PTR_NULL (error);
          CU_ASSERT_PTR_NOT_NULL_FATAL (json);
          CU_ASSERT_TRUE (strcmp (json, serial) == 0);
          g_free (json);
        }
      /* the process-wide limit stands for 0 */
      fxs_set_max_threads (1);
      char *limited = split_with_threads (graph, id_array, 0, keep, &error);
      fxs_set_max_threads (0);
      CU_ASSERT_PTR_NOT_NULL_FATAL (limited);
      CU_ASSERT_TRUE (strcmp (limited, serial) == 0);
      g_free (limited);
      g_free (serial);
    }
  g_free (id_array);
  fxs_graph_unref (graph);
  g_string_free (text, TRUE);
  g_string_free (attrs, TRUE);
  g_string_free (ids, TRUE);
}

/* A big split that fails reports the same error with any number of threads. */
static void
test_threads_same_error (void)
{
  GString *text = g_string_new (NULL), *attrs = g_string_new (NULL), *ids = g_string_new (NULL);
  big_graph (6000, text, attrs, ids);
  /* partition 0 (the fourth stage) takes a value from partition 2 (the last) */
  g_string_replace (ids, "use_3599=2 ", "use_3599=0 ", 1);
  g_string_replace (text, "__main__.f (add_3599, mod_3599)", "__main__.f (add_5000, mod_3599)",
                    1);
  char *moved = g_strdup (strstr (text->str, "call_function use_3599"));
  *strchr (moved, '\n') = '\0';
  g_string_replace (text, moved, "", 1);
  char *after = g_strdup_printf ("%s\n", moved);
  gssize at = strstr (text->str, "call_module fc_5001") - text->str;
  g_string_insert (text, at, after);
  FxsGraph *graph = fxs_test_graph_new (text->str);
  fxs_test_add_attrs (graph, attrs->str);
  gint64 *id_array = fxs_test_ids (graph, ids->str);
  GError *serial = NULL;
  CU_ASSERT_PTR_NULL (split_with_threads (graph, id_array, 1, FALSE, &serial));
  CU_ASSERT_PTR_NOT_NULL_FATAL (serial);
  CU_ASSERT_TRUE (g_error_matches (serial, FXS_ERROR, FXS_ERROR_CYCLE));
  for (guint threads = 0; threads <= 4; threads += 2)
    {
      GError *error = NULL;
      CU_ASSERT_PTR_NULL (split_with_threads (graph, id_array, threads, FALSE, &error));
      CU_ASSERT_PTR_NOT_NULL_FATAL (error);
      CU_ASSERT_TRUE (g_error_matches (error, serial->domain, serial->code));
      CU_ASSERT_TRUE (fxs_test_text_equal (error->message, serial->message));
      g_error_free (error);
    }
  g_error_free (serial);
  g_free (moved);
  g_free (after);
  g_free (id_array);
  fxs_graph_unref (graph);
  g_string_free (text, TRUE);
  g_string_free (attrs, TRUE);
  g_string_free (ids, TRUE);
}

static void
test_threads_option (void)
{
  FxsSplitOptions *o = fxs_split_options_new ();
  CU_ASSERT_EQUAL (fxs_split_options_get_threads (o), 0);
  fxs_split_options_set_threads (o, 3);
  FxsSplitOptions *copy = fxs_split_options_copy (o);
  CU_ASSERT_EQUAL (fxs_split_options_get_threads (copy), 3);
  fxs_split_options_free (copy);
  fxs_split_options_free (o);
  CU_ASSERT_EQUAL (fxs_get_max_threads (), 0);
  fxs_set_max_threads (2);
  CU_ASSERT_EQUAL (fxs_get_max_threads (), 2);
  fxs_set_max_threads (0);
  CU_ASSERT_EQUAL (fxs_get_max_threads (), 0);
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
    FXS_TEST (test_options_copy),
    FXS_TEST (test_shared_param),
    FXS_TEST (test_module_input),
    FXS_TEST (test_nested_targets),
    FXS_TEST (test_flattened_name_clash),
    FXS_TEST (test_missing_attr),
    FXS_TEST (test_attr_added_later),
    FXS_TEST (test_builtin_names_and_defaults),
    FXS_TEST (test_collide_x),
    FXS_TEST (test_extreme_ids),
    FXS_TEST (test_types_and_meta),
    FXS_TEST (test_global_state),
    FXS_TEST (test_global_state_errors),
    FXS_TEST (test_symbolic_sizes),
    FXS_TEST (test_symbol_bound_later),
    FXS_TEST (test_symbolic_cycle),
    FXS_TEST (test_callback_error),
    FXS_TEST (test_graph_errors),
    FXS_TEST (test_nested_values),
    FXS_TEST (test_threads_same_result),
    FXS_TEST (test_threads_same_error),
    FXS_TEST (test_threads_option),
    { NULL, NULL },
  };
  fxs_test_add_suite ("split", cases);
}

FXS_TEST_MAIN (register_tests)
