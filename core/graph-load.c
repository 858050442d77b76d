/* Loading graph files (docs/graph-format.md).
 *
 * The JSON reader streams the top-level object and the `nodes` arrays and
 * hands over one node (or attribute, partition, ...) object at a time; this
 * file checks it and turns it into graph memory.  References are resolved
 * as nodes arrive, so a node may only refer to earlier ones.
 */
#include <fxsplit/io.h>
#include "graph-private.h"
#include "json-reader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#define FORMAT_NAME "fxsplit-graph"

/* What a streamed container is; the build flag says whether its contents go
 * into the graph being loaded or are only checked for shape. */
enum {
  TAG_TOP = 1,
  TAG_ATTRS,
  TAG_NODES,
  TAG_SUBMODULES,
  TAG_SUBMODULE,
  TAG_PARTITIONS,
  TAG_QUALNAME_MAP,
  TAG_KIND_MASK = 0xff,
  TAG_BUILD = 0x100,
};

/* The first reference to a node that is not (yet) defined.  Reported when
 * the node list ends, or earlier when a node of that name turns up, so the
 * message can say whether it is missing or merely later. */
typedef struct {
  gboolean active;
  char *name;               /* the node referred to */
  gint64 pos;
  GString *message;         /* "PATH: node "x": refers to "y"" */
} ForwardRef;

typedef struct {
  const char *want;         /* the submodule to load, or NULL for the top graph */
  FxsGraph *graph;          /* the graph being built (NULL until found) */
  gboolean have_format;
  gboolean have_version;
  gboolean have_nodes;
  /* submodules */
  GHashTable *submodule_names;
  GPtrArray *submodule_list;
  gboolean found;
  gboolean entry_named;     /* the submodule entry being read */
  gboolean entry_build;
  gboolean entry_has_nodes;
  ForwardRef forward;
  /* nodes added lately, by a hash of their name: most references are to
   * recent nodes, and this stays in cache where node_by_name does not */
  const FxsNode *recent[4096];
  /* strings interned lately, by a hash of their text: targets, dtypes and
   * keys repeat, and GLib's interning costs far more than this look-up */
  struct { const char *text; gsize len; } interned[256];
  /* metadata stored once per distinct value (see intern_tensor) */
  GHashTable *tensors;          /* FxsTensorMeta* -> itself, by content */
  const FxsTensorMeta *last_tensor; /* neighbours usually share a shape */
  GHashTable *single_metas;     /* FxsTensorMeta* -> FxsNodeMeta* with just that tensor */
} Loader;

/* ---- messages ----------------------------------------------------------------- */

static const char *
json_type_name (const FxsJson *j)
{
  static const char *const names[] = {
    "null", "a bool", "a number", "a string", "an array", "an object",
  };
  return names[j->type];
}

static const char *
item_type_name (FxsJsonType type)
{
  FxsJson j = { .type = type };
  return json_type_name (&j);
}

/* Conversion of one node or attribute: where errors go and which node they
 * are about. */
typedef struct {
  Loader *loader;
  FxsJsonReader *reader;
  FxsGraph *graph;
  const FxsJson *node_name; /* NULL until known */
} Conv;

static void
conv_failv (Conv *c, FxsErrorCode code, gint64 pos, const FxsJsonPath *path,
            const char *format, va_list args)
{
  GString *msg = g_string_new (NULL);
  if (c->node_name)
    {
      g_string_append (msg, "node ");
      fxs_json_append_quoted (msg, c->node_name->u.s, c->node_name->n);
      g_string_append (msg, ": ");
    }
  g_string_append_vprintf (msg, format, args);
  fxs_json_reader_fail (c->reader, code, pos, path, "%s", msg->str);
  g_string_free (msg, TRUE);
}

/* Records an error at @where (a value of the tree) and returns FALSE.
 * Strings from the file go into messages through quoted() or shown(). */
static gboolean G_GNUC_PRINTF (5, 6)
conv_fail (Conv *c, FxsErrorCode code, const FxsJson *where, const FxsJsonPath *path,
           const char *format, ...)
{
  va_list args;
  va_start (args, format);
  conv_failv (c, code, where->pos, path, format, args);
  va_end (args);
  return FALSE;
}

static gboolean G_GNUC_PRINTF (5, 6)
conv_fail_at (Conv *c, FxsErrorCode code, gint64 pos, const FxsJsonPath *path,
              const char *format, ...)
{
  va_list args;
  va_start (args, format);
  conv_failv (c, code, pos, path, format, args);
  va_end (args);
  return FALSE;
}

/* The key of member value @v: object items are key, value, key, value... */
static const FxsJson *
key_of (const FxsJson *v)
{
  return v - 1;
}

/* @s quoted and escaped for a one-line message; free with g_free. */
static char *
quoted (const char *s, gsize len)
{
  GString *q = g_string_new (NULL);
  fxs_json_append_quoted (q, s, len);
  return g_string_free (q, FALSE);
}

/* A number's text for a message, cut short when it is very long; lives in
 * @buf. */
static const char *
shown (const FxsJson *number, char buf[64])
{
  if (number->n < 60)
    return number->u.s;
  g_snprintf (buf, 64, "%.40s...(%u digits)", number->u.s, number->n);
  return buf;
}

/* ---- scalars ---------------------------------------------------------------- */

static gboolean
is_text (const FxsJson *j)
{
  return j->type == FXS_JSON_STRING && strlen (j->u.s) == j->n;
}

/* Comparisons with names the format defines count the length: strings
 * from the file may hold NUL ("tuple\u0000x" is not "tuple"). */
static inline gboolean
is_key (const FxsJson *key, const char *name)
{
  /* inlined, the length of a literal @name is a constant */
  gsize len = strlen (name);
  return key->n == len && memcmp (key->u.s, name, len) == 0;
}

static inline gboolean
item_is (const FxsJsonItem *item, const char *name)
{
  gsize len = strlen (name);
  return item->key_len == len && memcmp (item->key, name, len) == 0;
}

/* A string usable as a name: non-empty, no NUL. */
static gboolean
check_text (Conv *c, const FxsJson *j, const FxsJsonPath *path, const char *what)
{
  if (j->type != FXS_JSON_STRING)
    return conv_fail (c, FXS_ERROR_FORMAT, j, path, "%s must be a string, not %s", what,
                      json_type_name (j));
  if (j->n == 0)
    return conv_fail (c, FXS_ERROR_FORMAT, j, path, "%s is empty", what);
  if (!is_text (j))
    return conv_fail (c, FXS_ERROR_FORMAT, j, path, "%s contains a NUL character", what);
  return TRUE;
}

static gboolean
number_is_integer (const FxsJson *j)
{
  return strpbrk (j->u.s, ".eE") == NULL;
}

/* JSON integer text (already checked by yajl) to a gint64; FALSE when it
 * does not fit. */
static gboolean
parse_integer (const char *s, gint64 *out)
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

