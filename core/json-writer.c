/* A small JSON emitter for graph files (see json-writer.h). */
#include "json-writer.h"

#include <fxsplit/value.h>
#include <math.h>
#include <string.h>

/* File mode writes out in pieces of about this size. */
#define FLUSH_SIZE (256u * 1024)

void
fxs_json_writer_init_string (FxsJsonWriter *w, GString *out)
{
  w->buf = out;
  w->file = NULL;
}

void
fxs_json_writer_init_file (FxsJsonWriter *w, FILE *file)
{
  w->buf = g_string_sized_new (FLUSH_SIZE + 4096);
  w->file = file;
}

static void
flush (FxsJsonWriter *w)
{
  if (w->buf->len > 0)
    {
      /* errors stay in the stream's error flag, which the caller checks */
      if (fwrite (w->buf->str, 1, w->buf->len, w->file) != w->buf->len)
        { /* reported by ferror() at commit */ }
      g_string_truncate (w->buf, 0);
    }
}

static inline void
maybe_flush (FxsJsonWriter *w)
{
  if (w->file && w->buf->len >= FLUSH_SIZE)
    flush (w);
}

void
fxs_json_writer_finish (FxsJsonWriter *w)
{
  if (!w->file)
    return;
  flush (w);
  g_string_free (w->buf, TRUE);
  w->buf = NULL;
}

void
fxs_json_write_raw (FxsJsonWriter *w, const char *text)
{
  g_string_append (w->buf, text);
  maybe_flush (w);
}

/* Escapes @len bytes that are valid UTF-8. */
static void
append_escaped (GString *out, const char *s, gsize len)
{
  static const char hex[] = "0123456789abcdef";
  gsize run = 0;
  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) s[i];
      if (c >= 0x20 && c != '"' && c != '\\')
        continue;
      g_string_append_len (out, s + run, (gssize) (i - run));
      run = i + 1;
      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        default:
          {
            char esc[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], '\0' };
            g_string_append (out, esc);
          }
        }
    }
  g_string_append_len (out, s + run, (gssize) (len - run));
}

void
fxs_json_write_string (FxsJsonWriter *w, const char *s, gsize len)
{
  GString *out = w->buf;
  g_string_append_c (out, '"');
  while (len > 0)
    {
      const char *end;
      g_utf8_validate_len (s, len, &end);
      gsize valid = (gsize) (end - s);
      append_escaped (out, s, valid);
      if (valid == len)
        break;
      /* GLib's validator stops at NUL, which JSON holds as \u0000; any
       * other stop is a byte that is not UTF-8 and cannot be written */
      g_string_append (out, s[valid] == '\0' ? "\\u0000" : "\\ufffd");
      s += valid + 1;
      len -= valid + 1;
    }
  g_string_append_c (out, '"');
  maybe_flush (w);
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
  g_string_append_len (w->buf, p, buf + sizeof buf - p);
  maybe_flush (w);
}

void
fxs_json_write_float (FxsJsonWriter *w, double v)
{
  char buf[32];
  fxs_format_float (v, buf);
  if (isfinite (v))
    g_string_append (w->buf, buf);
  else
    g_string_append_printf (w->buf, "{\"float\": \"%s\"}", buf);
  maybe_flush (w);
}
