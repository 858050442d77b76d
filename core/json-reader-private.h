/* The JSON reader's parts (json-reader.h): feeding yajl and keeping its
 * tokens' positions (json-reader-feed.c), turning tokens into streamed and
 * collected values (json-reader.c), and running the first on a thread of
 * its own (json-reader-thread.c). */
#ifndef FXS_JSON_READER_PRIVATE_H
#define FXS_JSON_READER_PRIVATE_H

#include "json-reader.h"

#include <yajl/yajl_parse.h>

/* ---- feeding yajl (json-reader-feed.c) ------------------------------------ */

typedef enum {
  FXS_JSON_FEED_OK,
  FXS_JSON_FEED_STOPPED,    /* a callback stopped it */
  FXS_JSON_FEED_SYNTAX,     /* yajl found the input invalid: message, pos */
  FXS_JSON_FEED_LIMIT,      /* a token ran past the string limit: pos */
} FxsJsonFeedStatus;

typedef struct {
  yajl_handle yajl;
  gsize max_string;
  gint64 base;              /* offset of the chunk being parsed */
  gint64 prev_end;          /* end of the last token */
  gint64 total;             /* bytes fed so far */
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

/* Feeds one chunk, or says the input ended; FALSE when parsing stopped
 * (f->status says why). */
gboolean fxs_json_feeder_feed (FxsJsonFeeder *f, const char *chunk, gsize len);
gboolean fxs_json_feeder_complete (FxsJsonFeeder *f);
/* The next chunk's size: @chunk, or more while a long token is pending. */
gsize fxs_json_feeder_chunk_size (const FxsJsonFeeder *f, gsize chunk);
/* Feeds the whole input: what @fd reads when it is >= 0, else the @length
 * bytes at @data, in chunks of @chunk bytes (more while a long token is
 * pending), then its end.  FALSE when parsing stopped (f->status) or a read
 * failed (*@read_errno set). */
gboolean fxs_json_feeder_feed_all (FxsJsonFeeder *f, int fd, const char *data, gsize length,
                                   gsize chunk, int *read_errno);

/* ---- tokens (json-reader.c) --------------------------------------------- */

/* What the reader does with each token at @pos: 0 stops (after an error is
 * recorded, or the consumer's callback said stop). */
int fxs_json_reader_token_null (FxsJsonReader *r, gint64 pos);
int fxs_json_reader_token_bool (FxsJsonReader *r, gint64 pos, gboolean b);
int fxs_json_reader_token_scalar (FxsJsonReader *r, gint64 pos, FxsJsonType type,
                                  const char *s, gsize len);
int fxs_json_reader_token_key (FxsJsonReader *r, gint64 pos, const char *s, gsize len);
int fxs_json_reader_token_start (FxsJsonReader *r, gint64 pos, FxsJsonType type);
int fxs_json_reader_token_end (FxsJsonReader *r, gint64 pos);
/* Records why @feeder stopped (a syntax error or the string limit). */
void fxs_json_reader_feed_failed (FxsJsonReader *r, const FxsJsonFeeder *feeder);

/* ---- on a thread of its own (json-reader-thread.c) ------------------------ */

/* Reads @fd (when >= 0) or @data (@length bytes) in chunks of @chunk_size,
 * with yajl on another thread, and hands its tokens to the reader functions
 * above on this one; @feeder is the reader's, used by the other thread until
 * this returns.  FALSE on the first problem, recorded in the reader (or an
 * I/O error: *@read_errno). */
gboolean fxs_json_reader_parse_threaded (FxsJsonReader *r, FxsJsonFeeder *feeder, int fd,
                                         const char *data, gsize length, gsize chunk_size,
                                         int *read_errno);

#endif
