/* Test plugin: a partitioner whose errors carry hostile messages.  Option
 * message: "ansi" (terminal escapes and a fake second line), "huge" (50 MB),
 * "null" (a GError whose message is NULL); option hook: where it fails
 * ("init" or "callback").  Its description holds escapes too. */
#include <fxsplit/partitioner.h>

#include <string.h>

#define HUGE_BYTES (50u << 20)

static const FxsOptionSpec options[] = {
  { .key = "message", .type = FXS_OPTION_STRING, .default_value = "ansi",
    .help = "ansi, huge or null \033[2J\033[31mred\nfxsplit: fake line" },
  { .key = "hook", .type = FXS_OPTION_STRING, .default_value = "callback",
    .help = "init or callback" },
  { NULL },
};

static GError *
hostile_error (const char *kind)
{
  if (strcmp (kind, "huge") == 0)
    {
      char *text = g_malloc (HUGE_BYTES + 1);
      memset (text, 'x', HUGE_BYTES);
      text[HUGE_BYTES] = '\0';
      GError *e = g_error_new_literal (FXS_ERROR, FXS_ERROR_CALLBACK, text);
      g_free (text);
      return e;
    }
  GError *e = g_error_new_literal (FXS_ERROR, FXS_ERROR_CALLBACK,
                                   "\033[2J\033[31mred\r\nfxsplit: all good\xc2\x9b[1m\x9b\xff\x7f\xe2\x80\xae");
  if (strcmp (kind, "null") == 0)
    g_clear_pointer (&e->message, g_free);
  return e;
}

static gboolean
init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  const char *kind = fxs_plugin_option_string (ctx, "message");
  if (strcmp (fxs_plugin_option_string (ctx, "hook"), "init") == 0)
    {
      g_propagate_error (error, hostile_error (kind));
      return FALSE;
    }
  *state = g_strdup (kind);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "bad-message", .version = "0",
              .description = "test: \033[1mhostile\033[0m error messages\nfxsplit: fake line",
              .options = options, .init = init, .fini = g_free },
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) partition;
  g_propagate_error (error, hostile_error (state));
  return FALSE;
}
