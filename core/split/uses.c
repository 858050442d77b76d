/* Pass 2 of a split's analysis, split_module's record_cross_partition_use:
 * each partition's inputs and outputs and the dependencies between them,
 * as insertion-ordered sets (arrays of pairs deduplicated by a hash set of
 * packed keys); then the order in which the top-level graph calls the
 * partitions, as split_module finds it (or, with keep_original_order,
 * first appearance checked), and the cycle error when there is none. */
#include "analysis.h"

#include <string.h>

static void
add_input (Analysis *a, guint32 part, guint32 node)
{
  if (fxs_id_set_add (&a->input_seen, fxs_id_pair (part, node)))
    fxs_pairs_add (a->input_pairs, part, node);
}

/* A node is only ever an output of its own partition. */
static void
add_output (Analysis *a, guint32 part, guint32 node)
{
  if (a->is_output[node])
    return;
  a->is_output[node] = TRUE;
  fxs_pairs_add (a->output_pairs, part, node);
}

/* Partition @use_part takes a value from @def_part (@def_node, used by
 * @use_node): the first such use is the edge kept, which also makes
 * use_part a dependent of def_part. */
static void
add_dependency (Analysis *a, guint32 use_part, guint32 def_part, guint32 def_node,
                guint32 use_node, const char *symbol)
{
  if (!fxs_id_set_add (&a->dependency_seen, fxs_id_pair (use_part, def_part)))
    return;
  FxsDepEdge e = { use_part, def_part, def_node, use_node, symbol };
  g_array_append_val (a->dep_edges, e);
}

typedef struct {
  Analysis *a;
  guint32 use_node;
  guint32 use_part;   /* FXS_NO_PARTITION for the output node */
} Use;

/* split_module's record_cross_partition_use(def, use) of a node @def a
 * value refers to, unless it is in the user's own partition (most are). */
static void
record_use (const FxsNode *def, gpointer data)
{
  const Use *use = data;
  Analysis *a = use->a;
  guint32 d = def->index;
  guint32 dp = a->r->part_of[d], up = use->use_part;
  if (dp == up || a->error)
    return;
  if (dp != FXS_NO_PARTITION)
    add_output (a, dp, d);
  if (up == FXS_NO_PARTITION)
    return;

  add_input (a, up, d);
  /* the nodes binding the symbols in def's sizes come along as inputs */
  for (guint k = 0; k < fxs_node_n_free_symbols (def); k++)
    {
      const char *symbol = fxs_node_free_symbol (def, k);
      guint b = GPOINTER_TO_UINT (g_hash_table_lookup (a->binder, symbol));
      if (!b)
        {
          g_set_error (&a->error, FXS_ERROR, FXS_ERROR_GRAPH,
                       "node '%s': its input '%s' has a size with symbol '%s', "
                       "but no node binds that symbol", node_at (a, use->use_node)->name,
                       def->name, symbol);
          return;
        }
      guint32 binder = b - 1, bp = a->r->part_of[binder];
      /* PyTorch would make the partition depend on itself here (a cycle);
       * the binder is in scope already, so nothing needs to be passed */
      if (bp == up)
        continue;
      add_input (a, up, binder);
      if (node_at (a, binder)->op != FXS_OP_PLACEHOLDER && bp != FXS_NO_PARTITION)
        {
          add_output (a, bp, binder);
          add_dependency (a, up, bp, binder, use->use_node, symbol);
        }
    }
  if (dp != FXS_NO_PARTITION)
    add_dependency (a, up, dp, d, use->use_node, NULL);
}

/* Global-state regions are re-entered per partition, which only works
 * when partition ids never decrease in graph order. */
static gboolean
check_monotonic (const Analysis *a, const FxsNode *node, const FxsNode **prev, GError **error)
{
  gint64 id = g_array_index (a->ids, gint64, a->r->part_of[node->index]);
  gint64 prev_id = *prev ? g_array_index (a->ids, gint64, a->r->part_of[(*prev)->index]) : id;
  if (id < prev_id)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GLOBAL_STATE,
                   "node '%s': partition %" G_GINT64_FORMAT " comes after partition %"
                   G_GINT64_FORMAT " (node '%s'), but set_grad_enabled and autocast "
                   "regions need partition ids that never decrease in graph order",
                   node->name, id, prev_id, (*prev)->name);
      return FALSE;
    }
  *prev = node;
  return TRUE;
}