static gboolean
convert_integer (Conv *c, const FxsJson *j, const FxsJsonPath *path, gint64 *out)
{
  char buf[64];
  if (!parse_integer (j->u.s, out))
    return conv_fail (c, FXS_ERROR_FORMAT, j, path,
                      "integer %s does not fit in 64 bits", shown (j, buf));
  return TRUE;
}

static gboolean
convert_float (Conv *c, const FxsJson *j, const FxsJsonPath *path, double *out)
{
  char buf[64];
  errno = 0;
  double v = g_ascii_strtod (j->u.s, NULL);
  if (errno == ERANGE && isinf (v))
    return conv_fail (c, FXS_ERROR_FORMAT, j, path,
                      "number %s is out of the range of a float (write {\"float\": \"inf\"})",
                      shown (j, buf));
  *out = v;
  return TRUE;
}

/* ---- values ----------------------------------------------------------------- */

static gboolean convert_value (Conv *c, const FxsJson *j, FxsValue *out,
                               const FxsJsonPath *path);

static const char *
arena_text (FxsGraph *g, const FxsJson *j)
{
  return fxs_arena_strndup (&g->arena, j->u.s, j->n);
}

/* fxs_graph_intern() of a string without NUL, through the loader's cache. */
static const char *
intern (Conv *c, const FxsJson *j)
{
  guint32 h = 2166136261u;
  for (guint32 i = 0; i < j->n; i++)
    h = (h ^ (guchar) j->u.s[i]) * 16777619u;
  Loader *l = c->loader;
  guint slot = (h ^ (h >> 16)) % G_N_ELEMENTS (l->interned);
  if (l->interned[slot].text && l->interned[slot].len == j->n
      && memcmp (l->interned[slot].text, j->u.s, j->n) == 0)
    return l->interned[slot].text;
  const char *text = fxs_graph_intern (c->graph, j->u.s);
  l->interned[slot].text = text;
  l->interned[slot].len = j->n;
  return text;
}

static gboolean
convert_items (Conv *c, const FxsJson *array, FxsValueKind kind, FxsValue *out,
               const FxsJsonPath *path)
{
  FxsValue *items = array->n ? fxs_arena_alloc (&c->graph->arena, array->n * sizeof *items) : NULL;
  for (guint i = 0; i < array->n; i++)
    {
      FxsJsonPath p = { path, NULL, 0, i };
      if (!convert_value (c, &array->u.items[i], &items[i], &p))
        return FALSE;
    }
  out->kind = kind;
  out->n = array->n;
  out->u.items = items;
  return TRUE;
}

/* {"dict": [[key, value], ...]} */
static gboolean
convert_dict (Conv *c, const FxsJson *pairs, FxsValue *out, const FxsJsonPath *path)
{
  FxsValue *items = pairs->n ? fxs_arena_alloc (&c->graph->arena, 2 * pairs->n * sizeof *items) : NULL;
  for (guint i = 0; i < pairs->n; i++)
    {
      const FxsJson *pair = &pairs->u.items[i];
      FxsJsonPath p = { path, NULL, 0, i };
      if (pair->type != FXS_JSON_ARRAY || pair->n != 2)
        return conv_fail (c, FXS_ERROR_FORMAT, pair, &p,
                          "a dict entry must be a [key, value] array");
      FxsJsonPath pk = { &p, NULL, 0, 0 }, pv = { &p, NULL, 0, 1 };
      if (!convert_value (c, &pair->u.items[0], &items[2 * i], &pk)
          || !convert_value (c, &pair->u.items[1], &items[2 * i + 1], &pv))
        return FALSE;
    }
  out->kind = FXS_VALUE_DICT;
  out->n = pairs->n;
  out->u.items = items;
  return TRUE;
}

static void
set_forward_ref (Conv *c, const FxsJson *ref, const FxsJsonPath *path)
{
  ForwardRef *f = &c->loader->forward;
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
convert_reference (Conv *c, const FxsJson *ref, FxsValue *out, const FxsJsonPath *path)
{
  if (!is_text (ref))
    return conv_fail (c, FXS_ERROR_FORMAT, ref, path,
                      "a node reference must be a node's name (a string without NUL)");
  guint slot = g_str_hash (ref->u.s) % G_N_ELEMENTS (c->loader->recent);
  const FxsNode *node = c->loader->recent[slot];
  if (!node || strcmp (node->name, ref->u.s) != 0)
    node = g_hash_table_lookup (c->graph->node_by_name, ref->u.s);
  if (node)
    {
      out->kind = FXS_VALUE_NODE;
      out->u.node = node;
      return TRUE;
    }
  if (c->node_name && c->node_name->n == ref->n && memcmp (c->node_name->u.s, ref->u.s, ref->n) == 0)
    return conv_fail (c, FXS_ERROR_GRAPH, ref, path, "refers to itself");
  /* not an error yet: the rest of the list tells whether it is later or missing */
  set_forward_ref (c, ref, path);
  return FALSE;
}

static gboolean
convert_special_float (Conv *c, const FxsJson *j, FxsValue *out, const FxsJsonPath *path)
{
  if (j->type == FXS_JSON_STRING)
    {
      if (is_key (j, "inf"))
        out->u.f = INFINITY;
      else if (is_key (j, "-inf"))
        out->u.f = -INFINITY;
      else if (is_key (j, "nan"))
        out->u.f = NAN;
      else
        goto bad;
      out->kind = FXS_VALUE_FLOAT;
      return TRUE;
    }
bad:
  return conv_fail (c, FXS_ERROR_FORMAT, j, path,
                    "{\"float\": ...} must be \"inf\", \"-inf\" or \"nan\"");
}

static gboolean
convert_opaque (Conv *c, const FxsJson *obj, FxsValue *out, const FxsJsonPath *path)
{
  const FxsJson *type = fxs_json_member (obj, "opaque");
  const FxsJson *repr = fxs_json_member (obj, "repr");
  FxsJsonPath pt = { path, "opaque", 6, 0 }, pr = { path, "repr", 4, 0 };
  if (!repr)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, path, "{\"opaque\": ...} needs a \"repr\"");
  if (!check_text (c, type, &pt, "an opaque value's type")
      || !check_text (c, repr, &pr, "an opaque value's repr"))
    return FALSE;
  FxsValue *items = fxs_arena_alloc (&c->graph->arena, 2 * sizeof *items);
  items[0].kind = items[1].kind = FXS_VALUE_STRING;
  items[0].u.s = intern (c, type);
  items[0].n = type->n;
  items[1].u.s = intern (c, repr);
  items[1].n = repr->n;
  out->kind = FXS_VALUE_OPAQUE;
  out->n = 2;
  out->u.items = items;
  return TRUE;
}

