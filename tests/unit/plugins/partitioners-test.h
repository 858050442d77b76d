/* What the partitioners' unit tests share (test-partitioners*.c). */
#ifndef FXS_TEST_PARTITIONERS_H
#define FXS_TEST_PARTITIONERS_H

#include <fxsplit/fxsplit.h>
#include <string.h>

#include "contiguous.h"
#include "cost-option.h"
#include "call-dag.h"
#include "acyclic-cut.h"
#include "split-points.h"
#include "../test-partitioners-checks.h"
#include "../test-util.h"

/* The bytes the engine's partitions take from other partitions' call
 * nodes: what call_dag_cut() must count. */
static inline gint64
engine_cut (const FxsSplitResult *result)
{
  gint64 cut = 0;
  for (guint p = 0; p < fxs_split_result_n_partitions (result); p++)
    {
      const FxsPartition *part = fxs_split_result_partition (result, p);
      for (guint i = 0; i < fxs_partition_n_inputs (part); i++)
        {
          const FxsNode *in = fxs_partition_input (part, i);
          FxsOp op = fxs_node_op (in);
          if (op == FXS_OP_PLACEHOLDER || op == FXS_OP_GET_ATTR)
            continue;
          gint64 b = fxs_node_output_bytes (in);
          cut += b < 0 ? 1 : b;
        }
    }
  return cut;
}

/* The call-node ids of per-call-node @part as per-graph-node ids. */
static inline gint64 *
graph_ids (const FxsGraph *graph, const CallDag *dag, const guint32 *part)
{
  gint64 *ids = g_new0 (gint64, fxs_graph_n_nodes (graph));
  for (guint v = 0; v < dag->n; v++)
    ids[dag->node_index[v]] = part[v];
  return ids;
}

#endif
