/* Test plugin: a partitioner whose init reports an error. */
#include <fxsplit/partitioner.h>

static gboolean
fail_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  (void) ctx;
  (void) state;
  g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "cannot start: the test says so");
  return FALSE;
}

static void
never_fini (gpointer state)
{
  (void) state;
  g_error ("fini called after a failed init");
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "init-fails", .version = "0",
              .description = "test: init fails", .init = fail_init, .fini = never_fini },
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