/* An object value: exactly one tag (or "opaque" with "repr"). */
static gboolean
convert_tagged (Conv *c, const FxsJson *obj, FxsValue *out, const FxsJsonPath *path)
{
  static const char expected[] = "expected one of {\"tuple\": [...]}, {\"dict\": [[k, v], ...]}, "
    "{\"slice\": [start, stop, step]}, {\"ellipsis\": true}, {\"node\": name}, "
    "{\"float\": \"inf\"|\"-inf\"|\"nan\"}, {\"opaque\": type, \"repr\": text}";
  if (obj->n == 0)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, path, "an empty object is not a value: %s",
                      expected);
  if (fxs_json_member (obj, "opaque"))
    {
      if (obj->n == 2 && fxs_json_member (obj, "repr"))
        return convert_opaque (c, obj, out, path);
      if (obj->n == 1)
        return convert_opaque (c, obj, out, path);
    }
  const FxsJson *key = &obj->u.items[0];
  const FxsJson *v = &obj->u.items[1];
  if (obj->n != 1)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, path,
                      "a value object has exactly one tag, this one has %u members: %s",
                      obj->n, expected);
  FxsJsonPath p = { path, key->u.s, key->n, 0 };
  const char *tag = key->u.s;
  if (is_key (key, "tuple") || is_key (key, "slice"))
    {
      gboolean slice = tag[0] == 's';
      if (v->type != FXS_JSON_ARRAY)
        return conv_fail (c, FXS_ERROR_FORMAT, v, &p, "{\"%s\": ...} takes an array, not %s",
                          tag, json_type_name (v));
      if (slice && v->n != 3)
        return conv_fail (c, FXS_ERROR_FORMAT, v, &p,
                          "{\"slice\": ...} takes [start, stop, step], not %u items", v->n);
      if (!convert_items (c, v, FXS_VALUE_TUPLE, out, &p))
        return FALSE;
      out->kind = slice ? FXS_VALUE_SLICE : FXS_VALUE_TUPLE;
      return TRUE;
    }
  if (is_key (key, "dict"))
    {
      if (v->type != FXS_JSON_ARRAY)
        return conv_fail (c, FXS_ERROR_FORMAT, v, &p,
                          "{\"dict\": ...} takes an array of [key, value] pairs, not %s",
                          json_type_name (v));
      return convert_dict (c, v, out, &p);
    }
  if (is_key (key, "ellipsis"))
    {
      if (v->type != FXS_JSON_BOOL || !v->u.b)
        return conv_fail (c, FXS_ERROR_FORMAT, v, &p, "write Ellipsis as {\"ellipsis\": true}");
      out->kind = FXS_VALUE_ELLIPSIS;
      return TRUE;
    }
  if (is_key (key, "node"))
    return convert_reference (c, v, out, &p);
  if (is_key (key, "float"))
    return convert_special_float (c, v, out, &p);
  char *q = quoted (key->u.s, key->n);
  conv_fail (c, FXS_ERROR_FORMAT, key, path, "unknown value tag %s: %s", q, expected);
  g_free (q);
  return FALSE;
}

static gboolean
convert_value (Conv *c, const FxsJson *j, FxsValue *out, const FxsJsonPath *path)
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
      if (number_is_integer (j))
        {
          out->kind = FXS_VALUE_INT;
          return convert_integer (c, j, path, &out->u.i);
        }
      out->kind = FXS_VALUE_FLOAT;
      return convert_float (c, j, path, &out->u.f);
    case FXS_JSON_STRING:
      out->kind = FXS_VALUE_STRING;
      out->n = j->n;
      out->u.s = arena_text (c->graph, j);
      return TRUE;
    case FXS_JSON_ARRAY:
      return convert_items (c, j, FXS_VALUE_LIST, out, path);
    case FXS_JSON_OBJECT:
      return convert_tagged (c, j, out, path);
    }
  g_return_val_if_reached (FALSE);
}

/* Meta members with a meaning of their own; the rest is free-form. */
static gboolean
is_reserved_meta_key (const FxsJson *key)
{
  return is_key (key, "tensor") || is_key (key, "tensors") || is_key (key, "free_symbols")
         || is_key (key, "symbol");
}

/* A JSON object as a dict with string keys (kwargs, free-form meta). */
static gboolean
convert_object_as_dict (Conv *c, const FxsJson *obj, gboolean skip_reserved, FxsValue *out,
                        const FxsJsonPath *path)
{
  guint n = 0;
  for (guint i = 0; i < obj->n; i++)
    n += !(skip_reserved && is_reserved_meta_key (&obj->u.items[2 * i]));
  FxsValue *items = n ? fxs_arena_alloc (&c->graph->arena, 2 * n * sizeof *items) : NULL;
  guint k = 0;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i];
      if (skip_reserved && is_reserved_meta_key (key))
        continue;
      FxsJsonPath p = { path, key->u.s, key->n, 0 };
      items[2 * k].kind = FXS_VALUE_STRING;
      items[2 * k].n = key->n;
      /* keys repeat from node to node: share them unless they hold a NUL */
      items[2 * k].u.s = is_text (key) ? intern (c, key) : arena_text (c->graph, key);
      if (!convert_value (c, key + 1, &items[2 * k + 1], &p))
        return FALSE;
      k++;
    }
  out->kind = FXS_VALUE_DICT;
  out->n = n;
  out->u.items = items;
  return TRUE;
}

/* ---- tensor metadata -------------------------------------------------------- */

/* Most nodes of a graph share a few shapes, so equal tensor metadata is
 * stored once (it is immutable; dtype and symbols are interned strings, so
 * pointers compare them).  Ranks above SMALL_RANK are rare and not shared. */
#define SMALL_RANK 16

static guint
tensor_hash (gconstpointer p)
{
  const FxsTensorMeta *t = p;
  guint64 h = t->rank * 0x9e3779b97f4a7c15u ^ (guint64) (guintptr) t->dtype;
  for (guint d = 0; d < t->rank; d++)
    {
      h = (h ^ (guint64) t->dims[d]) * 0x100000001b3u;
      if (t->symbols)
        h = (h ^ (guint64) (guintptr) t->symbols[d]) * 0x100000001b3u;
    }
  return (guint) (h ^ (h >> 32));
}

static gboolean
tensor_equal (gconstpointer a, gconstpointer b)
{
  const FxsTensorMeta *x = a, *y = b;
  if (x->rank != y->rank || x->dtype != y->dtype || !x->symbols != !y->symbols)
    return FALSE;
  if (x->rank && memcmp (x->dims, y->dims, x->rank * sizeof *x->dims) != 0)
    return FALSE;
  return !x->symbols || memcmp (x->symbols, y->symbols, x->rank * sizeof *x->symbols) == 0;
}

/* @t lives on the caller's stack: the graph's copy of it. */
static const FxsTensorMeta *
intern_tensor (Conv *c, const FxsTensorMeta *t)
{
  Loader *l = c->loader;
  if (l->last_tensor && tensor_equal (l->last_tensor, t))
    return l->last_tensor;
  const FxsTensorMeta *known = g_hash_table_lookup (l->tensors, t);
  if (known)
    return l->last_tensor = known;
  FxsArena *arena = &c->graph->arena;
  FxsTensorMeta *copy = fxs_arena_memdup (arena, t, sizeof *t);
  copy->dims = t->rank ? fxs_arena_memdup (arena, t->dims, t->rank * sizeof *t->dims) : NULL;
  if (t->symbols)
    copy->symbols = fxs_arena_memdup (arena, t->symbols, t->rank * sizeof *t->symbols);
  g_hash_table_add (l->tensors, copy);
  return l->last_tensor = copy;
}

