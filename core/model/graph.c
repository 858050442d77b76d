/* The graph model: graphs, nodes, attributes and their metadata. */
#include "graph-private.h"

#include <string.h>

static const char *const op_names[] = {
  "placeholder", "get_attr", "call_function", "call_method", "call_module", "output",
};

const char *
fxs_op_to_string (FxsOp op)
{
  g_return_val_if_fail ((guint) op < G_N_ELEMENTS (op_names), NULL);
  return op_names[op];
}

gboolean
fxs_op_from_string (const char *name, FxsOp *op)
{
  for (guint i = 0; i < G_N_ELEMENTS (op_names); i++)
    if (strcmp (name, op_names[i]) == 0)
      {
        *op = (FxsOp) i;
        return TRUE;
      }
  return FALSE;
}

static const char *const attr_kind_names[] = {
  "parameter", "buffer", "constant", "module", "object",
};

const char *
fxs_attr_kind_to_string (FxsAttrKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (attr_kind_names), NULL);
  return attr_kind_names[kind];
}

gboolean
fxs_attr_kind_from_string (const char *name, FxsAttrKind *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (attr_kind_names); i++)
    if (strcmp (name, attr_kind_names[i]) == 0)
      {
        *kind = (FxsAttrKind) i;
        return TRUE;
      }
  return FALSE;
}

/* ---- item arrays ---------------------------------------------------------- */

void
fxs_items_reserve (FxsItems *items, guint cap)
{
  if (cap <= items->cap)
    return;
  items->cap = MAX (MAX (cap, 2 * items->cap), 8);
  items->pdata = g_renew (gpointer, items->pdata, items->cap);
}

void
fxs_items_clear (FxsItems *items)
{
  g_free (items->pdata);
  *items = (FxsItems) { 0 };
}

/* ---- graphs ------------------------------------------------------------- */

FxsGraph *
fxs_graph_new (void)
{
  FxsGraph *g = g_new0 (FxsGraph, 1);
  g->ref_count = 1;
  fxs_arena_init (&g->arena);
  fxs_table_init (&g->node_index, sizeof (FxsTableHead));
  fxs_table_init (&g->attr_index, sizeof (FxsTableHead));
  /* small: the engine makes a graph per partition, most of them a few
   * nodes (10^7 partitions, tests/hostile); strings come on first use */
  return g;
}

FxsGraph *
fxs_graph_ref (FxsGraph *graph)
{
  g_return_val_if_fail (graph != NULL, NULL);
  g_atomic_int_inc (&graph->ref_count);
  return graph;
}

void
fxs_graph_unref (FxsGraph *graph)
{
  if (graph == NULL || !g_atomic_int_dec_and_test (&graph->ref_count))
    return;
  fxs_items_clear (graph->nodes);
  fxs_table_clear (&graph->node_index);
  fxs_items_clear (graph->attrs);
  fxs_table_clear (&graph->attr_index);
  if (graph->keepalive)
    g_ptr_array_unref (graph->keepalive);
  g_free (graph->target_attrs);
  g_free (graph->user_offsets);
  g_free (graph->user_list);
  if (graph->strings)
    g_string_chunk_free (graph->strings);
  fxs_arena_clear (&graph->arena);
  g_free (graph);
}

/* Made on first use: the engine's graphs (one per partition) store no
 * strings of their own. */
static GStringChunk *
graph_strings (FxsGraph *graph)
{
  if (!graph->strings)
    graph->strings = g_string_chunk_new (256);
  return graph->strings;
}

const char *
fxs_graph_strdup (FxsGraph *graph, const char *s)
{
  /* the arena packs strings too, in blocks that grow (a GStringChunk's
   * stay at 256 bytes: a malloc and a list cell every few names) */
  return s ? fxs_arena_strndup (&graph->arena, s, strlen (s)) : NULL;
}

const char *
fxs_graph_intern (FxsGraph *graph, const char *s)
{
  return s ? g_string_chunk_insert_const (graph_strings (graph), s) : NULL;
}

