/* The modulo partitioner: round-robin over N partitions in graph order,
 * the example of torch.fx.passes.split_module's docstring:
 *
 *   partition = partition_counter % NPARTITIONS
 *   partition_counter = (partition_counter + 1) % NPARTITIONS
 */
#include <fxsplit/partitioner.h>

typedef struct {
  gint64 partitions;
  gint64 counter;   /* restarts at 0 for every split */
} Modulo;

static const FxsOptionSpec modulo_options[] = {
  { .key = "partitions", .type = FXS_OPTION_INT, .default_value = "3",
    .help = "number of partitions, N >= 1: the k-th call node goes to k % N" },
  { NULL },
};

static gboolean
modulo_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  gint64 n = fxs_plugin_option_int (ctx, "partitions");
  if (n < 1)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "partitions must be at least 1, got %" G_GINT64_FORMAT, n);
      return FALSE;
    }
  Modulo *m = g_new0 (Modulo, 1);
  m->partitions = n;
  *state = m;
  return TRUE;
}

static gboolean
modulo_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) ctx;
  (void) graph;
  (void) error;
  ((Modulo *) state)->counter = 0;
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "modulo",
    .version = "1.0",
    .description = "round-robin over N partitions in graph order (split_module's docstring example)",
    .options = modulo_options,
    .init = modulo_init,
    .fini = g_free,
  },
  .prepare = modulo_prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) error;
  Modulo *m = state;
  *partition = m->counter;
  m->counter = (m->counter + 1) % m->partitions;
  return TRUE;
}