/* A shape: sizes (ints >= 0), symbolic sizes (strings) or unknown (null),
 * into @dims and @symbols (shape->n entries each, @symbols zeroed). */
static gboolean
convert_shape (Conv *c, const FxsJson *shape, gint64 *dims, const char **symbols,
               gboolean *symbolic, const FxsJsonPath *path)
{
  for (guint d = 0; d < shape->n; d++)
    {
      const FxsJson *size = &shape->u.items[d];
      FxsJsonPath p = { path, NULL, 0, d };
      if (size->type == FXS_JSON_NUMBER && number_is_integer (size))
        {
          if (!convert_integer (c, size, &p, &dims[d]))
            return FALSE;
          if (dims[d] < 0)
            return conv_fail (c, FXS_ERROR_FORMAT, size, &p, "a size cannot be negative");
          continue;
        }
      dims[d] = -1;
      if (size->type == FXS_JSON_NULL)
        continue;
      if (size->type != FXS_JSON_STRING)
        return conv_fail (c, FXS_ERROR_FORMAT, size, &p,
                          "a size must be an int, a symbolic expression (a string) or null, not %s",
                          json_type_name (size));
      if (!check_text (c, size, &p, "a symbolic size"))
        return FALSE;
      symbols[d] = intern (c, size);
      *symbolic = TRUE;
    }
  return TRUE;
}

static gboolean
convert_dtype (Conv *c, const FxsJson *dtype, const char **out, const FxsJsonPath *path)
{
  if (dtype->type == FXS_JSON_NULL)
    {
      *out = NULL;
      return TRUE;
    }
  if (!check_text (c, dtype, path, "a dtype"))
    return FALSE;
  *out = intern (c, dtype);
  return TRUE;
}

/* Tensor metadata from a "shape" array and an optional "dtype". */
static gboolean
convert_shape_and_dtype (Conv *c, const FxsJson *shape, const FxsJson *dtype,
                         const FxsJsonPath *pshape, const FxsJsonPath *pdtype,
                         const FxsTensorMeta **out)
{
  if (shape->type != FXS_JSON_ARRAY)
    return conv_fail (c, FXS_ERROR_FORMAT, shape, pshape, "a shape must be an array, not %s",
                      json_type_name (shape));
  gint64 small_dims[SMALL_RANK];
  const char *small_symbols[SMALL_RANK] = { NULL };
  gboolean small = shape->n <= SMALL_RANK;
  FxsArena *arena = &c->graph->arena;
  gint64 *dims = small ? small_dims : fxs_arena_alloc (arena, shape->n * sizeof *dims);
  const char **symbols = small ? small_symbols : fxs_arena_alloc (arena, shape->n * sizeof *symbols);
  gboolean symbolic = FALSE;
  FxsTensorMeta t = { .rank = shape->n, .dims = dims };
  if (!convert_shape (c, shape, dims, symbols, &symbolic, pshape)
      || (dtype && !convert_dtype (c, dtype, &t.dtype, pdtype)))
    return FALSE;
  t.symbols = symbolic ? symbols : NULL;
  *out = small ? intern_tensor (c, &t) : fxs_arena_memdup (arena, &t, sizeof t);
  return TRUE;
}

static gboolean
unknown_member (Conv *c, const FxsJson *key, const FxsJsonPath *path, const char *valid)
{
  char *q = quoted (key->u.s, key->n);
  conv_fail (c, FXS_ERROR_FORMAT, key, path, "unknown member %s (expected %s)", q, valid);
  g_free (q);
  return FALSE;
}

/* {"shape": [...], "dtype": "..."} */
static gboolean
convert_tensor (Conv *c, const FxsJson *obj, const FxsTensorMeta **out, const FxsJsonPath *path)
{
  if (obj->type != FXS_JSON_OBJECT)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, path,
                      "tensor metadata must be an object {\"shape\": [...], \"dtype\": ...}, not %s",
                      json_type_name (obj));
  const FxsJson *shape = NULL, *dtype = NULL;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i], *v = key + 1;
      if (is_key (key, "shape"))
        shape = v;
      else if (is_key (key, "dtype"))
        dtype = v;
      else
        return unknown_member (c, key, path, "\"shape\", \"dtype\"");
    }
  if (!shape)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, path, "tensor metadata without a \"shape\"");
  FxsJsonPath ps = { path, "shape", 5, 0 }, pd = { path, "dtype", 5, 0 };
  return convert_shape_and_dtype (c, shape, dtype, &ps, &pd, out);
}

static gboolean
convert_tensor_list (Conv *c, const FxsJson *list, FxsNodeMeta *m, const FxsJsonPath *path)
{
  if (list->type != FXS_JSON_ARRAY)
    return conv_fail (c, FXS_ERROR_FORMAT, list, path,
                      "\"tensors\" must be an array of tensor metadata, not %s",
                      json_type_name (list));
  const FxsTensorMeta **tensors =
    list->n ? fxs_arena_alloc (&c->graph->arena, list->n * sizeof *tensors) : NULL;
  for (guint i = 0; i < list->n; i++)
    {
      FxsJsonPath p = { path, NULL, 0, i };
      if (!convert_tensor (c, &list->u.items[i], &tensors[i], &p))
        return FALSE;
    }
  m->tensors = tensors;
  m->n_tensors = list->n;
  m->is_tuple = TRUE;
  return TRUE;
}

static gboolean
convert_symbols (Conv *c, const FxsJson *list, FxsNodeMeta *m, const FxsJsonPath *path)
{
  if (list->type != FXS_JSON_ARRAY)
    return conv_fail (c, FXS_ERROR_FORMAT, list, path,
                      "\"free_symbols\" must be an array of strings, not %s",
                      json_type_name (list));
  const char **symbols = list->n ? fxs_arena_alloc (&c->graph->arena, list->n * sizeof *symbols) : NULL;
  for (guint i = 0; i < list->n; i++)
    {
      FxsJsonPath p = { path, NULL, 0, i };
      if (!check_text (c, &list->u.items[i], &p, "a free symbol"))
        return FALSE;
      symbols[i] = intern (c, &list->u.items[i]);
    }
  m->free_symbols = symbols;
  m->n_free_symbols = list->n;
  return TRUE;
}

/* Node metadata with nothing but one tensor is shared by all nodes that
 * have that tensor (FxsNodeMeta is immutable). */
static const FxsNodeMeta *
single_tensor_meta (Conv *c, const FxsTensorMeta *t)
{
  FxsNodeMeta *m = g_hash_table_lookup (c->loader->single_metas, t);
  if (!m)
    {
      const FxsTensorMeta **one = fxs_arena_alloc (&c->graph->arena, sizeof *one);
      *one = t;
      m = fxs_arena_alloc (&c->graph->arena, sizeof *m);
      m->tensors = one;
      m->n_tensors = 1;
      g_hash_table_insert (c->loader->single_metas, (gpointer) t, m);
    }
  return m;
}

