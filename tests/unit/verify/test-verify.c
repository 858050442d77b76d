/* Unit tests of verify (fxsplit/verify.h): the engine's splits pass, in
 * memory and through files; hand-made splits with one thing wrong each
 * fail with a message naming both nodes. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <string.h>

#include "../graph-builders.h"
#include "../test-util.h"

/* ---- the engine's splits pass ------------------------------------------------------ */

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

/* A module fetched with get_attr and called through a function, a dead
 * node, two identical computations and a getitem of a tuple. */
static const char mixed_graph[] =
  "placeholder x x ()\n"
  "placeholder n n (3,)\n"
  "get_attr sub sub ()\n"
  "call_function apply_mod __main__.apply_mod (sub, x)\n"
  "call_function r1 torch.randn (3,)\n"
  "call_function r2 torch.randn (3,)\n"
  "call_function split torch.split (apply_mod, n)\n"
  "call_function getitem _operator.getitem (split, 0)\n"
  "call_function dead torch.sin (x,)\n"
  "call_function add _operator.add (getitem, r1)\n"
  "call_function mul _operator.mul (add, r2)\n"
  "output output output ((mul, getitem, [r1]),)\n";
static const char mixed_attrs[] = "sub:module:torch.nn.modules.linear.Linear";

/* Splits @text with @ids and @options; checks the result in memory and
 * after writing both graphs to files and reading them back. */
