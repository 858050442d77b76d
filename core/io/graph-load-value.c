/* Loading graph files: values (docs/graph-format.md, "Values"), the
 * scalars they are made of, and the error messages of the loader. */
#include "graph-load-private.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ---- messages ----------------------------------------------------------------- */

const char *
fxs_load_type_name (FxsJsonType type)
{
  static const char *const names[] = {
    "null", "a bool", "a number", "a string", "an array", "an object",
  };
  return names[type];
}

/* "PATH: node "x": ", the start of a message about @where. */
static GString *
start_message (FxsLoader *l, const FxsJson *where)
{
  GString *msg = fxs_json_reader_start_message (l->reader, l->root, where);
  if (l->node_name)
    {
      g_string_append (msg, "node ");
      fxs_json_append_quoted (msg, l->node_name->u.s, l->node_name->n);
      g_string_append (msg, ": ");
    }
  return msg;
}

gboolean
fxs_load_fail_at (FxsLoader *l, FxsErrorCode code, gint64 pos, const FxsJson *where,
                  const char *format, ...)
{
  GString *msg = start_message (l, where);
  va_list args;
  va_start (args, format);
  g_string_append_vprintf (msg, format, args);
  va_end (args);
  fxs_json_reader_fail_message (l->reader, code, pos, msg->str);
  g_string_free (msg, TRUE);
  return FALSE;
}

const char *
fxs_load_quoted (FxsLoader *l, const char *s, gsize len)
{
  g_string_truncate (l->quoted, 0);
  fxs_json_append_quoted (l->quoted, s, len);
  return l->quoted->str;
}

const char *
fxs_load_shown (FxsLoader *l, const FxsJson *number)
{
  if (number->n < 60)
    return number->u.s;
  g_string_printf (l->quoted, "%.40s...(%u digits)", number->u.s, number->n);
  return l->quoted->str;
}

/* ---- scalars ---------------------------------------------------------------- */

gboolean
fxs_load_check_text (FxsLoader *l, const FxsJson *j, const char *what)
{
  if (j->type != FXS_JSON_STRING)
    return fxs_load_fail (l, FXS_ERROR_FORMAT, j, "%s must be a string, not %s", what,
                          fxs_load_type_name (j->type));
  if (j->n == 0)
    return fxs_load_fail (l, FXS_ERROR_FORMAT, j, "%s is empty", what);
  if (!is_text (j))
    return fxs_load_fail (l, FXS_ERROR_FORMAT, j, "%s contains a NUL character", what);
  return TRUE;
}

/* ---- objects of known members ------------------------------------------- */

gboolean
fxs_load_unknown_member (FxsLoader *l, const FxsJson *obj, const FxsJson *key,
                         const FxsMember *schema, guint n)
{
  GString *valid = g_string_new (NULL);
  for (guint m = 0; m < n; m++)
    {
      g_string_append_printf (valid, "%s\"%s\"", m ? ", " : "", schema[m].name);
      if (schema[m].type == FXS_MEMBER_NODE_NAME)
        {
          /* name the node if it has a usable name */
          const FxsJson *name = fxs_json_member (obj, schema[m].name);
          if (name && is_text (name))
            l->node_name = name;
        }
    }
  fxs_load_fail (l, FXS_ERROR_FORMAT, key, "unknown member %s (expected %s)",
                 fxs_load_quoted (l, key->u.s, key->n), valid->str);
  g_string_free (valid, TRUE);
  return FALSE;
}

