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

guint
fxs_node_n_tensors (const FxsNode *node)
{
  return meta_of (node)->n_tensors;
}

const FxsTensorMeta *
fxs_node_tensor (const FxsNode *node, guint i)
{
  g_return_val_if_fail (i < meta_of (node)->n_tensors, NULL);
  return node->meta->tensors[i];
}

gboolean
fxs_node_value_is_tuple (const FxsNode *node)
{
  return meta_of (node)->is_tuple;
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

guint
fxs_node_n_free_symbols (const FxsNode *node)
{
  return meta_of (node)->n_free_symbols;
}

const char *
fxs_node_free_symbol (const FxsNode *node, guint i)
{
  g_return_val_if_fail (i < meta_of (node)->n_free_symbols, NULL);
  return node->meta->free_symbols[i];
}

const char *
fxs_node_symbol (const FxsNode *node)
{
  return meta_of (node)->symbol;
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

guint
fxs_tensor_rank (const FxsTensorMeta *t)
{
  return t->rank;
}

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

const char *
fxs_tensor_dtype (const FxsTensorMeta *t)
{
  return t->dtype;
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
  FxsNodeMeta *m = fxs_arena_alloc (&node->graph->arena, sizeof *m);
  if (node->meta)
    *m = *node->meta;
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
  guint k = 0;
  gboolean replaced = FALSE;
  for (guint i = 0; i < n; i++)
    {
      items[2 * k] = old->u.items[2 * i];
      items[2 * k + 1] = old->u.items[2 * i + 1];
      if (strcmp (old->u.items[2 * i].u.s, key) == 0)
        {
          items[2 * k + 1] = *value;
          replaced = TRUE;
        }
      k++;
    }
  if (!replaced)
    {
      items[2 * k].kind = FXS_VALUE_STRING;
      items[2 * k].u.s = fxs_graph_intern (node->graph, key);
      items[2 * k].n = (guint32) strlen (key);
      items[2 * k + 1] = *value;
      k++;
    }
  FxsValue *dict = fxs_arena_alloc (&node->graph->arena, sizeof *dict);
  dict->kind = FXS_VALUE_DICT;
  dict->n = k;
  dict->u.items = items;
  m->extra = dict;
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

