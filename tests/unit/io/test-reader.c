/* Unit tests of the streaming JSON reader: inputs read in chunks of every
 * size give the same values, its limits, and fxs_json_read_int_map(). */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "io/json-reader.h"
#include "../test-util.h"

static void
print_json (GString *out, const FxsJson *j)
{
  switch ((FxsJsonType) j->type)
    {
    case FXS_JSON_NULL: g_string_append (out, "null"); break;
    case FXS_JSON_BOOL: g_string_append (out, j->u.b ? "true" : "false"); break;
    case FXS_JSON_NUMBER: g_string_append (out, j->u.s); break;
    case FXS_JSON_STRING:
      g_string_append_c (out, '<');
      for (guint i = 0; i < j->n; i++)
        g_string_append_printf (out, "%02x", (guchar) j->u.s[i]);
      g_string_append_c (out, '>');
      break;
    case FXS_JSON_ARRAY:
      g_string_append_c (out, '[');
      for (guint i = 0; i < j->n; i++)
        print_json (out, &j->u.items[i]);
      g_string_append_c (out, ']');
      break;
    case FXS_JSON_OBJECT:
      g_string_append_c (out, '{');
      for (guint i = 0; i < 2 * j->n; i++)
        print_json (out, &j->u.items[i]);
      g_string_append_c (out, '}');
      break;
    }
  g_string_append_printf (out, "@%" G_GINT64_FORMAT " ", j->pos);
}

static FxsJsonAction
collect_begin (gpointer data, const FxsJsonItem *item, int *tag)
{
  (void) data, (void) item;
  *tag = 1;
  return FXS_JSON_COLLECT;
}

static gboolean
collect_value (gpointer data, const FxsJsonItem *item, const FxsJson *v)
{
  (void) item;
  print_json (data, v);
  return TRUE;
}

static const FxsJsonHandler collect_handler = { collect_begin, collect_value, NULL };

static char *
read_with (const char *json, gsize chunk, gsize max_string, GError **error)
{
  GString *out = g_string_new (NULL);
  FxsJsonReader *r = fxs_json_reader_new ("t.json", &collect_handler, out);
  fxs_json_reader_set_limits (r, max_string, chunk);
  gboolean ok = fxs_json_reader_parse (r, NULL, json, strlen (json), error);
  fxs_json_reader_free (r);
  return g_string_free (out, !ok);
}

static void
test_reader_chunks (void)
{
  const char *doc = "{\"a\\\"b\": [1, -2.5e-3, true, false, null, \"\\u00e9\\ud83d\\ude00x\"],\n"
                    " \"long\": \"" "0123456789012345678901234567890123456789" "\",\n"
                    " \"o\": {\"k\": {}, \"l\": [[], [[]]]}, \"n\": 12345678901234567890}";
  GError *error = NULL;
  char *whole = read_with (doc, 1 << 20, 0, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (whole);
  static const gsize chunks[] = { 1, 2, 3, 5, 7, 16, 64 };
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      char *got = read_with (doc, chunks[i], 0, &error);
      CU_ASSERT_STRING_EQUAL (got ? got : "", whole);
      g_free (got);
    }
  g_free (whole);

  /* errors are located the same way whatever the chunking */
  const char *bad = "{\"a\": [1, 2],\n \"b\": {\"c\": 1, \"c\": 2}}";
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      CU_ASSERT_PTR_NULL (read_with (bad, chunks[i], 0, &error));
      CU_ASSERT_STRING_EQUAL (error ? error->message : "", "t.json:2:16: b.c: duplicate key");
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (read_with ("[1, 2,\n 3 x]", chunks[i], 0, &error));
      CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:2:4: invalid JSON"));
      g_clear_error (&error);
    }
}

