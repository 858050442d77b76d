/* The "cost" option of the partitioners that weigh nodes (balanced,
 * mincut): parsing it, computing the call nodes' costs, and saying how many
 * costs were unknown. */
#ifndef FXS_PARTS_COST_OPTION_H
#define FXS_PARTS_COST_OPTION_H

#include <fxsplit/partitioner.h>
#include <fxsplit/cost.h>

/* The option table entry, for the plugin's table. */
#define COST_OPTION_SPEC                                                       \
  { .key = "cost", .type = FXS_OPTION_STRING, .default_value = "nodes",       \
    .help = "what a node costs: " FXS_COST_KIND_NAMES }

/* Reads the "cost" option; FXS_ERROR_OPTION naming the valid kinds. */
gboolean cost_option_parse (const char *text, FxsCostKind *kind, GError **error);

/* The costs of the call nodes of @graph in graph order (@n_calls entries,
 * free with g_free) and their graph indices in @call_index (free with
 * g_free).  Logs a warning through @ctx (may be NULL) when some costs are
 * unknown. */
gint64 *cost_option_call_costs (FxsPluginContext *ctx, const FxsGraph *graph,
                                FxsCostKind kind, guint *n_calls, guint32 **call_index);

#endif
