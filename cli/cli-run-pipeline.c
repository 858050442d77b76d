/* Running a pipeline from the command line: steps, exit codes, progress,
 * log lines and the report of where each output went. */
#include "cli.h"
#include "cli-progress.h"

#include <unistd.h>

typedef struct {
  const CliCommon *common;
  CliProgress *progress;
} LogSink;

static void
log_line (FxsLogLevel level, const char *line, gpointer data)
{
  LogSink *sink = data;
  if (sink->common->quiet)
    return;
  if ((level == FXS_LOG_INFO && sink->common->verbose < 1)
      || (level == FXS_LOG_DEBUG && sink->common->verbose < 2))
    return;
  cli_progress_print (sink->progress, line);
}

/* Exit codes of each step's errors (docs/cli.md). */
static CliExit
prepare_exit (const GError *e)
{
  switch (e->code)
    {
    case FXS_ERROR_PLUGIN_NOT_FOUND:
    case FXS_ERROR_PLUGIN_ABI:
    case FXS_ERROR_PLUGIN_INVALID:
    case FXS_ERROR_PLUGIN_FAILED:
      return CLI_EXIT_PLUGIN;
    default:
      return CLI_EXIT_USAGE;
    }
}

static CliExit
split_exit (const GError *e)
{
  return e->code == FXS_ERROR_CALLBACK || e->code == FXS_ERROR_PLUGIN_FAILED ? CLI_EXIT_PLUGIN
                                                                              : CLI_EXIT_SPLIT;
}

/* A destination that cannot be written is the pipeline's problem; any
 * other failure is the output plugin's. */
static CliExit
write_exit (const GError *e)
{
  return e->code == FXS_ERROR_CONFIG || e->code == FXS_ERROR_IO ? CLI_EXIT_USAGE
                                                                 : CLI_EXIT_PLUGIN;
}

static void
report_outputs (const FxsPipeline *pipeline)
{
  for (guint i = 0; i < fxs_pipeline_n_outputs (pipeline); i++)
    {
      GString *files = g_string_new (NULL);
      guint n = fxs_pipeline_output_n_files (pipeline, i);
      for (guint j = 0; j < n; j++)
        {
          char *shown = cli_display_path (fxs_pipeline_output_file (pipeline, i, j));
          g_string_append_printf (files, "%s%s", j ? ", " : "", shown);
          g_free (shown);
        }
      printf ("[%s] %s: %s%s\n", fxs_pipeline_output_label (pipeline, i),
              fxs_pipeline_output_plugin (pipeline, i), n ? "wrote " : "wrote no file",
              files->str);
      g_string_free (files, TRUE);
    }
}

/* Where the time went, from the step start times @at (microseconds). */
static void
report_times (FxsPipeline *pipeline, const gint64 at[5])
{
  const FxsGraph *graph = fxs_pipeline_graph (pipeline);
  const FxsSplitResult *result = fxs_pipeline_result (pipeline);
  fprintf (stderr,
           "fxsplit: times: prepare %.3f s, load %.3f s (%u nodes), split %.3f s "
           "(%u partitions), write %.3f s, total %.3f s\n",
           (at[1] - at[0]) / 1e6, (at[2] - at[1]) / 1e6, graph ? fxs_graph_n_nodes (graph) : 0,
           (at[3] - at[2]) / 1e6, result ? fxs_split_result_n_partitions (result) : 0,
           (at[4] - at[3]) / 1e6, (at[4] - at[0]) / 1e6);
}

CliExit
cli_run_pipeline (FxsPipeline *pipeline, const CliCommon *common)
{
  CliProgress *progress = cli_progress_new (!common->quiet && isatty (STDERR_FILENO));
  LogSink sink = { common, progress };
  fxs_pipeline_set_log_func (pipeline, log_line, &sink);
  fxs_pipeline_set_progress_func (pipeline, cli_progress_update, progress);

  GError *error = NULL;
  CliExit code = CLI_EXIT_OK;
  /* step start times, for -v: prepare, load, split, write, end */
  gint64 at[5] = { g_get_monotonic_time (), 0, 0, 0, 0 };
  if (!fxs_pipeline_prepare (pipeline, &error))
    code = prepare_exit (error);
  else if (at[1] = g_get_monotonic_time (), !fxs_pipeline_load_graph (pipeline, &error))
    code = CLI_EXIT_GRAPH;
  else if (at[2] = g_get_monotonic_time (), !fxs_pipeline_split (pipeline, &error))
    code = split_exit (error);
  else if (at[3] = g_get_monotonic_time (), !fxs_pipeline_write (pipeline, &error))
    code = write_exit (error);
  at[4] = g_get_monotonic_time ();
  cli_progress_free (progress);
  fxs_pipeline_set_log_func (pipeline, NULL, NULL);
  fxs_pipeline_set_progress_func (pipeline, NULL, NULL);
  if (error)
    return cli_fail_error (code, error);
  if (!common->quiet)
    report_outputs (pipeline);
  if (common->verbose >= 1 && !common->quiet)
    report_times (pipeline, at);
  return CLI_EXIT_OK;
}
