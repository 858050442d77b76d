/* Node and tensor metadata: reading it, and setting it on a graph being
 * built (metadata may be shared between graphs, so setters copy it first). */
#include "graph-private.h"

#include <string.h>

/* ---- metadata ----------------------------------------------------------- */

static const FxsNodeMeta empty_meta;

static const FxsNodeMeta *
meta_of (const FxsNode *node)
{
  return node->meta ? node->meta : &empty_meta;
}

FXS_GETTER (guint, fxs_node_n_tensors, FxsNode, node, meta_of (node)->n_tensors, 0)
FXS_GETTER (gboolean, fxs_node_value_is_tuple, FxsNode, node, meta_of (node)->is_tuple, FALSE)
FXS_GETTER (guint, fxs_node_n_free_symbols, FxsNode, node, meta_of (node)->n_free_symbols, 0)
FXS_GETTER (const char *, fxs_node_symbol, FxsNode, node, meta_of (node)->symbol, NULL)

const FxsTensorMeta *
fxs_node_tensor (const FxsNode *node, guint i)
{
  g_return_val_if_fail (i < meta_of (node)->n_tensors, NULL);
  return node->meta->tensors[i];
}

gint64
fxs_node_output_bytes (const FxsNode *node)
{
  const FxsNodeMeta *m = meta_of (node);
  if (m->n_tensors == 0)
    return -1;
  gint64 total = 0;
  for (guint i = 0; i < m->n_tensors; i++)
    {
      gint64 b = fxs_tensor_bytes (m->tensors[i]);
      if (b < 0)
        return -1;
      total += b;
    }
  return total;
}

const char *
fxs_node_free_symbol (const FxsNode *node, guint i)
{
  g_return_val_if_fail (i < meta_of (node)->n_free_symbols, NULL);
  return node->meta->free_symbols[i];
}

static const FxsValue empty_dict = { .kind = FXS_VALUE_DICT };

const FxsValue *
fxs_node_meta (const FxsNode *node)
{
  const FxsValue *extra = meta_of (node)->extra;
  return extra ? extra : &empty_dict;
}

const FxsValue *
fxs_node_meta_lookup (const FxsNode *node, const char *key)
{
  return fxs_value_dict_lookup (meta_of (node)->extra, key);
}

FXS_GETTER (guint, fxs_tensor_rank, FxsTensorMeta, t, t->rank, 0)
FXS_GETTER (const char *, fxs_tensor_dtype, FxsTensorMeta, t, t->dtype, NULL)

gint64
fxs_tensor_dim (const FxsTensorMeta *t, guint d)
{
  g_return_val_if_fail (d < t->rank, -1);
  return t->dims[d];
}

const char *
fxs_tensor_dim_symbol (const FxsTensorMeta *t, guint d)
{
  g_return_val_if_fail (d < t->rank, NULL);
  return t->symbols ? t->symbols[d] : NULL;
}

guint
fxs_dtype_size (const char *dtype)
{
  static const struct { const char *name; guint size; } sizes[] = {
    { "float32", 4 }, { "float", 4 }, { "float64", 8 }, { "double", 8 },
    { "float16", 2 }, { "half", 2 }, { "bfloat16", 2 },
    { "int64", 8 }, { "long", 8 }, { "int32", 4 }, { "int", 4 },
    { "int16", 2 }, { "short", 2 }, { "int8", 1 }, { "uint8", 1 },
    { "uint16", 2 }, { "uint32", 4 }, { "uint64", 8 }, { "bool", 1 },
    { "complex32", 4 }, { "chalf", 4 }, { "complex64", 8 }, { "cfloat", 8 },
    { "complex128", 16 }, { "cdouble", 16 },
    { "quint8", 1 }, { "qint8", 1 }, { "qint32", 4 }, { "quint4x2", 1 },
    { "float8_e4m3fn", 1 }, { "float8_e5m2", 1 },
  };
  if (dtype == NULL)
    return 0;
  if (g_str_has_prefix (dtype, "torch."))
    dtype += 6;
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (strcmp (dtype, sizes[i].name) == 0)
      return sizes[i].size;
  return 0;
}

