/* Feeding yajl (json-reader-private.h): chunks, token positions, and what
 * stopped it. */
#include "json-reader-private.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Records yajl's syntax error at @pos (at the end of the input: @at_end). */
static void
syntax_error (FxsJsonReader *r, gint64 pos, gboolean at_end)
{
  unsigned char *text = yajl_get_error (r->feed.yajl, 0, NULL, 0);
  /* "parse error: ..." or "lexical error: ..." */
  char *what = strstr (g_strstrip ((char *) text), "error: ");
  what = what ? what + strlen ("error: ") : (char *) text;
  gsize len = strlen (what);
  if (len > 0 && what[len - 1] == '.')
    what[len - 1] = '\0';
  r->depth = 0; /* the location says where; a path would be half-built */
  if (at_end && r->feed.prev_end == 0)  /* no token ended */
    fxs_json_reader_fail_exact (r, pos, "empty input: expected a JSON object");
  else if (at_end && strstr (what, "premature EOF"))
    fxs_json_reader_fail_exact (r, pos, "unexpected end of the input: the file is truncated");
  else
    fxs_json_reader_fail_exact (r, pos, "invalid JSON: %s", what);
  yajl_free_error (r->feed.yajl, text);
}

/* After a piece [base, total) was parsed: where the run of blanks at its
 * end starts, when only blanks and separators follow the last token. */
static void
update_run (FxsJsonFeeder *f, const char *chunk, gsize len)
{
  gsize i;
  if (f->prev_end >= f->base)
    {
      i = (gsize) (f->prev_end - f->base);
      f->run_from = f->prev_end;
    }
  else if (f->run_from >= 0)
    i = 0;
  else
    return;
  for (; i < len; i++)
    if (chunk[i] == ',' || chunk[i] == ':')
      f->run_from = f->base + (gint64) i + 1;
    else if (!fxs_json_is_blank (chunk[i]))
      {
        f->run_from = -1;
        f->token_from = f->base + (gint64) i;
        return;
      }
}

/* The escape scanner's states: outside an escape; after a backslash that
 * escapes; in the hex digits of \uXXXX.  After a high surrogate's escape
 * (esc_pair), "\u" and a low surrogate's digits must follow at once. */
enum { ESC_NONE, ESC_BACKSLASH, ESC_DIGITS };

/* Finds unpaired surrogate escapes (\ud800 alone, or followed by anything
 * but a low surrogate's escape; \udc00 alone) in a piece, before yajl
 * reads it: yajl decodes them to '?' or to a wrong code point, and passes
 * on the decoded text only.  Backslashes come in pairs outside escapes, so
 * counting them finds the escapes without knowing where strings are (a
 * backslash outside one is yajl's syntax error).  Costs a memchr where
 * there are no backslashes. */
static void
scan_escapes (FxsJsonFeeder *f, const char *chunk, gsize len)
{
  for (gsize i = 0; i < len && f->bad_escape < 0; i++)
    {
      char c = chunk[i];
      switch (f->esc_state)
        {
        case ESC_NONE:
          {
            if (f->esc_pair && c != '\\')
              {
                f->bad_escape = f->esc_at;
                break;
              }
            const char *bs = memchr (chunk + i, '\\', len - i);
            if (!bs)
              return;
            i = (gsize) (bs - chunk);
            f->esc_state = ESC_BACKSLASH;
            if (!f->esc_pair)
              f->esc_at = f->total + (gint64) i;
            break;
          }
        case ESC_BACKSLASH:
          if (f->esc_pair && c != 'u')
            f->bad_escape = f->esc_at;
          f->esc_state = c == 'u' ? ESC_DIGITS : ESC_NONE;
          f->esc_digits = 0;
          f->esc_value = 0;
          break;
        case ESC_DIGITS:
          {
            int h = g_ascii_xdigit_value (c);
            if (h < 0)
              {
                f->esc_state = ESC_NONE;  /* a bad escape: yajl's error */
                f->esc_pair = FALSE;
                break;
              }
            f->esc_value = f->esc_value << 4 | (guint32) h;
            if (++f->esc_digits < 4)
              break;
            f->esc_state = ESC_NONE;
            /* a low surrogate exactly where a high one needs it */
            gboolean low = f->esc_value >= 0xdc00 && f->esc_value <= 0xdfff;
            if (low != f->esc_pair)
              f->bad_escape = f->esc_at;
            f->esc_pair = f->esc_value >= 0xd800 && f->esc_value <= 0xdbff;
            break;
          }
        }
    }
}

