/* Grouping the nodes backends support: the algorithm of the capability
 * partitioner. */
#ifndef FXS_PARTS_CAPABILITY_ASSIGN_H
#define FXS_PARTS_CAPABILITY_ASSIGN_H

#include "call-dag.h"
#include "node-selector.h"

typedef enum {
  CAPABILITY_IDS_ORDER,            /* all partitions numbered in dependency order */
  CAPABILITY_IDS_SUPPORTED_FIRST,  /* supported groups 0..m-1, then the others */
} CapabilityIds;

/* At most this many backends. */
#define CAPABILITY_MAX_BACKENDS 64

typedef struct {
  SelectorList *allow;            /* the one backend's support, when backends is NULL */
  SelectorList *deny;             /* exceptions, for every backend (may be NULL) */
  gint64 min_size;                /* groups with fewer compute nodes go back to unsupported */
  gboolean getitem_with_producer; /* getitem nodes share their producer's support */
  CapabilityIds ids;
  GPtrArray *backends;            /* SelectorList*, in priority order; NULL: allow alone */
  SelectorList *non_compute;      /* nodes that do no work (may be NULL) */
} Capability;

typedef struct {
  guint supported_parts;
  guint unsupported_parts;
  guint supported_nodes;     /* call nodes in supported partitions */
  guint demoted_nodes;       /* supported call nodes in groups below min_size */
  guint bookend_nodes;       /* non-compute nodes moved off a group's edge */
  guint n_parts;
  guint8 *part_kind;         /* per partition id: 0 unsupported, else 1 + its backend;
                                free with g_free */
} CapabilityStats;

/* Fills @ids (one entry per node of @graph, 0 for non-call nodes) and, when
 * not NULL, @kind (one entry per call node of @dag: 0 when it went to an
 * unsupported partition, else 1 + the index of its backend).  A node
 * belongs to the first backend that supports it (allow, or in the order
 * of backends) unless deny names it.
 *
 * Nodes are grouped by levels.  With K backends the levels repeat in
 * rounds of K + 1 slots: unsupported first, then each backend in priority
 * order.  A node's round is the highest among its inputs', plus one after
 * an input in a later slot; its level is round * (K + 1) + slot.  Levels
 * never decrease along an edge and rise wherever the kind changes, so the
 * nodes of one level (one kind) form one partition and the partitions are
 * acyclic.  With one backend the supported groups are as few as any
 * acyclic grouping allows: two supported nodes with an unsupported node on
 * a path between them can never share one, and the count is the most
 * supported runs on one path (before min_size).
 *
 * Then groups with fewer than min_size compute nodes (nodes non_compute
 * does not name) become unsupported, above their level, and a group's
 * non-compute nodes at its edges (those whose inputs in the group are all
 * such nodes, and those whose users in the group are) leave it for an
 * unsupported partition just below or above it: PyTorch's non_compute_ops
 * and remove_bookend_non_compute_ops.  Levels stay non-decreasing along
 * every edge.  Linear in the graph. */
void capability_assign (const Capability *cap, const FxsGraph *graph, const CallDag *dag,
                        gint64 *ids, guint8 *kind, CapabilityStats *stats);

#endif
