/* The splitpoints partitioner: pipeline stages that begin or end at nodes
 * the user names (node names, targets, classes, module regions), and at
 * pipe_split() calls, like torch.distributed.pipelining's split points. */
#include <fxsplit/partitioner.h>

#include "split-points.h"

typedef struct {
  SplitPoints points;
  gint64 *ids;       /* per node index of the prepared graph */
  guint n_nodes;
} SplitPointsPlugin;

static const FxsOptionSpec splitpoints_options[] = {
  { .key = "begin_at", .type = FXS_OPTION_STRING,
    .help = "a new stage begins at each matching node (module:GLOB: at the module's first node); "
            "selectors name:, function:, method:, class:, module: with * and ? globs" },
  { .key = "end_after", .type = FXS_OPTION_STRING,
    .help = "a stage ends after each matching node (module:GLOB: after the module's last node)" },
  { .key = "pipe_split", .type = FXS_OPTION_BOOL, .default_value = "true",
    .help = "a call of pipe_split() begins a new stage, as in torch.distributed.pipelining" },
  { .key = "allow_unmatched", .type = FXS_OPTION_BOOL, .default_value = "false",
    .help = "accept selectors that match no node (otherwise the split fails naming them)" },
  { NULL },
};

static void
splitpoints_fini (gpointer state)
{
  SplitPointsPlugin *p = state;
  selector_list_free (p->points.begin_at);
  selector_list_free (p->points.end_after);
  g_free (p->ids);
  g_free (p);
}

static gboolean
splitpoints_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  SplitPointsPlugin *p = g_new0 (SplitPointsPlugin, 1);
  p->points.pipe_split = fxs_plugin_option_bool (ctx, "pipe_split");
  p->points.allow_unmatched = fxs_plugin_option_bool (ctx, "allow_unmatched");
  p->points.begin_at = selector_list_parse ("begin_at", fxs_plugin_option_string (ctx, "begin_at"),
                                            error);
  if (p->points.begin_at)
    p->points.end_after = selector_list_parse ("end_after",
                                               fxs_plugin_option_string (ctx, "end_after"), error);
  if (!p->points.end_after)
    {
      splitpoints_fini (p);
      return FALSE;
    }
  *state = p;
  return TRUE;
}

static gboolean
splitpoints_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  SplitPointsPlugin *p = state;
  g_clear_pointer (&p->ids, g_free);
  guint n = fxs_graph_n_nodes (graph);
  gint64 *ids = g_new (gint64, n ? n : 1);
  guint stages;
  if (!split_points_assign (&p->points, graph, ids, &stages, error))
    {
      g_free (ids);
      return FALSE;
    }
  p->ids = ids;
  p->n_nodes = n;
  fxs_plugin_log (ctx, stages > 1 ? FXS_LOG_INFO : FXS_LOG_WARNING,
                  "%u stage%s", stages, stages == 1 ? " (no split point between two call nodes)" : "s");
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "splitpoints",
    .version = "1.0",
    .description = "pipeline stages that begin or end at named nodes, targets, classes or modules",
    .options = splitpoints_options,
    .init = splitpoints_init,
    .fini = splitpoints_fini,
  },
  .prepare = splitpoints_prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  const SplitPointsPlugin *p = state;
  return fxs_partitioner_precomputed_id (p->ids, p->n_nodes, node, partition, error);
}
