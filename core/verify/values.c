/* Argument values as verify sees them (verify-private.h): node references
 * followed to what they stand for (a value number, or a returned tuple
 * read in its submodule), written as keys, compared structurally, and
 * described for messages. */
#include "verify-private.h"
#include "util/text-escape.h"

#include <string.h>

/* @s quoted and escaped for a one-line message. */
static void
append_quoted (GString *out, const char *s)
{
  fxs_json_append_quoted (out, s, strlen (s));
}

Resolved
fxs_verify_resolve (const Verifier *v, const FxsValue *value, Scope *scope)
{
  while (value->kind == FXS_VALUE_NODE)
    {
      guint32 val = scope->val[value->u.node->index];
      if (!(val & VAL_STRUCT) || val == VAL_NONE)
        return (Resolved) { val, NULL, scope };
      const Resolved *st = &g_array_index (v->structs, Resolved, val & ~VAL_STRUCT);
      value = st->value;
      scope = st->scope;
    }
  return (Resolved) { VAL_NONE, value, scope };
}

/* ---- keys of values ---------------------------------------------------------- */

void
fxs_verify_encode_word (GString *out, guint8 tag, guint64 word)
{
  gsize at = out->len;
  g_string_set_size (out, at + 1 + sizeof word);
  out->str[at] = (char) tag;
  memcpy (out->str + at + 1, &word, sizeof word);
}

void
fxs_verify_encode (const Verifier *v, GString *out, const FxsValue *value, Scope *scope, gboolean as_is)
{
  Resolved r = as_is ? (Resolved) { VAL_NONE, value, scope } : fxs_verify_resolve (v, value, scope);
  value = r.value;
  if (!value)
    fxs_verify_encode_word (out, FXS_VALUE_NODE, r.vn);
  else if (value->kind == FXS_VALUE_NODE)  /* as is */
    fxs_verify_encode_word (out, G_MAXUINT8, (guint64) (guintptr) value->u.node);
  else if (value->kind == FXS_VALUE_BOOL)
    fxs_verify_encode_word (out, value->kind, value->u.b != 0);
  else if (value->kind == FXS_VALUE_INT)
    fxs_verify_encode_word (out, value->kind, (guint64) value->u.i);
  else if (value->kind == FXS_VALUE_FLOAT)
    fxs_verify_encode_word (out, value->kind, fxs_float_bits (value->u.f));
  else if (value->kind == FXS_VALUE_STRING)
    {
      fxs_verify_encode_word (out, value->kind, value->n);
      g_string_append_len (out, value->u.s, value->n);
    }
  else /* list, tuple, slice, opaque, None, Ellipsis; a dict's items are its keys and values */
    {
      gboolean dict = value->kind == FXS_VALUE_DICT;
      fxs_verify_encode_word (out, value->kind, value->n);
      for (guint i = 0; i < (dict ? 2 * value->n : value->n); i++)
        fxs_verify_encode (v, out, &value->u.items[i], r.scope, as_is || (dict && i % 2 == 0));
    }
}

/* ---- messages about values ------------------------------------------------------- */

const char *
fxs_verify_kind_name (FxsValueKind kind)
{
  static const char *const names[] = {
    "None", "a bool", "an int", "a float", "a string", "a list", "a tuple", "a dict",
    "a slice", "Ellipsis", "a node", "a constant",
  };
  return kind < G_N_ELEMENTS (names) ? names[kind] : "a value";
}

void
fxs_verify_describe_resolved (const Verifier *v, GString *out, Resolved r)
{
  if (!r.value)
    {
      const Vn *vn = &g_array_index (v->vns, Vn, r.vn);
      g_string_append (out, "the value of original node ");
      append_quoted (out, fxs_graph_node (v->orig->graph, vn->rep)->name);
      return;
    }
  const FxsValue *value = r.value;
  char buf[32];
  switch ((FxsValueKind) value->kind)
    {
    case FXS_VALUE_BOOL:
      g_string_append (out, value->u.b ? "True" : "False");
      break;
    case FXS_VALUE_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, value->u.i);
      break;
    case FXS_VALUE_FLOAT:
      g_string_append (out, fxs_format_float (value->u.f, buf));
      break;
    case FXS_VALUE_STRING:
      g_string_append (out, "the string ");
      fxs_json_append_quoted (out, value->u.s, value->n);
      break;
    case FXS_VALUE_OPAQUE:
      append_quoted (out, fxs_value_get_opaque_repr (value));
      break;
    case FXS_VALUE_LIST:
    case FXS_VALUE_TUPLE:
    case FXS_VALUE_DICT:
      g_string_append_printf (out, "%s of %u", fxs_verify_kind_name ((FxsValueKind) value->kind), value->n);
      break;
    default:
      g_string_append (out, fxs_verify_kind_name ((FxsValueKind) value->kind));
      break;
    }
}

