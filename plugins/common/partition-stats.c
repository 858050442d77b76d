/* Per-partition costs and bytes of a split (see partition-stats.h). */
#include "partition-stats.h"

gint64
partition_stats_value_bytes (const FxsGraph *graph, const FxsNode *node, gboolean *known)
{
  gint64 b = fxs_node_output_bytes (node);
  if (b < 0 && fxs_node_op (node) == FXS_OP_GET_ATTR)
    {
      /* A parameter read with get_attr: its size is in the attribute table. */
      const FxsAttr *a = fxs_graph_lookup_attr (graph, fxs_node_target (node));
      const FxsTensorMeta *t = a ? fxs_attr_tensor (a) : NULL;
      b = t ? fxs_tensor_bytes (t) : -1;
    }
  *known = b >= 0;
  return b >= 0 ? b : 1;
}

static void
add_costs (PartitionStats *s, const FxsSplitResult *result)
{
  const FxsGraph *graph = fxs_split_result_original (result);
  FxsNodeCosts *costs = fxs_node_costs_new (graph, s->kind);
  for (guint i = 0; i < s->n; i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      s->n_nodes += fxs_partition_n_nodes (p);
      s->n_inputs += fxs_partition_n_inputs (p);
      s->n_outputs += fxs_partition_n_outputs (p);
      for (guint k = 0; k < fxs_partition_n_nodes (p); k++)
        s->parts[i].cost += fxs_node_costs_get (costs, fxs_node_index (fxs_partition_node (p, k)));
      s->total_cost += s->parts[i].cost;
      s->max_cost = MAX (s->max_cost, s->parts[i].cost);
    }
  s->n_unknown_costs = fxs_node_costs_n_unknown (costs);
  const FxsNode *first = fxs_node_costs_first_unknown (costs);
  s->first_unknown_cost = first ? g_strdup (fxs_node_name (first)) : NULL;
  fxs_node_costs_free (costs);
}

/* The inputs of every partition: graph inputs, or bytes from a producer,
 * summed per (producer, taker) into edges. */
static void
add_inputs (PartitionStats *s, const FxsSplitResult *result)
{
  const FxsGraph *graph = fxs_split_result_original (result);
  GArray *edges = g_array_new (FALSE, FALSE, sizeof (PartitionEdge));
  /* edge_of[p]: index in edges of (p -> the current taker), valid when
   * stamp[p] is the taker's index + 1. */
  guint *edge_of = g_new (guint, s->n ? s->n : 1);
  guint *stamp = g_new0 (guint, s->n ? s->n : 1);
  for (guint q = 0; q < s->n; q++)
    {
      const FxsPartition *taker = fxs_split_result_partition (result, q);
      for (guint k = 0; k < fxs_partition_n_inputs (taker); k++)
        {
          const FxsNode *value = fxs_partition_input (taker, k);
          gboolean known;
          gint64 bytes = partition_stats_value_bytes (graph, value, &known);
          s->n_unknown_bytes += !known;
          const FxsPartition *producer = fxs_split_result_partition_of (result, value);
          if (!producer)
            {
              s->parts[q].graph_inputs += bytes;
              s->graph_input_bytes += bytes;
              continue;
            }
          guint p = fxs_partition_index (producer);
          if (stamp[p] != q + 1)
            {
              stamp[p] = q + 1;
              edge_of[p] = edges->len;
              PartitionEdge e = { .from = p, .to = q };
              g_array_append_val (edges, e);
            }
          PartitionEdge *e = &g_array_index (edges, PartitionEdge, edge_of[p]);
          e->bytes += bytes;
          e->n_values++;
          s->parts[q].received += bytes;
          s->parts[p].sent += bytes;
          s->cut_bytes += bytes;
        }
    }
  g_free (stamp);
  g_free (edge_of);
  s->n_edges = edges->len;
  s->edges = (PartitionEdge *) g_array_free (edges, FALSE);
}

typedef struct {
  PartitionStats *stats;
  const FxsSplitResult *result;
  guint8 *seen;  /* per original node index */
} OutputScan;

static void
add_output_value (const FxsNode *node, gpointer data)
{
  OutputScan *scan = data;
  guint i = fxs_node_index (node);
  const FxsPartition *p = fxs_split_result_partition_of (scan->result, node);
  if (scan->seen[i] || !p)
    return;
  scan->seen[i] = 1;
  gboolean known;
  gint64 bytes = partition_stats_value_bytes (fxs_node_graph (node), node, &known);
  scan->stats->n_unknown_bytes += !known;
  scan->stats->parts[fxs_partition_index (p)].to_output += bytes;
  scan->stats->output_bytes += bytes;
}

/* What the graph returns from each partition, each value once. */
static void
add_outputs (PartitionStats *s, const FxsSplitResult *result)
{
  const FxsGraph *graph = fxs_split_result_original (result);
  const FxsNode *output = fxs_graph_output_node (graph);
  if (!output)
    return;
  OutputScan scan = { s, result, g_new0 (guint8, fxs_graph_n_nodes (graph)) };
  fxs_value_foreach_node (fxs_node_args (output), add_output_value, &scan);
  fxs_value_foreach_node (fxs_node_kwargs (output), add_output_value, &scan);
  g_free (scan.seen);
}

/* The costliest path through the partition DAG.  Partitions come in the
 * order the top-level graph calls them, so every dependency is done before
 * the partitions that depend on it. */
static void
add_critical_path (PartitionStats *s, const FxsSplitResult *result)
{
  gint last = -1;
  for (guint q = 0; q < s->n; q++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, q);
      PartitionStat *st = &s->parts[q];
      st->path_prev = -1;
      gint64 before = 0;
      for (guint k = 0; k < fxs_partition_n_dependencies (p); k++)
        {
          guint d = fxs_partition_index (fxs_partition_dependency (p, k));
          if (d < q && (st->path_prev < 0 || s->parts[d].path_cost > before))
            {
              before = s->parts[d].path_cost;
              st->path_prev = (gint) d;
            }
        }
      st->path_cost = before + st->cost;
      if (last < 0 || st->path_cost > s->parts[last].path_cost)
        last = (gint) q;
    }
  if (last < 0)
    return;
  s->critical_cost = s->parts[last].path_cost;
  for (gint q = last; q >= 0; q = s->parts[q].path_prev)
    s->n_critical++;
  s->critical = g_new (guint, s->n_critical);
  guint k = s->n_critical;
  for (gint q = last; q >= 0; q = s->parts[q].path_prev)
    {
      s->critical[--k] = (guint) q;
      s->parts[q].critical = TRUE;
    }
}

PartitionStats *
partition_stats_new (const FxsSplitResult *result, FxsCostKind kind)
{
  PartitionStats *s = g_new0 (PartitionStats, 1);
  s->kind = kind;
  s->n = fxs_split_result_n_partitions (result);
  s->parts = g_new0 (PartitionStat, s->n ? s->n : 1);
  add_costs (s, result);
  add_inputs (s, result);
  add_outputs (s, result);
  add_critical_path (s, result);
  return s;
}

void
partition_stats_free (PartitionStats *stats)
{
  if (!stats)
    return;
  g_free (stats->parts);
  g_free (stats->edges);
  g_free (stats->critical);
  g_free (stats->first_unknown_cost);
  g_free (stats);
}

double
partition_stats_balance (const PartitionStats *stats)
{
  if (stats->n == 0 || stats->total_cost <= 0)
    return 0.0;
  return (double) stats->max_cost * stats->n / (double) stats->total_cost;
}
