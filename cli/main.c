/* fxsplit: split torch.fx graphs into submodules with plugins. */
#include "cli.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "run", cli_cmd_run, "run a pipeline file: fxsplit run PIPELINE.ini [--set GROUP.KEY=VALUE]" },
  { "split", cli_cmd_split, "split a graph once: fxsplit split GRAPH.json --partitioner NAME --output NAME[:PATH]" },
  { "plugins", cli_cmd_plugins, "list plugins and their options: fxsplit plugins [NAME]" },
  { "inspect", cli_cmd_inspect, "summarize a graph file: fxsplit inspect GRAPH.json" },
  { "verify", cli_cmd_verify, "check a split against its original: fxsplit verify ORIGINAL.json SPLIT.json" },
  { "compare", cli_cmd_compare, "compare partitioners on one graph: fxsplit compare GRAPH.json -p NAME[:KEY=VALUE,...]..." },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: fxsplit COMMAND [OPTION...]\n\n"
                "Splits torch.fx graphs into submodules like torch.fx.passes.split_module,\n"
                "with partitioner and output plugins.\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\n'fxsplit COMMAND --help' shows a command's options; "
                "'fxsplit --version' the version.\n"
                "Exit status: 0 success, 1 usage or pipeline error, 2 input graph error,\n"
                "3 plugin error, 4 split error, 5 error writing the outputs.\n");
}

int
main (int argc, char **argv)
{
  cli_signals_install ();
  setlocale (LC_ALL, "");
  if (argc < 2)
    {
      print_usage (stderr);
      return CLI_EXIT_USAGE;
    }
  const char *command = argv[1];
  if (strcmp (command, "--help") == 0 || strcmp (command, "-h") == 0
      || strcmp (command, "help") == 0)
    {
      print_usage (stdout);
      return CLI_EXIT_OK;
    }
  if (strcmp (command, "--version") == 0 || strcmp (command, "-V") == 0)
    {
      printf ("fxsplit %s (plugin ABI %d.%d, graph format %d)\n", FXSPLIT_VERSION,
              FXS_PLUGIN_ABI_MAJOR, FXS_PLUGIN_ABI_MINOR, FXS_GRAPH_FORMAT_VERSION);
      return CLI_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (command, commands[i].name) == 0)
      {
        /* The subcommand sees "fxsplit run ..." as its argv[0] for --help. */
        char *prgname = g_strdup_printf ("fxsplit %s", command);
        g_set_prgname (prgname);
        int code = commands[i].run (argc - 1, argv + 1);
        g_free (prgname);
        return code;
      }
  return cli_fail (CLI_EXIT_USAGE, "unknown command '%s' (commands: run, split, plugins, inspect, verify, compare; "
                   "see fxsplit --help)", command);
}
