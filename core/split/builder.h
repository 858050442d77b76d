/* The graph builder of a split (split-build.c) as its schedulers see it
 * (split-workers.c): one builder per thread; each builds whole graphs, one
 * at a time, into memory of its own. */
#ifndef FXS_SPLIT_BUILDER_H
#define FXS_SPLIT_BUILDER_H

#include "split-private.h"

typedef struct FxsBuilder FxsBuilder;

/* A builder copying nodes of @orig as @plan says; with @bulk_chunk > 0 the
 * new graphs' nodes go to bulk blocks of that size (big splits), else to
 * each graph's arena.  @orig and @plan must outlive it. */
FxsBuilder *fxs_builder_new (FxsGraph *orig, const FxsSplitPlan *plan, gsize bulk_chunk);
/* Frees @b (after any graph it began is finished or dropped). */
void        fxs_builder_free (FxsBuilder *b);

/* Begins the top-level graph with what needs nothing of the analysis (the
 * original's placeholders and get_attrs, unless keep_original_order), with
 * room for @n_nodes nodes; may run before fxs_builder_set_result(). */
void     fxs_builder_begin_top (FxsBuilder *b, guint n_nodes);
/* Drops the top-level graph fxs_builder_begin_top() began, when the split
 * failed before it could be finished. */
void     fxs_builder_drop_top (FxsBuilder *b);
/* The analysed result to build, and where the top-level graph's builder
 * records the inputs each partition is passed (at the inputs' offsets). */
void     fxs_builder_set_result (FxsBuilder *b, FxsSplitResult *result, guint32 *passed_inputs);
/* Completes the top-level graph fxs_builder_begin_top() began. */
gboolean fxs_builder_finish_top (FxsBuilder *b, GError **error);
/* Builds the graph of the partition at call-order position @k. */
gboolean fxs_builder_build_partition (FxsBuilder *b, guint k, GError **error);
/* Builds the whole top-level graph. */
gboolean fxs_builder_build_top (FxsBuilder *b, GError **error);

#endif
