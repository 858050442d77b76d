/* A streaming JSON reader: yajl events turned into streamed containers and
 * small collected trees (see json-reader.h). */
#include "json-reader-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#define CHUNK_SIZE (1u << 20)
/* The scratch arena holds a collected tree until the consumer has it.  It
 * takes blocks of SCRATCH_BLOCK and is emptied between trees once it holds
 * SCRATCH_KEEP: a steady stream of small trees costs a malloc() per block. */
#define SCRATCH_BLOCK (64u * 1024)
#define SCRATCH_KEEP (256u * 1024)

/* Adds @len bytes of @key (they may hold NULs) to the set *@set of GBytes,
 * made on first use: FALSE when it is there already.  @copy: whether the
 * set keeps a copy or @key outlives it. */
static gboolean
key_set_add (GHashTable **set, const char *key, gsize len, gboolean copy)
{
  if (!*set)
    *set = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                  (GDestroyNotify) g_bytes_unref, NULL);
  return g_hash_table_add (*set, copy ? g_bytes_new (key, len) : g_bytes_new_static (key, len));
}

static void
scratch_reset (FxsJsonReader *r)
{
  fxs_arena_clear (&r->scratch);
  fxs_arena_expect (&r->scratch, SCRATCH_BLOCK);
}

FxsJsonReader *
fxs_json_reader_new (const char *display_name, const FxsJsonHandler *handler,
                     gpointer user_data)
{
  FxsJsonReader *r = g_new0 (FxsJsonReader, 1);
  r->name = g_strdup (display_name ? display_name : "<data>");
  r->handler = *handler;
  r->user_data = user_data;
  r->max_string = FXS_JSON_MAX_STRING;
  r->chunk_size = CHUNK_SIZE;
  r->fd = -1;
  scratch_reset (r);
  return r;
}

void
fxs_json_reader_set_limits (FxsJsonReader *reader, gsize max_string, gsize chunk)
{
  reader->max_string = max_string ? max_string : FXS_JSON_MAX_STRING;
  reader->chunk_size = MAX (chunk, 1);
}

void
fxs_json_reader_free (FxsJsonReader *reader)
{
  if (!reader)
    return;
  for (guint i = 0; i < FXS_JSON_MAX_DEPTH; i++)
    {
      if (reader->frames[i].key)
        g_string_free (reader->frames[i].key, TRUE);
      g_clear_pointer (&reader->frames[i].keys, g_hash_table_unref);
    }
  g_clear_pointer (&reader->feed.yajl, yajl_free);
  g_free (reader->pending);
  fxs_arena_clear (&reader->scratch);
  if (reader->error_message)
    g_string_free (reader->error_message, TRUE);
  g_free (reader->name);
  g_free (reader);
}

const FxsJson *
fxs_json_member (const FxsJson *obj, const char *key)
{
  if (obj->type != FXS_JSON_OBJECT)
    return NULL;
  gsize len = strlen (key);
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *k = &obj->u.items[2 * i];
      if (k->n == len && memcmp (k->u.s, key, len) == 0)
        return &obj->u.items[2 * i + 1];
    }
  return NULL;
}

/* ---- events ------------------------------------------------------------------ */

/* A new pending value, filled in place by the caller: a value built on
 * the stack and copied here was read back before its fields' stores had
 * landed (a store-forwarding stall on every token). */
static inline FxsJson *
new_pending (FxsJsonReader *r)
{
  if (G_UNLIKELY (r->n_pending == r->pending_alloc))
    {
      r->pending_alloc = r->pending_alloc ? 2 * r->pending_alloc : 256;
      r->pending = g_renew (FxsJson, r->pending, r->pending_alloc);
    }
  return &r->pending[r->n_pending++];
}

static inline void
set_json (FxsJson *v, FxsJsonType type, guint8 flags, guint32 n, gint64 pos)
{
  v->type = type;
  v->flags = flags;
  v->n = n;
  v->pos = pos;
}

static void
current_item (FxsJsonReader *r, FxsJsonItem *item, FxsJsonType type, gint64 pos)
{
  memset (item, 0, sizeof *item);
  item->type = type;
  item->pos = pos;
  if (r->depth == 0)
    return;
  FxsJsonSegment seg;
  fxs_json_reader_child (r, &seg);
  item->parent_tag = r->frames[r->depth - 1].tag;
  item->key = seg.key;
  item->key_len = seg.key_len;
  item->key_pos = seg.key ? r->frames[r->depth - 1].key_pos : 0;
  item->index = seg.index;
}

