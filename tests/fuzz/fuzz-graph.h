/* Decoding fuzz input into a graph and a partition id per node, for the
 * engine harness: every byte string gives a valid graph (references to
 * earlier nodes only), with placeholders and defaults, parameters and
 * modules, calls of every op with nested args and kwargs, getitem,
 * symbolic sizes, grad and autocast regions, and ids from small to the
 * 64-bit extremes. */
#ifndef FXS_FUZZ_GRAPH_H
#define FXS_FUZZ_GRAPH_H

#include <fxsplit/fxsplit.h>
#include <stdint.h>

typedef struct {
  FxsGraph *graph;
  gint64 *ids;                /* one per node */
  FxsSplitOptions *options;
} FuzzGraph;

/* Never fails; free with fuzz_graph_clear(). */
void fuzz_graph_decode (const uint8_t *data, size_t size, FuzzGraph *out);
void fuzz_graph_clear (FuzzGraph *fg);

#endif
