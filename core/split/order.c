/* The order in which the top-level graph calls the partitions, as
 * split_module finds it (or, with keep_original_order, first appearance
 * checked), and the cycle error when there is none. */
#include "split-private.h"

#include <string.h>

typedef struct {
  FxsSplitResult *r;
  const GArray *dep_edges;   /* FxsDepEdge */
} Order;

static const FxsNode *
node_at (const Order *a, guint32 i)
{
  return a->r->original->nodes->pdata[i];
}

static const char *
partition_name (const Order *a, guint32 dense)
{
  return a->r->by_dense[dense]->name;
}

/* One cycle among the partitions the sort could not place (those with
 * @remaining dependencies), with one node edge per step. */
static void
set_cycle_error (Order *a, const FxsCsr *deps, const guint32 *remaining, GError **error)
{
  guint P = a->r->n_partitions;
  guint32 *visited_at = g_new (guint32, P);
  memset (visited_at, 0xff, P * sizeof (guint32));
  GArray *walk = g_array_new (FALSE, FALSE, sizeof (guint32));
  GArray *via = g_array_new (FALSE, FALSE, sizeof (guint32));   /* edge from walk[k] on */

  guint32 u = 0;
  while (remaining[u] == 0)
    u++;
  /* follow unplaced dependencies until a partition comes round again */
  while (visited_at[u] == G_MAXUINT32)
    {
      visited_at[u] = walk->len;
      g_array_append_val (walk, u);
      const guint32 *edges = fxs_csr_items (deps, u);
      guint32 e = 0, next = u;
      for (guint k = 0; k < fxs_csr_count (deps, u); k++)
        {
          e = edges[k];
          next = g_array_index (a->dep_edges, FxsDepEdge, e).def_part;
          if (remaining[next] > 0)
            break;
        }
      g_array_append_val (via, e);
      u = next;
    }

  /* walk[start..] depend on each other in a ring; report it in the
   * direction values flow, from its first-appearing partition */
  guint start = visited_at[u], m = walk->len - start, first = 0;
  const guint32 *ring = &g_array_index (walk, guint32, start);
  const guint32 *ring_via = &g_array_index (via, guint32, start);
  for (guint k = 1; k < m; k++)
    if (ring[k] < ring[first])
      first = k;
  GString *path = g_string_new (NULL), *edges = g_string_new (NULL);
  g_string_append (path, partition_name (a, ring[first]));
  for (guint s = 0; s < m; s++)
    {
      /* ring[k] takes a value from ring[k + 1], so values flow k+1 -> k */
      guint k = (first + m - s - 1) % m;
      const FxsDepEdge *e = &g_array_index (a->dep_edges, FxsDepEdge, ring_via[k]);
      g_string_append_printf (path, " -> %s", partition_name (a, e->use_part));
      if (s)
        g_string_append (edges, "; ");
      if (e->symbol)
        g_string_append_printf (edges, "'%s' (partition %s) binds symbol '%s' of an input of "
                                "'%s' (partition %s)", node_at (a, e->def_node)->name,
                                partition_name (a, e->def_part), e->symbol,
                                node_at (a, e->use_node)->name, partition_name (a, e->use_part));
      else
        g_string_append_printf (edges, "'%s' (partition %s) is used by '%s' (partition %s)",
                                node_at (a, e->def_node)->name, partition_name (a, e->def_part),
                                node_at (a, e->use_node)->name, partition_name (a, e->use_part));
    }
  g_set_error (error, FXS_ERROR, FXS_ERROR_CYCLE, "cycle between partitions %s: %s",
               path->str, edges->str);
  g_string_free (path, TRUE);
  g_string_free (edges, TRUE);
  g_array_free (walk, TRUE);
  g_array_free (via, TRUE);
  g_free (visited_at);
}

/* split_module's order: a stack of partitions without dependencies, first
 * appearance first, popped from the end. */
