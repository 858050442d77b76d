/* Loading graph files: one node or attribute entry at a time, with its
 * arguments and metadata (docs/graph-format.md, "Nodes", "Meta",
 * "Attributes"). */
#include "graph-load-private.h"

#include <string.h>

/* Meta members with a meaning of their own; the rest is free-form. */
static gboolean
is_reserved_meta_key (const FxsJson *key)
{
  return is_key (key, "tensor") || is_key (key, "tensors") || is_key (key, "free_symbols")
         || is_key (key, "symbol");
}

/* Members of node metadata converted into the caller's room (the graph
 * keeps a copy only of the first of equal metas): more go to the graph. */
#define META_ROOM 8

/* Memory for @n items of @size: @room (@room_n items, the caller's
 * temporary) when they fit, else the graph's. */
static inline gpointer
temporary (FxsLoadConv *c, gpointer room, guint room_n, guint n, gsize size)
{
  return n <= room_n ? room : fxs_arena_alloc (&c->graph->arena, n * size);
}

/* A JSON object as a dict with string keys (kwargs, free-form meta); its
 * items in @room (2 * META_ROOM values) when they fit, unless it is NULL. */
static gboolean
convert_object_as_dict (FxsLoadConv *c, const FxsJson *obj, gboolean skip_reserved, FxsValue *out,
                        FxsValue *room, const FxsJsonPath *path)
{
  guint n = 0;
  for (guint i = 0; i < obj->n; i++)
    n += !(skip_reserved && is_reserved_meta_key (&obj->u.items[2 * i]));
  FxsValue *items;
  if (room && n <= META_ROOM)
    /* zeroed as the arena's memory is: a scalar leaves its n unset, and
     * the graph compares and hashes whole values */
    items = memset (room, 0, 2 * n * sizeof *items);
  else
    items = n ? fxs_arena_alloc (&c->graph->arena, 2 * n * sizeof *items) : NULL;
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
      items[2 * k].u.s = is_text (key) ? fxs_load_share (c, key)
                                        : fxs_load_copy_text (c->graph, key);
      if (!fxs_load_value (c, key + 1, &items[2 * k + 1], &p))
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

/* A shape: sizes (ints >= 0), symbolic sizes (strings) or unknown (null),
 * into @dims and @symbols (shape->n entries each). */
static gboolean
convert_shape (FxsLoadConv *c, const FxsJson *shape, gint64 *dims, const char **symbols,
               gboolean *symbolic, const FxsJsonPath *path)
{
  for (guint d = 0; d < shape->n; d++)
    {
      const FxsJson *size = &shape->u.items[d];
      FxsJsonPath p = { path, NULL, 0, d };
      symbols[d] = NULL;
      if (size->type == FXS_JSON_NUMBER && fxs_load_is_integer (size))
        {
          if (!fxs_load_integer (c, size, &p, &dims[d]))
            return FALSE;
          if (dims[d] < 0)
            return fxs_load_fail (c, FXS_ERROR_FORMAT, size, &p, "a size cannot be negative");
          continue;
        }
      dims[d] = -1;
      if (size->type == FXS_JSON_NULL)
        continue;
      if (size->type != FXS_JSON_STRING)
        return fxs_load_fail (c, FXS_ERROR_FORMAT, size, &p,
                              "a size must be an int, a symbolic expression (a string) or "
                              "null, not %s",
                              fxs_load_type_name (size->type));
      if (!fxs_load_check_text (c, size, &p, "a symbolic size"))
        return FALSE;
      symbols[d] = fxs_load_intern (c, size);
      *symbolic = TRUE;
    }
  return TRUE;
}

static gboolean
convert_dtype (FxsLoadConv *c, const FxsJson *dtype, const char **out, const FxsJsonPath *path)
{
  if (dtype->type == FXS_JSON_NULL)
    {
      *out = NULL;
      return TRUE;
    }
  if (!fxs_load_check_text (c, dtype, path, "a dtype"))
    return FALSE;
  *out = fxs_load_intern (c, dtype);
  return TRUE;
}

#define check_shape(c, shape, path) \
  fxs_load_expect ((c), (shape), FXS_JSON_ARRAY, (path), "a shape must be an array")

/* Tensor metadata from a "shape" array (check_shape) and an optional
 * "dtype". */
static gboolean
convert_shape_and_dtype (FxsLoadConv *c, const FxsJson *shape, const FxsJson *dtype,
                         const FxsJsonPath *pshape, const FxsJsonPath *pdtype,
                         const FxsTensorMeta **out)
{
  gint64 small_dims[SMALL_RANK];
  const char *small_symbols[SMALL_RANK];
  gboolean small = shape->n <= SMALL_RANK;
  gint64 *dims = temporary (c, small_dims, SMALL_RANK, shape->n, sizeof *dims);
  const char **symbols = temporary (c, small_symbols, SMALL_RANK, shape->n, sizeof *symbols);
  gboolean symbolic = FALSE;
  FxsTensorMeta t = { .rank = shape->n, .dims = dims };
  if (!convert_shape (c, shape, dims, symbols, &symbolic, pshape)
      || (dtype && !convert_dtype (c, dtype, &t.dtype, pdtype)))
    return FALSE;
  t.symbols = symbolic ? symbols : NULL;
  *out = small ? fxs_meta_share_tensor (c->loader->share, c->graph, &t)
               : fxs_arena_memdup (&c->graph->arena, &t, sizeof t);
  return TRUE;
}

/* {"shape": [...], "dtype": "..."} */
static gboolean
convert_tensor (FxsLoadConv *c, const FxsJson *obj, const FxsTensorMeta **out,
                const FxsJsonPath *path)
{
  if (!fxs_load_expect (c, obj, FXS_JSON_OBJECT, path,
                        "tensor metadata must be an object {\"shape\": [...], \"dtype\": ...}"))
    return FALSE;
  const FxsJson *shape = NULL, *dtype = NULL;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i], *v = key + 1;
      if (is_key (key, "shape"))
        shape = v;
      else if (is_key (key, "dtype"))
        dtype = v;
      else
        return fxs_load_unknown_member (c, key, path, "\"shape\", \"dtype\"");
    }
  if (!shape)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, path, "tensor metadata without a \"shape\"");
  FxsJsonPath ps = { path, "shape", 5, 0 }, pd = { path, "dtype", 5, 0 };
  return check_shape (c, shape, &ps) && convert_shape_and_dtype (c, shape, dtype, &ps, &pd, out);
}

