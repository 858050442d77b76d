/* Unit tests of graph file writing: load(save(g)) equals g for every value
 * kind and awkward floats and strings, the text is deterministic and stable,
 * and saving is atomic. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "io/json-writer.h"
#include "../test-util.h"

/* ---- graph comparison (node references by name) ----------------------- */

static gboolean
values_equal (const FxsValue *a, const FxsValue *b)
{
  if (fxs_value_kind (a) != fxs_value_kind (b))
    return FALSE;
  switch (fxs_value_kind (a))
    {
    case FXS_VALUE_NODE:
      return strcmp (fxs_node_name (fxs_value_get_node (a)), fxs_node_name (fxs_value_get_node (b))) == 0;
    case FXS_VALUE_LIST:
    case FXS_VALUE_TUPLE:
    case FXS_VALUE_SLICE:
      if (fxs_value_n_items (a) != fxs_value_n_items (b))
        return FALSE;
      for (guint i = 0; i < fxs_value_n_items (a); i++)
        if (!values_equal (fxs_value_item (a, i), fxs_value_item (b, i)))
          return FALSE;
      return TRUE;
    case FXS_VALUE_DICT:
      if (fxs_value_n_items (a) != fxs_value_n_items (b))
        return FALSE;
      for (guint i = 0; i < fxs_value_n_items (a); i++)
        if (!values_equal (fxs_value_dict_key (a, i), fxs_value_dict_key (b, i))
            || !values_equal (fxs_value_dict_value (a, i), fxs_value_dict_value (b, i)))
          return FALSE;
      return TRUE;
    default:
      return fxs_value_equal (a, b);
    }
}

static gboolean
strings_equal (const char *a, const char *b)
{
  return a == b || (a && b && strcmp (a, b) == 0);
}

static gboolean
tensors_equal (const FxsTensorMeta *a, const FxsTensorMeta *b)
{
  if (!a || !b)
    return a == b;
  if (fxs_tensor_rank (a) != fxs_tensor_rank (b) || !strings_equal (fxs_tensor_dtype (a), fxs_tensor_dtype (b)))
    return FALSE;
  for (guint d = 0; d < fxs_tensor_rank (a); d++)
    if (fxs_tensor_dim (a, d) != fxs_tensor_dim (b, d)
        || !strings_equal (fxs_tensor_dim_symbol (a, d), fxs_tensor_dim_symbol (b, d)))
      return FALSE;
  return TRUE;
}

/* Names the first difference, or NULL when @a and @b are equal. */
static char *
graph_difference (const FxsGraph *a, const FxsGraph *b)
{
  if (fxs_graph_n_nodes (a) != fxs_graph_n_nodes (b))
    return g_strdup ("node count");
  for (guint i = 0; i < fxs_graph_n_nodes (a); i++)
    {
      const FxsNode *x = fxs_graph_node (a, i), *y = fxs_graph_node (b, i);
      const char *what = NULL;
      if (strcmp (fxs_node_name (x), fxs_node_name (y)) != 0)
        what = "name";
      else if (fxs_node_op (x) != fxs_node_op (y) || strcmp (fxs_node_target (x), fxs_node_target (y)) != 0)
        what = "op or target";
      else if (!values_equal (fxs_node_args (x), fxs_node_args (y)))
        what = "args";
      else if (!values_equal (fxs_node_kwargs (x), fxs_node_kwargs (y)))
        what = "kwargs";
      else if (!strings_equal (fxs_node_type (x), fxs_node_type (y)))
        what = "type";
      else if (fxs_node_n_tensors (x) != fxs_node_n_tensors (y)
               || fxs_node_value_is_tuple (x) != fxs_node_value_is_tuple (y))
        what = "tensor count";
      else if (!strings_equal (fxs_node_symbol (x), fxs_node_symbol (y))
               || fxs_node_n_free_symbols (x) != fxs_node_n_free_symbols (y))
        what = "symbols";
      else if (!values_equal (fxs_node_meta (x), fxs_node_meta (y)))
        what = "meta";
      for (guint t = 0; !what && t < fxs_node_n_tensors (x); t++)
        if (!tensors_equal (fxs_node_tensor (x, t), fxs_node_tensor (y, t)))
          what = "tensor";
      for (guint s = 0; !what && s < fxs_node_n_free_symbols (x); s++)
        if (strcmp (fxs_node_free_symbol (x, s), fxs_node_free_symbol (y, s)) != 0)
          what = "free symbols";
      if (what)
        return g_strdup_printf ("node %s: %s", fxs_node_name (x), what);
    }
  if (fxs_graph_n_attrs (a) != fxs_graph_n_attrs (b))
    return g_strdup ("attribute count");
  for (guint i = 0; i < fxs_graph_n_attrs (a); i++)
    {
      const FxsAttr *x = fxs_graph_attr (a, i), *y = fxs_graph_attr (b, i);
      if (strcmp (fxs_attr_name (x), fxs_attr_name (y)) != 0 || fxs_attr_kind (x) != fxs_attr_kind (y)
          || !strings_equal (fxs_attr_class (x), fxs_attr_class (y))
          || !tensors_equal (fxs_attr_tensor (x), fxs_attr_tensor (y)))
        return g_strdup_printf ("attribute %s", fxs_attr_name (x));
    }
  return NULL;
}

