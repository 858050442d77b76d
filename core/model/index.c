/* What a graph's lookups use, derived from its nodes and attributes and
 * kept up to date as they are added: the name indexes, the attributes of
 * get_attr / call_module targets and the users of each node.  Readers of
 * a finished graph may be many threads: the first lookups fill them under
 * one lock, later ones only read. */
#include "graph-private.h"

#include <string.h>

/* ---- name indexes -------------------------------------------------------- */

/* One lock for all graphs, taken only while an index is out of date. */
static GMutex lazy_index_lock;

/* The name of item @i of @items: FxsNode* when @nodes, else FxsAttr*. */
static const char *
item_name (const FxsItems *items, gboolean nodes, guint32 i)
{
  return nodes ? ((const FxsNode *) items->pdata[i])->name
               : ((const FxsAttr *) items->pdata[i])->name;
}

/* The position of @name (@len bytes, @hash) among @graph's nodes (@nodes)
 * or attributes as far as they are indexed, or G_MAXUINT32.  Inline: on the
 * loader's lookup of every reference. */
static inline guint32
name_index_find (const FxsGraph *graph, gboolean nodes, const char *name, gsize len,
                 guint32 hash)
{
  const FxsTable *table = nodes ? &graph->node_index.table : &graph->attr_index.table;
  const FxsItems *items = nodes ? graph->nodes : graph->attrs;
  for (gsize i = fxs_table_start (table, hash);; i = fxs_table_step (table, i))
    {
      const FxsTableHead *e = fxs_table_at (table, i);
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

/* Brings the name index up to date with the items added since the last
 * lookup; under lazy_index_lock.  The first of two equal names wins, as
 * the checked builders never let a second one in. */
static void
index_names_locked (FxsGraph *graph, gboolean nodes)
{
  FxsNameIndex *index = nodes ? &graph->node_index : &graph->attr_index;
  const FxsItems *items = nodes ? graph->nodes : graph->attrs;
  for (guint32 i = index->n_indexed; i < items->len; i++)
    {
      const char *name = item_name (items, nodes, i);
      gsize len = strlen (name);
      guint32 hash = fxs_name_hash (name, len);
      if (name_index_find (graph, nodes, name, len, hash) == G_MAXUINT32)
        ((FxsTableHead *) fxs_table_add (&index->table, hash))->tag = i + 1;
    }
  g_atomic_int_set (&index->n_indexed, items->len);
}

guint32
fxs_graph_name_position (FxsGraph *graph, gboolean nodes, const char *name, gsize len,
                         guint32 hash)
{
  const FxsNameIndex *index = nodes ? &graph->node_index : &graph->attr_index;
  if ((guint) g_atomic_int_get (&index->n_indexed) != (nodes ? graph->nodes : graph->attrs)->len)
    {
      g_mutex_lock (&lazy_index_lock);
      index_names_locked (graph, nodes);
      g_mutex_unlock (&lazy_index_lock);
    }
  return name_index_find (graph, nodes, name, len, hash);
}

void
fxs_graph_name_added (FxsGraph *graph, gboolean nodes, guint32 hash)
{
  FxsNameIndex *index = nodes ? &graph->node_index : &graph->attr_index;
  guint len = (nodes ? graph->nodes : graph->attrs)->len;
  /* when others appended items too, the next lookup indexes them all */
  if (index->n_indexed + 1 == len)
    {
      ((FxsTableHead *) fxs_table_add (&index->table, hash))->tag = len;
      g_atomic_int_set (&index->n_indexed, len);
    }
}

/* The node (@nodes) or attribute named @name, or NULL. */
static gpointer
lookup_name (const FxsGraph *graph, gboolean nodes, const char *name)
{
  gsize len = strlen (name);
  /* the table is a cache: filling it does not change the graph */
  guint32 i = fxs_graph_name_position ((FxsGraph *) graph, nodes, name, len,
                                       fxs_name_hash (name, len));
  return i != G_MAXUINT32 ? (nodes ? graph->nodes : graph->attrs)->pdata[i] : NULL;
}

const FxsNode *
fxs_graph_lookup_node (const FxsGraph *graph, const char *name)
{
  return lookup_name (graph, TRUE, name);
}

const FxsAttr *
fxs_graph_lookup_attr (const FxsGraph *graph, const char *qualname)
{
  return lookup_name (graph, FALSE, qualname);
}

/* Brings target_attrs up to date with the nodes and attributes added since
 * it was made; under lazy_index_lock. */
static void
update_target_attrs (FxsGraph *g)
{
  g->target_attrs = g_renew (guint32, g->target_attrs, MAX (g->nodes->len, 1));
  index_names_locked (g, FALSE);
  for (guint32 i = 0; i < g->nodes->len; i++)
    {
      const FxsNode *node = g->nodes->pdata[i];
      guint32 *at = &g->target_attrs[i];
      *at = G_MAXUINT32;
      if (node->op == FXS_OP_GET_ATTR || node->op == FXS_OP_CALL_MODULE)
        {
          gsize len = strlen (node->target);
          *at = name_index_find (g, FALSE, node->target, len, fxs_name_hash (node->target, len));
        }
    }
  g->target_attrs_attrs = g->attrs->len;
  g_atomic_int_set (&g->target_attrs_ready, (gint) g->nodes->len + 1);
}

static gboolean
target_attrs_ready (const FxsGraph *graph)
{
  return g_atomic_int_get (&graph->target_attrs_ready) == (gint) graph->nodes->len + 1
         && graph->target_attrs_attrs == graph->attrs->len;
}

const guint32 *
fxs_graph_target_attrs (FxsGraph *graph)
{
  if (!target_attrs_ready (graph))
    {
      g_mutex_lock (&lazy_index_lock);
      if (!target_attrs_ready (graph))
        update_target_attrs (graph);
      g_mutex_unlock (&lazy_index_lock);
    }
  return graph->target_attrs;
}

/* ---- users --------------------------------------------------------------- */

/* Counting each node's distinct users (@list NULL), then placing them. */
typedef struct {
  const FxsGraph *graph;
  guint32 *last_user;          /* per node: the last user that counted it */
  guint32 *fill;               /* counts at [index + 1], then next free slots */
  const FxsNode **list;
  guint32 user;
} UserScan;

static void
add_user (const FxsNode *def, gpointer data)
{
  UserScan *s = data;
  if (s->last_user[def->index] == s->user)
    return;
  s->last_user[def->index] = s->user;
  if (s->list)
    s->list[s->fill[def->index]++] = s->graph->nodes->pdata[s->user];
  else
    s->fill[def->index + 1]++;
}

static void
scan_uses (UserScan *s)
{
  guint n = s->graph->nodes->len;
  memset (s->last_user, 0xff, n * sizeof (guint32));
  for (s->user = 0; s->user < n; s->user++)
    {
      const FxsNode *node = s->graph->nodes->pdata[s->user];
      fxs_value_foreach_node (&node->args, add_user, s);
      fxs_value_foreach_node (&node->kwargs, add_user, s);
    }
}

/* The users of every node in user order (CSR); under lazy_index_lock. */
static void
build_users (FxsGraph *g)
{
  guint n = g->nodes->len;
  guint32 *offsets = g_new0 (guint32, n + 1);
  UserScan s = { .graph = g, .last_user = g_new (guint32, MAX (n, 1)), .fill = offsets };
  scan_uses (&s);
  for (guint i = 0; i < n; i++)
    offsets[i + 1] += offsets[i];
  s.list = g_new (const FxsNode *, MAX (offsets[n], 1));
  s.fill = g_memdup2 (offsets, (n + 1) * sizeof (guint32));
  scan_uses (&s);
  g_free (s.fill);
  g_free (s.last_user);
  g->user_list = s.list;
  g_atomic_pointer_set (&g->user_offsets, offsets);
}

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

