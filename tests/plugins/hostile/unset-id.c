/* Test plugin: a split_callback that returns TRUE without storing a
 * partition id (the host must refuse it, naming the plugin and the node). */
#include <fxsplit/partitioner.h>

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "unset-id", .version = "0",
              .description = "test: the callback stores no partition id" },
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) state;
  (void) partition;
  (void) error;
  return TRUE;
}
