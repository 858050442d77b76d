/* Unit tests of the graph model: values, nodes, users, metadata, attributes,
 * Python float repr and atomic files. */
#include <fxsplit/fxsplit.h>
#include "util/atomic-file.h"
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "../test-util.h"

static void
test_float_repr (void)
{
  static const struct { double v; const char *repr; } cases[] = {
    { 0.0, "0.0" }, { -0.0, "-0.0" }, { 1.0, "1.0" }, { 0.1, "0.1" }, { 1.5, "1.5" },
    { 100.0, "100.0" }, { 1e-05, "1e-05" }, { 0.0001, "0.0001" }, { 1e16, "1e+16" },
    { 1234567890123456.0, "1234567890123456.0" }, { 1.0 / 3.0, "0.3333333333333333" },
    { 2.5e-10, "2.5e-10" }, { 1e300, "1e+300" }, { -3.25, "-3.25" }, { 5e-324, "5e-324" },
    /* whole numbers, below and above where their digits are written directly */
    { -2.0, "-2.0" }, { 999999999999999.0, "999999999999999.0" },
    { -123456789012345.0, "-123456789012345.0" }, { 1e15, "1000000000000000.0" },
    { -1e15, "-1000000000000000.0" }, { 9007199254740992.0, "9007199254740992.0" },
  };
  char buf[32];
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    CU_ASSERT_STRING_EQUAL (fxs_format_float (cases[i].v, buf), cases[i].repr);
  CU_ASSERT_STRING_EQUAL (fxs_format_float (INFINITY, buf), "inf");
  CU_ASSERT_STRING_EQUAL (fxs_format_float (-INFINITY, buf), "-inf");
  CU_ASSERT_STRING_EQUAL (fxs_format_float (NAN, buf), "nan");
}

static void
test_values (void)
{
  FxsGraph *g = fxs_graph_new ();
  const FxsValue *items[3] = { fxs_value_new_int (g, 1), fxs_value_new_float (g, 2.5),
                               fxs_value_new_string (g, "s") };
  FxsValue *tuple = fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items, 3);
  CU_ASSERT_EQUAL (fxs_value_kind (tuple), FXS_VALUE_TUPLE);
  CU_ASSERT_EQUAL (fxs_value_n_items (tuple), 3);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (tuple, 0)), 1);
  CU_ASSERT_DOUBLE_EQUAL (fxs_value_get_float (fxs_value_item (tuple, 1)), 2.5, 0);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_value_item (tuple, 2)), "s");

  const FxsValue *keys[2] = { fxs_value_new_string (g, "min"), fxs_value_new_string (g, "max") };
  const FxsValue *vals[2] = { fxs_value_new_float (g, 0.0), fxs_value_new_float (g, 1.0) };
  FxsValue *dict = fxs_value_new_dict (g, keys, vals, 2);
  CU_ASSERT_EQUAL (fxs_value_n_items (dict), 2);
  CU_ASSERT_DOUBLE_EQUAL (fxs_value_get_float (fxs_value_dict_lookup (dict, "max")), 1.0, 0);
  CU_ASSERT_PTR_NULL (fxs_value_dict_lookup (dict, "other"));

  FxsValue *sl = fxs_value_new_slice (g, fxs_value_new_none (g), fxs_value_new_int (g, 4),
                                      fxs_value_new_none (g));
  CU_ASSERT_EQUAL (fxs_value_n_items (sl), 3);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (sl, 0)), FXS_VALUE_NONE);

  FxsValue *op = fxs_value_new_opaque (g, "torch.dtype", "torch.float32");
  CU_ASSERT_STRING_EQUAL (fxs_value_get_opaque_type (op), "torch.dtype");
  CU_ASSERT_STRING_EQUAL (fxs_value_get_opaque_repr (op), "torch.float32");

  FxsValue *nul = fxs_value_new_string_len (g, "a\0b", 3);
  CU_ASSERT_EQUAL (fxs_value_get_string_length (nul), 3);
  CU_ASSERT_FALSE (fxs_value_equal (nul, fxs_value_new_string (g, "a")));
  CU_ASSERT_TRUE (fxs_value_equal (fxs_value_new_float (g, NAN), fxs_value_new_float (g, NAN)));
  CU_ASSERT_FALSE (fxs_value_equal (fxs_value_new_float (g, 0.0), fxs_value_new_float (g, -0.0)));
  CU_ASSERT_FALSE (fxs_value_equal (fxs_value_new_int (g, 1), fxs_value_new_bool (g, TRUE)));
  CU_ASSERT_TRUE (fxs_value_equal (tuple, fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items, 3)));
  CU_ASSERT_FALSE (fxs_value_equal (tuple, fxs_value_new_sequence (g, FXS_VALUE_LIST, items, 3)));
  fxs_graph_unref (g);
}

