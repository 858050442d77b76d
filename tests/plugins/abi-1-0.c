/* Test plugin: built as against the headers of plugin ABI 1.0, whose
 * partitioner descriptor had no label hook (reserved[8], all zero); it
 * must still load and split (partition 0 for every node). */
#include <fxsplit/plugin.h>
#include <fxsplit/graph.h>

typedef gboolean (*PrepareFunc) (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph,
                                 GError **error);

typedef struct {
  FxsPluginInfo plugin;
  PrepareFunc prepare;
  gpointer reserved[8];
} Descriptor10;

FXS_PLUGIN_EXPORT const Descriptor10 fxsplit_partitioner = {
  .plugin = { .abi_major = 1, .abi_minor = 0, .size = sizeof (Descriptor10),
              .kind = FXS_PLUGIN_PARTITIONER, .name = "abi-1-0", .version = "1.0",
              .description = "test: a plugin built for ABI 1.0" },
};

FXS_PLUGIN_EXPORT gboolean split_callback (const FxsNode *node, gpointer state,
                                           gint64 *partition, GError **error);

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) state;
  (void) error;
  *partition = 0;
  return TRUE;
}