static void
assert_graphs_equal (const FxsGraph *a, const FxsGraph *b)
{
  char *diff = graph_difference (a, b);
  CU_ASSERT_PTR_NULL (diff);
  if (diff)
    fprintf (stderr, "\n  graphs differ: %s\n", diff);
  g_free (diff);
}

/* ---- a graph with everything -------------------------------------------- */

static const FxsValue *
str (FxsGraph *g, const char *s, gsize len)
{
  return fxs_value_new_string_len (g, s, len);
}

static FxsGraph *
build_everything (void)
{
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  const FxsValue *one = fxs_value_new_int (g, 1);
  const FxsValue *def = fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &one, 1);
  FxsNode *x = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  FxsNode *y = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "y", "y", def, NULL, &error);
  fxs_node_set_type (x, "torch.Tensor");
  gint64 dims[] = { 2, -1, -1 };
  const char *syms[] = { NULL, "s0", NULL };
  const FxsTensorMeta *t = fxs_tensor_meta_new (g, 3, dims, syms, "torch.float32");
  fxs_node_set_tensors (x, &t, 1, FALSE);
  const char *free_syms[] = { "s0" };
  fxs_node_set_free_symbols (x, free_syms, 1);
  fxs_node_set_symbol (y, "s1");

  FxsNode *w = fxs_graph_add_node (g, FXS_OP_GET_ATTR, "w", "layer.weight", NULL, NULL, &error);

  static const char weird[] = "q\"b\\s/\n\r\t\b\f\x01\x1f\x7f\0end \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  const FxsValue *items[] = {
    fxs_value_new_node (g, x),
    fxs_value_new_none (g),
    fxs_value_new_bool (g, TRUE),
    fxs_value_new_bool (g, FALSE),
    fxs_value_new_int (g, 0),
    fxs_value_new_int (g, G_MAXINT64),
    fxs_value_new_int (g, G_MININT64),
    fxs_value_new_float (g, 0.1),
    fxs_value_new_float (g, 1e-05),
    fxs_value_new_float (g, -0.0),
    fxs_value_new_float (g, 1.0),
    fxs_value_new_float (g, 1e16),
    fxs_value_new_float (g, 5e-324),
    fxs_value_new_float (g, 1.7976931348623157e308),
    fxs_value_new_float (g, 1.0 / 3.0),
    fxs_value_new_float (g, INFINITY),
    fxs_value_new_float (g, -INFINITY),
    fxs_value_new_float (g, NAN),
    str (g, weird, sizeof weird - 1),
    str (g, "", 0),
    fxs_value_new_ellipsis (g),
    fxs_value_new_opaque (g, "torch.dtype", "torch.float16"),
    fxs_value_new_opaque (g, "torch.device", "device(type='cuda', index=0)"),
    fxs_value_new_slice (g, fxs_value_new_none (g), fxs_value_new_node (g, y), fxs_value_new_int (g, -1)),
  };
  const FxsValue *nested_items[] = { items[0], fxs_value_new_sequence (g, FXS_VALUE_LIST, NULL, 0),
                                     fxs_value_new_sequence (g, FXS_VALUE_TUPLE, NULL, 0) };
  const FxsValue *keys[] = { str (g, "k", 1), fxs_value_new_int (g, 3), str (g, weird, sizeof weird - 1),
                             fxs_value_new_none (g) };
  const FxsValue *vals[] = { fxs_value_new_node (g, w),
                             fxs_value_new_sequence (g, FXS_VALUE_LIST, nested_items, 3),
                             fxs_value_new_float (g, 2.5), fxs_value_new_dict (g, NULL, NULL, 0) };
  const FxsValue *args_items[] = {
    fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items, G_N_ELEMENTS (items)),
    fxs_value_new_dict (g, keys, vals, G_N_ELEMENTS (keys)),
    fxs_value_new_sequence (g, FXS_VALUE_LIST, nested_items, 3),
  };
  const FxsValue *args = fxs_value_new_sequence (g, FXS_VALUE_TUPLE, args_items, 3);
  const FxsValue *kw_keys[] = { str (g, "alpha", 5), str (g, weird, sizeof weird - 1) };
  const FxsValue *kw_vals[] = { fxs_value_new_float (g, 2.0), fxs_value_new_node (g, y) };
  const FxsValue *kwargs = fxs_value_new_dict (g, kw_keys, kw_vals, 2);
  FxsNode *f = fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, "f\xc3\xa9", "torch.ops.aten.foo.default",
                                   args, kwargs, &error);
  const FxsTensorMeta *pair[] = { t, fxs_tensor_meta_new (g, 0, NULL, NULL, NULL) };
  fxs_node_set_tensors (f, pair, 2, TRUE);
  fxs_node_set_meta (f, "tag", str (g, "stage \"1\"", 9));
  fxs_node_set_meta (f, "cost", fxs_value_new_float (g, 12.5));
  fxs_node_set_meta (f, "refs", fxs_value_new_node (g, x));
  fxs_node_set_meta (f, weird, fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items + 7, 3));

  const FxsValue *f_ref = fxs_value_new_node (g, f);
  FxsNode *m = fxs_graph_add_node (g, FXS_OP_CALL_METHOD, "m", "view",
                                   fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &f_ref, 1), NULL, &error);
  FxsNode *mod = fxs_graph_add_node (g, FXS_OP_CALL_MODULE, "layer", "layer",
                                     fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &f_ref, 1), NULL, &error);
  fxs_node_set_tensors (mod, NULL, 0, TRUE);
  const FxsValue *outs[] = { fxs_value_new_node (g, m), fxs_value_new_node (g, mod) };
  const FxsValue *out_tuple = fxs_value_new_sequence (g, FXS_VALUE_TUPLE, outs, 2);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &out_tuple, 1), NULL, &error);
  CU_ASSERT_PTR_NULL (error);

  gint64 wdims[] = { 4, 3 };
  fxs_graph_add_attr (g, "layer", FXS_ATTR_MODULE, "torch.nn.modules.linear.Linear", NULL, &error);
  fxs_graph_add_attr (g, "layer.weight", FXS_ATTR_PARAMETER, NULL,
                      fxs_tensor_meta_new (g, 2, wdims, NULL, "torch.float32"), &error);
  fxs_graph_add_attr (g, "layer.running_mean", FXS_ATTR_BUFFER, NULL,
                      fxs_tensor_meta_new (g, 3, dims, syms, NULL), &error);
  fxs_graph_add_attr (g, "scale", FXS_ATTR_OBJECT, NULL, NULL, &error);
  fxs_graph_add_attr (g, "c\xc3\xa9", FXS_ATTR_CONSTANT, NULL, fxs_tensor_meta_new (g, 0, NULL, NULL, "torch.int64"),
                      &error);
  CU_ASSERT_PTR_NULL (error);
  return g;
}