static void
test_reader_limits (void)
{
  GError *error = NULL;
  /* strings: one longer than the limit in a single chunk, or spread over
   * chunks (yajl would buffer it), keys too */
  CU_ASSERT_PTR_NULL (read_with ("[\"0123456789abcdefX\"]", 1 << 20, 16, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_PARSE));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "",
                          "t.json:1:2: [0]: a string of 17 bytes, longer than the limit of 16");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (read_with ("[1,\n   \"0123456789abcdef0123456789abcdef0123456789\"]", 4, 16, &error));
  CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:2:4: "));
  CU_ASSERT_TRUE (error && strstr (error->message, "longer than the limit of 16 bytes"));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (read_with ("{\"0123456789abcdefX\": 1}", 1 << 20, 16, &error));
  CU_ASSERT_TRUE (error && strstr (error->message, "a key of 17 bytes"));
  g_clear_error (&error);
  char *ok = read_with ("[\"0123456789abcdef\"]", 4, 16, &error);
  CU_ASSERT_PTR_NOT_NULL (ok);
  g_free (ok);

  /* a long string over many small chunks: yajl rescans a pending token with
   * every chunk, so without growing chunks this would take minutes */
  GString *long_doc = g_string_new ("[\"");
  for (guint i = 0; i < (1u << 20); i++)
    g_string_append_c (long_doc, 'a' + i % 26);
  g_string_append (long_doc, "\", 1]");
  ok = read_with (long_doc->str, 1, 0, &error);
  CU_ASSERT_PTR_NOT_NULL (ok);
  CU_ASSERT_TRUE (ok && g_str_has_suffix (ok, "1@1048579 ]@0 "));
  g_free (ok);
  g_string_free (long_doc, TRUE);

  /* runs of blanks: exactly the limit is fine (a separator does not
   * count), one more is not, wherever chunks and pieces of the input end;
   * the error is at the run's first blank */
  static const char *const blank_cases[] = {
    "[1,%s2]", "[1%s,2]", "%s[1]", "[1]%s", "{\"a\":%s1}", "[\"a b\"%s]",
  };
  for (guint c = 0; c < G_N_ELEMENTS (blank_cases); c++)
    for (guint extra = 0; extra < 2; extra++)
      for (gsize chunk = 1; chunk <= 40; chunk += chunk < 8 ? 1 : 13)
        {
          char *blanks = g_strnfill (16 + extra, ' ');
          blanks[3] = '\n';
          blanks[7] = '\t';
          char *doc = g_strdup_printf (blank_cases[c], blanks);
          char *got = read_with (doc, chunk, 16, &error);
          CU_ASSERT_EQUAL (got != NULL, extra == 0);
          if (extra)
            {
              gsize at = (gsize) (strstr (doc, blanks) - doc);
              char *where = at == 0 ? g_strdup ("t.json:1:1: ")
                                    : g_strdup_printf ("t.json:1:%zu: ", at + 1);
              gboolean ok = error && g_str_has_prefix (error->message, where)
                            && strstr (error->message, "a run of blanks longer than the limit of 16");
              CU_ASSERT_TRUE (ok);
              if (!ok)
                fprintf (stderr, "\n  %s (chunk %zu): %s\n", blank_cases[c], chunk,
                         error ? error->message : "(read)");
              g_free (where);
            }
          g_free (got);
          g_clear_error (&error);
          g_free (doc);
          g_free (blanks);
        }
  /* two runs of the limit around a separator are two runs */
  char *two = g_strdup_printf ("[1%s,%s2]", "                ", "                ");
  char *got_two = read_with (two, 5, 16, &error);
  CU_ASSERT_PTR_NOT_NULL (got_two);
  g_free (got_two);
  g_free (two);
  g_clear_error (&error);
  /* unpaired surrogate escapes, whatever the chunks (the scanner keeps its
   * state between them) */
  for (gsize chunk = 1; chunk <= 16; chunk++)
    {
      CU_ASSERT_PTR_NULL (read_with ("[\"x\", \"ab\\ud800\\u0041\"]", chunk, 0, &error));
      CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:1:7: [1]: a string that "
                                                 "is not valid text"));
      g_clear_error (&error);
      char *ok_pair = read_with ("[\"\\\\\\ud83d\\ude00\\\\ud800\"]", chunk, 0, &error);
      CU_ASSERT_PTR_NOT_NULL (ok_pair);
      g_free (ok_pair);
      g_clear_error (&error);
    }

  /* depth: exactly the limit is fine, one more is not */
  for (guint extra = 0; extra < 2; extra++)
    {
      guint depth = FXS_JSON_MAX_DEPTH + extra;
      GString *doc = g_string_new (NULL);
      for (guint i = 0; i < depth; i++)
        g_string_append_c (doc, '[');
      for (guint i = 0; i < depth; i++)
        g_string_append_c (doc, ']');
      char *got = read_with (doc->str, 1 << 20, 0, &error);
      CU_ASSERT_EQUAL (got != NULL, extra == 0);
      if (extra)
        CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:1:513: "));
      g_free (got);
      g_clear_error (&error);
      g_string_free (doc, TRUE);
    }
}

