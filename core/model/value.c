/* Argument values: reading, making, comparing, and Python float repr. */
#include "graph-private.h"

#include <float.h>
#include <math.h>
#include <string.h>

FXS_GETTER (FxsValueKind, fxs_value_kind, FxsValue, value,
            (FxsValueKind) value->kind, FXS_VALUE_NONE)

/* A getter @fn of a value of kind @Kind that returns @expr, @fallback for
 * a value of another kind. */
#define VALUE_GETTER(Ret, fn, Kind, expr, fallback)                         \
  Ret                                                                       \
  fn (const FxsValue *value)                                                \
  {                                                                         \
    g_return_val_if_fail (value->kind == Kind, fallback);                   \
    return expr;                                                            \
  }

VALUE_GETTER (gboolean, fxs_value_get_bool, FXS_VALUE_BOOL, value->u.b, FALSE)
VALUE_GETTER (gint64, fxs_value_get_int, FXS_VALUE_INT, value->u.i, 0)
VALUE_GETTER (double, fxs_value_get_float, FXS_VALUE_FLOAT, value->u.f, 0.0)
VALUE_GETTER (const char *, fxs_value_get_string, FXS_VALUE_STRING, value->u.s, NULL)
VALUE_GETTER (gsize, fxs_value_get_string_length, FXS_VALUE_STRING, value->n, 0)
VALUE_GETTER (const FxsNode *, fxs_value_get_node, FXS_VALUE_NODE, value->u.node, NULL)
VALUE_GETTER (const char *, fxs_value_get_opaque_type, FXS_VALUE_OPAQUE,
              value->u.items[0].u.s, NULL)
VALUE_GETTER (const char *, fxs_value_get_opaque_repr, FXS_VALUE_OPAQUE,
              value->u.items[1].u.s, NULL)

guint
fxs_value_n_items (const FxsValue *value)
{
  /* n is also a string's length and an opaque value's two strings */
  gboolean items = value->kind == FXS_VALUE_LIST || value->kind == FXS_VALUE_TUPLE
                   || value->kind == FXS_VALUE_DICT || value->kind == FXS_VALUE_SLICE;
  return items ? value->n : 0;
}

const FxsValue *
fxs_value_item (const FxsValue *value, guint i)
{
  g_return_val_if_fail (value->kind == FXS_VALUE_LIST || value->kind == FXS_VALUE_TUPLE
                        || value->kind == FXS_VALUE_SLICE, NULL);
  g_return_val_if_fail (i < value->n, NULL);
  return &value->u.items[i];
}

const FxsValue *
fxs_value_dict_key (const FxsValue *value, guint i)
{
  g_return_val_if_fail (value->kind == FXS_VALUE_DICT && i < value->n, NULL);
  return &value->u.items[2 * i];
}

const FxsValue *
fxs_value_dict_value (const FxsValue *value, guint i)
{
  g_return_val_if_fail (value->kind == FXS_VALUE_DICT && i < value->n, NULL);
  return &value->u.items[2 * i + 1];
}

const FxsValue *
fxs_value_dict_lookup (const FxsValue *value, const char *key)
{
  if (value == NULL || value->kind != FXS_VALUE_DICT)
    return NULL;
  for (guint i = 0; i < value->n; i++)
    {
      const FxsValue *k = &value->u.items[2 * i];
      if (k->kind == FXS_VALUE_STRING && strcmp (k->u.s, key) == 0)
        return &value->u.items[2 * i + 1];
    }
  return NULL;
}

void
fxs_value_foreach_node (const FxsValue *value, FxsNodeRefFunc func, gpointer user_data)
{
  switch (value->kind)
    {
    case FXS_VALUE_NODE:
      func (value->u.node, user_data);
      break;
    case FXS_VALUE_LIST:
    case FXS_VALUE_TUPLE:
    case FXS_VALUE_SLICE:
      for (guint i = 0; i < value->n; i++)
        fxs_value_foreach_node (&value->u.items[i], func, user_data);
      break;
    case FXS_VALUE_DICT:
      /* map_arg maps dict values only */
      for (guint i = 0; i < value->n; i++)
        fxs_value_foreach_node (&value->u.items[2 * i + 1], func, user_data);
      break;
    default:
      break;
    }
}

gboolean
fxs_value_equal (const FxsValue *a, const FxsValue *b)
{
  if (a->kind != b->kind)
    return FALSE;
  switch (a->kind)
    {
    case FXS_VALUE_NONE:
    case FXS_VALUE_ELLIPSIS:
      return TRUE;
    case FXS_VALUE_BOOL:
      return !a->u.b == !b->u.b;
    case FXS_VALUE_INT:
      return a->u.i == b->u.i;
    case FXS_VALUE_FLOAT:
      return fxs_float_bits (a->u.f) == fxs_float_bits (b->u.f);
    case FXS_VALUE_STRING:
      return a->n == b->n && memcmp (a->u.s, b->u.s, a->n) == 0;
    case FXS_VALUE_NODE:
      return a->u.node == b->u.node;
    default: /* list, tuple, slice, opaque; a dict's items are its keys and values */
      if (a->n != b->n)
        return FALSE;
      guint n = a->kind == FXS_VALUE_DICT ? 2 * a->n : a->n;
      for (guint i = 0; i < n; i++)
        if (!fxs_value_equal (&a->u.items[i], &b->u.items[i]))
          return FALSE;
      return TRUE;
    }
}

