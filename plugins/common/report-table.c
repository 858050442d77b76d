/* The report's cells and summary lines (see report-table.h). */
#include "report-table.h"

#include "units.h"

enum { N_COLUMNS = 10, FIRST_NUMBER_COLUMN = 2 };

gboolean
report_table_column_is_number (guint column)
{
  return column >= FIRST_NUMBER_COLUMN && column < N_COLUMNS;  /* a label column is text */
}

gboolean
report_has_labels (const FxsSplitResult *result)
{
  for (guint i = 0; i < fxs_split_result_n_partitions (result); i++)
    if (fxs_partition_label (fxs_split_result_partition (result, i)))
      return TRUE;
  return FALSE;
}

char *
report_cell_count (gint64 n)
{
  GString *s = g_string_new (NULL);
  units_append_count (s, n);
  return g_string_free (s, FALSE);
}

char *
report_cell_bytes (gint64 bytes)
{
  GString *s = g_string_new (NULL);
  units_append_bytes (s, bytes);
  return g_string_free (s, FALSE);
}

char *
report_cell_cost (FxsCostKind kind, gint64 cost)
{
  GString *s = g_string_new (NULL);
  units_append_cost (s, kind, cost);
  return g_string_free (s, FALSE);
}

static char *
share_cell (gint64 part, gint64 total)
{
  GString *s = g_string_new (NULL);
  units_append_share (s, part, total);
  return g_string_free (s, FALSE);
}

ReportTable *
report_table_new (const FxsSplitResult *result, const PartitionStats *stats)
{
  ReportTable *t = g_new0 (ReportTable, 1);
  gboolean labels = report_has_labels (result);
  t->n_columns = N_COLUMNS + labels;
  t->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  char **header = g_new0 (char *, N_COLUMNS + 2);
  const char *const names[N_COLUMNS] = { "partition", "submodule", "nodes", "inputs",
                                         "outputs", NULL, "share", "received", "sent",
                                         "graph inputs" };
  for (guint c = 0; c < N_COLUMNS; c++)
    header[c] = names[c] ? g_strdup (names[c])
                         : g_strdup_printf ("cost (%s)", fxs_cost_kind_to_string (stats->kind));
  if (labels)
    header[N_COLUMNS] = g_strdup ("label");
  g_ptr_array_add (t->rows, header);
  for (guint i = 0; i < stats->n; i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      const PartitionStat *st = &stats->parts[i];
      char **row = g_new0 (char *, N_COLUMNS + 2);
      row[0] = g_strdup (fxs_partition_name (p));
      row[1] = g_strdup (fxs_partition_submod_name (p));
      row[2] = report_cell_count (fxs_partition_n_nodes (p));
      row[3] = report_cell_count (fxs_partition_n_inputs (p));
      row[4] = report_cell_count (fxs_partition_n_outputs (p));
      row[5] = report_cell_cost (stats->kind, st->cost);
      row[6] = share_cell (st->cost, stats->total_cost);
      row[7] = report_cell_bytes (st->received);
      row[8] = report_cell_bytes (st->sent);
      row[9] = report_cell_bytes (st->graph_inputs);
      if (labels)
        row[N_COLUMNS] = g_strdup (fxs_partition_label (p) ? fxs_partition_label (p) : "");
      g_ptr_array_add (t->rows, row);
    }
  char **total = g_new0 (char *, N_COLUMNS + 2);
  total[0] = g_strdup ("total");
  total[1] = g_strdup ("");
  total[2] = report_cell_count ((gint64) stats->n_nodes);
  total[3] = report_cell_count ((gint64) stats->n_inputs);
  total[4] = report_cell_count ((gint64) stats->n_outputs);
  total[5] = report_cell_cost (stats->kind, stats->total_cost);
  total[6] = share_cell (stats->total_cost, stats->total_cost);
  total[7] = report_cell_bytes (stats->cut_bytes);
  total[8] = report_cell_bytes (stats->cut_bytes);
  total[9] = report_cell_bytes (stats->graph_input_bytes);
  if (labels)
    total[N_COLUMNS] = g_strdup ("");
  g_ptr_array_add (t->rows, total);
  return t;
}

void
report_table_free (ReportTable *table)
{
  if (!table)
    return;
  g_ptr_array_unref (table->rows);
  g_free (table);
}