static gboolean
convert_tensor_list (FxsLoadConv *c, const FxsJson *list, FxsNodeMeta *m,
                     const FxsTensorMeta **room, const FxsJsonPath *path)
{
  if (!fxs_load_expect (c, list, FXS_JSON_ARRAY, path,
                        "\"tensors\" must be an array of tensor metadata"))
    return FALSE;
  const FxsTensorMeta **tensors = temporary (c, room, META_ROOM, list->n, sizeof *tensors);
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
convert_symbols (FxsLoadConv *c, const FxsJson *list, FxsNodeMeta *m, const char **room,
                 const FxsJsonPath *path)
{
  if (!fxs_load_expect (c, list, FXS_JSON_ARRAY, path,
                        "\"free_symbols\" must be an array of strings"))
    return FALSE;
  const char **symbols = temporary (c, room, META_ROOM, list->n, sizeof *symbols);
  for (guint i = 0; i < list->n; i++)
    {
      FxsJsonPath p = { path, NULL, 0, i };
      if (!fxs_load_check_text (c, &list->u.items[i], &p, "a free symbol"))
        return FALSE;
      symbols[i] = fxs_load_intern (c, &list->u.items[i]);
    }
  m->free_symbols = symbols;
  m->n_free_symbols = list->n;
  return TRUE;
}

/* Converted on the stack, stored once per distinct value. */
static gboolean
convert_meta (FxsLoadConv *c, const FxsJson *obj, const FxsNodeMeta **out, const FxsJsonPath *path)
{
  if (!fxs_load_expect (c, obj, FXS_JSON_OBJECT, path, "\"meta\" must be an object"))
    return FALSE;
  *out = NULL;
  FxsNodeMeta m = { 0 };
  const FxsTensorMeta *tensors[META_ROOM];
  const char *symbols[META_ROOM];
  FxsValue dict, items[2 * META_ROOM];
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
            return fxs_load_fail (c, FXS_ERROR_FORMAT, key, path,
                                  "\"tensor\" and \"tensors\" together: a node produces "
                                  "one or a tuple");
          tensor_key = key;
          if (key->n == 6)
            {
              ok = convert_tensor (c, v, &tensors[0], &p);
              m.tensors = tensors;
              m.n_tensors = 1;
            }
          else
            ok = convert_tensor_list (c, v, &m, tensors, &p);
        }
      else if (is_key (key, "free_symbols"))
        ok = convert_symbols (c, v, &m, symbols, &p);
      else if (is_key (key, "symbol"))
        {
          ok = fxs_load_check_text (c, v, &p, "\"symbol\"");
          if (ok)
            m.symbol = fxs_load_intern (c, v);
        }
      else
        have_extra = TRUE;
      if (!ok)
        return FALSE;
    }
  if (have_extra)
    {
      if (!convert_object_as_dict (c, obj, TRUE, &dict, items, path))
        return FALSE;
      m.extra = &dict;
    }
  if (obj->n > 0)
    *out = fxs_meta_share_node (c->loader->share, c->graph, &m);
  return TRUE;
}

