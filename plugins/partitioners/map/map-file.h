/* Reading a partition map file: node name -> partition id. */
#ifndef FXS_MAP_FILE_H
#define FXS_MAP_FILE_H

#include <glib.h>

/* Reads @path: a JSON object {"node": id, ...}, or lines "node id" (blank
 * lines and '#' comments allowed).  Returns a table of node name (owned) ->
 * gint64* (owned), or NULL with FXS_ERROR_OPTION "PATH:LINE[:COLUMN]: ..."
 * (quoting at most a short escaped excerpt of the file), FXS_ERROR_PARSE
 * "PATH:LINE:COLUMN: ..." for JSON that is not valid (read by
 * fxs_json_read_int_map: strict UTF-8, the graph file limits), or FXS_ERROR_IO
 * when it cannot be read, is not a file or a pipe, or holds more than
 * FXS_TEXT_FILE_MAX_MAP bytes (fxsplit/text-file.h). */
GHashTable *fxs_map_file_read (const char *path, GError **error);

#endif
