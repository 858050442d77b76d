/* Grouping the nodes a backend supports: the algorithm of the capability
 * partitioner. */
#ifndef FXS_PARTS_CAPABILITY_ASSIGN_H
#define FXS_PARTS_CAPABILITY_ASSIGN_H

#include "call-dag.h"
#include "node-selector.h"

typedef enum {
  CAPABILITY_IDS_ORDER,            /* all partitions numbered in dependency order */
  CAPABILITY_IDS_SUPPORTED_FIRST,  /* supported groups 0..m-1, then the others */
} CapabilityIds;

typedef struct {
  SelectorList *allow;            /* what the backend supports */
  SelectorList *deny;             /* exceptions (may be NULL) */
  gint64 min_size;                /* smaller groups go back to unsupported */
  gboolean getitem_with_producer; /* getitem nodes share their producer's support */
  CapabilityIds ids;
} Capability;

typedef struct {
  guint supported_parts;
  guint unsupported_parts;
  guint supported_nodes;     /* call nodes in supported partitions */
  guint demoted_nodes;       /* supported call nodes in groups below min_size */
} CapabilityStats;

/* Fills @ids (one entry per node of @graph, 0 for non-call nodes) and, when
 * not NULL, @supported (one entry per call node of @dag: 1 when it went to a
 * supported partition).
 *
 * Nodes are grouped by levels: a supported node's level counts the
 * supported runs (maximal stretches of supported nodes) that some path
 * completes before reaching it, an unsupported node's those completed
 * before it; levels never decrease along an edge and rise wherever support
 * changes.  Nodes of one kind and level form one partition, so every
 * dependency between partitions goes to a higher level and the partitions
 * are acyclic.  Two supported nodes with an unsupported node on a path
 * between them can never share an acyclic partition, so no grouping has
 * fewer supported partitions than the most supported runs on one path,
 * which is the number made here (before min_size demotes small groups).
 * Linear in the graph. */
void capability_assign (const Capability *cap, const FxsGraph *graph, const CallDag *dag,
                        gint64 *ids, guint8 *supported, CapabilityStats *stats);

#endif