void
fxs_graph_keep_alive (FxsGraph *graph, FxsGraph *other)
{
  if (other == graph)
    return;
  if (!graph->keepalive)
    graph->keepalive = g_ptr_array_new_with_free_func ((GDestroyNotify) fxs_graph_unref);
  for (guint i = 0; i < graph->keepalive->len; i++)
    if (graph->keepalive->pdata[i] == other)
      return;
  g_ptr_array_add (graph->keepalive, fxs_graph_ref (other));
}

guint
fxs_graph_n_nodes (const FxsGraph *graph)
{
  return graph->nodes->len;
}

const FxsNode *
fxs_graph_node (const FxsGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->nodes->len, NULL);
  return graph->nodes->pdata[index];
}

/* ---- name indexes -------------------------------------------------------- */

/* The name of item @i of @items: FxsNode* when @nodes, else FxsAttr*. */
static const char *
item_name (const FxsItems *items, gboolean nodes, guint32 i)
{
  return nodes ? ((const FxsNode *) items->pdata[i])->name
               : ((const FxsAttr *) items->pdata[i])->name;
}

/* The position of @name (@len bytes, @hash) in @items, or G_MAXUINT32. */
static guint32
name_index_find (const FxsNameIndex *index, const FxsItems *items, gboolean nodes,
                 const char *name, gsize len, guint32 hash)
{
  for (gsize i = fxs_table_start (index, hash);; i = fxs_table_step (index, i))
    {
      const FxsTableHead *e = fxs_table_at (index, i);
      if (!e->tag)
        return G_MAXUINT32;
      if (e->hash == hash)
        {
          const char *other = item_name (items, nodes, e->tag - 1);
          if (other == name || (strncmp (other, name, len) == 0 && other[len] == '\0'))
            return e->tag - 1;
        }
    }
}

/* Adds items [@from, items->len) to @index; the first of two equal names
 * wins, as the checked builders never let a second one in. */
static void
name_index_update (FxsNameIndex *index, const FxsItems *items, gboolean nodes, guint32 from)
{
  for (guint32 i = from; i < items->len; i++)
    {
      const char *name = item_name (items, nodes, i);
      gsize len = strlen (name);
      guint32 hash = fxs_name_hash (name, len);
      if (name_index_find (index, items, nodes, name, len, hash) == G_MAXUINT32)
        ((FxsTableHead *) fxs_table_add (index, hash))->tag = i + 1;
    }
}

static guint32
name_index_find_text (const FxsNameIndex *index, const FxsItems *items, gboolean nodes,
                      const char *name)
{
  gsize len = strlen (name);
  return name_index_find (index, items, nodes, name, len, fxs_name_hash (name, len));
}

static gpointer
name_index_lookup (const FxsNameIndex *index, const FxsItems *items, gboolean nodes,
                   const char *name)
{
  guint32 i = name_index_find_text (index, items, nodes, name);
  return i != G_MAXUINT32 ? items->pdata[i] : NULL;
}

/* Filling the lazy indexes of a graph (names, users) that several threads
 * may read at once: one lock for all graphs, taken only while an index is
 * out of date, which for a finished graph is once. */
static GMutex lazy_index_lock;

/* Brings a name index up to date with the items added since the last
 * lookup (made on first use: most of a split's graphs are never looked up).
 * *@ready says, atomically, how many items are in it (plus one). */
static void
index_items_locked (FxsNameIndex *index, const FxsItems *items, gboolean nodes,
                    guint32 *n_indexed, gint *ready)
{
  if (g_atomic_int_get (ready) != (gint) items->len + 1)
    {
      name_index_update (index, items, nodes, *n_indexed);
      *n_indexed = items->len;
      g_atomic_int_set (ready, (gint) items->len + 1);
    }
}

static void
index_items (FxsNameIndex *index, const FxsItems *items, gboolean nodes, guint32 *n_indexed,
             gint *ready)
{
  if (g_atomic_int_get (ready) == (gint) items->len + 1)
    return;
  g_mutex_lock (&lazy_index_lock);
  index_items_locked (index, items, nodes, n_indexed, ready);
  g_mutex_unlock (&lazy_index_lock);
}

static void
index_nodes (FxsGraph *graph)
{
  index_items (&graph->node_index, graph->nodes, TRUE, &graph->n_nodes_indexed,
               &graph->node_index_ready);
}

