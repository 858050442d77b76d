/* fxsplit: the partitioner plugin ABI.
 *
 * A partitioner is a shared module (loaded with dlopen) that exports two
 * symbols:
 *
 *   const FxsPartitionerDescriptor fxsplit_partitioner;   what it is
 *   gboolean split_callback (node, state, &partition, error);  what it does
 *
 * The host checks the descriptor before calling anything, creates one
 * instance per pipeline (init), lets it see the whole graph (prepare), asks
 * split_callback for the partition of every call_function / call_method /
 * call_module node in graph order, then frees the instance (fini).  The
 * same plugin may have several instances alive at once: keep everything in
 * the instance state, nothing in globals.
 *
 * Nodes and graphs are read through <fxsplit/graph.h>; they belong to the
 * host and stay valid until fini.  A minimal plugin:
 *
 *   #include <fxsplit/partitioner.h>
 *
 *   FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
 *     .plugin = { FXS_PARTITIONER_ABI, .name = "single", .version = "1.0",
 *                 .description = "everything in partition 0" },
 *   };
 *
 *   FXS_PLUGIN_EXPORT gboolean
 *   split_callback (const FxsNode *node, gpointer state, gint64 *partition,
 *                   GError **error)
 *   {
 *     *partition = 0;
 *     return TRUE;
 *   }
 */
#ifndef FXSPLIT_PARTITIONER_H
#define FXSPLIT_PARTITIONER_H

#include <fxsplit/plugin.h>
#include <fxsplit/api.h>
#include <fxsplit/graph.h>

G_BEGIN_DECLS

/* Sees the whole graph before the first split_callback, for algorithms that
 * need global knowledge (balancing, precomputed assignments).  Runs once per
 * split.  Return FALSE with @error set to stop the run. */
typedef gboolean (*FxsPartitionerPrepareFunc) (FxsPluginContext *ctx, gpointer state,
                                               const FxsGraph *graph, GError **error);

/* Names partition @partition, one of the ids this instance's split_callback
 * returned (ABI 1.1).  The host calls it once per distinct id, after the
 * last split_callback and before fini.  Return a short UTF-8 text without
 * control characters (at most FXS_PARTITION_LABEL_MAX bytes, e.g.
 * "supported", "backend=cpu", "stage 2"), owned by the plugin and valid
 * until fini, or NULL to leave the partition unlabelled.  Anything else
 * stops the run with an error naming the plugin and the partition. */
typedef const char *(*FxsPartitionerLabelFunc) (gpointer state, gint64 partition);

#define FXS_PARTITION_LABEL_MAX 128

typedef struct {
  FxsPluginInfo plugin;              /* start with FXS_PARTITIONER_ABI */
  FxsPartitionerPrepareFunc prepare; /* optional */
  FxsPartitionerLabelFunc label;     /* optional; ABI 1.1 (was reserved[0]) */
  gpointer reserved[7];              /* zero */
} FxsPartitionerDescriptor;

/* The first four fields of a partitioner's FxsPluginInfo, as a designated
 * initializer: { FXS_PARTITIONER_ABI, .name = ..., ... }. */
#define FXS_PARTITIONER_ABI                                                   \
  .abi_major = FXS_PLUGIN_ABI_MAJOR, .abi_minor = FXS_PLUGIN_ABI_MINOR,        \
  .size = sizeof (FxsPartitionerDescriptor), .kind = FXS_PLUGIN_PARTITIONER

/* The symbol names the host looks up. */
#define FXS_PARTITIONER_DESCRIPTOR_SYMBOL "fxsplit_partitioner"
#define FXS_PARTITIONER_CALLBACK_SYMBOL "split_callback"

/* What a partitioner exports (declared here so that the compiler checks the
 * plugin's definitions against them). */
extern FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner;

/* Stores @node's partition id in *@partition and returns TRUE, or sets
 * @error and returns FALSE to stop the run; the host reports the message
 * with the node's name and the plugin's.  @state is the instance state made
 * by init (NULL without init).  Ids are any 64-bit integers; the split
 * fails when they make partitions depend on each other in a cycle. */
FXS_PLUGIN_EXPORT gboolean split_callback (const FxsNode *node, gpointer state,
                                           gint64 *partition, GError **error);

/* For partitioners that compute every node's id in prepare() into an array
 * indexed by fxs_node_index() (@n_ids entries): their split_callback can be
 *
 *   return fxs_partitioner_precomputed_id (st->ids, st->n_ids, node, partition, error);
 *
 * Stores ids[index of @node] in *@partition, or sets FXS_ERROR_PLUGIN_FAILED
 * when @ids is NULL or the node lies beyond it (a graph prepare() did not
 * see).  Exported by libfxsplit. */
FXS_API gboolean fxs_partitioner_precomputed_id (const gint64 *ids, guint n_ids, const FxsNode *node,
                                         gint64 *partition, GError **error);

G_END_DECLS

#endif
