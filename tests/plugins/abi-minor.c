/* Test plugin: built for a newer ABI minor version than the host's. */
#include <fxsplit/partitioner.h>

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { .abi_major = FXS_PLUGIN_ABI_MAJOR, .abi_minor = FXS_PLUGIN_ABI_MINOR + 1,
              .size = sizeof (FxsPartitionerDescriptor), .kind = FXS_PLUGIN_PARTITIONER,
              .name = "abi-minor", .version = "0", .description = "test: ABI minor + 1" },
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) state;
  (void) error;
  *partition = 0;
  return TRUE;
}
