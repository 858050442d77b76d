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

/* Cells as the report prints them (units.h), to free with g_free:
 * "1,234", "96.0 KiB", a cost of @kind. */
char *report_cell_count (gint64 n);
char *report_cell_bytes (gint64 bytes);
char *report_cell_cost (FxsCostKind kind, gint64 cost);

/* The mean cost of a partition as the summary's balance line gives it
 * ("5.0" nodes, "1.82 GFLOP"); "-" without partitions. */
void report_append_mean_cost (GString *out, const PartitionStats *stats);

/* Appends @rows (char** of @n_columns cells each) as text with aligned
 * columns, those @is_number says aligned right, trailing blanks cut. */
void report_append_aligned (GString *out, const GPtrArray *rows, guint n_columns,
                            gboolean (*is_number) (guint column));

/* @text escaped for HTML; Graphviz's @svg from its <svg> element on (the
 * XML declaration and doctype may not stand inside HTML). */
void report_html_append_escaped (GString *out, const char *text);
/* The pages' style sheet (report, fxsplit compare). */
extern const char report_html_style[];
void report_html_append_svg (GString *out, const char *svg);

/* The lines under the table: cut, graph inputs, output, balance, critical
 * path, and notes on unknown sizes and costs ("cut: 2.3 MiB ...").  Free
 * with g_ptr_array_unref. */
GPtrArray *report_summary_new (const FxsSplitResult *result, const PartitionStats *stats);

#endif
