/* The partition-level picture of a split as DOT: one box per partition
 * with its cost, an arrow per pair of partitions that pass values, labelled
 * with the bytes, the graph's inputs and output, and the critical path in
 * bold.  Drawn by the dot output (view = partitions) and embedded in the
 * report's HTML page. */
#ifndef FXS_OUT_PARTITION_VIEW_H
#define FXS_OUT_PARTITION_VIEW_H

#include <fxsplit/split.h>

#include "partition-stats.h"

/* Appends the whole digraph. */
void partition_view_append (GString *out, const FxsSplitResult *result,
                            const PartitionStats *stats);

/* "12 nodes, flops 1.82 GFLOP (23.1%)": partition @index's size and cost,
 * for labels. */
void partition_view_append_summary (GString *out, const FxsSplitResult *result,
                                    const PartitionStats *stats, guint index);

/* "4 partitions, cut 2.3 MiB, max/mean flops 1.05": the graph's title. */
void partition_view_append_title (GString *out, const PartitionStats *stats);

#endif
