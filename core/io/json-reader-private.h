/* The JSON reader's parts (json-reader.h): feeding yajl and keeping its
 * tokens' positions (json-reader-feed.c), turning tokens into streamed and
 * collected values (json-reader.c), and placing errors
 * (json-reader-errors.c). */
#ifndef FXS_JSON_READER_PRIVATE_H
#define FXS_JSON_READER_PRIVATE_H

#include "json-reader.h"
#include "util/arena.h"

#include <string.h>
#include <yajl/yajl_parse.h>

/* ---- feeding yajl (json-reader-feed.c) ------------------------------------ */

typedef enum {
  FXS_JSON_FEED_OK,
  FXS_JSON_FEED_STOPPED,    /* a callback stopped it */
  FXS_JSON_FEED_SYNTAX,     /* yajl found the input invalid: message, pos */
  FXS_JSON_FEED_LIMIT,      /* a token ran past the string limit: pos */
  FXS_JSON_FEED_BLANK_LIMIT,/* blanks between two tokens ran past it: pos */
} FxsJsonFeedStatus;

typedef struct {
  yajl_handle yajl;
  gsize max_string;
  gint64 base;              /* offset of the chunk being parsed */
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
  gboolean completing;      /* inside yajl_complete_parse */
  gboolean seen_token;
  FxsJsonFeedStatus status; /* of the last feed */
  gint64 error_pos;
  char *error_message;      /* FXS_JSON_FEED_SYNTAX */
} FxsJsonFeeder;

/* Strict JSON (no comments, UTF-8 validated, one value); each token goes to
 * @callbacks with @ctx. */
void fxs_json_feeder_init (FxsJsonFeeder *f, const yajl_callbacks *callbacks, gpointer ctx,
                           gsize max_string);
void fxs_json_feeder_clear (FxsJsonFeeder *f);

/* In a yajl callback: where its token is (the end of the one before, the
 * error locator skips the blanks, commas and colons between). */
static inline gint64
fxs_json_feeder_next_token (FxsJsonFeeder *f)
{
  gint64 pos = f->prev_end;
  f->prev_end = f->completing ? f->total : f->base + (gint64) yajl_get_bytes_consumed (f->yajl);
  f->seen_token = TRUE;
  return pos;
}

/* In a yajl callback of a string or key, after fxs_json_feeder_next_token:
 * whether an unpaired UTF-16 surrogate escape lies in its text (yajl would
 * decode it to '?', or pair a high surrogate with any escape after it). */
static inline gboolean
fxs_json_feeder_bad_escape (const FxsJsonFeeder *f)
{
  return f->bad_escape >= 0 && f->bad_escape < f->prev_end;
}

/* Feeds the whole input: what @fd reads when it is >= 0, else the @length
 * bytes at @data, in chunks of @chunk bytes (more while a long token is
 * pending), then its end.  FALSE when parsing stopped (f->status) or a read
 * failed (*@read_errno set). */
gboolean fxs_json_feeder_feed_all (FxsJsonFeeder *f, int fd, const char *data, gsize length,
                                   gsize chunk, int *read_errno);

/* ---- the reader's state (json-reader.c) --------------------------------------------------- */

typedef struct {
  guint8 type;              /* FXS_JSON_OBJECT or FXS_JSON_ARRAY */
  gboolean streamed;
  int tag;
  gint64 pos;
  guint64 count;            /* streamed: members or items so far */
  gsize start;              /* collected: its first child in the pending stack */
  /* its own place in its parent, for paths */
  const char *seg_key;
  gsize seg_key_len;
  guint64 seg_index;
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
  gboolean failed;
  FxsErrorCode error_code;
  gint64 error_pos;
  gboolean error_pos_exact; /* else: the token at or after error_pos */
  GString *error_message;   /* "PATH: MESSAGE" */
};

/* Copies @len bytes of text into the scratch arena, NUL-terminated and
 * zero-padded to whole words, and tells whether they hold a byte >= 0x80
 * (*@high) or a NUL (the flag).  A word at a time, checked as it is copied:
 * the tail by overlapping loads, never past @len. */
static inline char *
fxs_json_reader_copy_text (FxsJsonReader *r, const char *s, gsize len, gboolean *high, guint8 *flags)
{
  guint64 *copy = fxs_arena_take (&r->scratch, 8 * (len / 8 + 1));
  const guint64 ones = 0x0101010101010101u, tops = 0x8080808080808080u;
  guint64 any = 0, zero = 0, w;
  gsize i = 0;
  for (; i + 8 <= len; i += 8)
    {
      memcpy (&w, s + i, 8);
      copy[i / 8] = w;
      any |= w;
      zero |= (w - ones) & ~w;
    }
  gsize rest = len - i;
  w = 0;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  if (rest >= 4)
    {
      guint32 head, tail;
      memcpy (&head, s + i, 4);
      memcpy (&tail, s + len - 4, 4);
      w = head | (guint64) tail << (8 * (rest - 4));
    }
  else if (rest > 0)
    w = (guchar) s[i] | (guint64) (guchar) s[i + rest / 2] << (8 * (rest / 2))
        | (guint64) (guchar) s[len - 1] << (8 * (rest - 1));
  guint64 pad = rest ? ~(guint64) 0 << (8 * rest) : ~(guint64) 0;
#else
  memcpy (&w, s + i, rest);
  guint64 pad = rest ? ~(guint64) 0 >> (8 * rest) : ~(guint64) 0;
#endif
  copy[i / 8] = w;
  any |= w;
  guint64 text = w | pad; /* the padding is no NUL of the text */
  zero |= (text - ones) & ~text;
  *high = (any & tops) != 0;
  *flags = zero & tops ? FXS_JSON_HAS_NUL : 0;
  return (char *) copy;
}

/* Where errors are and what they say (json-reader-errors.c): paths,
 * the first error recorded, and LINE:COLUMN found by rescanning the input. */
/* Records why @feeder stopped (a syntax error or the string limit). */
void fxs_json_reader_feed_failed (FxsJsonReader *r, const FxsJsonFeeder *feeder);
/* Sets @error from the recorded error, located. */
void fxs_json_reader_report (FxsJsonReader *r, GError **error);

#endif
