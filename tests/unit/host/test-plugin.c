/* Unit tests of the plugin host: the search path, loading and checking
 * plugins (with the test-only plugins of tests/plugins), option parsing.
 * The meson test sets FXSPLIT_PLUGIN_PATH to the build tree's plugin
 * directories and FXSPLIT_NO_DEFAULT_PLUGIN_DIR=1. */
#include <fxsplit/fxsplit.h>
#include <fxsplit/pipeline.h>
#include <fxsplit/partitioner.h>
#include <glib/gstdio.h>
#include <string.h>

#include "host/host-private.h"
#include "../test-util.h"

static FxsPluginRegistry *
test_registry (void)
{
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (r);
  return r;
}

/* Loads @name and checks that it fails with @code and a message holding
 * every string of @parts. */
static void
assert_load_fails (const char *name, FxsErrorCode code, const char *const *parts)
{
  FxsPluginRegistry *r = test_registry ();
  GError *error = NULL;
  CU_ASSERT_PTR_NULL (fxs_plugin_registry_load (r, name, NULL, &error));
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  CU_ASSERT_EQUAL (error->code, (gint) code);
  CU_ASSERT_PTR_NULL (strchr (error->message, '\n'));
  for (const char *const *p = parts; *p; p++)
    if (!strstr (error->message, *p))
      {
        fprintf (stderr, "\n'%s' not in: %s\n", *p, error->message);
        CU_FAIL ("message lacks an expected part");
      }
  g_error_free (error);
  fxs_plugin_registry_unref (r);
}

static void
test_search_order (void)
{
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_dir (r, FXS_PLUGIN_DIR_INSTALLED, "/opt/installed");
  fxs_plugin_registry_add_dir (r, FXS_PLUGIN_DIR_PIPELINE, "/pipe");
  fxs_plugin_registry_add_dir (r, FXS_PLUGIN_DIR_COMMAND_LINE, "/cli/a");
  fxs_plugin_registry_add_dir (r, FXS_PLUGIN_DIR_ENVIRONMENT, "/env");
  fxs_plugin_registry_add_dir (r, FXS_PLUGIN_DIR_COMMAND_LINE, "/cli/b/");
  fxs_plugin_registry_add_dir (r, FXS_PLUGIN_DIR_ENVIRONMENT, "/cli/a");  /* duplicate */
  const char *expected[] = { "/cli/a", "/cli/b", "/env", "/pipe", "/opt/installed" };
  const FxsPluginDirSource sources[] = {
    FXS_PLUGIN_DIR_COMMAND_LINE, FXS_PLUGIN_DIR_COMMAND_LINE, FXS_PLUGIN_DIR_ENVIRONMENT,
    FXS_PLUGIN_DIR_PIPELINE, FXS_PLUGIN_DIR_INSTALLED,
  };
  CU_ASSERT_EQUAL_FATAL (fxs_plugin_registry_n_dirs (r), G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      FxsPluginDirSource source;
      CU_ASSERT_STRING_EQUAL (fxs_plugin_registry_dir (r, i, &source), expected[i]);
      CU_ASSERT_EQUAL (source, sources[i]);
    }
  fxs_plugin_registry_unref (r);
}

static void
test_default_dirs (void)
{
  /* The test environment keeps the installed directory out. */
  FxsPluginRegistry *r = test_registry ();
  for (guint i = 0; i < fxs_plugin_registry_n_dirs (r); i++)
    {
      FxsPluginDirSource source;
      fxs_plugin_registry_dir (r, i, &source);
      CU_ASSERT_EQUAL (source, FXS_PLUGIN_DIR_ENVIRONMENT);
    }
  CU_ASSERT_TRUE (fxs_plugin_registry_n_dirs (r) >= 2);
  fxs_plugin_registry_unref (r);
}

