/* Unit tests of the splitting engine: global state, symbolic sizes, errors and threads.
 *
 * Graphs and expectations are the lines tests/oracle/split_cases.py prints
 * with Debian's torch 1.13 (section names match).  Where torch 1.13 lacks
 * current PyTorch's behaviour, the expectation is derived by hand from a
 * 1.13 section and current PyTorch's split_module source; those tests say
 * which section and which rule. */
#include "split-test.h"

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
  Split s = split_ids (fxs_test_global_state_graph, "",
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
  s = split_ids (fxs_test_global_state_graph, "",
                 "_set_grad_enabled=-5 relu=-5 _enter_autocast=-5 neg=-5 sin=-5 "
                 "_exit_autocast=-5 cos=-5", NULL);
  CU_ASSERT_PTR_NOT_NULL (s.result);
  split_clear (&s);
}

static void
test_global_state_errors (void)
{
  Split s = split_ids (fxs_test_global_state_graph, "",
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
  Split s = split_graph (g, symbolic_ids, NULL);
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
  s = split_graph (g, symbolic_ids, NULL);
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
  Split s = split_graph (g, symbolic_ids, NULL);
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
  CU_ASSERT_EQUAL (fxs_split_options_get_threads (o), 3);
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
  fxs_test_add_suite ("split-state", cases);
}

FXS_TEST_MAIN (register_tests)
