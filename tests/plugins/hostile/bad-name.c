/* Test plugin: a descriptor whose name pointer points nowhere. */
#include <fxsplit/output.h>

static gboolean
write_nothing (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result,
               GError **error)
{
  (void) ctx;
  (void) state;
  (void) result;
  (void) error;
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = { FXS_OUTPUT_ABI, .name = (const char *) 1, .version = "0",
              .description = "test: the name is (const char *) 1" },
  .write = write_nothing,
};
