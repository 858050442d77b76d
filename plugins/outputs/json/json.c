/* The json output: the split result as a graph file (docs/graph-format.md),
 * the format `fxsplit inspect` and fxsplit_torch read back. */
#include <fxsplit/output.h>

#include "json-indent.h"

static const FxsOptionSpec json_options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "the file to write" },
  { .key = "indent", .type = FXS_OPTION_INT, .default_value = "0",
    .help = "spaces per nesting level; 0 writes compact JSON (fastest, smallest)" },
  { NULL },
};

typedef struct {
  const char *path;
  guint indent;
} Json;

static gboolean
json_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  gint64 indent = fxs_plugin_option_int (ctx, "indent");
  if (indent < 0 || indent > 16)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "indent must be between 0 and 16, got %" G_GINT64_FORMAT, indent);
      return FALSE;
    }
  Json *j = g_new0 (Json, 1);
  j->path = fxs_plugin_option_string (ctx, "path");
  j->indent = (guint) indent;
  *state = j;
  return TRUE;
}

static gboolean
json_write (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result, GError **error)
{
  const Json *j = state;
  FILE *out = fxs_output_open_file (ctx, j->path, error);
  if (!out)
    return FALSE;
  if (j->indent)
    {
      /* indenting re-reads the compact text, so that one is made first */
      GString *text = g_string_new (NULL);
      fxs_split_result_to_json (result, text);
      fxs_json_write_indented (text->str, text->len, j->indent, out);
      g_string_free (text, TRUE);
    }
  else
    fxs_split_result_write_json (result, out);  /* streamed: bounded memory */
  fxs_plugin_log (ctx, FXS_LOG_INFO, "%u partitions written to %s",
                  fxs_split_result_n_partitions (result), j->path);
  /* Write errors are caught when the host commits the file. */
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = {
    FXS_OUTPUT_ABI,
    .name = "json",
    .version = "1.0",
    .description = "the split result as an fxsplit graph file (JSON)",
    .options = json_options,
    .init = json_init,
    .fini = g_free,
  },
  .write = json_write,
};