static FxsGraph *
reload (const GString *text)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (text->str, text->len, "saved.json", &error);
  if (error)
    fprintf (stderr, "\n  %s\n", error->message);
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&error);
  return g;
}

static void
test_round_trip (void)
{
  FxsGraph *g = build_everything ();
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (g, text);
  FxsGraph *back = reload (text);
  CU_ASSERT_PTR_NOT_NULL_FATAL (back);
  assert_graphs_equal (g, back);

  /* writing what was read gives the same text */
  GString *again = g_string_new (NULL);
  fxs_graph_to_json (back, again);
  CU_ASSERT_STRING_EQUAL (again->str, text->str);

  /* the NUL inside a string survived */
  const FxsValue *s = fxs_value_item (fxs_value_item (fxs_node_args (fxs_graph_lookup_node (back, "f\xc3\xa9")), 0), 18);
  CU_ASSERT_EQUAL (fxs_value_get_string_length (s), 28);
  CU_ASSERT_TRUE (memcmp (fxs_value_get_string (s) + 14, "\0end", 4) == 0);
  g_string_free (again, TRUE);
  g_string_free (text, TRUE);
  fxs_graph_unref (back);
  fxs_graph_unref (g);
}

static void
test_text (void)
{
  FxsGraph *g = build_everything ();
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (g, text);
  /* the format header first, one node per line */
  CU_ASSERT_TRUE (g_str_has_prefix (text->str, "{\n  \"format\": \"fxsplit-graph\",\n  \"version\": 1,\n"
                                    "  \"attributes\": {\n    \"layer\": {\"kind\": \"module\", "
                                    "\"class\": \"torch.nn.modules.linear.Linear\"},\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "\n    {\"name\": \"x\", \"op\": \"placeholder\", "
                                  "\"target\": \"x\", \"type\": \"torch.Tensor\", \"meta\": {\"tensor\": "
                                  "{\"shape\": [2, \"s0\", null], \"dtype\": \"torch.float32\"}, "
                                  "\"free_symbols\": [\"s0\"]}},\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "{\"name\": \"y\", \"op\": \"placeholder\", \"target\": \"y\", "
                                  "\"args\": [1], \"meta\": {\"symbol\": \"s1\"}}"));
  /* Python float repr, non-finite floats tagged */
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "0.1, 1e-05, -0.0, 1.0, 1e+16, 5e-324, 1.7976931348623157e+308, "
                                  "0.3333333333333333, {\"float\": \"inf\"}, {\"float\": \"-inf\"}, "
                                  "{\"float\": \"nan\"}, "));
  /* escapes: control characters, quotes, backslashes; UTF-8 kept */
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "\"q\\\"b\\\\s/\\n\\r\\t\\b\\f\\u0001\\u001f\x7f\\u0000end "
                                  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""));
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "{\"slice\": [null, {\"node\": \"y\"}, -1]}"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "{\"opaque\": \"torch.device\", \"repr\": \"device(type='cuda', index=0)\"}"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "\"meta\": {\"tensors\": []}"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "\"c\xc3\xa9\": {\"kind\": \"constant\", \"shape\": [], \"dtype\": \"torch.int64\"}"));
  CU_ASSERT_TRUE (g_str_has_suffix (text->str, "]}]}\n  ]\n}\n"));
  /* appends */
  GString *twice = g_string_new ("prefix");
  fxs_graph_to_json (g, twice);
  CU_ASSERT_STRING_EQUAL (twice->str + 6, text->str);
  g_string_free (twice, TRUE);
  g_string_free (text, TRUE);
  fxs_graph_unref (g);
}