static gboolean
convert_meta (Conv *c, const FxsJson *obj, const FxsNodeMeta **out, const FxsJsonPath *path)
{
  if (obj->type != FXS_JSON_OBJECT)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, path, "\"meta\" must be an object, not %s",
                      json_type_name (obj));
  *out = NULL;
  FxsNodeMeta m = { 0 };
  const FxsTensorMeta *single = NULL;
  gboolean have_extra = FALSE;
  const FxsJson *tensor_key = NULL;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i], *v = key + 1;
      FxsJsonPath p = { path, key->u.s, key->n, 0 };
      gboolean ok = TRUE;
      if (is_key (key, "tensor") || is_key (key, "tensors"))
        {
          if (tensor_key)
            return conv_fail (c, FXS_ERROR_FORMAT, key, path,
                              "\"tensor\" and \"tensors\" together: a node produces one or a tuple");
          tensor_key = key;
          if (key->n == 6)
            ok = convert_tensor (c, v, &single, &p);
          else
            ok = convert_tensor_list (c, v, &m, &p);
        }
      else if (is_key (key, "free_symbols"))
        ok = convert_symbols (c, v, &m, &p);
      else if (is_key (key, "symbol"))
        {
          ok = check_text (c, v, &p, "\"symbol\"");
          if (ok)
            m.symbol = intern (c, v);
        }
      else
        have_extra = TRUE;
      if (!ok)
        return FALSE;
    }
  if (have_extra)
    {
      FxsValue *dict = fxs_arena_alloc (&c->graph->arena, sizeof *dict);
      if (!convert_object_as_dict (c, obj, TRUE, dict, path))
        return FALSE;
      m.extra = dict;
    }
  if (single && m.n_free_symbols == 0 && !m.symbol && !m.extra)
    {
      *out = single_tensor_meta (c, single);
      return TRUE;
    }
  if (single)
    {
      const FxsTensorMeta **one = fxs_arena_alloc (&c->graph->arena, sizeof *one);
      *one = single;
      m.tensors = one;
      m.n_tensors = 1;
    }
  if (obj->n > 0)
    *out = fxs_arena_memdup (&c->graph->arena, &m, sizeof m);
  return TRUE;
}

/* ---- nodes --------------------------------------------------------------------- */

typedef struct {
  const FxsJson *name, *op, *target, *args, *kwargs, *type, *meta;
} NodeFields;

static const char node_members[] =
  "\"name\", \"op\", \"target\", \"args\", \"kwargs\", \"type\", \"meta\"";

static gboolean
split_node_fields (Conv *c, const FxsJson *obj, NodeFields *f)
{
  memset (f, 0, sizeof *f);
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i], *v = key + 1;
      const FxsJson **slot = NULL;
      switch (key->n)
        {
        case 2: slot = is_key (key, "op") ? &f->op : NULL; break;
        case 4: slot = is_key (key, "name") ? &f->name : is_key (key, "args") ? &f->args
                       : is_key (key, "type") ? &f->type : is_key (key, "meta") ? &f->meta : NULL;
          break;
        case 6: slot = is_key (key, "target") ? &f->target : is_key (key, "kwargs") ? &f->kwargs
                       : NULL;
          break;
        default: break;
        }
      if (!slot)
        {
          /* name the node if it has a usable name */
          const FxsJson *name = fxs_json_member (obj, "name");
          if (name && is_text (name))
            c->node_name = name;
          return unknown_member (c, key, NULL, node_members);
        }
      *slot = v;
    }
  if (!f->name)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, NULL, "a node without \"name\"");
  return check_text (c, f->name, &(FxsJsonPath) { NULL, "name", 4, 0 }, "\"name\"");
}

/* The parts every node needs, checked for nodes that are built and nodes
 * that are only checked for shape alike. */
static gboolean
check_node_head (Conv *c, const FxsJson *obj, const NodeFields *f, FxsOp *op)
{
  c->node_name = f->name;
  if (!f->op)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, NULL, "no \"op\"");
  if (!f->target)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, NULL, "no \"target\"");
  FxsJsonPath pop = { NULL, "op", 2, 0 }, pt = { NULL, "target", 6, 0 };
  if (!check_text (c, f->op, &pop, "\"op\""))
    return FALSE;
  if (!fxs_op_from_string (f->op->u.s, op))
    {
      char *q = quoted (f->op->u.s, f->op->n);
      conv_fail (c, FXS_ERROR_FORMAT, f->op, &pop,
                 "unknown op %s (expected placeholder, get_attr, call_function, "
                 "call_method, call_module or output)", q);
      g_free (q);
      return FALSE;
    }
  return check_text (c, f->target, &pt, "\"target\"");
}

static gboolean
check_node_rules (Conv *c, const FxsJson *obj, FxsOp op)
{
  FxsGraph *g = c->graph;
  const FxsNode *same = g_hash_table_lookup (g->node_by_name, c->node_name->u.s);
  FxsJsonPath pn = { NULL, "name", 4, 0 };
  if (same)
    return conv_fail (c, FXS_ERROR_GRAPH, c->node_name, &pn,
                      "duplicate node name (the first is nodes[%u])", same->index);
  if (g->output)
    {
      char *q = quoted (g->output->name, strlen (g->output->name));
      if (op == FXS_OP_OUTPUT)
        conv_fail (c, FXS_ERROR_GRAPH, obj, NULL, "a second output node (the first is %s)", q);
      else
        conv_fail (c, FXS_ERROR_GRAPH, obj, NULL,
                   "comes after the output node %s, which must be the last node", q);
      g_free (q);
      return FALSE;
    }
  return TRUE;
}

static gboolean
convert_args (Conv *c, const NodeFields *f, FxsOp op, FxsValue *args)
{
  args->kind = FXS_VALUE_TUPLE;
  if (!f->args)
    return TRUE;
  FxsJsonPath p = { NULL, "args", 4, 0 };
  if (f->args->type != FXS_JSON_ARRAY)
    return conv_fail (c, FXS_ERROR_FORMAT, f->args, &p, "\"args\" must be an array, not %s",
                      json_type_name (f->args));
  if (op == FXS_OP_PLACEHOLDER && f->args->n > 1)
    return conv_fail (c, FXS_ERROR_FORMAT, f->args, &p,
                      "a placeholder has at most one arg (its default value), not %u",
                      f->args->n);
  return convert_items (c, f->args, FXS_VALUE_TUPLE, args, &p);
}

static gboolean
convert_kwargs (Conv *c, const NodeFields *f, FxsValue *kwargs)
{
  kwargs->kind = FXS_VALUE_DICT;
  if (!f->kwargs)
    return TRUE;
  FxsJsonPath p = { NULL, "kwargs", 6, 0 };
  if (f->kwargs->type != FXS_JSON_OBJECT)
    return conv_fail (c, FXS_ERROR_FORMAT, f->kwargs, &p, "\"kwargs\" must be an object, not %s",
                      json_type_name (f->kwargs));
  return convert_object_as_dict (c, f->kwargs, FALSE, kwargs, &p);
}

