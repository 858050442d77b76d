/* K balanced partitions of a DAG with few bytes between them and no
 * cycle between them: the algorithm of the mincut partitioner. */
#ifndef FXS_PARTS_ACYCLIC_CUT_H
#define FXS_PARTS_ACYCLIC_CUT_H

#include "acyclic-level.h"

typedef enum {
  ACYCLIC_MULTILEVEL,  /* acyclic-bisect.c, then the refinement below */
  ACYCLIC_REFINE,      /* contiguous starts and the refinement only */
} AcyclicAlgorithm;

/* Called after every level of every bisection has been refined, with the
 * level, its 0/1 assignment and the two sides' cost limits: the tests
 * check acyclicity and balance there. */
typedef void (*AcyclicLevelHook) (const Level *level, const guint8 *side, const gint64 *lim,
                                  gpointer data);

typedef struct {
  guint parts;         /* K >= 1 */
  double tolerance;    /* each part costs at most (1 + tolerance) * total / K */
  guint passes;        /* refinement sweeps at most */
  guint64 seed;        /* tie-breaking among equal gains */
  AcyclicAlgorithm algorithm;
  guint coarsest;      /* multilevel: coarsening stops at this many nodes */
  guint tries;         /* multilevel: initial bisections tried on the coarsest level */
  AcyclicLevelHook level_hook;   /* NULL, or a test's check */
  gpointer hook_data;
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
 *    better; with ACYCLIC_MULTILEVEL, acyclic_multilevel's result too, when
 *    it cuts less.
 * Deterministic for a given seed. */
/* The Fiduccia-Mattheyses refinement of acyclic-cut.c on its own: improves
 * the assignment @part of @m parts in topological order (every edge from a
 * part to the same or a later one, none empty, none above @limit), keeping
 * those properties; the cut never grows. */
void acyclic_refine (const CallDag *dag, const gint64 *cost, const gint64 *bytes, guint m,
                     gint64 limit, const AcyclicCutParams *params, guint32 *part);

/* Multilevel recursive bisection (acyclic-bisect.c): @m parts in
 * topological order, each costing at most @limit when it returns TRUE;
 * FALSE when it found no such assignment (@part is then undefined). */
gboolean acyclic_multilevel (const CallDag *dag, const gint64 *cost, const gint64 *bytes,
                             guint m, gint64 limit, const AcyclicCutParams *params,
                             guint32 *part);

void acyclic_cut (const CallDag *dag, const gint64 *cost, const gint64 *bytes,
                  const AcyclicCutParams *params, guint32 *part, AcyclicCutStats *stats);

#endif
