/* What a split costs and moves, per partition: the numbers the report
 * prints and the dot output puts in its labels.
 *
 * Bytes are counted the way the split passes values on, as the mincut
 * partitioner counts its cut: a value a partition takes as a submodule
 * input counts once for that partition, however many of its nodes use it.
 * Values another partition produces are the cut ("received" by the taker,
 * "sent" by the producer); values no partition produces (placeholders and
 * get_attr tensors: the graph's inputs and parameters passed as arguments)
 * count apart as "graph inputs", also once per taking partition.  A value
 * whose size meta does not give counts 1 byte, like mincut, and is counted
 * in n_unknown_bytes so that readers can be told. */
#ifndef FXS_OUT_PARTITION_STATS_H
#define FXS_OUT_PARTITION_STATS_H

#include <fxsplit/cost.h>
#include <fxsplit/split.h>

typedef struct {
  gint64 cost;          /* sum of its nodes' costs */
  gint64 received;      /* bytes of its inputs produced by other partitions */
  gint64 sent;          /* bytes of its outputs, once per other partition taking them */
  gint64 graph_inputs;  /* bytes of its inputs no partition produces */
  gint64 to_output;     /* bytes of its values the graph returns */
  gint64 path_cost;     /* the costliest path through the partition DAG ending here */
  gint path_prev;       /* the partition before it on that path, -1 at the start */
  gboolean critical;    /* on the critical path */
} PartitionStat;

/* Bytes partition @to takes from partition @from (indices in call order). */
typedef struct {
  guint from;
  guint to;
  gint64 bytes;
  guint n_values;
} PartitionEdge;

typedef struct {
  FxsCostKind kind;
  guint n;                    /* partitions */
  PartitionStat *parts;       /* n entries, in call order */
  PartitionEdge *edges;       /* grouped by taker in call order, producers by first use */
  guint n_edges;
  guint64 n_nodes;            /* sums over the partitions */
  guint64 n_inputs;
  guint64 n_outputs;
  gint64 total_cost;
  gint64 max_cost;            /* of the costliest partition, 0 with none */
  gint64 cut_bytes;           /* sum of received (= sum of sent) */
  gint64 graph_input_bytes;   /* sum of graph_inputs */
  gint64 output_bytes;        /* sum of to_output */
  guint n_unknown_bytes;      /* counted values whose size is unknown (1 byte each) */
  guint n_unknown_costs;      /* call nodes whose cost is unknown (0 each) */
  char *first_unknown_cost;   /* the first of them, NULL when none */
  guint *critical;            /* partition indices on the critical path, in order */
  guint n_critical;
  gint64 critical_cost;
} PartitionStats;

/* Computes the stats of @result for costs of @kind, in time linear in the
 * original graph and the partitions' inputs.  Free with
 * partition_stats_free(). */
PartitionStats *partition_stats_new (const FxsSplitResult *result, FxsCostKind kind);
void            partition_stats_free (PartitionStats *stats);

/* Bytes of the value of @node (a node of @graph) as the stats count it;
 * *@known is FALSE (and 1 is returned) when meta does not tell. */
gint64 partition_stats_value_bytes (const FxsGraph *graph, const FxsNode *node,
                                    gboolean *known);

/* The biggest partition's cost over the mean cost; 0 when the total is 0. */
double partition_stats_balance (const PartitionStats *stats);

#endif
