/* The balanced partitioner: K contiguous pipeline stages in graph order
 * whose most expensive stage (the pipeline's bottleneck) is as cheap as
 * possible for the chosen cost.  Stages are contiguous over the call nodes,
 * so every dependency goes from a stage to the same or a later one and the
 * split never has a cycle.  With capacity, speed or bandwidth set, the
 * stages are devices: constraints.c plans them. */
#include <fxsplit/partitioner.h>

#include "constraints.h"
#include "contiguous.h"
#include "cost-option.h"

typedef struct {
  FxsCostKind cost;
  guint stages;
  Constraints *constraints;  /* NULL: none of capacity, speed, bandwidth set */
  gint64 *ids;      /* per node index of the prepared graph */
  guint n_nodes;
} Balanced;

static const FxsOptionSpec balanced_options[] = {
  { .key = "stages", .type = FXS_OPTION_INT, .flags = FXS_OPTION_REQUIRED,
    .help = "number of pipeline stages K >= 1 (fewer when the graph has fewer call nodes; with capacity, speed or bandwidth a stage may stay empty, and partition k is stage k)" },
  COST_OPTION_SPEC,
  CONSTRAINTS_OPTION_SPECS,
  { NULL },
};

static gboolean
balanced_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  gint64 stages = fxs_plugin_option_int (ctx, "stages");
  if (stages < 1 || stages > G_MAXINT32)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "stages: must be between 1 and %d, got %" G_GINT64_FORMAT, G_MAXINT32, stages);
      return FALSE;
    }
  FxsCostKind cost;
  if (!cost_option_parse (fxs_plugin_option_string (ctx, "cost"), &cost, error))
    return FALSE;
  GError *local = NULL;
  Constraints *constraints = constraints_new (ctx, (guint) stages, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  Balanced *b = g_new0 (Balanced, 1);
  b->cost = cost;
  b->stages = (guint) stages;
  b->constraints = constraints;
  *state = b;
  return TRUE;
}

static void
balanced_fini (gpointer state)
{
  Balanced *b = state;
  constraints_free (b->constraints);
  g_free (b->ids);
  g_free (b);
}

static gboolean
balanced_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  Balanced *b = state;
  if (b->constraints)
    {
      g_free (b->ids);
      b->n_nodes = fxs_graph_n_nodes (graph);
      b->ids = g_new0 (gint64, b->n_nodes ? b->n_nodes : 1);
      return constraints_plan (ctx, b->constraints, graph, b->cost, b->ids, error);
    }
  guint n_calls;
  guint32 *call_index;
  gint64 *costs = cost_option_call_costs (ctx, graph, b->cost, &n_calls, &call_index);
  guint32 *stage_of = g_new (guint32, n_calls ? n_calls : 1);
  gint64 bottleneck = contiguous_split (costs, n_calls, b->stages, stage_of);

  g_free (b->ids);
  b->n_nodes = fxs_graph_n_nodes (graph);
  b->ids = g_new0 (gint64, b->n_nodes ? b->n_nodes : 1);
  for (guint i = 0; i < n_calls; i++)
    b->ids[call_index[i]] = stage_of[i];
  guint made = MIN (b->stages, n_calls);
  if (made < b->stages)
    fxs_plugin_log (ctx, FXS_LOG_WARNING, "%u stages asked for, but the graph has only %u call nodes: %u stages",
                    b->stages, n_calls, made);
  fxs_plugin_log (ctx, FXS_LOG_INFO, "%u stages, bottleneck %" G_GINT64_FORMAT " (cost %s)",
                  made, bottleneck, fxs_cost_kind_to_string (b->cost));
  g_free (stage_of);
  g_free (costs);
  g_free (call_index);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "balanced",
    .version = "1.1",
    .description = "K contiguous pipeline stages minimizing the most expensive stage's cost;"
                   " with capacity, speed or bandwidth, stages on devices: each fits, the slowest is fastest",
    .options = balanced_options,
    .init = balanced_init,
    .fini = balanced_fini,
  },
  .prepare = balanced_prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  const Balanced *b = state;
  return fxs_partitioner_precomputed_id (b->ids, b->n_nodes, node, partition, error);
}