/* Feeds at most max_string bytes: a run of blanks longer than that cannot
 * begin and end inside one piece, where it would not be measured. */
static gboolean
feed_piece (FxsJsonReader *r, const char *chunk, gsize len)
{
  FxsJsonFeeder *f = &r->feed;
  /* Blanks between tokens are no token: yajl skips them and says nothing,
   * so their runs are measured here, exactly (only the blanks at the
   * start and the end of a piece are looked at, and only when no token is
   * pending). */
  if (f->run_from >= 0)
    {
      gsize lead = 0;
      while (lead < len && fxs_json_is_blank (chunk[lead]))
        lead++;
      /* at the run's first blank (the locator would skip the blanks) */
      if (f->total + (gint64) lead - f->run_from > (gint64) r->max_string)
        return fxs_json_reader_fail_exact (r, f->run_from, "a run of blanks longer than the "
                                           "limit of %" G_GSIZE_FORMAT " bytes", r->max_string);
    }
  /* A token that has not ended within the string limit (and its quotes)
   * is being buffered by yajl: stop before it grows without bound.  (A
   * string's decoded length is checked exactly when it ends.) */
  if (f->run_from < 0 && f->total - f->token_from > (gint64) r->max_string + 2)
    return fxs_json_reader_fail (r, FXS_ERROR_PARSE, f->prev_end,
                                 "a string or number longer than the limit of %" G_GSIZE_FORMAT
                                 " bytes", r->max_string);
  scan_escapes (f, chunk, len);
  f->base = f->total;
  f->total += len;
  f->piece = chunk;
  f->piece_len = len;
  yajl_status status = yajl_parse (f->yajl, (const unsigned char *) chunk, len);
  if (status == yajl_status_ok)
    update_run (f, chunk, len);
  else if (status == yajl_status_error)
    {
      gsize consumed = yajl_get_bytes_consumed (f->yajl);
      syntax_error (r, f->base + (gint64) (consumed > 0 ? consumed - 1 : 0), FALSE);
    }
  return status == yajl_status_ok;
}

/* yajl copies a token that spans chunks and rescans all of it with every
 * further chunk: while one is pending, chunks grow with it, which keeps a
 * long string linear instead of quadratic. */
static gsize
chunk_size (const FxsJsonReader *r, gsize chunk)
{
  gint64 pending = r->feed.total - r->feed.prev_end;
  while (pending > (gint64) chunk && chunk < r->max_string)
    chunk *= 2;
  return chunk;
}

gboolean
fxs_json_feed_all (FxsJsonReader *r, const yajl_callbacks *callbacks, int fd, const char *data,
                   gsize length, GError **error)
{
  FxsJsonFeeder *f = &r->feed;
  g_return_val_if_fail (f->yajl == NULL, FALSE);
  f->bad_escape = -1;
  f->yajl = yajl_alloc (callbacks, NULL, r);
  /* strict JSON: no comments, UTF-8 validated, one value */
  yajl_config (f->yajl, yajl_allow_comments, 0);
  yajl_config (f->yajl, yajl_dont_validate_strings, 0);
  gsize chunk = r->chunk_size;
  char *buf = fd >= 0 ? g_malloc (chunk) : NULL;
  gboolean ok = TRUE;
  gsize off = 0;
  while (ok)
    {
      gsize want = chunk_size (r, chunk);
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
              g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot read: %s", r->name,
                           g_strerror (errno));
              g_free (buf);
              return FALSE;
            }
          bytes = buf;
        }
      if (got == 0)
        {
          f->completing = TRUE;
          yajl_status status = yajl_complete_parse (f->yajl);
          if (status == yajl_status_error)
            syntax_error (r, f->total, TRUE);
          ok = status == yajl_status_ok;
          break;
        }
      for (gsize done = 0, n; ok && done < (gsize) got; done += n)
        {
          n = MIN ((gsize) got - done, r->max_string);
          ok = feed_piece (r, bytes + done, n);
        }
    }
  g_free (buf);
  if (!ok)
    fxs_json_reader_report (r, error);
  return ok;
}
