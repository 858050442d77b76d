/* The report's three formats, each appended to a string. */
#ifndef FXS_OUT_REPORT_FORMATS_H
#define FXS_OUT_REPORT_FORMATS_H

#include "partition-stats.h"

/* For a terminal: the table with aligned columns, then the summary. */
void report_append_text (GString *out, const FxsSplitResult *result,
                         const PartitionStats *stats);

/* RFC 4180 CSV: a header, one row per partition with raw numbers (bytes,
 * costs, share as a fraction, 1 on the critical path), then a "total"
 * row. */
void report_append_csv (GString *out, const FxsSplitResult *result,
                        const PartitionStats *stats);

/* A self-contained HTML page: the table, the summary and the partition
 * picture.  @svg is Graphviz's SVG of it (the <svg> element onwards is
 * embedded), or NULL; then @missing says why there is no picture.  A box
 * of the picture stands for @per_box consecutive partitions (above 1, the
 * page says that the picture is reduced). */
void report_append_html (GString *out, const FxsSplitResult *result,
                         const PartitionStats *stats, const char *svg, const char *missing,
                         guint per_box);

#endif
