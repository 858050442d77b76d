/* Test plugin: partition ids at the ends of the 64-bit range.  With
 * order = ascending (the default) the first half of the call nodes go to
 * G_MININT64 and the rest to G_MAXINT64; descending swaps them. */
#include <fxsplit/partitioner.h>

#include <string.h>

typedef struct {
  gboolean descending;
  guint n_calls;
  guint seen;
} Extremes;

static const FxsOptionSpec options[] = {
  { .key = "order", .type = FXS_OPTION_STRING, .default_value = "ascending",
    .help = "ascending: G_MININT64 then G_MAXINT64; descending: the other way" },
  { NULL },
};

static gboolean
init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  const char *order = fxs_plugin_option_string (ctx, "order");
  if (strcmp (order, "ascending") != 0 && strcmp (order, "descending") != 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "order must be ascending or descending, not '%s'", order);
      return FALSE;
    }
  Extremes *e = g_new0 (Extremes, 1);
  e->descending = strcmp (order, "descending") == 0;
  *state = e;
  return TRUE;
}

static gboolean
prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) ctx;
  (void) error;
  Extremes *e = state;
  e->seen = 0;
  e->n_calls = fxs_graph_count_op (graph, FXS_OP_CALL_FUNCTION)
               + fxs_graph_count_op (graph, FXS_OP_CALL_METHOD)
               + fxs_graph_count_op (graph, FXS_OP_CALL_MODULE);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "extreme-ids", .version = "0",
              .description = "test: partition ids G_MININT64 and G_MAXINT64",
              .options = options, .init = init, .fini = g_free },
  .prepare = prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) error;
  Extremes *e = state;
  gboolean first_half = 2 * e->seen++ < e->n_calls;
  *partition = first_half != e->descending ? G_MININT64 : G_MAXINT64;
  return TRUE;
}
