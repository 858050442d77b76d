/* fxs_text_escape (fxsplit/error.h): what reaches a terminal from text
 * fxsplit did not write itself.  A terminal obeys escape sequences and a
 * line break fakes a line of its own, so such characters are shown, never
 * sent; a message of megabytes is cut. */
#include <fxsplit/error.h>
#include "text-escape.h"

#include <string.h>

/* Whether @c, a decoded character, would not show as itself. */
static gboolean
is_hidden (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_FORMAT:             /* bidi overrides, zero-width characters */
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_CONTROL:            /* C0 and C1 controls, DEL */
    case G_UNICODE_UNASSIGNED:
    case G_UNICODE_SURROGATE:
      return TRUE;
    default:
      return FALSE;
    }
}

static void
append_escape (GString *out, gunichar c)
{
  switch (c)
    {
    case '\n': g_string_append (out, "\\n"); return;
    case '\r': g_string_append (out, "\\r"); return;
    case '\t': g_string_append (out, "\\t"); return;
    default:
      g_string_append_printf (out, c < 0x80 ? "\\x%02x" : "\\u%04x", c);
    }
}

const char *
fxs_text_append_escaped (GString *out, const char *p, const char *end, const char *also,
                         gsize max_bytes)
{
  while (p < end && !(max_bytes && out->len >= max_bytes))
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* not UTF-8 (or a NUL): the byte itself */
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      const char *next = g_utf8_next_char (p);
      if (is_hidden (c))
        append_escape (out, c);
      else if (c < 0x80 && strchr (also, (int) c))
        g_string_append_printf (out, "\\%c", (char) c);
      else
        g_string_append_len (out, p, next - p);
      p = next;
    }
  return p;
}

char *
fxs_text_escape (const char *text, gsize max_bytes)
{
  if (text == NULL)
    return g_strdup ("(no text)");
  GString *out = g_string_sized_new (64);
  const char *end = text + strlen (text);
  const char *cut = fxs_text_append_escaped (out, text, end, "", max_bytes);
  if (cut < end)
    g_string_append_printf (out, " ... (%" G_GSIZE_FORMAT " bytes cut)", (gsize) (end - cut));
  return g_string_free (out, FALSE);
}

void
fxs_json_append_quoted (GString *out, const char *s, gsize len)
{
  const gsize max_chars = 80;
  gsize chars = 0;
  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      guchar c = (guchar) s[i];
      if ((c & 0xc0) != 0x80 && chars++ == max_chars)
        {
          g_string_append (out, "...");
          break;
        }
      if (c == '"' || c == '\\')
        g_string_append_printf (out, "\\%c", c);
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}
