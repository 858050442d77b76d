/* The partition-level picture of a split as DOT: one box per partition
 * with its cost, an arrow per pair of partitions that pass values, labelled
 * with the bytes, the graph's inputs and output, and the critical path in
 * bold.  Drawn by the dot output (view = partitions) and embedded in the
 * report's HTML page. */
#ifndef FXS_OUT_PARTITION_VIEW_H
#define FXS_OUT_PARTITION_VIEW_H

#include <fxsplit/split.h>

#include "partition-stats.h"

/* Appends the whole digraph, a box per partition. */
void partition_view_append (GString *out, const FxsSplitResult *result,
                            const PartitionStats *stats);

/* Boxes a bounded picture draws at most: Graphviz copes with a few hundred
 * (900,000 boxes made it crash after 52 s and 6.3 GB), and so do readers. */
#define PARTITION_VIEW_MAX_BOXES 200

/* The same with at most @max_boxes boxes (and edges between at most as
 * many pairs of them): beyond, each box stands for that many consecutive
 * partitions (in call order), with their nodes and cost summed, and the
 * arrows sum the bytes passed between them.  Returns how many partitions
 * a box stands for (1: the whole picture). */
guint partition_view_append_at_most (GString *out, const FxsSplitResult *result,
                                     const PartitionStats *stats, guint max_boxes);

/* A partition's title line, "submod_3 (partition 3)" or, labelled,
 * "submod_3 (partition 3): LABEL", and a line break. */
void partition_view_append_heading (GString *label, const FxsPartition *p);
/* "12 nodes, flops 1.82 GFLOP (23.1%)": partition @index's size and cost,
 * for labels. */
void partition_view_append_summary (GString *out, const FxsSplitResult *result,
                                    const PartitionStats *stats, guint index);

/* "4 partitions, cut 2.3 MiB, max/mean flops 1.05": the graph's title. */
void partition_view_append_title (GString *out, const PartitionStats *stats);

#endif
