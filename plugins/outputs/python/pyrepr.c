/* Python repr() of values (Objects/unicodeobject.c unicode_repr for str,
 * the container reprs for list, tuple, dict and slice). */
#include "pyrepr.h"

#include <fxsplit/graph.h>
#include <string.h>

gsize
fxs_py_decode_char (const guchar *p, const guchar *end, gunichar *out)
{
  guchar c = p[0];
  gsize n;
  gunichar cp;
  if (c < 0x80)
    {
      *out = c;
      return 1;
    }
  else if (c >= 0xc2 && c <= 0xdf)
    n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, cp = c & 0x07;
  else
    goto invalid;
  if ((gsize) (end - p) < n)
    goto invalid;
  for (gsize i = 1; i < n; i++)
    {
      if ((p[i] & 0xc0) != 0x80)
        goto invalid;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
  /* overlong forms and code points past U+10FFFF */
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    goto invalid;
  *out = cp;
  return n;

invalid:
  *out = 0xdc00 + c;
  return 1;
}

/* Py_UNICODE_ISPRINTABLE: everything but the Other and Separator
 * categories, except the ASCII space. */
static gboolean
is_printable (gunichar c)
{
  if (c == ' ')
    return TRUE;
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_UNASSIGNED:
    case G_UNICODE_PRIVATE_USE:
    case G_UNICODE_SURROGATE:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_SPACE_SEPARATOR:
      return FALSE;
    default:
      return TRUE;
    }
}

void
fxs_py_repr_string (const char *s, gsize len, GString *out)
{
  const guchar *p = (const guchar *) s, *end = p + len;
  gboolean has_single = memchr (s, '\'', len) != NULL;
  gboolean has_double = memchr (s, '"', len) != NULL;
  char quote = has_single && !has_double ? '"' : '\'';

  g_string_append_c (out, quote);
  while (p < end)
    {
      gunichar c;
      p += fxs_py_decode_char (p, end, &c);
      if (c == (gunichar) quote || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c < ' ' || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c < 0x7f)
        g_string_append_c (out, (char) c);
      else if (is_printable (c))
        g_string_append_unichar (out, c);
      else if (c <= 0xff)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c <= 0xffff)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_printf (out, "\\U%08x", c);
    }
  g_string_append_c (out, quote);
}

static gboolean
is_id_start (gunichar c)
{
  if (c < 0x80)
    return g_ascii_isalpha ((char) c) || c == '_';
  return g_unichar_isalpha (c) || g_unichar_type (c) == G_UNICODE_LETTER_NUMBER;
}

static gboolean
is_id_continue (gunichar c)
{
  if (c < 0x80)
    return g_ascii_isalnum ((char) c) || c == '_';
  switch (g_unichar_type (c))
    {
    case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_SPACING_MARK:
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_CONNECT_PUNCTUATION:
      return TRUE;
    default:
      return is_id_start (c);
    }
}

gboolean
fxs_py_is_identifier (const char *s)
{
  if (!g_utf8_validate (s, -1, NULL) || *s == '\0')
    return FALSE;
  if (!is_id_start (g_utf8_get_char (s)))
    return FALSE;
  for (const char *p = g_utf8_next_char (s); *p; p = g_utf8_next_char (p))
    if (!is_id_continue (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

static void
repr_items (const FxsValue *value, const FxsPyReprHooks *hooks, GString *out)
{
  guint n = fxs_value_n_items (value);
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append (out, ", ");
      fxs_py_repr_value (fxs_value_item (value, i), hooks, out);
    }
}

void
fxs_py_repr_value (const FxsValue *value, const FxsPyReprHooks *hooks, GString *out)
{
  char buf[32];
  switch (fxs_value_kind (value))
    {
    case FXS_VALUE_NONE:
      g_string_append (out, "None");
      break;
    case FXS_VALUE_BOOL:
      g_string_append (out, fxs_value_get_bool (value) ? "True" : "False");
      break;
    case FXS_VALUE_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, fxs_value_get_int (value));
      break;
    case FXS_VALUE_FLOAT:
      g_string_append (out, fxs_format_float (fxs_value_get_float (value), buf));
      break;
    case FXS_VALUE_STRING:
      fxs_py_repr_string (fxs_value_get_string (value), fxs_value_get_string_length (value), out);
      break;
    case FXS_VALUE_LIST:
      g_string_append_c (out, '[');
      repr_items (value, hooks, out);
      g_string_append_c (out, ']');
      break;
    case FXS_VALUE_TUPLE:
      g_string_append_c (out, '(');
      repr_items (value, hooks, out);
      if (fxs_value_n_items (value) == 1)
        g_string_append_c (out, ',');
      g_string_append_c (out, ')');
      break;
    case FXS_VALUE_DICT:
      g_string_append_c (out, '{');
      for (guint i = 0; i < fxs_value_n_items (value); i++)
        {
          if (i)
            g_string_append (out, ", ");
          fxs_py_repr_value (fxs_value_dict_key (value, i), hooks, out);
          g_string_append (out, ": ");
          fxs_py_repr_value (fxs_value_dict_value (value, i), hooks, out);
        }
      g_string_append_c (out, '}');
      break;
    case FXS_VALUE_SLICE:
      g_string_append (out, "slice(");
      repr_items (value, hooks, out);
      g_string_append_c (out, ')');
      break;
    case FXS_VALUE_ELLIPSIS:
      g_string_append (out, "Ellipsis");
      break;
    case FXS_VALUE_NODE:
      hooks->node (fxs_value_get_node (value), hooks->data, out);
      break;
    case FXS_VALUE_OPAQUE:
      if (hooks->opaque)
        hooks->opaque (value, hooks->data, out);
      else
        g_string_append (out, fxs_value_get_opaque_repr (value));
      break;
    }
}