gint64
fxs_tensor_bytes (const FxsTensorMeta *t)
{
  guint elem = fxs_dtype_size (t->dtype);
  if (elem == 0)
    return -1;
  gint64 n = elem;
  for (guint d = 0; d < t->rank; d++)
    {
      if (t->dims[d] < 0)
        return -1;
      if (t->dims[d] != 0 && n > G_MAXINT64 / t->dims[d])
        return -1;
      n *= t->dims[d];
    }
  return n;
}

/* ---- setting it --------------------------------------------------------- */
static FxsNodeMeta *
meta_for_write (FxsNode *node)
{
  FxsNodeMeta *m = fxs_arena_memdup (&node->graph->arena, meta_of (node), sizeof *m);
  node->meta = m;
  return m;
}

void
fxs_node_set_tensors (FxsNode *node, const FxsTensorMeta *const *tensors, guint n,
                      gboolean is_tuple)
{
  FxsNodeMeta *m = meta_for_write (node);
  m->tensors = n ? fxs_arena_memdup (&node->graph->arena, tensors, n * sizeof *tensors) : NULL;
  m->n_tensors = n;
  m->is_tuple = is_tuple;
}

void
fxs_node_set_free_symbols (FxsNode *node, const char *const *symbols, guint n)
{
  FxsNodeMeta *m = meta_for_write (node);
  const char **copy = n ? fxs_arena_alloc (&node->graph->arena, n * sizeof *copy) : NULL;
  for (guint i = 0; i < n; i++)
    copy[i] = fxs_graph_intern (node->graph, symbols[i]);
  m->free_symbols = copy;
  m->n_free_symbols = n;
}

void
fxs_node_set_symbol (FxsNode *node, const char *symbol)
{
  meta_for_write (node)->symbol = fxs_graph_intern (node->graph, symbol);
}

void
fxs_node_set_meta (FxsNode *node, const char *key, const FxsValue *value)
{
  FxsNodeMeta *m = meta_for_write (node);
  const FxsValue *old = m->extra;
  guint n = old ? old->n : 0;
  FxsValue *items = fxs_arena_alloc (&node->graph->arena, 2 * (n + 1) * sizeof *items);
  if (n)
    memcpy (items, old->u.items, 2 * n * sizeof *items);
  guint i = 0;
  while (i < n && strcmp (items[2 * i].u.s, key) != 0)
    i++;
  if (i == n)
    items[2 * n++] = (FxsValue) { .kind = FXS_VALUE_STRING, .n = (guint32) strlen (key),
                                  .u.s = fxs_graph_intern (node->graph, key) };
  items[2 * i + 1] = *value;
  m->extra = fxs_arena_memdup (&node->graph->arena,
                               &(FxsValue) { .kind = FXS_VALUE_DICT, .n = n, .u.items = items },
                               sizeof (FxsValue));
}

FxsTensorMeta *
fxs_tensor_meta_new (FxsGraph *graph, guint rank, const gint64 *dims,
                     const char *const *symbols, const char *dtype)
{
  FxsTensorMeta *t = fxs_arena_alloc (&graph->arena, sizeof *t);
  t->rank = rank;
  t->dims = rank ? fxs_arena_memdup (&graph->arena, dims, rank * sizeof *dims) : NULL;
  if (symbols)
    {
      const char **s = fxs_arena_alloc (&graph->arena, (rank ? rank : 1) * sizeof *s);
      for (guint d = 0; d < rank; d++)
        s[d] = symbols[d] ? fxs_graph_intern (graph, symbols[d]) : NULL;
      t->symbols = s;
    }
  t->dtype = fxs_graph_intern (graph, dtype);
  return t;
}

