/* The report's table and summary as text cells, shared by the text and
 * HTML formats (CSV writes the raw numbers instead). */
#ifndef FXS_OUT_REPORT_TABLE_H
#define FXS_OUT_REPORT_TABLE_H

#include "partition-stats.h"

typedef struct {
  guint n_columns;
  /* char** rows of n_columns cells: the header, one row per partition in
   * call order, then the totals. */
  GPtrArray *rows;
} ReportTable;

ReportTable *report_table_new (const FxsSplitResult *result, const PartitionStats *stats);
void         report_table_free (ReportTable *table);
/* Whether any partition has a label: then the table and the CSV end with
 * a "label" column. */
gboolean     report_has_labels (const FxsSplitResult *result);
/* Columns of numbers, aligned right. */
gboolean     report_table_column_is_number (guint column);

/* The lines under the table: cut, graph inputs, output, balance, critical
 * path, and notes on unknown sizes and costs ("cut: 2.3 MiB ...").  Free
 * with g_ptr_array_unref. */
GPtrArray *report_summary_new (const FxsSplitResult *result, const PartitionStats *stats);

#endif
