/* Test plugin: a partitioner whose split_callback misbehaves on one node
 * (option at): how = segv (a store into an inaccessible page), abort, recurse (infinite
 * recursion: a stack overflow) or exit (exit(0)).  Other nodes go to
 * partition 0. */
#include <fxsplit/partitioner.h>
#include "segfault.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const FxsOptionSpec options[] = {
  { .key = "at", .type = FXS_OPTION_STRING, .default_value = "linear",
    .help = "the node to misbehave on" },
  { .key = "how", .type = FXS_OPTION_STRING, .default_value = "segv",
    .help = "segv, abort, recurse or exit" },
  { NULL },
};

/* The state: { at, how, NULL }. */
static gboolean
init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  (void) error;
  const char *strings[] = { fxs_plugin_option_string (ctx, "at"),
                            fxs_plugin_option_string (ctx, "how"), NULL };
  *state = g_strdupv ((char **) strings);
  return TRUE;
}

static void
fini (gpointer state)
{
  g_strfreev (state);
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "crash-partitioner", .version = "0",
              .description = "test: crashes, aborts, overflows its stack or exits on a node",
              .options = options, .init = init, .fini = fini },
};

/* Deep recursion that the compiler cannot turn into a loop; it ends only
 * at a depth the stack never reaches. */
static int
recurse (volatile long *depth)
{
  volatile char pad[256];
  pad[0] = (char) *depth;
  if (++*depth == G_MAXLONG)
    return 0;
  return recurse (depth) + pad[0];
}

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) error;
  const char *at = ((char **) state)[0], *how = ((char **) state)[1];
  if (strcmp (fxs_node_name (node), at) == 0)
    {
      if (strcmp (how, "abort") == 0)
        abort ();
      if (strcmp (how, "exit") == 0)
        exit (0);
      if (strcmp (how, "recurse") == 0)
        {
          volatile long depth = 0;
          *partition = recurse (&depth);
        }
      test_segfault ();
    }
  *partition = 0;
  return TRUE;
}
