/* Running a pipeline from the command line: steps, exit codes, progress,
 * log lines and the report of where each output went. */
#include "cli.h"
#include "cli-progress.h"

#include <sys/resource.h>
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
  /* host lines name files, plugins' lines are theirs: one short line each */
  char *shown = fxs_text_escape (line, CLI_LINE_MAX);
  cli_progress_print (sink->progress, shown);
  g_free (shown);
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

/* A file that cannot be written (a full disk) is an I/O error, two
 * outputs writing one file the pipeline's; any other failure is the
 * output plugin's. */
static CliExit
write_exit (const GError *e)
{
  return e->code == FXS_ERROR_IO       ? CLI_EXIT_IO
         : e->code == FXS_ERROR_CONFIG ? CLI_EXIT_USAGE
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
          char *path = cli_display_path (fxs_pipeline_output_file (pipeline, i, j));
          char *shown = fxs_text_escape (path, CLI_LINE_MAX);
          g_string_append_printf (files, "%s%s", j ? ", " : "", shown);
          g_free (shown);
          g_free (path);
        }
      printf ("[%s] %s: %s%s\n", fxs_pipeline_output_label (pipeline, i),
              fxs_pipeline_output_plugin (pipeline, i), n ? "wrote " : "wrote no file",
              files->str);
      g_string_free (files, TRUE);
    }
}

/* When a step started, and the process's peak memory then. */
typedef struct {
  gint64 usec;
  long peak_kib;
} StepMark;

static StepMark
mark_step (void)
{
  struct rusage usage;
  StepMark mark = { g_get_monotonic_time (), 0 };
  if (getrusage (RUSAGE_SELF, &usage) == 0)
    mark.peak_kib = usage.ru_maxrss; /* KiB on Linux */
  return mark;
}

/* Where the time and the memory went, from the marks at the start of each
 * step (prepare, load, split, write) and at the end. */
static void
report_steps (FxsPipeline *pipeline, const StepMark at[5])
{
  const FxsGraph *graph = fxs_pipeline_graph (pipeline);
  const FxsSplitResult *result = fxs_pipeline_result (pipeline);
  fprintf (stderr,
           "fxsplit: times: prepare %.3f s, load %.3f s (%u nodes), split %.3f s "
           "(%u partitions), write %.3f s, total %.3f s\n",
           (at[1].usec - at[0].usec) / 1e6, (at[2].usec - at[1].usec) / 1e6,
           graph ? fxs_graph_n_nodes (graph) : 0, (at[3].usec - at[2].usec) / 1e6,
           result ? fxs_split_result_n_partitions (result) : 0,
           (at[4].usec - at[3].usec) / 1e6, (at[4].usec - at[0].usec) / 1e6);
  fprintf (stderr,
           "fxsplit: peak memory: %.1f MiB after load, %.1f MiB after split, "
           "%.1f MiB after write\n",
           at[2].peak_kib / 1024.0, at[3].peak_kib / 1024.0, at[4].peak_kib / 1024.0);
}

CliExit
cli_split_pipeline (FxsPipeline *pipeline, const CliCommon *common, GError **error)
{
  CliProgress *progress = cli_progress_new (FALSE);
  LogSink sink = { common, progress };
  fxs_pipeline_set_log_func (pipeline, log_line, &sink);
  CliExit code = CLI_EXIT_OK;
  if (!fxs_pipeline_prepare (pipeline, error))
    code = prepare_exit (*error);
  else if (!fxs_pipeline_load_graph (pipeline, error))
    code = CLI_EXIT_GRAPH;
  else if (!fxs_pipeline_split (pipeline, error))
    code = split_exit (*error);
  fxs_pipeline_set_log_func (pipeline, NULL, NULL);
  cli_progress_free (progress);
  return code;
}

CliExit
cli_run_pipeline (FxsPipeline *pipeline, const CliCommon *common)
{
  gboolean show_progress = !common->quiet && isatty (STDERR_FILENO);
  CliProgress *progress = cli_progress_new (show_progress);
  LogSink sink = { common, progress };
  fxs_pipeline_set_log_func (pipeline, log_line, &sink);
  /* without a progress line the pipeline need not count for it */
  if (show_progress)
    fxs_pipeline_set_progress_func (pipeline, cli_progress_update, progress);

  GError *error = NULL;
  CliExit code = CLI_EXIT_OK;
  /* for -v: the start of each step (prepare, load, split, write), the end */
  StepMark at[5] = { mark_step () };
  if (!fxs_pipeline_prepare (pipeline, &error))
    code = prepare_exit (error);
  else if (at[1] = mark_step (), !fxs_pipeline_load_graph (pipeline, &error))
    code = CLI_EXIT_GRAPH;
  else if (at[2] = mark_step (), !fxs_pipeline_split (pipeline, &error))
    code = split_exit (error);
  else if (at[3] = mark_step (), !fxs_pipeline_write (pipeline, &error))
    code = write_exit (error);
  at[4] = mark_step ();
  cli_progress_free (progress);
  fxs_pipeline_set_log_func (pipeline, NULL, NULL);
  fxs_pipeline_set_progress_func (pipeline, NULL, NULL);
  if (error)
    return cli_fail_error (code, error);
  if (!common->quiet)
    report_outputs (pipeline);
  if (common->verbose >= 1 && !common->quiet)
    report_steps (pipeline, at);
  return CLI_EXIT_OK;
}