static FxsValue *
args_of (FxsGraph *g, guint n, const FxsNode *const *nodes)
{
  const FxsValue *items[8];
  for (guint i = 0; i < n; i++)
    items[i] = fxs_value_new_node (g, nodes[i]);
  return fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items, n);
}

static void
record_ref (const FxsNode *node, gpointer data)
{
  g_string_append_printf (data, "%s,", fxs_node_name (node));
}

static void
test_nodes_and_users (void)
{
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  FxsNode *x = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  FxsNode *y = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "y", "y", NULL, NULL, &error);
  const FxsNode *xy[] = { x, y, x };
  FxsNode *add = fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, "add", "_operator.add",
                                     args_of (g, 3, xy), NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (add);
  CU_ASSERT_STRING_EQUAL (fxs_node_target_short_name (add), "add");
  const FxsNode *a[] = { add };
  const FxsValue *k[1] = { fxs_value_new_string (g, "other") };
  const FxsValue *v[1] = { fxs_value_new_node (g, y) };
  FxsNode *mul = fxs_graph_add_node (g, FXS_OP_CALL_METHOD, "mul", "mul", args_of (g, 1, a),
                                     fxs_value_new_dict (g, k, v, 1), &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (mul);
  GString *refs = g_string_new (NULL);
  fxs_value_foreach_node (fxs_node_args (mul), record_ref, refs);
  fxs_value_foreach_node (fxs_node_kwargs (mul), record_ref, refs);
  CU_ASSERT_STRING_EQUAL (refs->str, "add,y,");
  g_string_free (refs, TRUE);

  const FxsNode *m[] = { mul };
  FxsNode *out = fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output", args_of (g, 1, m),
                                     NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (out);
  CU_ASSERT_PTR_EQUAL (fxs_graph_output_node (g), out);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), 5);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_PLACEHOLDER), 2);
  CU_ASSERT_PTR_EQUAL (fxs_graph_lookup_node (g, "mul"), mul);

  /* users: each once, in graph order */
  CU_ASSERT_EQUAL (fxs_node_n_users (x), 1);
  CU_ASSERT_EQUAL (fxs_node_n_users (y), 2);
  CU_ASSERT_PTR_EQUAL (fxs_node_user (y, 0), add);
  CU_ASSERT_PTR_EQUAL (fxs_node_user (y, 1), mul);
  CU_ASSERT_EQUAL (fxs_node_n_users (out), 0);

  /* invariants the builder enforces */
  CU_ASSERT_PTR_NULL (fxs_graph_add_node (g, FXS_OP_OUTPUT, "output2", "output", NULL, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_GRAPH));
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "second output"));
  g_clear_error (&error);
  fxs_graph_unref (g);

  g = fxs_graph_new ();
  x = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  CU_ASSERT_PTR_NULL (fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error));
  CU_ASSERT_TRUE (error && strstr (error->message, "duplicate"));
  g_clear_error (&error);
  FxsGraph *other = fxs_graph_new ();
  FxsNode *foreign = fxs_graph_add_node (other, FXS_OP_PLACEHOLDER, "z", "z", NULL, NULL, &error);
  const FxsNode *f[] = { foreign };
  CU_ASSERT_PTR_NULL (fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, "neg", "_operator.neg",
                                          args_of (g, 1, f), NULL, &error));
  CU_ASSERT_TRUE (error && strstr (error->message, "not an earlier node"));
  g_clear_error (&error);
  fxs_graph_unref (other);
  fxs_graph_unref (g);
}

