/* The graph model: graphs, nodes, attributes and their metadata. */
#include "graph-private.h"

#include <string.h>

static const char *const op_names[] = {
  "placeholder", "get_attr", "call_function", "call_method", "call_module", "output",
};

FXS_ENUM_STRINGS (FxsOp, fxs_op_to_string, fxs_op_from_string, op_names)

static const char *const attr_kind_names[] = {
  "parameter", "buffer", "constant", "module", "object",
};

FXS_ENUM_STRINGS (FxsAttrKind, fxs_attr_kind_to_string, fxs_attr_kind_from_string,
                  attr_kind_names)

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
  fxs_table_init (&g->node_index.table, sizeof (FxsTableHead));
  fxs_table_init (&g->attr_index.table, sizeof (FxsTableHead));
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
  fxs_table_clear (&graph->node_index.table);
  fxs_items_clear (graph->attrs);
  fxs_table_clear (&graph->attr_index.table);
  fxs_graph_unref (graph->keepalive);
  g_free (graph->target_attrs);
  g_free (graph->user_offsets);
  g_free (graph->user_list);
  g_clear_pointer (&graph->strings, g_string_chunk_free);
  fxs_arena_clear (&graph->arena);
  g_free (graph);
}

void
fxs_graph_expect_file (FxsGraph *graph, gsize bytes)
{
  fxs_arena_expect (&graph->arena, bytes);
  fxs_table_reserve (&graph->node_index.table, bytes / 256);
}

const char *
fxs_graph_intern (FxsGraph *graph, const char *s)
{
  if (!s)
    return NULL;
  /* made on first use: the engine's graphs (one per partition) store no
   * strings of their own */
  if (!graph->strings)
    graph->strings = g_string_chunk_new (256);
  return g_string_chunk_insert_const (graph->strings, s);
}

void
fxs_graph_keep_alive (FxsGraph *graph, FxsGraph *other)
{
  g_return_if_fail (graph->keepalive == NULL && other != graph);
  graph->keepalive = fxs_graph_ref (other);
}

FXS_GETTER (guint, fxs_graph_n_nodes, FxsGraph, graph, graph->nodes->len, 0)
FXS_GETTER (const FxsNode *, fxs_graph_output_node, FxsGraph, graph, graph->output, NULL)
FXS_GETTER (guint, fxs_graph_n_attrs, FxsGraph, graph, graph->attrs->len, 0)

const FxsNode *
fxs_graph_node (const FxsGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->nodes->len, NULL);
  return graph->nodes->pdata[index];
}

guint
fxs_graph_count_op (const FxsGraph *graph, FxsOp op)
{
  guint n = 0;
  for (guint i = 0; i < graph->nodes->len; i++)
    n += ((const FxsNode *) graph->nodes->pdata[i])->op == op;
  return n;
}

const FxsAttr *
fxs_graph_attr (const FxsGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->attrs->len, NULL);
  return graph->attrs->pdata[index];
}

/* ---- nodes -------------------------------------------------------------- */

FXS_GETTER (FxsOp, fxs_node_op, FxsNode, node, (FxsOp) node->op, FXS_OP_PLACEHOLDER)
FXS_GETTER (const char *, fxs_node_name, FxsNode, node, node->name, NULL)
FXS_GETTER (const char *, fxs_node_target, FxsNode, node, node->target, NULL)
FXS_GETTER (const FxsValue *, fxs_node_args, FxsNode, node, &node->args, NULL)
FXS_GETTER (const FxsValue *, fxs_node_kwargs, FxsNode, node, &node->kwargs, NULL)
FXS_GETTER (const char *, fxs_node_type, FxsNode, node, node->type_expr, NULL)
FXS_GETTER (guint, fxs_node_index, FxsNode, node, node->index, 0)
FXS_GETTER (const FxsGraph *, fxs_node_graph, FxsNode, node, node->graph, NULL)

const char *
fxs_node_target_short_name (const FxsNode *node)
{
  if (node->op != FXS_OP_CALL_FUNCTION)
    return node->target;
  const char *dot = strrchr (node->target, '.');
  return dot ? dot + 1 : node->target;
}

/* ---- attributes --------------------------------------------------------- */

