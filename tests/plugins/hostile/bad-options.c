/* Test plugin: a descriptor whose option table pointer points nowhere. */
#include <fxsplit/partitioner.h>

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "bad-options", .version = "0",
              .description = "test: the option table is (void *) 1",
              .options = (const FxsOptionSpec *) 1 },
};

/* never called: the host refuses the descriptor */
FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  return fxs_partitioner_precomputed_id (state, 0, node, partition, error);
}