/* ---- nodes --------------------------------------------------------------------- */

typedef struct {
  const FxsJson *name, *op, *target, *args, *kwargs, *type, *meta;
} NodeFields;

static const char node_members[] =
  "\"name\", \"op\", \"target\", \"args\", \"kwargs\", \"type\", \"meta\"";

static gboolean
split_node_fields (FxsLoadConv *c, const FxsJson *obj, NodeFields *f)
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
          return fxs_load_unknown_member (c, key, NULL, node_members);
        }
      *slot = v;
    }
  if (!f->name)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, NULL, "a node without \"name\"");
  return fxs_load_check_text (c, f->name, &(FxsJsonPath) { NULL, "name", 4, 0 }, "\"name\"");
}

/* fxs_op_from_string() by length first: one comparison per node. */
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

/* The parts every node needs, checked for nodes that are built and nodes
 * that are only checked for shape alike. */
static gboolean
check_node_head (FxsLoadConv *c, const FxsJson *obj, const NodeFields *f, FxsOp *op)
{
  c->node_name = f->name;
  if (!f->op)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, NULL, "no \"op\"");
  if (!f->target)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, NULL, "no \"target\"");
  FxsJsonPath pop = { NULL, "op", 2, 0 }, pt = { NULL, "target", 6, 0 };
  if (!fxs_load_check_text (c, f->op, &pop, "\"op\""))
    return FALSE;
  if (!op_from_json (f->op, op))
    return fxs_load_fail (c, FXS_ERROR_FORMAT, f->op, &pop,
                          "unknown op %s (expected placeholder, get_attr, call_function, "
                          "call_method, call_module or output)",
                          fxs_load_quoted (c, f->op->u.s, f->op->n));
  return fxs_load_check_text (c, f->target, &pt, "\"target\"");
}

/* A node's name is looked up once its values are converted: by then the
 * slot of the name index that was prefetched when the name was known is in
 * the cache (a miss per node was 9% of `fxsplit split` at 10^5 nodes). */
static gboolean
check_unique_name (FxsLoadConv *c, guint32 name_hash)
{
  const FxsJson *name = c->node_name;
  guint32 same = fxs_graph_name_position (c->graph, TRUE, name->u.s, name->n, name_hash);
  FxsJsonPath pn = { NULL, "name", 4, 0 };
  if (same != G_MAXUINT32)
    return fxs_load_fail (c, FXS_ERROR_GRAPH, name, &pn,
                          "duplicate node name (the first is nodes[%u])", (guint) same);
  return TRUE;
}