static void
index_attrs (FxsGraph *graph)
{
  index_items (&graph->attr_index, graph->attrs, FALSE, &graph->n_attrs_indexed,
               &graph->attr_index_ready);
}

guint32
fxs_graph_name_position (FxsGraph *graph, gboolean nodes, const char *name, gsize len,
                         guint32 hash)
{
  if (nodes)
    index_nodes (graph);
  else
    index_attrs (graph);
  return name_index_find (nodes ? &graph->node_index : &graph->attr_index,
                          nodes ? graph->nodes : graph->attrs, nodes, name, len, hash);
}

void
fxs_graph_name_added (FxsGraph *graph, gboolean nodes, guint32 hash)
{
  FxsItems *items = nodes ? graph->nodes : graph->attrs;
  guint32 *n_indexed = nodes ? &graph->n_nodes_indexed : &graph->n_attrs_indexed;
  if (*n_indexed + 1 != items->len)
    {
      /* others appended items too: index them all, as for a lookup */
      fxs_graph_name_position (graph, nodes, "", 0, 0);
      return;
    }
  ((FxsTableHead *) fxs_table_add (nodes ? &graph->node_index : &graph->attr_index, hash))->tag
    = items->len;
  *n_indexed = items->len;
  g_atomic_int_set (nodes ? &graph->node_index_ready : &graph->attr_index_ready,
                    (gint) items->len + 1);
}

FxsNode *
fxs_graph_find_node (FxsGraph *graph, const char *name)
{
  index_nodes (graph);
  return name_index_lookup (&graph->node_index, graph->nodes, TRUE, name);
}

const FxsNode *
fxs_graph_lookup_node (const FxsGraph *graph, const char *name)
{
  /* the table is a cache: filling it does not change the graph */
  return fxs_graph_find_node ((FxsGraph *) graph, name);
}

const FxsNode *
fxs_graph_output_node (const FxsGraph *graph)
{
  return graph->output;
}

guint
fxs_graph_count_op (const FxsGraph *graph, FxsOp op)
{
  guint n = 0;
  for (guint i = 0; i < graph->nodes->len; i++)
    n += ((const FxsNode *) graph->nodes->pdata[i])->op == op;
  return n;
}

guint
fxs_graph_n_attrs (const FxsGraph *graph)
{
  return graph->attrs->len;
}

const FxsAttr *
fxs_graph_attr (const FxsGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->attrs->len, NULL);
  return graph->attrs->pdata[index];
}

const FxsAttr *
fxs_graph_lookup_attr (const FxsGraph *graph, const char *qualname)
{
  index_attrs ((FxsGraph *) graph);
  return name_index_lookup (&graph->attr_index, graph->attrs, FALSE, qualname);
}

guint32
fxs_graph_attr_position (const FxsGraph *graph, const char *qualname)
{
  index_attrs ((FxsGraph *) graph);
  return name_index_find_text (&graph->attr_index, graph->attrs, FALSE, qualname);
}

static gboolean
has_attr_target (const FxsNode *node)
{
  return node->op == FXS_OP_GET_ATTR || node->op == FXS_OP_CALL_MODULE;
}

void
fxs_graph_note_target_attr (FxsGraph *graph, guint32 index, guint32 position)
{
  g_assert (index == graph->n_target_attrs);
  if (index == graph->target_attrs_cap)
    {
      graph->target_attrs_cap = MAX (64, 2 * graph->target_attrs_cap);
      graph->target_attrs = g_renew (guint32, graph->target_attrs, graph->target_attrs_cap);
    }
  graph->target_attrs[index] = position;
  graph->n_target_attrs = index + 1;
  /* a target not found yet may be an attribute added later: look again
   * then (G_MAXUINT32 never equals the count) */
  if (position == G_MAXUINT32 && has_attr_target (graph->nodes->pdata[index]))
    graph->target_attrs_attrs = G_MAXUINT32;
  else if (graph->target_attrs_attrs != G_MAXUINT32)
    graph->target_attrs_attrs = graph->attrs->len;
}

/* Entries for the nodes added since, and for targets missing before when
 * attributes were added since; under lazy_index_lock. */
