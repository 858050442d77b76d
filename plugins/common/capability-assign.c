/* Supported-node grouping by alternating levels (see capability-assign.h). */
#include "capability-assign.h"

#include <string.h>

static gboolean
is_getitem (const FxsNode *node)
{
  return fxs_node_op (node) == FXS_OP_CALL_FUNCTION
         && strcmp (fxs_node_target_short_name (node), "getitem") == 0;
}

/* The node whose tuple a getitem takes apart, or NULL. */
static const FxsNode *
getitem_source (const FxsNode *node)
{
  const FxsValue *args = fxs_node_args (node);
  if (fxs_value_n_items (args) < 1 || fxs_value_kind (fxs_value_item (args, 0)) != FXS_VALUE_NODE)
    return NULL;
  return fxs_value_get_node (fxs_value_item (args, 0));
}

void
capability_assign (const Capability *cap, const FxsGraph *graph, const CallDag *dag,
                   gint64 *ids, guint8 *supported_out, CapabilityStats *stats)
{
  guint n = dag->n;
  guint n_nodes = fxs_graph_n_nodes (graph);
  guint8 *supported = g_new0 (guint8, n ? n : 1);
  gint32 *call_of = g_new (gint32, n_nodes ? n_nodes : 1);
  memset (call_of, 0xff, (n_nodes ? n_nodes : 1) * sizeof (gint32));
  for (guint v = 0; v < n; v++)
    call_of[dag->node_index[v]] = (gint32) v;

  for (guint v = 0; v < n; v++)
    {
      const FxsNode *node = fxs_graph_node (graph, dag->node_index[v]);
      const FxsNode *source = cap->getitem_with_producer && is_getitem (node)
                              ? getitem_source (node) : NULL;
      if (source && call_of[fxs_node_index (source)] >= 0)
        supported[v] = supported[call_of[fxs_node_index (source)]];
      else
        supported[v] = selector_list_match (cap->allow, node)
                       && !(cap->deny && selector_list_match (cap->deny, node));
    }

  /* runs[v]: for a supported node, the most supported runs that a path
   * into it completes before reaching it; for an unsupported node, the most
   * supported runs any path into it completes.  Supported nodes go to level
   * 2 * runs + 1, unsupported ones to 2 * runs: levels never decrease along
   * an edge and rise wherever support changes.  Counting only completed
   * runs (not the unsupported nodes before them) puts supported nodes that
   * only follow unsupported ones in the first supported level. */
  guint32 *level = g_new (guint32, n ? n : 1);
  guint32 top = 0;
  for (guint v = 0; v < n; v++)
    {
      guint32 runs = 0;
      for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++)
        {
          guint32 p = dag->preds[e];
          guint32 p_runs = level[p] / 2;
          runs = MAX (runs, p_runs + (supported[p] && !supported[v]));
        }
      level[v] = 2 * runs + (supported[v] ? 1 : 0);
      top = MAX (top, level[v]);
    }

  /* Groups below min_size move to the unsupported level just above them,
   * which keeps every edge non-decreasing: their users are at a higher
   * level or in the same group. */
  guint32 *group_size = g_new0 (guint32, top + 2);
  for (guint v = 0; v < n; v++)
    if (supported[v])
      group_size[level[v]]++;
  memset (stats, 0, sizeof *stats);
  for (guint v = 0; v < n; v++)
    if (supported[v] && group_size[level[v]] < cap->min_size)
      {
        supported[v] = 0;
        level[v]++;
        stats->demoted_nodes++;
      }

  /* Number the levels in use. */
  gint64 *rank = g_new (gint64, top + 2);
  for (guint32 l = 0; l < top + 2; l++)
    rank[l] = -1;
  for (guint v = 0; v < n; v++)
    rank[level[v]] = 0;
  for (guint32 l = 0; l < top + 2; l++)
    if (rank[l] == 0)
      {
        if (l % 2 == 1)
          stats->supported_parts++;
        else
          stats->unsupported_parts++;
      }
  gint64 next_supported = 0, next_unsupported = 0, next = 0;
  if (cap->ids == CAPABILITY_IDS_SUPPORTED_FIRST)
    next_unsupported = stats->supported_parts;
  for (guint32 l = 0; l < top + 2; l++)
    if (rank[l] == 0)
      {
        if (cap->ids == CAPABILITY_IDS_ORDER)
          rank[l] = next++;
        else
          rank[l] = l % 2 == 1 ? next_supported++ : next_unsupported++;
      }

  for (guint i = 0; i < n_nodes; i++)
    ids[i] = 0;
  for (guint v = 0; v < n; v++)
    {
      ids[dag->node_index[v]] = rank[level[v]];
      stats->supported_nodes += supported[v];
    }
  if (supported_out)
    memcpy (supported_out, supported, n);
  g_free (rank);
  g_free (group_size);
  g_free (level);
  g_free (call_of);
  g_free (supported);
}
