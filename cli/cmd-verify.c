/* fxsplit verify ORIGINAL.json SPLIT.json: does the split compute the
 * original? (fxsplit/verify.h, docs/split-semantics.md) */
#include "cli.h"

#include <stdio.h>

int
cli_cmd_verify (int argc, char **argv)
{
  CliCommon common = { 0 };
  GOptionContext *context = g_option_context_new ("ORIGINAL.json SPLIT.json - check a split");
  g_option_context_set_summary (context,
    "Inlines every submodule of SPLIT.json (a split result) back into its top-level\n"
    "graph and checks that this computes ORIGINAL.json node for node, up to names.\n"
    "Exit status: 0 it does, 1 usage error, 2 a file cannot be read or is not a\n"
    "graph file, 4 the split differs (the first difference is printed).");
  cli_add_common_options (context, &common);
  int code = CLI_EXIT_USAGE;
  FxsGraph *original = NULL;
  FxsSplitFile *split = NULL;
  GError *error = NULL;
  if (!cli_parse (context, &argc, &argv))
    goto out;
  if (argc != 3)
    {
      cli_fail (CLI_EXIT_USAGE, "verify: expected the original graph file and the split result "
                "file, got %d arguments (see --help)", argc - 1);
      goto out;
    }
  original = fxs_graph_load_file (argv[1], &error);
  if (original)
    split = fxs_split_file_load (argv[2], &error);
  if (!split)
    {
      code = cli_fail_error (CLI_EXIT_GRAPH, error);
      goto out;
    }
  if (!fxs_split_file_verify (original, split, &error))
    {
      code = cli_fail (CLI_EXIT_SPLIT, "%s: not a split of %s: %s", argv[2], argv[1],
                       error->message);
      g_error_free (error);
      goto out;
    }
  if (!common.quiet)
    printf ("%s: a split of %s into %u submodules, computing each of its %u call nodes once\n",
            argv[2], argv[1], fxs_split_file_n_submodules (split),
            fxs_graph_count_op (original, FXS_OP_CALL_FUNCTION)
              + fxs_graph_count_op (original, FXS_OP_CALL_METHOD)
              + fxs_graph_count_op (original, FXS_OP_CALL_MODULE));
  code = CLI_EXIT_OK;
out:
  fxs_split_file_free (split);
  fxs_graph_unref (original);
  cli_common_clear (&common);
  g_option_context_free (context);
  return code;
}