static gboolean
load_node (Loader *l, FxsJsonReader *reader, const FxsJsonItem *item, const FxsJson *obj)
{
  Conv c = { l, reader, l->graph, NULL };
  NodeFields f;
  if (l->forward.active)
    {
      /* after a dangling reference, only look for the node it names */
      const FxsJson *name = fxs_json_member (obj, "name");
      if (!name || !is_text (name) || strcmp (name->u.s, l->forward.name) != 0)
        return TRUE;
      g_string_append_printf (l->forward.message,
                              ", which comes later (nodes[%" G_GUINT64_FORMAT "]); "
                              "nodes may only refer to earlier nodes", item->index);
      fxs_json_reader_fail_message (reader, FXS_ERROR_GRAPH, l->forward.pos, l->forward.message->str);
      return FALSE;
    }
  FxsOp op;
  if (!split_node_fields (&c, obj, &f) || !check_node_head (&c, obj, &f, &op)
      || !check_node_rules (&c, obj, op))
    return FALSE;
  FxsValue args = { 0 }, kwargs = { 0 };
  const FxsNodeMeta *meta = NULL;
  FxsJsonPath ptype = { NULL, "type", 4, 0 }, pmeta = { NULL, "meta", 4, 0 };
  if (!convert_args (&c, &f, op, &args) || !convert_kwargs (&c, &f, &kwargs))
    return l->forward.active;
  if (f.type && f.type->type != FXS_JSON_NULL && !check_text (&c, f.type, &ptype, "\"type\""))
    return FALSE;
  if (f.meta && !convert_meta (&c, f.meta, &meta, &pmeta))
    return l->forward.active;
  FxsNode *node = fxs_graph_append_node_unchecked (l->graph, op,
                                                   fxs_graph_strdup (l->graph, f.name->u.s),
                                                   intern (&c, f.target),
                                                   &args, &kwargs);
  if (f.type && f.type->type == FXS_JSON_STRING)
    node->type_expr = intern (&c, f.type);
  node->meta = meta;
  l->recent[g_str_hash (node->name) % G_N_ELEMENTS (l->recent)] = node;
  return TRUE;
}

/* Nodes of graphs that are not loaded: the members and the head only. */
static gboolean
check_node_shape (Loader *l, FxsJsonReader *reader, const FxsJson *obj)
{
  Conv c = { l, reader, NULL, NULL };
  NodeFields f;
  FxsOp op;
  return split_node_fields (&c, obj, &f) && check_node_head (&c, obj, &f, &op);
}

static gboolean
end_nodes (Loader *l, FxsJsonReader *reader, gboolean build, gint64 pos)
{
  if (!build)
    return TRUE;
  if (l->forward.active)
    {
      g_string_append (l->forward.message, ", which is not a node of this graph");
      fxs_json_reader_fail_message (reader, FXS_ERROR_GRAPH, l->forward.pos, l->forward.message->str);
      return FALSE;
    }
  if (!l->graph->output)
    {
      fxs_json_reader_fail (reader, FXS_ERROR_GRAPH, pos, NULL,
                            "the graph has no output node (it must end with one)");
      return FALSE;
    }
  return TRUE;
}

/* ---- attributes ------------------------------------------------------------------ */

static gboolean
convert_attr (Conv *c, const FxsJsonItem *item, const FxsJson *obj, gboolean build)
{
  const FxsJson *kind = NULL, *cls = NULL, *shape = NULL, *dtype = NULL;
  if (item->key_len == 0 || strlen (item->key) != item->key_len)
    return conv_fail_at (c, FXS_ERROR_FORMAT, item->key_pos, NULL,
                         "an attribute name must be non-empty and without NUL");
  /* the reader leaves duplicate keys of a built table to the table itself */
  if (build && fxs_graph_lookup_attr (c->graph, item->key))
    return conv_fail_at (c, FXS_ERROR_FORMAT, item->key_pos, NULL, "duplicate key");
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i], *v = key + 1;
      if (is_key (key, "kind"))
        kind = v;
      else if (is_key (key, "class"))
        cls = v;
      else if (is_key (key, "shape"))
        shape = v;
      else if (is_key (key, "dtype"))
        dtype = v;
      else
        return unknown_member (c, key, NULL, "\"kind\", \"class\", \"shape\", \"dtype\"");
    }
  FxsJsonPath pk = { NULL, "kind", 4, 0 }, pc = { NULL, "class", 5, 0 };
  FxsJsonPath ps = { NULL, "shape", 5, 0 }, pd = { NULL, "dtype", 5, 0 };
  FxsAttrKind k;
  if (!kind)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, NULL, "an attribute without \"kind\"");
  if (!check_text (c, kind, &pk, "\"kind\""))
    return FALSE;
  if (!fxs_attr_kind_from_string (kind->u.s, &k))
    {
      char *q = quoted (kind->u.s, kind->n);
      conv_fail (c, FXS_ERROR_FORMAT, kind, &pk,
                 "unknown attribute kind %s (expected parameter, buffer, constant, "
                 "module or object)", q);
      g_free (q);
      return FALSE;
    }
  if (cls && !check_text (c, cls, &pc, "\"class\""))
    return FALSE;
  if (dtype && !shape)
    return conv_fail (c, FXS_ERROR_FORMAT, key_of (dtype), &pd, "\"dtype\" without \"shape\"");
  if (!build)
    return shape == NULL || shape->type == FXS_JSON_ARRAY
           || conv_fail (c, FXS_ERROR_FORMAT, shape, &ps, "a shape must be an array, not %s",
                         json_type_name (shape));
  const FxsTensorMeta *t = NULL;
  if (shape && !convert_shape_and_dtype (c, shape, dtype, &ps, &pd, &t))
    return FALSE;
  GError *error = NULL;
  if (!fxs_graph_add_attr (c->graph, item->key, k, cls ? cls->u.s : NULL, t, &error))
    {
      conv_fail (c, FXS_ERROR_GRAPH, obj, NULL, "%s", error->message);
      g_error_free (error);
      return FALSE;
    }
  return TRUE;
}

/* ---- partitions and the qualname map (shape only) -------------------------------- */