static void
test_load_builtin (void)
{
  FxsPluginRegistry *r = test_registry ();
  GError *error = NULL;
  const FxsPlugin *modulo = fxs_plugin_registry_load (r, "modulo", NULL, &error);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (modulo);
  CU_ASSERT_EQUAL (fxs_plugin_kind (modulo), FXS_PLUGIN_PARTITIONER);
  CU_ASSERT_STRING_EQUAL (fxs_plugin_name (modulo), "modulo");
  CU_ASSERT_EQUAL (fxs_plugin_n_options (modulo), 1);
  CU_ASSERT_STRING_EQUAL (fxs_plugin_option (modulo, 0)->key, "partitions");
  guint major = 0, minor = 99;
  fxs_plugin_abi (modulo, &major, &minor);
  CU_ASSERT_EQUAL (major, FXS_PLUGIN_ABI_MAJOR);
  CU_ASSERT_EQUAL (minor, FXS_PLUGIN_ABI_MINOR);
  /* Loaded once: by name again, and by its path. */
  CU_ASSERT_PTR_EQUAL (fxs_plugin_registry_load (r, "modulo", NULL, NULL), modulo);
  char *path = g_strdup (fxs_plugin_path (modulo));
  CU_ASSERT_PTR_EQUAL (fxs_plugin_registry_load (r, path, NULL, NULL), modulo);
  /* A relative path is relative to the base directory; ".so" may be left out. */
  char *dir = g_path_get_dirname (path);
  CU_ASSERT_PTR_EQUAL (fxs_plugin_registry_load (r, "./modulo", dir, NULL), modulo);
  g_free (dir);
  g_free (path);

  const FxsPlugin *json = fxs_plugin_registry_load (r, "json", NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (json);
  CU_ASSERT_EQUAL (fxs_plugin_kind (json), FXS_PLUGIN_OUTPUT);
  CU_ASSERT_EQUAL (fxs_plugin_option (json, 0)->flags & FXS_OPTION_REQUIRED, FXS_OPTION_REQUIRED);
  fxs_plugin_registry_unref (r);
}

static void
test_list_modules (void)
{
  FxsPluginRegistry *r = test_registry ();
  GPtrArray *modules = fxs_plugin_registry_list_modules (r);
  gboolean found[3] = { FALSE, FALSE, FALSE };
  const char *names[3] = { "/json.so", "/map.so", "/modulo.so" };
  for (guint i = 0; i < modules->len; i++)
    {
      for (guint k = 0; k < 3; k++)
        found[k] |= g_str_has_suffix (modules->pdata[i], names[k]);
      if (i > 0)
        CU_ASSERT_TRUE (strcmp (strrchr (modules->pdata[i - 1], '/'),
                                strrchr (modules->pdata[i], '/')) < 0);
    }
  CU_ASSERT_TRUE (found[0] && found[1] && found[2]);
  g_ptr_array_unref (modules);
  fxs_plugin_registry_unref (r);
}

static void
test_unknown_name (void)
{
  const char *parts[] = { "unknown plugin 'no-such-plugin'", "no-such-plugin.so",
                          "(FXSPLIT_PLUGIN_PATH)", NULL };
  assert_load_fails ("no-such-plugin", FXS_ERROR_PLUGIN_NOT_FOUND, parts);

  FxsPluginRegistry *empty = fxs_plugin_registry_new ();
  GError *error = NULL;
  CU_ASSERT_PTR_NULL (fxs_plugin_registry_load (empty, "modulo", NULL, &error));
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "search path is empty"));
  g_error_free (error);
  fxs_plugin_registry_unref (empty);

  const char *missing[] = { "/nonexistent/dir/x.so", "does not exist", NULL };
  assert_load_fails ("/nonexistent/dir/x.so", FXS_ERROR_PLUGIN_NOT_FOUND, missing);
}

static void
test_broken_plugins (void)
{
  const char *no_callback[] = { "no-callback.so", "does not export split_callback", NULL };
  assert_load_fails ("no-callback", FXS_ERROR_PLUGIN_INVALID, no_callback);
  const char *no_descriptor[] = { "no-descriptor.so", "no fxsplit descriptor", NULL };
  assert_load_fails ("no-descriptor", FXS_ERROR_PLUGIN_INVALID, no_descriptor);
  const char *major[] = { "abi-major.so", "built for plugin ABI 2.0, host is 1.1", NULL };
  assert_load_fails ("abi-major", FXS_ERROR_PLUGIN_ABI, major);
  const char *minor[] = { "abi-minor.so", "built for plugin ABI 1.2", "newer fxsplit", NULL };
  assert_load_fails ("abi-minor", FXS_ERROR_PLUGIN_ABI, minor);
  const char *needs[] = { "needs-lib.so", "libfxstest-missing.so.1",
                          "cannot open shared object file", NULL };
  assert_load_fails ("needs-lib", FXS_ERROR_PLUGIN_INVALID, needs);
}

