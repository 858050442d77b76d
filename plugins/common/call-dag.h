/* The call nodes of a graph as a DAG (the nodes partitioners assign),
 * in compressed adjacency form, and what a partitioning of it costs.
 * Shared by capability and mincut, the tests and the benchmark. */
#ifndef FXS_PARTS_CALL_DAG_H
#define FXS_PARTS_CALL_DAG_H

#include <fxsplit/graph.h>

typedef struct {
  guint n;              /* call nodes, numbered 0..n-1 in graph order */
  guint32 *node_index;  /* graph index of call node i */
  guint32 *pred_off;    /* n + 1 offsets into preds */
  guint32 *preds;       /* distinct call nodes whose values call node i uses */
  guint32 *succ_off;    /* n + 1 offsets into succs */
  guint32 *succs;       /* distinct call nodes that use call node i's value */
} CallDag;

/* Built in time linear in the graph (args and kwargs included).  Placeholders,
 * get_attr and the output node are left out: no partition produces them. */
CallDag *call_dag_new (const FxsGraph *graph);
void     call_dag_free (CallDag *dag);

/* Bytes of each call node's value from meta, 1 when unknown (n entries;
 * free with g_free). */
gint64  *call_dag_value_bytes (const CallDag *dag, const FxsGraph *graph);

/* The bytes the split sends between partitions for the assignment @part
 * (n entries, values below @n_parts): each value counts once for every
 * partition other than its producer's that uses it, which is how often the
 * split passes it on.  Graph inputs (placeholders, get_attr) are not
 * counted. */
gint64   call_dag_cut (const CallDag *dag, const gint64 *bytes, const guint32 *part,
                       guint n_parts);

/* How many of the @n_parts partitions lie on a dependency cycle (0 when
 * the partitions form a DAG). */
guint    call_dag_parts_on_cycles (const CallDag *dag, const guint32 *part, guint n_parts);

#endif
