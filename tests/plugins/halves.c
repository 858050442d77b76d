/* Test plugin: uses prepare to see the whole graph; the first half of the
 * call nodes go to partition 0, the rest to partition 1. */
#include <fxsplit/partitioner.h>

typedef struct {
  guint n_calls;
  guint seen;
} Halves;

static gboolean
init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  (void) ctx;
  (void) error;
  *state = g_new0 (Halves, 1);
  return TRUE;
}

static gboolean
prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) error;
  Halves *h = state;
  h->seen = 0;
  h->n_calls = fxs_graph_count_op (graph, FXS_OP_CALL_FUNCTION)
               + fxs_graph_count_op (graph, FXS_OP_CALL_METHOD)
               + fxs_graph_count_op (graph, FXS_OP_CALL_MODULE);
  fxs_plugin_log (ctx, FXS_LOG_INFO, "%u call nodes", h->n_calls);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "halves", .version = "0",
              .description = "test: first half of the call nodes in 0, the rest in 1",
              .init = init, .fini = g_free },
  .prepare = prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) error;
  Halves *h = state;
  *partition = 2 * h->seen++ >= h->n_calls;
  return TRUE;
}
