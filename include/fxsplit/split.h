/* fxsplit: the splitting engine.
 *
 * fxs_split() does what torch.fx.passes.split_module.split_module() does:
 * it asks a callback for the partition of every call_function /
 * call_method / call_module node, builds one submodule graph per partition
 * and a top-level graph that calls them in dependency order.  The rules
 * (input and output order, partition order, naming, global-state regions,
 * symbolic sizes) are those of current PyTorch; docs/split-semantics.md
 * lists them and where fxsplit deliberately differs.
 */
#ifndef FXSPLIT_SPLIT_H
#define FXSPLIT_SPLIT_H

#include <stdio.h>
#include <fxsplit/api.h>
#include <glib.h>
#include <fxsplit/graph.h>

G_BEGIN_DECLS

typedef struct FxsSplitOptions FxsSplitOptions;
typedef struct FxsSplitResult FxsSplitResult;
typedef struct FxsPartition FxsPartition;

/* ---- options ------------------------------------------------------------ */

/* Defaults as split_module's: keep_original_order FALSE,
 * keep_original_node_name FALSE, keep_original_input_name TRUE, no
 * partition_affix, tuple_return FALSE.  Free with fxs_split_options_free. */
FXS_API FxsSplitOptions *fxs_split_options_new (void);
FXS_API void     fxs_split_options_free (FxsSplitOptions *options);
FXS_API void     fxs_split_options_set_keep_original_order (FxsSplitOptions *o, gboolean v);
FXS_API gboolean fxs_split_options_get_keep_original_order (const FxsSplitOptions *o);
FXS_API void     fxs_split_options_set_keep_original_node_name (FxsSplitOptions *o, gboolean v);
FXS_API gboolean fxs_split_options_get_keep_original_node_name (const FxsSplitOptions *o);
FXS_API void     fxs_split_options_set_keep_original_input_name (FxsSplitOptions *o, gboolean v);
FXS_API gboolean fxs_split_options_get_keep_original_input_name (const FxsSplitOptions *o);
FXS_API void     fxs_split_options_set_tuple_return (FxsSplitOptions *o, gboolean v);
FXS_API gboolean fxs_split_options_get_tuple_return (const FxsSplitOptions *o);
/* @affix is copied; NULL for none.  Partitions are then named "<affix>_<id>"
 * and their submodules "submod_<affix>_<id>". */
FXS_API void        fxs_split_options_set_partition_affix (FxsSplitOptions *o, const char *affix);
FXS_API const char *fxs_split_options_get_partition_affix (const FxsSplitOptions *o);
/* How many threads may build the produced graphs: 0 (the default) for
 * fxs_get_max_threads() (below), 1 for the calling thread only.  Only
 * big splits (from about 16,000 nodes) use more than one, and at most one
 * per 2,048 nodes.  The result is the same for any number, and so is the
 * error of a failing split. */
FXS_API void  fxs_split_options_set_threads (FxsSplitOptions *o, guint threads);
FXS_API guint fxs_split_options_get_threads (const FxsSplitOptions *o);

/* The most threads the library uses at once to build a split's graphs
 * (loading and writing always run on the calling thread), for the whole
 * process: 0, the default, for as many as the machine has
 * processors; 1 keeps all work on the calling thread.  Only big splits use
 * more than one.  fxs_split_options_set_threads() overrides it for one
 * split.  Results and errors never depend on it.  Safe to call from any
 * thread; operations already running keep the count they started with. */
FXS_API void  fxs_set_max_threads (guint n);
FXS_API guint fxs_get_max_threads (void);

/* ---- splitting ---------------------------------------------------------- */

/* The partition callback: store @node's partition id in *@partition and
 * return TRUE, or set @error and return FALSE to stop the split.  Called
 * exactly once per call_* node, in graph order.  *@partition holds
 * FXS_PARTITION_ID_UNSET on entry: a callback that returns TRUE and leaves
 * it so stops the split with FXS_ERROR_CALLBACK, which is why that one id
 * cannot be used. */
#define FXS_PARTITION_ID_UNSET (G_MININT64 + 808) /* -9223372036854775000 */

typedef gboolean (*FxsSplitCallback) (const FxsNode *node, gpointer user_data,
                                      gint64 *partition, GError **error);

/* Splits @graph.  @options may be NULL for the defaults.  Returns a new
 * result (free with fxs_split_result_free) or NULL with @error set:
 * FXS_ERROR_CALLBACK (prefixed with the node's name), FXS_ERROR_CYCLE (the
 * partitions on the cycle and one edge per step), FXS_ERROR_GLOBAL_STATE,
 * or FXS_ERROR_GRAPH (an attribute target missing from the table, a symbol
 * with no binding node).  The result keeps a reference to @graph. */