static void
update_target_attrs (FxsGraph *g)
{
  guint32 n = g->nodes->len;
  if (n > g->target_attrs_cap)
    {
      g->target_attrs_cap = n;
      g->target_attrs = g_renew (guint32, g->target_attrs, n);
    }
  guint32 from = g->target_attrs_attrs == g->attrs->len ? g->n_target_attrs : 0;
  gboolean indexed = FALSE;
  for (guint32 i = from; i < n; i++)
    {
      const FxsNode *node = g->nodes->pdata[i];
      if (i < g->n_target_attrs && g->target_attrs[i] != G_MAXUINT32)
        continue;   /* found before: positions never change */
      g->target_attrs[i] = G_MAXUINT32;
      if (!has_attr_target (node))
        continue;
      if (!indexed)
        index_items_locked (&g->attr_index, g->attrs, FALSE, &g->n_attrs_indexed,
                            &g->attr_index_ready);
      indexed = TRUE;
      g->target_attrs[i] = name_index_find_text (&g->attr_index, g->attrs, FALSE, node->target);
    }
  g->n_target_attrs = n;
  g->target_attrs_attrs = g->attrs->len;
}

const guint32 *
fxs_graph_target_attrs (FxsGraph *graph)
{
  if (g_atomic_int_get (&graph->target_attrs_ready) == (gint) graph->nodes->len + 1
      && graph->target_attrs_attrs == graph->attrs->len)
    return graph->target_attrs;
  g_mutex_lock (&lazy_index_lock);
  if (g_atomic_int_get (&graph->target_attrs_ready) != (gint) graph->nodes->len + 1
      || graph->target_attrs_attrs != graph->attrs->len)
    {
      update_target_attrs (graph);
      g_atomic_int_set (&graph->target_attrs_ready, (gint) graph->nodes->len + 1);
    }
  g_mutex_unlock (&lazy_index_lock);
  return graph->target_attrs;
}

/* ---- nodes -------------------------------------------------------------- */

FxsOp
fxs_node_op (const FxsNode *node)
{
  return (FxsOp) node->op;
}

const char *
fxs_node_name (const FxsNode *node)
{
  return node->name;
}

const char *
fxs_node_target (const FxsNode *node)
{
  return node->target;
}

const char *
fxs_node_target_short_name (const FxsNode *node)
{
  if (node->op != FXS_OP_CALL_FUNCTION)
    return node->target;
  const char *dot = strrchr (node->target, '.');
  return dot ? dot + 1 : node->target;
}

const FxsValue *
fxs_node_args (const FxsNode *node)
{
  return &node->args;
}

const FxsValue *
fxs_node_kwargs (const FxsNode *node)
{
  return &node->kwargs;
}

const char *
fxs_node_type (const FxsNode *node)
{
  return node->type_expr;
}

const FxsValue *
fxs_node_default_value (const FxsNode *node)
{
  if (node->op != FXS_OP_PLACEHOLDER || node->args.n == 0)
    return NULL;
  return &node->args.u.items[0];
}

guint
fxs_node_index (const FxsNode *node)
{
  return node->index;
}

const FxsGraph *
fxs_node_graph (const FxsNode *node)
{
  return node->graph;
}

/* ---- users --------------------------------------------------------------- */

static void
collect_def (const FxsNode *def, gpointer data)
{
  g_ptr_array_add (data, (gpointer) def);
}

static void build_users (FxsGraph *g);

static void
ensure_users (FxsGraph *g)
{
  if (g_atomic_pointer_get (&g->user_offsets))
    return;
  g_mutex_lock (&lazy_index_lock);
  if (!g->user_offsets)
    build_users (g);
  g_mutex_unlock (&lazy_index_lock);
}