static gboolean
check_node_rules (FxsLoadConv *c, const FxsJson *obj, FxsOp op)
{
  FxsGraph *g = c->graph;
  if (!g->output)
    return TRUE;
  const char *q = fxs_load_quoted (c, g->output->name, strlen (g->output->name));
  if (op == FXS_OP_OUTPUT)
    return fxs_load_fail (c, FXS_ERROR_GRAPH, obj, NULL, "a second output node (the first is %s)",
                          q);
  return fxs_load_fail (c, FXS_ERROR_GRAPH, obj, NULL,
                        "comes after the output node %s, which must be the last node", q);
}

static gboolean
convert_args (FxsLoadConv *c, const NodeFields *f, FxsOp op, FxsValue *args)
{
  args->kind = FXS_VALUE_TUPLE;
  if (!f->args)
    return TRUE;
  FxsJsonPath p = { NULL, "args", 4, 0 };
  if (!fxs_load_expect (c, f->args, FXS_JSON_ARRAY, &p, "\"args\" must be an array"))
    return FALSE;
  if (op == FXS_OP_PLACEHOLDER && f->args->n > 1)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, f->args, &p,
                          "a placeholder has at most one arg (its default value), not %u",
                          f->args->n);
  return fxs_load_items (c, f->args, FXS_VALUE_TUPLE, args, &p);
}

static gboolean
convert_kwargs (FxsLoadConv *c, const NodeFields *f, FxsValue *kwargs)
{
  kwargs->kind = FXS_VALUE_DICT;
  if (!f->kwargs)
    return TRUE;
  FxsJsonPath p = { NULL, "kwargs", 6, 0 };
  return fxs_load_expect (c, f->kwargs, FXS_JSON_OBJECT, &p, "\"kwargs\" must be an object")
         && convert_object_as_dict (c, f->kwargs, FALSE, kwargs, NULL, &p);
}

gboolean
fxs_load_node (FxsLoader *l, FxsJsonReader *reader, const FxsJsonItem *item, const FxsJson *obj,
               gboolean build)
{
  FxsLoadConv c = { l, reader, build ? l->graph : NULL, NULL };
  NodeFields f;
  FxsOp op;
  if (!build)
    return split_node_fields (&c, obj, &f) && check_node_head (&c, obj, &f, &op);
  if (l->forward.active)
    {
      /* after a dangling reference, only look for the node it names */
      const FxsJson *name = fxs_json_member (obj, "name");
      if (!name || !is_text (name) || strcmp (name->u.s, l->forward.name) != 0)
        return TRUE;
      g_string_append_printf (l->forward.message,
                              ", which comes later (nodes[%" G_GUINT64_FORMAT "]); "
                              "nodes may only refer to earlier nodes", item->index);
      fxs_json_reader_fail_message (reader, FXS_ERROR_GRAPH, l->forward.pos,
                                    l->forward.message->str);
      return FALSE;
    }
  if (!split_node_fields (&c, obj, &f))
    return FALSE;
  guint32 name_hash = fxs_name_hash (f.name->u.s, f.name->n);
  fxs_graph_name_prefetch (l->graph, TRUE, name_hash);
  if (!check_node_head (&c, obj, &f, &op) || !check_node_rules (&c, obj, op))
    return FALSE;
  guint32 target_hash = fxs_name_hash (f.target->u.s, f.target->n);
  FxsValue args = { 0 }, kwargs = { 0 };
  const FxsNodeMeta *meta = NULL;
  FxsJsonPath ptype = { NULL, "type", 4, 0 }, pmeta = { NULL, "meta", 4, 0 };
  /* a reference to a later node is reported later, a duplicate name now */
  if (!convert_args (&c, &f, op, &args) || !convert_kwargs (&c, &f, &kwargs))
    return l->forward.active && check_unique_name (&c, name_hash);
  if (f.type && f.type->type != FXS_JSON_NULL
      && !fxs_load_check_text (&c, f.type, &ptype, "\"type\""))
    return FALSE;
  if (f.meta && !convert_meta (&c, f.meta, &meta, &pmeta))
    return l->forward.active && check_unique_name (&c, name_hash);
  if (!check_unique_name (&c, name_hash))
    return FALSE;
  const char *name = fxs_arena_strndup (&l->graph->arena, f.name->u.s, f.name->n);
  FxsNode *node = fxs_graph_append_node_at (l->graph, NULL, op, name,
                                            fxs_load_share_hashed (&c, f.target, target_hash,
                                                                   FALSE),
                                            &args, &kwargs);
  if (f.type && f.type->type == FXS_JSON_STRING)
    node->type_expr = fxs_load_share (&c, f.type);
  node->meta = meta;
  fxs_graph_name_added (l->graph, TRUE, name_hash);
  l->recent[name_hash % G_N_ELEMENTS (l->recent)] = node;
  return TRUE;
}