static void
add_line (GPtrArray *lines, GString *line)
{
  g_ptr_array_add (lines, g_string_free (line, FALSE));
}

void
report_append_mean_cost (GString *out, const PartitionStats *stats)
{
  if (stats->n == 0)
    g_string_append (out, "-");
  /* A mean of node counts is seldom whole; the other kinds are large. */
  else if (stats->kind == FXS_COST_NODES)
    g_string_append_printf (out, "%.1f", (double) stats->total_cost / stats->n);
  else
    units_append_cost (out, stats->kind, (stats->total_cost + stats->n / 2) / stats->n);
}

static void
add_balance (GPtrArray *lines, const PartitionStats *stats, const FxsSplitResult *result)
{
  GString *l = g_string_new (NULL);
  const char *kind = fxs_cost_kind_to_string (stats->kind);
  if (stats->total_cost <= 0)
    {
      g_string_append_printf (l, "balance: - (every partition costs 0 %s)", kind);
      add_line (lines, l);
      return;
    }
  guint biggest = 0;
  while (stats->parts[biggest].cost != stats->max_cost)
    biggest++;
  g_string_append_printf (l, "balance: max/mean %s %.3f (the costliest, %s, ", kind,
                          partition_stats_balance (stats),
                          fxs_partition_submod_name (fxs_split_result_partition (result, biggest)));
  units_append_cost (l, stats->kind, stats->max_cost);
  g_string_append (l, "; the mean ");
  report_append_mean_cost (l, stats);
  g_string_append_c (l, ')');
  add_line (lines, l);
}

static void
add_critical_path (GPtrArray *lines, const PartitionStats *stats, const FxsSplitResult *result)
{
  if (stats->n_critical == 0)
    {
      g_ptr_array_add (lines, g_strdup ("critical path: none (no partitions)"));
      return;
    }
  GString *l = g_string_new ("critical path: ");
  for (guint k = 0; k < stats->n_critical; k++)
    g_string_append_printf (l, "%s%s", k ? " -> " : "",
                            fxs_partition_submod_name (
                              fxs_split_result_partition (result, stats->critical[k])));
  g_string_append_printf (l, " (%s ", fxs_cost_kind_to_string (stats->kind));
  units_append_cost (l, stats->kind, stats->critical_cost);
  g_string_append (l, ", ");
  units_append_share (l, stats->critical_cost, stats->total_cost);
  g_string_append (l, " of the total)");
  add_line (lines, l);
}

GPtrArray *
report_summary_new (const FxsSplitResult *result, const PartitionStats *stats)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  guint n_values = 0;
  for (guint e = 0; e < stats->n_edges; e++)
    n_values += stats->edges[e].n_values;

  GString *l = g_string_new ("cut: ");
  units_append_bytes (l, stats->cut_bytes);
  g_string_append (l, " passed between partitions (");
  units_append_count (l, stats->cut_bytes);
  g_string_append_printf (l, " bytes; %u value%s, each once per partition taking it)",
                          n_values, n_values == 1 ? "" : "s");
  add_line (lines, l);

  l = g_string_new ("graph inputs: ");
  units_append_bytes (l, stats->graph_input_bytes);
  g_string_append (l, " taken by partitions (placeholders and get_attr values, which no "
                      "partition produces; not part of the cut)");
  add_line (lines, l);

  l = g_string_new ("output: ");
  units_append_bytes (l, stats->output_bytes);
  g_string_append (l, " returned by the graph");
  add_line (lines, l);

  add_balance (lines, stats, result);
  add_critical_path (lines, stats, result);

  if (stats->n_unknown_bytes)
    g_ptr_array_add (lines, g_strdup_printf ("note: %u value%s of unknown size (no shape in "
                                             "meta) counted as 1 byte each",
                                             stats->n_unknown_bytes,
                                             stats->n_unknown_bytes == 1 ? "" : "s"));
  if (stats->n_unknown_costs)
    g_ptr_array_add (lines, g_strdup_printf ("note: %u call node%s of unknown %s cost counted "
                                             "as 0 (the first is '%s')",
                                             stats->n_unknown_costs,
                                             stats->n_unknown_costs == 1 ? "" : "s",
                                             fxs_cost_kind_to_string (stats->kind),
                                             stats->first_unknown_cost));
  return lines;
}