static void
test_not_a_shared_object (void)
{
  char *dir = g_dir_make_tmp ("fxsplit-test-XXXXXX", NULL);
  char *text = g_build_filename (dir, "text.so", NULL);
  char *elf = g_build_filename (dir, "truncated.so", NULL);
  g_file_set_contents (text, "this is not a plugin\n", -1, NULL);
  g_file_set_contents (elf, "\177ELF\002\001\001", 7, NULL);
  const char *parts_text[] = { text, "not a shared object", NULL };
  assert_load_fails (text, FXS_ERROR_PLUGIN_INVALID, parts_text);
  const char *parts_elf[] = { elf, "not a shared object", NULL };
  assert_load_fails (elf, FXS_ERROR_PLUGIN_INVALID, parts_elf);
  const char *parts_dir[] = { "is a directory", NULL };
  char *as_dir = g_build_filename (dir, "dir.so", NULL);
  g_mkdir (as_dir, 0755);
  assert_load_fails (as_dir, FXS_ERROR_PLUGIN_INVALID, parts_dir);
  g_rmdir (as_dir);
  g_unlink (text);
  g_unlink (elf);
  g_rmdir (dir);
  g_free (as_dir);
  g_free (text);
  g_free (elf);
  g_free (dir);
}

static void
test_option_parse (void)
{
  FxsOptionValue v;
  GError *error = NULL;
  CU_ASSERT_TRUE (fxs_option_parse (FXS_OPTION_INT, "-42", NULL, &v, NULL));
  CU_ASSERT_EQUAL (v.i, -42);
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_INT, "4x", NULL, &v, &error));
  CU_ASSERT_STRING_EQUAL (error->message, "expected an integer, got '4x'");
  g_clear_error (&error);
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_INT, "", NULL, &v, NULL));
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_INT, " 1", NULL, &v, NULL));
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_INT, "99999999999999999999", NULL, &v, &error));
  CU_ASSERT_PTR_NOT_NULL (strstr (error->message, "64-bit"));
  g_clear_error (&error);
  CU_ASSERT_TRUE (fxs_option_parse (FXS_OPTION_FLOAT, "2.5e-1", NULL, &v, NULL));
  CU_ASSERT_DOUBLE_EQUAL (v.f, 0.25, 0);
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_FLOAT, "nan", NULL, &v, NULL));
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_FLOAT, "1,5", NULL, &v, NULL));
  const char *truthy[] = { "true", "Yes", "on", "1" }, *falsy[] = { "false", "NO", "off", "0" };
  for (guint i = 0; i < 4; i++)
    {
      CU_ASSERT_TRUE (fxs_option_parse (FXS_OPTION_BOOL, truthy[i], NULL, &v, NULL) && v.b);
      CU_ASSERT_TRUE (fxs_option_parse (FXS_OPTION_BOOL, falsy[i], NULL, &v, NULL) && !v.b);
    }
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_BOOL, "maybe", NULL, &v, &error));
  CU_ASSERT_STRING_EQUAL (error->message, "expected true or false, got 'maybe'");
  g_clear_error (&error);
  CU_ASSERT_TRUE (fxs_option_parse (FXS_OPTION_PATH, "../b/c.json", "/a/x", &v, NULL));
  CU_ASSERT_STRING_EQUAL (v.text, "/a/b/c.json");
  g_free (v.text);
  CU_ASSERT_TRUE (fxs_option_parse (FXS_OPTION_OUTPUT_PATH, "/abs/o.json", "/a", &v, NULL));
  CU_ASSERT_STRING_EQUAL (v.text, "/abs/o.json");
  g_free (v.text);
  CU_ASSERT_FALSE (fxs_option_parse (FXS_OPTION_PATH, "", "/a", &v, NULL));
}

