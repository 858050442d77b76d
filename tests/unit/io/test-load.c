/* Unit tests of graph file loading: the values and metadata read, split
 * results, large and corrupted inputs. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/graph-private.h"
#include "load-cases.h"

static void
test_load_torch_export (void)
{
  char *path = data_path ("torch-export.json");
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  g_free (path);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), 22);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_PLACEHOLDER), 2);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_CALL_MODULE), 4);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_GET_ATTR), 2);
  CU_ASSERT_PTR_EQUAL (fxs_graph_output_node (g), fxs_graph_node (g, 21));

  const FxsNode *y = fxs_graph_lookup_node (g, "y");
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (fxs_node_args (y), 0)), FXS_VALUE_NONE);
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_node_args (fxs_graph_lookup_node (g, "x"))), 0);

  const FxsNode *clamp = fxs_graph_lookup_node (g, "clamp");
  CU_ASSERT_EQUAL (fxs_node_op (clamp), FXS_OP_CALL_METHOD);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_dict_lookup (fxs_node_kwargs (clamp), "min")), -1.0);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_dict_lookup (fxs_node_kwargs (clamp), "max")), 0.5);
  CU_ASSERT_EQUAL (fxs_node_n_users (clamp), 2);

  const FxsValue *index = fxs_value_item (fxs_node_args (fxs_graph_lookup_node (g, "getitem")), 1);
  CU_ASSERT_EQUAL (fxs_value_kind (index), FXS_VALUE_TUPLE);
  CU_ASSERT_EQUAL (fxs_value_n_items (index), 3);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (index, 0)), FXS_VALUE_SLICE);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (fxs_value_item (index, 1), 1)), 2);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (index, 2)), FXS_VALUE_ELLIPSIS);

  const FxsValue *dtype = fxs_value_item (fxs_node_args (fxs_graph_lookup_node (g, "to")), 1);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_opaque_type (dtype), "torch.dtype");
  CU_ASSERT_STRING_EQUAL (fxs_value_get_opaque_repr (dtype), "torch.float32");

  const FxsNode *split = fxs_graph_lookup_node (g, "split");
  CU_ASSERT_STRING_EQUAL (fxs_node_target (split), "torch.functional.split");
  CU_ASSERT_STRING_EQUAL (fxs_node_target_short_name (split), "split");
  CU_ASSERT_TRUE (fxs_node_value_is_tuple (split));
  CU_ASSERT_EQUAL (fxs_node_n_tensors (split), 2);
  CU_ASSERT_EQUAL (fxs_node_output_bytes (split), 2 * 3 * 2 * 4);
  CU_ASSERT_EQUAL (fxs_tensor_dim (fxs_node_tensor (split, 1), 1), 2);

  const FxsValue *out = fxs_value_item (fxs_node_args (fxs_graph_output_node (g)), 0);
  CU_ASSERT_EQUAL (fxs_value_kind (out), FXS_VALUE_DICT);
  const FxsValue *rest = fxs_value_dict_lookup (out, "rest");
  CU_ASSERT_EQUAL (fxs_value_kind (rest), FXS_VALUE_TUPLE);
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_value_item (rest, 0)),
                       fxs_graph_lookup_node (g, "getitem_2"));
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (rest, 1)), 0.1);

  CU_ASSERT_EQUAL (fxs_graph_n_attrs (g), 17);
  const FxsAttr *scale = fxs_graph_lookup_attr (g, "scale");
  CU_ASSERT_EQUAL (fxs_attr_kind (scale), FXS_ATTR_PARAMETER);
  CU_ASSERT_EQUAL (fxs_attr_bytes (scale), 16);
  const FxsAttr *linear = fxs_graph_lookup_attr (g, "blocks.0.linear");
  CU_ASSERT_STRING_EQUAL (fxs_attr_class (linear), "torch.nn.modules.linear.Linear");
  CU_ASSERT_EQUAL (fxs_attr_bytes (linear), (16 + 4) * 4);
  CU_ASSERT_EQUAL (fxs_attr_kind (fxs_graph_lookup_attr (g, "offset")), FXS_ATTR_BUFFER);
  fxs_graph_unref (g);
}

/* Equal metadata is converted once and shared (it is immutable: setters
 * copy it first). */
