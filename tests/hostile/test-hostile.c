/* Hostile input: what a user could feed that is built to hurt.  Each case
 * expects one clean error line (or a clean success) in bounded time and
 * memory, never a crash or a hang.  Big inputs are made at test time. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "test-util.h"

/* ---- helpers ------------------------------------------------------------------- */

static long
peak_rss_mb (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

/* Loads @text both ways (top-level graph, whole split result); both must
 * fail with @code and a message containing @what, on one line. */
static void
expect_load_error (const char *text, gsize len, FxsErrorCode code, const char *what)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (text, len, "hostile.json", &error);
  CU_ASSERT_PTR_NULL (g);
  fxs_graph_unref (g);
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, code));
  if (error && (!strstr (error->message, what) || strchr (error->message, '\n')))
    {
      fprintf (stderr, "\nexpected one line with: %s\ngot: %s\n", what, error->message);
      CU_FAIL ("another message");
    }
  g_clear_error (&error);
  FxsSplitFile *f = fxs_split_file_load_data (text, len, "hostile.json", &error);
  CU_ASSERT_PTR_NULL (f);
  fxs_split_file_free (f);
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, code));
  g_clear_error (&error);
}

static void
expect_load_error_str (const char *text, FxsErrorCode code, const char *what)
{
  expect_load_error (text, strlen (text), code, what);
}

#define HEAD "{\"format\": \"fxsplit-graph\", \"version\": 1, "
#define X "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"}"
#define OUT "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"x\"}]}"

/* ---- the cases ------------------------------------------------------------------- */

static void
test_deep_nesting (void)
{
  /* 100,000 arrays deep in a node's args, and at the top level */
  const guint depth = 100000;
  GString *s = g_string_new (HEAD "\"nodes\": [" X ", {\"name\": \"a\", \"op\": \"call_function\", "
                             "\"target\": \"f\", \"args\": ");
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, ']');
  g_string_append (s, "}, " OUT "]}");
  expect_load_error (s->str, s->len, FXS_ERROR_PARSE, "nested deeper than 512 levels");
  g_string_truncate (s, 0);
  for (guint i = 0; i < depth; i++)
    g_string_append (s, "{\"a\": ");
  expect_load_error (s->str, s->len, FXS_ERROR_FORMAT, "a graph file starts with");
  g_string_truncate (s, 0);
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, '[');
  expect_load_error (s->str, s->len, FXS_ERROR_FORMAT, "a graph file is a JSON object");
  g_string_free (s, TRUE);
}

/* A 1 GiB string, written to a temporary file: refused early, without
 * holding it in memory. */
static void
test_huge_string (void)
{
  char *dir = g_dir_make_tmp ("hostile-XXXXXX", NULL);
  char *path = g_build_filename (dir, "huge.json", NULL);
  FILE *f = fopen (path, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  fputs (HEAD "\"nodes\": [{\"name\": \"", f);
  char *block = g_malloc (1 << 20);
  memset (block, 'a', 1 << 20);
  for (guint i = 0; i < 1024; i++)
    fwrite (block, 1, 1 << 20, f);
  fputs ("\", \"op\": \"placeholder\", \"target\": \"x\"}, " OUT "]}", f);
  g_free (block);
  CU_ASSERT_EQUAL_FATAL (fclose (f), 0);

  long before = peak_rss_mb ();
  gint64 start = g_get_monotonic_time ();
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  double seconds = (g_get_monotonic_time () - start) / 1e6;
  long grew = peak_rss_mb () - before;
  CU_ASSERT_PTR_NULL (g);
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_PARSE));
  if (error)
    {
      CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "longer than the limit"));
      printf ("\n    1 GiB string: refused in %.1f s, peak memory +%ld MB: %s\n", seconds, grew,
              error->message);
    }
  CU_ASSERT_TRUE (seconds < 60);
  CU_ASSERT_TRUE (grew < 512);
  g_clear_error (&error);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* A run of blanks of exactly the limit (64 MiB) loads; one more blank is
 * an error at the run's start (docs/graph-format.md, "Limits"), in memory
 * and from a file, the fast path first as loaders do. */
