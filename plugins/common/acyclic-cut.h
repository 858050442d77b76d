/* K balanced partitions of a DAG with few bytes between them and no
 * cycle between them: the algorithm of the mincut partitioner. */
#ifndef FXS_PARTS_ACYCLIC_CUT_H
#define FXS_PARTS_ACYCLIC_CUT_H

#include "call-dag.h"

typedef struct {
  guint parts;         /* K >= 1 */
  double tolerance;    /* each part costs at most (1 + tolerance) * total / K */
  guint passes;        /* refinement sweeps at most */
  guint64 seed;        /* tie-breaking among equal gains */
} AcyclicCutParams;

typedef struct {
  gint64 cut;              /* bytes between partitions (call_dag_cut) */
  gint64 contiguous_cut;   /* the same for the balanced partitioner's split */
  gint64 limit;            /* the cost bound every part respected */
  gint64 max_load;         /* the most expensive part */
  gint64 total;            /* the cost of all call nodes */
  gboolean relaxed;        /* the tolerance was below the contiguous optimum */
  guint parts;             /* min(K, n) */
} AcyclicCutStats;

/* Assigns each call node of @dag (costs @cost, value bytes @bytes, both n
 * entries) a part in 0..min(K,n)-1 in @part, such that
 *  - every edge goes from a part to the same or a later one (so the parts
 *    are acyclic, and part numbers are a topological order of them),
 *  - no part is empty and none costs more than the limit
 *    max((1 + tolerance) * total / K, the contiguous optimum), and
 *  - the cut is never larger than that of the optimal contiguous split
 *    (balanced's), from which it starts; it also starts from the contiguous
 *    split with the least crossing bytes under the limit, refines both with
 *    Fiduccia-Mattheyses passes between neighbouring parts and keeps the
 *    better.
 * Deterministic for a given seed. */
void acyclic_cut (const CallDag *dag, const gint64 *cost, const gint64 *bytes,
                  const AcyclicCutParams *params, guint32 *part, AcyclicCutStats *stats);

#endif