static void
test_load_shared_meta (void)
{
#define STAGED_META(STAGE, MORE) "\"meta\": {\"tensor\": {\"shape\": [2, 3], \"dtype\": " \
  "\"torch.float32\"}, \"stage\": " STAGE MORE "}"
  FxsGraph *g = load_ok (NODES (
    "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", " STAGED_META ("1", "") "},\n"
    "{\"name\": \"a\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"x\"}], " STAGED_META ("1", "") "},\n"
    "{\"name\": \"b\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"a\"}], " STAGED_META ("2", "") "},\n"
    "{\"name\": \"c\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"b\"}], " STAGED_META ("1", ", \"from\": {\"node\": \"x\"}") "},\n"
    "{\"name\": \"d\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"c\"}], " STAGED_META ("1", ", \"from\": {\"node\": \"b\"}") "},\n"
    OUT));
#undef STAGED_META
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  const FxsNode *x = fxs_graph_lookup_node (g, "x"), *a = fxs_graph_lookup_node (g, "a");
  const FxsNode *b = fxs_graph_lookup_node (g, "b"), *c = fxs_graph_lookup_node (g, "c");
  const FxsNode *d = fxs_graph_lookup_node (g, "d");
  CU_ASSERT_PTR_EQUAL (fxs_node_meta (x), fxs_node_meta (a));
  CU_ASSERT_PTR_NOT_EQUAL (fxs_node_meta (x), fxs_node_meta (b));
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_node_meta_lookup (b, "stage")), 2);
  /* references are read for each node: c and d refer to other nodes */
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_node_meta_lookup (c, "from")), x);
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_node_meta_lookup (d, "from")), b);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_node_meta_lookup (a, "stage")), 1);
  CU_ASSERT_EQUAL (fxs_tensor_rank (fxs_node_tensor (a, 0)), 2);
  fxs_graph_unref (g);

  /* metas are compared a word at a time: texts that differ past their first
   * word, in their last byte or only in length are different metas */
  static const char *const tags[] = { "a-long-tag-of-twenty", "a-long-tag-of-twentY",
                                      "a-long-tag-of-twent", "a-long-t", "a-long-tag-of-twenty!",
                                      "a-long-tag-of-twenty" /* with another number */ };
  GString *nodes = g_string_new (HEAD "\"nodes\": [\n");
  for (guint i = 0; i < G_N_ELEMENTS (tags); i++)
    g_string_append_printf (nodes, "{\"name\": \"p%u\", \"op\": \"placeholder\", "
                            "\"target\": \"p%u\", \"meta\": {\"tag\": \"%s\", \"n\": %s}},\n",
                            i, i, tags[i], i == 5 ? "1234567890124" : "1234567890123");
  g_string_append (nodes, OUT "]}");
  g = load_ok (nodes->str);
  g_string_free (nodes, TRUE);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  for (guint i = 0; i < G_N_ELEMENTS (tags); i++)
    {
      char name[8];
      g_snprintf (name, sizeof name, "p%u", i);
      const FxsNode *p = fxs_graph_lookup_node (g, name);
      CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_node_meta_lookup (p, "tag")), tags[i]);
      for (guint j = 0; j < i; j++)
        {
          g_snprintf (name, sizeof name, "p%u", j);
          CU_ASSERT_PTR_NOT_EQUAL (fxs_node_meta (p), fxs_node_meta (fxs_graph_lookup_node (g, name)));
        }
    }
  fxs_graph_unref (g);
}

static void
test_load_finds_targets (void)
{
  /* each get_attr finds its attribute (the attribute's name hashed by the
   * loader from the streamed key, the target from the node): names of
   * every length around the 8-byte words hashed */
  GString *json = g_string_new (HEAD "\"attributes\": {");
  for (guint len = 1; len <= 40; len++)
    {
      char *name = g_strnfill (len, (char) ('a' + len % 26));
      g_string_append_printf (json, "%s\"%s\": {\"kind\": \"parameter\"}", len > 1 ? ", " : "", name);
      g_free (name);
    }
  g_string_append (json, "},\n\"nodes\": [");
  for (guint len = 1; len <= 40; len++)
    {
      char *name = g_strnfill (len, (char) ('a' + len % 26));
      g_string_append_printf (json, "{\"name\": \"n%u\", \"op\": \"get_attr\", \"target\": \"%s\"},\n",
                              len, name);
      g_free (name);
    }
  g_string_append (json, OUT "]}");
  FxsGraph *g = load_ok (json->str);
  g_string_free (json, TRUE);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  const guint32 *attr_of = fxs_graph_target_attrs (g);
  for (guint i = 0; i < 40; i++)
    CU_ASSERT_EQUAL (attr_of[i], i);
  CU_ASSERT_EQUAL (attr_of[40], G_MAXUINT32);
  fxs_graph_unref (g);
}

