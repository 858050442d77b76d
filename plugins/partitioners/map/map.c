/* The map partitioner: partition ids given up front, from a file (JSON
 * object or two columns) or from a meta entry of every node; a meta entry
 * may hold string tags instead (PyTorch's split_by_tags), one partition
 * per tag, labelled with it. */
#include <fxsplit/partitioner.h>

#include <string.h>

#include "map-file.h"
#include "map-tags.h"

/* Unassigned nodes named in the error message, at most. */
#define MAX_NAMED 10

typedef struct {
  const char *file;       /* or NULL */
  const char *meta_key;   /* or NULL */
  gboolean has_default;
  gint64 default_id;
  GHashTable *by_name;    /* from the file */
  MapTags *tags;          /* string tags: the order and the labels */
  gint64 *ids;            /* by node index, for the prepared graph */
  guint n_nodes;          /* of ids */
} Map;

static const FxsOptionSpec map_options[] = {
  { .key = "file", .type = FXS_OPTION_PATH,
    .help = "partition ids by node name: a JSON object {\"node\": id} or lines 'node id'" },
  { .key = "meta_key", .type = FXS_OPTION_STRING,
    .help = "read each node's partition id from this meta entry instead of a file" },
  { .key = "default", .type = FXS_OPTION_INT,
    .help = "partition of nodes the map does not name (unset: such nodes are an error); "
            "integer ids only" },
  { .key = "tags", .type = FXS_OPTION_STRING,
    .help = "with meta_key holding string tags: the tags in partition order, separated by "
            "commas or spaces (a node with another tag is an error; unset: the order in which "
            "tags first appear); each partition is labelled with its tag" },
  { NULL },
};

static void
map_fini (gpointer state)
{
  Map *m = state;
  if (m->by_name)
    g_hash_table_unref (m->by_name);
  map_tags_free (m->tags);
  g_free (m->ids);
  g_free (m);
}

static gboolean
map_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  const char *file = fxs_plugin_option_string (ctx, "file");
  const char *meta_key = fxs_plugin_option_string (ctx, "meta_key");
  if ((file == NULL) == (meta_key == NULL))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "set exactly one of 'file' and 'meta_key'");
      return FALSE;
    }
  const char *tags = fxs_plugin_option_string (ctx, "tags");
  if (tags && file)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "tags: string tags come from meta_key, not from a file");
      return FALSE;
    }
  Map *m = g_new0 (Map, 1);
  m->file = file;
  m->meta_key = meta_key;
  m->has_default = fxs_plugin_option_is_set (ctx, "default");
  m->default_id = fxs_plugin_option_int (ctx, "default");
  if (meta_key && !(m->tags = map_tags_new (tags, error)))
    {
      map_fini (m);
      return FALSE;
    }
  if (file && !(m->by_name = fxs_map_file_read (file, error)))
    {
      map_fini (m);
      return FALSE;
    }
  *state = m;
  return TRUE;
}

static gboolean
is_call (const FxsNode *node)
{
  FxsOp op = fxs_node_op (node);
  return op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE;
}

/* The id of @node; *@found is FALSE when it has none.  Errors only for
 * bad meta values. */
static gboolean
lookup (const Map *m, const FxsNode *node, gint64 *id, gboolean *found, GError **error)
{
  *found = FALSE;
  if (m->by_name)
    {
      const gint64 *v = g_hash_table_lookup (m->by_name, fxs_node_name (node));
      if (v)
        {
          *id = *v;
          *found = TRUE;
        }
      return TRUE;
    }
  const FxsValue *v = fxs_node_meta_lookup (node, m->meta_key);
  if (!v)
    return TRUE;
  if (!map_tags_id (m->tags, node, m->meta_key, v, id, error))
    return FALSE;
  *found = TRUE;
  return TRUE;
}

static gboolean
map_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  Map *m = state;
  guint n = fxs_graph_n_nodes (graph);
  g_free (m->ids);
  m->ids = g_new0 (gint64, n ? n : 1);
  m->n_nodes = n;
  if (m->tags)
    map_tags_reset (m->tags);
  GString *missing = g_string_new (NULL);
  guint n_missing = 0, n_used = 0;
  for (guint i = 0; i < n; i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      if (!is_call (node))
        continue;
      gboolean found;
      if (!lookup (m, node, &m->ids[i], &found, error))
        {
          g_string_free (missing, TRUE);
          return FALSE;
        }
      n_used += found;
      if (found || m->has_default)
        {
          if (!found)
            m->ids[i] = m->default_id;
          continue;
        }
      if (n_missing++ < MAX_NAMED)
        g_string_append_printf (missing, "%s%s", n_missing > 1 ? ", " : "", fxs_node_name (node));
    }
  if (n_missing)
    {
      if (n_missing > MAX_NAMED)
        g_string_append_printf (missing, " and %u more", n_missing - MAX_NAMED);
      gboolean tags = m->tags && map_tags_are_strings (m->tags);
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "%u node%s no %s in %s (%s): %s", n_missing,
                   n_missing == 1 ? " has" : "s have", tags ? "tag" : "partition",
                   m->file ? m->file : m->meta_key,
                   tags ? "split_by_tags needs every call node tagged"
                        : "set 'default' to place them", missing->str);
      g_string_free (missing, TRUE);
      return FALSE;
    }
  g_string_free (missing, TRUE);
  if (m->tags && !map_tags_check (m->tags, ctx, m->has_default, error))
    return FALSE;
  if (m->by_name && n_used < g_hash_table_size (m->by_name))
    fxs_plugin_log (ctx, FXS_LOG_WARNING, "%u entries of %s name no call node of the graph",
                    g_hash_table_size (m->by_name) - n_used, m->file);
  return TRUE;
}

static const char *
map_label (gpointer state, gint64 partition)
{
  const Map *m = state;
  return m->tags ? map_tags_label (m->tags, partition) : NULL;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "map",
    .version = "1.1",
    .description = "partition ids from a file (node name -> id) or from a meta entry of each node "
                   "(integer ids, or string tags as in split_by_tags)",
    .options = map_options,
    .init = map_init,
    .fini = map_fini,
  },
  .prepare = map_prepare,
  .label = map_label,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  const Map *m = state;
  return fxs_partitioner_precomputed_id (m->ids, m->n_nodes, node, partition, error);
}