static gboolean
check_name_list (Conv *c, const FxsJson *list, const FxsJsonPath *path)
{
  if (list->type != FXS_JSON_ARRAY)
    return conv_fail (c, FXS_ERROR_FORMAT, list, path, "must be an array of names, not %s",
                      json_type_name (list));
  for (guint i = 0; i < list->n; i++)
    {
      FxsJsonPath p = { path, NULL, 0, i };
      if (!check_text (c, &list->u.items[i], &p, "a name"))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_partition (Conv *c, const FxsJson *obj)
{
  static const char *const lists[] = { "nodes", "inputs", "outputs", "dependencies", "dependents" };
  static const char valid[] = "\"name\", \"id\", \"submodule\", \"nodes\", \"inputs\", "
    "\"outputs\", \"dependencies\", \"dependents\"";
  gboolean have_name = FALSE, have_id = FALSE, have_submodule = FALSE;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i], *v = key + 1;
      FxsJsonPath p = { NULL, key->u.s, key->n, 0 };
      gboolean list = FALSE;
      for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
        list |= is_key (key, lists[k]);
      if (list)
        {
          if (!check_name_list (c, v, &p))
            return FALSE;
        }
      else if (is_key (key, "name") || is_key (key, "submodule"))
        {
          if (!check_text (c, v, &p, key->n == 4 ? "\"name\"" : "\"submodule\""))
            return FALSE;
          have_name |= key->n == 4;
          have_submodule |= key->n != 4;
        }
      else if (is_key (key, "id"))
        {
          gint64 id;
          if (v->type != FXS_JSON_NUMBER || !number_is_integer (v))
            return conv_fail (c, FXS_ERROR_FORMAT, v, &p, "\"id\" must be an integer, not %s",
                              json_type_name (v));
          if (!convert_integer (c, v, &p, &id))
            return FALSE;
          have_id = TRUE;
        }
      else
        return unknown_member (c, key, NULL, valid);
    }
  if (!have_name || !have_id || !have_submodule)
    return conv_fail (c, FXS_ERROR_FORMAT, obj, NULL, "a partition without \"%s\"",
                      !have_name ? "name" : !have_id ? "id" : "submodule");
  return TRUE;
}

/* ---- the file's structure ------------------------------------------------------- */

static FxsJsonAction
expect_type (FxsJsonReader *reader, const FxsJsonItem *item, FxsJsonType type,
             const char *what, FxsJsonAction action)
{
  if (item->type == type)
    return action;
  fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->pos, NULL, "%s must be %s, not %s",
                        what, item_type_name (type), item_type_name (item->type));
  return FXS_JSON_FAIL;
}

static FxsJsonAction
begin_top_member (Loader *l, FxsJsonReader *reader, const FxsJsonItem *item, int *tag)
{
  const char *key = item->key;
  gboolean head = item_is (item, "format") || item_is (item, "version");
  if (!head && !(l->have_format && l->have_version))
    {
      char *q = quoted (key, item->key_len);
      fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->key_pos, NULL,
                            "found %s before \"format\" and \"version\": a graph file starts "
                            "with \"format\": \"" FORMAT_NAME "\", \"version\": %d", q,
                            FXS_GRAPH_FORMAT_VERSION);
      g_free (q);
      return FXS_JSON_FAIL;
    }
  int build = l->want ? 0 : TAG_BUILD;
  if (head)
    return FXS_JSON_COLLECT;
  if (item_is (item, "attributes"))
    {
      *tag = TAG_ATTRS | build;
      return expect_type (reader, item, FXS_JSON_OBJECT, "\"attributes\"",
                          build ? FXS_JSON_STREAM_OWN_KEYS : FXS_JSON_STREAM);
    }
  if (item_is (item, "nodes"))
    {
      l->have_nodes = TRUE;
      *tag = TAG_NODES | build;
      return expect_type (reader, item, FXS_JSON_ARRAY, "\"nodes\"", FXS_JSON_STREAM);
    }
  if (item_is (item, "submodules"))
    {
      *tag = TAG_SUBMODULES;
      return expect_type (reader, item, FXS_JSON_ARRAY, "\"submodules\"", FXS_JSON_STREAM);
    }
  if (item_is (item, "partitions"))
    {
      *tag = TAG_PARTITIONS;
      return expect_type (reader, item, FXS_JSON_ARRAY, "\"partitions\"", FXS_JSON_STREAM);
    }
  if (item_is (item, "qualname_map"))
    {
      *tag = TAG_QUALNAME_MAP;
      return expect_type (reader, item, FXS_JSON_OBJECT, "\"qualname_map\"", FXS_JSON_STREAM);
    }
  if (g_str_has_prefix (key, "x-"))
    return FXS_JSON_COLLECT; /* an extension: read and ignored */
  char *q = quoted (key, item->key_len);
  fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->key_pos, NULL,
                        "unknown member %s (expected \"format\", \"version\", \"attributes\", "
                        "\"nodes\", \"submodules\", \"partitions\", \"qualname_map\" or \"x-...\")", q);
  g_free (q);
  return FXS_JSON_FAIL;
}

static FxsJsonAction
begin_submodule_member (Loader *l, FxsJsonReader *reader, const FxsJsonItem *item, int *tag)
{
  const char *key = item->key;
  if (!l->entry_named && !item_is (item, "name"))
    {
      fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->key_pos, NULL,
                            "\"name\" must be the first member of a submodule");
      return FXS_JSON_FAIL;
    }
  int build = l->entry_build ? TAG_BUILD : 0;
  if (item_is (item, "name"))
    return FXS_JSON_COLLECT;
  if (item_is (item, "attributes"))
    {
      *tag = TAG_ATTRS | build;
      return expect_type (reader, item, FXS_JSON_OBJECT, "\"attributes\"",
                          build ? FXS_JSON_STREAM_OWN_KEYS : FXS_JSON_STREAM);
    }
  if (item_is (item, "nodes"))
    {
      l->entry_has_nodes = TRUE;
      *tag = TAG_NODES | build;
      return expect_type (reader, item, FXS_JSON_ARRAY, "\"nodes\"", FXS_JSON_STREAM);
    }
  char *q = quoted (key, item->key_len);
  fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->key_pos, NULL,
                        "unknown member %s (expected \"name\", \"attributes\", \"nodes\")", q);
  g_free (q);
  return FXS_JSON_FAIL;
}

static FxsJsonAction
on_begin (FxsJsonReader *reader, gpointer data, const FxsJsonItem *item, int *tag)
{
  Loader *l = data;
  switch (item->parent_tag & TAG_KIND_MASK)
    {
    case 0:
      *tag = TAG_TOP;
      if (item->type == FXS_JSON_OBJECT)
        return FXS_JSON_STREAM;
      fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->pos, NULL,
                            "a graph file is a JSON object, not %s", item_type_name (item->type));
      return FXS_JSON_FAIL;
    case TAG_TOP:
      return begin_top_member (l, reader, item, tag);
    case TAG_ATTRS:
      return expect_type (reader, item, FXS_JSON_OBJECT, "an attribute", FXS_JSON_COLLECT);
    case TAG_NODES:
      return expect_type (reader, item, FXS_JSON_OBJECT, "a node", FXS_JSON_COLLECT);
    case TAG_SUBMODULES:
      l->entry_named = l->entry_build = l->entry_has_nodes = FALSE;
      *tag = TAG_SUBMODULE;
      return expect_type (reader, item, FXS_JSON_OBJECT, "a submodule", FXS_JSON_STREAM);
    case TAG_SUBMODULE:
      return begin_submodule_member (l, reader, item, tag);
    case TAG_PARTITIONS:
      return expect_type (reader, item, FXS_JSON_OBJECT, "a partition", FXS_JSON_COLLECT);
    case TAG_QUALNAME_MAP:
      return expect_type (reader, item, FXS_JSON_STRING, "a qualname map entry", FXS_JSON_COLLECT);
    default:
      g_return_val_if_reached (FXS_JSON_FAIL);
    }
}