gboolean
fxs_verify_first_difference (const Verifier *v, const FxsValue *a, Scope *sa, const FxsValue *b, Scope *sb,
                             GString *out)
{
  Resolved ra = fxs_verify_resolve (v, a, sa), rb = fxs_verify_resolve (v, b, sb);
  gboolean same;
  if (!ra.value || !rb.value)
    same = !ra.value && !rb.value && ra.vn == rb.vn;
  else if (ra.value->kind != rb.value->kind || ra.value->n != rb.value->n)
    same = FALSE;
  else if (ra.value->kind == FXS_VALUE_LIST || ra.value->kind == FXS_VALUE_TUPLE
           || ra.value->kind == FXS_VALUE_SLICE || ra.value->kind == FXS_VALUE_DICT)
    {
      /* the same shape: the first item that differs says where */
      gboolean dict = ra.value->kind == FXS_VALUE_DICT;
      for (guint i = 0; i < ra.value->n; i++)
        {
          const FxsValue *ia = dict ? &ra.value->u.items[2 * i + 1] : &ra.value->u.items[i];
          const FxsValue *ib = dict ? &rb.value->u.items[2 * i + 1] : &rb.value->u.items[i];
          if (dict && !fxs_value_equal (&ra.value->u.items[2 * i], &rb.value->u.items[2 * i]))
            {
              g_string_append_printf (out, "[%u] a different key", i);
              return TRUE;
            }
          gsize len = out->len;
          if (dict && ra.value->u.items[2 * i].kind == FXS_VALUE_STRING)
            {
              g_string_append_c (out, '[');
              append_quoted (out, ra.value->u.items[2 * i].u.s);
              g_string_append_c (out, ']');
            }
          else
            g_string_append_printf (out, "[%u]", i);
          if (fxs_verify_first_difference (v, ia, ra.scope, ib, rb.scope, out))
            return TRUE;
          g_string_truncate (out, len);
        }
      return FALSE;
    }
  else
    same = fxs_value_equal (ra.value, rb.value);
  if (same)
    return FALSE;
  g_string_append (out, " is ");
  fxs_verify_describe_resolved (v, out, ra);
  g_string_append (out, " where the original has ");
  fxs_verify_describe_resolved (v, out, rb);
  return TRUE;
}

/* ---- messages ------------------------------------------------------------------- */

gboolean
fxs_verify_fail (Verifier *v, const char *format, ...)
{
  if (v->error)
    return FALSE;
  va_list args;
  va_start (args, format);
  v->error = g_error_new_valist (FXS_ERROR, FXS_ERROR_VERIFY, format, args);
  va_end (args);
  return FALSE;
}

const char *
fxs_verify_keep (Verifier *v, GString *s)
{
  char *text = g_string_free (s, FALSE);
  g_ptr_array_add (v->texts, text);
  return text;
}

const char *
fxs_verify_node (Verifier *v, const Scope *scope, const FxsNode *node)
{
  GString *s = g_string_new (NULL);
  if (scope->name)
    g_string_append_printf (s, "%s: node ", scope->name);
  else
    g_string_append (s, scope == v->orig ? "original node " : "top-level node ");
  append_quoted (s, node->name);
  g_string_append_printf (s, " (%s ", fxs_op_to_string ((FxsOp) node->op));
  append_quoted (s, node->target);
  g_string_append_c (s, ')');
  return fxs_verify_keep (v, s);
}

const char *
fxs_verify_quoted (Verifier *v, const char *text)
{
  GString *s = g_string_new (NULL);
  append_quoted (s, text);
  return fxs_verify_keep (v, s);
}