/* ---- storing equal metadata once ---------------------------------------- */

/* Distinct node metadata kept for look-ups at most: a graph whose metas all
 * differ (each its own shape) does not keep a table of all of them. */
#define MAX_DISTINCT_METAS 4096

/* One kind of shared metadata.  The last entry and recent ones (by their
 * hash) are compared before the table: neighbouring nodes alternate
 * between a few shapes and tags, and these stay in cache. */
typedef struct {
  GHashTable *all;          /* entry -> itself, by content */
  GHashFunc hash;
  GEqualFunc equal;
  guint max;                /* entries kept in the table at most */
  gconstpointer recent[64];
  gconstpointer last;
} ShareSet;

struct FxsMetaShare {
  ShareSet tensors;
  ShareSet metas;
};

static guint64
mix (guint64 h, guint64 v)
{
  return (h ^ v) * 0x100000001b3u;
}

static guint
fold (guint64 h)
{
  return (guint) (h ^ (h >> 32));
}

/* Dtypes and symbols are interned: pointers compare them. */
static guint
tensor_hash (gconstpointer p)
{
  const FxsTensorMeta *t = p;
  guint64 h = t->rank * 0x9e3779b97f4a7c15u ^ (guint64) (guintptr) t->dtype;
  for (guint d = 0; d < t->rank; d++)
    {
      h = mix (h, (guint64) t->dims[d]);
      if (t->symbols)
        h = mix (h, (guint64) (guintptr) t->symbols[d]);
    }
  return fold (h);
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

/* Agrees with fxs_value_equal(): floats by their bits, every nan alike
 * (hashing floats by kind alone put metas that differ only in a float per
 * node, {"w": 0.25}, {"w": 0.75}, ..., in one chain: quadratic loading). */
static guint64
value_hash (guint64 h, const FxsValue *v)
{
  h = mix (h, v->kind * 31u + v->n);
  switch (v->kind)
    {
    case FXS_VALUE_BOOL:
      return mix (h, !!v->u.b);
    case FXS_VALUE_INT:
      return mix (h, (guint64) v->u.i);
    case FXS_VALUE_FLOAT:
      return mix (h, fxs_float_bits (v->u.f));
    case FXS_VALUE_STRING:
      return mix (h, fxs_name_hash (v->u.s, v->n));
    case FXS_VALUE_NODE:
      return mix (h, (guint64) (guintptr) v->u.node);
    case FXS_VALUE_NONE:
    case FXS_VALUE_ELLIPSIS:
      return h;
    default: /* list, tuple, slice, opaque; a dict's items are its keys and values */
      for (guint i = 0; i < (v->kind == FXS_VALUE_DICT ? 2 * v->n : v->n); i++)
        h = value_hash (h, &v->u.items[i]);
      return h;
    }
}

static guint
meta_hash (gconstpointer p)
{
  const FxsNodeMeta *m = p;
  guint64 h = mix (m->n_tensors * 2u + !!m->is_tuple, (guint64) (guintptr) m->symbol);
  for (guint i = 0; i < m->n_tensors; i++)
    h = mix (h, (guint64) (guintptr) m->tensors[i]);
  for (guint i = 0; i < m->n_free_symbols; i++)
    h = mix (h, (guint64) (guintptr) m->free_symbols[i]);
  return fold (m->extra ? value_hash (h, m->extra) : h);
}

/* Tensors and symbols are shared: pointers compare them. */
static gboolean
meta_equal (gconstpointer a, gconstpointer b)
{
  const FxsNodeMeta *x = a, *y = b;
  if (x->n_tensors != y->n_tensors || !x->is_tuple != !y->is_tuple || x->symbol != y->symbol
      || x->n_free_symbols != y->n_free_symbols || !x->extra != !y->extra)
    return FALSE;
  if (x->n_tensors && memcmp (x->tensors, y->tensors, x->n_tensors * sizeof *x->tensors) != 0)
    return FALSE;
  if (x->n_free_symbols
      && memcmp (x->free_symbols, y->free_symbols,
                 x->n_free_symbols * sizeof *x->free_symbols) != 0)
    return FALSE;
  return !x->extra || fxs_value_equal (x->extra, y->extra);
}

static void
share_set_clear (ShareSet *set)
{
  g_hash_table_remove_all (set->all);
  memset (set->recent, 0, sizeof set->recent);
  set->last = NULL;
}

/* The entry equal to @key, made by @copy into @graph the first time. */
static gconstpointer
share_set_get (ShareSet *set, gconstpointer key, FxsGraph *graph,
               gpointer (*copy) (FxsGraph *graph, gconstpointer key))
{
  if (set->last && set->equal (set->last, key))
    return set->last;
  guint slot = set->hash (key) % G_N_ELEMENTS (set->recent);
  gconstpointer known = set->recent[slot];
  if (!known || !set->equal (known, key))
    known = g_hash_table_lookup (set->all, key);
  if (!known)
    {
      gpointer made = copy (graph, key);
      if (g_hash_table_size (set->all) < set->max)
        g_hash_table_add (set->all, made);
      known = made;
    }
  return set->last = set->recent[slot] = known;
}

FxsMetaShare *
fxs_meta_share_new (void)
{
  FxsMetaShare *s = g_new0 (FxsMetaShare, 1);
  /* a graph has few shapes: all are kept */
  s->tensors = (ShareSet) { .all = g_hash_table_new (tensor_hash, tensor_equal),
                            .hash = tensor_hash, .equal = tensor_equal, .max = G_MAXUINT };
  s->metas = (ShareSet) { .all = g_hash_table_new (meta_hash, meta_equal), .hash = meta_hash,
                          .equal = meta_equal, .max = MAX_DISTINCT_METAS };
  return s;
}

void
fxs_meta_share_clear (FxsMetaShare *s)
{
  share_set_clear (&s->tensors);
  share_set_clear (&s->metas);
}

void
fxs_meta_share_free (FxsMetaShare *s)
{
  g_hash_table_unref (s->tensors.all);
  g_hash_table_unref (s->metas.all);
  g_free (s);
}

static gpointer
copy_tensor (FxsGraph *graph, gconstpointer p)
{
  const FxsTensorMeta *t = p;
  return fxs_tensor_meta_new (graph, t->rank, t->dims, t->symbols, t->dtype);
}

/* The arrays at the top may be the caller's; what they point to is the
 * graph's. */
static gpointer
copy_node_meta (FxsGraph *graph, gconstpointer p)
{
  FxsArena *arena = &graph->arena;
  const FxsNodeMeta *m = p;
  FxsNodeMeta *copy = fxs_arena_memdup (arena, m, sizeof *m);
  copy->tensors = fxs_arena_memdup (arena, m->tensors, m->n_tensors * sizeof *m->tensors);
  copy->free_symbols = fxs_arena_memdup (arena, m->free_symbols,
                                         m->n_free_symbols * sizeof *m->free_symbols);
  if (m->extra)
    {
      FxsValue *dict = fxs_arena_memdup (arena, m->extra, sizeof *dict);
      dict->u.items = fxs_arena_memdup (arena, dict->u.items,
                                        2 * dict->n * sizeof *dict->u.items);
      copy->extra = dict;
    }
  return copy;
}

const FxsTensorMeta *
fxs_meta_share_tensor (FxsMetaShare *s, FxsGraph *graph, const FxsTensorMeta *t)
{
  return share_set_get (&s->tensors, t, graph, copy_tensor);
}

const FxsNodeMeta *
fxs_meta_share_node (FxsMetaShare *s, FxsGraph *graph, const FxsNodeMeta *m)
{
  return share_set_get (&s->metas, m, graph, copy_node_meta);
}
