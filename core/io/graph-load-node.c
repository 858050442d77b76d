/* Loading graph files: one node or attribute entry at a time, with its
 * arguments and metadata (docs/graph-format.md, "Nodes", "Meta",
 * "Attributes"). */
#include "graph-load-private.h"

#include <string.h>

enum { TENSOR, TENSORS, FREE_SYMBOLS, SYMBOL, EXTRA, N_META_MEMBERS };

/* Meta members with a meaning of their own; the rest (EXTRA) is free-form. */
static const FxsMember meta_members[N_META_MEMBERS] = {
  [TENSOR] = FXS_MEMBER ("tensor", FXS_MEMBER_ANY),
  [TENSORS] = FXS_MEMBER ("tensors", FXS_MEMBER_ARRAY,
                          .what = "\"tensors\" must be an array of tensor metadata"),
  [FREE_SYMBOLS] = FXS_MEMBER ("free_symbols", FXS_MEMBER_ARRAY,
                               .what = "\"free_symbols\" must be an array of strings"),
  [SYMBOL] = FXS_MEMBER ("symbol", FXS_MEMBER_TEXT),
  [EXTRA] = FXS_MEMBER ("", FXS_MEMBER_OTHERS),
};
#define is_reserved_meta_key(key) (fxs_load_member_index ((key), meta_members, EXTRA) < EXTRA)

/* Members of node metadata converted into the caller's room (the graph
 * keeps a copy only of the first of equal metas): more go to the graph. */
#define META_ROOM 8

/* Memory for @n items of @size: @room (@room_n items, the caller's
 * temporary) when they fit, else the graph's. */
static inline gpointer
temporary (FxsLoader *l, gpointer room, guint room_n, guint n, gsize size)
{
  return n <= room_n ? room : fxs_arena_alloc (&l->graph->arena, n * size);
}

/* A JSON object as a dict with string keys (kwargs, free-form meta), less
 * its @n_reserved reserved meta keys; its items in @room (2 * META_ROOM
 * values) when they fit, unless it is NULL. */
static gboolean
convert_object_as_dict (FxsLoader *l, const FxsJson *obj, guint n_reserved, FxsValue *out,
                        FxsValue *room)
{
  guint n = obj->n - n_reserved;
  FxsValue *items;
  if (room && n <= META_ROOM)
    /* zeroed as the arena's memory is: a scalar leaves its n unset, and
     * the graph compares and hashes whole values */
    items = memset (room, 0, 2 * n * sizeof *items);
  else
    items = n ? fxs_arena_alloc (&l->graph->arena, 2 * n * sizeof *items) : NULL;
  guint k = 0;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i];
      if (n_reserved && is_reserved_meta_key (key))
        continue;
      items[2 * k].kind = FXS_VALUE_STRING;
      items[2 * k].n = key->n;
      /* keys repeat from node to node: share them unless they hold a NUL */
      items[2 * k].u.s = is_text (key) ? fxs_load_share (l, key)
                                        : fxs_load_copy_text (l->graph, key);
      if (!fxs_load_value (l, key + 1, &items[2 * k + 1]))
        return FALSE;
      k++;
    }
  out->kind = FXS_VALUE_DICT;
  out->n = n;
  out->u.items = items;
  return TRUE;
}

/* ---- tensor metadata -------------------------------------------------------- */

/* Tensors of a higher rank are rare: not shared (fxs_meta_share_tensor). */
#define SMALL_RANK 16

#define SHAPE_MUST_BE "a shape must be an array"

/* Tensor metadata from a "shape" array (checked by fxs_load_members()) of
 * sizes (ints >= 0), symbolic sizes (strings) or unknown (null), and an
 * optional "dtype" (a text or null). */