static void
test_meta_and_attrs (void)
{
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  gint64 dims[] = { 2, 3 };
  FxsTensorMeta *t = fxs_tensor_meta_new (g, 2, dims, NULL, "torch.float32");
  CU_ASSERT_EQUAL (fxs_tensor_bytes (t), 24);
  gint64 sdims[] = { -1, 3 };
  const char *syms[] = { "s0", NULL };
  FxsTensorMeta *st = fxs_tensor_meta_new (g, 2, sdims, syms, "torch.float16");
  CU_ASSERT_EQUAL (fxs_tensor_bytes (st), -1);
  CU_ASSERT_STRING_EQUAL (fxs_tensor_dim_symbol (st, 0), "s0");
  CU_ASSERT_PTR_NULL (fxs_tensor_dim_symbol (st, 1));

  FxsNode *x = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  CU_ASSERT_EQUAL (fxs_node_output_bytes (x), -1);
  const FxsTensorMeta *ts[] = { t, t };
  fxs_node_set_tensors (x, ts, 2, TRUE);
  fxs_node_set_meta (x, "tag", fxs_value_new_string (g, "a"));
  fxs_node_set_meta (x, "cost", fxs_value_new_int (g, 7));
  fxs_node_set_meta (x, "tag", fxs_value_new_string (g, "b"));
  CU_ASSERT_EQUAL (fxs_node_output_bytes (x), 48);
  CU_ASSERT_TRUE (fxs_node_value_is_tuple (x));
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_node_meta_lookup (x, "tag")), "b");
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_node_meta (x)), 2);
  CU_ASSERT_EQUAL (fxs_node_n_tensors (x), 2);

  CU_ASSERT_EQUAL (fxs_dtype_size ("torch.bfloat16"), 2);
  CU_ASSERT_EQUAL (fxs_dtype_size ("torch.nosuch"), 0);

  FxsAttr *lin = fxs_graph_add_attr (g, "layer.linear", FXS_ATTR_MODULE, "torch.nn.Linear", NULL, &error);
  fxs_graph_add_attr (g, "layer.linear.weight", FXS_ATTR_PARAMETER, NULL, t, &error);
  fxs_graph_add_attr (g, "layer.linear.bias", FXS_ATTR_PARAMETER, NULL, t, &error);
  fxs_graph_add_attr (g, "layer.linearx", FXS_ATTR_BUFFER, NULL, t, &error);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_EQUAL (fxs_attr_bytes (lin), 48);
  CU_ASSERT_PTR_NULL (fxs_graph_add_attr (g, "layer.linear", FXS_ATTR_MODULE, "X", NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_GRAPH));
  g_clear_error (&error);
  CU_ASSERT_PTR_EQUAL (fxs_graph_lookup_attr (g, "layer.linear"), lin);
  CU_ASSERT_STRING_EQUAL (fxs_attr_class (lin), "torch.nn.Linear");
  fxs_graph_unref (g);
}

/* ---- a finished graph read from several threads ------------------------ */

#define SHARED_NODES 20000
#define SHARED_THREADS 4

typedef struct {
  const FxsGraph *graph;
  GAsyncQueue *start;   /* every thread waits here so that they begin together */
  guint wrong;
} SharedRead;

