/* Test plugin: an output that writes part of its file and then fails, to
 * check that no output's file appears. */
#include <fxsplit/output.h>

static const FxsOptionSpec options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "the file it starts writing" },
  { NULL },
};

static gboolean
write_then_fail (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result,
                 GError **error)
{
  (void) state;
  (void) result;
  FILE *out = fxs_output_open_file (ctx, fxs_plugin_option_string (ctx, "path"), error);
  if (!out)
    return FALSE;
  fputs ("partial", out);
  g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "gave up half-way (test)");
  return FALSE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = { FXS_OUTPUT_ABI, .name = "failing-output", .version = "0",
              .description = "test: fails half-way through writing", .options = options },
  .write = write_then_fail,
};
