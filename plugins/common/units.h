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

/* Reads a byte size: a non-negative number (decimals allowed) with an
 * optional unit, spaces allowed between them: "4096", "512 B", "1.5kB",
 * "25MiB", "16 GiB".  kB, MB, GB, TB are powers of 1000; KiB, MiB, GiB,
 * TiB powers of 1024; B or none bytes (a fraction of a byte rounds down).
 * FALSE when @text is not one or the size is beyond 2^62 bytes. */
gboolean units_parse_bytes (const char *text, gint64 *bytes);
#define UNITS_BYTES_SYNTAX "a number of bytes with an optional unit B, kB, MB, GB, TB, KiB, MiB, GiB or TiB"

#endif