gboolean
fxs_load_check_member (FxsLoader *l, const FxsJson *obj,
                       const FxsMember *m, const FxsJson *v)
{
  const char *what = fxs_load_quoted (l, m->name, m->len);
  gint64 value;
  if (!v)
    return fxs_load_fail (l, FXS_ERROR_FORMAT, obj, "%s", m->missing);
  switch ((FxsMemberType) m->type)
    {
    case FXS_MEMBER_ANY:
    case FXS_MEMBER_OTHERS:
      return TRUE;
    case FXS_MEMBER_TEXT:
    case FXS_MEMBER_NODE_NAME:
      return fxs_load_check_text (l, v, m->what ? m->what : what);
    case FXS_MEMBER_INTEGER:
      if (v->type != FXS_JSON_NUMBER || !fxs_load_is_integer (v))
        return fxs_load_fail (l, FXS_ERROR_FORMAT, v, "%s must be an integer, not %s", what,
                              fxs_load_type_name (v->type));
      return fxs_load_integer (l, v, &value);
    case FXS_MEMBER_NAMES:
      if (!fxs_load_expect (l, v, FXS_JSON_ARRAY, "must be an array of names"))
        return FALSE;
      for (guint i = 0; i < v->n; i++)
        if (!fxs_load_check_text (l, &v->u.items[i], "a name"))
          return FALSE;
      return TRUE;
    case FXS_MEMBER_ARRAY:
      return fxs_load_expect (l, v, FXS_JSON_ARRAY, m->what);
    }
  g_return_val_if_reached (FALSE);
}

gboolean
fxs_load_integer (FxsLoader *l, const FxsJson *j, gint64 *out)
{
  if (j->n <= 18)
    {
      /* fits: no overflow check per digit */
      const char *s = j->u.s + (*j->u.s == '-');
      gint64 v = 0;
      for (; *s; s++)
        v = v * 10 + (*s - '0');
      *out = *j->u.s == '-' ? -v : v;
      return TRUE;
    }
  if (!fxs_load_parse_integer (j->u.s, out))
    return fxs_load_fail (l, FXS_ERROR_FORMAT, j,
                          "integer %s does not fit in 64 bits", fxs_load_shown (l, j));
  return TRUE;
}

/* ---- values ----------------------------------------------------------------- */

/* Targets, keys and types repeat close together, if at all: interning them
 * all took a table too big for the cache, so they are only shared with an
 * equal string met lately.  Dtypes and symbols are few and compared by
 * pointer: interned, behind the same cache (an interned entry serves a
 * share too, a shared one is no intern). */
const char *
fxs_load_share_hashed (FxsLoader *l, const FxsJson *j, guint32 h, gboolean intern)
{
  FxsLoadCached *e = &l->strings[h % G_N_ELEMENTS (l->strings)];
  if (e->graph == l->graph && e->len == j->n && (e->interned || !intern)
      && memcmp (e->text, j->u.s, j->n) == 0)
    return e->text;
  const char *text = intern ? fxs_graph_intern (l->graph, j->u.s)
                            : fxs_load_copy_text (l->graph, j);
  *e = (FxsLoadCached) { text, l->graph, j->n, intern };
  return text;
}

/* The items of @array as values, into @items. */
static gboolean
load_values (FxsLoader *l, const FxsJson *array, FxsValue *items)
{
  for (guint i = 0; i < array->n; i++)
    if (!fxs_load_value (l, &array->u.items[i], &items[i]))
      return FALSE;
  return TRUE;
}

gboolean
fxs_load_items (FxsLoader *l, const FxsJson *array, FxsValueKind kind, FxsValue *out)
{
  out->kind = kind;
  out->n = array->n;
  out->u.items = array->n ? fxs_arena_alloc (&l->graph->arena, array->n * sizeof (FxsValue)) : NULL;
  return load_values (l, array, (FxsValue *) out->u.items);
}

/* {"dict": [[key, value], ...]} */
static gboolean
convert_dict (FxsLoader *l, const FxsJson *pairs, FxsValue *out)
{
  FxsValue *items =
    pairs->n ? fxs_arena_alloc (&l->graph->arena, 2 * pairs->n * sizeof *items) : NULL;
  out->kind = FXS_VALUE_DICT;
  out->n = pairs->n;
  out->u.items = items;
  for (guint i = 0; i < pairs->n; i++)
    {
      const FxsJson *pair = &pairs->u.items[i];
      if (pair->type != FXS_JSON_ARRAY || pair->n != 2)
        return fxs_load_fail (l, FXS_ERROR_FORMAT, pair,
                              "a dict entry must be a [key, value] array");
      if (!load_values (l, pair, &items[2 * i]))
        return FALSE;
    }
  return TRUE;
}

