/* Quoting, colours and shapes for DOT text (see dot-text.h). */
#include "dot-text.h"

#include <string.h>

void
dot_append_quoted (GString *out, const char *text)
{
  char *valid = g_utf8_make_valid (text, -1);
  g_string_append_c (out, '"');
  for (const char *c = valid; *c; c++)
    {
      if (*c == '"' || *c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, *c);
        }
      else if (*c == '\n')
        g_string_append (out, "\\n");
      else if ((guchar) *c < 0x20 || *c == 0x7f)
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, *c);
    }
  g_string_append_c (out, '"');
  g_free (valid);
}

/* Tableau 10: distinct hues that stay apart when tinted. */
static const guint32 palette[] = {
  0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
};

void
dot_append_colour (GString *out, guint index, DotColourRole role)
{
  guint32 rgb = palette[index % G_N_ELEMENTS (palette)];
  /* Parts of white mixed in, of 100: pale backgrounds keep labels
   * readable, fills a little stronger, borders the colour itself. */
  guint white = role == DOT_COLOUR_BACKGROUND ? 82 : role == DOT_COLOUR_FILL ? 50 : 0;
  g_string_append_c (out, '#');
  for (int shift = 16; shift >= 0; shift -= 8)
    {
      guint channel = (rgb >> shift) & 0xff;
      channel = (channel * (100 - white) + 255 * white + 50) / 100;
      g_string_append_printf (out, "%02x", channel);
    }
}

/* torch's short dtype names ("f32"), or the name without "torch.". */
static void
append_dtype (GString *out, const char *dtype)
{
  static const char *const short_names[][2] = {
    { "torch.float32", "f32" }, { "torch.float16", "f16" }, { "torch.bfloat16", "bf16" },
    { "torch.float64", "f64" }, { "torch.int64", "i64" },   { "torch.int32", "i32" },
    { "torch.int16", "i16" },   { "torch.int8", "i8" },     { "torch.uint8", "u8" },
    { "torch.bool", "b8" },     { "torch.complex64", "c64" }, { "torch.complex128", "c128" },
  };
  if (!dtype)
    {
      g_string_append_c (out, '?');
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (short_names); i++)
    if (strcmp (dtype, short_names[i][0]) == 0)
      {
        g_string_append (out, short_names[i][1]);
        return;
      }
  g_string_append (out, g_str_has_prefix (dtype, "torch.") ? dtype + 6 : dtype);
}

static void
append_tensor (GString *out, const FxsTensorMeta *t)
{
  append_dtype (out, fxs_tensor_dtype (t));
  g_string_append_c (out, '[');
  for (guint d = 0; d < fxs_tensor_rank (t); d++)
    {
      if (d)
        g_string_append (out, ", ");
      const char *symbol = fxs_tensor_dim_symbol (t, d);
      if (symbol)
        g_string_append (out, symbol);
      else if (fxs_tensor_dim (t, d) < 0)
        g_string_append_c (out, '?');
      else
        g_string_append_printf (out, "%" G_GINT64_FORMAT, fxs_tensor_dim (t, d));
    }
  g_string_append_c (out, ']');
}

void
dot_append_value_shape (GString *out, const FxsNode *node)
{
  enum { SHOWN = 3 };
  guint n = fxs_node_n_tensors (node);
  if (n == 0)
    {
      g_string_append (out, fxs_node_value_is_tuple (node) ? "()" : "?");
      return;
    }
  if (!fxs_node_value_is_tuple (node))
    {
      append_tensor (out, fxs_node_tensor (node, 0));
      return;
    }
  g_string_append_c (out, '(');
  for (guint i = 0; i < n && i < SHOWN; i++)
    {
      if (i)
        g_string_append (out, ", ");
      append_tensor (out, fxs_node_tensor (node, i));
    }
  if (n > SHOWN)
    g_string_append_printf (out, ", ... %u in all", n);
  g_string_append_c (out, ')');
}
