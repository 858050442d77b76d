/* Stages from split points: the algorithm of the splitpoints partitioner. */
#ifndef FXS_PARTS_SPLIT_POINTS_H
#define FXS_PARTS_SPLIT_POINTS_H

#include "node-selector.h"

typedef struct {
  SelectorList *begin_at;   /* a stage begins at each match (may be NULL) */
  SelectorList *end_after;  /* a stage ends after each match (may be NULL) */
  gboolean pipe_split;      /* pipe_split() calls begin a stage */
  gboolean allow_unmatched; /* else a selector matching nothing is an error */
} SplitPoints;

/* Fills @ids (one entry per node of @graph; non-call entries are set to 0)
 * with stage numbers 0, 1, ... that grow by one at every split point between
 * two call nodes, and returns the number of stages (0 without call nodes).
 * A split point before the first or after the last call node makes no
 * empty stage.  Fails with FXS_ERROR_PLUGIN_FAILED, naming the option and
 * the item, when a selector matched no node and @allow_unmatched is off. */
gboolean split_points_assign (const SplitPoints *sp, const FxsGraph *graph, gint64 *ids,
                              guint *n_stages, GError **error);

#endif