static gboolean
sort_partitions (Order *a, const FxsCsr *deps, guint32 *order, GError **error)
{
  guint P = a->r->n_partitions;
  guint32 *remaining = g_new (guint32, P);
  guint32 *stack = g_new (guint32, P ? P : 1);
  guint top = 0, n_sorted = 0;
  for (guint p = 0; p < P; p++)
    {
      remaining[p] = fxs_csr_count (deps, p);
      if (remaining[p] == 0)
        stack[top++] = p;
    }
  while (top)
    {
      guint32 p = stack[--top];
      order[n_sorted++] = p;
      const guint32 *dependents = fxs_csr_items (&a->r->dependents, p);
      for (guint k = 0; k < fxs_csr_count (&a->r->dependents, p); k++)
        if (--remaining[dependents[k]] == 0)
          stack[top++] = dependents[k];
    }
  gboolean ok = n_sorted == P;
  if (!ok)
    set_cycle_error (a, deps, remaining, error);
  g_free (stack);
  g_free (remaining);
  return ok;
}

/* keep_original_order calls partitions in first-appearance order, which
 * only works when no partition takes a value from a later one. */
static gboolean
check_original_order (Order *a, const FxsCsr *deps, GError **error)
{
  for (guint p = 0; p < a->r->n_partitions; p++)
    for (guint k = 0; k < fxs_csr_count (deps, p); k++)
      {
        const FxsDepEdge *e = &g_array_index (a->dep_edges, FxsDepEdge, fxs_csr_items (deps, p)[k]);
        if (e->def_part < p)
          continue;
        g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                     "keep_original_order: partition %s comes first in the graph but needs '%s' "
                     "from partition %s (used by '%s')", partition_name (a, p),
                     node_at (a, e->def_node)->name, partition_name (a, e->def_part),
                     node_at (a, e->use_node)->name);
        return FALSE;
      }
  return TRUE;
}

/* Puts the partitions in call order. */
static void
apply_order (FxsSplitResult *r, const guint32 *order)
{
  FxsPartition *sorted = g_new (FxsPartition, r->n_partitions ? r->n_partitions : 1);
  for (guint k = 0; k < r->n_partitions; k++)
    {
      sorted[k] = r->partitions[order[k]];
      sorted[k].index = k;
      r->by_dense[order[k]] = &sorted[k];
    }
  g_free (r->partitions);
  r->partitions = sorted;
}

gboolean
fxs_split_order (FxsSplitResult *r, const GArray *edges, gboolean keep_original_order,
                 GError **error)
{
  Order a = { r, edges };
  guint P = r->n_partitions;
  /* dependencies as edge indices (for messages), partitions once sorted;
   * the dependents in the order of the edges */
  FxsCsr deps;
  FxsPairs *pairs = fxs_pairs_new (), *dependents = fxs_pairs_new ();
  for (guint e = 0; e < edges->len; e++)
    {
      const FxsDepEdge *edge = &g_array_index (edges, FxsDepEdge, e);
      fxs_pairs_add (pairs, edge->use_part, e);
      fxs_pairs_add (dependents, edge->def_part, edge->use_part);
    }
  fxs_csr_init_from_pairs (&deps, P, pairs);
  fxs_csr_init_from_pairs (&r->dependents, P, dependents);
  g_array_free (pairs, TRUE);
  g_array_free (dependents, TRUE);
  guint32 *order = g_new (guint32, P ? P : 1);
  gboolean ok = sort_partitions (&a, &deps, order, error);
  if (ok && keep_original_order)
    {
      for (guint p = 0; p < P; p++)
        order[p] = p;
      ok = check_original_order (&a, &deps, error);
    }
  if (ok)
    {
      for (guint k = 0; k < deps.offsets[P]; k++)
        deps.items[k] = g_array_index (edges, FxsDepEdge, deps.items[k]).def_part;
      r->dependencies = deps;
      apply_order (r, order);
    }
  else
    fxs_csr_clear (&deps);
  g_free (order);
  return ok;
}
