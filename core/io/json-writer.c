/* A small JSON emitter for graph files (see json-writer.h). */
#include "json-writer.h"

#include <fxsplit/value.h>
#include <math.h>

static void
init (FxsJsonWriter *w, GString *string, FILE *file)
{
  memset (w, 0, sizeof *w);
  w->buf = g_malloc (FXS_JSON_WRITER_BUFFER);
  w->cap = FXS_JSON_WRITER_BUFFER;
  w->string = string;
  w->file = file;
}

void
fxs_json_writer_init_string (FxsJsonWriter *w, GString *out)
{
  init (w, out, NULL);
}

void
fxs_json_writer_init_file (FxsJsonWriter *w, FILE *file)
{
  init (w, NULL, file);
}

/* Hands the buffered bytes on and empties the buffer. */
static void
drain (FxsJsonWriter *w)
{
  if (w->len == 0)
    return;
  if (w->file)
    {
      if (fwrite (w->buf, 1, w->len, w->file) != w->len)
        { /* reported by ferror() at commit */ }
    }
  else
    g_string_append_len (w->string, w->buf, (gssize) w->len);
  w->len = 0;
}

gboolean
fxs_json_writer_room (FxsJsonWriter *w, const char *bytes, gsize len)
{
  drain (w);
  if (len <= w->cap)
    return TRUE;
  if (w->file)
    {
      if (fwrite (bytes, 1, len, w->file) != len)
        { /* reported by ferror() at commit */ }
    }
  else
    g_string_append_len (w->string, bytes, (gssize) len);
  return FALSE;
}

void
fxs_json_writer_finish (FxsJsonWriter *w)
{
  drain (w);
  g_clear_pointer (&w->buf, g_free);
}

/* Bytes that a JSON string cannot hold as they are (control characters,
 * '"', '\\') or that need a UTF-8 check (>= 0x80); c - 0x20 wraps around
 * for the control characters. */
static inline gboolean
needs_care (guchar c)
{
  return (guchar) (c - 0x20) >= 0x60 || c == '"' || c == '\\';
}

/* Escapes the one ASCII byte @c. */
static void
write_escape (FxsJsonWriter *w, guchar c)
{
  static const char hex[] = "0123456789abcdef";
  switch (c)
    {
    case '"': fxs_json_write_literal (w, "\\\""); break;
    case '\\': fxs_json_write_literal (w, "\\\\"); break;
    case '\n': fxs_json_write_literal (w, "\\n"); break;
    case '\r': fxs_json_write_literal (w, "\\r"); break;
    case '\t': fxs_json_write_literal (w, "\\t"); break;
    case '\b': fxs_json_write_literal (w, "\\b"); break;
    case '\f': fxs_json_write_literal (w, "\\f"); break;
    default:
      {
        char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
        fxs_json_write_bytes (w, esc, sizeof esc);
      }
    }
}

/* Whether any of the 8 bytes in @x needs care: the usual "has a zero
 * byte" bit trick, applied to the bytes below 0x20, equal to '"' or '\\',
 * and with the high bit set.  Names and targets are mostly plain ASCII, so
 * this passes 8 bytes at a time. */
static inline gboolean
word_needs_care (guint64 x)
{
  const guint64 ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  guint64 quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
  guint64 below_space = (x - ones * 0x20) & ~x;
  guint64 is_quote = (quote - ones) & ~quote;
  guint64 is_backslash = (backslash - ones) & ~backslash;
  return ((below_space | is_quote | is_backslash | x) & highs) != 0;
}

/* The 8 bytes at @s; past @len, spaces (which need no care). */
static inline guint64
load_word (const char *s, gsize len)
{
  guint64 x = 0x2020202020202020ull;
  if (len >= 8)
    memcpy (&x, s, 8);
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  else if (len > 0)
    {
      /* a short tail without a call to memcpy: overlapping loads */
      guint64 v;
      if (len >= 4)
        {
          guint32 head, tail;
          memcpy (&head, s, 4);
          memcpy (&tail, s + len - 4, 4);
          v = head | (guint64) tail << (8 * (len - 4));
        }
      else
        v = (guchar) s[0] | (guint64) (guchar) s[len / 2] << (8 * (len / 2))
            | (guint64) (guchar) s[len - 1] << (8 * (len - 1));
      guint64 mask = ~(guint64) 0 >> (8 * (8 - len));
      x = (v & mask) | (x & ~mask);
    }
#else
  else
    memcpy (&x, s, len);
#endif
  return x;
}

/* The string from byte @i on, the opening quote and bytes before @i
 * written: escapes and UTF-8 checked a byte at a time where needed. */
G_GNUC_NO_INLINE static void
write_string_rest (FxsJsonWriter *w, const char *s, gsize len, gsize i)
{
  const guchar *p = (const guchar *) s;
  gsize run = i;   /* start of the bytes not yet written */
  while (i < len)
    {
      if (!word_needs_care (load_word (s + i, len - i)))
        {
          i = MIN (i + 8, len);
          continue;
        }
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
      const char *end;
      gsize rest = len - i;
      g_utf8_validate_len (s + i, MIN (rest, 4), &end);
      gsize valid = (gsize) (end - (s + i));
      gsize seq = g_utf8_skip[c];
      if (valid >= seq && seq > 1)
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
  /* The common case, a plain string with room in the buffer: copied a
   * word at a time as it is checked (whole words: up to 7 bytes past its
   * end are written and then written over). */
  if (G_LIKELY (w->len + len + 2 + 8 <= w->cap))
    {
      char *d = w->buf + w->len;
      *d++ = '"';
      gsize i = 0;
      for (; i < len; i += 8)
        {
          guint64 x = load_word (s + i, len - i);
          if (word_needs_care (x))
            break;
          memcpy (d + i, &x, 8);
        }
      if (i >= len)
        {
          d[len] = '"';
          w->len += len + 2;
          return;
        }
      w->len += 1 + i;
      write_string_rest (w, s, len, i);
      return;
    }
  fxs_json_write_char (w, '"');
  write_string_rest (w, s, len, 0);
}

void
fxs_json_write_cstring (FxsJsonWriter *w, const char *s)
{
  fxs_json_write_string (w, s, strlen (s));
}

void
fxs_json_write_int (FxsJsonWriter *w, gint64 v)
{
  /* by hand: printf is the slowest part of writing shapes */
  char buf[24];
  char *p = buf + sizeof buf;
  guint64 u = v < 0 ? 0 - (guint64) v : (guint64) v;
  do
    *--p = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0)
    *--p = '-';
  fxs_json_write_bytes (w, p, (gsize) (buf + sizeof buf - p));
}

void
fxs_json_write_float (FxsJsonWriter *w, double v)
{
  char buf[32];
  fxs_format_float (v, buf);
  if (isfinite (v))
    fxs_json_write_raw (w, buf);
  else
    {
      fxs_json_write_literal (w, "{\"float\": \"");
      fxs_json_write_raw (w, buf);
      fxs_json_write_literal (w, "\"}");
    }
}
