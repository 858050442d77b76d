/* Writing graph files: a small JSON emitter that targets either a GString or
 * a FILE* (through a bounded buffer, so a 180 MB file is never held in
 * memory), and the pieces of the graph file format shared by the graph and
 * split-result writers. */
#ifndef FXS_JSON_WRITER_H
#define FXS_JSON_WRITER_H

#include <stdio.h>
#include <glib.h>
#include <fxsplit/graph.h>

typedef struct {
  GString *buf;
  FILE *file;               /* NULL: buf is the output itself */
} FxsJsonWriter;

void fxs_json_writer_init_string (FxsJsonWriter *w, GString *out);
void fxs_json_writer_init_file (FxsJsonWriter *w, FILE *file);
/* Writes out what is buffered (file mode) and frees the buffer. */
void fxs_json_writer_finish (FxsJsonWriter *w);

void fxs_json_write_raw (FxsJsonWriter *w, const char *text);
/* A JSON string: quotes, backslashes and control characters escaped,
 * UTF-8 kept as it is; bytes that are not UTF-8 become U+FFFD. */
void fxs_json_write_string (FxsJsonWriter *w, const char *s, gsize len);
void fxs_json_write_cstring (FxsJsonWriter *w, const char *s);
void fxs_json_write_int (FxsJsonWriter *w, gint64 v);
/* Python's repr ("1.0", "1e-05"), or {"float": "inf"} when not finite. */
void fxs_json_write_float (FxsJsonWriter *w, double v);

/* ---- graph file pieces (graph-save.c) ---------------------------------- */

/* The format header: "{", "format" and "version" members. */
void fxs_graph_write_header (FxsJsonWriter *w);
/* The "attributes" and "nodes" members of @graph, each line starting with
 * @indent, without a trailing comma or newline. */
void fxs_graph_write_members (FxsJsonWriter *w, const FxsGraph *graph, const char *indent);

#endif
