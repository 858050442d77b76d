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

typedef struct FxsJsonPieces FxsJsonPieces;

/* A text written lately, for writing it again by copy (fxs_json_writer_recall). */
#define FXS_JSON_MEMO_ENTRIES 4
#define FXS_JSON_MEMO_TEXT 240
typedef struct {
  gconstpointer key;
  guint32 len;
  char text[FXS_JSON_MEMO_TEXT];
} FxsJsonMemoEntry;

typedef struct {
  char *buf;
  gsize len;
  gsize cap;                /* bytes at buf */
  GString *string;          /* string mode: where the bytes go */
  FILE *file;               /* file mode: where the bytes go */
  /* piece mode (json-pieces.c): this writer serializes only its share of
   * the document's units into buffers that another thread writes out */
  FxsJsonPieces *pieces;
  guint thread;
  char *discard;            /* the buffer while it skips */
  guint64 unit;             /* units started so far */
  gboolean emitting;        /* the current unit is this writer's */
  guint64 rooms;            /* calls of fxs_json_writer_room(): buf may have moved */
  FxsJsonMemoEntry memo[FXS_JSON_MEMO_ENTRIES];
  guint memo_next;          /* the entry to replace */
} FxsJsonWriter;

void fxs_json_writer_init_string (FxsJsonWriter *w, GString *out);
void fxs_json_writer_init_file (FxsJsonWriter *w, FILE *file);
/* Writes out what is buffered and frees the buffer.  File write errors
 * stay in the stream's error flag, which the caller checks. */
void fxs_json_writer_finish (FxsJsonWriter *w);

/* Makes room for @len more bytes (internal): FALSE when it has dealt with
 * @bytes itself (written them straight through, or dropped them). */
gboolean fxs_json_writer_room (FxsJsonWriter *w, const char *bytes, gsize len);
/* Piece mode's side of fxs_json_writer_unit() and _room() (internal,
 * json-pieces.c). */
gboolean fxs_json_pieces_unit (FxsJsonWriter *w);
gboolean fxs_json_pieces_room (FxsJsonWriter *w, gsize len);

/* A unit of the document starts: a node, an attribute, a partition or a
 * qualname map entry, with the separator before it.  FALSE when this
 * writer leaves it to another (piece mode): the caller skips it.  The
 * units must be the same, in the same order, every time a document is
 * written. */
static inline gboolean
fxs_json_writer_unit (FxsJsonWriter *w)
{
  if (G_LIKELY (w->pieces == NULL))
    return TRUE;
  return fxs_json_pieces_unit (w);
}

static inline void
fxs_json_write_bytes (FxsJsonWriter *w, const char *bytes, gsize len)
{
  if (G_UNLIKELY (w->len + len > w->cap) && !fxs_json_writer_room (w, bytes, len))
    return;
  memcpy (w->buf + w->len, bytes, len);
  w->len += len;
}

static inline void
fxs_json_write_char (FxsJsonWriter *w, char c)
{
  if (G_UNLIKELY (w->len == w->cap) && !fxs_json_writer_room (w, &c, 1))
    return;
  w->buf[w->len++] = c;
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
void fxs_json_write_cstring (FxsJsonWriter *w, const char *s);
void fxs_json_write_int (FxsJsonWriter *w, gint64 v);
/* Python's repr ("1.0", "1e-05"), or {"float": "inf"} when not finite. */
void fxs_json_write_float (FxsJsonWriter *w, double v);

/* ---- texts written again ------------------------------------------------- */

/* Texts that repeat (node metadata shared by many nodes) are written once
 * and then copied: @key names a text that is the same every time it is
 * written (an immutable object that outlives the writer's document). */
typedef struct {
  guint64 rooms;
  gsize len;
} FxsJsonMark;

/* Writes the text kept for @key: FALSE when none is kept. */
gboolean fxs_json_writer_recall (FxsJsonWriter *w, gconstpointer key);

/* Where the text for a key starts: write it, then call
 * fxs_json_writer_memorize() to keep it (short texts only). */
static inline FxsJsonMark
fxs_json_writer_mark (const FxsJsonWriter *w)
{
  return (FxsJsonMark) { w->rooms, w->len };
}

void fxs_json_writer_memorize (FxsJsonWriter *w, gconstpointer key, FxsJsonMark start);

/* ---- writing on several threads (json-pieces.c) ------------------------- */

/* Writes a whole document. */
typedef void (*FxsJsonEmitFunc) (FxsJsonWriter *w, gconstpointer data);

/* Writes to @out exactly what @emit (@out, @data) writes, serializing on
 * @n_threads threads: the document's @n_units units are cut into pieces of
 * @piece_units; each thread walks the whole document and serializes every
 * n_threads-th piece into a buffer, and the calling thread hands the
 * buffers to @out in order.  At most a few pieces are held at a time. */
void fxs_json_write_pieces (FxsJsonWriter *out, FxsJsonEmitFunc emit, gconstpointer data,
                            guint64 n_units, guint n_threads, guint64 piece_units);

/* Units per piece, and threads at most, for big documents: a piece of
 * nodes is about a megabyte. */
#define FXS_JSON_PIECE_UNITS 4096
#define FXS_JSON_MAX_THREADS 4

/* A split result's document on @n_threads threads with pieces of
 * @piece_units (split-save.c; tests vary both). */
void fxs_split_result_write_pieces (const FxsSplitResult *result, FxsJsonWriter *w,
                                    guint n_threads, guint64 piece_units);

/* ---- graph file pieces (graph-save.c) ---------------------------------- */

/* The format header: "{", "format" and "version" members. */
void fxs_graph_write_header (FxsJsonWriter *w);
/* The units fxs_graph_write_members() writes (attributes and nodes). */
guint64 fxs_graph_write_n_units (const FxsGraph *graph);
/* The "attributes" and "nodes" members of @graph, each line starting with
 * @indent, without a trailing comma or newline. */
void fxs_graph_write_members (FxsJsonWriter *w, const FxsGraph *graph, const char *indent);

#endif
