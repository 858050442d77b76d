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

gboolean
fxs_load_fail_at (FxsLoadConv *c, FxsErrorCode code, gint64 pos, const FxsJsonPath *path,
                  const char *format, ...)
{
  GString *msg = g_string_new (NULL);
  if (c->node_name)
    {
      g_string_append (msg, "node ");
      fxs_json_append_quoted (msg, c->node_name->u.s, c->node_name->n);
      g_string_append (msg, ": ");
    }
  va_list args;
  va_start (args, format);
  g_string_append_vprintf (msg, format, args);
  va_end (args);
  fxs_json_reader_fail (c->reader, code, pos, path, "%s", msg->str);
  g_string_free (msg, TRUE);
  return FALSE;
}

const char *
fxs_load_quoted (FxsLoadConv *c, const char *s, gsize len)
{
  g_string_truncate (c->loader->quoted, 0);
  fxs_json_append_quoted (c->loader->quoted, s, len);
  return c->loader->quoted->str;
}

/* A number's text for a message, cut short when it is very long; lives in
 * @buf. */
const char *
fxs_load_shown (const FxsJson *number, char buf[64])
{
  if (number->n < 60)
    return number->u.s;
  g_snprintf (buf, 64, "%.40s...(%u digits)", number->u.s, number->n);
  return buf;
}

gboolean
fxs_load_unknown_member (FxsLoadConv *c, const FxsJson *key, const FxsJsonPath *path,
                         const char *valid)
{
  return fxs_load_fail (c, FXS_ERROR_FORMAT, key, path, "unknown member %s (expected %s)",
                        fxs_load_quoted (c, key->u.s, key->n), valid);
}

/* ---- scalars ---------------------------------------------------------------- */

/* A string usable as a name: non-empty, no NUL. */
gboolean
fxs_load_check_text (FxsLoadConv *c, const FxsJson *j, const FxsJsonPath *path, const char *what)
{
  if (j->type != FXS_JSON_STRING)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, j, path, "%s must be a string, not %s", what,
                          fxs_load_type_name (j->type));
  if (j->n == 0)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, j, path, "%s is empty", what);
  if (!is_text (j))
    return fxs_load_fail (c, FXS_ERROR_FORMAT, j, path, "%s contains a NUL character", what);
  return TRUE;
}

/* JSON integer text (already checked by yajl) to a gint64; FALSE when it
 * does not fit. */
gboolean
fxs_load_parse_integer (const char *s, gint64 *out)
{
  gboolean negative = *s == '-';
  if (negative)
    s++;
  guint64 limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;
  guint64 v = 0;
  for (; *s; s++)
    {
      guint digit = (guint) (*s - '0');
      if (v > (limit - digit) / 10)
        return FALSE;
      v = v * 10 + digit;
    }
  *out = negative ? (gint64) (0 - v) : (gint64) v;
  return TRUE;
}

gboolean
fxs_load_integer (FxsLoadConv *c, const FxsJson *j, const FxsJsonPath *path, gint64 *out)
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
  char buf[64];
  if (!fxs_load_parse_integer (j->u.s, out))
    return fxs_load_fail (c, FXS_ERROR_FORMAT, j, path,
                          "integer %s does not fit in 64 bits", fxs_load_shown (j, buf));
  return TRUE;
}

static gboolean
convert_float (FxsLoadConv *c, const FxsJson *j, const FxsJsonPath *path, double *out)
{
  char buf[64];
  errno = 0;
  double v = g_ascii_strtod (j->u.s, NULL);
  if (errno == ERANGE && isinf (v))
    return fxs_load_fail (c, FXS_ERROR_FORMAT, j, path,
                          "number %s is out of the range of a float (write {\"float\": \"inf\"})",
                          fxs_load_shown (j, buf));
  *out = v;
  return TRUE;
}

/* ---- values ----------------------------------------------------------------- */

/* Targets, keys and types repeat close together, if at all: interning them
 * all took a table too big for the cache, so they are only shared with an
 * equal string met lately.  Dtypes and symbols are few and compared by
 * pointer: interned, behind the same cache (an interned entry serves a
 * share too, a shared one is no intern). */
const char *
fxs_load_share_hashed (FxsLoadConv *c, const FxsJson *j, guint32 h, gboolean intern)
{
  FxsLoadCached *e = &c->loader->strings[h % G_N_ELEMENTS (c->loader->strings)];
  if (e->graph == c->graph && e->len == j->n && (e->interned || !intern)
      && memcmp (e->text, j->u.s, j->n) == 0)
    return e->text;
  const char *text = intern ? fxs_graph_intern (c->graph, j->u.s)
                            : fxs_load_copy_text (c->graph, j);
  *e = (FxsLoadCached) { text, c->graph, j->n, intern };
  return text;
}

