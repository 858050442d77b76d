/* Parsing on two threads (json-reader-private.h): a feeding thread reads
 * the input and runs yajl, whose callbacks only write each token (kind,
 * position, text) into a block; this thread takes the blocks in order and
 * hands every token to the reader, which does what it does on one thread.
 * Blocks go round between the two (a few of them), so memory stays bounded
 * however large the input.  The feeding thread checks a stop flag the
 * reader raises when it fails, and always ends with a FINISH token.
 */
#include "json-reader-private.h"
#include "util/bulk.h"

#include <string.h>

#define BLOCK_SIZE ((gsize) 256 << 10)
#define N_BLOCKS 8

enum {
  TOKEN_NULL,
  TOKEN_BOOL,
  TOKEN_NUMBER,
  TOKEN_STRING,
  TOKEN_KEY,
  TOKEN_START_MAP,
  TOKEN_START_ARRAY,
  TOKEN_END,
  TOKEN_FINISH,             /* the feeding thread is done (why: after joining it) */
};

/* A token as it is written into a block, its text (len bytes, padded to 8)
 * after it. */
typedef struct {
  guint8 kind;
  guint8 flag;              /* TOKEN_BOOL: the value */
  guint32 len;
  gint64 pos;
} Token;
G_STATIC_ASSERT (sizeof (Token) == 16);

/* Each on its own cache lines: the two threads must not write next to
 * what the other reads on every token. */
#define CACHE_LINE 64

typedef struct {
  _Alignas (CACHE_LINE) char *data;
  gsize cap;
  gsize used;               /* set when the block is handed over */
  gboolean own;             /* data is its own allocation (grown for a big token) */
  gboolean last;            /* ends with the FINISH token */
} Block;

typedef struct {
  _Alignas (CACHE_LINE) FxsJsonFeeder feeder; /* the feeding thread's */
  int fd;
  const char *data;
  gsize length;
  gsize chunk_size;
  GAsyncQueue *full;        /* Block*: written, in order */
  GAsyncQueue *empty;       /* Block*: to be written */
  Block *block;             /* being written, */
  char *at;                 /* from here */
  char *end;
  int read_errno;
  gboolean ok;
  _Alignas (CACHE_LINE) gint stop; /* atomic: the reader failed */
} Feeding;

static void
publish (Feeding *f)
{
  f->block->used = (gsize) (f->at - f->block->data);
  g_async_queue_push (f->full, f->block);
  f->block = NULL;
  f->at = f->end = NULL;
}

/* A new block to write, with room for @size bytes. */
static char *
next_block (Feeding *f, gsize size)
{
  if (f->block)
    publish (f);
  Block *b = f->block = g_async_queue_pop (f->empty);
  b->last = FALSE;
  if (size > b->cap)
    {
      if (b->own)
        g_free (b->data);
      b->data = g_malloc (size);
      b->cap = size;
      b->own = TRUE;
    }
  f->at = b->data;
  f->end = b->data + b->cap;
  return f->at;
}

/* Room for @size more bytes in the block being written, or NULL when the
 * reader has failed (asked once a block: the rest of a block is little
 * work to waste). */
static inline char *
room (Feeding *f, gsize size)
{
  if (G_LIKELY ((gsize) (f->end - f->at) >= size))
    return f->at;
  if (g_atomic_int_get (&f->stop))
    return NULL;
  return next_block (f, size);
}

static int
put (Feeding *f, guint8 kind, guint8 flag, const char *text, gsize len)
{
  gint64 pos = fxs_json_feeder_next_token (&f->feeder);
  gsize size = sizeof (Token) + ((len + 7) & ~(gsize) 7);
  Token *t = (Token *) room (f, size);
  if (G_UNLIKELY (!t))
    return 0;
  f->at += size;
  t->kind = kind;
  t->flag = flag;
  t->len = (guint32) len;
  t->pos = pos;
  char *to = (char *) (t + 1);
  /* most texts (keys, names) are short: overlapping words, no call */
  if (len >= 8 && len <= 16)
    {
      guint64 head, tail;
      memcpy (&head, text, 8);
      memcpy (&tail, text + len - 8, 8);
      memcpy (to, &head, 8);
      memcpy (to + len - 8, &tail, 8);
    }
  else if (len >= 4 && len < 8)
    {
      guint32 head, tail;
      memcpy (&head, text, 4);
      memcpy (&tail, text + len - 4, 4);
      memcpy (to, &head, 4);
      memcpy (to + len - 4, &tail, 4);
    }
  else if (len > 0 && len < 4)
    {
      to[0] = text[0];
      to[len / 2] = text[len / 2];
      to[len - 1] = text[len - 1];
    }
  else if (len)
    memcpy (to, text, len);
  return 1;
}

static int
put_null (void *ctx)
{
  return put (ctx, TOKEN_NULL, 0, NULL, 0);
}

static int
put_bool (void *ctx, int b)
{
  return put (ctx, TOKEN_BOOL, !!b, NULL, 0);
}

static int
put_number (void *ctx, const char *s, size_t len)
{
  return put (ctx, TOKEN_NUMBER, 0, s, len);
}

static int
put_string (void *ctx, const unsigned char *s, size_t len)
{
  return put (ctx, TOKEN_STRING, 0, (const char *) s, len);
}

static int
put_key (void *ctx, const unsigned char *s, size_t len)
{
  return put (ctx, TOKEN_KEY, 0, (const char *) s, len);
}

static int
put_start_map (void *ctx)
{
  return put (ctx, TOKEN_START_MAP, 0, NULL, 0);
}