static void
check_engine_split (const char *text, const char *attrs, const char *ids_spec,
                    FxsSplitOptions *options)
{
  FxsGraph *g = fxs_test_graph_new (text);
  fxs_test_add_attrs (g, attrs);
  gint64 *ids = fxs_test_ids (g, ids_spec);
  GError *error = NULL;
  FxsSplitResult *r = fxs_split_with_ids (g, ids, options, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  gboolean ok = fxs_split_result_verify (r, &error);
  if (!ok)
    fprintf (stderr, "\n%s: %s\n", ids_spec, error->message);
  CU_ASSERT_TRUE (ok);
  g_clear_error (&error);

  char *dir = g_dir_make_tmp ("test-verify-XXXXXX", NULL);
  char *orig_path = g_build_filename (dir, "orig.json", NULL);
  char *split_path = g_build_filename (dir, "split.json", NULL);
  CU_ASSERT_TRUE_FATAL (fxs_graph_save_file (g, orig_path, NULL));
  CU_ASSERT_TRUE_FATAL (fxs_split_result_save_file (r, split_path, NULL));
  FxsGraph *orig = fxs_graph_load_file (orig_path, NULL);
  FxsSplitFile *file = fxs_split_file_load (split_path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (orig);
  CU_ASSERT_PTR_NOT_NULL_FATAL (file);
  CU_ASSERT_EQUAL (fxs_split_file_n_submodules (file), fxs_split_result_n_partitions (r));
  CU_ASSERT_EQUAL (fxs_split_file_n_qualnames (file), fxs_split_result_n_qualnames (r));
  ok = fxs_split_file_verify (orig, file, &error);
  if (!ok)
    fprintf (stderr, "\n%s (files): %s\n", ids_spec, error->message);
  CU_ASSERT_TRUE (ok);
  g_clear_error (&error);

  fxs_split_file_free (file);
  fxs_graph_unref (orig);
  g_unlink (orig_path);
  g_unlink (split_path);
  g_rmdir (dir);
  g_free (orig_path);
  g_free (split_path);
  g_free (dir);
  fxs_split_result_free (r);
  g_free (ids);
  fxs_graph_unref (g);
}

static void
test_engine_splits (void)
{
  static const char *const docstring_ids[] = {
    "add=0 linear=1 clamp=2 linear_1=0 clamp_1=1 add_1=2",
    "add=0 linear=0 clamp=0 linear_1=0 clamp_1=0 add_1=0",
    "add=5 linear=4 clamp=3 linear_1=2 clamp_1=1 add_1=0",
    ("add=-9223372036854775808 linear=9223372036854775807 clamp=9223372036854775807 "
     "linear_1=1 clamp_1=1 add_1=9223372036854775807"),
  };
  static const char *const mixed_ids[] = {
    "apply_mod=0 r1=1 r2=0 split=0 getitem=1 dead=2 add=1 mul=2",
    "apply_mod=3 r1=2 r2=1 split=3 getitem=3 dead=0 add=3 mul=3",
    "apply_mod=0 r1=0 r2=0 split=1 getitem=2 dead=3 add=4 mul=5",
  };
  for (guint o = 0; o < 32; o++)
    {
      FxsSplitOptions *options = fxs_split_options_new ();
      fxs_split_options_set_keep_original_order (options, o & 1);
      fxs_split_options_set_keep_original_node_name (options, o & 2);
      fxs_split_options_set_keep_original_input_name (options, !(o & 4));
      fxs_split_options_set_tuple_return (options, o & 8);
      fxs_split_options_set_partition_affix (options, o & 16 ? "stage" : NULL);
      for (guint i = 0; i < G_N_ELEMENTS (docstring_ids); i++)
        if (!(o & 1) || i < 2)   /* keep_original_order refuses the backward ones */
          check_engine_split (docstring_graph, docstring_attrs, docstring_ids[i], options);
      for (guint i = 0; i < G_N_ELEMENTS (mixed_ids); i++)
        if (!(o & 1) || i == 2)
          check_engine_split (mixed_graph, mixed_attrs, mixed_ids[i], options);
      check_engine_split (fxs_test_global_state_graph, "",
                          "_set_grad_enabled=0 relu=0 _enter_autocast=0 neg=1 sin=2 "
                          "_exit_autocast=2 cos=3", options);
      check_engine_split (fxs_test_global_state_graph, "",
                          "_set_grad_enabled=0 relu=1 _enter_autocast=1 neg=1 sin=1 "
                          "_exit_autocast=1 cos=1", options);
      fxs_split_options_free (options);
    }
}

/* ---- hand-made splits --------------------------------------------------------------- */

typedef struct {
  const char *name;
  const char *text;
} Sub;

/* Verifies the split made of @top and @subs (NULL-terminated) against
 * @orig; @expected NULL means it must pass, else the message must contain
 * it. */
static void
expect (const char *orig, const char *orig_attrs, const char *top, const Sub *subs,
        const char *qualnames, const char *expected)
{
  FxsGraph *original = fxs_test_graph_new (orig);
  fxs_test_add_attrs (original, orig_attrs);
  FxsGraph *split_top = fxs_test_graph_new (top);
  GHashTable *submodules = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                  (GDestroyNotify) fxs_graph_unref);
  for (const Sub *s = subs; s->name; s++)
    g_hash_table_insert (submodules, (gpointer) s->name, fxs_test_graph_new (s->text));
  GHashTable *map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  char **pairs = g_strsplit (qualnames ? qualnames : "", " ", -1);
  for (char **p = pairs; *p && **p; p++)
    {
      char **kv = g_strsplit (*p, "->", 2);
      g_hash_table_insert (map, g_strdup (kv[0]), g_strdup (kv[1]));
      g_strfreev (kv);
    }
  g_strfreev (pairs);

  GError *error = NULL;
  gboolean ok = fxs_verify_split (original, split_top, submodules, map, &error);
  if (!expected)
    {
      if (!ok)
        fprintf (stderr, "\nunexpected failure: %s\n", error->message);
      CU_ASSERT_TRUE (ok);
    }
  else
    {
      CU_ASSERT_FALSE (ok);
      CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_VERIFY));
      if (error && !strstr (error->message, expected))
        {
          fprintf (stderr, "\nexpected a message with: %s\n                    got: %s\n",
                   expected, error->message);
          CU_FAIL ("another message");
        }
      if (error)
        CU_ASSERT_PTR_NULL (strchr (error->message, '\n'));
    }
  g_clear_error (&error);
  g_hash_table_unref (map);
  g_hash_table_unref (submodules);
  fxs_graph_unref (split_top);
  fxs_graph_unref (original);
}

static const char chain[] =
  "placeholder x x ()\n"
  "placeholder y y ()\n"
  "call_function relu torch.relu (x,)\n"
  "call_function add _operator.add (relu, y)\n"
  "call_module lin layer.0.lin (add,)\n"
  "output output output (lin,)\n";
static const char chain_attrs[] = "layer.0.lin:module:torch.nn.Linear";

static const char chain_top[] =
  "placeholder x x ()\n"
  "placeholder y y ()\n"
  "call_module submod_0 submod_0 (x, y)\n"
  "call_module submod_1 submod_1 (submod_0,)\n"
  "output output output (submod_1,)\n";
