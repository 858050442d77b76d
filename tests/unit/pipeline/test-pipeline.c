/* Unit tests of pipelines: reading INI files, checking groups, keys and
 * values with their lines, output paths, and runs with the built-in and
 * test-only plugins on examples/graphs/docstring.json. */
#include <fxsplit/fxsplit.h>
#include <fxsplit/pipeline.h>
#include <glib/gstdio.h>
#include <string.h>

#include "pipeline/pipeline-private.h"
#include "../test-util.h"

#define DOCSTRING_GRAPH FXS_TEST_EXAMPLES_DIR "/graphs/docstring.json"

/* A scratch directory per test, removed with everything in it. */
static char *
scratch_dir (void)
{
  return g_dir_make_tmp ("fxsplit-pipeline-XXXXXX", NULL);
}

static guint
count_entries (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (d && g_dir_read_name (d))
    n++;
  if (d)
    g_dir_close (d);
  return n;
}

static void
remove_tree (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        remove_tree (path);
      else
        g_unlink (path);
      g_free (path);
    }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
}

static char *
write_file (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);
  CU_ASSERT_TRUE (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static FxsPipeline *
load_pipeline (const char *path, GError **error)
{
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (r);
  FxsPipeline *p = fxs_pipeline_load_file (r, path, error);
  fxs_plugin_registry_unref (r);
  return p;
}

static void
assert_message (const GError *error, const char *const *parts)
{
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  CU_ASSERT_PTR_NULL (strchr (error->message, '\n'));
  for (const char *const *p = parts; *p; p++)
    if (!strstr (error->message, *p))
      {
        fprintf (stderr, "\n'%s' not in: %s\n", *p, error->message);
        CU_FAIL ("message lacks an expected part");
      }
}

/* Writes @text as pipeline.ini in a scratch directory and runs the steps
 * up to the first failure; checks that it fails with @code and @parts
 * ("@F" in a part stands for the file's path). */
static void
assert_pipeline_fails (const char *text, FxsErrorCode code, const char *const *parts)
{
  char *dir = scratch_dir ();
  char *path = write_file (dir, "pipeline.ini", text);
  GError *error = NULL;
  FxsPipeline *p = load_pipeline (path, &error);
  if (p)
    {
      CU_ASSERT_FALSE (fxs_pipeline_run (p, &error));
      fxs_pipeline_free (p);
    }
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  if (error->code != (gint) code)
    fprintf (stderr, "\ncode %d, expected %d: %s\n", error->code, code, error->message);
  CU_ASSERT_EQUAL (error->code, (gint) code);
  GPtrArray *expanded = g_ptr_array_new_with_free_func (g_free);
  for (const char *const *q = parts; *q; q++)
    {
      char **pieces = g_strsplit (*q, "@F", -1);
      g_ptr_array_add (expanded, g_strjoinv (path, pieces));
      g_strfreev (pieces);
    }
  g_ptr_array_add (expanded, NULL);
  assert_message (error, (const char *const *) expanded->pdata);
  g_ptr_array_unref (expanded);
  g_error_free (error);
  /* Nothing but the pipeline file is left behind. */
  CU_ASSERT_EQUAL (count_entries (dir), 1);
  remove_tree (dir);
  g_free (path);
  g_free (dir);
}

#define GRAPH_GROUP "[graph]\ninput = " DOCSTRING_GRAPH "\n"

static void
test_ini_syntax (void)
{
  const char *a[] = { "@F:3: expected '[group]', 'key = value' or a '#' comment, got 'oops'", NULL };
  assert_pipeline_fails ("[graph]\n# fine\noops\n", FXS_ERROR_CONFIG, a);
  const char *b[] = { "@F:2: a key outside of any group", NULL };
  assert_pipeline_fails ("\ninput = x\n", FXS_ERROR_CONFIG, b);
  const char *c[] = { "@F:3: group [graph] appears twice (first at line 1)", NULL };
  assert_pipeline_fails ("[graph]\n\n[graph]\n", FXS_ERROR_CONFIG, c);
  const char *d[] = { "@F:4: [split] tuple_return is set twice (first at line 2)", NULL };
  assert_pipeline_fails ("[split]\ntuple_return = true\n\n tuple_return=false\n",
                         FXS_ERROR_CONFIG, d);
  const char *e[] = { "@F:1: malformed group header '[graph'", NULL };
  assert_pipeline_fails ("[graph\n", FXS_ERROR_CONFIG, e);
  /* values as written: UTF-8, no escapes, no control characters */
  const char *f[] = { "@F:2: [split] partition_affix: the value is not UTF-8 text: 'a\\xff'", NULL };
  assert_pipeline_fails ("[split]\npartition_affix = a\xff\n", FXS_ERROR_CONFIG, f);
  const char *g[] = { "@F:2: [split] partition_affix: the value holds a control character "
                      "(U+0009)", NULL };
  assert_pipeline_fails ("[split]\npartition_affix = a\tb\n", FXS_ERROR_CONFIG, g);
  char *dir = scratch_dir ();
  char *path = write_file (dir, "escapes.ini", "[split]\npartition_affix = a\\nb \\t \n");
  FxsPipeline *p = load_pipeline (path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  const FxsPipelineSetting *affix
    = g_hash_table_lookup (fxs_pipeline_group (p, "split", NULL)->by_key, "partition_affix");
  CU_ASSERT_STRING_EQUAL (affix->value, "a\\nb \\t");
  fxs_pipeline_free (p);
  remove_tree (dir);
  g_free (path);
  g_free (dir);

  GError *error = NULL;
  CU_ASSERT_PTR_NULL (load_pipeline ("/nonexistent/p.ini", &error));
  const char *missing[] = { "/nonexistent/p.ini: cannot read: No such file or directory", NULL };
  assert_message (error, missing);
  CU_ASSERT_EQUAL (error->code, FXS_ERROR_IO);
  g_error_free (error);
}

static void
test_groups_and_keys (void)
{
  const char *group[] = { "@F:4: unknown group [partitoner] (valid: [graph], [split], "
                          "[partitioner], [partitioner NAME], [output NAME])", NULL };
  assert_pipeline_fails (GRAPH_GROUP "\n[partitoner]\nplugin = modulo\n", FXS_ERROR_CONFIG, group);
  const char *split_key[] = { "@F:5: [split] unknown key 'keep_order' (valid: "
                              "keep_original_order, keep_original_node_name, "
                              "keep_original_input_name, partition_affix, tuple_return, "
                              "threads)", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[split]\n\nkeep_order = true\n", FXS_ERROR_CONFIG, split_key);
  const char *graph_key[] = { "@F:3: [graph] unknown key 'inptu' (valid: input, plugin_dir)", NULL };
  assert_pipeline_fails ("[graph]\n\ninptu = g.json\n", FXS_ERROR_CONFIG, graph_key);
  const char *type[] = { "@F:4: [split] tuple_return: expected true or false, got 'sometimes'",
                         NULL };
  assert_pipeline_fails (GRAPH_GROUP "[split]\ntuple_return = sometimes\n", FXS_ERROR_CONFIG, type);
  const char *threads[] = { "@F:4: [split] threads: expected a number from 0 (as many as the "
                            "machine has processors) to 1024, got '-2'", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[split]\nthreads = -2\n", FXS_ERROR_CONFIG, threads);
  const char *no_part[] = { "@F: no [partitioner] group", NULL };
  assert_pipeline_fails (GRAPH_GROUP, FXS_ERROR_CONFIG, no_part);
  const char *no_plugin[] = { "@F:4: [partitioner] no 'plugin' key", NULL };
  assert_pipeline_fails (GRAPH_GROUP "\n[partitioner]\npartitions = 2\n", FXS_ERROR_CONFIG,
                         no_plugin);
  const char *no_input[] = { "@F: [graph] input is not set", NULL };
  assert_pipeline_fails ("[partitioner]\nplugin = modulo\n", FXS_ERROR_CONFIG, no_input);
  const char *no_name[] = { "@F:5: unknown group [output ]", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\n[output ]\n",
                         FXS_ERROR_CONFIG, no_name);
}

static void
test_plugin_options (void)
{
  const char *unknown[] = { "@F:6: [partitioner] modulo: unknown option 'partitons' "
                            "(valid: partitions)", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\n\npartitons = 2\n",
                         FXS_ERROR_OPTION, unknown);
  const char *type[] = { "@F:5: [partitioner] modulo: partitions: expected an integer, got 'two'",
                         NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\npartitions = two\n",
                         FXS_ERROR_OPTION, type);
  const char *init[] = { "@F:3: [partitioner] modulo: partitions must be at least 1, got 0", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\npartitions = 0\n",
                         FXS_ERROR_OPTION, init);
  const char *required[] = { "@F:5: [output main] json: option 'path' is required", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\n"
                         "[output main]\nplugin = json\n", FXS_ERROR_OPTION, required);
  const char *kind[] = { "@F:4: [partitioner] plugin 'json' is an output, not a partitioner", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = json\n", FXS_ERROR_CONFIG, kind);
  const char *unknown_plugin[] = { "@F:4: [partitioner] plugin: unknown plugin 'modulus'",
                                   "searched: ", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulus\n",
                         FXS_ERROR_PLUGIN_NOT_FOUND, unknown_plugin);
  const char *abi[] = { "@F:4: [partitioner] plugin: ", "abi-major.so: built for plugin ABI 2.0",
                        NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = abi-major\n", FXS_ERROR_PLUGIN_ABI,
                         abi);
  const char *init_fails[] = { "@F:3: [partitioner] init-fails: cannot start: the test says so",
                               NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = init-fails\n",
                         FXS_ERROR_PLUGIN_FAILED, init_fails);
  const char *dir[] = { "[graph] plugin_dir: '/nonexistent/plugins' is not a directory", NULL };
  assert_pipeline_fails (GRAPH_GROUP "plugin_dir = /nonexistent/plugins\n[partitioner]\n"
                         "plugin = modulo\n", FXS_ERROR_CONFIG, dir);
}

static void
test_output_paths (void)
{
  const char *no_dir[] = { "@F:7: [output main] json: path: cannot write",
                           "'/nonexistent/dir' does not exist", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\n[output main]\n"
                         "plugin = json\npath = /nonexistent/dir/out.json\n",
                         FXS_ERROR_CONFIG, no_dir);
  const char *twice[] = { "@F:10: [output second] json: path: ", "is also written by [output first]",
                          NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\n"
                         "[output first]\nplugin = json\npath = out.json\n"
                         "[output second]\nplugin = json\npath = ./sub/../out.json\n",
                         FXS_ERROR_CONFIG, twice);
  const char *is_dir[] = { "[output main] json: path: ", "is a directory", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\n[output main]\n"
                         "plugin = json\npath = .\n", FXS_ERROR_CONFIG, is_dir);
}

static void
test_split_failures (void)
{
  const char *callback[] = { "linear", "partitioner 'callback-fails': no partition for this node",
                             NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = callback-fails\n"
                         "[output main]\nplugin = json\npath = out.json\n",
                         FXS_ERROR_CALLBACK, callback);
  /* Round-robin over 2 on the docstring graph: add(0) -> linear(1) -> clamp(0). */
  const char *cycle[] = { "cycle", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\npartitions = 2\n"
                         "[output main]\nplugin = json\npath = out.json\n",
                         FXS_ERROR_CYCLE, cycle);
  /* json writes its file, then failing-output fails: neither file appears. */
  const char *write[] = { "@F:8: [output bad] failing-output: gave up half-way (test)", NULL };
  assert_pipeline_fails (GRAPH_GROUP "[partitioner]\nplugin = modulo\n"
                         "[output good]\nplugin = json\npath = good.json\n"
                         "[output bad]\nplugin = failing-output\npath = bad.txt\n",
                         FXS_ERROR_PLUGIN_FAILED, write);
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  CU_ASSERT_TRUE (g_file_get_contents (path, &text, NULL, NULL));
  return text ? text : g_strdup ("");
}

static void
collect_log (FxsLogLevel level, const char *line, gpointer data)
{
  g_string_append_printf (data, "%d %s\n", (int) level, line);
}

static void
test_run_and_options (void)
{
  char *dir = scratch_dir ();
  char *sub = g_build_filename (dir, "sub", NULL);
  g_mkdir (sub, 0755);
  char *ini = write_file (sub, "p.ini",
                          "[graph]\ninput = " DOCSTRING_GRAPH "\n"
                          "[split]\npartition_affix = part\n"
                          "[partitioner]\nplugin = halves  \n"
                          "[output one]\nplugin = echo-options\npath = one.txt\n"
                          "text = hello world\ncount = -3\nratio = 0.5\nflag = yes\n"
                          "input = ../data/in.txt\n"
                          "[output two]\nplugin = echo-options\npath = ../two.txt\n"
                          "[output json]\nplugin = json\npath = split.json\n");
  GError *error = NULL;
  FxsPipeline *p = load_pipeline (ini, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  /* A --set style override replaces the file's value. */
  fxs_pipeline_set (p, "output two", "count", "11", "--set output two.count");
  GString *log = g_string_new (NULL);
  fxs_pipeline_set_log_func (p, collect_log, log);
  gboolean ok = fxs_pipeline_run (p, &error);
  if (error)
    fprintf (stderr, "\n%s\n", error->message);
  CU_ASSERT_TRUE_FATAL (ok);
  CU_ASSERT_PTR_NOT_NULL (strstr (log->str, "1 [partitioner] halves: 6 call nodes"));

  const FxsSplitResult *result = fxs_pipeline_result (p);
  CU_ASSERT_EQUAL (fxs_split_result_n_partitions (result), 2);
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (fxs_split_result_partition (result, 0)), "part_0");
  CU_ASSERT_EQUAL (fxs_pipeline_n_outputs (p), 3);
  CU_ASSERT_STRING_EQUAL (fxs_pipeline_output_label (p, 0), "output one");
  CU_ASSERT_STRING_EQUAL (fxs_pipeline_output_plugin (p, 2), "json");
  CU_ASSERT_EQUAL (fxs_pipeline_output_n_files (p, 1), 1);

  char *one_path = g_build_filename (sub, "one.txt", NULL);
  char *two_path = g_build_filename (dir, "two.txt", NULL);
  char *json_path = g_build_filename (sub, "split.json", NULL);
  CU_ASSERT_STRING_EQUAL (fxs_pipeline_output_file (p, 0, 0), one_path);
  char *one = read_text (one_path);
  char *expected_one = g_strdup_printf ("label=output one\ntext=hello world\ncount=-3\n"
                                        "ratio=0.5\nflag=true\ninput=%s/data/in.txt\n", dir);
  CU_ASSERT_STRING_EQUAL (one, expected_one);
  char *two = read_text (two_path);
  CU_ASSERT_STRING_EQUAL (two, "label=output two\ntext=default text\ncount=11\nratio unset\n"
                               "flag=false\ninput unset\n");
  /* The json output is a graph file that loads back. */
  FxsGraph *top = fxs_graph_load_file (json_path, &error);
  CU_ASSERT_PTR_NOT_NULL (top);
  if (top)
    fxs_graph_unref (top);
  g_clear_error (&error);

  g_free (one);
  g_free (two);
  g_free (expected_one);
  g_free (one_path);
  g_free (two_path);
  g_free (json_path);
  g_string_free (log, TRUE);
  fxs_pipeline_free (p);
  remove_tree (dir);
  g_free (ini);
  g_free (sub);
  g_free (dir);
}

/* A pipeline without a file, of the default plugins, for @graph (whose
 * reference it takes over). */
static FxsPipeline *
pipeline_for (FxsGraph *graph)
{
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (r);
  FxsPipeline *p = fxs_pipeline_new (r);
  fxs_plugin_registry_unref (r);
  fxs_pipeline_set_graph (p, graph);
  fxs_graph_unref (graph);
  return p;
}

static void
test_programmatic (void)
{
  /* Embedders: no file, a graph given directly, settings by code. */
  GError *error = NULL;
  FxsGraph *graph = fxs_graph_load_file (DOCSTRING_GRAPH, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (graph);
  FxsPipeline *p = pipeline_for (graph);
  fxs_pipeline_set (p, "partitioner", "plugin", "modulo", NULL);
  fxs_pipeline_set (p, "partitioner", "partitions", "x", "--option partitions");
  CU_ASSERT_FALSE (fxs_pipeline_run (p, &error));
  const char *parts[] = { "--option partitions: [partitioner] modulo: partitions: expected an "
                          "integer, got 'x'", NULL };
  assert_message (error, parts);
  g_clear_error (&error);
  fxs_pipeline_set (p, "partitioner", "partitions", "3", NULL);
  CU_ASSERT_TRUE (fxs_pipeline_run (p, &error));
  CU_ASSERT_PTR_NULL (error);
  const FxsSplitResult *result = fxs_pipeline_result (p);
  CU_ASSERT_PTR_NOT_NULL_FATAL (result);
  /* split_module's docstring: add, linear, clamp, linear_1, clamp_1, add_1 round-robin. */
  CU_ASSERT_EQUAL (fxs_split_result_n_partitions (result), 3);
  const FxsGraph *g = fxs_pipeline_graph (p);
  CU_ASSERT_EQUAL (fxs_partition_id (fxs_split_result_partition_of (
                     result, fxs_graph_lookup_node (g, "linear_1"))), 0);
  CU_ASSERT_EQUAL (fxs_partition_id (fxs_split_result_partition_of (
                     result, fxs_graph_lookup_node (g, "add_1"))), 2);
  CU_ASSERT_EQUAL (fxs_pipeline_n_outputs (p), 0);
  fxs_pipeline_free (p);
}

static void
collect_progress (const char *step, guint64 done, guint64 total, gpointer data)
{
  g_string_append_printf (data, "%s %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\n", step, done,
                          total);
}

static void
test_progress (void)
{
  /* 70,000 call nodes: the split step reports 65,536 of them done, out of
   * all of them; each output is reported as it starts */
  GString *json = g_string_new ("{\"format\": \"fxsplit-graph\", \"version\": 1, \"nodes\": [\n"
                                "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"}");
  for (guint i = 0; i < 70000; i++)
    {
      char *before = i ? g_strdup_printf ("n%u", i - 1) : g_strdup ("x");
      g_string_append_printf (json, ",\n{\"name\": \"n%u\", \"op\": \"call_function\", "
                              "\"target\": \"torch.relu\", \"args\": [{\"node\": \"%s\"}]}",
                              i, before);
      g_free (before);
    }
  g_string_append (json, ",\n{\"name\": \"output\", \"op\": \"output\", \"target\": "
                         "\"output\", \"args\": [{\"node\": \"n69999\"}]}]}");
  GError *error = NULL;
  FxsGraph *graph = fxs_graph_load_data (json->str, json->len, "chain.json", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (graph);
  char *dir = scratch_dir ();
  FxsPipeline *p = pipeline_for (graph);
  fxs_pipeline_set (p, "partitioner", "plugin", "halves", NULL);
  char *out = g_build_filename (dir, "out.json", NULL);
  fxs_pipeline_set (p, "output a", "plugin", "json", NULL);
  fxs_pipeline_set (p, "output a", "path", out, NULL);
  fxs_pipeline_set (p, "output b", "plugin", "report", NULL);
  fxs_pipeline_set (p, "output b", "path", "-", NULL);
  GString *progress = g_string_new (NULL);
  fxs_pipeline_set_progress_func (p, collect_progress, progress);
  gboolean ok = fxs_pipeline_run (p, &error);
  if (error)
    fprintf (stderr, "\n%s\n", error->message);
  CU_ASSERT_TRUE (ok);
  CU_ASSERT_STRING_EQUAL (progress->str, "splitting 0/0\nsplitting 65536/70000\n"
                                         "writing 0/2\nwriting 1/2\n");
  g_string_free (progress, TRUE);
  fxs_pipeline_free (p);
  remove_tree (dir);
  g_free (out);
  g_free (dir);
  g_string_free (json, TRUE);
}

static void
test_staging (void)
{
  char *dir = scratch_dir ();
  char *a = g_build_filename (dir, "a.txt", NULL);
  char *b = g_build_filename (dir, "b.txt", NULL);
  GError *error = NULL;

  /* Aborted: nothing appears, no temporary file stays. */
  FxsStaging *staging = fxs_staging_new ();
  fputs ("a", fxs_staging_open (staging, a, "output one", NULL));
  CU_ASSERT_PTR_NULL (fxs_staging_open (staging, a, "output two", &error));
  const char *twice[] = { "a.txt: written twice in one run, by [output one] and by [output two]",
                          NULL };
  assert_message (error, twice);
  CU_ASSERT_EQUAL (error->code, FXS_ERROR_CONFIG);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (count_entries (dir), 1);  /* a's temporary file */
  fxs_staging_abort (staging);
  CU_ASSERT_EQUAL (count_entries (dir), 0);

  /* Committed: every file appears with its contents. */
  staging = fxs_staging_new ();
  fputs ("first", fxs_staging_open (staging, a, "output one", NULL));
  fputs ("second", fxs_staging_open (staging, b, "output two", NULL));
  CU_ASSERT_FALSE (g_file_test (a, G_FILE_TEST_EXISTS));
  CU_ASSERT_TRUE (fxs_staging_commit (staging, &error));
  char *text = read_text (b);
  CU_ASSERT_STRING_EQUAL (text, "second");
  g_free (text);
  CU_ASSERT_EQUAL (count_entries (dir), 2);

  remove_tree (dir);
  g_free (a);
  g_free (b);
  g_free (dir);
}

/* Small text files (fxsplit/text-file.h): the limit, NUL bytes, devices,
 * and excerpts for messages. */
static void
test_text_files (void)
{
  char *dir = g_dir_make_tmp ("fxsplit-text-XXXXXX", NULL);
  char *path = g_build_filename (dir, "t.txt", NULL);
  char *text = NULL;
  gsize len = 0;
  GError *error = NULL;
  g_file_set_contents (path, "0123456789", -1, NULL);
  CU_ASSERT_TRUE (fxs_text_file_read (path, "a test file", 10, &text, &len, &error));
  CU_ASSERT_EQUAL (len, 10);
  CU_ASSERT_STRING_EQUAL (text ? text : "", "0123456789");
  g_free (text);
  CU_ASSERT_FALSE (fxs_text_file_read (path, "a test file", 9, &text, &len, &error));
  CU_ASSERT_TRUE (error && g_str_has_suffix (error->message,
                                             ": larger than the limit of 9 bytes for a test file"));
  g_clear_error (&error);
  g_file_set_contents (path, "ab\0cd", 5, NULL);
  CU_ASSERT_FALSE (fxs_text_file_read (path, "a test file", 100, &text, &len, &error));
  CU_ASSERT_TRUE (error && strstr (error->message, "not a text file (it holds NUL bytes)"));
  g_clear_error (&error);
  CU_ASSERT_FALSE (fxs_text_file_read ("/dev/null", "a test file", 100, &text, &len, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_IO) && error
                  && strstr (error->message, "/dev/null: cannot read: it is a character device"));
  g_clear_error (&error);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);

  static const struct { const char *in; gssize len; const char *out; } excerpts[] = {
    { "plain", -1, "'plain'" },
    { "a'b\\c\n\t\x1b[0m\x7f", -1, "'a\\'b\\\\c\\n\\t\\x1b[0m\\x7f'" },
    { "caf\xc3\xa9 \xff\xc3", -1, "'caf\xc3\xa9 \\xff\\xc3'" },
    { "\xc2\x85", -1, "'\\u0085'" },                     /* a C1 control */
    { "a\xe2\x80\xae" "b", -1, "'a\\u202eb'" },          /* a bidi override */
    { "0123456789012345678901234567890123456789X", -1,
      "'0123456789012345678901234567890123456789'..." },
    { "ab\0cd", 5, "'ab\\x00cd'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (excerpts); i++)
    {
      char *got = fxs_text_excerpt (excerpts[i].in, excerpts[i].len);
      CU_ASSERT_STRING_EQUAL (got, excerpts[i].out);
      if (strcmp (got, excerpts[i].out) != 0)
        fprintf (stderr, "\n  excerpt %u: %s, expected %s\n", i, got, excerpts[i].out);
      g_free (got);
    }
}

static void
register_tests (void)
{
  static const FxsTestCase files[] = {
    FXS_TEST (test_ini_syntax), FXS_TEST (test_groups_and_keys), FXS_TEST (test_plugin_options),
    FXS_TEST (test_output_paths), FXS_TEST (test_text_files), { NULL, NULL },
  };
  static const FxsTestCase runs[] = {
    FXS_TEST (test_split_failures), FXS_TEST (test_run_and_options),
    FXS_TEST (test_programmatic), FXS_TEST (test_progress), FXS_TEST (test_staging), { NULL, NULL },
  };
  fxs_test_add_suite ("pipeline files", files);
  fxs_test_add_suite ("runs", runs);
}

FXS_TEST_MAIN (register_tests)
