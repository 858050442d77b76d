/* The built-in partitioners as plugins, through the host: their option
 * tables, the errors of bad options (one line naming the instance, the
 * plugin and the option), their log lines and whole runs on builder
 * graphs. */
#include <fxsplit/fxsplit.h>
#include <fxsplit/pipeline.h>
#include <string.h>

#include "../test-partitioners-graphs.h"
#include "../test-util.h"

static void
collect_log (FxsLogLevel level, const char *line, gpointer data)
{
  g_string_append_printf (data, "%d %s\n", (int) level, line);
}

/* A pipeline on @graph with the partitioner @plugin and the options
 * "key=value" in @options (NULL-terminated). */
static FxsPipeline *
pipeline (FxsGraph *graph, const char *plugin, const char *const *options, GString *log)
{
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (r);
  FxsPipeline *p = fxs_pipeline_new (r);
  fxs_plugin_registry_unref (r);
  fxs_pipeline_set_graph (p, graph);
  fxs_pipeline_set (p, "partitioner", "plugin", plugin, NULL);
  for (const char *const *o = options; o && *o; o++)
    {
      char **kv = g_strsplit (*o, "=", 2);
      fxs_pipeline_set (p, "partitioner", kv[0], kv[1], NULL);
      g_strfreev (kv);
    }
  if (log)
    fxs_pipeline_set_log_func (p, collect_log, log);
  return p;
}

static void
assert_contains (const char *text, const char *part)
{
  if (!strstr (text, part))
    {
      fprintf (stderr, "\n'%s' not in: %s\n", part, text);
      CU_FAIL ("an expected part is missing");
    }
}

/* Running fails with @code and a one-line message holding @part. */
static void
assert_run_fails (const char *plugin, const char *const *options, FxsErrorCode code,
                  const char *part)
{
  GRand *rng = g_rand_new_with_seed (1);
  FxsGraph *g = tp_random_dag (rng, 20);
  FxsPipeline *p = pipeline (g, plugin, options, NULL);
  GError *error = NULL;
  CU_ASSERT_FALSE (fxs_pipeline_run (p, &error));
  CU_ASSERT_PTR_NOT_NULL_FATAL (error);
  if (!g_error_matches (error, FXS_ERROR, code))
    fprintf (stderr, "\ncode %d, expected %d: %s\n", error->code, code, error->message);
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, code));
  CU_ASSERT_PTR_NULL (strchr (error->message, '\n'));
  assert_contains (error->message, part);
  g_error_free (error);
  fxs_pipeline_free (p);
  fxs_graph_unref (g);
  g_rand_free (rng);
}

static void
test_descriptors (void)
{
  static const struct { const char *name; const char *keys; } plugins[] = {
    { "balanced", "stages cost capacity speed bandwidth" },
    { "buckets", "bucket_bytes_cap first_bucket_cap" },
    { "splitpoints", "begin_at end_after pipe_split allow_unmatched" },
    { "capability", "allow backends deny non_compute_ops min_size getitem_with_producer ids" },
    { "mincut", "parts cost tolerance passes seed algorithm coarsest tries" },
  };
  FxsPluginRegistry *r = fxs_plugin_registry_new ();
  fxs_plugin_registry_add_default_dirs (r);
  for (guint i = 0; i < G_N_ELEMENTS (plugins); i++)
    {
      GError *error = NULL;
      const FxsPlugin *plugin = fxs_plugin_registry_load (r, plugins[i].name, NULL, &error);
      CU_ASSERT_PTR_NOT_NULL_FATAL (plugin);
      CU_ASSERT_EQUAL (fxs_plugin_kind (plugin), FXS_PLUGIN_PARTITIONER);
      CU_ASSERT_STRING_EQUAL (fxs_plugin_name (plugin), plugins[i].name);
      char **keys = g_strsplit (plugins[i].keys, " ", -1);
      CU_ASSERT_EQUAL (fxs_plugin_n_options (plugin), g_strv_length (keys));
      for (guint k = 0; keys[k]; k++)
        {
          const FxsOptionSpec *spec = fxs_plugin_option (plugin, k);
          CU_ASSERT_STRING_EQUAL (spec->key, keys[k]);
          CU_ASSERT_TRUE (spec->help && *spec->help);
        }
      g_strfreev (keys);
    }
  fxs_plugin_registry_unref (r);
}

