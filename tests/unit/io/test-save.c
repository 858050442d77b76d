/* Unit tests of graph file writing: load(save(g)) equals g for every value
 * kind and awkward floats and strings, the text is deterministic and stable,
 * and saving is atomic. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "io/json-writer.h"
#include "save-cases.h"

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
  /* The writer checks plain ASCII 8 bytes at a time, the last 8
   * overlapping the ones before, and a string shorter than 8 as two
   * overlapping halves or as three bytes: each byte that needs care must
   * be found wherever it falls, in strings of every length. */
  static const struct { const char *raw; gsize len; const char *json; } cases[] = {
    { "\"", 1, "\\\"" }, { "\\", 1, "\\\\" }, { "\n", 1, "\\n" },
    { "\x01", 1, "\\u0001" }, { "\x1f", 1, "\\u001f" }, { "\0", 1, "\\u0000" },
    { "\x7f", 1, "\x7f" }, { " ", 1, " " }, { "\xc3\xa9", 2, "\xc3\xa9" },
    { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80" }, { "\xff", 1, "\\ufffd" },
    { "\xc3", 1, "\\ufffd" }, { "\xed\xa0\x80", 3, "\\ufffd\\ufffd\\ufffd" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint at = 0; at < 20; at++)
      for (guint after = 0; after <= 10; after++)
        {
          GString *raw = g_string_new (NULL), *want = g_string_new ("\"");
          for (guint i = 0; i < at; i++)
            g_string_append_c (raw, (char) ('a' + i % 26));
          g_string_append (want, raw->str);
          g_string_append_len (raw, cases[c].raw, (gssize) cases[c].len);
          g_string_append (want, cases[c].json);
          g_string_append_len (raw, "0123456789", (gssize) after);
          g_string_append_len (want, "0123456789", (gssize) after);
          g_string_append_c (want, '"');
          GString *text = json_of_string (raw->str, raw->len);
          if (!strstr (text->str, want->str))
            {
              fprintf (stderr, "case %u at %u with %u after: expected %s in\n%s\n", c, at, after,
                       want->str, text->str);
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

static void
write_numbers (FxsJsonWriter *w, gconstpointer want)
{
  static const gint64 edges[] = { 0, 9, 10, -1, -10, G_MAXINT64, G_MININT64 };
  for (gint64 i = 0; i < 100000; i++)
    {
      gint64 v = i < (gint64) G_N_ELEMENTS (edges) ? edges[i] : (i % 2 ? -i : i) * i * i;
      fxs_json_write_int (w, v);
      fxs_json_write_char (w, ' ');
      g_string_append_printf ((GString *) want, "%" G_GINT64_FORMAT " ", v);
    }
}

static void
test_numbers_across_buffer (void)
{
  /* Numbers of every length, written straight into the writer's buffer:
   * enough of them to fill it a few times, so that some meet its end. */
  GString *text = g_string_new (NULL), *want = g_string_new (NULL);
  fxs_json_write_with (text, NULL, write_numbers, want);
  CU_ASSERT_STRING_EQUAL (text->str, want->str);
  g_string_free (want, TRUE);
  g_string_free (text, TRUE);
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

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_round_trip),
    FXS_TEST (test_text),
    FXS_TEST (test_invalid_utf8),
    FXS_TEST (test_escapes_at_every_offset),
    FXS_TEST (test_string_longer_than_buffer),
    FXS_TEST (test_numbers_across_buffer),
    FXS_TEST (test_save_file),
    { NULL, NULL },
  };
  fxs_test_add_suite ("saving", cases);
}

FXS_TEST_MAIN (register_tests)
