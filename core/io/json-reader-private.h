/* The JSON reader's parts (json-reader.h): feeding yajl and keeping its
 * tokens' positions (json-reader-feed.c), turning tokens into streamed and
 * collected values (json-reader.c), and placing errors
 * (json-reader-errors.c). */
#ifndef FXS_JSON_READER_PRIVATE_H
#define FXS_JSON_READER_PRIVATE_H

#include "json-reader.h"
#include "util/arena.h"

#include <yajl/yajl_parse.h>

/* ---- feeding yajl (json-reader-feed.c) ------------------------------------ */

/* JSON's blanks: what may come between tokens, with commas and colons. */
static inline gboolean
fxs_json_is_blank (char c)
{
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

typedef struct {
  yajl_handle yajl;
  gint64 base;              /* offset of the chunk being parsed */
  const char *piece;        /* the piece of it yajl parses (or parsed last) */
  gsize piece_len;
  gint64 prev_end;          /* end of the last token */
  gint64 total;             /* bytes fed so far */
  gint64 run_from;          /* when only blanks and separators follow prev_end: where the
                             * last run of blanks starts; else -1 */
  gint64 token_from;        /* else: where the pending token starts */
  gint64 bad_escape;        /* where the first unpaired surrogate escape starts, or -1 */
  guint8 esc_state;         /* the escape scanner's state between pieces */
  guint8 esc_digits;        /* hex digits of the \u escape read so far */
  guint32 esc_value;        /* their value */
  gint64 esc_at;            /* where the \u escape (of a high surrogate: its pair) starts */
  gboolean esc_pair;        /* after a high surrogate's escape */
  gboolean completing;      /* inside yajl_complete_parse */
} FxsJsonFeeder;

/* In a yajl callback: where its token is (the end of the one before, the
 * error locator skips the blanks, commas and colons between).  The text @s
 * of a string or key (@quotes 1) or number (@quotes 0), else NULL: when
 * yajl hands it over in place (no escapes, in one piece), its end follows
 * from @s without a call into yajl (a call per token cost 3% at 10^5). */
static inline gint64
fxs_json_feeder_next_token (FxsJsonFeeder *f, const char *s, gsize len, int quotes)
{
  gint64 pos = f->prev_end;
  guintptr at = (guintptr) s - (guintptr) f->piece;  /* wraps around outside the piece */
  if (at < f->piece_len)
    f->prev_end = f->base + (gint64) (at + len) + quotes;
  else
    f->prev_end = f->completing ? f->total : f->base + (gint64) yajl_get_bytes_consumed (f->yajl);
  return pos;
}

/* Feeds the whole input to yajl as strict JSON (no comments, UTF-8
 * validated, one value), each token to @callbacks with @r: what @fd reads
 * when it is >= 0, else the @length bytes at @data, in chunks of
 * r->chunk_size bytes (more while a long token is pending), then its end.
 * FALSE with @error set when a read failed or parsing stopped. */
gboolean fxs_json_feed_all (FxsJsonReader *r, const yajl_callbacks *callbacks, int fd,
                            const char *data, gsize length, GError **error);

/* ---- the reader's state (json-reader.c) --------------------------------------------------- */

/* A value's place in its container, for paths: @key (a member) or @index
 * (an item). */
typedef struct {
  const char *key;
  gsize key_len;
  guint64 index;
} FxsJsonSegment;

typedef struct {
  guint8 type;              /* FXS_JSON_OBJECT or FXS_JSON_ARRAY */
  gboolean streamed;
  int tag;
  gint64 pos;
  guint64 count;            /* streamed: members or items so far */
  gsize start;              /* collected: its first child in the pending stack */
  FxsJsonSegment seg;       /* its own place in its parent, for paths */
  /* streamed objects: the current key and every key so far */
  GString *key;
  gint64 key_pos;
  gboolean own_keys;        /* the consumer checks for duplicates */
  GHashTable *keys;
} FxsJsonFrame;

struct FxsJsonReader {
  char *name;
  FxsJsonHandler handler;
  gpointer user_data;
  FxsJsonFeeder feed;
  gsize max_string;
  gsize chunk_size;

  FxsJsonFrame frames[FXS_JSON_MAX_DEPTH];
  guint depth;
  guint n_collecting;       /* collected frames, all above the streamed ones */
  FxsJson *pending;         /* children of the collected frames */
  gsize n_pending;
  gsize pending_alloc;
  FxsArena scratch;         /* the collected trees: cleared between them, when big */

  gboolean in_item;         /* inside begin()/value(): paths include the item */

  /* the input, for turning offsets into lines */
  const char *data;
  int fd;

  /* the first error */
  FxsErrorCode error_code;
  gint64 error_pos;
  gboolean error_pos_exact; /* else: the token at or after error_pos */
  GString *error_message;   /* "PATH: MESSAGE"; NULL: none yet */
};

/* The place of the child being read in the top frame (key or index, no
 * parent): FALSE between two members of a collected object. */
static inline gboolean
fxs_json_reader_child (const FxsJsonReader *r, FxsJsonSegment *seg)
{
  const FxsJsonFrame *f = &r->frames[r->depth - 1];
  gsize n = r->n_pending - f->start;
  *seg = (FxsJsonSegment) { NULL, 0, 0 };
  if (f->streamed && f->type == FXS_JSON_OBJECT)
    {
      seg->key = f->key->str;
      seg->key_len = f->key->len;
    }
  else if (f->streamed)
    seg->index = f->count;
  else if (f->type == FXS_JSON_ARRAY)
    seg->index = n;
  else if (n % 2 == 1)
    {
      seg->key = r->pending[r->n_pending - 1].u.s;
      seg->key_len = r->pending[r->n_pending - 1].n;
    }
  else
    return FALSE;
  return TRUE;
}

/* Where errors are and what they say (json-reader-errors.c): paths,
 * the first error recorded, and LINE:COLUMN found by rescanning the input. */
/* fxs_json_reader_fail() of a parse error without a path, located exactly
 * at @pos (not at the token at or after it). */
gboolean fxs_json_reader_fail_exact (FxsJsonReader *r, gint64 pos, const char *format, ...)
  G_GNUC_PRINTF (3, 4);
/* Sets @error from the recorded error, located. */
void fxs_json_reader_report (FxsJsonReader *r, GError **error);

#endif
