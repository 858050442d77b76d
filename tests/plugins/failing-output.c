/* Test plugin: an output that misbehaves while writing its file, to check
 * what is left of the outputs.  how = fail (the default): writes part of
 * the file and reports an error.  The others first write 2 MiB (so that the
 * temporary is on disk), then: segv crashes, exit calls exit(0), block
 * waits for a signal, none succeeds.  remove_temporaries and lock_dir then
 * do to outputs staged before it what another process could: delete a
 * path's hidden temporaries (".NAME.*"), make a directory read-only (mode
 * 0555: a failure for a user other than root). */
#include <fxsplit/output.h>
#include "segfault.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const FxsOptionSpec options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "the file it starts writing" },
  { .key = "how", .type = FXS_OPTION_STRING, .default_value = "fail",
    .help = "fail, segv, exit, block or none" },
  { .key = "remove_temporaries", .type = FXS_OPTION_PATH,
    .help = "an output path whose staged temporary it deletes" },
  { .key = "lock_dir", .type = FXS_OPTION_PATH, .help = "a directory it makes read-only" },
  { NULL },
};

static void
remove_temporaries (const char *path)
{
  char *dir_name = g_path_get_dirname (path);
  char *base = g_path_get_basename (path);
  char *prefix = g_strdup_printf (".%s.", base);
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
  g_free (base);
  g_free (dir_name);
}

static gboolean
write_and_misbehave (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result,
                     GError **error)
{
  (void) state;
  (void) result;
  FILE *out = fxs_output_open_file (ctx, fxs_plugin_option_string (ctx, "path"), error);
  if (!out)
    return FALSE;
  const char *how = fxs_plugin_option_string (ctx, "how");
  if (strcmp (how, "fail") == 0)
    {
      fputs ("partial", out);
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "gave up half-way (test)");
      return FALSE;
    }
  static char block[4096];
  memset (block, 'x', sizeof block);
  for (int i = 0; i < 512; i++)
    fwrite (block, 1, sizeof block, out);
  fflush (out);
  if (fxs_plugin_option_is_set (ctx, "remove_temporaries"))
    remove_temporaries (fxs_plugin_option_string (ctx, "remove_temporaries"));
  if (fxs_plugin_option_is_set (ctx, "lock_dir"))
    g_chmod (fxs_plugin_option_string (ctx, "lock_dir"), 0555);
  if (strcmp (how, "exit") == 0)
    exit (0);
  if (strcmp (how, "block") == 0)
    for (;;)
      pause ();
  if (strcmp (how, "segv") == 0)
    test_segfault ();
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = { FXS_OUTPUT_ABI, .name = "failing-output", .version = "0",
              .description = "test: fails, crashes, exits or blocks while writing",
              .options = options },
  .write = write_and_misbehave,
};