static void
test_invalid_utf8 (void)
{
  /* JSON cannot hold bytes that are not UTF-8: they become U+FFFD */
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  const FxsValue *bad = fxs_value_new_string (g, "a\xff" "b\xc3");
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &bad, 1), NULL, &error);
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (g, text);
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "\"a\\ufffdb\\ufffd\""));
  FxsGraph *back = reload (text);
  CU_ASSERT_PTR_NOT_NULL_FATAL (back);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_value_item (fxs_node_args (fxs_graph_node (back, 1)), 0)),
                          "a\xef\xbf\xbd" "b\xef\xbf\xbd");
  fxs_graph_unref (back);
  g_string_free (text, TRUE);
  fxs_graph_unref (g);
}

/* The JSON text of a graph whose output is the one string @s. */
static GString *
json_of_string (const char *s, gsize len)
{
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  const FxsValue *v = fxs_value_new_string_len (g, s, len);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &v, 1), NULL, &error);
  g_assert_no_error (error);
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (g, text);
  fxs_graph_unref (g);
  return text;
}

static void
test_escapes_at_every_offset (void)
{
  /* The writer skips plain ASCII 8 bytes at a time: each byte that needs
   * care must be found wherever it falls within or across such a word. */
  static const struct { const char *raw; gsize len; const char *json; } cases[] = {
    { "\"", 1, "\\\"" }, { "\\", 1, "\\\\" }, { "\n", 1, "\\n" },
    { "\x01", 1, "\\u0001" }, { "\x1f", 1, "\\u001f" }, { "\0", 1, "\\u0000" },
    { "\x7f", 1, "\x7f" }, { " ", 1, " " }, { "\xc3\xa9", 2, "\xc3\xa9" },
    { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80" }, { "\xff", 1, "\\ufffd" },
    { "\xc3", 1, "\\ufffd" }, { "\xed\xa0\x80", 3, "\\ufffd\\ufffd\\ufffd" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint at = 0; at < 20; at++)
      {
        GString *raw = g_string_new (NULL), *want = g_string_new ("\"");
        for (guint i = 0; i < at; i++)
          g_string_append_c (raw, (char) ('a' + i % 26));
        g_string_append (want, raw->str);
        g_string_append_len (raw, cases[c].raw, (gssize) cases[c].len);
        g_string_append (want, cases[c].json);
        g_string_append (raw, "0123456789");
        g_string_append (want, "0123456789\"");
        GString *text = json_of_string (raw->str, raw->len);
        if (!strstr (text->str, want->str))
          {
            fprintf (stderr, "case %u at %u: expected %s in\n%s\n", c, at, want->str, text->str);
            CU_FAIL ("string escape");
          }
        g_string_free (text, TRUE);
        g_string_free (raw, TRUE);
        g_string_free (want, TRUE);
      }
}

static void
test_string_longer_than_buffer (void)
{
  /* longer than the writer's buffer, with escapes near both ends */
  gsize len = 700 * 1024;
  char *s = g_malloc (len);
  memset (s, 'x', len);
  s[3] = '"';
  s[len - 2] = '\n';
  GString *text = json_of_string (s, len);
  GString *want = g_string_new ("\"xxx\\\"");
  g_string_append_len (want, s + 4, (gssize) (len - 6));
  g_string_append (want, "\\nx\"");
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, want->str));
  g_string_free (want, TRUE);
  g_string_free (text, TRUE);
  g_free (s);
}

