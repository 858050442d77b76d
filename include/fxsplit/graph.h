/* fxsplit: the graph model.
 *
 * An FxsGraph is a torch.fx graph: an ordered list of nodes, each with one
 * of the six FX ops, plus the attribute table of the module it belongs to
 * (every get_attr / call_module target with what it is).
 *
 * Ownership: a graph is reference counted (fxs_graph_ref/unref).  Nodes,
 * values, tensor metadata, attributes and every string read through these
 * accessors belong to the graph and stay valid while it is alive.  Graphs are
 * not thread-safe while being built; a finished graph may be read from any
 * number of threads.
 */
#ifndef FXSPLIT_GRAPH_H
#define FXSPLIT_GRAPH_H

#include <glib.h>
#include <fxsplit/api.h>
#include <fxsplit/value.h>

G_BEGIN_DECLS

typedef struct FxsAttr FxsAttr;
typedef struct FxsTensorMeta FxsTensorMeta;

typedef enum {
  FXS_OP_PLACEHOLDER,
  FXS_OP_GET_ATTR,
  FXS_OP_CALL_FUNCTION,
  FXS_OP_CALL_METHOD,
  FXS_OP_CALL_MODULE,
  FXS_OP_OUTPUT,
} FxsOp;

/* "placeholder", "get_attr", ... */
FXS_API const char *fxs_op_to_string (FxsOp op);
/* FALSE when @name is not one of the six op names. */
FXS_API gboolean    fxs_op_from_string (const char *name, FxsOp *op);

/* ---- graphs ---------------------------------------------------------- */

/* A new empty graph with one reference.  Free with fxs_graph_unref(). */
FXS_API FxsGraph *fxs_graph_new (void);
FXS_API FxsGraph *fxs_graph_ref (FxsGraph *graph);
FXS_API void      fxs_graph_unref (FxsGraph *graph);

FXS_API guint          fxs_graph_n_nodes (const FxsGraph *graph);
FXS_API const FxsNode *fxs_graph_node (const FxsGraph *graph, guint index);
FXS_API const FxsNode *fxs_graph_lookup_node (const FxsGraph *graph, const char *name);
/* The output node, or NULL while the graph has none. */
FXS_API const FxsNode *fxs_graph_output_node (const FxsGraph *graph);
/* Number of nodes with @op. */
FXS_API guint          fxs_graph_count_op (const FxsGraph *graph, FxsOp op);

/* The attribute table, in the order the entries were added. */
FXS_API guint          fxs_graph_n_attrs (const FxsGraph *graph);
FXS_API const FxsAttr *fxs_graph_attr (const FxsGraph *graph, guint index);
FXS_API const FxsAttr *fxs_graph_lookup_attr (const FxsGraph *graph, const char *qualname);

/* ---- nodes ----------------------------------------------------------- */

FXS_API FxsOp        fxs_node_op (const FxsNode *node);
FXS_API const char  *fxs_node_name (const FxsNode *node);
/* The target: the placeholder's parameter name, the attribute or module
 * qualified name, the function's qualified name ("_operator.add",
 * "torch.relu"), the method name, or "output". */
FXS_API const char  *fxs_node_target (const FxsNode *node);
/* The name torch.fx derives from the target: the function's __name__ (the
 * last component of its qualified name) or the target string itself. */
FXS_API const char  *fxs_node_target_short_name (const FxsNode *node);
/* args is always a tuple (a placeholder's holds its default value, if it has
 * one), kwargs always a dict with string keys. */
FXS_API const FxsValue *fxs_node_args (const FxsNode *node);
FXS_API const FxsValue *fxs_node_kwargs (const FxsNode *node);
/* The type annotation as torch.fx prints it ("torch.Tensor"), or NULL. */
FXS_API const char  *fxs_node_type (const FxsNode *node);
/* Position in graph order, from 0. */
FXS_API guint        fxs_node_index (const FxsNode *node);
FXS_API const FxsGraph *fxs_node_graph (const FxsNode *node);

/* Users: the nodes whose args or kwargs refer to @node, in graph order,
 * each once. */
FXS_API guint          fxs_node_n_users (const FxsNode *node);
FXS_API const FxsNode *fxs_node_user (const FxsNode *node, guint i);

/* ---- node metadata (meta) ---------------------------------------------- */

/* The tensors the node produces: 0 when unknown, 1 for a tensor, several
 * for a tuple of tensors (then fxs_node_value_is_tuple() is TRUE). */
FXS_API guint                fxs_node_n_tensors (const FxsNode *node);
FXS_API const FxsTensorMeta *fxs_node_tensor (const FxsNode *node, guint i);
FXS_API gboolean             fxs_node_value_is_tuple (const FxsNode *node);
/* Bytes of everything the node produces, or -1 when a shape or dtype is
 * unknown or symbolic. */