static void
test_load_values (void)
{
  FxsGraph *g = load_ok (NODES (
    "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", \"args\": [{\"tuple\": [1, 2]}], "
    " \"type\": \"typing.Tuple[int, int]\"},\n"
    "{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"builtins.f\", \"args\": ["
    "  9223372036854775807, -9223372036854775808, -0, 1.0, 1e-05, -0.0, 2.5E+3,"
    "  {\"float\": \"inf\"}, {\"float\": \"-inf\"}, {\"float\": \"nan\"},"
    "  \"q\\\"b\\\\n\\n\\u0000\\u00e9\\ud83d\\ude00\", true, false, null, [], {\"tuple\": []},"
    "  {\"dict\": [[1, \"one\"], [\"k\", {\"node\": \"x\"}]]}, {\"dict\": []}],"
    " \"kwargs\": {\"\\u00e9t\\u00e9\": {\"slice\": [null, {\"node\": \"x\"}, -1]}},"
    " \"meta\": {\"tensor\": {\"shape\": [2, \"s0 + 1\", null], \"dtype\": null},"
    "  \"free_symbols\": [\"s0\"], \"symbol\": \"s1\", \"tag\": \"a\", \"cost\": 2.5,"
    "  \"nested\": {\"dict\": [[\"k\", [1, 2]]]}}},\n"
    OUT));
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  const FxsNode *x = fxs_graph_node (g, 0);
  CU_ASSERT_STRING_EQUAL (fxs_node_type (x), "typing.Tuple[int, int]");
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_value_item (fxs_node_args (x), 0)), 2);
  const FxsNode *f = fxs_graph_node (g, 1);
  const FxsValue *a = fxs_node_args (f);
  CU_ASSERT_EQUAL (fxs_value_n_items (a), 18);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (a, 0)), G_MAXINT64);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (a, 1)), G_MININT64);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 2)), FXS_VALUE_INT);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 3)), FXS_VALUE_FLOAT);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 4)), 1e-05);
  CU_ASSERT_TRUE (signbit (fxs_value_get_float (fxs_value_item (a, 5))));
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 6)), 2500.0);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 7)), INFINITY);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 8)), -INFINITY);
  CU_ASSERT_TRUE (isnan (fxs_value_get_float (fxs_value_item (a, 9))));
  const FxsValue *s = fxs_value_item (a, 10);
  static const char expected[] = "q\"b\\n\n\0\xc3\xa9\xf0\x9f\x98\x80";
  CU_ASSERT_EQUAL (fxs_value_get_string_length (s), sizeof expected - 1);
  CU_ASSERT_TRUE (memcmp (fxs_value_get_string (s), expected, sizeof expected - 1) == 0);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 13)), FXS_VALUE_NONE);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 14)), FXS_VALUE_LIST);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 15)), FXS_VALUE_TUPLE);
  const FxsValue *d = fxs_value_item (a, 16);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_dict_key (d, 0)), 1);
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_value_dict_lookup (d, "k")), x);
  const FxsValue *sl = fxs_value_dict_lookup (fxs_node_kwargs (f), "\xc3\xa9t\xc3\xa9");
  CU_ASSERT_EQUAL (fxs_value_kind (sl), FXS_VALUE_SLICE);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (sl, 2)), -1);
  CU_ASSERT_EQUAL (fxs_node_n_users (x), 1);

  const FxsTensorMeta *t = fxs_node_tensor (f, 0);
  CU_ASSERT_FALSE (fxs_node_value_is_tuple (f));
  CU_ASSERT_EQUAL (fxs_tensor_rank (t), 3);
  CU_ASSERT_EQUAL (fxs_tensor_dim (t, 0), 2);
  CU_ASSERT_EQUAL (fxs_tensor_dim (t, 1), -1);
  CU_ASSERT_STRING_EQUAL (fxs_tensor_dim_symbol (t, 1), "s0 + 1");
  CU_ASSERT_PTR_NULL (fxs_tensor_dim_symbol (t, 2));
  CU_ASSERT_PTR_NULL (fxs_tensor_dtype (t));
  CU_ASSERT_EQUAL (fxs_node_n_free_symbols (f), 1);
  CU_ASSERT_STRING_EQUAL (fxs_node_free_symbol (f, 0), "s0");
  CU_ASSERT_STRING_EQUAL (fxs_node_symbol (f), "s1");
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_node_meta (f)), 3);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_node_meta_lookup (f, "tag")), "a");
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_node_meta_lookup (f, "cost")), 2.5);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_node_meta_lookup (f, "nested")), FXS_VALUE_DICT);
  CU_ASSERT_PTR_NULL (fxs_node_meta_lookup (f, "tensor"));
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_node_meta (x)), 0);
  fxs_graph_unref (g);
}

