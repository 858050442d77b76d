/* Unit tests of partitioner chains and partition labels through the host:
 * how refined ids and labels are composed, the label hook's checks, and
 * which descriptors have a label hook (ABI 1.0 and 1.1). */
#include <fxsplit/fxsplit.h>
#include <fxsplit/pipeline.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "host/host-private.h"
#include "../test-util.h"

#define DOCSTRING_GRAPH FXS_TEST_EXAMPLES_DIR "/graphs/docstring.json"

/* A pipeline of the test plugin world on the docstring graph
 * (add, linear, clamp, linear_1, clamp_1, add_1). */
static FxsPipeline *
docstring_pipeline (void)
{
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (r);
  FxsPipeline *p = fxs_pipeline_new (r);
  fxs_plugin_registry_unref (r);
  FxsGraph *graph = fxs_graph_load_file (DOCSTRING_GRAPH, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (graph);
  fxs_pipeline_set_graph (p, graph);
  fxs_graph_unref (graph);
  return p;
}

/* "id:label:node,node ..." per partition in call order, ';'-separated. */
static char *
describe (const FxsSplitResult *r)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < fxs_split_result_n_partitions (r); i++)
    {
      const FxsPartition *p = fxs_split_result_partition (r, i);
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT ":%s:", i ? ";" : "", fxs_partition_id (p),
                              fxs_partition_label (p) ? fxs_partition_label (p) : "-");
      for (guint k = 0; k < fxs_partition_n_nodes (p); k++)
        g_string_append_printf (s, "%s%s", k ? "," : "", fxs_node_name (fxs_partition_node (p, k)));
    }
  return g_string_free (s, FALSE);
}

static void
assert_run (FxsPipeline *p, const char *expected)
{
  GError *error = NULL;
  gboolean ok = fxs_pipeline_run (p, &error);
  if (!ok)
    fprintf (stderr, "\n%s\n", error->message);
  CU_ASSERT_TRUE_FATAL (ok);
  char *got = describe (fxs_pipeline_result (p));
  if (strcmp (got, expected) != 0)
    fprintf (stderr, "\nexpected %s\n     got %s\n", expected, got);
  CU_ASSERT_STRING_EQUAL (got, expected);
  g_free (got);
}

/* Runs the pipeline of @settings (group, key, value, ..., NULL) on the
 * docstring graph and compares its partitions with @expected. */
static void
assert_chain (const char *const *settings, const char *expected)
{
  FxsPipeline *p = docstring_pipeline ();
  for (const char *const *s = settings; *s; s += 3)
    fxs_pipeline_set (p, s[0], s[1], s[2], NULL);
  assert_run (p, expected);
  fxs_pipeline_free (p);
}

static void
test_one_level_keeps_ids_and_labels (void)
{
  const char *labelled[] = { "partitioner", "plugin", "labels", "partitioner", "partitions", "1",
                             NULL };
  assert_chain (labelled, "0:part 0:add,linear,clamp,linear_1,clamp_1,add_1");
  const char *modulo[] = { "partitioner", "plugin", "modulo", NULL };
  assert_chain (modulo, "0:-:add,linear_1;1:-:linear,clamp_1;2:-:clamp,add_1");
}

