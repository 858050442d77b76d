/* Test plugin: built for the next ABI major version. */
#include <fxsplit/partitioner.h>

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { .abi_major = FXS_PLUGIN_ABI_MAJOR + 1, .abi_minor = 0,
              .size = sizeof (FxsPartitionerDescriptor), .kind = FXS_PLUGIN_PARTITIONER,
              .name = "abi-major", .version = "0", .description = "test: ABI major + 1" },
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
