/* Test plugin: an output that writes 2 MiB to its file (so that its
 * temporary is on disk) and then misbehaves: how = segv, exit (exit(0)) or
 * block (waits for a signal); with how = none it succeeds. */
#include <fxsplit/output.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const FxsOptionSpec options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "the file it starts writing" },
  { .key = "how", .type = FXS_OPTION_STRING, .default_value = "segv",
    .help = "segv, exit, block or none" },
  { NULL },
};

static gboolean
write_then_misbehave (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result,
                      GError **error)
{
  (void) state;
  (void) result;
  FILE *out = fxs_output_open_file (ctx, fxs_plugin_option_string (ctx, "path"), error);
  if (!out)
    return FALSE;
  static char block[4096];
  memset (block, 'x', sizeof block);
  for (int i = 0; i < 512; i++)
    fwrite (block, 1, sizeof block, out);
  fflush (out);
  const char *how = fxs_plugin_option_string (ctx, "how");
  if (strcmp (how, "exit") == 0)
    exit (0);
  if (strcmp (how, "none") == 0)
    return TRUE;
  if (strcmp (how, "block") == 0)
    for (;;)
      pause ();
  *(volatile int *) NULL = 1;
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = { FXS_OUTPUT_ABI, .name = "crash-output", .version = "0",
              .description = "test: crashes, exits or blocks while writing",
              .options = options },
  .write = write_then_misbehave,
};