static const char chain_sub1[] =
  "placeholder add add ()\n"
  "call_module layer_0_lin layer_0_lin (add,)\n"
  "output output output (layer_0_lin,)\n";
static const char chain_map[] = "submod_1.layer_0_lin->layer.0.lin";

static void
test_chain (void)
{
  const Sub good[] = {
    { "submod_0", "placeholder x x ()\nplaceholder y y ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_function add _operator.add (relu, y)\n"
                  "output output output (add,)\n" },
    { "submod_1", chain_sub1 }, { NULL, NULL } };
  expect (chain, chain_attrs, chain_top, good, chain_map, NULL);

  /* without the qualname map, the flattened name is not the original's */
  expect (chain, chain_attrs, chain_top, good, NULL,
          "submod_1: node \"layer_0_lin\" (call_module \"layer_0_lin\") computes nothing the "
          "original computes: no original call_module node with target \"layer_0_lin\"");

  const Sub swapped[] = {
    { "submod_0", "placeholder x x ()\nplaceholder y y ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_function add _operator.add (y, relu)\n"
                  "output output output (add,)\n" },
    { "submod_1", chain_sub1 }, { NULL, NULL } };
  expect (chain, chain_attrs, chain_top, swapped, chain_map,
          "submod_0: node \"add\" (call_function \"_operator.add\") does not match original node "
          "\"add\" (call_function \"_operator.add\"): args[0] is the value of original node \"y\" "
          "where the original has the value of original node \"relu\"");

  const Sub other_target[] = {
    { "submod_0", "placeholder x x ()\nplaceholder y y ()\n"
                  "call_function relu torch.sigmoid (x,)\n"
                  "call_function add _operator.add (relu, y)\n"
                  "output output output (add,)\n" },
    { "submod_1", chain_sub1 }, { NULL, NULL } };
  expect (chain, chain_attrs, chain_top, other_target, chain_map,
          "submod_0: node \"relu\" (call_function \"torch.sigmoid\") computes nothing the original "
          "computes");

  /* one computation twice: the message names the node that came first */
  const Sub no_subs[] = { { NULL, NULL } };
  expect ("placeholder x x ()\ncall_function relu torch.relu (x,)\noutput output output (relu,)\n",
          "", "placeholder x x ()\ncall_function relu torch.relu (x,)\n"
          "call_function relu_1 torch.relu (x,)\noutput output output (relu_1,)\n", no_subs, NULL,
          "top-level node \"relu_1\" (call_function \"torch.relu\") computes original node "
          "\"relu\" (call_function \"torch.relu\") again, which top-level node \"relu\" "
          "(call_function \"torch.relu\") computes already");

  /* the inputs given in the wrong order */
  const char swapped_call[] =
    "placeholder x x ()\nplaceholder y y ()\n"
    "call_module submod_0 submod_0 (y, x)\n"
    "call_module submod_1 submod_1 (submod_0,)\n"
    "output output output (submod_1,)\n";
  expect (chain, chain_attrs, swapped_call, good, chain_map,
          "submod_0: node \"relu\" (call_function \"torch.relu\") does not match original node "
          "\"relu\" (call_function \"torch.relu\"): args[0] is the value of original node \"y\"");

  const char kwarg[] =
    "placeholder x x ()\nplaceholder y y ()\n"
    "call_function add _operator.add (x, y) {'alpha': 2}\n"
    "output output output (add,)\n";
  const Sub kwarg_subs[] = { { NULL, NULL } };
  expect (kwarg, "", "placeholder x x ()\nplaceholder y y ()\n"
                     "call_function add _operator.add (x, y) {'alpha': 3}\n"
                     "output output output (add,)\n", kwarg_subs, NULL,
          "top-level node \"add\" (call_function \"_operator.add\") does not match original node "
          "\"add\" (call_function \"_operator.add\"): kwargs[\"alpha\"] is 3 where the original has 2");
}

