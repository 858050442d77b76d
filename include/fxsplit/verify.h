/* fxsplit: checking that a split computes what the original graph did.
 *
 * fxs_verify_split() inlines every submodule call of a split module back
 * into its top-level graph and compares the result with the original
 * graph, node for node, up to names (docs/split-semantics.md, "What
 * verify checks"):
 *
 *   - the top-level graph has the original's placeholders, in order, with
 *     the same defaults, and its output returns the same structure;
 *   - every call node of the original is computed exactly once: same op,
 *     same target (a submodule's call_module / get_attr targets are mapped
 *     back through the qualname map), same args and kwargs, with every
 *     reference pointing at the node that computes the original's
 *     referent; global-state calls (_set_grad_enabled, autocast enter and
 *     exit) may be re-entered in several submodules;
 *   - every call node runs under the same grad and autocast calls, counted
 *     from the start of its submodule, as in the original;
 *   - nodes only refer to earlier nodes (the partition graph is acyclic),
 *     each submodule is called once, every submodule input is used and
 *     every submodule output is read in the top-level graph.
 *
 * The first difference is reported as FXS_ERROR_VERIFY, one line naming
 * both nodes (name, op, target).  Everything is linear in the sizes of
 * the graphs.
 */
#ifndef FXSPLIT_VERIFY_H
#define FXSPLIT_VERIFY_H

#include <glib.h>
#include <fxsplit/api.h>
#include <fxsplit/graph.h>
#include <fxsplit/split.h>

G_BEGIN_DECLS

/* Checks the split made of @split_top, the submodules it calls
 * (@submodules: submodule name -> const FxsGraph*, e.g. "submod_0") and
 * @qualname_map (new qualified name -> original one, as in a split
 * result; NULL for none) against @original.  Nothing is kept.  Returns
 * TRUE when the split computes the original, else FALSE with @error set
 * (FXS_ERROR_VERIFY). */
FXS_API gboolean fxs_verify_split (const FxsGraph *original, const FxsGraph *split_top,
                           GHashTable *submodules, GHashTable *qualname_map,
                           GError **error);

/* The same for a result of fxs_split(), which also checks that every
 * partition is called after the partitions it depends on. */
FXS_API gboolean fxs_split_result_verify (const FxsSplitResult *result, GError **error);

/* ---- split result files --------------------------------------------------- */

/* A split result file (docs/graph-format.md, "Split results") loaded whole
 * in one pass: the top-level graph, every submodule's graph and the
 * qualname map. */
typedef struct FxsSplitFile FxsSplitFile;

/* Errors are those of fxs_graph_load_file(), plus FXS_ERROR_FORMAT for a
 * qualname map entry that is not a name.  Free with fxs_split_file_free(). */
FXS_API FxsSplitFile *fxs_split_file_load (const char *path, GError **error);
/* The same from memory; @display_name names the data in error messages. */
FXS_API FxsSplitFile *fxs_split_file_load_data (const char *data, gsize length,
                                        const char *display_name, GError **error);
FXS_API void          fxs_split_file_free (FxsSplitFile *file);

/* The graphs belong to the file (take a reference to keep one longer). */
FXS_API const FxsGraph *fxs_split_file_top (const FxsSplitFile *file);
/* Submodules in file order. */
FXS_API guint           fxs_split_file_n_submodules (const FxsSplitFile *file);
FXS_API const char     *fxs_split_file_submodule_name (const FxsSplitFile *file, guint i);
FXS_API const FxsGraph *fxs_split_file_submodule (const FxsSplitFile *file, guint i);
/* The submodule named @name, or NULL. */
FXS_API const FxsGraph *fxs_split_file_lookup_submodule (const FxsSplitFile *file, const char *name);
/* The qualname map's size, and the original name of @new_name (or NULL). */
FXS_API guint           fxs_split_file_n_qualnames (const FxsSplitFile *file);
FXS_API const char     *fxs_split_file_lookup_qualname (const FxsSplitFile *file, const char *new_name);

/* fxs_verify_split() of @file against @original, after checking the
 * file's partitions table against its graphs (docs/split-semantics.md,
 * section 10): a file without one, or without submodules while @original
 * has call nodes, is no split of it (FXS_ERROR_VERIFY). */
FXS_API gboolean fxs_split_file_verify (const FxsGraph *original, const FxsSplitFile *file,
                                GError **error);

G_END_DECLS

#endif
