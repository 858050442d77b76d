/* Test plugin: a partitioner descriptor but no split_callback. */
#include <fxsplit/partitioner.h>

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "no-callback", .version = "0",
              .description = "test: exports no split_callback" },
};