static void
test_option_errors (void)
{
  const char *stages0[] = { "stages=0", NULL };
  assert_run_fails ("balanced", stages0, FXS_ERROR_OPTION,
                    "balanced: stages: must be between 1 and 2147483647, got 0");
  const char *badcost[] = { "stages=2", "cost=time", NULL };
  assert_run_fails ("balanced", badcost, FXS_ERROR_OPTION,
                    "balanced: cost: unknown cost kind 'time' "
                    "(valid: nodes, param_bytes, output_bytes, flops)");
  assert_run_fails ("balanced", NULL, FXS_ERROR_OPTION, "stages");
  const char *caps[] = { "stages=3", "capacity=1GiB, 2GiB", NULL };
  assert_run_fails ("balanced", caps, FXS_ERROR_OPTION,
                    "balanced: capacity: 2 values for 3 stages (give one per stage)");
  const char *badcap[] = { "stages=2", "capacity=1GiB, 1XB", NULL };
  assert_run_fails ("balanced", badcap, FXS_ERROR_OPTION, "balanced: capacity: value 2 '1XB' is not a size");
  const char *speed[] = { "stages=2", "speed=1,0", NULL };
  assert_run_fails ("balanced", speed, FXS_ERROR_OPTION,
                    "balanced: speed: value 2 '0' is not a positive number");
  const char *speeds[] = { "stages=1", "speed=1,2", NULL };
  assert_run_fails ("balanced", speeds, FXS_ERROR_OPTION, "balanced: speed: 2 values for 1 stage (give");
  const char *bw[] = { "stages=2", "bandwidth=-1", NULL };
  assert_run_fails ("balanced", bw, FXS_ERROR_OPTION, "balanced: bandwidth: must be a positive number, got -1");
  /* The random DAG's first call node reads a 128-byte graph input. */
  const char *tiny[] = { "stages=2", "capacity=1B, 100B", NULL };
  assert_run_fails ("balanced", tiny, FXS_ERROR_PLUGIN_FAILED,
                    "balanced: capacity: call node 'n0' alone needs ");

  const char *badsize[] = { "bucket_bytes_cap=25XB", NULL };
  assert_run_fails ("buckets", badsize, FXS_ERROR_OPTION, "buckets: bucket_bytes_cap: '25XB' is not a size (");
  const char *negative[] = { "first_bucket_cap=-1", NULL };
  assert_run_fails ("buckets", negative, FXS_ERROR_OPTION, "buckets: first_bucket_cap: '-1' is not a size");
  const char *first[] = { "bucket_bytes_cap=1MiB", "first_bucket_cap=2MiB", NULL };
  assert_run_fails ("buckets", first, FXS_ERROR_OPTION,
                    "buckets: first_bucket_cap: 2097152 bytes is more than bucket_bytes_cap (1048576 bytes)");

  const char *kind[] = { "begin_at=name:a op:relu", NULL };
  assert_run_fails ("splitpoints", kind, FXS_ERROR_OPTION,
                    "splitpoints: begin_at: unknown selector kind 'op' in 'op:relu'");
  const char *nomatch[] = { "end_after=module:nowhere.*", NULL };
  assert_run_fails ("splitpoints", nomatch, FXS_ERROR_PLUGIN_FAILED,
                    "splitpoints: end_after: 'module:nowhere.*' matches no call node");

  assert_run_fails ("capability", NULL, FXS_ERROR_OPTION,
                    "capability: set exactly one of 'allow' (one backend) and 'backends' "
                    "(several)");
  const char *min0[] = { "allow=function:add", "min_size=0", NULL };
  assert_run_fails ("capability", min0, FXS_ERROR_OPTION,
                    "capability: min_size: must be at least 1, got 0");
  const char *ids[] = { "allow=function:add", "ids=random", NULL };
  assert_run_fails ("capability", ids, FXS_ERROR_OPTION,
                    "capability: ids: unknown scheme 'random' (valid: order, supported_first)");
  const char *deny[] = { "allow=function:add", "deny=function:", NULL };
  assert_run_fails ("capability", deny, FXS_ERROR_OPTION,
                    "capability: deny: 'function:' has an empty pattern");

  const char *parts0[] = { "parts=-3", NULL };
  assert_run_fails ("mincut", parts0, FXS_ERROR_OPTION,
                    "mincut: parts: must be between 1 and 2147483647, got -3");
  const char *tol[] = { "parts=2", "tolerance=-0.5", NULL };
  assert_run_fails ("mincut", tol, FXS_ERROR_OPTION,
                    "mincut: tolerance: must be between 0 and 1e6, got -0.5");
  const char *passes[] = { "parts=2", "passes=100000", NULL };
  assert_run_fails ("mincut", passes, FXS_ERROR_OPTION,
                    "mincut: passes: must be between 0 and 1000, got 100000");
  const char *algorithm[] = { "parts=2", "algorithm=metis", NULL };
  assert_run_fails ("mincut", algorithm, FXS_ERROR_OPTION,
                    "mincut: algorithm: must be multilevel or refine, got 'metis'");
  const char *coarsest[] = { "parts=2", "coarsest=1", NULL };
  assert_run_fails ("mincut", coarsest, FXS_ERROR_OPTION,
                    "mincut: coarsest: must be between 2 and 1000000, got 1");
  const char *tries[] = { "parts=2", "tries=0", NULL };
  assert_run_fails ("mincut", tries, FXS_ERROR_OPTION,
                    "mincut: tries: must be between 1 and 1000, got 0");
  const char *typo[] = { "parts=2", "tolerence=0.1", NULL };
  assert_run_fails ("mincut", typo, FXS_ERROR_OPTION, "tolerence");
}