static void
test_load_extensions_and_order (void)
{
  /* members after the head in any order; x-... members ignored whatever
   * they hold; an empty meta is no meta */
  FxsGraph *g = load_ok ("{\"version\": 1, \"format\": \"fxsplit-graph\",\n"
                         " \"x-tool\": {\"a\": [1, {\"b\": null}]},\n"
                         " \"nodes\": [" X ", " OUT "],\n"
                         " \"attributes\": {\"w\": {\"kind\": \"object\"}}}");
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), 2);
  CU_ASSERT_EQUAL (fxs_attr_kind (fxs_graph_lookup_attr (g, "w")), FXS_ATTR_OBJECT);
  fxs_graph_unref (g);
}

static void
test_load_split_result (void)
{
  char *path = data_path ("split-result.json");
  GError *error = NULL;
  FxsGraph *top = fxs_graph_load_file (path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (top);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (top), 4);
  CU_ASSERT_EQUAL (fxs_graph_n_attrs (top), 2);
  CU_ASSERT_STRING_EQUAL (fxs_tensor_dim_symbol (fxs_node_tensor (fxs_graph_node (top, 0), 0), 0), "s0");
  fxs_graph_unref (top);

  FxsGraph *s0 = fxs_graph_load_submodule_file (path, "submod_0", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s0);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (s0), 3);
  CU_ASSERT_EQUAL (fxs_attr_bytes (fxs_graph_lookup_attr (s0, "linear")), 64);
  CU_ASSERT_STRING_EQUAL (fxs_node_free_symbol (fxs_graph_lookup_node (s0, "linear"), 0), "s0");
  fxs_graph_unref (s0);

  FxsGraph *s1 = fxs_graph_load_submodule_file (path, "submod_1", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s1);
  CU_ASSERT_EQUAL (fxs_graph_n_attrs (s1), 0);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_node_meta_lookup (fxs_graph_lookup_node (s1, "relu"), "tag")),
                          "stage1");
  CU_ASSERT_EQUAL (fxs_node_op (fxs_graph_node (s1, 0)), FXS_OP_PLACEHOLDER);
  fxs_graph_unref (s1);
  CU_ASSERT_PTR_NULL (error);
  g_free (path);
}

static const char *
long_name (char buf[64], guint i)
{
  g_snprintf (buf, 64, "node_with_a_long_name_%u", i);
  return buf;
}

/* A file of several MiB: tokens span the 1 MiB read chunks, and an error
 * near the end is located by line. */