/* {"node": "name"}: an earlier node of the graph. */
static gboolean
convert_reference (FxsLoader *l, const FxsJson *ref, FxsValue *out)
{
  if (!is_text (ref))
    return fxs_load_fail (l, FXS_ERROR_FORMAT, ref,
                          "a node reference must be a node's name (a string without NUL)");
  guint32 hash = fxs_name_hash (ref->u.s, ref->n);
  const FxsNode *node = l->recent[hash % G_N_ELEMENTS (l->recent)];
  if (!node || node->graph != l->graph || strcmp (node->name, ref->u.s) != 0)
    {
      guint32 index = fxs_graph_name_position (l->graph, TRUE, ref->u.s, ref->n, hash);
      node = index != G_MAXUINT32 ? l->graph->nodes->pdata[index] : NULL;
    }
  if (node)
    {
      out->kind = FXS_VALUE_NODE;
      out->u.node = node;
      return TRUE;
    }
  if (l->node_name && l->node_name->n == ref->n
      && memcmp (l->node_name->u.s, ref->u.s, ref->n) == 0)
    return fxs_load_fail (l, FXS_ERROR_GRAPH, ref, "refers to itself");
  /* not an error yet: the rest of the list tells whether it is later or missing */
  FxsForwardRef *f = &l->forward;
  f->name = g_strndup (ref->u.s, ref->n);
  f->pos = ref->pos;
  f->message = start_message (l, ref);
  g_string_append (f->message, "refers to ");
  fxs_json_append_quoted (f->message, ref->u.s, ref->n);
  return FALSE;
}

static gboolean
convert_opaque (FxsLoader *l, const FxsJson *obj, FxsValue *out)
{
  static const FxsMember members[] = {
    FXS_MEMBER ("opaque", FXS_MEMBER_TEXT, .what = "an opaque value's type"),
    FXS_MEMBER ("repr", FXS_MEMBER_TEXT, .missing = "{\"opaque\": ...} needs a \"repr\"",
                .what = "an opaque value's repr"),
  };
  const FxsJson *m[G_N_ELEMENTS (members)];
  if (!fxs_load_members (l, obj, members, G_N_ELEMENTS (members), m))
    return FALSE;
  const FxsJson *type = m[0], *repr = m[1];
  FxsValue *items = fxs_arena_alloc (&l->graph->arena, 2 * sizeof *items);
  items[0].kind = items[1].kind = FXS_VALUE_STRING;
  items[0].u.s = fxs_load_share (l, type);
  items[0].n = type->n;
  items[1].u.s = fxs_load_share (l, repr);
  items[1].n = repr->n;
  out->kind = FXS_VALUE_OPAQUE;
  out->n = 2;
  out->u.items = items;
  return TRUE;
}