static gboolean
convert_shape_and_dtype (FxsLoader *l, const FxsJson *shape, const FxsJson *dtype,
                         const FxsTensorMeta **out)
{
  gint64 small_dims[SMALL_RANK];
  const char *small_symbols[SMALL_RANK];
  gboolean small = shape->n <= SMALL_RANK;
  gint64 *dims = temporary (l, small_dims, SMALL_RANK, shape->n, sizeof *dims);
  const char **symbols = temporary (l, small_symbols, SMALL_RANK, shape->n, sizeof *symbols);
  gboolean symbolic = FALSE;
  FxsTensorMeta t = { .rank = shape->n, .dims = dims };
  for (guint d = 0; d < shape->n; d++)
    {
      const FxsJson *size = &shape->u.items[d];
      symbols[d] = NULL;
      if (size->type == FXS_JSON_NUMBER && fxs_load_is_integer (size))
        {
          if (!fxs_load_integer (l, size, &dims[d]))
            return FALSE;
          if (dims[d] < 0)
            return fxs_load_fail (l, FXS_ERROR_FORMAT, size, "a size cannot be negative");
          continue;
        }
      dims[d] = -1;
      if (size->type == FXS_JSON_NULL)
        continue;
      if (size->type != FXS_JSON_STRING)
        return fxs_load_fail (l, FXS_ERROR_FORMAT, size,
                              "a size must be an int, a symbolic expression (a string) or "
                              "null, not %s",
                              fxs_load_type_name (size->type));
      if (!fxs_load_check_text (l, size, "a symbolic size"))
        return FALSE;
      symbols[d] = fxs_load_intern (l, size);
      symbolic = TRUE;
    }
  if (dtype && dtype->type != FXS_JSON_NULL)
    {
      if (!fxs_load_check_text (l, dtype, "a dtype"))
        return FALSE;
      t.dtype = fxs_load_intern (l, dtype);
    }
  t.symbols = symbolic ? symbols : NULL;
  *out = small ? fxs_meta_share_tensor (l->share, l->graph, &t)
               : fxs_arena_memdup (&l->graph->arena, &t, sizeof t);
  return TRUE;
}

/* {"shape": [...], "dtype": "..."} */
static gboolean
convert_tensor (FxsLoader *l, const FxsJson *obj, const FxsTensorMeta **out)
{
  if (!fxs_load_expect (l, obj, FXS_JSON_OBJECT,
                        "tensor metadata must be an object {\"shape\": [...], \"dtype\": ...}"))
    return FALSE;
  static const FxsMember members[] = {
    FXS_MEMBER ("shape", FXS_MEMBER_ARRAY, .missing = "tensor metadata without a \"shape\"",
                .what = SHAPE_MUST_BE),
    FXS_MEMBER ("dtype", FXS_MEMBER_ANY),
  };
  const FxsJson *m[G_N_ELEMENTS (members)];
  return fxs_load_members (l, obj, members, G_N_ELEMENTS (members), m)
         && convert_shape_and_dtype (l, m[0], m[1], out);
}

