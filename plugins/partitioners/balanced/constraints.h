/* The balanced partitioner's device constraints: the capacity, speed and
 * bandwidth options, and the plan they ask for (plugins/common/stage-plan.c). */
#ifndef FXS_BALANCED_CONSTRAINTS_H
#define FXS_BALANCED_CONSTRAINTS_H

#include <fxsplit/partitioner.h>
#include <fxsplit/cost.h>

typedef struct {
  guint k;
  double *speed;      /* [k], 1 when speed is unset */
  gint64 *capacity;   /* [k], NULL when capacity is unset */
  double bandwidth;   /* 0 when unset */
} Constraints;

#define CONSTRAINTS_OPTION_SPECS                                                                 \
  { .key = "capacity", .type = FXS_OPTION_STRING,                                                 \
    .help = "memory per stage, one size per stage (16GiB, 16GiB, 8GiB; B, kB, MB, GB, KiB, MiB, GiB, ...): a stage holds its nodes' parameters, the values they produce and the values they read from earlier stages and graph inputs" }, \
  { .key = "speed", .type = FXS_OPTION_STRING,                                                    \
    .help = "relative speed per stage, one positive number per stage (1, 1, 0.5): a stage's time is its cost / speed" }, \
  { .key = "bandwidth", .type = FXS_OPTION_FLOAT,                                                 \
    .help = "bytes sent per unit of cost: a stage's time adds the bytes it sends to later stages / bandwidth (unset: sending is free)" }

/* Stages are devices then: a table per stage. */
#define CONSTRAINTS_MAX_STAGES 65536

/* Reads the options for @k stages into a new Constraints, or NULL when none
 * of them is set (*@error unset) or one is wrong (FXS_ERROR_OPTION naming
 * it).  Free with constraints_free(). */
Constraints *constraints_new (FxsPluginContext *ctx, guint k, GError **error);
void constraints_free (Constraints *c);

/* Plans the stages of @graph's call nodes for the cost @kind into @ids
 * (per node index, 0 for other nodes).  FALSE with an error naming the
 * node that does not fit when no plan fits the capacities. */
gboolean constraints_plan (FxsPluginContext *ctx, const Constraints *c, const FxsGraph *graph,
                           FxsCostKind kind, gint64 *ids, GError **error);

#endif