static void
test_long_blank_run (void)
{
  const gsize limit = (gsize) 64 << 20;
  static const char head[] = HEAD "\"nodes\": [" X ",";
  static const char tail[] = OUT "]}";
  char *dir = g_dir_make_tmp ("hostile-XXXXXX", NULL);
  char *path = g_build_filename (dir, "blanks.json", NULL);
  for (gsize extra = 0; extra < 2; extra++)
    {
      gsize n = limit + extra, len = strlen (head) + n + strlen (tail);
      char *doc = g_malloc (len + 1);
      memcpy (doc, head, strlen (head));
      memset (doc + strlen (head), ' ', n);
      memcpy (doc + strlen (head) + n, tail, strlen (tail) + 1);
      CU_ASSERT_TRUE_FATAL (g_file_set_contents (path, doc, (gssize) len, NULL));
      gint64 start = g_get_monotonic_time ();
      for (int from_file = 0; from_file < 2; from_file++)
        {
          GError *error = NULL;
          FxsGraph *g = from_file ? fxs_graph_load_file (path, &error)
                                  : fxs_graph_load_data (doc, len, path, &error);
          CU_ASSERT_EQUAL (g != NULL, extra == 0);
          fxs_graph_unref (g);
          if (extra)
            {
              char *where = g_strdup_printf ("%s:1:%zu: nodes: a run of blanks longer than the "
                                             "limit of 67108864 bytes", path, strlen (head) + 1);
              CU_ASSERT_TRUE (error && strcmp (error->message, where) == 0);
              if (error && strcmp (error->message, where) != 0)
                fprintf (stderr, "\n  got: %s\n  expected: %s\n", error->message, where);
              g_free (where);
            }
          g_clear_error (&error);
        }
      printf ("\n    %zu blanks: %s twice in %.1f s", n, extra ? "refused" : "loaded",
              (g_get_monotonic_time () - start) / 1e6);
      g_free (doc);
    }
  printf ("\n");
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

static void
test_big_numbers (void)
{
  static const char *const too_big[] = {
    "9223372036854775808", "-9223372036854775809", "340282366920938463463374607431768211456",
    "-99999999999999999999999999999999999999999999999999999999999999999999999999",
  };
  for (guint i = 0; i < G_N_ELEMENTS (too_big); i++)
    {
      char *text = g_strdup_printf (HEAD "\"nodes\": [" X ", {\"name\": \"a\", \"op\": "
                                    "\"call_function\", \"target\": \"f\", \"args\": [%s]}, " OUT "]}",
                                    too_big[i]);
      expect_load_error_str (text, FXS_ERROR_FORMAT, "64");
      g_free (text);
    }
  expect_load_error_str (HEAD "\"nodes\": [" X ", {\"name\": \"a\", \"op\": \"call_function\", "
                         "\"target\": \"f\", \"args\": [1e999]}, " OUT "]}",
                         FXS_ERROR_FORMAT, "out of the range of a float");
  expect_load_error_str (HEAD "\"nodes\": [" X ", " OUT "], \"partitions\": [{\"name\": \"0\", "
                         "\"id\": 18446744073709551616, \"submodule\": \"submod_0\"}]}",
                         FXS_ERROR_FORMAT, "64");
  /* the extremes themselves are fine */
  const char ok[] = HEAD "\"nodes\": [" X ", {\"name\": \"a\", \"op\": \"call_function\", "
                    "\"target\": \"f\", \"args\": [9223372036854775807, -9223372036854775808]}, "
                    OUT "]}";
  FxsGraph *g = fxs_graph_load_data (ok, strlen (ok), "ok.json", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  const FxsValue *args = fxs_node_args (fxs_graph_lookup_node (g, "a"));
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (args, 0)), G_MAXINT64);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (args, 1)), G_MININT64);
  fxs_graph_unref (g);
}

static void
test_invalid_utf8 (void)
{
  static const char *const bad[] = {
    "\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\x80", "\xe2\x82",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      char *text = g_strdup_printf (HEAD "\"nodes\": [{\"name\": \"x%s\", \"op\": \"placeholder\", "
                                    "\"target\": \"x\"}, " OUT "]}", bad[i]);
      expect_load_error_str (text, FXS_ERROR_PARSE, "UTF");
      g_free (text);
    }
}

static void
test_duplicate_keys (void)
{
  expect_load_error_str (HEAD "\"nodes\": [" X ", " OUT "], \"nodes\": []}", FXS_ERROR_FORMAT,
                         "duplicate key");
  expect_load_error_str (HEAD "\"nodes\": [{\"name\": \"x\", \"name\": \"y\", \"op\": \"placeholder\", "
                         "\"target\": \"x\"}, " OUT "]}", FXS_ERROR_FORMAT, "duplicate key");
  expect_load_error_str (HEAD "\"attributes\": {\"w\": {\"kind\": \"parameter\"}, "
                         "\"w\": {\"kind\": \"buffer\"}}, \"nodes\": [" X ", " OUT "]}",
                         FXS_ERROR_FORMAT, "duplicate key");
  expect_load_error_str (HEAD "\"nodes\": [" X ", {\"name\": \"a\", \"op\": \"call_function\", "
                         "\"target\": \"f\", \"kwargs\": {\"k\": 1, \"k\": 2}}, " OUT "]}",
                         FXS_ERROR_FORMAT, "duplicate key");
  expect_load_error_str (HEAD "\"nodes\": [" X ", " OUT "], \"qualname_map\": {\"a\": \"b\", "
                         "\"a\": \"c\"}}", FXS_ERROR_FORMAT, "duplicate key");
}

