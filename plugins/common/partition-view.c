/* The partition-level DOT picture (see partition-view.h). */
#include "partition-view.h"

#include "dot-text.h"
#include "units.h"

/* "12 nodes, flops 1.82 GFLOP (23.1%)" */
static void
append_size_and_cost (GString *out, const PartitionStats *stats, guint64 nodes, gint64 cost)
{
  units_append_count (out, nodes);
  g_string_append (out, nodes == 1 ? " node" : " nodes");
  if (stats->kind != FXS_COST_NODES)
    {
      g_string_append_printf (out, ", %s ", fxs_cost_kind_to_string (stats->kind));
      units_append_cost (out, stats->kind, cost);
    }
  g_string_append (out, " (");
  units_append_share (out, cost, stats->total_cost);
  g_string_append_c (out, ')');
}

void
partition_view_append_summary (GString *out, const FxsSplitResult *result,
                               const PartitionStats *stats, guint index)
{
  const FxsPartition *p = fxs_split_result_partition (result, index);
  append_size_and_cost (out, stats, fxs_partition_n_nodes (p), stats->parts[index].cost);
}

void
partition_view_append_title (GString *out, const PartitionStats *stats)
{
  g_string_append_printf (out, "%u partition%s, cut ", stats->n, stats->n == 1 ? "" : "s");
  units_append_bytes (out, stats->cut_bytes);
  g_string_append_printf (out, ", max/mean %s %.3f", fxs_cost_kind_to_string (stats->kind),
                          partition_stats_balance (stats));
}

/* Box @id with @label in the colours of partition @colour. */
static void
append_box_line (GString *out, guint id, const char *label, guint colour, gboolean critical)
{
  g_string_append_printf (out, "  p%u [label=", id);
  dot_append_quoted (out, label);
  g_string_append (out, ", fillcolor=\"");
  dot_append_colour (out, colour, DOT_COLOUR_FILL);
  g_string_append (out, "\", color=\"");
  dot_append_colour (out, colour, DOT_COLOUR_BORDER);
  g_string_append_printf (out, "\"%s];\n", critical ? ", penwidth=3" : "");
}

void
partition_view_append_heading (GString *label, const FxsPartition *p)
{
  g_string_append_printf (label, "%s (partition %s)", fxs_partition_submod_name (p),
                          fxs_partition_name (p));
  if (fxs_partition_label (p))
    g_string_append_printf (label, ": %s", fxs_partition_label (p));
  g_string_append_c (label, '\n');
}

static void
append_box (GString *out, const FxsSplitResult *result, const PartitionStats *stats, guint i)
{
  const FxsPartition *p = fxs_split_result_partition (result, i);
  GString *label = g_string_new (NULL);
  partition_view_append_heading (label, p);
  partition_view_append_summary (label, result, stats, i);
  append_box_line (out, i, label->str, i, stats->parts[i].critical);
  g_string_free (label, TRUE);
}

/* The label starts with a blank so that it keeps clear of a bold line. */
static void
append_edge (GString *out, const char *from, const char *to, gint64 bytes, guint n_values,
             const char *style)
{
  GString *label = g_string_new (" ");
  units_append_bytes (label, bytes);
  if (n_values > 1)
    g_string_append_printf (label, ", %u values", n_values);
  g_string_append_printf (out, "  %s -> %s [label=", from, to);
  dot_append_quoted (out, label->str);
  g_string_append_printf (out, "%s];\n", style);
  g_string_free (label, TRUE);
}

/* Consecutive partitions drawn as one box (all of them 1: every partition
 * its own box). */
typedef struct {
  guint size;          /* partitions per box */
  guint n;             /* boxes */
  gint64 *cost;        /* per box */
  guint64 *nodes;
  gint64 *graph_inputs;
  gint64 *to_output;
  gboolean *critical;
} Boxes;

static void
boxes_init (Boxes *b, const FxsSplitResult *result, const PartitionStats *stats, guint max)
{
  b->size = stats->n > max ? (stats->n + max - 1) / max : 1;
  b->n = (stats->n + b->size - 1) / b->size;
  guint n = b->n ? b->n : 1;
  b->cost = g_new0 (gint64, n);
  b->nodes = g_new0 (guint64, n);
  b->graph_inputs = g_new0 (gint64, n);
  b->to_output = g_new0 (gint64, n);
  b->critical = g_new0 (gboolean, n);
  for (guint i = 0; i < stats->n; i++)
    {
      guint k = i / b->size;
      b->cost[k] += stats->parts[i].cost;
      b->nodes[k] += fxs_partition_n_nodes (fxs_split_result_partition (result, i));
      b->graph_inputs[k] += stats->parts[i].graph_inputs;
      b->to_output[k] += stats->parts[i].to_output;
      b->critical[k] |= stats->parts[i].critical;
    }
}

static void
boxes_clear (Boxes *b)
{
  g_free (b->cost);
  g_free (b->nodes);
  g_free (b->graph_inputs);
  g_free (b->to_output);
  g_free (b->critical);
}

/* The box of partitions @k * size on: "partitions 0 to 4499 (submod_0 to
 * submod_4499)", their count, nodes and cost. */
static void
append_group_box (GString *out, const FxsSplitResult *result, const PartitionStats *stats,
                  const Boxes *b, guint k)
{
  guint first = k * b->size, last = MIN (first + b->size, stats->n) - 1;
  const FxsPartition *p = fxs_split_result_partition (result, first);
  const FxsPartition *q = fxs_split_result_partition (result, last);
  GString *label = g_string_new (NULL);
  g_string_append_printf (label, "partitions %s to %s\n(%s to %s)\n", fxs_partition_name (p),
                          fxs_partition_name (q), fxs_partition_submod_name (p),
                          fxs_partition_submod_name (q));
  units_append_count (label, last - first + 1);
  g_string_append (label, " partitions, ");
  append_size_and_cost (label, stats, b->nodes[k], b->cost[k]);
  append_box_line (out, k, label->str, first, b->critical[k]);
  g_string_free (label, TRUE);
}