gboolean
fxs_load_end_nodes (FxsLoader *l, FxsJsonReader *reader, gboolean build, gint64 pos)
{
  if (!build)
    return TRUE;
  if (l->forward.active)
    {
      g_string_append (l->forward.message, ", which is not a node of this graph");
      fxs_json_reader_fail_message (reader, FXS_ERROR_GRAPH, l->forward.pos,
                                    l->forward.message->str);
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

gboolean
fxs_load_attr (FxsLoadConv *c, const FxsJsonItem *item, const FxsJson *obj, gboolean build)
{
  const FxsJson *kind = NULL, *cls = NULL, *shape = NULL, *dtype = NULL;
  if (item->key_len == 0 || strlen (item->key) != item->key_len)
    return fxs_load_fail_at (c, FXS_ERROR_FORMAT, item->key_pos, NULL,
                             "an attribute name must be non-empty and without NUL");
  /* the reader leaves duplicate keys of a built table to the table itself */
  guint32 name_hash = build ? c->loader->attr_hash : 0;
  if (build && fxs_graph_name_position (c->graph, FALSE, item->key, item->key_len, name_hash)
                 != G_MAXUINT32)
    return fxs_load_fail_at (c, FXS_ERROR_FORMAT, item->key_pos, NULL, "duplicate key");
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
        return fxs_load_unknown_member (c, key, NULL, "\"kind\", \"class\", \"shape\", \"dtype\"");
    }
  FxsJsonPath pk = { NULL, "kind", 4, 0 }, pc = { NULL, "class", 5, 0 };
  FxsJsonPath ps = { NULL, "shape", 5, 0 }, pd = { NULL, "dtype", 5, 0 };
  FxsAttrKind k;
  if (!kind)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, NULL, "an attribute without \"kind\"");
  if (!fxs_load_check_text (c, kind, &pk, "\"kind\""))
    return FALSE;
  if (!fxs_attr_kind_from_string (kind->u.s, &k))
    return fxs_load_fail (c, FXS_ERROR_FORMAT, kind, &pk,
                          "unknown attribute kind %s (expected parameter, buffer, constant, "
                          "module or object)", fxs_load_quoted (c, kind->u.s, kind->n));
  if (cls && !fxs_load_check_text (c, cls, &pc, "\"class\""))
    return FALSE;
  if (dtype && !shape)
    /* at its key: object items are key, value, key, value... */
    return fxs_load_fail (c, FXS_ERROR_FORMAT, dtype - 1, &pd, "\"dtype\" without \"shape\"");
  if (shape && !check_shape (c, shape, &ps))
    return FALSE;
  if (!build)
    return TRUE;
  const FxsTensorMeta *t = NULL;
  if (shape && !convert_shape_and_dtype (c, shape, dtype, &ps, &pd, &t))
    return FALSE;
  /* unique: checked above */
  const char *class_name = cls ? fxs_load_share (c, cls) : NULL;
  const char *name = fxs_arena_strndup (&c->graph->arena, item->key, item->key_len);
  fxs_graph_append_attr_at (c->graph, NULL, name, k, class_name, t);
  fxs_graph_name_added (c->graph, FALSE, name_hash);
  return TRUE;
}
