/* Numbers as people read them, the same in every format of the report and
 * in the dot output's labels: "784.0 KiB", "1,234,567", "1.82 GFLOP". */
#ifndef FXS_OUT_UNITS_H
#define FXS_OUT_UNITS_H

#include <fxsplit/cost.h>

/* "0 B", "1023 B", "1.0 KiB", "784.0 KiB", "1.5 GiB" (binary units). */
void units_append_bytes (GString *out, gint64 bytes);
/* "1,234,567" */
void units_append_count (GString *out, gint64 n);
/* A cost of @kind: a count for nodes, bytes for the byte kinds, and
 * "1.82 GFLOP" (decimal prefixes, three digits) for flops. */
void units_append_cost (GString *out, FxsCostKind kind, gint64 cost);
/* "23.4%" of @part in @total; "-" when @total is 0. */
void units_append_share (GString *out, gint64 part, gint64 total);

#endif
