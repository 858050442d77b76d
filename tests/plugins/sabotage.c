/* Test plugin: an output that writes its own file and then does to the
 * files staged before it what another process could: remove_temporaries
 * deletes the hidden temporaries of that path (".NAME.*"), lock_dir makes
 * that directory read-only (mode 0555: a failure for a user other than
 * root).  Put it after the output whose commit it should break. */
#include <fxsplit/output.h>

#include <glib/gstdio.h>
#include <string.h>

static const FxsOptionSpec options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "its own file" },
  { .key = "remove_temporaries", .type = FXS_OPTION_PATH,
    .help = "an output path whose staged temporary it deletes" },
  { .key = "lock_dir", .type = FXS_OPTION_PATH, .help = "a directory it makes read-only" },
  { NULL },
};

static void
remove_temporaries (const char *path)
{
  char *dir_name = g_path_get_dirname (path);
  char *prefix = g_strdup_printf (".%s.", strrchr (path, '/') ? strrchr (path, '/') + 1 : path);
  GDir *dir = g_dir_open (dir_name, 0, NULL);
  for (const char *name; dir && (name = g_dir_read_name (dir));)
    if (g_str_has_prefix (name, prefix))
      {
        char *full = g_build_filename (dir_name, name, NULL);
        g_unlink (full);
        g_free (full);
      }
  if (dir)
    g_dir_close (dir);
  g_free (prefix);
  g_free (dir_name);
}

static gboolean
write_and_sabotage (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result,
                    GError **error)
{
  (void) state;
  (void) result;
  FILE *out = fxs_output_open_file (ctx, fxs_plugin_option_string (ctx, "path"), error);
  if (!out)
    return FALSE;
  fputs ("sabotage\n", out);
  if (fxs_plugin_option_is_set (ctx, "remove_temporaries"))
    remove_temporaries (fxs_plugin_option_string (ctx, "remove_temporaries"));
  if (fxs_plugin_option_is_set (ctx, "lock_dir"))
    g_chmod (fxs_plugin_option_string (ctx, "lock_dir"), 0555);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = { FXS_OUTPUT_ABI, .name = "sabotage", .version = "0",
              .description = "test: breaks the commit of the outputs before it",
              .options = options },
  .write = write_and_sabotage,
};