static void
test_self_reference (void)
{
  expect_load_error_str (HEAD "\"nodes\": [" X ", {\"name\": \"a\", \"op\": \"call_function\", "
                         "\"target\": \"f\", \"args\": [{\"node\": \"a\"}]}, " OUT "]}",
                         FXS_ERROR_GRAPH, "refers to itself");
  expect_load_error_str (HEAD "\"nodes\": [" X ", {\"name\": \"a\", \"op\": \"call_function\", "
                         "\"target\": \"f\", \"kwargs\": {\"k\": [{\"node\": \"b\"}]}}, "
                         "{\"name\": \"b\", \"op\": \"call_function\", \"target\": \"f\", "
                         "\"args\": [{\"node\": \"a\"}]}, " OUT "]}",
                         FXS_ERROR_GRAPH, "comes later");
  /* and through the API: a node cannot be given itself, it does not exist yet */
  FxsGraph *g = fxs_graph_new ();
  FxsGraph *other = fxs_graph_new ();
  const FxsNode *foreign = fxs_graph_add_node (other, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, NULL);
  const FxsValue *ref = fxs_value_new_node (g, foreign);
  GError *error = NULL;
  CU_ASSERT_PTR_NULL (fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, "a", "f",
                                          fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &ref, 1),
                                          NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_GRAPH));
  g_clear_error (&error);
  fxs_graph_unref (other);
  fxs_graph_unref (g);
}

static void
ignore_log (FxsLogLevel level, const char *line, gpointer data)
{
  (void) level;
  (void) line;
  (void) data;
}

/* Writes @text as DIR/NAME.ini and prepares it (with the examples' graph). */
static FxsPipeline *
prepare_pipeline (const char *dir, const char *text, GError **error)
{
  char *path = g_build_filename (dir, "p.ini", NULL);
  g_file_set_contents (path, text, -1, NULL);
  FxsPluginRegistry *registry = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (registry);
  FxsPipeline *p = fxs_pipeline_load_file (registry, path, error);
  fxs_plugin_registry_unref (registry);
  g_unlink (path);
  g_free (path);
  if (!p)
    return NULL;
  fxs_pipeline_set_log_func (p, ignore_log, NULL);
  FxsGraph *graph = fxs_graph_load_file (FXS_TEST_EXAMPLES_DIR "/graphs/docstring.json", NULL);
  fxs_pipeline_set_graph (p, graph);
  fxs_graph_unref (graph);
  if (!fxs_pipeline_prepare (p, error))
    {
      fxs_pipeline_free (p);
      return NULL;
    }
  return p;
}

/* 200,000 output groups: checked and prepared in a few seconds (group and
 * key lookups, the duplicate-path check and the directory probes are
 * linear: 40,000 groups took 2.5 s and 200,000 over a minute when they
 * were not); two of them writing the same file is still found. */
static void
test_many_outputs (void)
{
  char *dir = g_dir_make_tmp ("hostile-XXXXXX", NULL);
  const guint n = 200000;
  GString *ini = g_string_new ("[partitioner]\nplugin = halves\n");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (ini, "[output o%u]\nplugin = json\npath = out-%u.json\n", i, i);
  gint64 start = g_get_monotonic_time ();
  GError *error = NULL;
  FxsPipeline *p = prepare_pipeline (dir, ini->str, &error);
  if (!p)
    fprintf (stderr, "\n%s\n", error->message);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_EQUAL (fxs_pipeline_n_outputs (p), n);
  CU_ASSERT_TRUE (fxs_pipeline_split (p, &error));
  fxs_pipeline_free (p);
  double prepared = (g_get_monotonic_time () - start) / 1e6;

  g_string_append_printf (ini, "[output last]\nplugin = json\npath = out-%u.json\n", n / 2);
  start = g_get_monotonic_time ();
  p = prepare_pipeline (dir, ini->str, &error);
  double refused = (g_get_monotonic_time () - start) / 1e6;
  CU_ASSERT_PTR_NULL (p);
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_CONFIG));
  if (error)
    {
      CU_ASSERT_PTR_NULL (strchr (error->message, '\n'));
      CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "[output last] json: path: "));
      CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "is also written by [output o100000]"));
    }
  printf ("\n    200,000 outputs: prepared and split in %.2f s; a repeated path refused in %.2f s\n",
          prepared, refused);
  /* ~8 s each on the 2-core build machine shared with other jobs */
  CU_ASSERT_TRUE (prepared < 30 && refused < 30);
  g_clear_error (&error);
  g_string_free (ini, TRUE);
  g_rmdir (dir);
  g_free (dir);
}