static void
test_options_set (void)
{
  static const FxsOptionSpec table[] = {
    { .key = "count", .type = FXS_OPTION_INT, .default_value = "3", .help = "n" },
    { .key = "name", .type = FXS_OPTION_STRING, .help = "s", .flags = FXS_OPTION_REQUIRED },
  };
  FxsOptions *o = fxs_options_new (table, 2, "/base");
  CU_ASSERT_EQUAL (fxs_options_get (o, "count", NULL)->i, 3);
  CU_ASSERT_PTR_NULL (fxs_options_get (o, "name", NULL));
  CU_ASSERT_PTR_EQUAL (fxs_options_missing_required (o), &table[1]);
  GError *error = NULL;
  CU_ASSERT_FALSE (fxs_options_set (o, "cuont", "4", NULL, &error));
  CU_ASSERT_STRING_EQUAL (error->message, "unknown option 'cuont' (valid: count, name)");
  g_clear_error (&error);
  CU_ASSERT_FALSE (fxs_options_set (o, "count", "four", NULL, &error));
  CU_ASSERT_STRING_EQUAL (error->message, "count: expected an integer, got 'four'");
  g_clear_error (&error);
  CU_ASSERT_EQUAL (fxs_options_get (o, "count", NULL)->i, 3);
  CU_ASSERT_TRUE (fxs_options_set (o, "count", "5", NULL, NULL));
  CU_ASSERT_TRUE (fxs_options_set (o, "name", "x", NULL, NULL));
  CU_ASSERT_EQUAL (fxs_options_get (o, "count", NULL)->i, 5);
  CU_ASSERT_PTR_NULL (fxs_options_missing_required (o));
  fxs_options_free (o);

  o = fxs_options_new (NULL, 0, NULL);
  CU_ASSERT_FALSE (fxs_options_set (o, "x", "1", NULL, &error));
  CU_ASSERT_STRING_EQUAL (error->message, "unknown option 'x' (valid: none)");
  g_clear_error (&error);
  fxs_options_free (o);
}

static void
test_precomputed_id (void)
{
  /* the split_callback body of partitioners that decide in prepare() */
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  FxsNode *x = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  FxsNode *y = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "y", "y", NULL, NULL, &error);
  g_assert_no_error (error);
  const gint64 ids[] = { G_MININT64, 7 };
  gint64 id = 0;
  CU_ASSERT_TRUE (fxs_partitioner_precomputed_id (ids, 2, y, &id, &error));
  CU_ASSERT_EQUAL (id, 7);
  CU_ASSERT_TRUE (fxs_partitioner_precomputed_id (ids, 2, x, &id, &error));
  CU_ASSERT_EQUAL (id, G_MININT64);
  /* a node beyond the prepared graph, or nothing prepared */
  CU_ASSERT_FALSE (fxs_partitioner_precomputed_id (ids, 1, y, &id, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "", "called for a graph it was not prepared for");
  g_clear_error (&error);
  CU_ASSERT_FALSE (fxs_partitioner_precomputed_id (NULL, 0, x, &id, &error));
  CU_ASSERT_PTR_NOT_NULL (error);
  g_clear_error (&error);
  CU_ASSERT_EQUAL (id, G_MININT64);
  fxs_graph_unref (g);
}

/* ---- what misbehaving plugins are refused for, and how they are shown --- */

static void
assert_escaped (const char *text, gsize max, const char *expected)
{
  char *got = fxs_text_escape (text, max);
  if (strcmp (got, expected) != 0)
    fprintf (stderr, "\nescaped: '%s', expected '%s'\n", got, expected);
  CU_ASSERT_STRING_EQUAL (got, expected);
  /* escaping again adds nothing */
  char *again = fxs_text_escape (got, 0);
  CU_ASSERT_STRING_EQUAL (again, got);
  g_free (again);
  g_free (got);
}

