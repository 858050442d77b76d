/* The buckets partitioner: DDPOptimizer's graph breaks.  torch.compile
 * with DistributedDataParallel cuts the graph where DDP's gradient buckets
 * end, walking it backwards (the order gradients become ready) and closing
 * a bucket once its parameters reach bucket_bytes_cap, so that each
 * bucket's all-reduce overlaps the backward pass of the rest.  The rule is
 * in plugins/common/buckets.c. */
#include <fxsplit/partitioner.h>

#include "buckets.h"
#include "units.h"

typedef struct {
  gint64 cap, first_cap;
  gint64 *ids;      /* per node index of the prepared graph */
  guint n_nodes;
} Buckets;

static const FxsOptionSpec buckets_options[] = {
  { .key = "bucket_bytes_cap", .type = FXS_OPTION_STRING, .default_value = "25MiB",
    .help = "parameter bytes at which a bucket closes (DDP's bucket_cap_mb): a size such as 25MiB, 100MB or 4096" },
  { .key = "first_bucket_cap", .type = FXS_OPTION_STRING, .default_value = "1MiB",
    .help = "the same for the first bucket closed, at the graph's end (DDP's first bucket), at most bucket_bytes_cap" },
  { NULL },
};

static gboolean
read_size (FxsPluginContext *ctx, const char *key, gint64 *bytes, GError **error)
{
  const char *text = fxs_plugin_option_string (ctx, key);
  if (units_parse_bytes (text, bytes))
    return TRUE;
  g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s: '%s' is not a size (" UNITS_BYTES_SYNTAX ")",
               key, text ? text : "");
  return FALSE;
}

static gboolean
buckets_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  gint64 cap, first_cap;
  if (!read_size (ctx, "bucket_bytes_cap", &cap, error)
      || !read_size (ctx, "first_bucket_cap", &first_cap, error))
    return FALSE;
  if (first_cap > cap)
    {
      /* DDPOptimizer asserts the same: the first bucket warms up the comms. */
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "first_bucket_cap: %" G_GINT64_FORMAT " bytes is more than bucket_bytes_cap (%"
                   G_GINT64_FORMAT " bytes)", first_cap, cap);
      return FALSE;
    }
  Buckets *b = g_new0 (Buckets, 1);
  b->cap = cap;
  b->first_cap = first_cap;
  *state = b;
  return TRUE;
}

static void
buckets_fini (gpointer state)
{
  Buckets *b = state;
  g_free (b->ids);
  g_free (b);
}

static gboolean
buckets_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) error;
  Buckets *b = state;
  g_free (b->ids);
  b->n_nodes = fxs_graph_n_nodes (graph);
  b->ids = g_new0 (gint64, b->n_nodes ? b->n_nodes : 1);
  GArray *bytes = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint n = buckets_assign (graph, b->cap, b->first_cap, b->ids, bytes);
  GString *line = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      g_string_append (line, i ? ", " : "");
      units_append_bytes (line, g_array_index (bytes, gint64, i));
    }
  fxs_plugin_log (ctx, FXS_LOG_INFO, "%u bucket%s of parameters, in graph order: %s", n,
                  n == 1 ? "" : "s", line->str);
  g_string_free (line, TRUE);
  g_array_free (bytes, TRUE);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "buckets",
    .version = "1.0",
    .description = "DDPOptimizer's buckets: walking backwards, a partition closes once its parameters reach bucket_bytes_cap",
    .options = buckets_options,
    .init = buckets_init,
    .fini = buckets_fini,
  },
  .prepare = buckets_prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  const Buckets *b = state;
  return fxs_partitioner_precomputed_id (b->ids, b->n_nodes, node, partition, error);
}
