/* The node-level DOT picture (see node-view.h).  Nodes are named by their
 * index ("n12"), so that any node name makes valid DOT; names are labels. */
#include "node-view.h"

#include <string.h>

#include "dot-text.h"
#include "partition-view.h"
#include "units.h"

/* "Conv2d" for a call_module node whose class the attribute table knows. */
static const char *
module_class (const FxsNode *node)
{
  const FxsAttr *a = fxs_graph_lookup_attr (fxs_node_graph (node), fxs_node_target (node));
  const char *cls = a ? fxs_attr_class (a) : NULL;
  if (!cls)
    return NULL;
  const char *dot = strrchr (cls, '.');
  return dot ? dot + 1 : cls;
}

/* Line one the name, line two the target: the module with its class,
 * ".method()", or the function or input's target unless it is the name;
 * inputs add the shape of their value. */
static void
append_label (GString *label, const FxsNode *node)
{
  const char *name = fxs_node_name (node), *target = fxs_node_target (node);
  FxsOp op = fxs_node_op (node);
  g_string_append (label, name);
  if (op == FXS_OP_CALL_MODULE)
    {
      g_string_append_printf (label, "\n%s", target);
      if (module_class (node))
        g_string_append_printf (label, ": %s", module_class (node));
    }
  else if (op == FXS_OP_CALL_METHOD)
    g_string_append_printf (label, "\n.%s()", target);
  else if (strcmp (target, name) != 0)
    g_string_append_printf (label, "\n%s", target);
  if (op == FXS_OP_PLACEHOLDER || op == FXS_OP_GET_ATTR)
    {
      g_string_append_c (label, '\n');
      dot_append_value_shape (label, node);
    }
}

static void
append_node (GString *out, const FxsNode *node, gint partition, const char *indent)
{
  GString *label = g_string_new (NULL);
  append_label (label, node);
  g_string_append_printf (out, "%sn%u [label=", indent, fxs_node_index (node));
  dot_append_quoted (out, label->str);
  g_string_free (label, TRUE);
  if (partition < 0)
    g_string_append (out, ", shape=ellipse, fillcolor=\"#eeeeee\", color=\"#999999\"];\n");
  else
    {
      g_string_append (out, ", fillcolor=\"");
      dot_append_colour (out, (guint) partition, DOT_COLOUR_FILL);
      g_string_append (out, "\", color=\"");
      dot_append_colour (out, (guint) partition, DOT_COLOUR_BORDER);
      g_string_append (out, "\"];\n");
    }
}

/* The cluster of partition @i.  Its title is a text node "t<i>" rather
 * than the cluster's label, which edges entering the cluster would cross:
 * Graphviz routes edges around nodes (see append_title_edges). */
static void
append_cluster (GString *out, const FxsSplitResult *result, const PartitionStats *stats,
                guint i)
{
  const FxsPartition *p = fxs_split_result_partition (result, i);
  GString *label = g_string_new (NULL);
  partition_view_append_heading (label, p);
  partition_view_append_summary (label, result, stats, i);
  g_string_append_printf (out, "  subgraph cluster_p%u {\n    label=\"\"; "
                          "style=\"filled,rounded\"; penwidth=2; fillcolor=\"", i);
  dot_append_colour (out, i, DOT_COLOUR_BACKGROUND);
  g_string_append (out, "\"; color=\"");
  dot_append_colour (out, i, DOT_COLOUR_BORDER);
  g_string_append_printf (out, "\";\n    t%u [shape=plaintext, style=\"\", fontsize=12, label=", i);
  dot_append_quoted (out, label->str);
  g_string_append (out, "];\n");
  g_string_free (label, TRUE);
  for (guint k = 0; k < fxs_partition_n_nodes (p); k++)
    append_node (out, fxs_partition_node (p, k), (gint) i, "    ");
  g_string_append (out, "  }\n");
}

/* The partition index of @node, -1 for nodes no partition holds. */
static gint
partition_index (const FxsSplitResult *result, const FxsNode *node)
{
  const FxsPartition *p = fxs_split_result_partition_of (result, node);
  return p ? (gint) fxs_partition_index (p) : -1;
}