static void
test_text_escape (void)
{
  assert_escaped ("plain, ünïcode \\x41", 0, "plain, ünïcode \\x41");
  assert_escaped ("\033[31mred\r\nfxsplit: fake\t\x7f", 0,
                  "\\x1b[31mred\\r\\nfxsplit: fake\\t\\x7f");
  /* C1 controls, a bidi override, bytes that are not UTF-8 */
  assert_escaped ("a\xc2\x9b" "b\xe2\x80\xae" "c\xff\xc3", 0, "a\\u009bb\\u202ec\\xff\\xc3");
  assert_escaped (NULL, 0, "(no text)");
  assert_escaped ("", 10, "");
  /* cut at a character's boundary, saying how much */
  assert_escaped ("0123456789abc", 10, "0123456789 ... (3 bytes cut)");
  assert_escaped ("ééééé", 3, "éé ... (6 bytes cut)");
  gsize big = 50u << 20;
  char *huge = g_malloc (big + 1);
  memset (huge, 'x', big);
  huge[big] = '\0';
  char *shown = fxs_text_escape (huge, FXS_TEXT_MESSAGE_MAX);
  CU_ASSERT (strlen (shown) < FXS_TEXT_MESSAGE_MAX + 40);
  CU_ASSERT_PTR_NOT_NULL (strstr (shown, " ... (52427800 bytes cut)"));
  g_free (shown);
  g_free (huge);
}

static void
test_broken_descriptors (void)
{
  char *options = g_build_filename (FXS_TEST_HOSTILE_PLUGINS_DIR, "bad-options.so", NULL);
  char *name = g_build_filename (FXS_TEST_HOSTILE_PLUGINS_DIR, "bad-name.so", NULL);
  assert_load_fails (options, FXS_ERROR_PLUGIN_INVALID,
                     (const char *[]) { options, ": broken descriptor: the option table (0x1) "
                                        "does not point into", NULL });
  assert_load_fails (name, FXS_ERROR_PLUGIN_INVALID,
                     (const char *[]) { name, ": broken descriptor: the name (0x1)", NULL });
  g_free (options);
  g_free (name);
}

static gboolean
store_nothing (const FxsNode *node, gpointer data, gint64 *partition, GError **error)
{
  (void) node;
  (void) data;
  (void) partition;
  (void) error;
  return TRUE;
}

static void
test_unset_partition_id (void)
{
  char *input = g_build_filename (FXS_TEST_EXAMPLES_DIR, "graphs", "docstring.json", NULL);
  GError *error = NULL;
  /* the library's callback */
  FxsGraph *g = fxs_graph_load_file (input, &error);
  g_assert_no_error (error);
  CU_ASSERT_PTR_NULL (fxs_split (g, store_nothing, NULL, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_CALLBACK));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "",
                          "node 'add': the partition callback returned TRUE without storing a "
                          "partition id (or stored -9223372036854775000, the value reserved to "
                          "tell)");
  g_clear_error (&error);
  fxs_graph_unref (g);
  /* a plugin's, named */
  FxsPluginRegistry *r = test_registry ();
  FxsPipeline *p = fxs_pipeline_new (r);
  fxs_plugin_registry_unref (r);
  char *plugin = g_build_filename (FXS_TEST_HOSTILE_PLUGINS_DIR, "unset-id.so", NULL);
  fxs_pipeline_set (p, "graph", "input", input, NULL);
  fxs_pipeline_set (p, "partitioner", "plugin", plugin, NULL);
  CU_ASSERT_FALSE (fxs_pipeline_run (p, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_CALLBACK));
  CU_ASSERT_PTR_NOT_NULL (error ? strstr (error->message, "node 'add': partitioner 'unset-id': "
                                          "split_callback returned TRUE without storing") : NULL);
  g_clear_error (&error);
  fxs_pipeline_free (p);
  g_free (plugin);
  g_free (input);
}

static void
register_tests (void)
{
  static const FxsTestCase registry[] = {
    FXS_TEST (test_search_order), FXS_TEST (test_default_dirs), FXS_TEST (test_load_builtin),
    FXS_TEST (test_list_modules), FXS_TEST (test_unknown_name), { NULL, NULL },
  };
  static const FxsTestCase loading[] = {
    FXS_TEST (test_broken_plugins), FXS_TEST (test_not_a_shared_object),
    FXS_TEST (test_precomputed_id), FXS_TEST (test_broken_descriptors),
    FXS_TEST (test_unset_partition_id), FXS_TEST (test_text_escape), { NULL, NULL },
  };
  static const FxsTestCase options[] = {
    FXS_TEST (test_option_parse), FXS_TEST (test_options_set), { NULL, NULL },
  };
  fxs_test_add_suite ("registry", registry);
  fxs_test_add_suite ("loading", loading);
  fxs_test_add_suite ("options", options);
}

FXS_TEST_MAIN (register_tests)
