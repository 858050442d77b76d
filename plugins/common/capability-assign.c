/* Supported-node grouping by levels (see capability-assign.h). */
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

/* 1 + the first backend supporting @node, or 0. */
static guint8
backend_of (const Capability *cap, const FxsNode *node)
{
  if (cap->deny && selector_list_match (cap->deny, node))
    return 0;
  if (!cap->backends)
    return selector_list_match (cap->allow, node) ? 1 : 0;
  for (guint b = 0; b < cap->backends->len; b++)
    if (selector_list_match (cap->backends->pdata[b], node))
      return (guint8) (b + 1);
  return 0;
}

/* Each call node's kind: 0 unsupported, else 1 + its backend. */
static guint8 *
kinds_of (const Capability *cap, const FxsGraph *graph, const CallDag *dag)
{
  guint n = dag->n, n_nodes = fxs_graph_n_nodes (graph);
  guint8 *kind = g_new0 (guint8, n ? n : 1);
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
        kind[v] = kind[call_of[fxs_node_index (source)]];
      else
        kind[v] = backend_of (cap, node);
    }
  g_free (call_of);
  return kind;
}

/* Groups with fewer compute nodes than min_size become unsupported.  In
 * doubled levels (@dl = 2 * level), a demoted group joins the next
 * round's unsupported level when none of its users comes before that,
 * else an unsupported level of its own just above it (2 * level + 1). */
static void
demote_small (const Capability *cap, const CallDag *dag, guint period, guint32 top,
              const guint32 *level, const guint8 *compute, guint8 *kind, guint32 *dl,
              CapabilityStats *stats)
{
  guint n = dag->n;
  guint32 *size = g_new0 (guint32, top + 1);
  guint32 *first_user = g_new (guint32, top + 1);
  for (guint32 l = 0; l <= top; l++)
    first_user[l] = G_MAXUINT32;
  for (guint v = 0; v < n; v++)
    {
      size[level[v]] += kind[v] && compute[v];
      for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++)
        {
          guint32 p = dag->preds[e];
          if (level[p] != level[v])
            first_user[level[p]] = MIN (first_user[level[p]], level[v]);
        }
    }
  for (guint v = 0; v < n; v++)
    if (kind[v] && size[level[v]] < cap->min_size)
      {
        guint32 next = (level[v] / period + 1) * period;
        dl[v] = first_user[level[v]] >= next ? 2 * next : 2 * level[v] + 1;
        kind[v] = 0;
        stats->demoted_nodes++;
      }
  g_free (first_user);
  g_free (size);
}

/* Non-compute nodes at a supported group's edges leave it: those whose
 * inputs in the group are all such nodes go just below the group (2 *
 * level - 1), those whose users in the group are all such nodes just above
 * it (2 * level + 1); both are unsupported. */
static void
remove_bookends (const CallDag *dag, const guint8 *compute, guint8 *kind, guint32 *dl,
                 CapabilityStats *stats)
{
  guint n = dag->n;
  guint8 *in = g_new0 (guint8, n ? n : 1), *out = g_new0 (guint8, n ? n : 1);
  for (guint v = 0; v < n; v++)
    {
      in[v] = out[v] = kind[v] && !compute[v];
      for (guint32 e = dag->pred_off[v]; in[v] && e < dag->pred_off[v + 1]; e++)
        if (dl[dag->preds[e]] == dl[v] && kind[dag->preds[e]] && !in[dag->preds[e]])
          in[v] = 0;
    }
  /* users come later in the DAG's order: a node is final when reached */
  for (guint v = n; v-- > 0;)
    if (!out[v] && kind[v])
      for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++)
        if (dl[dag->preds[e]] == dl[v])
          out[dag->preds[e]] = 0;
  for (guint v = 0; v < n; v++)
    if (in[v] || out[v])
      {
        dl[v] = in[v] ? dl[v] - 1 : dl[v] + 1;
        kind[v] = 0;
        stats->bookend_nodes++;
      }
  g_free (out);
  g_free (in);
}

void
capability_assign (const Capability *cap, const FxsGraph *graph, const CallDag *dag,
                   gint64 *ids, guint8 *kind_out, CapabilityStats *stats)
{
  guint n = dag->n, n_nodes = fxs_graph_n_nodes (graph);
  guint period = (cap->backends ? cap->backends->len : 1) + 1;
  guint8 *kind = kinds_of (cap, graph, dag);

  /* level = round * period + kind (see capability-assign.h) */
  guint32 *level = g_new (guint32, n ? n : 1);
  guint32 top = 0;
  for (guint v = 0; v < n; v++)
    {
      guint32 round = 0;
      for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++)
        {
          guint32 p = dag->preds[e];
          round = MAX (round, level[p] / period + (kind[p] > kind[v]));
        }
      level[v] = round * period + kind[v];
      top = MAX (top, level[v]);
    }

  guint8 *compute = g_new (guint8, n ? n : 1);
  for (guint v = 0; v < n; v++)
    compute[v] = !cap->non_compute
                 || !selector_list_match (cap->non_compute,
                                          fxs_graph_node (graph, dag->node_index[v]));
  guint32 *dl = g_new (guint32, n ? n : 1);
  for (guint v = 0; v < n; v++)
    dl[v] = 2 * level[v];
  memset (stats, 0, sizeof *stats);
  demote_small (cap, dag, period, top, level, compute, kind, dl, stats);
  if (cap->non_compute)
    remove_bookends (dag, compute, kind, dl, stats);

  /* Number the doubled levels in use (a demoted group may go up to the
   * round after the top one); odd ones are unsupported. */
  guint32 n_dl = 2 * (top + period) + 1;
  gint64 *rank = g_new (gint64, n_dl);
  guint8 *rank_kind = g_new0 (guint8, n_dl);
  for (guint32 l = 0; l < n_dl; l++)
    rank[l] = -1;
  for (guint v = 0; v < n; v++)
    {
      rank[dl[v]] = 0;
      rank_kind[dl[v]] = kind[v];
    }
  for (guint32 l = 0; l < n_dl; l++)
    if (rank[l] == 0)
      {
        stats->n_parts++;
        if (rank_kind[l])
          stats->supported_parts++;
        else
          stats->unsupported_parts++;
      }
  stats->part_kind = g_new0 (guint8, stats->n_parts ? stats->n_parts : 1);
  gint64 next_supported = 0, next_unsupported = 0, next = 0;
  if (cap->ids == CAPABILITY_IDS_SUPPORTED_FIRST)
    next_unsupported = stats->supported_parts;
  for (guint32 l = 0; l < n_dl; l++)
    if (rank[l] == 0)
      {
        if (cap->ids == CAPABILITY_IDS_ORDER)
          rank[l] = next++;
        else
          rank[l] = rank_kind[l] ? next_supported++ : next_unsupported++;
        stats->part_kind[rank[l]] = rank_kind[l];
      }

  for (guint i = 0; i < n_nodes; i++)
    ids[i] = 0;
  for (guint v = 0; v < n; v++)
    {
      ids[dag->node_index[v]] = rank[dl[v]];
      stats->supported_nodes += kind[v] != 0;
    }
  if (kind_out)
    memcpy (kind_out, kind, n);
  g_free (rank_kind);
  g_free (rank);
  g_free (dl);
  g_free (compute);
  g_free (level);
  g_free (kind);
}
