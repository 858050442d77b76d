/* Feeding yajl (json-reader-private.h): chunks, token positions, and what
 * stopped it. */
#include "json-reader-private.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void
fxs_json_feeder_init (FxsJsonFeeder *f, const yajl_callbacks *callbacks, gpointer ctx,
                      gsize max_string)
{
  memset (f, 0, sizeof *f);
  f->max_string = max_string;
  f->yajl = yajl_alloc (callbacks, NULL, ctx);
  /* strict JSON: no comments, UTF-8 validated, one value */
  yajl_config (f->yajl, yajl_allow_comments, 0);
  yajl_config (f->yajl, yajl_dont_validate_strings, 0);
}

void
fxs_json_feeder_clear (FxsJsonFeeder *f)
{
  if (f->yajl)
    yajl_free (f->yajl);
  f->yajl = NULL;
  g_clear_pointer (&f->error_message, g_free);
}

static void
syntax_error (FxsJsonFeeder *f, gint64 pos, gboolean at_end)
{
  unsigned char *text = yajl_get_error (f->yajl, 0, NULL, 0);
  char *msg = g_strstrip (g_strdup ((const char *) text));
  yajl_free_error (f->yajl, text);
  const char *what = msg;
  if (g_str_has_prefix (what, "parse error: "))
    what += strlen ("parse error: ");
  else if (g_str_has_prefix (what, "lexical error: "))
    what += strlen ("lexical error: ");
  gsize len = strlen (what);
  if (len > 0 && what[len - 1] == '.')
    ((char *) what)[len - 1] = '\0';
  f->status = FXS_JSON_FEED_SYNTAX;
  f->error_pos = pos;
  g_free (f->error_message);
  if (at_end && !f->seen_token)
    f->error_message = g_strdup ("empty input: expected a JSON object");
  else if (at_end && strstr (what, "premature EOF"))
    f->error_message = g_strdup ("unexpected end of the input: the file is truncated");
  else
    f->error_message = g_strdup_printf ("invalid JSON: %s", what);
  g_free (msg);
}

gboolean
fxs_json_feeder_feed (FxsJsonFeeder *f, const char *chunk, gsize len)
{
  /* A token that has not ended within the string limit is being buffered
   * by yajl: stop before it grows without bound. */
  if (f->total - f->prev_end > (gint64) f->max_string)
    {
      f->status = FXS_JSON_FEED_LIMIT;
      f->error_pos = f->prev_end;
      return FALSE;
    }
  f->base = f->total;
  f->total += len;
  yajl_status status = yajl_parse (f->yajl, (const unsigned char *) chunk, len);
  if (status == yajl_status_ok)
    return TRUE;
  f->status = FXS_JSON_FEED_STOPPED;
  if (status == yajl_status_error)
    {
      gsize consumed = yajl_get_bytes_consumed (f->yajl);
      syntax_error (f, f->base + (gint64) (consumed > 0 ? consumed - 1 : 0), FALSE);
    }
  return FALSE;
}

gboolean
fxs_json_feeder_complete (FxsJsonFeeder *f)
{
  f->completing = TRUE;
  yajl_status status = yajl_complete_parse (f->yajl);
  if (status == yajl_status_ok)
    return TRUE;
  f->status = FXS_JSON_FEED_STOPPED;
  if (status == yajl_status_error)
    syntax_error (f, f->total, TRUE);
  return FALSE;
}

/* yajl copies a token that spans chunks and rescans all of it with every
 * further chunk: while one is pending, chunks grow with it, which keeps a
 * long string linear instead of quadratic. */
gsize
fxs_json_feeder_chunk_size (const FxsJsonFeeder *f, gsize chunk)
{
  gint64 pending = f->total - f->prev_end;
  while (pending > (gint64) chunk && chunk < f->max_string)
    chunk *= 2;
  return chunk;
}

gboolean
fxs_json_feeder_feed_all (FxsJsonFeeder *f, int fd, const char *data, gsize length, gsize chunk,
                          int *read_errno)
{
  char *buf = NULL;
  if (fd >= 0)
    buf = g_malloc (chunk);
  gboolean ok = TRUE;
  gsize off = 0;
  while (ok)
    {
      gsize want = fxs_json_feeder_chunk_size (f, chunk);
      const char *bytes;
      gssize got;
      if (fd < 0)
        {
          chunk = want;
          got = (gssize) MIN (chunk, length - off);
          bytes = got ? data + off : NULL;   /* no arithmetic on a NULL @data */
          off += (gsize) got;
        }
      else
        {
          if (want != chunk)
            {
              g_free (buf);
              buf = g_malloc (want);
              chunk = want;
            }
          got = read (fd, buf, chunk);
          if (got < 0 && errno == EINTR)
            continue;
          if (got < 0)
            {
              *read_errno = errno;
              ok = FALSE;
              break;
            }
          bytes = buf;
        }
      if (got == 0)
        {
          ok = fxs_json_feeder_complete (f);
          break;
        }
      ok = fxs_json_feeder_feed (f, bytes, (gsize) got);
    }
  g_free (buf);
  return ok;
}