/* The items of @array as values, into @items. */
static gboolean
load_values (FxsLoadConv *c, const FxsJson *array, FxsValue *items, const FxsJsonPath *path)
{
  for (guint i = 0; i < array->n; i++)
    {
      FxsJsonPath p = { path, NULL, 0, i };
      if (!fxs_load_value (c, &array->u.items[i], &items[i], &p))
        return FALSE;
    }
  return TRUE;
}

gboolean
fxs_load_items (FxsLoadConv *c, const FxsJson *array, FxsValueKind kind, FxsValue *out,
                const FxsJsonPath *path)
{
  out->kind = kind;
  out->n = array->n;
  out->u.items = array->n ? fxs_arena_alloc (&c->graph->arena, array->n * sizeof (FxsValue)) : NULL;
  return load_values (c, array, (FxsValue *) out->u.items, path);
}

/* {"dict": [[key, value], ...]} */
static gboolean
convert_dict (FxsLoadConv *c, const FxsJson *pairs, FxsValue *out, const FxsJsonPath *path)
{
  FxsValue *items =
    pairs->n ? fxs_arena_alloc (&c->graph->arena, 2 * pairs->n * sizeof *items) : NULL;
  out->kind = FXS_VALUE_DICT;
  out->n = pairs->n;
  out->u.items = items;
  for (guint i = 0; i < pairs->n; i++)
    {
      const FxsJson *pair = &pairs->u.items[i];
      FxsJsonPath p = { path, NULL, 0, i };
      if (pair->type != FXS_JSON_ARRAY || pair->n != 2)
        return fxs_load_fail (c, FXS_ERROR_FORMAT, pair, &p,
                              "a dict entry must be a [key, value] array");
      if (!load_values (c, pair, &items[2 * i], &p))
        return FALSE;
    }
  return TRUE;
}

static void
set_forward_ref (FxsLoadConv *c, const FxsJson *ref, const FxsJsonPath *path)
{
  FxsForwardRef *f = &c->loader->forward;
  f->active = TRUE;
  f->name = g_strndup (ref->u.s, ref->n);
  f->pos = ref->pos;
  f->message = g_string_new (NULL);
  fxs_json_reader_append_path (c->reader, f->message, path);
  g_string_append (f->message, ": node ");
  fxs_json_append_quoted (f->message, c->node_name->u.s, c->node_name->n);
  g_string_append (f->message, ": refers to ");
  fxs_json_append_quoted (f->message, ref->u.s, ref->n);
}

/* {"node": "name"}: an earlier node of the graph. */
static gboolean
convert_reference (FxsLoadConv *c, const FxsJson *ref, FxsValue *out, const FxsJsonPath *path)
{
  if (!is_text (ref))
    return fxs_load_fail (c, FXS_ERROR_FORMAT, ref, path,
                          "a node reference must be a node's name (a string without NUL)");
  FxsLoader *l = c->loader;
  guint32 hash = fxs_name_hash (ref->u.s, ref->n);
  const FxsNode *node = l->recent[hash % G_N_ELEMENTS (l->recent)];
  if (!node || node->graph != c->graph || strcmp (node->name, ref->u.s) != 0)
    {
      guint32 index = fxs_graph_name_position (c->graph, TRUE, ref->u.s, ref->n, hash);
      node = index != G_MAXUINT32 ? c->graph->nodes->pdata[index] : NULL;
    }
  if (node)
    {
      out->kind = FXS_VALUE_NODE;
      out->u.node = node;
      return TRUE;
    }
  if (c->node_name && c->node_name->n == ref->n
      && memcmp (c->node_name->u.s, ref->u.s, ref->n) == 0)
    return fxs_load_fail (c, FXS_ERROR_GRAPH, ref, path, "refers to itself");
  /* not an error yet: the rest of the list tells whether it is later or missing */
  set_forward_ref (c, ref, path);
  return FALSE;
}

static gboolean
convert_special_float (FxsLoadConv *c, const FxsJson *j, FxsValue *out, const FxsJsonPath *path)
{
  if (j->type == FXS_JSON_STRING && (is_key (j, "inf") || is_key (j, "-inf") || is_key (j, "nan")))
    {
      out->kind = FXS_VALUE_FLOAT;
      out->u.f = j->u.s[0] == 'n' ? NAN : j->u.s[0] == '-' ? -INFINITY : INFINITY;
      return TRUE;
    }
  return fxs_load_fail (c, FXS_ERROR_FORMAT, j, path,
                        "{\"float\": ...} must be \"inf\", \"-inf\" or \"nan\"");
}

