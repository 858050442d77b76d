/* The report as CSV, with raw numbers for spreadsheets and scripts. */
#include "report-formats.h"
#include "report-table.h"

#include <string.h>

/* A field, quoted when it holds a comma, quote or line break. */
static void
append_field (GString *out, const char *text)
{
  if (!strpbrk (text, ",\"\r\n"))
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *c = text; *c; c++)
    {
      if (*c == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *c);
    }
  g_string_append_c (out, '"');
}

static void
append_share (GString *out, gint64 part, gint64 total)
{
  if (total > 0)
    g_string_append_printf (out, "%.6f", (double) part / (double) total);
}

void
report_append_csv (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  gboolean labels = report_has_labels (result);
  g_string_append_printf (out, "partition,submodule,nodes,inputs,outputs,cost_%s,share,"
                          "received_bytes,sent_bytes,graph_input_bytes,output_bytes,"
                          "critical_path%s\r\n", fxs_cost_kind_to_string (stats->kind),
                          labels ? ",label" : "");
  for (guint i = 0; i < stats->n; i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      const PartitionStat *st = &stats->parts[i];
      append_field (out, fxs_partition_name (p));
      g_string_append_c (out, ',');
      append_field (out, fxs_partition_submod_name (p));
      g_string_append_printf (out, ",%u,%u,%u,%" G_GINT64_FORMAT ",",
                              fxs_partition_n_nodes (p), fxs_partition_n_inputs (p),
                              fxs_partition_n_outputs (p), st->cost);
      append_share (out, st->cost, stats->total_cost);
      g_string_append_printf (out, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                              G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%d",
                              st->received, st->sent, st->graph_inputs, st->to_output,
                              st->critical ? 1 : 0);
      if (labels)
        {
          g_string_append_c (out, ',');
          append_field (out, fxs_partition_label (p) ? fxs_partition_label (p) : "");
        }
      g_string_append (out, "\r\n");
    }
  g_string_append_printf (out, "total,,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
                          G_GUINT64_FORMAT ",%" G_GINT64_FORMAT ",",
                          stats->n_nodes, stats->n_inputs, stats->n_outputs, stats->total_cost);
  append_share (out, stats->total_cost, stats->total_cost);
  g_string_append_printf (out, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                          ",%" G_GINT64_FORMAT ",%s\r\n", stats->cut_bytes, stats->cut_bytes,
                          stats->graph_input_bytes, stats->output_bytes, labels ? "," : "");
}