/* ---- making values ------------------------------------------------------ */

/* A copy of @v in @graph. */
static FxsValue *
value_new (FxsGraph *graph, FxsValue v)
{
  return fxs_arena_memdup (&graph->arena, &v, sizeof v);
}

FxsValue *
fxs_value_new_none (FxsGraph *graph)
{
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_NONE });
}

FxsValue *
fxs_value_new_bool (FxsGraph *graph, gboolean b)
{
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_BOOL, .u.b = !!b });
}

FxsValue *
fxs_value_new_int (FxsGraph *graph, gint64 i)
{
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_INT, .u.i = i });
}

FxsValue *
fxs_value_new_float (FxsGraph *graph, double f)
{
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_FLOAT, .u.f = f });
}

FxsValue *
fxs_value_new_string_len (FxsGraph *graph, const char *s, gsize len)
{
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_STRING, .n = (guint32) len,
                                        .u.s = fxs_arena_strndup (&graph->arena, s, len) });
}

FxsValue *
fxs_value_new_string (FxsGraph *graph, const char *s)
{
  return fxs_value_new_string_len (graph, s, strlen (s));
}

FxsValue *
fxs_value_new_ellipsis (FxsGraph *graph)
{
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_ELLIPSIS });
}

FxsValue *
fxs_value_new_node (FxsGraph *graph, const FxsNode *node)
{
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_NODE, .u.node = node });
}

FxsValue *
fxs_value_new_opaque (FxsGraph *graph, const char *type, const char *repr)
{
  FxsValue items[2] = {
    { .kind = FXS_VALUE_STRING, .n = (guint32) strlen (type),
      .u.s = fxs_graph_intern (graph, type) },
    { .kind = FXS_VALUE_STRING, .n = (guint32) strlen (repr),
      .u.s = fxs_graph_intern (graph, repr) },
  };
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_OPAQUE, .n = 2,
                                        .u.items = fxs_arena_memdup (&graph->arena, items,
                                                                     sizeof items) });
}

FxsValue *
fxs_value_new_sequence (FxsGraph *graph, FxsValueKind kind,
                        const FxsValue *const *items, guint n_items)
{
  g_return_val_if_fail (kind == FXS_VALUE_LIST || kind == FXS_VALUE_TUPLE, NULL);
  FxsValue *copy = n_items ? fxs_arena_alloc (&graph->arena, n_items * sizeof *copy) : NULL;
  for (guint i = 0; i < n_items; i++)
    copy[i] = *items[i];
  return value_new (graph, (FxsValue) { .kind = kind, .n = n_items, .u.items = copy });
}

FxsValue *
fxs_value_new_dict (FxsGraph *graph, const FxsValue *const *keys,
                    const FxsValue *const *values, guint n_entries)
{
  FxsValue *copy = n_entries ? fxs_arena_alloc (&graph->arena, 2 * n_entries * sizeof *copy) : NULL;
  for (guint i = 0; i < n_entries; i++)
    {
      copy[2 * i] = *keys[i];
      copy[2 * i + 1] = *values[i];
    }
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_DICT, .n = n_entries, .u.items = copy });
}

FxsValue *
fxs_value_new_slice (FxsGraph *graph, const FxsValue *start, const FxsValue *stop,
                     const FxsValue *step)
{
  FxsValue items[3] = { *start, *stop, *step };
  return value_new (graph, (FxsValue) { .kind = FXS_VALUE_SLICE, .n = 3,
                                        .u.items = fxs_arena_memdup (&graph->arena, items,
                                                                     sizeof items) });
}

/* ---- Python float repr -------------------------------------------------- */

const char *
fxs_format_float (double v, char buf[32])
{
  if (isnan (v))
    return strcpy (buf, "nan");
  if (isinf (v))
    return strcpy (buf, v > 0 ? "inf" : "-inf");
  if (fabs (v) < 1e16 && v == (double) (gint64) v)
    {
      /* a whole number (0.0, -0.0, 1.0, the most common): its digits and ".0",
       * without the search below */
      char digits[20];
      int n = 0;
      guint64 u = (guint64) fabs (v);
      do
        digits[n++] = (char) ('0' + u % 10);
      while ((u /= 10) != 0);
      char *p = buf;
      if (signbit (v))
        *p++ = '-';
      while (n)
        *p++ = digits[--n];
      strcpy (p, ".0");
      return buf;
    }

  /* Shortest round-trip digits, as Python's repr (David Gay's mode 0):
   * for a normal number, 15 significant digits give them back when there
   * are at most 15 (DBL_DIG), %g dropping the zeros after them; else 16
   * do, or 17.  %g lays them out as Python's float_repr_style 'short'
   * does, scientific below 1e-4 and (for what is left here) from 1e16 on,
   * but for 17 digits below 1e17, which %g would write whole.  g_ascii_:
   * the command runs under the user's LC_NUMERIC. */
  for (int prec = fabs (v) < DBL_MIN ? 1 : DBL_DIG; prec < 17; prec++)
    {
      char format[8];
      g_snprintf (format, sizeof format, "%%.%dg", prec);
      g_ascii_formatd (buf, 32, format, v);
      if (g_ascii_strtod (buf, NULL) == v)
        return buf;
    }
  return g_ascii_formatd (buf, 32, fabs (v) >= 1e16 ? "%.16e" : "%.17g", v);
}
