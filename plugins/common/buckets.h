/* DDPOptimizer's gradient buckets (torch/_dynamo/backends/distributed.py):
 * the algorithm of the buckets partitioner, here so that the unit tests
 * run it on builder graphs. */
#ifndef FXS_PARTS_BUCKETS_H
#define FXS_PARTS_BUCKETS_H

#include <fxsplit/graph.h>

/* Walks @graph's nodes in reverse, skipping placeholders and the output,
 * adding to the open bucket each node and the bytes of the parameters it
 * uses (all parameters under a call_module target, the parameter a
 * get_attr names; each parameter counted once in the graph, at the last
 * node in graph order that uses it; buffers and constants not at all).
 * Before adding a node, a bucket whose bytes reached @cap (@first_cap for
 * the first one, the graph's end) is closed, provided that one of its
 * nodes has a user outside it; otherwise it grows on.  At the end a
 * front bucket without parameter bytes joins the next one.
 *
 * @ids[i] receives node i's bucket, numbered in graph order from 0 (so
 * ids never decrease along the graph and the split has no cycle);
 * placeholders and the output get 0.  @bytes, when not NULL, receives
 * each bucket's parameter bytes in the same order (a gint64 array).
 * Returns the number of buckets (1 for a graph without parameters, or
 * without nodes). */
guint buckets_assign (const FxsGraph *graph, gint64 cap, gint64 first_cap, gint64 *ids,
                      GArray *bytes);

#endif