static void
test_structure (void)
{
  const Sub good[] = {
    { "submod_0", "placeholder x x ()\nplaceholder y y ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_function add _operator.add (relu, y)\n"
                  "output output output (add,)\n" },
    { "submod_1", chain_sub1 }, { NULL, NULL } };

  expect (chain, chain_attrs,
          "placeholder y y ()\nplaceholder x x ()\n"
          "call_module submod_0 submod_0 (x, y)\n"
          "call_module submod_1 submod_1 (submod_0,)\n"
          "output output output (submod_1,)\n", good, chain_map,
          "top-level node \"y\" (placeholder \"y\") is input 0, which is original node \"x\" "
          "(placeholder \"x\") in the original");
  expect (chain, chain_attrs,
          "placeholder x x ()\n"
          "call_module submod_0 submod_0 (x, x)\n"
          "call_module submod_1 submod_1 (submod_0,)\n"
          "output output output (submod_1,)\n", good, chain_map,
          "the top-level graph has 1 inputs, the original 2: original node \"y\" (placeholder \"y\") "
          "is missing");
  /* a dead node returned and never read (split_module would return ()) */
  const Sub dead_returned[] = {
    { "submod_0", "placeholder x x ()\ncall_function relu torch.relu (x,)\n"
                  "output output output (relu,)\n" },
    { "submod_1", "placeholder x x ()\nplaceholder y y ()\n"
                  "call_function add _operator.add (x, y)\n"
                  "output output output (add,)\n" }, { NULL, NULL } };
  expect ("placeholder x x ()\nplaceholder y y ()\n"
          "call_function relu torch.relu (x,)\n"
          "call_function add _operator.add (x, y)\n"
          "output output output (add,)\n", "",
          "placeholder x x ()\nplaceholder y y ()\n"
          "call_module submod_0 submod_0 (x,)\n"
          "call_module submod_1 submod_1 (x, y)\n"
          "output output output (submod_1,)\n", dead_returned, NULL,
          "submod_0 returns \"relu\", which nothing in the top-level graph reads");
  expect (chain, chain_attrs,
          "placeholder x x ()\nplaceholder y y ()\n"
          "call_module submod_0 submod_0 (x, y)\n"
          "call_module submod_1 submod_1 (submod_0,)\n"
          "call_module submod_1_1 submod_1 (submod_0,)\n"
          "output output output (submod_1,)\n", good, chain_map,
          "top-level node \"submod_1_1\" (call_module \"submod_1\") calls submod_1 a second time");
  expect (chain, chain_attrs,
          "placeholder x x ()\nplaceholder y y ()\n"
          "call_module submod_0 submod_0 (x, y)\n"
          "output output output (submod_0,)\n", good, chain_map,
          "the top-level output is the value of original node \"add\" where the original has the "
          "value of original node \"lin\"");
  expect (chain, chain_attrs,
          "placeholder x x ()\nplaceholder y y ()\n"
          "call_module submod_0 submod_0 (x, y)\n"
          "call_module submod_1 submod_1 (submod_0, x)\n"
          "output output output (submod_1,)\n", good, chain_map,
          "top-level node \"submod_1\" (call_module \"submod_1\") passes 2 arguments to submod_1, "
          "which takes 1 inputs");

  /* an input nothing uses */
  const Sub unused_input[] = {
    { "submod_0", "placeholder x x ()\nplaceholder y y ()\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_function add _operator.add (relu, y)\n"
                  "output output output (add,)\n" },
    { "submod_1", "placeholder add add ()\nplaceholder x x ()\n"
                  "call_module layer_0_lin layer_0_lin (add,)\n"
                  "output output output (layer_0_lin,)\n" }, { NULL, NULL } };
  expect (chain, chain_attrs,
          "placeholder x x ()\nplaceholder y y ()\n"
          "call_module submod_0 submod_0 (x, y)\n"
          "call_module submod_1 submod_1 (submod_0, x)\n"
          "output output output (submod_1,)\n", unused_input, chain_map,
          "submod_1: node \"x\" (placeholder \"x\") is an input that nothing in the submodule uses");

  /* a submodule nobody calls */
  const Sub extra[] = { good[0], good[1], { "submod_9", chain_sub1 }, { NULL, NULL } };
  expect (chain, chain_attrs, chain_top, extra, chain_map,
          "submodule \"submod_9\" is never called by the top-level graph");
}

/* Tuples returned and picked apart, an output read only by the graph's
 * output (which counts), and one read by nothing. */