static int
put_start_array (void *ctx)
{
  return put (ctx, TOKEN_START_ARRAY, 0, NULL, 0);
}

static int
put_end (void *ctx)
{
  return put (ctx, TOKEN_END, 0, NULL, 0);
}

static const yajl_callbacks put_callbacks = {
  .yajl_null = put_null,
  .yajl_boolean = put_bool,
  .yajl_number = put_number,
  .yajl_string = put_string,
  .yajl_start_map = put_start_map,
  .yajl_map_key = put_key,
  .yajl_end_map = put_end,
  .yajl_start_array = put_start_array,
  .yajl_end_array = put_end,
};

/* The feeding thread: the input through yajl, as on one thread
 * (json-reader.c, parse_here). */
static gpointer
feed_all (gpointer data)
{
  Feeding *f = data;
  gboolean ok = fxs_json_feeder_feed_all (&f->feeder, f->fd, f->data, f->length, f->chunk_size,
                                          &f->read_errno);
  f->ok = ok;
  /* the last token goes out even after a stop: the reader waits for it */
  Token *t = (Token *) ((gsize) (f->end - f->at) >= sizeof (Token) ? f->at
                        : next_block (f, sizeof (Token)));
  f->at += sizeof (Token);
  memset (t, 0, sizeof *t);
  t->kind = TOKEN_FINISH;
  f->block->last = TRUE;
  publish (f);
  return NULL;
}

/* Hands the tokens of @b to the reader: FALSE when it stopped, *@finished
 * at the last one. */
static gboolean
take_tokens (FxsJsonReader *r, const Block *b, gboolean *finished)
{
  const char *data = b->data;
  gsize used = b->used;
  for (gsize at = 0; at < used;)
    {
      const Token *t = (const Token *) (data + at);
      const char *text = (const char *) (t + 1);
      at += sizeof (Token) + ((t->len + 7) & ~(gsize) 7);
      int ok;
      switch (t->kind)
        {
        case TOKEN_NULL:
          ok = fxs_json_reader_token_null (r, t->pos);
          break;
        case TOKEN_BOOL:
          ok = fxs_json_reader_token_bool (r, t->pos, t->flag);
          break;
        case TOKEN_NUMBER:
          ok = fxs_json_reader_token_scalar (r, t->pos, FXS_JSON_NUMBER, text, t->len);
          break;
        case TOKEN_STRING:
          ok = fxs_json_reader_token_scalar (r, t->pos, FXS_JSON_STRING, text, t->len);
          break;
        case TOKEN_KEY:
          ok = fxs_json_reader_token_key (r, t->pos, text, t->len);
          break;
        case TOKEN_START_MAP:
          ok = fxs_json_reader_token_start (r, t->pos, FXS_JSON_OBJECT);
          break;
        case TOKEN_START_ARRAY:
          ok = fxs_json_reader_token_start (r, t->pos, FXS_JSON_ARRAY);
          break;
        case TOKEN_END:
          ok = fxs_json_reader_token_end (r, t->pos);
          break;
        default:
          *finished = TRUE;
          return TRUE;
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

gboolean
fxs_json_reader_parse_threaded (FxsJsonReader *r, FxsJsonFeeder *feeder, int fd,
                                const char *data, gsize length, gsize chunk_size,
                                int *read_errno)
{
  /* not on this thread's stack, nor in the reader: see Feeding */
  Feeding *f = g_aligned_alloc0 (1, sizeof (Feeding), CACHE_LINE);
  f->fd = fd;
  f->data = data;
  f->length = length;
  f->chunk_size = chunk_size;
  f->full = g_async_queue_new ();
  f->empty = g_async_queue_new ();
  fxs_json_feeder_init (&f->feeder, &put_callbacks, f, feeder->max_string);
  /* the blocks: one bulk mapping (a huge page, bulk.h) cut in N_BLOCKS */
  char *memory = fxs_bulk_alloc_uninit (N_BLOCKS * BLOCK_SIZE);
  Block *blocks = g_aligned_alloc0 (N_BLOCKS, sizeof (Block), CACHE_LINE);
  for (guint i = 0; i < N_BLOCKS; i++)
    {
      blocks[i].data = memory + i * BLOCK_SIZE;
      blocks[i].cap = BLOCK_SIZE;
      g_async_queue_push (f->empty, &blocks[i]);
    }
  GThread *thread = g_thread_new ("fxsplit-read", feed_all, f);
  gboolean ok = TRUE, finished = FALSE;
  while (!finished)
    {
      Block *b = g_async_queue_pop (f->full);
      if (ok)
        ok = take_tokens (r, b, &finished);
      if (!ok)
        {
          /* stopped: the feeding thread stops too and ends its stream */
          g_atomic_int_set (&f->stop, 1);
          finished = b->last;
        }
      g_async_queue_push (f->empty, b);
    }
  g_thread_join (thread);
  /* the reader's feeder says where the input ended and why it stopped */
  fxs_json_feeder_clear (feeder);
  *feeder = f->feeder;
  if (ok && !f->ok)
    {
      ok = FALSE;
      if (f->read_errno)
        *read_errno = f->read_errno;
      else
        fxs_json_reader_feed_failed (r, feeder);
    }
  for (guint i = 0; i < N_BLOCKS; i++)
    if (blocks[i].own)
      g_free (blocks[i].data);
  g_aligned_free (blocks);
  fxs_bulk_free (memory);
  g_async_queue_unref (f->full);
  g_async_queue_unref (f->empty);
  g_aligned_free (f);
  return ok;
}