/* An object value: exactly one tag (or "opaque" with "repr"). */
static gboolean
convert_tagged (FxsLoader *l, const FxsJson *obj, FxsValue *out)
{
  static const char expected[] = "expected one of {\"tuple\": [...]}, {\"dict\": [[k, v], ...]}, "
    "{\"slice\": [start, stop, step]}, {\"ellipsis\": true}, {\"node\": name}, "
    "{\"float\": \"inf\"|\"-inf\"|\"nan\"}, {\"opaque\": type, \"repr\": text}";
  if (obj->n == 0)
    return fxs_load_fail (l, FXS_ERROR_FORMAT, obj, "an empty object is not a value: %s",
                          expected);
  if (obj->n == 1 ? is_key (&obj->u.items[0], "opaque")
                  : obj->n == 2 && fxs_json_member (obj, "opaque") && fxs_json_member (obj, "repr"))
    return convert_opaque (l, obj, out);
  const FxsJson *key = &obj->u.items[0];
  const FxsJson *v = &obj->u.items[1];
  if (obj->n != 1)
    return fxs_load_fail (l, FXS_ERROR_FORMAT, obj,
                          "a value object has exactly one tag, this one has %u members: %s",
                          obj->n, expected);
  const char *tag = key->u.s;
  if (is_key (key, "tuple") || is_key (key, "slice"))
    {
      gboolean slice = tag[0] == 's';
      if (v->type != FXS_JSON_ARRAY)
        return fxs_load_fail (l, FXS_ERROR_FORMAT, v, "{\"%s\": ...} takes an array, not %s",
                              tag, fxs_load_type_name (v->type));
      if (slice && v->n != 3)
        return fxs_load_fail (l, FXS_ERROR_FORMAT, v,
                              "{\"slice\": ...} takes [start, stop, step], not %u items", v->n);
      return fxs_load_items (l, v, slice ? FXS_VALUE_SLICE : FXS_VALUE_TUPLE, out);
    }
  if (is_key (key, "dict"))
    return fxs_load_expect (l, v, FXS_JSON_ARRAY,
                            "{\"dict\": ...} takes an array of [key, value] pairs")
           && convert_dict (l, v, out);
  if (is_key (key, "ellipsis"))
    {
      if (v->type != FXS_JSON_BOOL || !v->u.b)
        return fxs_load_fail (l, FXS_ERROR_FORMAT, v, "write Ellipsis as {\"ellipsis\": true}");
      out->kind = FXS_VALUE_ELLIPSIS;
      return TRUE;
    }
  if (is_key (key, "node"))
    return convert_reference (l, v, out);
  if (is_key (key, "float"))
    {
      if (v->type != FXS_JSON_STRING
          || !(is_key (v, "inf") || is_key (v, "-inf") || is_key (v, "nan")))
        return fxs_load_fail (l, FXS_ERROR_FORMAT, v,
                              "{\"float\": ...} must be \"inf\", \"-inf\" or \"nan\"");
      out->kind = FXS_VALUE_FLOAT;
      out->u.f = v->u.s[0] == 'n' ? NAN : v->u.s[0] == '-' ? -INFINITY : INFINITY;
      return TRUE;
    }
  return fxs_load_fail (l, FXS_ERROR_FORMAT, key, "unknown value tag %s: %s",
                        fxs_load_quoted (l, key->u.s, key->n), expected);
}

gboolean
fxs_load_value (FxsLoader *l, const FxsJson *j, FxsValue *out)
{
  switch ((FxsJsonType) j->type)
    {
    case FXS_JSON_NULL:
      out->kind = FXS_VALUE_NONE;
      return TRUE;
    case FXS_JSON_BOOL:
      out->kind = FXS_VALUE_BOOL;
      out->u.b = j->u.b;
      return TRUE;
    case FXS_JSON_NUMBER:
      if (fxs_load_is_integer (j))
        {
          out->kind = FXS_VALUE_INT;
          return fxs_load_integer (l, j, &out->u.i);
        }
      out->kind = FXS_VALUE_FLOAT;
      errno = 0;
      out->u.f = g_ascii_strtod (j->u.s, NULL);
      if (errno == ERANGE && isinf (out->u.f))
        return fxs_load_fail (l, FXS_ERROR_FORMAT, j, "number %s is out of the range of a float "
                              "(write {\"float\": \"inf\"})", fxs_load_shown (l, j));
      return TRUE;
    case FXS_JSON_STRING:
      out->kind = FXS_VALUE_STRING;
      out->n = j->n;
      out->u.s = fxs_load_copy_text (l->graph, j);
      return TRUE;
    case FXS_JSON_ARRAY:
      return fxs_load_items (l, j, FXS_VALUE_LIST, out);
    case FXS_JSON_OBJECT:
      return convert_tagged (l, j, out);
    }
  g_return_val_if_reached (FALSE);
}