FXS_API FxsSplitResult *fxs_split (FxsGraph *graph, FxsSplitCallback callback,
                           gpointer user_data, const FxsSplitOptions *options,
                           GError **error);

/* The same with the partition ids given up front: @ids[i] is the partition
 * of node i (entries of non-call nodes are ignored). */
FXS_API FxsSplitResult *fxs_split_with_ids (FxsGraph *graph, const gint64 *ids,
                                    const FxsSplitOptions *options, GError **error);

/* ---- the result --------------------------------------------------------- */

FXS_API void fxs_split_result_free (FxsSplitResult *result);

/* The graph that was split. */
FXS_API const FxsGraph *fxs_split_result_original (const FxsSplitResult *result);
/* The top-level graph: placeholders, get_attrs, one call_module per
 * partition (with getitem unpacking) and the output.  Its attribute table
 * holds the original get_attr targets and one module entry per submodule. */
FXS_API const FxsGraph *fxs_split_result_top (const FxsSplitResult *result);

/* Partitions in the order the top-level graph calls them. */
FXS_API guint               fxs_split_result_n_partitions (const FxsSplitResult *result);
FXS_API const FxsPartition *fxs_split_result_partition (const FxsSplitResult *result, guint i);
/* The partition a node of the original graph went to; NULL for
 * placeholders, get_attr and output nodes. */
FXS_API const FxsPartition *fxs_split_result_partition_of (const FxsSplitResult *result,
                                                   const FxsNode *original_node);

/* The qualname map, in insertion order: new qualified name in the split
 * module ("submod_1.layer_0_linear") -> qualified name in the original
 * ("layer.0.linear"). */
FXS_API guint       fxs_split_result_n_qualnames (const FxsSplitResult *result);
FXS_API void        fxs_split_result_qualname (const FxsSplitResult *result, guint i,
                                       const char **new_name, const char **old_name);

/* ---- partitions ----------------------------------------------------------- */

/* Position in fxs_split_result_partition() order. */
FXS_API guint        fxs_partition_index (const FxsPartition *p);
/* The id the callback returned. */
FXS_API gint64       fxs_partition_id (const FxsPartition *p);
/* "3", or "<affix>_3" with a partition affix. */
FXS_API const char  *fxs_partition_name (const FxsPartition *p);
/* "submod_3" / "submod_<affix>_3". */
FXS_API const char  *fxs_partition_submod_name (const FxsPartition *p);
/* What the partitioner called it ("supported", "stage 2"; a chain's
 * levels joined with "/", docs/cli.md), or NULL: unlabelled.  UTF-8
 * without control characters. */
FXS_API const char  *fxs_partition_label (const FxsPartition *p);
/* The submodule's graph; its attribute table holds its targets. */
FXS_API const FxsGraph *fxs_partition_graph (const FxsPartition *p);

/* Original nodes assigned to the partition, in graph order. */
FXS_API guint          fxs_partition_n_nodes (const FxsPartition *p);
FXS_API const FxsNode *fxs_partition_node (const FxsPartition *p, guint i);
/* Original nodes whose values the submodule takes as arguments, in call
 * order (module get_attrs, which become get_attr nodes inside, excluded). */
FXS_API guint          fxs_partition_n_inputs (const FxsPartition *p);
FXS_API const FxsNode *fxs_partition_input (const FxsPartition *p, guint i);
/* Original nodes whose values the submodule returns, in return order. */
FXS_API guint          fxs_partition_n_outputs (const FxsPartition *p);
FXS_API const FxsNode *fxs_partition_output (const FxsPartition *p, guint i);
/* Partitions this one takes values from / gives values to, first use first. */
FXS_API guint               fxs_partition_n_dependencies (const FxsPartition *p);
FXS_API const FxsPartition *fxs_partition_dependency (const FxsPartition *p, guint i);
FXS_API guint               fxs_partition_n_dependents (const FxsPartition *p);
FXS_API const FxsPartition *fxs_partition_dependent (const FxsPartition *p, guint i);

/* ---- files ------------------------------------------------------------- */

/* The split result as a graph file (docs/graph-format.md): the top-level
 * graph with its attributes, then "submodules", "partitions" and
 * "qualname_map".  Appended to @out. */
FXS_API void     fxs_split_result_to_json (const FxsSplitResult *result, GString *out);
/* The same streamed to @out (through a bounded buffer: the text is never
 * held in memory whole).  Write errors show in ferror(@out). */
FXS_API void     fxs_split_result_write_json (const FxsSplitResult *result, FILE *out);
/* The same written atomically to @path. */
FXS_API gboolean fxs_split_result_save_file (const FxsSplitResult *result, const char *path,
                                     GError **error);

G_END_DECLS

#endif