/* Edges from every node to its users.  A value entering another partition
 * is drawn bold in its producer's colour; the first such edge into each
 * partition carries the shape and bytes, as the split passes it once. */
static void
append_edges (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  const FxsGraph *graph = fxs_split_result_original (result);
  guint *labelled = g_new0 (guint, stats->n ? stats->n : 1);  /* node index + 1 */
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      gint from = partition_index (result, node);
      for (guint k = 0; k < fxs_node_n_users (node); k++)
        {
          const FxsNode *user = fxs_node_user (node, k);
          gint to = partition_index (result, user);
          g_string_append_printf (out, "  n%u -> n%u", i, fxs_node_index (user));
          if (from < 0 || to < 0 || from == to)
            {
              g_string_append (out, ";\n");
              continue;
            }
          g_string_append (out, " [style=bold, penwidth=2.5, color=\"");
          dot_append_colour (out, (guint) from, DOT_COLOUR_BORDER);
          g_string_append_c (out, '"');
          if (labelled[to] != i + 1)
            {
              labelled[to] = i + 1;
              GString *label = g_string_new (NULL);
              dot_append_value_shape (label, node);
              g_string_append_c (label, '\n');
              gboolean known;
              units_append_bytes (label, partition_stats_value_bytes (graph, node, &known));
              if (!known)
                g_string_append (label, " (size unknown)");
              g_string_append (out, ", label=");
              dot_append_quoted (out, label->str);
              g_string_free (label, TRUE);
            }
          g_string_append (out, "];\n");
        }
    }
  g_free (labelled);
}

/* Invisible edges that rank each partition's title below every node
 * passing a value into the partition and above every node of the
 * partition that takes nothing from inside it, so that the title heads
 * the cluster and no edge runs through it. */
static void
append_title_edges (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  const FxsGraph *graph = fxs_split_result_original (result);
  guint n = fxs_graph_n_nodes (graph);
  guint8 *inner = g_new0 (guint8, n ? n : 1);        /* takes a value from its own partition */
  guint *above = g_new0 (guint, stats->n ? stats->n : 1);  /* node index + 1 */
  for (guint i = 0; i < n; i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      gint from = partition_index (result, node);
      for (guint k = 0; k < fxs_node_n_users (node); k++)
        {
          const FxsNode *user = fxs_node_user (node, k);
          gint to = partition_index (result, user);
          if (to >= 0 && to == from)
            inner[fxs_node_index (user)] = 1;
          else if (to >= 0 && above[to] != i + 1)
            {
              above[to] = i + 1;
              g_string_append_printf (out, "  n%u -> t%d [style=invis];\n", i, to);
            }
        }
    }
  for (guint i = 0; i < stats->n; i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      for (guint k = 0; k < fxs_partition_n_nodes (p); k++)
        {
          guint v = fxs_node_index (fxs_partition_node (p, k));
          if (!inner[v])
            g_string_append_printf (out, "  t%u -> n%u [style=invis];\n", i, v);
        }
    }
  g_free (above);
  g_free (inner);
}

void
node_view_append (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  GString *title = g_string_new (NULL);
  partition_view_append_title (title, stats);
  g_string_append (title, "\nbold arrows: values passed to another partition");
  g_string_append (out, "digraph \"split\" {\n  graph [fontname=\"Helvetica\", fontsize=12, "
                        "labelloc=t, newrank=true, nodesep=0.25, ranksep=0.3, label=");
  dot_append_quoted (out, title->str);
  g_string_free (title, TRUE);
  g_string_append (out, "];\n"
                        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
                        "fontsize=10, height=0.3];\n"
                        "  edge [color=\"#666666\", arrowsize=0.6, fontname=\"Helvetica\", "
                        "fontsize=9, fontcolor=\"#333333\"];\n");
  const FxsGraph *graph = fxs_split_result_original (result);
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      if (partition_index (result, node) < 0)
        append_node (out, node, -1, "  ");
    }
  for (guint i = 0; i < stats->n; i++)
    append_cluster (out, result, stats, i);
  append_edges (out, result, stats);
  append_title_edges (out, result, stats);
  g_string_append (out, "}\n");
}
