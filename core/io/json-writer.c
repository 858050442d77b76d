/* A small JSON emitter for graph files (see json-writer.h). */
#include "json-writer.h"
#include "util/atomic-file.h"


/* Hands @len bytes on to the string or the file. */
static void
emit (FxsJsonWriter *w, const char *bytes, gsize len)
{
  if (!w->file)
    g_string_append_len (w->string, bytes, (gssize) len);
  else if (fwrite (bytes, 1, len, w->file) != len)
    { /* reported by ferror() at commit */ }
}

void
fxs_json_write_with (GString *string, FILE *file, FxsJsonWriteFunc write, gconstpointer data)
{
  FxsJsonWriter w = { g_malloc (FXS_JSON_WRITER_BUFFER), 0, string, file };
  write (&w, data);
  emit (&w, w.buf, w.len);
  g_free (w.buf);
}

gboolean
fxs_json_save_file (const char *path, FxsJsonWriteFunc write, gconstpointer data, GError **error)
{
  FxsAtomicFile *file = fxs_atomic_file_open (path, error);
  if (!file)
    return FALSE;
  fxs_json_write_with (NULL, fxs_atomic_file_stream (file), write, data);
  return fxs_atomic_file_commit (file, error);
}

gboolean
fxs_json_writer_room (FxsJsonWriter *w, const char *bytes, gsize len)
{
  emit (w, w->buf, w->len);
  w->len = 0;
  if (len <= FXS_JSON_WRITER_BUFFER)
    return TRUE;
  emit (w, bytes, len);
  return FALSE;
}

/* Bytes that a JSON string cannot hold as they are (control characters,
 * '"', '\\') or that need a UTF-8 check (>= 0x80); c - 0x20 wraps around
 * for the control characters. */
static inline gboolean
needs_care (guchar c)
{
  return (guchar) (c - 0x20) >= 0x60 || c == '"' || c == '\\';
}

/* Escapes the one ASCII byte @c: by its letter (\n) where JSON has one,
 * otherwise as \u00XX. */
static void
write_escape (FxsJsonWriter *w, guchar c)
{
  static const char hex[] = "0123456789abcdef";
  static const char letter[0x80] = { ['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r',
                                     ['\t'] = 't', ['\b'] = 'b', ['\f'] = 'f' };
  char esc[6] = { '\\', letter[c] ? letter[c] : 'u', '0', '0', hex[c >> 4], hex[c & 15] };
  fxs_json_write_bytes (w, esc, letter[c] ? 2 : sizeof esc);
}

/* Whether any of the 8 bytes in @x needs care, with the usual "has a zero
 * byte" trick: a byte below 0x20, or equal to '"' or '\\' once xor-ed
 * with it, wraps around when 0x20 (or 1) is subtracted and sets its high
 * bit, as bytes >= 0x80 have it already.  A borrow only comes out of a
 * byte that needs care, so a word of plain bytes passes. */
static inline gboolean
word_needs_care (guint64 x)
{
  const guint64 ones = 0x0101010101010101ull;
  guint64 below_space = x - ones * 0x20;
  guint64 quote = (x ^ (ones * '"')) - ones, backslash = (x ^ (ones * '\\')) - ones;
  return ((below_space | quote | backslash | x) & (ones * 0x80)) != 0;
}

/* Copies the @len bytes at @s to @d when none needs care (names and
 * targets are mostly plain ASCII); FALSE, some of them copied, otherwise.
 * Checked and copied 8 bytes at a time, the last 8 overlapping the ones
 * before; a shorter string as two overlapping halves of 4, or as its
 * first, middle and last byte. */
static inline gboolean
copy_plain (char *d, const char *s, gsize len)
{
  guint64 x;
  if (len >= 8)
    {
      for (gsize i = 0; i + 8 < len; i += 8)
        {
          memcpy (&x, s + i, 8);
          if (word_needs_care (x))
            return FALSE;
          memcpy (d + i, &x, 8);
        }
      memcpy (&x, s + len - 8, 8);
      if (word_needs_care (x))
        return FALSE;
      memcpy (d + len - 8, &x, 8);
      return TRUE;
    }
  if (len >= 4)
    {
      guint32 head, tail;
      memcpy (&head, s, 4);
      memcpy (&tail, s + len - 4, 4);
      if (word_needs_care (head | (guint64) tail << 32))
        return FALSE;
      memcpy (d, &head, 4);
      memcpy (d + len - 4, &tail, 4);
      return TRUE;
    }
  if (len == 0)
    return TRUE;
  guchar first = s[0], middle = s[len / 2], last = s[len - 1];
  if (word_needs_care (first | (guint64) middle << 8 | (guint64) last << 16
                       | 0x2020202020000000ull))
    return FALSE;
  d[0] = (char) first;
  d[len / 2] = (char) middle;
  d[len - 1] = (char) last;
  return TRUE;
}

/* The string with its quotes, escapes and UTF-8 checked a byte at a time
 * (kept out of line: the common case needs none of it). */
G_GNUC_NO_INLINE static void
write_string_escaped (FxsJsonWriter *w, const char *s, gsize len)
{
  fxs_json_write_char (w, '"');
  const guchar *p = (const guchar *) s;
  gsize run = 0;   /* start of the bytes not yet written */
  gsize i = 0;
  while (i < len)
    {
      guchar c = p[i];
      if (G_LIKELY (!needs_care (c)))
        {
          i++;
          continue;
        }
      fxs_json_write_bytes (w, s + run, i - run);
      if (c < 0x80)
        {
          write_escape (w, c);
          run = ++i;
          continue;
        }
      /* A multi-byte sequence: kept when it is valid UTF-8 (GLib's check,
       * the same the loader applies), otherwise U+FFFD for its first byte. */
      gsize seq = g_utf8_skip[c];
      gunichar u = g_utf8_get_char_validated (s + i, MIN (len - i, seq));
      if (seq > 1 && u != (gunichar) -1 && u != (gunichar) -2)
        {
          fxs_json_write_bytes (w, s + i, seq);
          i += seq;
        }
      else
        {
          fxs_json_write_literal (w, "\\ufffd");
          i++;
        }
      run = i;
    }
  fxs_json_write_bytes (w, s + run, len - run);
  fxs_json_write_char (w, '"');
}

void
fxs_json_write_string (FxsJsonWriter *w, const char *s, gsize len)
{
  /* the common case, a plain string with room in the buffer */
  if (G_LIKELY (w->len + len + 2 <= FXS_JSON_WRITER_BUFFER) && copy_plain (w->buf + w->len + 1, s, len))
    {
      w->buf[w->len] = '"';
      w->buf[w->len + len + 1] = '"';
      w->len += len + 2;
      return;
    }
  write_string_escaped (w, s, len);
}

void
fxs_json_write_int (FxsJsonWriter *w, gint64 v)
{
  /* by hand, straight into the buffer: printf is the slowest part of
   * writing shapes */
  guint64 u = v < 0 ? 0 - (guint64) v : (guint64) v;
  gsize n = v < 0 ? 2 : 1;
  for (guint64 rest = u; rest >= 10; rest /= 10)
    n++;
  if (G_UNLIKELY (w->len + n > FXS_JSON_WRITER_BUFFER))
    fxs_json_writer_room (w, NULL, 0);   /* n <= 20 fits then */
  char *p = w->buf + w->len + n;
  w->len += n;
  do
    *--p = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    *--p = '-';
}
