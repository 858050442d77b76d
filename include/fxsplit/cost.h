/* fxsplit: the cost of a node, one definition shared by every partitioner.
 *
 * Partitioners that balance or weigh nodes (balanced, mincut, user plugins)
 * read costs from here so that "cost = flops" means the same thing
 * everywhere.  Costs are non-negative integers; only call_function,
 * call_method and call_module nodes have one (placeholders, get_attr and
 * output nodes cost 0: they are not assigned to partitions).
 *
 * The kinds:
 *   nodes         1 per call node.
 *   param_bytes   bytes of the parameters and buffers the node uses: of its
 *                 call_module target (everything under the module) and of
 *                 the get_attr nodes among its arguments (fxs_attr_bytes).
 *                 A node that uses none costs 0 and is known.
 *   output_bytes  bytes of what the node produces, from the shapes and
 *                 dtypes in its meta (fxs_node_output_bytes).
 *   flops         estimated floating-point operations from the shapes in
 *                 meta: linear/addmm/matmul/mm/bmm/baddbmm, convolutions
 *                 (functions and modules), multi-head attention modules,
 *                 elementwise operations, normalizations, softmax, pooling
 *                 and reductions; shape-only operations (view, getitem,
 *                 size, ...) cost 0 and are known.
 * A node whose cost cannot be computed (no shape in meta, an operation the
 * estimator does not know) costs 0 and is counted as unknown, so that a
 * partitioner can say how much of the graph it balanced blindly.
 */
#ifndef FXSPLIT_COST_H
#define FXSPLIT_COST_H

#include <glib.h>
#include <fxsplit/api.h>
#include <fxsplit/graph.h>

G_BEGIN_DECLS

typedef enum {
  FXS_COST_NODES,
  FXS_COST_PARAM_BYTES,
  FXS_COST_OUTPUT_BYTES,
  FXS_COST_FLOPS,
} FxsCostKind;

/* "nodes", "param_bytes", "output_bytes", "flops". */
FXS_API const char *fxs_cost_kind_to_string (FxsCostKind kind);
/* FALSE when @name is none of them; the valid names, for messages, are
 * FXS_COST_KIND_NAMES. */
FXS_API gboolean    fxs_cost_kind_from_string (const char *name, FxsCostKind *kind);
#define FXS_COST_KIND_NAMES "nodes, param_bytes, output_bytes, flops"

/* The costs of every node of one graph for one kind, computed together in
 * time linear in the size of the graph and its attribute table.  Free with
 * fxs_node_costs_free(); it does not keep the graph alive, so free it
 * first or read it only while the graph lives. */
typedef struct FxsNodeCosts FxsNodeCosts;

FXS_API FxsNodeCosts *fxs_node_costs_new (const FxsGraph *graph, FxsCostKind kind);
FXS_API void          fxs_node_costs_free (FxsNodeCosts *costs);

/* The cost of the node at index @index of the graph (0 for non-call nodes). */
FXS_API gint64        fxs_node_costs_get (const FxsNodeCosts *costs, guint index);
/* All of them, indexed by node index: fxs_graph_n_nodes() entries. */
FXS_API const gint64 *fxs_node_costs_array (const FxsNodeCosts *costs);
/* The sum over the graph.  Single costs are capped so that this sum never
 * overflows (a cap that only absurd estimates reach). */
FXS_API gint64        fxs_node_costs_total (const FxsNodeCosts *costs);
/* How many call nodes got cost 0 because their cost is unknown, and the
 * first of them in graph order (NULL when none), for a log line. */
FXS_API guint          fxs_node_costs_n_unknown (const FxsNodeCosts *costs);
FXS_API const FxsNode *fxs_node_costs_first_unknown (const FxsNodeCosts *costs);

G_END_DECLS

#endif