static guint
count_entries (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

static void
test_save_file (void)
{
  char *dir = g_dir_make_tmp ("fxs-save-XXXXXX", NULL);
  char *path = g_build_filename (dir, "g.json", NULL);
  FxsGraph *g = build_everything ();
  GError *error = NULL;
  CU_ASSERT_TRUE (fxs_graph_save_file (g, path, &error));
  CU_ASSERT_PTR_NULL (error);
  FxsGraph *back = fxs_graph_load_file (path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (back);
  assert_graphs_equal (g, back);

  /* the file holds exactly what fxs_graph_to_json gives */
  char *contents;
  CU_ASSERT_TRUE (g_file_get_contents (path, &contents, NULL, NULL));
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (g, text);
  CU_ASSERT_STRING_EQUAL (contents, text->str);
  g_free (contents);
  g_string_free (text, TRUE);

  /* replacing works and leaves no temporary file */
  CU_ASSERT_TRUE (fxs_graph_save_file (back, path, &error));
  CU_ASSERT_EQUAL (count_entries (dir), 1);

  char *missing = g_build_filename (dir, "no", "g.json", NULL);
  CU_ASSERT_FALSE (fxs_graph_save_file (g, missing, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_IO));
  CU_ASSERT_TRUE (error && strstr (error->message, "does not exist"));
  g_clear_error (&error);

  g_unlink (path);
  g_rmdir (dir);
  g_free (missing);
  g_free (path);
  g_free (dir);
  fxs_graph_unref (back);
  fxs_graph_unref (g);
}

/* A file PyTorch's exporter wrote survives load, save, load unchanged, and
 * its second writing is byte for byte the first. */
static void
test_torch_export_round_trip (void)
{
  char *path = g_build_filename (FXS_TEST_DATA_DIR, "load", "torch-export.json", NULL);
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  g_free (path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (g, text);
  FxsGraph *back = reload (text);
  CU_ASSERT_PTR_NOT_NULL_FATAL (back);
  assert_graphs_equal (g, back);
  GString *again = g_string_new (NULL);
  fxs_graph_to_json (back, again);
  CU_ASSERT_STRING_EQUAL (again->str, text->str);
  g_string_free (again, TRUE);
  g_string_free (text, TRUE);
  fxs_graph_unref (back);
  fxs_graph_unref (g);
}

/* A split result written out: its top level loads as the top-level graph,
 * each submodule as its partition's graph, and the partition table and
 * qualname map say what the accessors say. */
static void
test_split_result (void)
{
  char *path = g_build_filename (FXS_TEST_DATA_DIR, "load", "torch-export.json", NULL);
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  g_free (path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  /* the two blocks in partitions 0 and 1, the rest in 2 */
  guint n = fxs_graph_n_nodes (g);
  gint64 *ids = g_new0 (gint64, n);
  for (guint i = 0; i < n; i++)
    ids[i] = i < 6 ? 0 : i < 10 ? 1 : 2;
  FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
  g_free (ids);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  CU_ASSERT_EQUAL_FATAL (fxs_split_result_n_partitions (r), 3);

  char *dir = g_dir_make_tmp ("fxs-save-XXXXXX", NULL);
  char *file = g_build_filename (dir, "split.json", NULL);
  CU_ASSERT_TRUE (fxs_split_result_save_file (r, file, &error));
  GString *text = g_string_new (NULL);
  fxs_split_result_to_json (r, text);
  char *contents = NULL;
  CU_ASSERT_TRUE (g_file_get_contents (file, &contents, NULL, NULL));
  CU_ASSERT_STRING_EQUAL (contents, text->str);
  g_free (contents);

  FxsGraph *top = fxs_graph_load_file (file, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (top);
  assert_graphs_equal (fxs_split_result_top (r), top);
  fxs_graph_unref (top);
  for (guint i = 0; i < fxs_split_result_n_partitions (r); i++)
    {
      const FxsPartition *p = fxs_split_result_partition (r, i);
      FxsGraph *sub = fxs_graph_load_submodule_file (file, fxs_partition_submod_name (p), &error);
      CU_ASSERT_PTR_NOT_NULL_FATAL (sub);
      assert_graphs_equal (fxs_partition_graph (p), sub);
      fxs_graph_unref (sub);

      /* the partition table entry, as the format spells it */
      GString *entry = g_string_new (NULL);
      g_string_append_printf (entry, "{\"name\": \"%s\", \"id\": %" G_GINT64_FORMAT ", \"submodule\": \"%s\", "
                              "\"nodes\": [", fxs_partition_name (p), fxs_partition_id (p),
                              fxs_partition_submod_name (p));
      for (guint k = 0; k < fxs_partition_n_nodes (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "", fxs_node_name (fxs_partition_node (p, k)));
      g_string_append (entry, "], \"inputs\": [");
      for (guint k = 0; k < fxs_partition_n_inputs (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "", fxs_node_name (fxs_partition_input (p, k)));
      g_string_append (entry, "], \"outputs\": [");
      for (guint k = 0; k < fxs_partition_n_outputs (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "", fxs_node_name (fxs_partition_output (p, k)));
      g_string_append (entry, "], \"dependencies\": [");
      for (guint k = 0; k < fxs_partition_n_dependencies (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "",
                                fxs_partition_name (fxs_partition_dependency (p, k)));
      g_string_append (entry, "], \"dependents\": [");
      for (guint k = 0; k < fxs_partition_n_dependents (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "",
                                fxs_partition_name (fxs_partition_dependent (p, k)));
      g_string_append (entry, "]}");
      CU_ASSERT_PTR_NOT_NULL (strstr (text->str, entry->str));
      g_string_free (entry, TRUE);
    }
  /* partition 1 takes block 0's output and gives block 1's to partition 2 */
  const FxsPartition *p1 = fxs_split_result_partition (r, 1);
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (fxs_partition_dependency (p1, 0)), "0");
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (fxs_partition_dependent (p1, 0)), "2");
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "\"nodes\": [\"blocks_1_linear\", \"relu_1\", \"add_1\", \"blocks_1_norm\"]"));

  for (guint i = 0; i < fxs_split_result_n_qualnames (r); i++)
    {
      const char *new_name, *old_name;
      fxs_split_result_qualname (r, i, &new_name, &old_name);
      char *member = g_strdup_printf ("\n    \"%s\": \"%s\"", new_name, old_name);
      CU_ASSERT_PTR_NOT_NULL (strstr (text->str, member));
      g_free (member);
    }
  CU_ASSERT_TRUE (fxs_split_result_n_qualnames (r) > 0);
  CU_ASSERT_PTR_NULL (error);

  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
  g_string_free (text, TRUE);
  fxs_split_result_free (r);
  fxs_graph_unref (g);
}

/* A chain of additions of a parameter each, in @n_parts contiguous
 * partitions; one node carries a string longer than the writer's buffer. */
static FxsSplitResult *
split_chain (FxsGraph **graph, guint n, guint n_parts, gsize long_string)
{
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  const FxsNode *prev = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  char *big = g_malloc (long_string + 1);
  memset (big, 'y', long_string);
  big[long_string] = '\0';
  if (long_string)
    big[long_string / 2] = '"';
  for (guint i = 0; i < n; i++)
    {
      char *attr = g_strdup_printf ("layers.%u.weight", i);
      char *get = g_strdup_printf ("w%u", i);
      char *name = g_strdup_printf ("add_%u", i);
      gint64 dims[] = { 4, (gint64) i + 1 };
      fxs_graph_add_attr (g, attr, FXS_ATTR_PARAMETER, NULL,
                          fxs_tensor_meta_new (g, 2, dims, NULL, "torch.float32"), &error);
      const FxsNode *w = fxs_graph_add_node (g, FXS_OP_GET_ATTR, get, attr, NULL, NULL, &error);
      const FxsValue *args[] = { fxs_value_new_node (g, prev), fxs_value_new_node (g, w),
                                 fxs_value_new_string (g, i == n / 3 ? big : "s\xc3\xa9") };
      prev = fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, name, "operator.add",
                                 fxs_value_new_sequence (g, FXS_VALUE_TUPLE, args, 3), NULL,
                                 &error);
      g_free (attr);
      g_free (get);
      g_free (name);
    }
  const FxsValue *out = fxs_value_new_node (g, prev);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &out, 1), NULL, &error);
  g_assert_no_error (error);
  g_free (big);
  guint total = fxs_graph_n_nodes (g);
  gint64 *ids = g_new0 (gint64, total);
  for (guint i = 0; i < total; i++)
    ids[i] = (gint64) (i * n_parts / total);
  FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
  g_assert_no_error (error);
  g_free (ids);
  *graph = g;
  return r;
}

/* A split result written to a string and to a file is the same text,
 * also with a string longer than the writer's buffer (written straight
 * through), and reads back as the same result. */
static void
test_split_result_string_and_file (void)
{
  static const struct { guint n, parts; gsize long_string; } graphs[] = {
    { 1, 1, 0 }, { 40, 3, 0 }, { 300, 7, 0 }, { 60, 4, 5 << 20 },
  };
  for (guint gi = 0; gi < G_N_ELEMENTS (graphs); gi++)
    {
      FxsGraph *g;
      FxsSplitResult *r = split_chain (&g, graphs[gi].n, graphs[gi].parts, graphs[gi].long_string);
      GString *text = g_string_new (NULL);
      fxs_split_result_to_json (r, text);
      FILE *f = tmpfile ();
      CU_ASSERT_PTR_NOT_NULL_FATAL (f);
      fxs_split_result_write_json (r, f);
      long size = ftell (f);
      CU_ASSERT_EQUAL (size, (long) text->len);
      char *bytes = g_malloc (size > 0 ? (gsize) size : 1);
      rewind (f);
      CU_ASSERT_EQUAL (fread (bytes, 1, (gsize) size, f), (gsize) size);
      CU_ASSERT_TRUE (size == (long) text->len && memcmp (bytes, text->str, text->len) == 0);
      fclose (f);
      g_free (bytes);
      GError *error = NULL;
      FxsGraph *back = fxs_graph_load_data (text->str, text->len, "result.json", &error);
      CU_ASSERT_PTR_NOT_NULL (back);
      g_clear_error (&error);
      if (back)
        fxs_graph_unref (back);
      g_string_free (text, TRUE);
      fxs_split_result_free (r);
      fxs_graph_unref (g);
    }
}

/* A graph whose nodes have metas[order[i]] (@rounds times over @order),
 * read and written again: the same text. */
static void
check_written_again (char **metas, const guint *order, guint n, guint rounds)
{
  GString *text = g_string_new ("{\n  \"format\": \"fxsplit-graph\",\n  \"version\": 1,\n"
                                "  \"attributes\": {},\n  \"nodes\": [");
  for (guint i = 0; i < n * rounds; i++)
    g_string_append_printf (text, "%s{\"name\": \"p%u\", \"op\": \"placeholder\", "
                            "\"target\": \"p%u\", \"meta\": %s}", i ? ",\n    " : "\n    ",
                            i, i, metas[order[i % n]]);
  g_string_append (text, ",\n    {\"name\": \"output\", \"op\": \"output\", "
                   "\"target\": \"output\", \"args\": [null]}\n  ]\n}\n");
  FxsGraph *g = reload (text);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  /* the loader shares equal metadata: the writer has copies to make */
  CU_ASSERT_PTR_EQUAL (fxs_node_meta (fxs_graph_lookup_node (g, "p0")),
                       fxs_node_meta (fxs_graph_lookup_node (g, "p2")));
  GString *again = g_string_new (NULL);
  fxs_graph_to_json (g, again);
  CU_ASSERT_TRUE (g_string_equal (again, text));
  g_string_free (again, TRUE);
  g_string_free (text, TRUE);
  fxs_graph_unref (g);
}

static void
test_shared_meta_written_again (void)
{
  /* metadata shared by nodes is written once and then copied: in an order
   * that evicts copies and brings them back, with one too long to keep and
   * one that refers to a node; the text read back and written again is the
   * same */
  char *long_tag = g_strnfill (300, 'm');
  char *metas[] = { g_strdup ("{\"stage\": 1}"), g_strdup ("{\"stage\": 2}"),
                    g_strdup ("{\"tensor\": {\"shape\": [2, 3], \"dtype\": \"torch.float32\"}}"),
                    g_strdup ("{\"stage\": 3}"), g_strdup ("{\"stage\": 4}"),
                    g_strdup_printf ("{\"tag\": \"%s\"}", long_tag),
                    g_strdup ("{\"from\": {\"node\": \"p0\"}}") };
  static const guint order[] = { 0, 1, 0, 2, 3, 4, 5, 0, 5, 6, 1, 6, 2, 2, 0 };
  check_written_again (metas, order, G_N_ELEMENTS (order), 1);
  /* 20,000 nodes with metas of ~200 bytes: the writer's 256 KiB buffer is
   * written out in the middle of some, which are then not kept */
  char *tag = g_strnfill (180, 't');
  for (guint i = 0; i < G_N_ELEMENTS (metas); i++)
    {
      g_free (metas[i]);
      metas[i] = g_strdup_printf ("{\"tag\": \"%s\", \"i\": %u}", tag, i);
    }
  check_written_again (metas, order, G_N_ELEMENTS (order), 20000 / G_N_ELEMENTS (order));
  for (guint i = 0; i < G_N_ELEMENTS (metas); i++)
    g_free (metas[i]);
  g_free (tag);
  g_free (long_tag);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_round_trip),
    FXS_TEST (test_text),
    FXS_TEST (test_invalid_utf8),
    FXS_TEST (test_escapes_at_every_offset),
    FXS_TEST (test_string_longer_than_buffer),
    FXS_TEST (test_save_file),
    FXS_TEST (test_torch_export_round_trip),
    FXS_TEST (test_split_result),
    FXS_TEST (test_split_result_string_and_file),
    FXS_TEST (test_shared_meta_written_again),
    { NULL, NULL },
  };
  fxs_test_add_suite ("saving", cases);
}

FXS_TEST_MAIN (register_tests)