static gpointer
read_shared_graph (gpointer data)
{
  SharedRead *r = data;
  g_async_queue_pop (r->start);
  char name[32];
  guint wrong = 0;
  for (guint i = 1; i <= SHARED_NODES; i++)
    {
      g_snprintf (name, sizeof name, "relu_%u", i);
      const FxsNode *node = fxs_graph_lookup_node (r->graph, name);
      if (!node || fxs_node_index (node) != i)
        wrong++;
      else if (fxs_node_n_users (node) != 1
               || fxs_node_index (fxs_node_user (node, 0)) != i + 1)
        wrong++;
    }
  if (fxs_graph_lookup_attr (r->graph, "layer.weight") == NULL)
    wrong++;
  if (fxs_graph_lookup_node (r->graph, "missing") != NULL)
    wrong++;
  g_atomic_int_add (&r->wrong, wrong);
  return NULL;
}

static void
test_finished_graph_shared_by_threads (void)
{
  /* graph.h: a finished graph may be read from any number of threads.  Its
   * name and user indexes are made on the first lookup: the first lookups
   * of several threads at once must each see a whole index. */
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  const gint64 dims[] = { 4, 4 };
  fxs_graph_add_attr (g, "layer.weight", FXS_ATTR_PARAMETER, NULL,
                      fxs_tensor_meta_new (g, 2, dims, NULL, "torch.float32"), &error);
  g_assert_no_error (error);
  const FxsNode *prev = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  char name[32];
  for (guint i = 1; i <= SHARED_NODES; i++)
    {
      g_snprintf (name, sizeof name, "relu_%u", i);
      const FxsValue *arg = fxs_value_new_node (g, prev);
      prev = fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, name, "torch.relu",
                                 fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &arg, 1), NULL, &error);
    }
  const FxsValue *result = fxs_value_new_node (g, prev);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &result, 1), NULL, &error);
  g_assert_no_error (error);

  SharedRead r = { g, g_async_queue_new (), 0 };
  GThread *threads[SHARED_THREADS];
  for (guint t = 0; t < SHARED_THREADS; t++)
    threads[t] = g_thread_new ("reader", read_shared_graph, &r);
  for (guint t = 0; t < SHARED_THREADS; t++)
    g_async_queue_push (r.start, GUINT_TO_POINTER (1));
  for (guint t = 0; t < SHARED_THREADS; t++)
    g_thread_join (threads[t]);
  CU_ASSERT_EQUAL (r.wrong, 0);
  g_async_queue_unref (r.start);
  fxs_graph_unref (g);
}

static void
test_atomic_file (void)
{
  char *dir = g_dir_make_tmp ("fxs-atomic-XXXXXX", NULL);
  char *path = g_build_filename (dir, "out.txt", NULL);
  GError *error = NULL;

  FxsAtomicFile *f = fxs_atomic_file_open (path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  fputs ("partial", fxs_atomic_file_stream (f));
  fxs_atomic_file_abort (f);
  CU_ASSERT_FALSE (g_file_test (path, G_FILE_TEST_EXISTS));

  f = fxs_atomic_file_open (path, &error);
  fputs ("whole", fxs_atomic_file_stream (f));
  CU_ASSERT_TRUE (fxs_atomic_file_commit (f, &error));
  char *text = NULL;
  CU_ASSERT_TRUE (g_file_get_contents (path, &text, NULL, NULL));
  CU_ASSERT_STRING_EQUAL (text, "whole");
  g_free (text);

  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  CU_ASSERT_EQUAL (n, 1); /* no temporary file left */

  char *missing = g_build_filename (dir, "nodir", "out.txt", NULL);
  CU_ASSERT_PTR_NULL (fxs_atomic_file_open (missing, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_IO));
  CU_ASSERT_TRUE (error && strstr (error->message, "does not exist"));
  g_clear_error (&error);

  g_unlink (path);
  g_rmdir (dir);
  g_free (missing);
  g_free (path);
  g_free (dir);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_float_repr),
    FXS_TEST (test_values),
    FXS_TEST (test_nodes_and_users),
    FXS_TEST (test_meta_and_attrs),
    FXS_TEST (test_finished_graph_shared_by_threads),
    FXS_TEST (test_atomic_file),
    { NULL, NULL },
  };
  fxs_test_add_suite ("graph model", cases);
}

FXS_TEST_MAIN (register_tests)