static gboolean
convert_opaque (FxsLoadConv *c, const FxsJson *obj, FxsValue *out, const FxsJsonPath *path)
{
  const FxsJson *type = fxs_json_member (obj, "opaque");
  const FxsJson *repr = fxs_json_member (obj, "repr");
  FxsJsonPath pt = { path, "opaque", 6, 0 }, pr = { path, "repr", 4, 0 };
  if (!repr)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, path, "{\"opaque\": ...} needs a \"repr\"");
  if (!fxs_load_check_text (c, type, &pt, "an opaque value's type")
      || !fxs_load_check_text (c, repr, &pr, "an opaque value's repr"))
    return FALSE;
  FxsValue *items = fxs_arena_alloc (&c->graph->arena, 2 * sizeof *items);
  items[0].kind = items[1].kind = FXS_VALUE_STRING;
  items[0].u.s = fxs_load_share (c, type);
  items[0].n = type->n;
  items[1].u.s = fxs_load_share (c, repr);
  items[1].n = repr->n;
  out->kind = FXS_VALUE_OPAQUE;
  out->n = 2;
  out->u.items = items;
  return TRUE;
}

/* An object value: exactly one tag (or "opaque" with "repr"). */
static gboolean
convert_tagged (FxsLoadConv *c, const FxsJson *obj, FxsValue *out, const FxsJsonPath *path)
{
  static const char expected[] = "expected one of {\"tuple\": [...]}, {\"dict\": [[k, v], ...]}, "
    "{\"slice\": [start, stop, step]}, {\"ellipsis\": true}, {\"node\": name}, "
    "{\"float\": \"inf\"|\"-inf\"|\"nan\"}, {\"opaque\": type, \"repr\": text}";
  if (obj->n == 0)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, path, "an empty object is not a value: %s",
                          expected);
  if (fxs_json_member (obj, "opaque")
      && (obj->n == 1 || (obj->n == 2 && fxs_json_member (obj, "repr"))))
    return convert_opaque (c, obj, out, path);
  const FxsJson *key = &obj->u.items[0];
  const FxsJson *v = &obj->u.items[1];
  if (obj->n != 1)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, path,
                          "a value object has exactly one tag, this one has %u members: %s",
                          obj->n, expected);
  FxsJsonPath p = { path, key->u.s, key->n, 0 };
  const char *tag = key->u.s;
  if (is_key (key, "tuple") || is_key (key, "slice"))
    {
      gboolean slice = tag[0] == 's';
      if (v->type != FXS_JSON_ARRAY)
        return fxs_load_fail (c, FXS_ERROR_FORMAT, v, &p, "{\"%s\": ...} takes an array, not %s",
                              tag, fxs_load_type_name (v->type));
      if (slice && v->n != 3)
        return fxs_load_fail (c, FXS_ERROR_FORMAT, v, &p,
                              "{\"slice\": ...} takes [start, stop, step], not %u items", v->n);
      return fxs_load_items (c, v, slice ? FXS_VALUE_SLICE : FXS_VALUE_TUPLE, out, &p);
    }
  if (is_key (key, "dict"))
    return fxs_load_expect (c, v, FXS_JSON_ARRAY, &p,
                            "{\"dict\": ...} takes an array of [key, value] pairs")
           && convert_dict (c, v, out, &p);
  if (is_key (key, "ellipsis"))
    {
      if (v->type != FXS_JSON_BOOL || !v->u.b)
        return fxs_load_fail (c, FXS_ERROR_FORMAT, v, &p, "write Ellipsis as {\"ellipsis\": true}");
      out->kind = FXS_VALUE_ELLIPSIS;
      return TRUE;
    }
  if (is_key (key, "node"))
    return convert_reference (c, v, out, &p);
  if (is_key (key, "float"))
    return convert_special_float (c, v, out, &p);
  return fxs_load_fail (c, FXS_ERROR_FORMAT, key, path, "unknown value tag %s: %s",
                        fxs_load_quoted (c, key->u.s, key->n), expected);
}

gboolean
fxs_load_value (FxsLoadConv *c, const FxsJson *j, FxsValue *out, const FxsJsonPath *path)
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
          return fxs_load_integer (c, j, path, &out->u.i);
        }
      out->kind = FXS_VALUE_FLOAT;
      return convert_float (c, j, path, &out->u.f);
    case FXS_JSON_STRING:
      out->kind = FXS_VALUE_STRING;
      out->n = j->n;
      out->u.s = fxs_load_copy_text (c->graph, j);
      return TRUE;
    case FXS_JSON_ARRAY:
      return fxs_load_items (c, j, FXS_VALUE_LIST, out, path);
    case FXS_JSON_OBJECT:
      return convert_tagged (c, j, out, path);
    }
  g_return_val_if_reached (FALSE);
}

/* Meta members with a meaning of their own; the rest is free-form. */