static void
build_users (FxsGraph *g)
{
  guint n = g->nodes->len;
  guint32 *last_user = g_new (guint32, n);
  memset (last_user, 0xff, n * sizeof (guint32));
  guint32 *offsets = g_new0 (guint32, n + 1);
  GArray *edges = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  GPtrArray *defs = g_ptr_array_new ();

  /* Collect distinct (def, user) pairs in user order. */
  for (guint u = 0; u < n; u++)
    {
      const FxsNode *node = g->nodes->pdata[u];
      g_ptr_array_set_size (defs, 0);
      fxs_value_foreach_node (&node->args, collect_def, defs);
      fxs_value_foreach_node (&node->kwargs, collect_def, defs);
      for (guint k = 0; k < defs->len; k++)
        {
          const FxsNode *def = defs->pdata[k];
          if (last_user[def->index] == u)
            continue;
          last_user[def->index] = u;
          guint32 pair[2] = { def->index, u };
          g_array_append_vals (edges, pair, 1);
          offsets[def->index + 1]++;
        }
    }
  g_ptr_array_free (defs, TRUE);
  for (guint i = 0; i < n; i++)
    offsets[i + 1] += offsets[i];
  const FxsNode **list = g_new (const FxsNode *, edges->len ? edges->len : 1);
  guint32 *fill = g_memdup2 (offsets, (n + 1) * sizeof (guint32));
  for (guint e = 0; e < edges->len; e++)
    {
      guint32 *pair = &g_array_index (edges, guint32, 2 * e);
      list[fill[pair[0]]++] = g->nodes->pdata[pair[1]];
    }
  g_free (fill);
  g_free (last_user);
  g_array_free (edges, TRUE);
  g->user_list = list;
  g_atomic_pointer_set (&g->user_offsets, offsets);
}

void
fxs_graph_invalidate_users (FxsGraph *graph)
{
  g_clear_pointer (&graph->user_offsets, g_free);
  g_clear_pointer (&graph->user_list, g_free);
}

guint
fxs_node_n_users (const FxsNode *node)
{
  ensure_users (node->graph);
  return node->graph->user_offsets[node->index + 1] - node->graph->user_offsets[node->index];
}

const FxsNode *
fxs_node_user (const FxsNode *node, guint i)
{
  ensure_users (node->graph);
  g_return_val_if_fail (i < fxs_node_n_users (node), NULL);
  return node->graph->user_list[node->graph->user_offsets[node->index] + i];
}

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

/* ---- attributes --------------------------------------------------------- */

const char *
fxs_attr_name (const FxsAttr *attr)
{
  return attr->name;
}

FxsAttrKind
fxs_attr_kind (const FxsAttr *attr)
{
  return (FxsAttrKind) attr->kind;
}

const char *
fxs_attr_class (const FxsAttr *attr)
{
  return attr->class_name;
}

const FxsTensorMeta *
fxs_attr_tensor (const FxsAttr *attr)
{
  return attr->tensor;
}

gint64
fxs_attr_bytes (const FxsAttr *attr)
{
  if (attr->kind != FXS_ATTR_MODULE)
    {
      gint64 b = attr->tensor ? fxs_tensor_bytes (attr->tensor) : -1;
      return b < 0 ? 0 : b;
    }
  gint64 total = 0;
  gsize plen = strlen (attr->name);
  const FxsItems *attrs = attr->graph->attrs;
  for (guint i = 0; i < attrs->len; i++)
    {
      const FxsAttr *a = attrs->pdata[i];
      if ((a->kind == FXS_ATTR_PARAMETER || a->kind == FXS_ATTR_BUFFER) && a->tensor
          && strncmp (a->name, attr->name, plen) == 0 && a->name[plen] == '.')
        {
          gint64 b = fxs_tensor_bytes (a->tensor);
          if (b > 0)
            total += b;
        }
    }
  return total;
}

/* ---- building ----------------------------------------------------------- */

typedef struct {
  const FxsGraph *graph;
  guint limit;          /* references must be to nodes before this index */
  const FxsNode *bad;
} RefCheck;

static void
check_ref (const FxsNode *def, gpointer data)
{
  RefCheck *c = data;
  if (c->bad == NULL && (def->graph != c->graph || def->index >= c->limit))
    c->bad = def;
}

FxsNode *
fxs_graph_append_node_unchecked (FxsGraph *graph, FxsOp op, const char *name,
                                 const char *target, const FxsValue *args,
                                 const FxsValue *kwargs)
{
  return fxs_graph_append_node_at (graph, fxs_arena_alloc (&graph->arena, sizeof (FxsNode)), op,
                                   name, target, args, kwargs);
}

