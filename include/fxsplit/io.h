/* fxsplit: reading and writing graph files (docs/graph-format.md).
 *
 * Loading streams the file (constant parser memory) and validates it as it
 * goes.  Errors are FXS_ERROR_IO, _PARSE, _FORMAT, _VERSION or _GRAPH with a
 * message that starts with "FILE:LINE:COLUMN:" and names the JSON path and
 * the node where it helps.
 */
#ifndef FXSPLIT_IO_H
#define FXSPLIT_IO_H

#include <glib.h>
#include <fxsplit/api.h>
#include <fxsplit/graph.h>

G_BEGIN_DECLS

/* The graph file format version this build writes and reads. */
#define FXS_GRAPH_FORMAT_VERSION 1

/* Loads the top-level graph of a graph file (or of a split result, which is
 * a graph file too).  Returns a new graph (free with fxs_graph_unref) or NULL
 * with @error set. */
FXS_API FxsGraph *fxs_graph_load_file (const char *path, GError **error);

/* Loads the graph of submodule @submodule ("submod_0") of a split result. */
FXS_API FxsGraph *fxs_graph_load_submodule_file (const char *path, const char *submodule,
                                         GError **error);

/* The same from memory; @display_name names the data in error messages. */
FXS_API FxsGraph *fxs_graph_load_data (const char *data, gsize length,
                               const char *display_name, GError **error);

/* Writes @graph as a graph file, atomically: a temporary file in the same
 * directory renamed over @path on success, removed on failure. */
FXS_API gboolean  fxs_graph_save_file (const FxsGraph *graph, const char *path, GError **error);

/* The graph file text of @graph, appended to @out. */
FXS_API void      fxs_graph_to_json (const FxsGraph *graph, GString *out);

/* Unlinks the hidden temporaries (".NAME.XXXXXX" beside each destination)
 * of every file this process is writing through libfxsplit (pipeline
 * outputs, fxs_graph_save_file, fxs_split_result_save_file) and has not yet
 * committed or aborted (at most 1024 at a time are tracked), after waiting
 * for a commit under way on another thread to end.  Async-signal-safe: for
 * an application's signal or exit handler, which then ends the process. */
FXS_API void      fxs_io_remove_temporaries (void);

G_END_DECLS

#endif
