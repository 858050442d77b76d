/* Stages from split points, like torch.distributed.pipelining's
 * pipe_split() and SplitPoint.BEGINNING / SplitPoint.END. */
#include "split-points.h"

#include <string.h>

typedef struct {
  guint first, last;   /* call positions of the region's first and last node */
} Region;

typedef struct {
  Selector *sel;
  GHashTable *regions;   /* matched module prefix -> Region */
  guint position;
  gboolean matched;
} RegionScan;

/* Records @path (a call_module target or a get_attr target the node uses)
 * in the regions of the module it lies in, if the selector matches one. */
static void
scan_path (RegionScan *scan, const char *path)
{
  gsize len = selector_module_prefix (scan->sel, path);
  if (len == 0)
    return;
  char *key = g_strndup (path, len);
  Region *r = g_hash_table_lookup (scan->regions, key);
  if (!r)
    {
      r = g_new (Region, 1);
      r->first = scan->position;
      g_hash_table_insert (scan->regions, key, r);
    }
  else
    g_free (key);
  r->last = scan->position;
  scan->matched = TRUE;
}

static void
scan_get_attr (const FxsNode *def, gpointer data)
{
  if (fxs_node_op (def) == FXS_OP_GET_ATTR)
    scan_path (data, fxs_node_target (def));
}

/* Marks the split points of one selector list: at each matching node, or
 * at the first (@at_end FALSE) or last node of each matching module's
 * region.  @flag[p] is set for call position p. */
static void
mark (SelectorList *list, const FxsGraph *graph, const guint32 *calls, guint n_calls,
      gboolean at_end, guint8 *flag)
{
  if (!list)
    return;
  for (guint s = 0; s < list->items->len; s++)
    {
      Selector *sel = list->items->pdata[s];
      sel->matches = 0;   /* counts are per graph */
      if (sel->kind != SELECT_MODULE)
        {
          for (guint p = 0; p < n_calls; p++)
            if (selector_match (sel, fxs_graph_node (graph, calls[p])))
              flag[p] = 1;
          continue;
        }
      RegionScan scan = { sel, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
                          0, FALSE };
      for (guint p = 0; p < n_calls; p++)
        {
          const FxsNode *node = fxs_graph_node (graph, calls[p]);
          scan.position = p;
          scan.matched = FALSE;
          if (fxs_node_op (node) == FXS_OP_CALL_MODULE)
            scan_path (&scan, fxs_node_target (node));
          fxs_value_foreach_node (fxs_node_args (node), scan_get_attr, &scan);
          fxs_value_foreach_node (fxs_node_kwargs (node), scan_get_attr, &scan);
          sel->matches += scan.matched;
        }
      GHashTableIter it;
      gpointer region;
      g_hash_table_iter_init (&it, scan.regions);
      while (g_hash_table_iter_next (&it, NULL, &region))
        flag[at_end ? ((Region *) region)->last : ((Region *) region)->first] = 1;
      g_hash_table_unref (scan.regions);
    }
}

static gboolean
check_matched (const SelectorList *list, GError **error)
{
  const Selector *sel = list ? selector_list_first_unmatched (list) : NULL;
  if (!sel)
    return TRUE;
  g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
               "%s: '%s' matches no call node of the graph (set allow_unmatched = true "
               "to accept that)", list->option, sel->text);
  return FALSE;
}

gboolean
split_points_assign (const SplitPoints *sp, const FxsGraph *graph, gint64 *ids,
                     guint *n_stages, GError **error)
{
  guint n = fxs_graph_n_nodes (graph);
  guint32 *calls = g_new (guint32, n ? n : 1);
  guint n_calls = 0;
  for (guint i = 0; i < n; i++)
    {
      FxsOp op = fxs_node_op (fxs_graph_node (graph, i));
      ids[i] = 0;
      if (op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE)
        calls[n_calls++] = i;
    }
  guint8 *begins = g_new0 (guint8, n_calls + 1);
  guint8 *ends = g_new0 (guint8, n_calls + 1);
  mark (sp->begin_at, graph, calls, n_calls, FALSE, begins);
  mark (sp->end_after, graph, calls, n_calls, TRUE, ends);
  if (sp->pipe_split)
    for (guint p = 0; p < n_calls; p++)
      {
        const FxsNode *node = fxs_graph_node (graph, calls[p]);
        /* pipe_split() traced as a function, or the operator it calls
         * (torch.ops.pippy._pipe_split.default) in exported graphs. */
        if (fxs_node_op (node) == FXS_OP_CALL_FUNCTION
            && (strcmp (fxs_node_target_short_name (node), "pipe_split") == 0
                || strstr (fxs_node_target (node), "._pipe_split")))
          begins[p] = 1;
      }

  gboolean ok = sp->allow_unmatched
                || (check_matched (sp->begin_at, error) && check_matched (sp->end_after, error));
  if (ok)
    {
      gint64 stage = 0;
      for (guint p = 0; p < n_calls; p++)
        {
          if (p > 0 && (begins[p] || ends[p - 1]))
            stage++;
          ids[calls[p]] = stage;
        }
      *n_stages = n_calls ? (guint) stage + 1 : 0;
    }
  g_free (begins);
  g_free (ends);
  g_free (calls);
  return ok;
}