static void
test_load_large_file (void)
{
  const guint n = 40000;
  char names[64];
  GString *text = g_string_new (HEAD "\"nodes\": [\n" X);
  for (guint i = 1; i < n; i++)
    g_string_append_printf (text, ",\n{\"name\": \"node_with_a_long_name_%u\", \"op\": \"call_function\", "
                            "\"target\": \"torch.relu\", \"args\": [{\"node\": \"%s\"}], "
                            "\"meta\": {\"tensor\": {\"shape\": [64, %u], \"dtype\": \"torch.float16\"}}}",
                            i, i == 1 ? "x" : long_name (names, i - 1), i);
  gsize good_len = text->len;
  g_string_append (text, ",\n" OUT "]}");
  CU_ASSERT_TRUE (text->len > 5 * 1024 * 1024);
  char *dir = g_dir_make_tmp ("fxs-load-XXXXXX", NULL);
  char *path = g_build_filename (dir, "big.json", NULL);
  g_file_set_contents (path, text->str, (gssize) text->len, NULL);
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), n + 1);
  const FxsNode *last = fxs_graph_node (g, n - 1);
  CU_ASSERT_EQUAL (fxs_tensor_dim (fxs_node_tensor (last, 0), 1), n - 1);
  CU_ASSERT_EQUAL (fxs_node_output_bytes (last), 64 * (n - 1) * 2);
  CU_ASSERT_EQUAL (fxs_node_n_users (fxs_graph_node (g, n - 2)), 1);
  fxs_graph_unref (g);

  /* the same with a dangling reference in the last node */
  g_string_truncate (text, good_len);
  g_string_append (text, ",\n{\"name\": \"bad\", \"op\": \"call_function\", \"target\": \"f\", "
                   "\"args\": [{\"node\": \"missing\"}]},\n" OUT "]}");
  g_file_set_contents (path, text->str, (gssize) text->len, NULL);
  g = fxs_graph_load_file (path, &error);
  CU_ASSERT_PTR_NULL (g);
  char *expected = g_strdup_printf ("%s:%u:73: nodes[%u].args[0].node: node \"bad\": refers to "
                                    "\"missing\", which is not a node of this graph", path, n + 3, n);
  CU_ASSERT_TRUE (error && strcmp (error->message, expected) == 0);
  if (error && strcmp (error->message, expected) != 0)
    fprintf (stderr, "\n  expected %s\n  got      %s\n", expected, error->message);
  g_free (expected);
  g_clear_error (&error);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_string_free (text, TRUE);
}

/* Every prefix of a valid file, and every one-byte corruption of it, is
 * either loaded or refused with a located one-line error: never a crash or a
 * leak (valgrind checks the latter). */
static void
test_load_corrupted_inputs (void)
{
  char *path = data_path ("torch-export.json");
  char *text;
  gsize len;
  CU_ASSERT_TRUE_FATAL (g_file_get_contents (path, &text, &len, NULL));
  g_free (path);
  guint refused = 0, loaded = 0, bad_messages = 0;
  static const char replacements[] = { '"', '}', ']', '{', '[', ',', ':', '\0', '\xff', '1', 'x',
                                       '\\', '\n' };
  for (gsize cut = 0; cut <= len; cut++)
    {
      GError *error = NULL;
      FxsGraph *g = fxs_graph_load_data (text, cut, "t.json", &error);
      gboolean whole = cut == len || (cut == len - 1 && text[cut] == '\n');
      if (g)
        loaded++;
      else
        refused++;
      if (!g && (!g_str_has_prefix (error->message, "t.json:") || strchr (error->message, '\n')))
        bad_messages++;
      CU_ASSERT_EQUAL (g != NULL, whole);
      fxs_graph_unref (g);
      g_clear_error (&error);
    }
  for (gsize at = 0; at < len; at += 3)
    for (guint r = 0; r < G_N_ELEMENTS (replacements); r++)
      {
        char saved = text[at];
        text[at] = replacements[r];
        GError *error = NULL;
        FxsGraph *g = fxs_graph_load_data (text, len, "t.json", &error);
        if (!g && (!g_str_has_prefix (error->message, "t.json:") || strchr (error->message, '\n')))
          bad_messages++;
        fxs_graph_unref (g);
        g_clear_error (&error);
        text[at] = saved;
      }
  CU_ASSERT_EQUAL (bad_messages, 0);
  CU_ASSERT_TRUE (loaded == 2 && refused == len - 1);
  g_free (text);
}

/* ---- the streaming reader ------------------------------------------------ */

/* A consumer that collects the whole document and prints it back in a
 * canonical form (what every chunking must agree on). */
static void
register_tests (void)
{
  static const FxsTestCase loading[] = {
    FXS_TEST (test_load_torch_export),
    FXS_TEST (test_load_values),
    FXS_TEST (test_load_shared_meta),
    FXS_TEST (test_load_finds_targets),
    FXS_TEST (test_load_extensions_and_order),
    FXS_TEST (test_load_split_result),
    FXS_TEST (test_load_large_file),
    FXS_TEST (test_load_corrupted_inputs),
    { NULL, NULL },
  };
  fxs_test_add_suite ("loading", loading);
}

FXS_TEST_MAIN (register_tests)