static FxsJsonAction
call_begin (FxsJsonReader *r, const FxsJsonItem *item, int *tag)
{
  r->in_item = TRUE;
  FxsJsonAction action = r->handler.begin (r->user_data, item, tag);
  r->in_item = FALSE;
  return action;
}

/* A value ended inside a streamed container (or at the top). */
static void
finish_member (FxsJsonReader *r)
{
  if (r->scratch.total > SCRATCH_KEEP)
    scratch_reset (r);
  if (r->depth > 0)
    r->frames[r->depth - 1].count++;
}

/* Where a value goes: the pending values of the collected container it is
 * in, or @tmp to be handed over by on_complete(). */
static inline FxsJson *
scalar_slot (FxsJsonReader *r, FxsJson *tmp)
{
  return r->n_collecting > 0 ? new_pending (r) : tmp;
}

/* The value @v (from scalar_slot()) is complete: pending in the collected
 * container it is in, or handed over, a scalar after its begin() (a
 * container had its own when it started). */
static int
on_complete (FxsJsonReader *r, FxsJson *v, gboolean scalar)
{
  if (r->n_collecting > 0)
    return 1;
  FxsJsonItem item;
  current_item (r, &item, v->type, v->pos);
  int tag = 0;
  if (scalar && call_begin (r, &item, &tag) == FXS_JSON_FAIL)
    return 0;
  r->in_item = TRUE;
  gboolean ok = r->handler.value (r->user_data, &item, v);
  r->in_item = FALSE;
  if (ok)
    finish_member (r);
  return ok;
}

/* Copies @len bytes of text into the scratch arena, NUL-terminated and
 * zero-padded to whole words, and tells whether they hold a byte >= 0x80
 * (*@high) or a NUL (the flag).  A word at a time, checked as it is copied:
 * the tail by overlapping loads, never past @len. */
static inline char *
copy_text (FxsJsonReader *r, const char *s, gsize len, gboolean *high, guint8 *flags)
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

/* checked_text() failed, with @message or else that of a text longer than
 * the limit: NULL.  For a bad key the path is its object's: the frame
 * still holds the previous member's key. */
static char *
fail_text (FxsJsonReader *r, gint64 pos, gboolean key, gsize len, const char *message)
{
  r->in_item = !key;
  if (message)
    fxs_json_reader_fail (r, FXS_ERROR_PARSE, pos, "%s", message);
  else
    fxs_json_reader_fail (r, FXS_ERROR_PARSE, pos,
                          "a %s of %" G_GSIZE_FORMAT " bytes, longer than the limit of %"
                          G_GSIZE_FORMAT, key ? "key" : "string", len, r->max_string);
  r->in_item = FALSE;
  return NULL;
}

/* The text of a string, @number or @key copied by copy_text(), once
 * checked: NULL, failed, for an unpaired surrogate escape in it, when it is
 * longer than the limit, or when it is not valid UTF-8 (yajl's check lets
 * overlong forms, surrogates and code points past U+10FFFF through, found
 * by tests/hostile; GLib's, as the writer's, does not; NUL is fine, a
 * string may hold \u0000). */
static inline char *
checked_text (FxsJsonReader *r, const char *s, gsize len, gint64 pos, gboolean key,
              gboolean number, guint8 *flags)
{
  /* an unpaired surrogate escape in the token that just ended (yajl decodes
   * it to '?', or pairs a high surrogate with any escape after it); a
   * number has no escapes */
  gint64 bad = r->feed.bad_escape;
  if (G_UNLIKELY (!number && bad >= 0 && bad < r->feed.prev_end))
    return fail_text (r, pos, key, len,
                      "a string that is not valid text: a UTF-16 surrogate escape that is not "
                      "part of a pair (\\uD800-\\uDBFF, then \\uDC00-\\uDFFF)");
  if (G_UNLIKELY (len > r->max_string))
    return fail_text (r, pos, key, len, NULL);
  gboolean high;
  char *copy = copy_text (r, s, len, &high, flags);
  const char *at = copy, *stop;
  while (G_UNLIKELY (high) && !g_utf8_validate_len (at, (gsize) (copy + len - at), &stop))
    {
      if (*stop != '\0')
        return fail_text (r, pos, key, len,
                          "a string that is not valid UTF-8 (an overlong form, a surrogate or "
                          "a code point past U+10FFFF)");
      at = stop + 1;
    }
  return copy;
}

