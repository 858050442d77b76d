/* The node-level picture of a split as DOT: every node of the original
 * graph, one cluster per partition, values that cross into another
 * partition in bold with their shape and bytes. */
#ifndef FXS_OUT_NODE_VIEW_H
#define FXS_OUT_NODE_VIEW_H

#include <fxsplit/split.h>

#include "partition-stats.h"

/* Appends the whole digraph; linear in the original graph's size. */
void node_view_append (GString *out, const FxsSplitResult *result, const PartitionStats *stats);

#endif
