/* Test plugin: needs a library that cannot be found at run time. */
#include <fxsplit/partitioner.h>

int fxs_test_missing_dep_answer (void);

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "needs-lib", .version = "0",
              .description = "test: depends on a missing library" },
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) state;
  (void) error;
  *partition = fxs_test_missing_dep_answer ();
  return TRUE;
}
