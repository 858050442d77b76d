/* fxsplit run PIPELINE.ini [--set group.key=value]... */
#include "cli.h"

#include <string.h>

/* Whether @assignment reads "GROUP.KEY=VALUE" (the group may contain
 * spaces: "output main.path=x"); says what is wrong when it does not. */
static gboolean
check_set (const char *assignment)
{
  const char *eq = strchr (assignment, '=');
  const char *dot = eq ? g_strrstr_len (assignment, eq - assignment, ".") : NULL;
  if (!dot || dot == assignment || dot + 1 == eq)
    {
      cli_fail (CLI_EXIT_USAGE, "--set '%s': expected GROUP.KEY=VALUE, e.g. "
                "--set partitioner.partitions=4", assignment);
      return FALSE;
    }
  return TRUE;
}

/* Applies a checked "GROUP.KEY=VALUE". */
static void
apply_set (FxsPipeline *pipeline, const char *assignment)
{
  const char *eq = strchr (assignment, '=');
  char *lhs = g_strndup (assignment, eq - assignment);
  const char *dot = strrchr (lhs, '.');
  char *group = g_strndup (lhs, dot - lhs);
  char *origin = g_strdup_printf ("--set %s", lhs);
  fxs_pipeline_set (pipeline, group, dot + 1, eq + 1, origin);
  g_free (origin);
  g_free (group);
  g_free (lhs);
}

int
cli_cmd_run (int argc, char **argv)
{
  CliCommon common = { 0 };
  char **sets = NULL;
  char *threads = NULL;
  const GOptionEntry entries[] = {
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a pipeline setting (repeatable)", "GROUP.KEY=VALUE" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads,
      "Most threads for building the split's graphs (as [split] threads; "
      "default 0: as many as processors)", "N" },
    { NULL },
  };
  GOptionContext *context = g_option_context_new ("PIPELINE.ini - run a split pipeline");
  g_option_context_set_summary (context,
    "Loads the graph named in the pipeline file, splits it with its [partitioner]\n"
    "and writes the result with each [output NAME].  See docs/cli.md.");
  cli_add_common_options (context, &common);
  g_option_context_add_main_entries (context, entries, NULL);
  int code = CLI_EXIT_USAGE;
  if (!cli_parse (context, &argc, &argv))
    goto out;
  if (argc != 2)
    {
      cli_fail (CLI_EXIT_USAGE, "run: expected one pipeline file, got %d arguments (see --help)",
                argc - 1);
      goto out;
    }
  for (char **s = sets; s && *s; s++)
    if (!check_set (*s))
      goto out;
  FxsPluginRegistry *registry = cli_registry_new (&common);
  GError *error = NULL;
  FxsPipeline *pipeline = fxs_pipeline_load_file (registry, argv[1], &error);
  fxs_plugin_registry_unref (registry);
  if (!pipeline)
    {
      code = cli_fail_error (CLI_EXIT_USAGE, error);
      goto out;
    }
  for (char **s = sets; s && *s; s++)
    apply_set (pipeline, *s);
  if (threads)
    cli_set_threads (pipeline, threads);
  code = cli_run_pipeline (pipeline, &common);
  fxs_pipeline_free (pipeline);
out:
  g_strfreev (sets);
  g_free (threads);
  cli_common_clear (&common);
  g_option_context_free (context);
  return code;
}