FXS_API gint64               fxs_node_output_bytes (const FxsNode *node);
/* The free symbols of the node's value's sizes, sorted ("s0", "s1"). */
FXS_API guint        fxs_node_n_free_symbols (const FxsNode *node);
FXS_API const char  *fxs_node_free_symbol (const FxsNode *node, guint i);
/* The symbol this node's value *is* (a SymInt that is a bare symbol), the
 * node that binds it for later uses; NULL for most nodes. */
FXS_API const char  *fxs_node_symbol (const FxsNode *node);
/* Free-form meta entries (tags, costs): a dict with string keys, never NULL. */
FXS_API const FxsValue *fxs_node_meta (const FxsNode *node);
FXS_API const FxsValue *fxs_node_meta_lookup (const FxsNode *node, const char *key);

/* Tensor metadata. */
FXS_API guint        fxs_tensor_rank (const FxsTensorMeta *t);
/* Size of dimension @d, or -1 when it is symbolic. */
FXS_API gint64       fxs_tensor_dim (const FxsTensorMeta *t, guint d);
/* The symbolic expression of dimension @d ("s0"), or NULL when concrete. */
FXS_API const char  *fxs_tensor_dim_symbol (const FxsTensorMeta *t, guint d);
/* "torch.float32", or NULL when unknown. */
FXS_API const char  *fxs_tensor_dtype (const FxsTensorMeta *t);
/* Bytes of the tensor, or -1 when unknown or symbolic. */
FXS_API gint64       fxs_tensor_bytes (const FxsTensorMeta *t);
/* Bytes of one element of @dtype ("torch.float16" -> 2), 0 if unknown. */
FXS_API guint        fxs_dtype_size (const char *dtype);

/* ---- attributes ------------------------------------------------------- */

typedef enum {
  FXS_ATTR_PARAMETER,
  FXS_ATTR_BUFFER,
  FXS_ATTR_CONSTANT,   /* a plain tensor attribute */
  FXS_ATTR_MODULE,     /* a submodule */
  FXS_ATTR_OBJECT,     /* any other Python value (int, str, ...) */
} FxsAttrKind;

FXS_API const char *fxs_attr_kind_to_string (FxsAttrKind kind);
FXS_API gboolean    fxs_attr_kind_from_string (const char *name, FxsAttrKind *kind);

/* The qualified name in its module ("layer.0.linear.weight"). */
FXS_API const char          *fxs_attr_name (const FxsAttr *attr);
FXS_API FxsAttrKind          fxs_attr_kind (const FxsAttr *attr);
/* For modules, the class's qualified name; NULL otherwise. */
FXS_API const char          *fxs_attr_class (const FxsAttr *attr);
/* For tensors, shape and dtype; NULL when unknown or not a tensor. */
FXS_API const FxsTensorMeta *fxs_attr_tensor (const FxsAttr *attr);
/* Bytes of a tensor attribute, or of all parameters and buffers under a
 * module (found in the same table by name prefix); 0 when unknown. */
FXS_API gint64               fxs_attr_bytes (const FxsAttr *attr);

/* ---- building graphs ---------------------------------------------------- */

/* Appends a node.  @args must be a tuple (NULL for ()), @kwargs a dict with
 * string keys (NULL for {}), both made for @graph; every node they refer to
 * must already be in @graph.  Fails with FXS_ERROR_GRAPH when the name is
 * empty or taken, a reference is not to an earlier node of @graph, or a
 * second output node is added or a node is added after the output node.
 * The returned node belongs to @graph. */
FXS_API FxsNode *fxs_graph_add_node (FxsGraph *graph, FxsOp op, const char *name,
                             const char *target, const FxsValue *args,
                             const FxsValue *kwargs, GError **error);
FXS_API void     fxs_node_set_type (FxsNode *node, const char *type_expr);
/* Sets the produced tensors' metadata: @n tensors (a tuple when @is_tuple). */
FXS_API void     fxs_node_set_tensors (FxsNode *node, const FxsTensorMeta *const *tensors,
                               guint n, gboolean is_tuple);
/* @symbols: sorted, @n entries. */
FXS_API void     fxs_node_set_free_symbols (FxsNode *node, const char *const *symbols, guint n);
FXS_API void     fxs_node_set_symbol (FxsNode *node, const char *symbol);
/* Adds or replaces a free-form meta entry; @value must be made for the graph. */
FXS_API void     fxs_node_set_meta (FxsNode *node, const char *key, const FxsValue *value);

/* Tensor metadata made for @graph.  @dims: @rank sizes, -1 for a symbolic
 * one whose expression is in @symbols[d] (@symbols may be NULL). */
FXS_API FxsTensorMeta *fxs_tensor_meta_new (FxsGraph *graph, guint rank, const gint64 *dims,
                                    const char *const *symbols, const char *dtype);

/* Adds an attribute table entry; @class_name only for modules, @tensor only
 * for tensors (may be NULL).  Fails with FXS_ERROR_GRAPH on a duplicate name. */
FXS_API FxsAttr *fxs_graph_add_attr (FxsGraph *graph, const char *qualname, FxsAttrKind kind,
                             const char *class_name, const FxsTensorMeta *tensor,
                             GError **error);

G_END_DECLS

#endif
