/* The report for a terminal. */
#include "report-formats.h"
#include "report-table.h"

static void
append_padded (GString *out, const char *cell, guint width, gboolean right)
{
  guint len = (guint) g_utf8_strlen (cell, -1);
  guint pad = width > len ? width - len : 0;
  if (right)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, cell);
  if (!right)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
}

void
report_append_aligned (GString *out, const GPtrArray *rows, guint n_columns,
                       gboolean (*is_number) (guint column))
{
  guint *width = g_new0 (guint, n_columns);
  for (guint r = 0; r < rows->len; r++)
    {
      char **row = rows->pdata[r];
      for (guint c = 0; c < n_columns; c++)
        width[c] = MAX (width[c], (guint) g_utf8_strlen (row[c], -1));
    }
  for (guint r = 0; r < rows->len; r++)
    {
      char **row = rows->pdata[r];
      gsize start = out->len;
      for (guint c = 0; c < n_columns; c++)
        {
          if (c)
            g_string_append (out, "  ");
          /* Headers of number columns are aligned like their numbers. */
          append_padded (out, row[c], width[c], is_number (c));
        }
      while (out->len > start && out->str[out->len - 1] == ' ')
        g_string_truncate (out, out->len - 1);
      g_string_append_c (out, '\n');
    }
  g_free (width);
}

void
report_append_text (GString *out, const FxsSplitResult *result, const PartitionStats *stats)
{
  ReportTable *table = report_table_new (result, stats);
  report_append_aligned (out, table->rows, table->n_columns, report_table_column_is_number);
  report_table_free (table);

  g_string_append_c (out, '\n');
  GPtrArray *summary = report_summary_new (result, stats);
  for (guint i = 0; i < summary->len; i++)
    g_string_append_printf (out, "%s\n", (const char *) summary->pdata[i]);
  g_ptr_array_unref (summary);
}