gboolean
fxs_analysis_record_uses (Analysis *a, GError **error)
{
  a->is_output = g_malloc0 (a->n ? a->n : 1);
  const FxsNode *prev = NULL;   /* the previous call node */
  for (guint i = 0; i < a->n; i++)
    {
      const FxsNode *node = node_at (a, i);
      guint32 part = a->r->part_of[i];
      if (node->op != FXS_OP_OUTPUT && part == FXS_NO_PARTITION)
        continue;
      if (node->op != FXS_OP_OUTPUT && a->has_global_state)
        {
          if (!check_monotonic (a, node, &prev, error))
            return FALSE;
          /* global-state nodes are re-entered in every partition of their
           * region instead of being passed around */
          if (fxs_global_state_of (node) != GLOBAL_STATE_NONE)
            continue;
        }
      /* the uses of the node (in no partition: the output node) */
      Use use = { a, i, part };
      fxs_value_foreach_node (&node->args, record_use, &use);
      if (node->kwargs.n && node->op != FXS_OP_OUTPUT)   /* most are {} */
        fxs_value_foreach_node (&node->kwargs, record_use, &use);
      if (a->error)
        {
          g_propagate_error (error, g_steal_pointer (&a->error));
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- the order of the calls ---------------------------------------------- */

static const char *
partition_name (const Analysis *a, guint32 dense)
{
  return a->r->by_dense[dense]->name;
}

/* One cycle among the partitions the sort could not place (those with
 * @remaining dependencies), with one node edge per step. */
static void
set_cycle_error (Analysis *a, const FxsCsr *deps, const guint32 *remaining, GError **error)
{
  guint P = a->r->n_partitions;
  guint32 *visited_at = g_new (guint32, P);
  memset (visited_at, 0xff, P * sizeof (guint32));
  guint32 *walk = g_new (guint32, P), *via = g_new (guint32, P);   /* edge from walk[k] on */
  guint len = 0;

  guint32 u = 0;
  while (remaining[u] == 0)
    u++;
  /* follow unplaced dependencies until a partition comes round again */
  while (visited_at[u] == G_MAXUINT32)
    {
      visited_at[u] = len;
      walk[len] = u;
      const guint32 *edges = fxs_csr_items (deps, u);
      guint32 e = 0, next = u;
      for (guint k = 0; k < fxs_csr_count (deps, u); k++)
        {
          e = edges[k];
          next = g_array_index (a->dep_edges, FxsDepEdge, e).def_part;
          if (remaining[next] > 0)
            break;
        }
      via[len++] = e;
      u = next;
    }

  /* walk[start..] depend on each other in a ring; report it in the
   * direction values flow, from its first-appearing partition */
  guint start = visited_at[u], m = len - start, first = 0;
  const guint32 *ring = walk + start, *ring_via = via + start;
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
      g_string_append_printf (edges, "'%s' (partition %s) ", node_at (a, e->def_node)->name,
                              partition_name (a, e->def_part));
      if (e->symbol)
        g_string_append_printf (edges, "binds symbol '%s' of an input of ", e->symbol);
      else
        g_string_append (edges, "is used by ");
      g_string_append_printf (edges, "'%s' (partition %s)", node_at (a, e->use_node)->name,
                              partition_name (a, e->use_part));
    }
  g_set_error (error, FXS_ERROR, FXS_ERROR_CYCLE, "cycle between partitions %s: %s",
               path->str, edges->str);
  g_string_free (path, TRUE);
  g_string_free (edges, TRUE);
  g_free (walk);
  g_free (via);
  g_free (visited_at);
}

/* split_module's order: a stack of partitions without dependencies, first
 * appearance first, popped from the end. */
static gboolean
sort_partitions (Analysis *a, const FxsCsr *deps, guint32 *order, GError **error)
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
check_original_order (Analysis *a, const FxsCsr *deps, GError **error)
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
fxs_analysis_order (Analysis *a, GError **error)
{
  FxsSplitResult *r = a->r;
  const GArray *edges = a->dep_edges;
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
  gboolean ok = sort_partitions (a, &deps, order, error);
  if (ok && a->plan->options->keep_original_order)
    {
      for (guint p = 0; p < P; p++)
        order[p] = p;
      ok = check_original_order (a, &deps, error);
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