/* Converted on the stack, stored once per distinct value. */
static gboolean
convert_meta (FxsLoader *l, const FxsJson *obj, const FxsNodeMeta **out)
{
  if (!fxs_load_expect (l, obj, FXS_JSON_OBJECT, "\"meta\" must be an object"))
    return FALSE;
  *out = NULL;
  FxsNodeMeta m = { 0 };
  const FxsTensorMeta *room[META_ROOM];
  const char *symbols_room[META_ROOM];
  FxsValue dict, items[2 * META_ROOM];
  const FxsJson *f[N_META_MEMBERS];
  if (!fxs_load_members (l, obj, meta_members, N_META_MEMBERS, f))
    return FALSE;
  if (f[TENSOR] && f[TENSORS])
    /* at the later key */
    return fxs_load_fail (l, FXS_ERROR_FORMAT, MAX (f[TENSOR], f[TENSORS]) - 1,
                          "\"tensor\" and \"tensors\" together: a node produces one or a tuple");
  if (f[TENSOR] || f[TENSORS])
    {
      /* one tensor, or the tuple's */
      m.is_tuple = f[TENSORS] != NULL;
      m.n_tensors = m.is_tuple ? f[TENSORS]->n : 1;
      const FxsTensorMeta **tensors = temporary (l, room, META_ROOM, m.n_tensors, sizeof *room);
      for (guint i = 0; i < m.n_tensors; i++)
        if (!convert_tensor (l, m.is_tuple ? &f[TENSORS]->u.items[i] : f[TENSOR], &tensors[i]))
          return FALSE;
      m.tensors = tensors;
    }
  const FxsJson *free_symbols = f[FREE_SYMBOLS];
  if (free_symbols)
    {
      const char **symbols = temporary (l, symbols_room, META_ROOM, free_symbols->n,
                                        sizeof *symbols);
      for (guint i = 0; i < free_symbols->n; i++)
        {
          if (!fxs_load_check_text (l, &free_symbols->u.items[i], "a free symbol"))
            return FALSE;
          symbols[i] = fxs_load_intern (l, &free_symbols->u.items[i]);
        }
      m.free_symbols = symbols;
      m.n_free_symbols = free_symbols->n;
    }
  if (f[SYMBOL])
    m.symbol = fxs_load_intern (l, f[SYMBOL]);
  if (f[EXTRA])
    {
      guint n_reserved = !!f[TENSOR] + !!f[TENSORS] + !!f[FREE_SYMBOLS] + !!f[SYMBOL];
      if (!convert_object_as_dict (l, obj, n_reserved, &dict, items))
        return FALSE;
      m.extra = &dict;
    }
  if (obj->n > 0)
    *out = fxs_meta_share_node (l->share, l->graph, &m);
  return TRUE;
}

/* ---- nodes --------------------------------------------------------------------- */

enum { NAME, OP, TARGET, ARGS, KWARGS, TYPE, META, N_NODE_MEMBERS };

/* What is checked of every node, built or only checked for shape; the rest
 * is checked as it is converted. */
static const FxsMember node_members[N_NODE_MEMBERS] = {
  [NAME] = FXS_MEMBER ("name", FXS_MEMBER_NODE_NAME, .missing = "a node without \"name\""),
  [OP] = FXS_MEMBER ("op", FXS_MEMBER_TEXT, .missing = "no \"op\""),
  [TARGET] = FXS_MEMBER ("target", FXS_MEMBER_TEXT, .missing = "no \"target\""),
  [ARGS] = FXS_MEMBER ("args", FXS_MEMBER_ANY),
  [KWARGS] = FXS_MEMBER ("kwargs", FXS_MEMBER_ANY),
  [TYPE] = FXS_MEMBER ("type", FXS_MEMBER_ANY),
  [META] = FXS_MEMBER ("meta", FXS_MEMBER_ANY),
};

/* fxs_op_from_string() by length first: one comparison per node (strcmp()
 * was 0.6% of `fxsplit split` at 10^5 nodes). */
