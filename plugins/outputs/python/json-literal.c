/* JSON for the data tables of the generated module. */
#include "json-literal.h"
#include "pyrepr.h"

#include <fxsplit/graph.h>
#include <math.h>
#include <string.h>

void
fxs_json_literal_string (const char *s, gsize len, GString *out)
{
  const guchar *p = (const guchar *) s, *end = p + len;
  g_string_append_c (out, '"');
  while (p < end)
    {
      gunichar c;
      p += fxs_py_decode_char (p, end, &c);
      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c >= ' ' && c < 0x7f && c != '\'')
        g_string_append_c (out, (char) c);
      else if (c < 0x10000)
        g_string_append_printf (out, "\\u%04x", c);
      else
        {
          /* a UTF-16 surrogate pair */
          gunichar v = c - 0x10000;
          g_string_append_printf (out, "\\u%04x\\u%04x", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
        }
    }
  g_string_append_c (out, '"');
}

static void
append_cstring (const char *s, GString *out)
{
  fxs_json_literal_string (s, strlen (s), out);
}

static void
append_items (const FxsValue *value, GString *out)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < fxs_value_n_items (value); i++)
    {
      if (i)
        g_string_append (out, ", ");
      fxs_json_literal_value (fxs_value_item (value, i), out);
    }
  g_string_append_c (out, ']');
}

void
fxs_json_literal_value (const FxsValue *value, GString *out)
{
  char buf[32];
  switch (fxs_value_kind (value))
    {
    case FXS_VALUE_NONE:
      g_string_append (out, "null");
      break;
    case FXS_VALUE_BOOL:
      g_string_append (out, fxs_value_get_bool (value) ? "true" : "false");
      break;
    case FXS_VALUE_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, fxs_value_get_int (value));
      break;
    case FXS_VALUE_FLOAT:
      {
        double v = fxs_value_get_float (value);
        if (isfinite (v))
          g_string_append (out, fxs_format_float (v, buf));
        else
          g_string_append_printf (out, "{\"float\": \"%s\"}", fxs_format_float (v, buf));
      }
      break;
    case FXS_VALUE_STRING:
      fxs_json_literal_string (fxs_value_get_string (value), fxs_value_get_string_length (value),
                               out);
      break;
    case FXS_VALUE_LIST:
      append_items (value, out);
      break;
    case FXS_VALUE_TUPLE:
      g_string_append (out, "{\"tuple\": ");
      append_items (value, out);
      g_string_append_c (out, '}');
      break;
    case FXS_VALUE_DICT:
      g_string_append (out, "{\"dict\": [");
      for (guint i = 0; i < fxs_value_n_items (value); i++)
        {
          g_string_append (out, i ? ", [" : "[");
          fxs_json_literal_value (fxs_value_dict_key (value, i), out);
          g_string_append (out, ", ");
          fxs_json_literal_value (fxs_value_dict_value (value, i), out);
          g_string_append_c (out, ']');
        }
      g_string_append (out, "]}");
      break;
    case FXS_VALUE_SLICE:
      g_string_append (out, "{\"slice\": ");
      append_items (value, out);
      g_string_append_c (out, '}');
      break;
    case FXS_VALUE_ELLIPSIS:
      g_string_append (out, "{\"ellipsis\": true}");
      break;
    case FXS_VALUE_NODE:
      g_string_append (out, "{\"node\": ");
      append_cstring (fxs_node_name (fxs_value_get_node (value)), out);
      g_string_append_c (out, '}');
      break;
    case FXS_VALUE_OPAQUE:
      g_string_append (out, "{\"opaque\": ");
      append_cstring (fxs_value_get_opaque_type (value), out);
      g_string_append (out, ", \"repr\": ");
      append_cstring (fxs_value_get_opaque_repr (value), out);
      g_string_append_c (out, '}');
      break;
    }
}
