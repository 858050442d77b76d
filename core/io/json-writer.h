/* Writing graph files: a small JSON emitter that targets either a GString or
 * a FILE* through a fixed buffer (so a 200 MB file is never held in memory),
 * and the pieces of the graph file format shared by the graph and
 * split-result writers.  Appends are inline memcpy's into the buffer: this
 * writer's speed is most of `fxsplit split`'s output time. */
#ifndef FXS_JSON_WRITER_H
#define FXS_JSON_WRITER_H

#include <stdio.h>
#include <string.h>
#include <glib.h>
#include <fxsplit/graph.h>
#include <fxsplit/split.h>

/* Bytes buffered before they go to the GString or the file.  A single
 * append longer than this goes straight through. */
#define FXS_JSON_WRITER_BUFFER (256u * 1024)

typedef struct {
  char *buf;                /* FXS_JSON_WRITER_BUFFER bytes */
  gsize len;
  GString *string;          /* where the bytes go: a string, */
  FILE *file;               /* or else a file */
} FxsJsonWriter;

typedef void (*FxsJsonWriteFunc) (FxsJsonWriter *w, gconstpointer data);
/* Runs @write (@data) with a writer into @string, or else @file.  File
 * write errors stay in the stream's error flag, which the caller checks. */
void fxs_json_write_with (GString *string, FILE *file, FxsJsonWriteFunc write, gconstpointer data);
/* The same into the file at @path, replaced atomically. */
gboolean fxs_json_save_file (const char *path, FxsJsonWriteFunc write, gconstpointer data,
                             GError **error);

/* Makes room for @len more bytes (internal): FALSE when it has dealt with
 * @bytes itself (written them straight through). */
gboolean fxs_json_writer_room (FxsJsonWriter *w, const char *bytes, gsize len);
static inline void
fxs_json_write_bytes (FxsJsonWriter *w, const char *bytes, gsize len)
{
  if (G_UNLIKELY (w->len + len > FXS_JSON_WRITER_BUFFER) && !fxs_json_writer_room (w, bytes, len))
    return;
  memcpy (w->buf + w->len, bytes, len);
  w->len += len;
}

static inline void
fxs_json_write_char (FxsJsonWriter *w, char c)
{
  fxs_json_write_bytes (w, &c, 1);
}

static inline void
fxs_json_write_raw (FxsJsonWriter *w, const char *text)
{
  fxs_json_write_bytes (w, text, strlen (text));
}

/* A string literal, its length known at compile time. */
#define fxs_json_write_literal(w, lit) fxs_json_write_bytes ((w), "" lit, sizeof (lit) - 1)

/* A JSON string: quotes, backslashes and control characters escaped,
 * UTF-8 kept as it is; bytes that are not UTF-8 become U+FFFD. */
void fxs_json_write_string (FxsJsonWriter *w, const char *s, gsize len);
static inline void
fxs_json_write_cstring (FxsJsonWriter *w, const char *s)
{
  fxs_json_write_string (w, s, strlen (s));
}
void fxs_json_write_int (FxsJsonWriter *w, gint64 v);

/* ---- graph file pieces (graph-save.c) ---------------------------------- */

/* A graph file's start: "{", its "format", "version", and @graph's
 * members, without a trailing comma or newline. */
void fxs_graph_write_start (FxsJsonWriter *w, const FxsGraph *graph);
/* The "attributes" and "nodes" members of @graph, each line starting with
 * @indent, without a trailing comma or newline. */
void fxs_graph_write_members (FxsJsonWriter *w, const FxsGraph *graph, const char *indent);
typedef void (*FxsJsonItemFunc) (FxsJsonWriter *w, gconstpointer data, guint i);
/* @indent and @head, then @n items (@item: @data's item i) one a line
 * after @indent and two spaces, then @close: on a line of its own after
 * @indent unless there are no items. */
void fxs_graph_write_list (FxsJsonWriter *w, const char *indent, const char *head, guint n,
                           FxsJsonItemFunc item, gconstpointer data, char close);

#endif
