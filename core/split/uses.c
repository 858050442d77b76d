/* Pass 2 of a split's analysis, split_module's record_cross_partition_use:
 * each partition's inputs and outputs and the dependencies between them,
 * as insertion-ordered sets (arrays of pairs deduplicated by a hash set of
 * packed keys). */
#include "analysis.h"

#include <string.h>

static void
add_input (Analysis *a, guint32 part, guint32 node)
{
  guint32 first = a->first_input_part[node];
  if (first == part)
    return;
  if (first == FXS_NO_PARTITION)
    a->first_input_part[node] = part;
  else if (!fxs_id_set_add (&a->input_seen, fxs_id_pair (part, node)))
    return;
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

/* split_module's record_cross_partition_use(def, use), for a @def in
 * another partition than the user's. */
static void
record_use (const FxsNode *def, const Use *use)
{
  Analysis *a = use->a;
  if (a->error)
    return;
  guint32 d = def->index;
  guint32 dp = a->r->part_of[d], up = use->use_part;
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

static void record_value_uses (const FxsValue *value, Use *use);

/* record_value_uses() of @n items, every @step-th from @items on. */
static inline void
record_items_uses (const FxsValue *items, guint n, guint step, Use *use)
{
  const guint32 *part_of = use->a->r->part_of;
  for (guint i = 0; i < n; i++)
    {
      const FxsValue *item = &items[i * step];
      if (item->kind == FXS_VALUE_NODE)
        {
          if (part_of[item->u.node->index] != use->use_part)
            record_use (item->u.node, use);
        }
      else if (item->kind >= FXS_VALUE_LIST)
        record_value_uses (item, use);
    }
}

/* fxs_value_foreach_node (@value, record_use, @use), with the uses within
 * the user's own partition (most of them) passed over on the spot. */
static void
record_value_uses (const FxsValue *value, Use *use)
{
  switch (value->kind)
    {
    case FXS_VALUE_NODE:
      if (use->a->r->part_of[value->u.node->index] != use->use_part)
        record_use (value->u.node, use);
      return;
    case FXS_VALUE_LIST:
    case FXS_VALUE_TUPLE:
    case FXS_VALUE_SLICE:
      record_items_uses (value->u.items, value->n, 1, use);
      return;
    case FXS_VALUE_DICT:
      /* map_arg maps dict values only */
      record_items_uses (value->u.items + 1, value->n, 2, use);
      return;
    default:
      return;
    }
}

/* Global-state regions are re-entered per partition, which only works
 * when partition ids never decrease in graph order. */
static gboolean
check_monotonic (const Analysis *a, const FxsNode *node, const FxsNode **prev, GError **error)
{
  gint64 id = g_array_index (a->ids, gint64, a->r->part_of[node->index]);
  if (*prev)
    {
      gint64 prev_id = g_array_index (a->ids, gint64, a->r->part_of[(*prev)->index]);
      if (id < prev_id)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_GLOBAL_STATE,
                       "node '%s': partition %" G_GINT64_FORMAT " comes after partition %"
                       G_GINT64_FORMAT " (node '%s'), but set_grad_enabled and autocast "
                       "regions need partition ids that never decrease in graph order",
                       node->name, id, prev_id, (*prev)->name);
          return FALSE;
        }
    }
  *prev = node;
  return TRUE;
}

/* The uses of @node (in partition @part, or none for the output node);
 * errors go to a->error. */
static void
record_node_uses (Analysis *a, const FxsNode *node, guint32 part)
{
  Use use = { a, node->index, part };
  if (node->op == FXS_OP_OUTPUT)
    record_value_uses (&node->args.u.items[0], &use);
  else
    {
      /* args are a tuple: its items straight away, without a call */
      if (node->args.kind == FXS_VALUE_TUPLE)
        record_items_uses (node->args.u.items, node->args.n, 1, &use);
      else
        record_value_uses (&node->args, &use);
      if (node->kwargs.n)
        record_value_uses (&node->kwargs, &use);
    }
}

gboolean
fxs_analysis_record_uses (Analysis *a, GError **error)
{
  a->first_input_part = g_malloc ((a->n ? a->n : 1) * sizeof (guint32));
  memset (a->first_input_part, 0xff, a->n * sizeof (guint32));
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
      record_node_uses (a, node, part);
      if (a->error)
        {
          g_propagate_error (error, g_steal_pointer (&a->error));
          return FALSE;
        }
    }
  return TRUE;
}