/* fxs_json_read_int_map()'s callback: records "key=value" (or "key=-"), and
 * fails on key "stop". */
static gboolean
record_member (const char *key, gsize key_len, const gint64 *value, gpointer out,
               GError **error)
{
  if (strcmp (key, "stop") == 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "node 'stop' stops");
      return FALSE;
    }
  g_string_append_len (out, key, (gssize) key_len);
  if (value)
    g_string_append_printf (out, "=%" G_GINT64_FORMAT " ", *value);
  else
    g_string_append (out, "=- ");
  return TRUE;
}

static char *
read_int_map (const char *doc, GError **error)
{
  GString *out = g_string_new (NULL);
  if (fxs_json_read_int_map (doc, strlen (doc), "t.json", record_member, out, error))
    return g_string_free (out, FALSE);
  g_string_free (out, TRUE);
  return NULL;
}

static void
test_int_map (void)
{
  GError *error = NULL;
  /* every member in order, repeats too; values that are no 64-bit integer
   * are NULL */
  char *got = read_int_map ("{\"a\": 1, \"b\": -9223372036854775808, \"c\": \"1\", \"d\": 1.0, "
                            "\"e\": {\"f\": 1}, \"g\": 9223372036854775808, \"a\": 2}", &error);
  CU_ASSERT_STRING_EQUAL (got ? got : error->message,
                          "a=1 b=-9223372036854775808 c=- d=- e=- g=- a=2 ");
  g_free (got);
  /* the callback's error, at its member */
  CU_ASSERT_PTR_NULL (read_int_map ("{\"a\": 1,\n  \"stop\": 2}", &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_OPTION));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "", "t.json:2:3: node 'stop' stops");
  g_clear_error (&error);
  /* an unpaired surrogate in a key is an error at the key (the path is not
   * the previous member's), as in a value */
  static const char *const bad[][2] = {
    { "{\"a\": 1, \"\\ud800\": 2}", "t.json:1:10: a string that is not valid text" },
    { "{\"a\": 1, \"b\": \"\\udc00\"}", "t.json:1:15: b: a string that is not valid text" },
    { "[1]", "t.json:1:1: not a JSON object" },
    { "{\"a\": 1", "t.json:1:8: unexpected end of the input" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      CU_ASSERT_PTR_NULL (read_int_map (bad[i][0], &error));
      CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_PARSE));
      CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, bad[i][1]));
      if (error && !g_str_has_prefix (error->message, bad[i][1]))
        g_printerr ("got: %s\n", error->message);
      g_clear_error (&error);
    }
}

/* Duplicate keys: in small objects and in ones of more than 16 members
 * (looked up in a hash set), keys that differ only after a NUL. */
static void
test_reader_duplicate_keys (void)
{
  GError *error = NULL;
  GString *big = g_string_new ("{");
  for (guint i = 0; i < 20; i++)
    g_string_append_printf (big, "\"k%u\": %u, ", i, i);
  g_string_append (big, "\"a\\u0000b\": 0, \"a\\u0000c\": 0}");
  char *out = read_with (big->str, 1 << 20, 0, &error);
  CU_ASSERT_PTR_NOT_NULL (out);
  g_clear_pointer (&out, g_free);
  g_clear_error (&error);
  CU_ASSERT_PTR_NOT_NULL (out = read_with ("{\"a\\u0000b\": 0, \"a\\u0000c\": 0}", 1, 0, &error));
  g_clear_pointer (&out, g_free);
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (read_with ("{\"a\\u0000b\": 0, \"x\": 1, \"a\\u0000b\": 2}", 1, 0, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_FORMAT));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "",
                          "t.json:1:25: [\"a\\u0000b\"]: duplicate key");
  g_clear_error (&error);
  g_string_truncate (big, big->len - 1);
  g_string_append (big, ", \"k3\": 1}");
  CU_ASSERT_PTR_NULL (read_with (big->str, 1 << 20, 0, &error));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "", "t.json:1:232: k3: duplicate key");
  g_clear_error (&error);
  g_string_free (big, TRUE);
}

static void
register_tests (void)
{
  static const FxsTestCase reader[] = {
    FXS_TEST (test_reader_chunks),
    FXS_TEST (test_reader_limits),
    FXS_TEST (test_reader_duplicate_keys),
    FXS_TEST (test_int_map),
    { NULL, NULL },
  };
  fxs_test_add_suite ("streaming reader", reader);
}

FXS_TEST_MAIN (register_tests)
