/* The capability partitioner: the nodes a backend supports, grouped into
 * as few acyclic partitions as possible, with the unsupported nodes in
 * partitions of their own between them (what PyTorch's
 * CapabilityBasedPartitioner does, with a provably minimal count). */
#include <fxsplit/partitioner.h>

#include <string.h>

#include "capability-assign.h"

typedef struct {
  Capability cap;
  gint64 *ids;       /* per node index of the prepared graph */
  guint n_nodes;
} CapabilityPlugin;

static const FxsOptionSpec capability_options[] = {
  { .key = "allow", .type = FXS_OPTION_STRING, .flags = FXS_OPTION_REQUIRED,
    .help = "what the backend supports: function:GLOB, method:GLOB, class:GLOB, module:GLOB, "
            "name:GLOB, separated by commas or spaces" },
  { .key = "deny", .type = FXS_OPTION_STRING,
    .help = "exceptions to allow, in the same form" },
  { .key = "min_size", .type = FXS_OPTION_INT, .default_value = "1",
    .help = "supported groups with fewer call nodes go back to the unsupported side" },
  { .key = "getitem_with_producer", .type = FXS_OPTION_BOOL, .default_value = "true",
    .help = "a getitem node is supported exactly when the node it takes apart is" },
  { .key = "ids", .type = FXS_OPTION_STRING, .default_value = "order",
    .help = "partition ids: 'order' (all in dependency order) or 'supported_first' "
            "(supported groups 0..m-1 in order, then the unsupported partitions)" },
  { NULL },
};

static void
capability_fini (gpointer state)
{
  CapabilityPlugin *p = state;
  selector_list_free (p->cap.allow);
  selector_list_free (p->cap.deny);
  g_free (p->ids);
  g_free (p);
}

static gboolean
capability_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  CapabilityPlugin *p = g_new0 (CapabilityPlugin, 1);
  Capability *cap = &p->cap;
  cap->min_size = fxs_plugin_option_int (ctx, "min_size");
  cap->getitem_with_producer = fxs_plugin_option_bool (ctx, "getitem_with_producer");
  const char *ids = fxs_plugin_option_string (ctx, "ids");
  if (cap->min_size < 1)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "min_size: must be at least 1, got %" G_GINT64_FORMAT, cap->min_size);
  else if (strcmp (ids, "order") != 0 && strcmp (ids, "supported_first") != 0)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "ids: unknown scheme '%s' (valid: order, supported_first)", ids);
  else if ((cap->allow = selector_list_parse ("allow", fxs_plugin_option_string (ctx, "allow"),
                                              error))
           && (cap->deny = selector_list_parse ("deny", fxs_plugin_option_string (ctx, "deny"),
                                                error)))
    {
      cap->ids = strcmp (ids, "order") == 0 ? CAPABILITY_IDS_ORDER
                                            : CAPABILITY_IDS_SUPPORTED_FIRST;
      if (cap->allow->items->len == 0)
        fxs_plugin_log (ctx, FXS_LOG_WARNING, "allow lists nothing: no node is supported");
      *state = p;
      return TRUE;
    }
  capability_fini (p);
  return FALSE;
}

static gboolean
capability_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) error;
  CapabilityPlugin *p = state;
  CallDag *dag = call_dag_new (graph);
  g_free (p->ids);
  p->n_nodes = fxs_graph_n_nodes (graph);
  p->ids = g_new (gint64, p->n_nodes ? p->n_nodes : 1);
  CapabilityStats stats;
  capability_assign (&p->cap, graph, dag, p->ids, NULL, &stats);
  fxs_plugin_log (ctx, FXS_LOG_INFO,
                  "%u supported partition%s (%u of %u call nodes), %u unsupported partition%s",
                  stats.supported_parts, stats.supported_parts == 1 ? "" : "s",
                  stats.supported_nodes, dag->n, stats.unsupported_parts,
                  stats.unsupported_parts == 1 ? "" : "s");
  if (stats.demoted_nodes)
    fxs_plugin_log (ctx, FXS_LOG_INFO,
                    "%u supported call node%s in groups smaller than min_size = %"
                    G_GINT64_FORMAT ": they stay unsupported",
                    stats.demoted_nodes, stats.demoted_nodes == 1 ? " was" : "s were",
                    p->cap.min_size);
  call_dag_free (dag);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "capability",
    .version = "1.0",
    .description = "fewest acyclic partitions of the nodes a backend supports, the rest between them",
    .options = capability_options,
    .init = capability_init,
    .fini = capability_fini,
  },
  .prepare = capability_prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  const CapabilityPlugin *p = state;
  return fxs_partitioner_precomputed_id (p->ids, p->n_nodes, node, partition, error);
}
