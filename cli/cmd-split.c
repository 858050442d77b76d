/* fxsplit split GRAPH.json --partitioner NAME --output NAME[:PATH]... :
 * a one-off pipeline built from the command line. */
#include "cli.h"

#include <string.h>

typedef struct {
  GPtrArray *chain;        /* per --partitioner: GPtrArray* of its NAME, then its --option KEY=VALUEs */
  GPtrArray *early;        /* --options before the first --partitioner: the first one's */
  char **outputs;          /* --output NAME[:PATH] */
  char **output_options;   /* --output-option NAME.KEY=VALUE */
  gboolean keep_original_order;
  gboolean keep_original_node_name;
  gboolean no_keep_original_input_name;
  char *partition_affix;
  gboolean tuple_return;
  char *submodule;         /* --submodule: split this submodule of a split result */
  char *threads;           /* --threads N: [split] threads */
} SplitArgs;

static void
split_args_clear (SplitArgs *a)
{
  g_ptr_array_unref (a->chain);
  g_ptr_array_unref (a->early);
  g_strfreev (a->outputs);
  g_strfreev (a->output_options);
  g_free (a->partition_affix);
  g_free (a->submodule);
  g_free (a->threads);
}

/* Splits "KEY=VALUE"; FALSE (after saying so) when there is no '=' or key. */
static gboolean
split_assignment (const char *flag, const char *text, char **key, const char **value)
{
  const char *eq = strchr (text, '=');
  if (!eq || eq == text)
    {
      cli_fail (CLI_EXIT_USAGE, "%s '%s': expected KEY=VALUE", flag, text);
      return FALSE;
    }
  *key = g_strndup (text, eq - text);
  *value = eq + 1;
  return TRUE;
}

/* --partitioner and --option in command-line order: an --option belongs to
 * the --partitioner before it (GOption hands callbacks only the main
 * group's data, which is CliCommon's). */
static SplitArgs *parsing;

static gboolean
add_partitioner (const char *flag, const char *value, gpointer data, GError **error)
{
  (void) flag, (void) data, (void) error;
  GPtrArray *level = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (level, g_strdup (value));
  g_ptr_array_add (parsing->chain, level);
  return TRUE;
}

static gboolean
add_option (const char *flag, const char *value, gpointer data, GError **error)
{
  (void) flag, (void) data, (void) error;
  GPtrArray *chain = parsing->chain;
  g_ptr_array_add (chain->len ? g_ptr_array_index (chain, chain->len - 1) : parsing->early,
                   g_strdup (value));
  return TRUE;
}

/* The group of the @k-th --partitioner: [partitioner], then [partitioner
 * NAME] after the plugin (NAME-2, ... when it comes again). */
static char *
partitioner_group (GPtrArray *groups, const char *plugin)
{
  if (!groups->len)
    return g_strdup ("partitioner");
  char *base = g_path_get_basename (plugin);
  if (g_str_has_suffix (base, ".so"))
    base[strlen (base) - 3] = '\0';
  char *group = g_strdup_printf ("partitioner %s", base);
  for (guint n = 2; g_ptr_array_find_with_equal_func (groups, group, g_str_equal, NULL); n++)
    {
      g_free (group);
      group = g_strdup_printf ("partitioner %s-%u", base, n);
    }
  g_free (base);
  return group;
}

/* Sets the --option KEY=VALUEs @list[@from..] in @group. */
static gboolean
set_options (FxsPipeline *pipeline, const char *group, const GPtrArray *list, guint from)
{
  for (guint i = from; i < list->len; i++)
    {
      char *key;
      const char *value;
      if (!split_assignment ("--option", list->pdata[i], &key, &value))
        return FALSE;
      char *origin = g_strdup_printf ("--option %s", key);
      fxs_pipeline_set (pipeline, group, key, value, origin);
      g_free (origin);
      g_free (key);
    }
  return TRUE;
}

