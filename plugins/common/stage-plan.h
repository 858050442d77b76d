/* Pipeline stages under device constraints: the algorithm of the balanced
 * partitioner when capacity, speed or bandwidth is set.
 *
 * Elements 0..n-1 (the call nodes, in graph order) go to K stages in
 * order, stage k taking a contiguous run [s, e) that may be empty.  Every
 * element has a cost, parameter bytes and the bytes of the value it
 * produces; it reads values of earlier elements and of "external" values
 * (graph inputs), ids n..n+n_external-1.  For a run [s, e):
 *
 *   memory = parameter bytes of its elements
 *          + bytes of the values its elements produce
 *          + bytes of the values it reads from outside the run (earlier
 *            elements, graph inputs), each value once;
 *   sent   = bytes of the values its elements produce that an element
 *            after the run reads, each value once;
 *   time   = cost / speed[k] + sent / bandwidth   (no second term when
 *            bandwidth is 0).
 *
 * The plan puts every element in a stage with memory <= capacity[k] and
 * the largest time as small as possible (exactly: for equal inputs, no
 * assignment of contiguous runs has a smaller largest time, computed with
 * the same double arithmetic). */
#ifndef FXS_PARTS_STAGE_PLAN_H
#define FXS_PARTS_STAGE_PLAN_H

#include <glib.h>

typedef struct {
  guint n, n_external;
  const gint64 *cost;       /* [n], >= 0 */
  const gint64 *params;     /* [n], >= 0 */
  const gint64 *bytes;      /* [n + n_external], >= 0 */
  const guint32 *in_start;  /* [n + 1]: element j reads in[in_start[j] .. in_start[j+1]) */
  const guint32 *in;        /* value ids, each once per element: < j or >= n */
} StageGraph;

typedef struct {
  guint k;                  /* stages, >= 1 */
  const double *speed;      /* [k], > 0 */
  const gint64 *capacity;   /* [k], or NULL for no limit */
  double bandwidth;         /* bytes per unit of time, > 0; 0: sending is free */
} StageDevices;

/* The most call nodes stage_plan takes when bandwidth is set: sending
 * times make the plan a dynamic program over all pairs of positions. */
#define STAGE_PLAN_MAX_SENDING_ELEMENTS 20000
/* and at most this many (stage, element) pairs (its table of choices). */
#define STAGE_PLAN_MAX_SENDING_PAIRS (1u << 25)

/* Plans @g on @d.  On success returns TRUE, sets @stage_of[i] (the stage
 * of element i, never decreasing) and *@bottleneck (the largest stage
 * time).  When no assignment fits the capacities, returns FALSE and sets
 * *@left_over to the first element that "filling each stage as far as its
 * capacity allows" leaves over, and *@last_start to where the last stage
 * begins then (the stage [*last_start, *left_over + 1) is the smallest
 * that cannot fit).  Time: O((n + reads) x 64) without bandwidth, O(k x
 * n x (n + reads)) with it. */
gboolean stage_plan (const StageGraph *g, const StageDevices *d, guint32 *stage_of,
                     double *bottleneck, guint *left_over, guint *last_start);

/* The memory of the run [@s, @e) as defined above. */
gint64 stage_plan_memory (const StageGraph *g, guint s, guint e);

#endif
