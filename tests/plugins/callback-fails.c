/* Test plugin: a partitioner whose callback reports an error on one node
 * (option fail_at); the others go to partition 0. */
#include <fxsplit/partitioner.h>

#include <string.h>

static const FxsOptionSpec options[] = {
  { .key = "fail_at", .type = FXS_OPTION_STRING, .default_value = "linear",
    .help = "the node to fail on" },
  { NULL },
};

static gboolean
init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  (void) error;
  *state = g_strdup (fxs_plugin_option_string (ctx, "fail_at"));
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "callback-fails", .version = "0",
              .description = "test: the callback fails on one node", .options = options,
              .init = init, .fini = g_free },
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  if (strcmp (fxs_node_name (node), state) == 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CALLBACK, "no partition for this node (test)");
      return FALSE;
    }
  *partition = 0;
  return TRUE;
}