static gboolean
add_partitioners (FxsPipeline *pipeline, const SplitArgs *a)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = TRUE;
  for (guint k = 0; k < a->chain->len && ok; k++)
    {
      GPtrArray *level = a->chain->pdata[k];
      char *group = partitioner_group (groups, level->pdata[0]);
      fxs_pipeline_set (pipeline, group, "plugin", level->pdata[0], "--partitioner");
      ok = (k || set_options (pipeline, group, a->early, 0)) && set_options (pipeline, group, level, 1);
      g_ptr_array_add (groups, group);
    }
  g_ptr_array_unref (groups);
  return ok;
}

static gboolean
add_outputs (FxsPipeline *pipeline, const SplitArgs *a, GPtrArray *groups)
{
  for (char **o = a->outputs; o && *o; o++)
    {
      const char *colon = strchr (*o, ':');
      char *plugin = colon ? g_strndup (*o, colon - *o) : g_strdup (*o);
      if (*plugin == '\0')
        {
          g_free (plugin);
          cli_fail (CLI_EXIT_USAGE, "--output '%s': expected NAME[:PATH]", *o);
          return FALSE;
        }
      /* The group is named after the plugin; a second use gets a number. */
      char *group = g_strdup_printf ("output %s", plugin);
      for (guint n = 2; g_ptr_array_find_with_equal_func (groups, group, g_str_equal, NULL); n++)
        {
          g_free (group);
          group = g_strdup_printf ("output %s-%u", plugin, n);
        }
      char *origin = g_strdup_printf ("--output %s", *o);
      fxs_pipeline_set (pipeline, group, "plugin", plugin, origin);
      if (colon)
        fxs_pipeline_set (pipeline, group, "path", colon + 1, origin);
      g_ptr_array_add (groups, group);
      g_free (origin);
      g_free (plugin);
    }
  for (char **o = a->output_options; o && *o; o++)
    {
      char *lhs;
      const char *value;
      if (!split_assignment ("--output-option", *o, &lhs, &value))
        return FALSE;
      const char *dot = strrchr (lhs, '.');
      char *group = dot ? g_strdup_printf ("output %.*s", (int) (dot - lhs), lhs) : NULL;
      if (!group || !g_ptr_array_find_with_equal_func (groups, group, g_str_equal, NULL))
        {
          cli_fail (CLI_EXIT_USAGE, "--output-option '%s': expected OUTPUT.KEY=VALUE where "
                    "OUTPUT is the name of an --output", *o);
          g_free (group);
          g_free (lhs);
          return FALSE;
        }
      char *origin = g_strdup_printf ("--output-option %s", lhs);
      fxs_pipeline_set (pipeline, group, dot + 1, value, origin);
      g_free (origin);
      g_free (group);
      g_free (lhs);
    }
  return TRUE;
}

