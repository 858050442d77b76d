/* The analysis of a split as its two files share it: split.c (pass 1, the
 * partitions and global-state regions, and the entry points) and uses.c
 * (pass 2, the cross-partition uses, and the partitions' order). */
#ifndef FXS_SPLIT_ANALYSIS_H
#define FXS_SPLIT_ANALYSIS_H

#include "split-private.h"
#include "util/table.h"

/* A set_grad_enabled or autocast region: the partitions (dense indices,
 * which follow partition ids once ids never decrease) it spans. */
typedef struct {
  guint32 node;       /* the _set_grad_enabled / _enter_autocast node */
  guint32 exit;       /* the _exit_autocast node, FXS_NO_PARTITION while open */
  guint32 lo, hi;
} Region;

typedef struct {
  FxsSplitResult *r;
  FxsGraph *g;
  guint n;
  GArray *ids;                /* gint64 per dense partition */
  FxsIdMap dense_of_id;
  guint32 last_dense;         /* neighbours usually share a partition */
  FxsPairs *input_pairs, *output_pairs;
  GArray *dep_edges;
  FxsIdSet input_seen, dependency_seen;
  guint8 *is_output;          /* per node: an output of its partition already
                               * (of no other: no set needed) */
  GHashTable *binder;         /* symbol -> index + 1 of the first node that is it */
  FxsSplitPlan *plan;         /* attr_of and call_modules filled in pass 1 */
  GArray *autocast_regions, *grad_regions;
  GHashTable *open_autocast;  /* enter node index + 1 -> region index + 1 */
  gboolean has_global_state;
  GError *error;              /* set deep in the walk over a value (uses.c) */
} Analysis;

static inline const FxsNode *
node_at (const Analysis *a, guint i)
{
  return a->g->nodes->pdata[i];
}

/* Pass 2, after pass 1 assigned every node its partition: the uses of
 * every node. */
gboolean fxs_analysis_record_uses (Analysis *a, GError **error);

/* Puts a->r's partitions (named) in call order and fills r->dependencies
 * and r->dependents from a->dep_edges (one per dependency); FXS_ERROR_CYCLE
 * or, with keep_original_order, FXS_ERROR_GRAPH when there is no order. */
gboolean fxs_analysis_order (Analysis *a, GError **error);

#endif