static void
test_refined_ids_and_labels (void)
{
  /* labelled parents, unlabelled pieces: "PARENT/PIECE-ID" */
  const char *halves[] = { "partitioner", "plugin", "labels", "partitioner", "partitions", "1",
                           "partitioner halves", "plugin", "balanced",
                           "partitioner halves", "stages", "2", NULL };
  assert_chain (halves, "0:part 0/0:add,linear,clamp;1:part 0/1:linear_1,clamp_1,add_1");
  /* unlabelled parents, labelled pieces, three levels: ids renumbered
   * parent by parent, pieces in ascending order of their ids; the engine
   * calls them in dependency order as ever (id 2 has no dependency) */
  const char *three[] = { "partitioner", "plugin", "balanced", "partitioner", "stages", "2",
                          "partitioner b", "plugin", "balanced", "partitioner b", "stages", "2",
                          "partitioner c", "plugin", "labels", "partitioner c", "partitions", "1",
                          NULL };
  assert_chain (three, "2:1/0/part 0:linear_1,clamp_1;0:0/0/part 0:add,linear;"
                       "1:0/1/part 0:clamp;3:1/1/part 0:add_1");
  /* parents in ascending order of their ids, not in call order: 1 (the
   * y branch) is called before 0 */
  char *map = NULL;
  int fd = g_file_open_tmp ("fxsplit-chain-XXXXXX", &map, NULL);
  CU_ASSERT_TRUE_FATAL (fd >= 0 && g_file_set_contents (map, "linear_1 1\nclamp_1 1\n", -1, NULL));
  close (fd);
  const char *by_id[] = { "partitioner", "plugin", "map", "partitioner", "file", map,
                          "partitioner", "default", "0", "partitioner b", "plugin", "balanced",
                          "partitioner b", "stages", "2", NULL };
  assert_chain (by_id, "2:1/0:linear_1;3:1/1:clamp_1;0:0/0:add,linear;1:0/1:clamp,add_1");
  g_unlink (map);
  g_free (map);
}

static void
test_bad_label_stops_the_run (void)
{
  const char *const modes[] = { "long", "not-utf8", "control", "empty" };
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    for (guint level = 0; level < 2; level++)
      {
        FxsPipeline *p = docstring_pipeline ();
        const char *group = level ? "partitioner bad" : "partitioner";
        if (level)
          fxs_pipeline_set (p, "partitioner", "plugin", "modulo", NULL);
        fxs_pipeline_set (p, group, "plugin", "labels", NULL);
        fxs_pipeline_set (p, group, "partitions", "1", NULL);
        fxs_pipeline_set (p, group, "label", modes[i], NULL);
        GError *error = NULL;
        CU_ASSERT_FALSE (fxs_pipeline_run (p, &error));
        CU_ASSERT_PTR_NOT_NULL_FATAL (error);
        CU_ASSERT_EQUAL (error->code, FXS_ERROR_PLUGIN_FAILED);
        CU_ASSERT_PTR_NULL (strchr (error->message, '\n'));
        char *where = g_strdup_printf ("[%s] labels: label of partition 0: it ", group);
        CU_ASSERT_PTR_NOT_NULL (strstr (error->message, where));
        CU_ASSERT_PTR_NULL (fxs_pipeline_result (p));
        g_free (where);
        g_error_free (error);
        fxs_pipeline_free (p);
      }
}

static void
test_label_hook_by_abi (void)
{
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (r);
  GError *error = NULL;
  const FxsPlugin *old = fxs_plugin_registry_load (r, "abi-1-0", NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (old);
  guint major, minor;
  fxs_plugin_abi (old, &major, &minor);
  CU_ASSERT_EQUAL (minor, 0);
  CU_ASSERT_PTR_NULL (old->label);
  const FxsPlugin *labels = fxs_plugin_registry_load (r, "labels", NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (labels);
  CU_ASSERT_PTR_NOT_NULL (labels->label);
  fxs_plugin_registry_unref (r);
  /* and the old plugin splits, unlabelled */
  const char *old_abi[] = { "partitioner", "plugin", "abi-1-0", NULL };
  assert_chain (old_abi, "0:-:add,linear,clamp,linear_1,clamp_1,add_1");
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_one_level_keeps_ids_and_labels), FXS_TEST (test_refined_ids_and_labels),
    FXS_TEST (test_bad_label_stops_the_run), FXS_TEST (test_label_hook_by_abi), { NULL, NULL },
  };
  fxs_test_add_suite ("chains and labels", cases);
}

FXS_TEST_MAIN (register_tests)
