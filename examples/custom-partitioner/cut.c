/* cut: an example partitioner written outside the fxsplit tree.
 *
 * It cuts the graph into consecutive pieces: every call node goes to the
 * current partition, and after each node whose target is one of the
 * targets in the option `after`, the next partition starts.  Because the
 * ids only grow in graph order, the partitions can never depend on each
 * other in a cycle.
 *
 * Build: make            (uses pkg-config fxsplit)
 * Use:   fxsplit split graph.json --plugin-dir . --partitioner cut \
 *            --option after=torch.relu --output json:out.json
 */
#include <fxsplit/partitioner.h>

#include <string.h>

/* The instance state: one per [partitioner] group, never a global, so two
 * pipelines can use the plugin with different options at once. */
typedef struct {
  char **after;          /* targets that end a partition */
  gint64 max_partitions; /* 0: no limit */
  gint64 current;        /* the partition being filled */
} Cut;

/* The options, checked by the host before init runs; `fxsplit plugins cut`
 * prints this table. */
static const FxsOptionSpec cut_options[] = {
  { .key = "after", .type = FXS_OPTION_STRING, .flags = FXS_OPTION_REQUIRED,
    .help = "comma-separated call targets (e.g. torch.relu,fc1) after which a new partition starts" },
  { .key = "max_partitions", .type = FXS_OPTION_INT, .default_value = "0",
    .help = "stop cutting once this many partitions exist (0: no limit)" },
  { NULL },
};

static void
cut_fini (gpointer state)
{
  Cut *cut = state;
  g_strfreev (cut->after);
  g_free (cut);
}

static gboolean
cut_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  gint64 max = fxs_plugin_option_int (ctx, "max_partitions");
  if (max < 0)
    {
      /* The host prefixes this with the pipeline file, line and plugin. */
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "max_partitions must be 0 or more, got %" G_GINT64_FORMAT, max);
      return FALSE;
    }
  Cut *cut = g_new0 (Cut, 1);
  cut->after = g_strsplit (fxs_plugin_option_string (ctx, "after"), ",", -1);
  for (char **t = cut->after; *t; t++)
    g_strstrip (*t);
  cut->max_partitions = max;
  *state = cut;
  return TRUE;
}

/* Runs before the first callback of every split: start again at 0. */
static gboolean
cut_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) error;
  Cut *cut = state;
  cut->current = 0;
  fxs_plugin_log (ctx, FXS_LOG_DEBUG, "cutting a graph of %u nodes", fxs_graph_n_nodes (graph));
  return TRUE;
}

/* What the host checks before calling anything. */
FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "cut",
    .version = "1.0",
    .description = "consecutive partitions, cut after the call nodes of the given targets",
    .options = cut_options,
    .init = cut_init,
    .fini = cut_fini,
  },
  .prepare = cut_prepare,
};

static gboolean
ends_partition (const Cut *cut, const FxsNode *node)
{
  for (char **t = cut->after; *t; t++)
    if (strcmp (fxs_node_target (node), *t) == 0)
      return TRUE;
  return FALSE;
}

/* Called once per call node, in graph order. */
FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) error;
  Cut *cut = state;
  *partition = cut->current;
  if (ends_partition (cut, node)
      && (cut->max_partitions == 0 || cut->current + 1 < cut->max_partitions))
    cut->current++;
  return TRUE;
}
