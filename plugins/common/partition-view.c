/* The partition-level DOT picture (see partition-view.h). */
#include "partition-view.h"

#include "dot-text.h"
#include "units.h"

void
partition_view_append_summary (GString *out, const FxsSplitResult *result,
                               const PartitionStats *stats, guint index)
{
  const FxsPartition *p = fxs_split_result_partition (result, index);
  gint64 cost = stats->parts[index].cost;
  units_append_count (out, fxs_partition_n_nodes (p));
  g_string_append (out, fxs_partition_n_nodes (p) == 1 ? " node" : " nodes");
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
partition_view_append_title (GString *out, const PartitionStats *stats)
{
  g_string_append_printf (out, "%u partition%s, cut ", stats->n, stats->n == 1 ? "" : "s");
  units_append_bytes (out, stats->cut_bytes);
  g_string_append_printf (out, ", max/mean %s %.3f", fxs_cost_kind_to_string (stats->kind),
                          partition_stats_balance (stats));
}

static void
append_box (GString *out, const FxsSplitResult *result, const PartitionStats *stats, guint i)
{
  const FxsPartition *p = fxs_split_result_partition (result, i);
  GString *label = g_string_new (fxs_partition_submod_name (p));
  g_string_append_printf (label, " (partition %s)\n", fxs_partition_name (p));
  partition_view_append_summary (label, result, stats, i);
  g_string_append_printf (out, "  p%u [label=", i);
  dot_append_quoted (out, label->str);
  g_string_append (out, ", fillcolor=\"");
  dot_append_colour (out, i, DOT_COLOUR_FILL);
  g_string_append (out, "\", color=\"");
  dot_append_colour (out, i, DOT_COLOUR_BORDER);
  g_string_append_printf (out, "\"%s];\n", stats->parts[i].critical ? ", penwidth=3" : "");
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

void
partition_view_append (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  GString *title = g_string_new (NULL);
  partition_view_append_title (title, stats);
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
  for (guint i = 0; i < stats->n; i++)
    append_box (out, result, stats, i);
  if (has_output)
    g_string_append (out, "  output [label=\"output\", shape=ellipse, "
                          "fillcolor=\"#eeeeee\", color=\"#999999\"];\n");
  char from[32], to[32];
  for (guint i = 0; i < stats->n; i++)
    if (stats->parts[i].graph_inputs > 0)
      {
        g_snprintf (to, sizeof to, "p%u", i);
        append_edge (out, "inputs", to, stats->parts[i].graph_inputs, 0, ", style=dashed");
      }
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
  for (guint i = 0; i < stats->n; i++)
    if (stats->parts[i].to_output > 0)
      {
        g_snprintf (from, sizeof from, "p%u", i);
        append_edge (out, from, "output", stats->parts[i].to_output, 0, ", style=dashed");
      }
  g_string_append (out, "}\n");
}