FxsNode *
fxs_graph_append_node_at (FxsGraph *graph, FxsNode *node, FxsOp op, const char *name,
                          const char *target, const FxsValue *args, const FxsValue *kwargs)
{
  *node = (FxsNode) { 0 };
  node->graph = graph;
  node->op = op;
  node->name = name;
  node->target = target;
  if (args)
    node->args = *args;
  else
    node->args.kind = FXS_VALUE_TUPLE;
  if (kwargs)
    node->kwargs = *kwargs;
  else
    node->kwargs.kind = FXS_VALUE_DICT;
  node->index = graph->nodes->len;
  fxs_items_add (graph->nodes, node);
  if (op == FXS_OP_OUTPUT)
    graph->output = node;
  if (graph->user_offsets)
    fxs_graph_invalidate_users (graph);
  return node;
}

FxsNode *
fxs_graph_add_node (FxsGraph *graph, FxsOp op, const char *name, const char *target,
                    const FxsValue *args, const FxsValue *kwargs, GError **error)
{
  g_return_val_if_fail (graph != NULL && name != NULL && target != NULL, NULL);
  if (*name == '\0')
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH, "a node has an empty name");
      return NULL;
    }
  if (fxs_graph_find_node (graph, name))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH, "node '%s': duplicate node name", name);
      return NULL;
    }
  if (graph->output)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                   op == FXS_OP_OUTPUT ? "node '%s': a second output node (the first is '%s')"
                                       : "node '%s': comes after the output node '%s'",
                   name, graph->output->name);
      return NULL;
    }
  if (args && args->kind != FXS_VALUE_TUPLE)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH, "node '%s': args must be a tuple", name);
      return NULL;
    }
  if (kwargs && kwargs->kind != FXS_VALUE_DICT)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH, "node '%s': kwargs must be a dict", name);
      return NULL;
    }
  if (kwargs)
    for (guint i = 0; i < kwargs->n; i++)
      if (kwargs->u.items[2 * i].kind != FXS_VALUE_STRING)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                       "node '%s': kwargs keys must be strings", name);
          return NULL;
        }
  RefCheck check = { graph, graph->nodes->len, NULL };
  if (args)
    fxs_value_foreach_node (args, check_ref, &check);
  if (kwargs)
    fxs_value_foreach_node (kwargs, check_ref, &check);
  if (check.bad)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                   "node '%s': refers to '%s', which is not an earlier node of this graph",
                   name, check.bad->name);
      return NULL;
    }
  return fxs_graph_append_node_unchecked (graph, op, fxs_graph_strdup (graph, name),
                                          fxs_graph_intern (graph, target), args, kwargs);
}

void
fxs_node_set_type (FxsNode *node, const char *type_expr)
{
  node->type_expr = fxs_graph_intern (node->graph, type_expr);
}

/* Metadata may be shared between graphs, so setters copy it first. */
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

FxsAttr *
fxs_graph_add_attr (FxsGraph *graph, const char *qualname, FxsAttrKind kind,
                    const char *class_name, const FxsTensorMeta *tensor, GError **error)
{
  if (fxs_graph_lookup_attr (graph, qualname))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH, "attribute '%s': duplicate entry", qualname);
      return NULL;
    }
  return fxs_graph_append_attr_unchecked (graph, qualname, kind,
                                          fxs_graph_intern (graph, class_name), tensor);
}

FxsAttr *
fxs_graph_append_attr_unchecked (FxsGraph *graph, const char *qualname, FxsAttrKind kind,
                                 const char *class_name, const FxsTensorMeta *tensor)
{
  return fxs_graph_append_attr_shared (graph, fxs_graph_strdup (graph, qualname), kind,
                                       class_name, tensor);
}

FxsAttr *
fxs_graph_append_attr_shared (FxsGraph *graph, const char *qualname, FxsAttrKind kind,
                              const char *class_name, const FxsTensorMeta *tensor)
{
  return fxs_graph_append_attr_at (graph, fxs_arena_alloc (&graph->arena, sizeof (FxsAttr)),
                                   qualname, kind, class_name, tensor);
}

FxsAttr *
fxs_graph_append_attr_at (FxsGraph *graph, FxsAttr *a, const char *qualname, FxsAttrKind kind,
                          const char *class_name, const FxsTensorMeta *tensor)
{
  a->name = qualname;
  a->kind = kind;
  a->class_name = class_name;
  a->tensor = tensor;
  a->graph = graph;
  fxs_items_add (graph->attrs, a);
  return a;
}