static void
test_tuples (void)
{
  const char orig[] =
    "placeholder x x ()\n"
    "call_function a torch.relu (x,)\n"
    "call_function b torch.sin (x,)\n"
    "call_function c _operator.add (a, b)\n"
    "output output output ((c, b),)\n";
  const Sub subs[] = {
    { "submod_0", "placeholder x x ()\n"
                  "call_function a torch.relu (x,)\n"
                  "call_function b torch.sin (x,)\n"
                  "output output output ((a, b),)\n" },
    { "submod_1", "placeholder a a ()\nplaceholder b b ()\n"
                  "call_function c _operator.add (a, b)\n"
                  "output output output (c,)\n" }, { NULL, NULL } };
  expect (orig, "",
          "placeholder x x ()\n"
          "call_module submod_0 submod_0 (x,)\n"
          "call_function getitem _operator.getitem (submod_0, 0)\n"
          "call_function getitem_1 _operator.getitem (submod_0, 1)\n"
          "call_module submod_1 submod_1 (getitem, getitem_1)\n"
          "output output output ((submod_1, getitem_1),)\n", subs, NULL, NULL);
  /* the whole tuple used as it is: the same values */
  const Sub whole[] = {
    subs[0],
    { "submod_1", "placeholder a a ()\nplaceholder b b ()\n"
                  "call_function c _operator.add (a, b)\n"
                  "output output output ((c, b),)\n" }, { NULL, NULL } };
  expect (orig, "",
          "placeholder x x ()\n"
          "call_module submod_0 submod_0 (x,)\n"
          "call_function getitem _operator.getitem (submod_0, 0)\n"
          "call_function getitem_1 _operator.getitem (submod_0, -1)\n"
          "call_module submod_1 submod_1 (getitem, getitem_1)\n"
          "output output output (submod_1,)\n", whole, NULL, NULL);
  /* an unpacked output that nothing reads */
  const Sub three[] = {
    { "submod_0", "placeholder x x ()\n"
                  "call_function a torch.relu (x,)\n"
                  "call_function b torch.sin (x,)\n"
                  "output output output ((a, b, x),)\n" },
    subs[1], { NULL, NULL } };
  expect (orig, "",
          "placeholder x x ()\n"
          "call_module submod_0 submod_0 (x,)\n"
          "call_function getitem _operator.getitem (submod_0, 0)\n"
          "call_function getitem_1 _operator.getitem (submod_0, 1)\n"
          "call_function getitem_2 _operator.getitem (submod_0, 2)\n"
          "call_module submod_1 submod_1 (getitem, getitem_1)\n"
          "output output output ((submod_1, getitem_1),)\n", three, NULL,
          "submod_0 returns \"x\" (output 2), which nothing in the top-level graph reads");
}

/* Every call node once: a dead one dropped or one computed twice is a
 * difference, identical computations are interchangeable. */
static void
test_counts (void)
{
  const char orig[] =
    "placeholder x x ()\n"
    "call_function r1 torch.randn (3,)\n"
    "call_function r2 torch.randn (3,)\n"
    "call_function dead torch.sin (x,)\n"
    "call_function add _operator.add (r1, x)\n"
    "call_function mul _operator.mul (r2, add)\n"
    "output output output (mul,)\n";
  const Sub none[] = { { NULL, NULL } };
  /* r1 and r2 swapped: the same computation */
  expect (orig, "", "placeholder x x ()\n"
                    "call_function b torch.randn (3,)\n"
                    "call_function a torch.randn (3,)\n"
                    "call_function dead torch.sin (x,)\n"
                    "call_function add _operator.add (a, x)\n"
                    "call_function mul _operator.mul (b, add)\n"
                    "output output output (mul,)\n", none, NULL, NULL);
  expect (orig, "", "placeholder x x ()\n"
                    "call_function r1 torch.randn (3,)\n"
                    "call_function r2 torch.randn (3,)\n"
                    "call_function add _operator.add (r1, x)\n"
                    "call_function mul _operator.mul (r2, add)\n"
                    "output output output (mul,)\n", none, NULL,
          "original node \"dead\" (call_function \"torch.sin\") is not computed by the split (it is "
          "dead code");
  expect (orig, "", "placeholder x x ()\n"
                    "call_function r1 torch.randn (3,)\n"
                    "call_function r2 torch.randn (3,)\n"
                    "call_function r3 torch.randn (3,)\n"
                    "call_function dead torch.sin (x,)\n"
                    "call_function add _operator.add (r1, x)\n"
                    "call_function mul _operator.mul (r2, add)\n"
                    "output output output (mul,)\n", none, NULL,
          "top-level node \"r3\" (call_function \"torch.randn\") computes original node \"r1\" "
          "(call_function \"torch.randn\") again, which top-level node \"r1\" (call_function "
          "\"torch.randn\") computes already");
}

