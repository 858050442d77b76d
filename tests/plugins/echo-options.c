/* Test plugin: an output that writes its options' values, one "key=value"
 * line each (unset ones as "key unset"), to check how the host parses them. */
#include <fxsplit/output.h>

static const FxsOptionSpec options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "where to write" },
  { .key = "text", .type = FXS_OPTION_STRING, .default_value = "default text", .help = "a string" },
  { .key = "count", .type = FXS_OPTION_INT, .default_value = "7", .help = "an integer" },
  { .key = "ratio", .type = FXS_OPTION_FLOAT, .help = "a number, unset by default" },
  { .key = "flag", .type = FXS_OPTION_BOOL, .default_value = "false", .help = "a boolean" },
  { .key = "input", .type = FXS_OPTION_PATH, .help = "a path to read" },
  { NULL },
};

static gboolean
echo (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result, GError **error)
{
  (void) state;
  (void) result;
  FILE *out = fxs_output_open_file (ctx, fxs_plugin_option_string (ctx, "path"), error);
  if (!out)
    return FALSE;
  fprintf (out, "label=%s\n", fxs_plugin_context_label (ctx));
  fprintf (out, "text=%s\n", fxs_plugin_option_string (ctx, "text"));
  fprintf (out, "count=%" G_GINT64_FORMAT "\n", fxs_plugin_option_int (ctx, "count"));
  if (fxs_plugin_option_is_set (ctx, "ratio"))
    fprintf (out, "ratio=%g\n", fxs_plugin_option_float (ctx, "ratio"));
  else
    fputs ("ratio unset\n", out);
  fprintf (out, "flag=%s\n", fxs_plugin_option_bool (ctx, "flag") ? "true" : "false");
  if (fxs_plugin_option_is_set (ctx, "input"))
    fprintf (out, "input=%s\n", fxs_plugin_option_string (ctx, "input"));
  else
    fputs ("input unset\n", out);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = { FXS_OUTPUT_ABI, .name = "echo-options", .version = "0",
              .description = "test: writes its option values", .options = options },
  .write = echo,
};