static int
scalar_text (FxsJsonReader *r, FxsJsonType type, const char *s, gsize len)
{
  gint64 pos = fxs_json_feeder_next_token (&r->feed, s, len, type == FXS_JSON_STRING);
  guint8 flags;
  char *copy = checked_text (r, s, len, pos, FALSE, type == FXS_JSON_NUMBER, &flags);
  if (!copy)
    return 0;
  if (type == FXS_JSON_NUMBER)
    {
      flags = FXS_JSON_INTEGER;
      for (gsize i = 0; i < len; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
          flags = 0;
    }
  FxsJson tmp, *v = scalar_slot (r, &tmp);
  set_json (v, type, flags, (guint32) len, pos);
  v->u.s = copy;
  return on_complete (r, v, TRUE);
}

/* null (@b < 0) or a bool */
static int
scalar_literal (FxsJsonReader *r, int b)
{
  FxsJson tmp, *v = scalar_slot (r, &tmp);
  gint64 pos = fxs_json_feeder_next_token (&r->feed, NULL, 0, 0);
  set_json (v, b < 0 ? FXS_JSON_NULL : FXS_JSON_BOOL, 0, 0, pos);
  v->u.s = NULL;
  v->u.b = b > 0;
  return on_complete (r, v, TRUE);
}

static int
cb_null (void *ctx)
{
  return scalar_literal (ctx, -1);
}

static int
cb_boolean (void *ctx, int b)
{
  return scalar_literal (ctx, !!b);
}

static int
cb_number (void *ctx, const char *s, size_t len)
{
  return scalar_text (ctx, FXS_JSON_NUMBER, s, len);
}

static int
cb_string (void *ctx, const unsigned char *s, size_t len)
{
  return scalar_text (ctx, FXS_JSON_STRING, (const char *) s, len);
}

static FxsJsonFrame *
push_frame (FxsJsonReader *r, FxsJsonType type, gint64 pos)
{
  FxsJsonFrame *f = &r->frames[r->depth];
  f->type = type;
  f->pos = pos;
  f->count = 0;
  f->tag = 0;
  if (r->depth > 0)
    fxs_json_reader_child (r, &f->seg);
  f->start = r->n_pending;
  r->depth++;
  return f;
}

static int
start_container (FxsJsonReader *r, FxsJsonType type)
{
  gint64 pos = fxs_json_feeder_next_token (&r->feed, NULL, 0, 0);
  if (r->depth == FXS_JSON_MAX_DEPTH)
    {
      r->in_item = TRUE;
      return fxs_json_reader_fail (r, FXS_ERROR_PARSE, pos,
                                   "nested deeper than %d levels", FXS_JSON_MAX_DEPTH);
    }
  if (r->n_collecting > 0)
    {
      push_frame (r, type, pos)->streamed = FALSE;
      r->n_collecting++;
      return 1;
    }
  FxsJsonItem item;
  current_item (r, &item, type, pos);
  int tag = 0;
  FxsJsonAction action = call_begin (r, &item, &tag);
  if (action == FXS_JSON_FAIL)
    return 0;
  FxsJsonFrame *f = push_frame (r, type, pos);
  f->streamed = action == FXS_JSON_STREAM || action == FXS_JSON_STREAM_OWN_KEYS;
  f->own_keys = action == FXS_JSON_STREAM_OWN_KEYS;
  f->tag = tag;
  if (!f->streamed)
    r->n_collecting = 1;
  return 1;
}

static int
cb_start_map (void *ctx)
{
  return start_container (ctx, FXS_JSON_OBJECT);
}

static int
cb_start_array (void *ctx)
{
  return start_container (ctx, FXS_JSON_ARRAY);
}

static int
cb_map_key (void *ctx, const unsigned char *key, size_t len)
{
  FxsJsonReader *r = ctx;
  gint64 pos = fxs_json_feeder_next_token (&r->feed, (const char *) key, len, 1);
  FxsJsonFrame *f = &r->frames[r->depth - 1];
  guint8 flags;
  char *copy = checked_text (r, (const char *) key, len, pos, TRUE, FALSE, &flags);
  if (!copy)
    return 0;
  if (!f->streamed)
    {
      FxsJson *k = new_pending (r);
      set_json (k, FXS_JSON_STRING, flags, (guint32) len, pos);
      k->u.s = copy;
      return 1;
    }
  if (!f->key)
    f->key = g_string_new (NULL);
  g_string_truncate (f->key, 0);
  g_string_append_len (f->key, copy, len);
  f->key_pos = pos;
  if (f->own_keys || key_set_add (&f->keys, copy, len, TRUE))
    return 1;
  r->in_item = TRUE;
  return fxs_json_reader_fail (r, FXS_ERROR_FORMAT, pos, "duplicate key");
}

/* Texts are zero-padded to whole words (copy_text): most keys differ in
 * their length or first word, and need no call. */
static inline gboolean
same_key (const FxsJson *a, const FxsJson *b)
{
  guint64 wa, wb;
  memcpy (&wa, a->u.s, 8);
  memcpy (&wb, b->u.s, 8);
  return a->n == b->n && wa == wb && (a->n < 8 || memcmp (a->u.s, b->u.s, a->n) == 0);
}

/* The first key of @n members (key, value, ...) that repeats an earlier one,
 * or NULL. */
static const FxsJson *
find_duplicate_key (const FxsJson *members, gsize n)
{
  if (n <= 16)
    {
      for (gsize i = 1; i < n; i++)
        for (gsize j = 0; j < i; j++)
          if (same_key (&members[2 * i], &members[2 * j]))
            return &members[2 * i];
      return NULL;
    }
  GHashTable *seen = NULL;
  const FxsJson *dup = NULL;
  for (gsize i = 0; i < n && !dup; i++)
    if (!key_set_add (&seen, members[2 * i].u.s, members[2 * i].n, FALSE))
      dup = &members[2 * i];
  g_hash_table_unref (seen);
  return dup;
}

static int
end_collected (FxsJsonReader *r)
{
  FxsJsonFrame *f = &r->frames[r->depth - 1];
  gsize n = r->n_pending - f->start;
  /* an empty container before anything was pending: no pointer arithmetic
   * on NULL (found by tests/fuzz, undefined behaviour) */
  const FxsJson *children = n ? &r->pending[f->start] : NULL;
  if (n / (f->type == FXS_JSON_OBJECT ? 2 : 1) > G_MAXUINT32)
    return fxs_json_reader_fail (r, FXS_ERROR_PARSE, f->pos, "more than %u items", G_MAXUINT32);
  if (f->type == FXS_JSON_OBJECT)
    {
      const FxsJson *dup = find_duplicate_key (children, n / 2);
      if (dup)
        {
          FxsJson obj = { .type = FXS_JSON_OBJECT, .n = (guint32) (n / 2), .u.items = children };
          GString *msg = fxs_json_reader_start_message (r, &obj, dup + 1);
          g_string_append (msg, "duplicate key");
          fxs_json_reader_fail_message (r, FXS_ERROR_FORMAT, dup->pos, msg->str);
          g_string_free (msg, TRUE);
          return 0;
        }
    }
  FxsJson *items = n ? fxs_arena_take (&r->scratch, n * sizeof (FxsJson)) : NULL;
  if (n)
    memcpy (items, children, n * sizeof (FxsJson));
  FxsJsonType type = f->type;
  gint64 pos = f->pos;
  r->n_pending = f->start;
  r->depth--;
  r->n_collecting--;
  FxsJson tmp, *v = scalar_slot (r, &tmp);
  set_json (v, type, 0, (guint32) (type == FXS_JSON_OBJECT ? n / 2 : n), pos);
  v->u.items = items;
  return on_complete (r, v, FALSE);
}

static int
cb_end (void *ctx)
{
  FxsJsonReader *r = ctx;
  gint64 pos = fxs_json_feeder_next_token (&r->feed, NULL, 0, 0);
  FxsJsonFrame *f = &r->frames[r->depth - 1];
  if (!f->streamed)
    return end_collected (r);
  if (r->handler.end && !r->handler.end (r->user_data, f->tag, pos))
    return 0;
  if (f->keys)
    g_hash_table_remove_all (f->keys);
  r->depth--;
  finish_member (r);
  return 1;
}

static const yajl_callbacks callbacks = {
  .yajl_null = cb_null,
  .yajl_boolean = cb_boolean,
  .yajl_number = cb_number,
  .yajl_string = cb_string,
  .yajl_start_map = cb_start_map,
  .yajl_map_key = cb_map_key,
  .yajl_end_map = cb_end,
  .yajl_start_array = cb_start_array,
  .yajl_end_array = cb_end,
};

/* ---- entry points ---------------------------------------------------------- */

gboolean
fxs_json_reader_parse (FxsJsonReader *reader, const char *path, const char *data, gsize length,
                       GError **error)
{
  reader->data = path ? NULL : data;
  if (!path)
    return fxs_json_feed_all (reader, &callbacks, -1, data, length, error);
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot open: %s", reader->name,
                   g_strerror (errno));
      return FALSE;
    }
  reader->fd = fd;
  gboolean ok = fxs_json_feed_all (reader, &callbacks, fd, NULL, 0, error);
  close (fd);
  reader->fd = -1;
  return ok;
}