/* Grad mode and autocast: copies of the region's calls may start other
 * submodules; a node outside its region is a difference. */
static void
test_global_state (void)
{
  const Sub good[] = {
    { "submod_0", "placeholder x x ()\n"
                  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
                  "call_function relu torch.relu (x,)\n"
                  "call_function _enter_autocast torch.amp.autocast_mode._enter_autocast "
                  "('cuda', None, True, None)\n"
                  "call_function neg torch.neg (relu,)\n"
                  "call_function _exit_autocast torch.amp.autocast_mode._exit_autocast "
                  "(_enter_autocast,)\n"
                  "output output output (neg,)\n" },
    { "submod_1", "call_function _enter_autocast torch.amp.autocast_mode._enter_autocast "
                  "('cuda', None, True, None)\n"
                  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
                  "placeholder neg neg ()\n"
                  "call_function sin torch.sin (neg,)\n"
                  "call_function _exit_autocast torch.amp.autocast_mode._exit_autocast "
                  "(_enter_autocast,)\n"
                  "call_function cos torch.cos (sin,)\n"
                  "output output output (cos,)\n" }, { NULL, NULL } };
  const char top[] =
    "placeholder x x ()\n"
    "call_module submod_0 submod_0 (x,)\n"
    "call_module submod_1 submod_1 (submod_0,)\n"
    "output output output (submod_1,)\n";
  expect (fxs_test_global_state_graph, "", top, good, NULL, NULL);

  /* sin without its region's autocast in submod_1 */
  const Sub no_prelude[] = {
    good[0],
    { "submod_1", "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
                  "placeholder neg neg ()\n"
                  "call_function sin torch.sin (neg,)\n"
                  "call_function cos torch.cos (sin,)\n"
                  "output output output (cos,)\n" }, { NULL, NULL } };
  expect (fxs_test_global_state_graph, "", top, no_prelude, NULL,
          "submod_1: node \"sin\" (call_function \"torch.sin\") does not match original node "
          "\"sin\" (call_function \"torch.sin\"): it runs under other set_grad_enabled / autocast "
          "calls");
}

/* get_attr: module inputs stay as they are, qualname-mapped names are
 * mapped back, unknown attributes are a difference. */
static void
test_attributes (void)
{
  const char orig[] =
    "placeholder x x ()\n"
    "get_attr sub sub ()\n"
    "get_attr w layer.w ()\n"
    "call_function apply_mod __main__.apply_mod (sub, x, w)\n"
    "output output output (apply_mod,)\n";
  const char attrs[] = "sub:module:torch.nn.Linear layer.w:parameter";
  const Sub subs[] = {
    { "submod_0", "get_attr sub sub ()\nplaceholder x x ()\nplaceholder w w ()\n"
                  "call_function apply_mod __main__.apply_mod (sub, x, w)\n"
                  "output output output (apply_mod,)\n" }, { NULL, NULL } };
  const char top[] =
    "placeholder x x ()\n"
    "get_attr sub sub ()\n"
    "get_attr w layer.w ()\n"
    "call_module submod_0 submod_0 (x, w)\n"
    "output output output (submod_0,)\n";
  expect (orig, attrs, top, subs, NULL, NULL);
  const Sub flat[] = {
    { "submod_0", "get_attr sub sub ()\nplaceholder x x ()\nget_attr layer_w layer_w ()\n"
                  "call_function apply_mod __main__.apply_mod (sub, x, layer_w)\n"
                  "output output output (apply_mod,)\n" }, { NULL, NULL } };
  const char top_x[] =
    "placeholder x x ()\n"
    "call_module submod_0 submod_0 (x,)\n"
    "output output output (submod_0,)\n";
  expect (orig, attrs, top_x, flat, "submod_0.layer_w->layer.w", NULL);
  expect (orig, attrs, top_x, flat, NULL,
          "submod_0: node \"layer_w\" (get_attr \"layer_w\") reads attribute \"layer_w\", which no "
          "get_attr node of the original reads");
}

