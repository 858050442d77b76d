/* The report as one self-contained HTML page: no scripts, no external
 * files; the picture is inline SVG. */
#include "report-formats.h"
#include "report-table.h"

#include <string.h>

#include "units.h"
#include "dot-text.h"
#include "partition-view.h"

void
report_html_append_escaped (GString *out, const char *text)
{
  char *escaped = g_markup_escape_text (text, -1);
  g_string_append (out, escaped);
  g_free (escaped);
}

const char report_html_style[] =
  "body{font-family:Helvetica,Arial,sans-serif;margin:2em;color:#222}"
  "table{border-collapse:collapse;margin:1em 0}"
  "th,td{padding:.3em .7em;border-bottom:1px solid #ddd}"
  "th{background:#f4f4f4;text-align:left}"
  "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
  "tfoot td{font-weight:bold;border-top:2px solid #999}"
  "tr.critical td:first-child{font-weight:bold}"
  ".swatch{display:inline-block;width:.9em;height:.9em;margin-right:.4em;"
  "border:1px solid #555;vertical-align:-.1em}"
  "figure{margin:1em 0}figure svg{max-width:100%;height:auto}"
  ".missing{color:#a00}"
  ".pictures{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}"
  ".pictures figure{flex:1 1 20em}";

/* One table row; @partition >= 0 gives it that partition's colour swatch. */
static void
append_row (GString *out, char **row, guint n_columns, const char *tag, gint partition,
            gboolean critical)
{
  g_string_append (out, critical ? "<tr class=\"critical\">" : "<tr>");
  for (guint c = 0; c < n_columns; c++)
    {
      g_string_append_printf (out, "<%s%s>", tag,
                              report_table_column_is_number (c) ? " class=\"n\"" : "");
      if (c == 0 && partition >= 0)
        {
          g_string_append (out, "<span class=\"swatch\" style=\"background:");
          dot_append_colour (out, (guint) partition, DOT_COLOUR_FILL);
          g_string_append (out, "\"></span>");
        }
      report_html_append_escaped (out, row[c]);
      g_string_append_printf (out, "</%s>", tag);
    }
  g_string_append (out, "</tr>\n");
}

static void
append_table (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  ReportTable *table = report_table_new (result, stats);
  guint last = table->rows->len - 1;
  g_string_append (out, "<table>\n<thead>");
  append_row (out, table->rows->pdata[0], table->n_columns, "th", -1, FALSE);
  g_string_append (out, "</thead>\n<tbody>\n");
  for (guint r = 1; r < last; r++)
    append_row (out, table->rows->pdata[r], table->n_columns, "td", (gint) r - 1,
                stats->parts[r - 1].critical);
  g_string_append (out, "</tbody>\n<tfoot>");
  append_row (out, table->rows->pdata[last], table->n_columns, "td", -1, FALSE);
  g_string_append (out, "</tfoot>\n</table>\n");
  report_table_free (table);
}

void
report_html_append_svg (GString *out, const char *svg)
{
  const char *start = strstr (svg, "<svg");
  g_string_append (out, start ? start : svg);
}

void
report_append_html (GString *out, const FxsSplitResult *result, const PartitionStats *stats,
                    const char *svg, const char *missing, guint per_box)
{
  GString *title = g_string_new (NULL);
  g_string_append_printf (title, "fxsplit report: %u partition%s", stats->n,
                          stats->n == 1 ? "" : "s");
  g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<title>");
  report_html_append_escaped (out, title->str);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", report_html_style);
  report_html_append_escaped (out, title->str);
  g_string_append_printf (out, "</h1>\n<p>Costs are <b>%s</b> (include/fxsplit/cost.h); bytes "
                          "count each value once per partition that takes it.  The critical "
                          "path's partitions are in bold.</p>\n",
                          fxs_cost_kind_to_string (stats->kind));
  g_string_free (title, TRUE);
  append_table (out, result, stats);

  GPtrArray *summary = report_summary_new (result, stats);
  g_string_append (out, "<ul>\n");
  for (guint i = 0; i < summary->len; i++)
    {
      g_string_append (out, "<li>");
      report_html_append_escaped (out, summary->pdata[i]);
      g_string_append (out, "</li>\n");
    }
  g_string_append (out, "</ul>\n<h2>Partitions</h2>\n<figure>\n");
  g_ptr_array_unref (summary);
  if (svg && per_box > 1)
    {
      GString *note = g_string_new ("The picture is reduced: each box stands for ");
      units_append_count (note, per_box);
      g_string_append (note, " consecutive partitions (in call order) of the ");
      units_append_count (note, stats->n);
      g_string_append_printf (note, ", so that it has at most %d boxes; the table above lists "
                              "every partition.", PARTITION_VIEW_MAX_BOXES);
      g_string_append (out, "<p class=\"reduced\">");
      report_html_append_escaped (out, note->str);
      g_string_append (out, "</p>\n");
      g_string_free (note, TRUE);
    }
  if (svg)
    report_html_append_svg (out, svg);
  else
    {
      g_string_append (out, "<p class=\"missing\">");
      report_html_append_escaped (out, missing);
      g_string_append (out, "</p>\n");
    }
  g_string_append (out, "</figure>\n</body>\n</html>\n");
}
