/* The JSON reader's errors (json-reader-private.h): the path of the item
 * being read, the first error recorded, and its LINE:COLUMN, found only
 * when it is reported by rescanning the input. */
#include "json-reader-private.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* ---- paths ----------------------------------------------------------------- */

static gboolean
is_identifier (const char *s, gsize len)
{
  if (len == 0 || !(g_ascii_isalpha (s[0]) || s[0] == '_'))
    return FALSE;
  for (gsize i = 1; i < len; i++)
    if (!(g_ascii_isalnum (s[i]) || s[i] == '_'))
      return FALSE;
  return TRUE;
}

static void
append_segment (GString *out, const FxsJsonSegment *seg)
{
  if (!seg->key)
    g_string_append_printf (out, "[%" G_GUINT64_FORMAT "]", seg->index);
  else if (is_identifier (seg->key, seg->key_len))
    {
      if (out->len > 0)
        g_string_append_c (out, '.');
      g_string_append_len (out, seg->key, seg->key_len);
    }
  else
    {
      g_string_append_c (out, '[');
      fxs_json_append_quoted (out, seg->key, seg->key_len);
      g_string_append_c (out, ']');
    }
}

/* Appends the path from @root down to @where (for a key: to its object):
 * FALSE, nothing appended, when @where is not in @root. */
static gboolean
append_path_to (GString *out, const FxsJson *root, const FxsJson *where)
{
  gboolean object = root->type == FXS_JSON_OBJECT;
  if (root == where)
    return TRUE;
  if (!object && root->type != FXS_JSON_ARRAY)
    return FALSE;
  for (guint i = 0; i < (object ? 2 * root->n : root->n); i++)
    {
      const FxsJson *child = &root->u.items[i];
      if (object && i % 2 == 0)
        {
          if (child == where)
            return TRUE;
          continue;
        }
      gsize len = out->len;
      FxsJsonSegment seg = { object ? child[-1].u.s : NULL, object ? child[-1].n : 0, i };
      append_segment (out, &seg);
      if (append_path_to (out, child, where))
        return TRUE;
      g_string_truncate (out, len);
    }
  return FALSE;
}

GString *
fxs_json_reader_start_message (FxsJsonReader *r, const FxsJson *root, const FxsJson *where)
{
  GString *out = g_string_new (NULL);
  FxsJsonSegment child;
  for (guint i = 1; i < r->depth; i++)
    append_segment (out, &r->frames[i].seg);
  if (r->in_item && r->depth > 0 && fxs_json_reader_child (r, &child))
    append_segment (out, &child);
  if (root && where)
    append_path_to (out, root, where);
  if (out->len > 0)
    g_string_append (out, ": ");
  return out;
}

/* Records the first error only (its message comes next): FALSE when one is
 * recorded already. */
static gboolean
start_error (FxsJsonReader *r, FxsErrorCode code, gint64 pos, gboolean exact)
{
  if (r->error_message)
    return FALSE;
  r->error_code = code;
  r->error_pos = pos;
  r->error_pos_exact = exact;
  return TRUE;
}

static void
fail_at (FxsJsonReader *r, FxsErrorCode code, gint64 pos, gboolean exact, const char *format,
         va_list args)
{
  if (!start_error (r, code, pos, exact))
    return;
  r->error_message = fxs_json_reader_start_message (r, NULL, NULL);
  g_string_append_vprintf (r->error_message, format, args);
}

gboolean
fxs_json_reader_fail (FxsJsonReader *reader, FxsErrorCode code, gint64 pos, const char *format,
                      ...)
{
  va_list args;
  va_start (args, format);
  fail_at (reader, code, pos, FALSE, format, args);
  va_end (args);
  return FALSE;
}

gboolean
fxs_json_reader_fail_message (FxsJsonReader *reader, FxsErrorCode code, gint64 pos,
                              const char *message)
{
  if (start_error (reader, code, pos, FALSE))
    reader->error_message = g_string_new (message);
  return FALSE;
}

gboolean
fxs_json_reader_fail_exact (FxsJsonReader *r, gint64 pos, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  fail_at (r, FXS_ERROR_PARSE, pos, TRUE, format, args);
  va_end (args);
  return FALSE;
}

/* ---- locating errors ----------------------------------------------------- */

typedef struct {
  guint64 line, column;
  gint64 offset;
  gboolean skipping;        /* past the target: skipping blanks and separators */
  gint64 target;
} Locator;

/* Advances over @len bytes; TRUE when the location is found. */
static gboolean
locate_block (Locator *l, const char *bytes, gsize len)
{
  for (gsize i = 0; i < len; i++, l->offset++)
    {
      guchar c = (guchar) bytes[i];
      if (l->offset >= l->target)
        {
          if (!l->skipping || !(fxs_json_is_blank ((char) c) || c == ',' || c == ':'))
            return TRUE;
        }
      if (c == '\n')
        {
          l->line++;
          l->column = 1;
        }
      else if ((c & 0xc0) != 0x80)
        l->column++;
    }
  return FALSE;
}

static gboolean
locate (FxsJsonReader *r, gint64 pos, gboolean skip, guint64 *line, guint64 *column)
{
  Locator l = { 1, 1, 0, skip, pos };
  if (r->data)
    locate_block (&l, r->data, (gsize) r->feed.total);
  else
    {
      char *buf = g_malloc (64 * 1024);
      gint64 offset = 0;
      gboolean done = FALSE;
      while (!done && offset < r->feed.total)
        {
          gsize want = (gsize) MIN ((gint64) 64 * 1024, r->feed.total - offset);
          ssize_t got = pread (r->fd, buf, want, offset);
          if (got < 0 && errno == EINTR)
            continue;
          if (got <= 0)
            {
              g_free (buf);
              return FALSE;
            }
          done = locate_block (&l, buf, (gsize) got);
          offset += got;
        }
      g_free (buf);
    }
  *line = l.line;
  *column = l.column;
  return TRUE;
}

void
fxs_json_reader_report (FxsJsonReader *r, GError **error)
{
  guint64 line, column;
  if (!r->error_message)
    {
      /* a consumer callback stopped without saying why */
      g_set_error (error, FXS_ERROR, FXS_ERROR_PARSE, "%s: reading stopped", r->name);
      return;
    }
  if (locate (r, r->error_pos, !r->error_pos_exact, &line, &column))
    g_set_error (error, FXS_ERROR, r->error_code, "%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT
                 ": %s", r->name, line, column, r->error_message->str);
  else
    /* a pipe cannot be read again: the offset is where the previous token
     * ended, a few blanks or separators before the one meant */
    g_set_error (error, FXS_ERROR, r->error_code, "%s: near byte %" G_GINT64_FORMAT ": %s",
                 r->name, r->error_pos, r->error_message->str);
}