/* Runs @plugin on a random DAG; returns the number of partitions. */
static guint
run (const char *plugin, const char *const *options, guint n_calls, GString *log)
{
  GRand *rng = g_rand_new_with_seed (n_calls);
  FxsGraph *g = tp_random_dag (rng, n_calls);
  FxsPipeline *p = pipeline (g, plugin, options, log);
  GError *error = NULL;
  gboolean ok = fxs_pipeline_run (p, &error);
  if (error)
    fprintf (stderr, "\n%s\n", error->message);
  CU_ASSERT_TRUE (ok);
  g_clear_error (&error);
  guint n = ok ? fxs_split_result_n_partitions (fxs_pipeline_result (p)) : 0;
  fxs_pipeline_free (p);
  fxs_graph_unref (g);
  g_rand_free (rng);
  return n;
}

static void
test_runs (void)
{
  GString *log = g_string_new (NULL);
  const char *balanced[] = { "stages=4", "cost=flops", NULL };
  CU_ASSERT_EQUAL (run ("balanced", balanced, 200, log), 4);
  assert_contains (log->str, "[partitioner] balanced: 4 stages, bottleneck ");
  /* The random graphs leave some shapes out: said once, with an example. */
  assert_contains (log->str, "0 [partitioner] balanced: ");
  assert_contains (log->str, "call nodes have no known flops cost (the first is '");

  g_string_truncate (log, 0);
  const char *few[] = { "stages=50", NULL };
  CU_ASSERT_EQUAL (run ("balanced", few, 7, log), 7);
  assert_contains (log->str, "50 stages asked for, but the graph has only 7 call nodes");

  g_string_truncate (log, 0);
  const char *mincut[] = { "parts=3", "cost=output_bytes", "seed=4", NULL };
  CU_ASSERT_EQUAL (run ("mincut", mincut, 300, log), 3);
  assert_contains (log->str, "[partitioner] mincut: 3 partitions, cut ");
  const char *refine[] = { "parts=3", "algorithm=refine", "coarsest=8", "tries=2", NULL };
  CU_ASSERT_EQUAL (run ("mincut", refine, 300, log), 3);
  assert_contains (log->str, "bytes, not counted in the cut");

  g_string_truncate (log, 0);
  const char *cap[] = { "allow=function:add function:relu", "min_size=2", NULL };
  CU_ASSERT_TRUE (run ("capability", cap, 100, log) > 1);
  assert_contains (log->str, "supported partition");

  const char *sp[] = { "begin_at=name:n10 name:n20", "end_after=name:n30", NULL };
  CU_ASSERT_EQUAL (run ("splitpoints", sp, 40, NULL), 4);
  g_string_free (log, TRUE);
}

/* Graphs without call nodes, and with no shapes at all: nothing to split,
 * nothing unknown to crash on. */
static void
test_degenerate_graphs (void)
{
  static const char *const balanced[] = { "stages=3", "cost=flops", NULL };
  static const char *const splitpoints[] = { "begin_at=name:*", "allow_unmatched=true", NULL };
  static const char *const capability[] = { "allow=function:*", "min_size=5", NULL };
  static const char *const mincut[] = { "parts=4", "cost=param_bytes", NULL };
  static const char *const *const options[] = { balanced, splitpoints, capability, mincut };
  static const char *const plugins[] = { "balanced", "splitpoints", "capability", "mincut" };
  for (guint i = 0; i < G_N_ELEMENTS (plugins); i++)
    for (guint shape = 0; shape < 2; shape++)
      {
        FxsGraph *g = fxs_graph_new ();
        const FxsNode *last = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
        for (guint k = 0; shape == 1 && k < 5; k++)
          {
            char name[8];
            g_snprintf (name, sizeof name, "n%u", k);
            last = tp_call (g, FXS_OP_CALL_FUNCTION, name, "torch.relu", last, NULL);
          }
        tp_output (g, last);
        FxsPipeline *p = pipeline (g, plugins[i], options[i], NULL);
        GError *error = NULL;
        gboolean ok = fxs_pipeline_run (p, &error);
        if (error)
          fprintf (stderr, "\n%s: %s\n", plugins[i], error->message);
        CU_ASSERT_TRUE (ok);
        g_clear_error (&error);
        if (ok)
          CU_ASSERT_EQUAL (fxs_split_result_n_partitions (fxs_pipeline_result (p)),
                           shape == 0 ? 0 : i == 0 ? 3 : i == 1 ? 5 : i == 3 ? 4 : 1);
        fxs_pipeline_free (p);
        fxs_graph_unref (g);
      }
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_descriptors),
    FXS_TEST (test_option_errors),
    FXS_TEST (test_runs),
    FXS_TEST (test_degenerate_graphs),
    { NULL, NULL },
  };
  fxs_test_add_suite ("partitioner plugins", cases);
}

FXS_TEST_MAIN (register_tests)