FXS_GETTER (const char *, fxs_attr_name, FxsAttr, attr, attr->name, NULL)
FXS_GETTER (FxsAttrKind, fxs_attr_kind, FxsAttr, attr, (FxsAttrKind) attr->kind, FXS_ATTR_PARAMETER)
FXS_GETTER (const char *, fxs_attr_class, FxsAttr, attr, attr->class_name, NULL)
FXS_GETTER (const FxsTensorMeta *, fxs_attr_tensor, FxsAttr, attr, attr->tensor, NULL)

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
      if ((a->kind == FXS_ATTR_PARAMETER || a->kind == FXS_ATTR_BUFFER)
          && strncmp (a->name, attr->name, plen) == 0 && a->name[plen] == '.')
        total += fxs_attr_bytes (a);
    }
  return total;
}

/* ---- building ----------------------------------------------------------- */

typedef struct {
  const FxsGraph *graph;
  guint limit;
  const FxsNode *bad;
} RefCheck;

static void
check_ref (const FxsNode *def, gpointer data)
{
  RefCheck *c = data;
  if (c->bad == NULL && (def->graph != c->graph || def->index >= c->limit))
    c->bad = def;
}

const FxsNode *
fxs_graph_bad_ref (const FxsGraph *graph, guint limit, const FxsValue *args,
                   const FxsValue *kwargs)
{
  RefCheck check = { graph, limit, NULL };
  if (args)
    fxs_value_foreach_node (args, check_ref, &check);
  if (kwargs)
    fxs_value_foreach_node (kwargs, check_ref, &check);
  return check.bad;
}

FxsNode *
fxs_graph_append_node_at (FxsGraph *graph, FxsNode *node, FxsOp op, const char *name,
                          const char *target, const FxsValue *args, const FxsValue *kwargs)
{
  if (!node)
    node = fxs_arena_alloc (&graph->arena, sizeof (FxsNode));
  *node = (FxsNode) { .graph = graph, .name = name, .target = target,
                      .args = args ? *args : (FxsValue) { .kind = FXS_VALUE_TUPLE },
                      .kwargs = kwargs ? *kwargs : (FxsValue) { .kind = FXS_VALUE_DICT },
                      .index = graph->nodes->len, .op = op };
  fxs_items_add (graph->nodes, node);
  if (op == FXS_OP_OUTPUT)
    graph->output = node;
  /* the users are derived again on first use */
  g_clear_pointer (&graph->user_offsets, g_free);
  g_clear_pointer (&graph->user_list, g_free);
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
  char *problem = NULL;
  const FxsNode *bad;
  if (fxs_graph_lookup_node (graph, name))
    problem = g_strdup ("duplicate node name");
  else if (graph->output)
    problem = g_strdup_printf (op == FXS_OP_OUTPUT ? "a second output node (the first is '%s')"
                                                   : "comes after the output node '%s'",
                               graph->output->name);
  else if (args && args->kind != FXS_VALUE_TUPLE)
    problem = g_strdup ("args must be a tuple");
  else if (kwargs && kwargs->kind != FXS_VALUE_DICT)
    problem = g_strdup ("kwargs must be a dict");
  for (guint i = 0; !problem && kwargs && i < kwargs->n; i++)
    if (kwargs->u.items[2 * i].kind != FXS_VALUE_STRING)
      problem = g_strdup ("kwargs keys must be strings");
  if (!problem && (bad = fxs_graph_bad_ref (graph, graph->nodes->len, args, kwargs)))
    problem = g_strdup_printf ("refers to '%s', which is not an earlier node of this graph",
                               bad->name);
  if (problem)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH, "node '%s': %s", name, problem);
      g_free (problem);
      return NULL;
    }
  /* names in the arena, which packs them in blocks that grow (a
   * GStringChunk's stay at 256 bytes: a malloc and a list cell every few) */
  return fxs_graph_append_node_at (graph, NULL, op,
                                   fxs_arena_strndup (&graph->arena, name, strlen (name)),
                                   fxs_graph_intern (graph, target), args, kwargs);
}

void
fxs_node_set_type (FxsNode *node, const char *type_expr)
{
  node->type_expr = fxs_graph_intern (node->graph, type_expr);
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
  return fxs_graph_append_attr_at (graph, NULL,
                                   fxs_arena_strndup (&graph->arena, qualname, strlen (qualname)),
                                   kind, fxs_graph_intern (graph, class_name), tensor);
}

FxsAttr *
fxs_graph_append_attr_at (FxsGraph *graph, FxsAttr *a, const char *qualname, FxsAttrKind kind,
                          const char *class_name, const FxsTensorMeta *tensor)
{
  if (!a)
    a = fxs_arena_alloc (&graph->arena, sizeof (FxsAttr));
  *a = (FxsAttr) { .name = qualname, .class_name = class_name, .tensor = tensor,
                   .graph = graph, .kind = kind };
  fxs_items_add (graph->attrs, a);
  return a;
}
