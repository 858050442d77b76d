/* What the partitioners' unit tests share (test-partitioners*.c). */
#ifndef FXS_TEST_PARTITIONERS_H
#define FXS_TEST_PARTITIONERS_H

#include <fxsplit/fxsplit.h>
#include <string.h>

#include "contiguous.h"
#include "cost-option.h"
#include "call-dag.h"
#include "capability-assign.h"
#include "acyclic-cut.h"
#include "split-points.h"
#include "../test-partitioners-graphs.h"
#include "../test-util.h"

/* Splits @graph with @ids and checks that the engine accepts it (above
 * all, no FXS_ERROR_CYCLE); returns the result for more checks. */
static inline FxsSplitResult *
split_checked (FxsGraph *graph, const gint64 *ids)
{
  GError *error = NULL;
  FxsSplitResult *result = fxs_split_with_ids (graph, ids, NULL, &error);
  if (error)
    fprintf (stderr, "\nsplit failed: %s\n", error->message);
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&error);
  return result;
}

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

static inline gint64
id_of (const FxsGraph *g, const gint64 *ids, const char *name)
{
  const FxsNode *node = fxs_graph_lookup_node (g, name);
  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  return ids[fxs_node_index (node)];
}

/* "name=id ..." holds for @ids. */
static inline void
assert_ids (const FxsGraph *g, const gint64 *ids, const char *expected)
{
  char **pairs = g_strsplit (expected, " ", -1);
  for (char **p = pairs; *p; p++)
    {
      char **kv = g_strsplit (*p, "=", 2);
      gint64 want = g_ascii_strtoll (kv[1], NULL, 10);
      gint64 got = id_of (g, ids, kv[0]);
      if (got != want)
        {
          fprintf (stderr, "\n%s: partition %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT "\n",
                   kv[0], got, want);
          CU_FAIL ("wrong partition");
        }
      g_strfreev (kv);
    }
  g_strfreev (pairs);
}

#endif
