/* What a graph's lookups use, derived from its nodes and attributes and
 * kept up to date as they are added: the name indexes, the attributes of
 * get_attr / call_module targets and the users of each node.  Readers of
 * a finished graph may be many threads: the first lookups fill them under
 * one lock, later ones only read. */
#include "graph-private.h"

#include <string.h>

/* ---- name indexes -------------------------------------------------------- */

/* Filling the lazy indexes of a graph (names, users, target attributes)
 * that several threads may read at once: one lock for all graphs, taken
 * only while an index is out of date, which for a finished graph is once. */
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
  if (g_atomic_int_get (&index->ready) == (gint) items->len + 1)
    return;
  for (guint32 i = index->n_indexed; i < items->len; i++)
    {
      const char *name = item_name (items, nodes, i);
      gsize len = strlen (name);
      guint32 hash = fxs_name_hash (name, len);
      if (name_index_find (graph, nodes, name, len, hash) == G_MAXUINT32)
        ((FxsTableHead *) fxs_table_add (&index->table, hash))->tag = i + 1;
    }
  index->n_indexed = items->len;
  g_atomic_int_set (&index->ready, (gint) items->len + 1);
}

static void
index_names (FxsGraph *graph, gboolean nodes)
{
  const FxsNameIndex *index = nodes ? &graph->node_index : &graph->attr_index;
  if (g_atomic_int_get (&index->ready) == (gint) (nodes ? graph->nodes : graph->attrs)->len + 1)
    return;
  g_mutex_lock (&lazy_index_lock);
  index_names_locked (graph, nodes);
  g_mutex_unlock (&lazy_index_lock);
}

guint32
fxs_graph_name_position (FxsGraph *graph, gboolean nodes, const char *name, gsize len,
                         guint32 hash)
{
  index_names (graph, nodes);
  return name_index_find (graph, nodes, name, len, hash);
}

void
fxs_graph_name_added (FxsGraph *graph, gboolean nodes, guint32 hash)
{
  FxsNameIndex *index = nodes ? &graph->node_index : &graph->attr_index;
  guint len = (nodes ? graph->nodes : graph->attrs)->len;
  if (index->n_indexed + 1 != len)
    {
      /* others appended items too: index them all, as for a lookup */
      index_names (graph, nodes);
      return;
    }
  ((FxsTableHead *) fxs_table_add (&index->table, hash))->tag = len;
  index->n_indexed = len;
  g_atomic_int_set (&index->ready, (gint) len + 1);
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

static gboolean
has_attr_target (const FxsNode *node)
{
  return node->op == FXS_OP_GET_ATTR || node->op == FXS_OP_CALL_MODULE;
}

void
fxs_graph_note_target_attr (FxsGraph *graph, guint32 index, guint32 position)
{
  if (!graph->target_attrs)
    graph->target_attrs = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_assert (index == graph->target_attrs->len);
  g_array_append_val (graph->target_attrs, position);
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
  if (!g->target_attrs)
    g->target_attrs = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 known = g->target_attrs->len;
  g_array_set_size (g->target_attrs, n);
  guint32 *at = (guint32 *) g->target_attrs->data;
  guint32 from = g->target_attrs_attrs == g->attrs->len ? known : 0;
  for (guint32 i = from; i < n; i++)
    {
      const FxsNode *node = g->nodes->pdata[i];
      if (i < known && at[i] != G_MAXUINT32)
        continue;   /* found before: positions never change */
      at[i] = G_MAXUINT32;
      if (!has_attr_target (node))
        continue;
      index_names_locked (g, FALSE);  /* returns at once when up to date */
      gsize len = strlen (node->target);
      at[i] = name_index_find (g, FALSE, node->target, len, fxs_name_hash (node->target, len));
    }
  g->target_attrs_attrs = g->attrs->len;
}

const guint32 *
fxs_graph_target_attrs (FxsGraph *graph)
{
  if (g_atomic_int_get (&graph->target_attrs_ready) == (gint) graph->nodes->len + 1
      && graph->target_attrs_attrs == graph->attrs->len)
    return (const guint32 *) graph->target_attrs->data;
  g_mutex_lock (&lazy_index_lock);
  if (g_atomic_int_get (&graph->target_attrs_ready) != (gint) graph->nodes->len + 1
      || graph->target_attrs_attrs != graph->attrs->len)
    {
      update_target_attrs (graph);
      g_atomic_int_set (&graph->target_attrs_ready, (gint) graph->nodes->len + 1);
    }
  g_mutex_unlock (&lazy_index_lock);
  return (const guint32 *) graph->target_attrs->data;
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