static gboolean
op_from_json (const FxsJson *j, FxsOp *op)
{
  static const struct { const char *name; FxsOp op; } ops[] = {
    { "placeholder", FXS_OP_PLACEHOLDER }, { "get_attr", FXS_OP_GET_ATTR },
    { "call_function", FXS_OP_CALL_FUNCTION }, { "call_method", FXS_OP_CALL_METHOD },
    { "call_module", FXS_OP_CALL_MODULE }, { "output", FXS_OP_OUTPUT },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (is_key (j, ops[i].name))
      {
        *op = ops[i].op;
        return TRUE;
      }
  return FALSE;
}

/* A node's name is looked up once its values are converted: by then the
 * slot of the name index that was prefetched when the name was known is in
 * the cache (a miss per node was 9% of `fxsplit split` at 10^5 nodes). */
static gboolean
check_unique_name (FxsLoader *l, guint32 name_hash)
{
  const FxsJson *name = l->node_name;
  guint32 same = fxs_graph_name_position (l->graph, TRUE, name->u.s, name->n, name_hash);
  if (same != G_MAXUINT32)
    return fxs_load_fail (l, FXS_ERROR_GRAPH, name,
                          "duplicate node name (the first is nodes[%u])", (guint) same);
  return TRUE;
}

static gboolean
check_node_rules (FxsLoader *l, const FxsJson *obj, FxsOp op)
{
  FxsGraph *g = l->graph;
  if (!g->output)
    return TRUE;
  const char *q = fxs_load_quoted (l, g->output->name, strlen (g->output->name));
  if (op == FXS_OP_OUTPUT)
    return fxs_load_fail (l, FXS_ERROR_GRAPH, obj, "a second output node (the first is %s)",
                          q);
  return fxs_load_fail (l, FXS_ERROR_GRAPH, obj,
                        "comes after the output node %s, which must be the last node", q);
}

static gboolean
convert_args (FxsLoader *l, const FxsJson *list, FxsOp op, FxsValue *args)
{
  if (!list)
    return TRUE;
  if (!fxs_load_expect (l, list, FXS_JSON_ARRAY, "\"args\" must be an array"))
    return FALSE;
  if (op == FXS_OP_PLACEHOLDER && list->n > 1)
    return fxs_load_fail (l, FXS_ERROR_FORMAT, list,
                          "a placeholder has at most one arg (its default value), not %u",
                          list->n);
  return fxs_load_items (l, list, FXS_VALUE_TUPLE, args);
}

static gboolean
convert_kwargs (FxsLoader *l, const FxsJson *obj, FxsValue *kwargs)
{
  return !obj || (fxs_load_expect (l, obj, FXS_JSON_OBJECT, "\"kwargs\" must be an object")
                  && convert_object_as_dict (l, obj, 0, kwargs, NULL));
}

gboolean
fxs_load_node (FxsLoader *l, const FxsJsonItem *item, const FxsJson *obj, gboolean build)
{
  const FxsJson *f[N_NODE_MEMBERS];
  FxsOp op;
  if (build && l->forward.name)
    {
      /* after a dangling reference, only look for the node it names */
      const FxsJson *name = fxs_json_member (obj, "name");
      if (!name || !is_text (name) || strcmp (name->u.s, l->forward.name) != 0)
        return TRUE;
      g_string_append_printf (l->forward.message,
                              ", which comes later (nodes[%" G_GUINT64_FORMAT "]); "
                              "nodes may only refer to earlier nodes", item->index);
      return fxs_json_reader_fail_message (l->reader, FXS_ERROR_GRAPH, l->forward.pos,
                                           l->forward.message->str);
    }
  if (!fxs_load_members (l, obj, node_members, N_NODE_MEMBERS, f))
    return FALSE;
  if (!op_from_json (f[OP], &op))
    return fxs_load_fail (l, FXS_ERROR_FORMAT, f[OP],
                          "unknown op %s (expected placeholder, get_attr, call_function, "
                          "call_method, call_module or output)",
                          fxs_load_quoted (l, f[OP]->u.s, f[OP]->n));
  if (!build)
    return TRUE;
  guint32 name_hash = fxs_name_hash (f[NAME]->u.s, f[NAME]->n);
  fxs_graph_name_prefetch (l->graph, TRUE, name_hash);
  if (!check_node_rules (l, obj, op))
    return FALSE;
  guint32 target_hash = fxs_name_hash (f[TARGET]->u.s, f[TARGET]->n);
  /* absent: () and {} */
  FxsValue args = { .kind = FXS_VALUE_TUPLE }, kwargs = { .kind = FXS_VALUE_DICT };
  const FxsNodeMeta *meta = NULL;
  /* a reference to a later node is reported later, a duplicate name now */
  if (!convert_args (l, f[ARGS], op, &args) || !convert_kwargs (l, f[KWARGS], &kwargs))
    return l->forward.name && check_unique_name (l, name_hash);
  if (f[TYPE] && f[TYPE]->type != FXS_JSON_NULL
      && !fxs_load_check_text (l, f[TYPE], "\"type\""))
    return FALSE;
  if (f[META] && !convert_meta (l, f[META], &meta))
    return l->forward.name && check_unique_name (l, name_hash);
  if (!check_unique_name (l, name_hash))
    return FALSE;
  const char *name = fxs_arena_strndup (&l->graph->arena, f[NAME]->u.s, f[NAME]->n);
  FxsNode *node = fxs_graph_append_node_at (l->graph, NULL, op, name,
                                            fxs_load_share_hashed (l, f[TARGET], target_hash,
                                                                   FALSE),
                                            &args, &kwargs);
  if (f[TYPE] && f[TYPE]->type == FXS_JSON_STRING)
    node->type_expr = fxs_load_share (l, f[TYPE]);
  node->meta = meta;
  fxs_graph_name_added (l->graph, TRUE, name_hash);
  l->recent[name_hash % G_N_ELEMENTS (l->recent)] = node;
  return TRUE;
}

gboolean
fxs_load_end_nodes (FxsLoader *l, gboolean build, gint64 pos)
{
  if (!build)
    return TRUE;
  if (l->forward.name)
    {
      g_string_append (l->forward.message, ", which is not a node of this graph");
      return fxs_json_reader_fail_message (l->reader, FXS_ERROR_GRAPH, l->forward.pos,
                                           l->forward.message->str);
    }
  if (!l->graph->output)
    return fxs_json_reader_fail (l->reader, FXS_ERROR_GRAPH, pos,
                                 "the graph has no output node (it must end with one)");
  return TRUE;
}

/* ---- attributes ------------------------------------------------------------------ */

gboolean
fxs_load_attr (FxsLoader *l, const FxsJsonItem *item, const FxsJson *obj, gboolean build)
{
  static const FxsMember members[] = {
    FXS_MEMBER ("kind", FXS_MEMBER_TEXT, .missing = "an attribute without \"kind\""),
    FXS_MEMBER ("class", FXS_MEMBER_TEXT),
    FXS_MEMBER ("shape", FXS_MEMBER_ARRAY, .what = SHAPE_MUST_BE),
    FXS_MEMBER ("dtype", FXS_MEMBER_ANY),
  };
  const FxsJson *m[G_N_ELEMENTS (members)];
  if (item->key_len == 0 || strlen (item->key) != item->key_len)
    return fxs_load_fail_at (l, FXS_ERROR_FORMAT, item->key_pos, NULL,
                             "an attribute name must be non-empty and without NUL");
  /* the reader leaves duplicate keys of a built table to the table itself */
  guint32 name_hash = build ? l->attr_hash : 0;
  if (build && fxs_graph_name_position (l->graph, FALSE, item->key, item->key_len, name_hash)
                 != G_MAXUINT32)
    return fxs_load_fail_at (l, FXS_ERROR_FORMAT, item->key_pos, NULL, "duplicate key");
  if (!fxs_load_members (l, obj, members, G_N_ELEMENTS (members), m))
    return FALSE;
  const FxsJson *kind = m[0], *cls = m[1], *shape = m[2], *dtype = m[3];
  FxsAttrKind k;
  if (!fxs_attr_kind_from_string (kind->u.s, &k))
    return fxs_load_fail (l, FXS_ERROR_FORMAT, kind,
                          "unknown attribute kind %s (expected parameter, buffer, constant, "
                          "module or object)", fxs_load_quoted (l, kind->u.s, kind->n));
  if (dtype && !shape)
    /* at its key: object items are key, value, key, value... */
    return fxs_load_fail_at (l, FXS_ERROR_FORMAT, dtype[-1].pos, dtype,
                             "\"dtype\" without \"shape\"");
  if (!build)
    return TRUE;
  const FxsTensorMeta *t = NULL;
  if (shape && !convert_shape_and_dtype (l, shape, dtype, &t))
    return FALSE;
  /* unique: checked above */
  const char *class_name = cls ? fxs_load_share (l, cls) : NULL;
  const char *name = fxs_arena_strndup (&l->graph->arena, item->key, item->key_len);
  fxs_graph_append_attr_at (l->graph, NULL, name, k, class_name, t);
  fxs_graph_name_added (l->graph, FALSE, name_hash);
  return TRUE;
}