static gboolean
build_pipeline (FxsPipeline *pipeline, const char *graph, const SplitArgs *a)
{
  fxs_pipeline_set (pipeline, "graph", "input", graph, NULL);
  if (!add_partitioners (pipeline, a))
    return FALSE;
  const struct { const char *key; gboolean on; const char *value; } flags[] = {
    { "keep_original_order", a->keep_original_order, "true" },
    { "keep_original_node_name", a->keep_original_node_name, "true" },
    { "keep_original_input_name", a->no_keep_original_input_name, "false" },
    { "tuple_return", a->tuple_return, "true" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    if (flags[i].on)
      fxs_pipeline_set (pipeline, "split", flags[i].key, flags[i].value, NULL);
  if (a->partition_affix)
    fxs_pipeline_set (pipeline, "split", "partition_affix", a->partition_affix, NULL);
  if (a->threads)
    cli_set_threads (pipeline, a->threads);
  GPtrArray *groups = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = add_outputs (pipeline, a, groups);
  g_ptr_array_unref (groups);
  return ok;
}

int
cli_cmd_split (int argc, char **argv)
{
  CliCommon common = { 0 };
  SplitArgs a = { .chain = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref),
                  .early = g_ptr_array_new_with_free_func (g_free) };
  parsing = &a;
  const GOptionEntry entries[] = {
    { "partitioner", 'p', 0, G_OPTION_ARG_CALLBACK, (gpointer) add_partitioner,
      "The partitioner plugin (module name or path to a .so); again: a chain, each "
      "refining the partitions of the one before", "NAME" },
    { "option", 'o', 0, G_OPTION_ARG_CALLBACK, (gpointer) add_option,
      "Set an option of the --partitioner before it (repeatable)", "KEY=VALUE" },
    { "output", 'O', 0, G_OPTION_ARG_STRING_ARRAY, &a.outputs,
      "Write the result with output plugin NAME to PATH (repeatable)", "NAME[:PATH]" },
    { "output-option", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.output_options,
      "Set an option of an output (repeatable)", "NAME.KEY=VALUE" },
    { "keep-original-order", 0, 0, G_OPTION_ARG_NONE, &a.keep_original_order,
      "Keep the original node order in the top-level graph", NULL },
    { "keep-original-node-name", 0, 0, G_OPTION_ARG_NONE, &a.keep_original_node_name,
      "Keep original node names in the top-level graph", NULL },
    { "no-keep-original-input-name", 0, 0, G_OPTION_ARG_NONE, &a.no_keep_original_input_name,
      "Rename submodule inputs like split_module(keep_original_input_name=False)", NULL },
    { "partition-affix", 0, 0, G_OPTION_ARG_STRING, &a.partition_affix,
      "Name partitions AFFIX_ID and submodules submod_AFFIX_ID", "AFFIX" },
    { "tuple-return", 0, 0, G_OPTION_ARG_NONE, &a.tuple_return,
      "Submodules always return a tuple", NULL },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &a.threads,
      "Most threads for building the split's graphs (default 0: as many as "
      "processors)", "N" },
    { "submodule", 0, 0, G_OPTION_ARG_STRING, &a.submodule,
      "Split submodule NAME of GRAPH.json (a split result) instead of its top level",
      "NAME" },
    { NULL },
  };
  GOptionContext *context = g_option_context_new ("GRAPH.json - split a graph once");
  g_option_context_set_summary (context,
    "Splits GRAPH.json with one partitioner and writes the result with each --output,\n"
    "like a pipeline file with the same settings.  Example:\n"
    "  fxsplit split model.json --partitioner modulo --option partitions=2 \\\n"
    "      --output json:model.split.json");
  cli_add_common_options (context, &common);
  g_option_context_add_main_entries (context, entries, NULL);
  int code = CLI_EXIT_USAGE;
  if (!cli_parse (context, &argc, &argv))
    goto out;
  if (argc != 2)
    {
      cli_fail (CLI_EXIT_USAGE, "split: expected one graph file, got %d arguments (see --help)",
                argc - 1);
      goto out;
    }
  if (!a.chain->len)
    {
      cli_fail (CLI_EXIT_USAGE, "split: --partitioner NAME is required (see fxsplit plugins)");
      goto out;
    }
  FxsPluginRegistry *registry = cli_registry_new (&common);
  FxsPipeline *pipeline = fxs_pipeline_new (registry);
  fxs_plugin_registry_unref (registry);
  if (build_pipeline (pipeline, argv[1], &a))
    {
      GError *error = NULL;
      FxsGraph *graph = a.submodule
                        ? fxs_graph_load_submodule_file (argv[1], a.submodule, &error) : NULL;
      if (graph)
        fxs_pipeline_set_graph (pipeline, graph);
      g_clear_pointer (&graph, fxs_graph_unref);
      code = error ? cli_fail_error (CLI_EXIT_GRAPH, error) : cli_run_pipeline (pipeline, &common);
    }
  fxs_pipeline_free (pipeline);
out:
  split_args_clear (&a);
  cli_common_clear (&common);
  g_option_context_free (context);
  return code;
}