/* A chain of @n relu nodes, node i with the meta {"w": VALUE}, VALUE
 * printed from i by @format (every node's meta differs from the others). */
static double
seconds_to_load_metas (guint n, const char *format)
{
  GString *text = g_string_new (HEAD "\"nodes\": [" X);
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (text, ", {\"name\": \"r%u\", \"op\": \"call_function\", "
                              "\"target\": \"torch.relu\", \"args\": [{\"node\": \"", i);
      if (i == 0)
        g_string_append (text, "x");
      else
        g_string_append_printf (text, "r%u", i - 1);
      g_string_append (text, "\"}], \"meta\": {\"w\": ");
      g_string_append_printf (text, format, i);
      g_string_append (text, "}}");
    }
  g_string_append_printf (text, ", {\"name\": \"output\", \"op\": \"output\", \"target\": "
                          "\"output\", \"args\": [{\"node\": \"r%u\"}]}]}", n - 1);
  gint64 start = g_get_monotonic_time ();
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (text->str, text->len, "metas.json", &error);
  double seconds = (g_get_monotonic_time () - start) / 1e6;
  CU_ASSERT_PTR_NOT_NULL (g);
  if (g)
    CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), n + 2);
  fxs_graph_unref (g);
  g_clear_error (&error);
  g_string_free (text, TRUE);
  return seconds;
}

/* Metas that differ only in a float, one per node (a per-node cost, a
 * scale): equal metas are stored once, and the table that finds them must
 * not put all of these in one chain.  It did when floats were hashed by
 * kind alone: 200,000 such nodes took 17 s to load against 0.3 s. */
static void
test_metas_differing_in_a_float (void)
{
  const guint n = 100000;
  double ints = seconds_to_load_metas (n, "%u");
  double floats = seconds_to_load_metas (n, "%u.5");
  printf ("\n    %u distinct metas: ints loaded in %.2f s, floats in %.2f s\n", n, ints, floats);
  CU_ASSERT_TRUE (floats < MAX (5 * ints, 1.0));
}

/* A partitioner returning the largest and smallest 64-bit ids. */
static void
test_extreme_ids (void)
{
  char *dir = g_dir_make_tmp ("hostile-XXXXXX", NULL);
  GError *error = NULL;
  FxsPipeline *p = prepare_pipeline (dir, "[partitioner]\nplugin = extreme-ids\n", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_TRUE_FATAL (fxs_pipeline_split (p, &error));
  const FxsSplitResult *r = fxs_pipeline_result (p);
  CU_ASSERT_EQUAL_FATAL (fxs_split_result_n_partitions (r), 2);
  const FxsPartition *first = fxs_split_result_partition (r, 0);
  const FxsPartition *second = fxs_split_result_partition (r, 1);
  CU_ASSERT_EQUAL (fxs_partition_id (first), G_MININT64);
  CU_ASSERT_EQUAL (fxs_partition_id (second), G_MAXINT64);
  CU_ASSERT_STRING_EQUAL (fxs_partition_submod_name (first), "submod_-9223372036854775808");
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (second), "9223372036854775807");
  CU_ASSERT_TRUE (fxs_split_result_verify (r, &error));
  g_clear_error (&error);
  fxs_pipeline_free (p);

  /* the other way round: the largest id is called first (the smallest
   * takes its values), in dependency order, not id order */
  p = prepare_pipeline (dir, "[partitioner]\nplugin = extreme-ids\norder = descending\n", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_TRUE_FATAL (fxs_pipeline_split (p, &error));
  r = fxs_pipeline_result (p);
  CU_ASSERT_EQUAL (fxs_partition_id (fxs_split_result_partition (r, 0)), G_MAXINT64);
  CU_ASSERT_EQUAL (fxs_partition_id (fxs_split_result_partition (r, 1)), G_MININT64);
  CU_ASSERT_TRUE (fxs_split_result_verify (r, &error));
  g_clear_error (&error);
  fxs_pipeline_free (p);
  g_rmdir (dir);
  g_free (dir);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_deep_nesting),
    FXS_TEST (test_huge_string),
    FXS_TEST (test_long_blank_run),
    FXS_TEST (test_big_numbers),
    FXS_TEST (test_invalid_utf8),
    FXS_TEST (test_duplicate_keys),
    FXS_TEST (test_self_reference),
    FXS_TEST (test_many_outputs),
    FXS_TEST (test_extreme_ids),
    FXS_TEST (test_metas_differing_in_a_float),
    { NULL, NULL },
  };
  fxs_test_add_suite ("hostile", cases);
}

FXS_TEST_MAIN (register_tests)