/* The edges between boxes: the partitions' edges summed per pair of boxes
 * (in the order of their first edge), those inside a box left out; with a
 * box per partition, the partitions' edges as they are. */
static void
append_box_edges (GString *out, const PartitionStats *stats, const Boxes *b)
{
  char from[32], to[32];
  if (b->size == 1)
    {
      for (guint e = 0; e < stats->n_edges; e++)
        {
          const PartitionEdge *edge = &stats->edges[e];
          gboolean critical = stats->parts[edge->to].path_prev == (gint) edge->from
                              && stats->parts[edge->to].critical;
          g_snprintf (from, sizeof from, "p%u", edge->from);
          g_snprintf (to, sizeof to, "p%u", edge->to);
          append_edge (out, from, to, edge->bytes, edge->n_values,
                       critical ? ", penwidth=3, color=\"#222222\"" : "");
        }
      return;
    }
  GArray *sums = g_array_new (FALSE, FALSE, sizeof (PartitionEdge));
  GArray *critical = g_array_new (FALSE, FALSE, sizeof (gboolean));
  GHashTable *index = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint e = 0; e < stats->n_edges; e++)
    {
      const PartitionEdge *edge = &stats->edges[e];
      guint from = edge->from / b->size, to = edge->to / b->size;
      if (from == to)
        continue;
      gpointer key = GSIZE_TO_POINTER ((gsize) from * b->n + to + 1);
      gpointer at;
      if (!g_hash_table_lookup_extended (index, key, NULL, &at))
        {
          PartitionEdge sum = { from, to, 0, 0 };
          gboolean no = FALSE;
          at = GUINT_TO_POINTER (sums->len);
          g_array_append_val (sums, sum);
          g_array_append_val (critical, no);
          g_hash_table_insert (index, key, at);
        }
      PartitionEdge *sum = &g_array_index (sums, PartitionEdge, GPOINTER_TO_UINT (at));
      sum->bytes += edge->bytes;
      sum->n_values += edge->n_values;
      g_array_index (critical, gboolean, GPOINTER_TO_UINT (at))
        |= stats->parts[edge->to].path_prev == (gint) edge->from && stats->parts[edge->to].critical;
    }
  for (guint e = 0; e < sums->len; e++)
    {
      const PartitionEdge *sum = &g_array_index (sums, PartitionEdge, e);
      g_snprintf (from, sizeof from, "p%u", sum->from);
      g_snprintf (to, sizeof to, "p%u", sum->to);
      append_edge (out, from, to, sum->bytes, sum->n_values,
                   g_array_index (critical, gboolean, e) ? ", penwidth=3, color=\"#222222\"" : "");
    }
  g_hash_table_unref (index);
  g_array_free (critical, TRUE);
  g_array_free (sums, TRUE);
}

guint
partition_view_append_at_most (GString *out, const FxsSplitResult *result,
                               const PartitionStats *stats, guint max_boxes)
{
  g_return_val_if_fail (max_boxes > 0, 0);
  Boxes b;
  boxes_init (&b, result, stats, max_boxes);
  GString *title = g_string_new (NULL);
  partition_view_append_title (title, stats);
  if (b.size > 1)
    {
      g_string_append (title, "\neach box: ");
      units_append_count (title, b.size);
      g_string_append (title, " consecutive partitions (in call order)");
    }
  g_string_append (title, "\nbold: the critical path (costliest chain of partitions)");
  g_string_append (out, "digraph \"partitions\" {\n  graph [fontname=\"Helvetica\", "
                        "fontsize=12, labelloc=t, nodesep=0.4, ranksep=0.45, label=");
  dot_append_quoted (out, title->str);
  g_string_free (title, TRUE);
  g_string_append (out, "];\n"
                        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
                        "fontsize=11, penwidth=1.5];\n"
                        "  edge [fontname=\"Helvetica\", fontsize=10, color=\"#777777\", "
                        "fontcolor=\"#333333\"];\n");
  gboolean has_inputs = stats->graph_input_bytes > 0, has_output = stats->output_bytes > 0;
  if (has_inputs)
    g_string_append (out, "  inputs [label=\"graph inputs\", shape=ellipse, "
                          "fillcolor=\"#eeeeee\", color=\"#999999\"];\n");
  for (guint k = 0; k < b.n; k++)
    if (b.size == 1)
      append_box (out, result, stats, k);
    else
      append_group_box (out, result, stats, &b, k);
  if (has_output)
    g_string_append (out, "  output [label=\"output\", shape=ellipse, "
                          "fillcolor=\"#eeeeee\", color=\"#999999\"];\n");
  char from[32], to[32];
  for (guint k = 0; k < b.n; k++)
    if (b.graph_inputs[k] > 0)
      {
        g_snprintf (to, sizeof to, "p%u", k);
        append_edge (out, "inputs", to, b.graph_inputs[k], 0, ", style=dashed");
      }
  append_box_edges (out, stats, &b);
  for (guint k = 0; k < b.n; k++)
    if (b.to_output[k] > 0)
      {
        g_snprintf (from, sizeof from, "p%u", k);
        append_edge (out, from, "output", b.to_output[k], 0, ", style=dashed");
      }
  g_string_append (out, "}\n");
  guint size = b.size;
  boxes_clear (&b);
  return size;
}

void
partition_view_append (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  partition_view_append_at_most (out, result, stats, G_MAXUINT);
}