/* Split result files: one pass gives the top level, every submodule and
 * the qualname map; a qualname map entry must be a name. */
static void
test_split_file (void)
{
  const char text[] =
    "{\"format\": \"fxsplit-graph\", \"version\": 1,\n"
    " \"submodules\": [{\"name\": \"submod_0\", \"nodes\": [\n"
    "   {\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},\n"
    "   {\"name\": \"y\", \"op\": \"call_module\", \"target\": \"a_b\", \"args\": [{\"node\": \"x\"}]},\n"
    "   {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"y\"}]}]}],\n"
    " \"nodes\": [\n"
    "   {\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},\n"
    "   {\"name\": \"submod_0\", \"op\": \"call_module\", \"target\": \"submod_0\", \"args\": [{\"node\": \"x\"}]},\n"
    "   {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"submod_0\"}]}],\n"
    " \"partitions\": [{\"name\": \"0\", \"id\": 0, \"submodule\": \"submod_0\", \"dependencies\": []}],\n"
    " \"qualname_map\": {\"submod_0.a_b\": \"a.b\"}}\n";
  GError *error = NULL;
  FxsSplitFile *file = fxs_split_file_load_data (text, strlen (text), "split.json", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (file);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (fxs_split_file_top (file)), 3);
  CU_ASSERT_EQUAL (fxs_split_file_n_submodules (file), 1);
  CU_ASSERT_STRING_EQUAL (fxs_split_file_submodule_name (file, 0), "submod_0");
  /* the submodule's nodes are its own, not the top level's of the same name */
  const FxsGraph *sub = fxs_split_file_lookup_submodule (file, "submod_0");
  CU_ASSERT_PTR_EQUAL (sub, fxs_split_file_submodule (file, 0));
  const FxsNode *y = fxs_graph_lookup_node (sub, "y");
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_value_item (fxs_node_args (y), 0)),
                       fxs_graph_lookup_node (sub, "x"));
  CU_ASSERT_STRING_EQUAL (fxs_split_file_lookup_qualname (file, "submod_0.a_b"), "a.b");
  CU_ASSERT_PTR_NULL (fxs_split_file_lookup_qualname (file, "a_b"));

  FxsGraph *orig = fxs_test_graph_new ("placeholder x x ()\n"
                                       "call_module y a.b (x,)\n"
                                       "output output output (y,)\n");
  CU_ASSERT_TRUE (fxs_split_file_verify (orig, file, NULL));
  fxs_split_file_free (file);

  /* without its partitions table it is no split result (tests/integration/
   * test_verify.py checks the table's contents) */
  GString *no_table = g_string_new (text);
  char *at = strstr (no_table->str, " \"partitions\"");
  g_string_erase (no_table, at - no_table->str, strchr (at, '\n') + 1 - at);
  file = fxs_split_file_load_data (no_table->str, no_table->len, "split.json", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (file);
  CU_ASSERT_FALSE (fxs_split_file_verify (orig, file, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_VERIFY));
  if (error)
    CU_ASSERT_STRING_EQUAL (error->message, "it has no \"partitions\" table: not a split result");
  g_clear_error (&error);
  fxs_split_file_free (file);
  g_string_free (no_table, TRUE);
  fxs_graph_unref (orig);

  const char bad[] =
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"nodes\": [\n"
    "   {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [null]}],\n"
    " \"qualname_map\": {\"submod_0.a_b\": \"\"}}\n";
  file = fxs_split_file_load_data (bad, strlen (bad), "bad.json", &error);
  CU_ASSERT_PTR_NULL (file);
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_FORMAT));
  if (error)
    CU_ASSERT_TRUE (g_str_has_prefix (error->message, "bad.json:3:"));
  g_clear_error (&error);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_engine_splits),
    FXS_TEST (test_chain),
    FXS_TEST (test_structure),
    FXS_TEST (test_tuples),
    FXS_TEST (test_counts),
    FXS_TEST (test_global_state),
    FXS_TEST (test_attributes),
    FXS_TEST (test_split_file),
    { NULL, NULL },
  };
  fxs_test_add_suite ("verify", cases);
}

FXS_TEST_MAIN (register_tests)