static gboolean
top_value (Loader *l, FxsJsonReader *reader, const FxsJsonItem *item, const FxsJson *v)
{
  Conv c = { l, reader, NULL, NULL };
  if (item_is (item, "format"))
    {
      if (v->type != FXS_JSON_STRING || strcmp (v->u.s, FORMAT_NAME) != 0 || v->n != strlen (FORMAT_NAME))
        return conv_fail (&c, FXS_ERROR_FORMAT, v, NULL,
                          "not an fxsplit graph file: \"format\" must be \"" FORMAT_NAME "\"");
      l->have_format = TRUE;
    }
  else if (item_is (item, "version"))
    {
      gint64 version;
      if (v->type != FXS_JSON_NUMBER || !number_is_integer (v))
        return conv_fail (&c, FXS_ERROR_FORMAT, v, NULL, "\"version\" must be an integer, not %s",
                          json_type_name (v));
      char buf[64];
      if (!parse_integer (v->u.s, &version) || version != FXS_GRAPH_FORMAT_VERSION)
        return conv_fail (&c, FXS_ERROR_VERSION, v, NULL,
                          "unsupported format version %s (this build reads version %d)",
                          shown (v, buf), FXS_GRAPH_FORMAT_VERSION);
      l->have_version = TRUE;
    }
  return TRUE; /* x-... extensions */
}

static gboolean
submodule_name (Loader *l, FxsJsonReader *reader, const FxsJson *v)
{
  Conv c = { l, reader, NULL, NULL };
  if (!check_text (&c, v, NULL, "a submodule's \"name\""))
    return FALSE;
  if (g_hash_table_contains (l->submodule_names, v->u.s))
    {
      char *q = quoted (v->u.s, v->n);
      conv_fail (&c, FXS_ERROR_GRAPH, v, NULL, "duplicate submodule name %s", q);
      g_free (q);
      return FALSE;
    }
  char *name = g_strdup (v->u.s);
  g_hash_table_add (l->submodule_names, name);
  g_ptr_array_add (l->submodule_list, name);
  l->entry_named = TRUE;
  if (l->want && strcmp (l->want, name) == 0)
    {
      l->found = l->entry_build = TRUE;
      l->graph = fxs_graph_new ();
    }
  return TRUE;
}

static gboolean
on_value (FxsJsonReader *reader, gpointer data, const FxsJsonItem *item, const FxsJson *v)
{
  Loader *l = data;
  gboolean build = (item->parent_tag & TAG_BUILD) != 0;
  Conv c = { l, reader, l->graph, NULL };
  switch (item->parent_tag & TAG_KIND_MASK)
    {
    case TAG_TOP:
      return top_value (l, reader, item, v);
    case TAG_ATTRS:
      return convert_attr (&c, item, v, build);
    case TAG_NODES:
      return build ? load_node (l, reader, item, v) : check_node_shape (l, reader, v);
    case TAG_SUBMODULE:
      return submodule_name (l, reader, v);
    case TAG_PARTITIONS:
      return check_partition (&c, v);
    case TAG_QUALNAME_MAP:
      return TRUE;
    default:
      g_return_val_if_reached (FALSE);
    }
}

static gboolean
missing (FxsJsonReader *reader, gint64 pos, const char *what)
{
  fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, pos, NULL, "no %s", what);
  return FALSE;
}

static gboolean
end_top (Loader *l, FxsJsonReader *reader, gint64 pos)
{
  if (!l->have_format)
    return missing (reader, pos, "\"format\": not an fxsplit graph file");
  if (!l->have_version)
    return missing (reader, pos, "\"version\"");
  if (!l->have_nodes)
    return missing (reader, pos, "\"nodes\"");
  if (!l->want || l->found)
    return TRUE;
  GString *names = g_string_new (NULL);
  for (guint i = 0; i < l->submodule_list->len && i < 20; i++)
    {
      const char *name = l->submodule_list->pdata[i];
      g_string_append (names, i ? ", " : "");
      fxs_json_append_quoted (names, name, strlen (name));
    }
  if (l->submodule_list->len > 20)
    g_string_append_printf (names, " and %u more", l->submodule_list->len - 20);
  char *want = quoted (l->want, strlen (l->want));
  fxs_json_reader_fail (reader, FXS_ERROR_GRAPH, pos, NULL, "no submodule %s (%s%s)", want,
                        l->submodule_list->len ? "the file has " : "the file has no submodules",
                        names->str);
  g_free (want);
  g_string_free (names, TRUE);
  return FALSE;
}

static gboolean
on_end (FxsJsonReader *reader, gpointer data, int tag, guint64 n_members, gint64 pos)
{
  Loader *l = data;
  (void) n_members;
  switch (tag & TAG_KIND_MASK)
    {
    case TAG_TOP:
      return end_top (l, reader, pos);
    case TAG_NODES:
      return end_nodes (l, reader, (tag & TAG_BUILD) != 0, pos);
    case TAG_SUBMODULE:
      if (!l->entry_named)
        return missing (reader, pos, "\"name\" in a submodule");
      if (!l->entry_has_nodes)
        return missing (reader, pos, "\"nodes\" in a submodule");
      l->entry_build = FALSE;
      return TRUE;
    default:
      return TRUE;
    }
}

static const FxsJsonHandler handler = { on_begin, on_value, on_end };

/* ---- entry points ---------------------------------------------------------------- */

static FxsGraph *
load (const char *path, const char *data, gsize length, const char *display_name,
      const char *want, GError **error)
{
  Loader l = { 0 };
  l.want = want;
  l.graph = want ? NULL : fxs_graph_new ();
  l.submodule_names = g_hash_table_new (g_str_hash, g_str_equal);
  l.submodule_list = g_ptr_array_new_with_free_func (g_free);
  l.tensors = g_hash_table_new (tensor_hash, tensor_equal);
  l.single_metas = g_hash_table_new (g_direct_hash, g_direct_equal);
  FxsJsonReader *reader = fxs_json_reader_new (display_name, &handler, &l);
  gboolean ok = path ? fxs_json_reader_parse_file (reader, path, error)
                     : fxs_json_reader_parse_data (reader, data, length, error);
  fxs_json_reader_free (reader);
  g_hash_table_unref (l.submodule_names);
  g_ptr_array_unref (l.submodule_list);
  g_hash_table_unref (l.tensors);
  g_hash_table_unref (l.single_metas);
  g_free (l.forward.name);
  if (l.forward.message)
    g_string_free (l.forward.message, TRUE);
  if (!ok)
    {
      fxs_graph_unref (l.graph);
      return NULL;
    }
  return l.graph;
}

FxsGraph *
fxs_graph_load_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  return load (path, NULL, 0, path, NULL, error);
}

FxsGraph *
fxs_graph_load_submodule_file (const char *path, const char *submodule, GError **error)
{
  g_return_val_if_fail (path != NULL && submodule != NULL, NULL);
  return load (path, NULL, 0, path, submodule, error);
}

FxsGraph *
fxs_graph_load_data (const char *data, gsize length, const char *display_name, GError **error)
{
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  return load (NULL, data ? data : "", length, display_name ? display_name : "<data>", NULL, error);
}
