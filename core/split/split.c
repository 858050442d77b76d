/* The splitting engine's analysis, after torch.fx.passes.split_module:
 * which partition every call node goes to, each partition's inputs,
 * outputs and dependencies, the global-state regions, and the order in
 * which the top-level graph calls the partitions.  split-build.c then
 * makes the graphs.  docs/split-semantics.md has the rules.
 *
 * Everything is linear in the graph: per-node flat arrays, insertion-ordered
 * sets as arrays of pairs deduplicated by a hash set of packed keys. */
#include "split-private.h"
#include "util/idset.h"

#include <string.h>

/* A set_grad_enabled or autocast region: the partitions (dense indices,
 * which follow partition ids once ids never decrease) it spans. */
typedef struct {
  guint32 node;       /* the _set_grad_enabled / _enter_autocast node */
  guint32 exit;       /* the _exit_autocast node, FXS_NO_PARTITION while open */
  guint32 lo, hi;
} Region;

/* Why partition use_part depends on def_part: the first use that said so. */
typedef struct {
  guint32 use_part, def_part;
  guint32 def_node, use_node;
  const char *symbol;   /* def_node binds this symbol of an input, or NULL */
} DepEdge;

/* Per partition, the dependent and the dependency recorded last: most
 * repeated uses repeat the previous one, which the sets need not see. */
typedef struct {
  guint32 dependent, dependency;
} Last;

typedef struct {
  FxsSplitCallback callback;
  gpointer user_data;
  const gint64 *ids;
} IdSource;

typedef struct {
  FxsSplitResult *r;
  FxsGraph *g;
  guint n;
  GArray *ids;                /* gint64 per dense partition */
  FxsIdMap dense_of_id;
  guint32 last_dense;         /* neighbours usually share a partition */
  FxsPairs *input_pairs, *output_pairs, *dependent_pairs;
  GArray *dep_edges;
  FxsIdSet input_seen, dependent_seen, dependency_seen;
  /* cheap first checks before the sets: most repeated uses repeat the
   * previous one */
  guint32 *first_input_part;  /* per node: the first partition it is an input of;
                               * input_seen holds the others */
  guint8 *is_output;          /* per node: an output of its partition already */
  GArray *last;               /* Last, per partition */
  /* uses are recorded while partitions are assigned (one pass over the
   * nodes, not two) unless that could differ from recording them after:
   * global-state nodes, a symbol bound only by a later node */
  gboolean fused;
  GHashTable *binder;         /* symbol -> index + 1 of the first node that is it */
  const guint32 *attr_of;     /* see FxsSplitPlan */
  guint32 *call_modules;      /* see FxsSplitPlan */
  gsize n_call_modules;
  GArray *autocast_regions, *grad_regions;
  GHashTable *open_autocast;  /* enter node index + 1 -> region index + 1 */
  gboolean has_global_state;
  GError *error;              /* set inside foreach callbacks */
} Analysis;

static const FxsNode *
node_at (const Analysis *a, guint i)
{
  return a->g->nodes->pdata[i];
}

FxsGlobalState
fxs_global_state_of (const FxsNode *node)
{
  const char *t = node->target;
  /* cheap rejection first: this runs for every call node */
  if (node->op != FXS_OP_CALL_FUNCTION || t[0] != 't' || t[1] != 'o' || t[2] != 'r'
      || t[3] != 'c' || t[4] != 'h' || t[5] != '.' || (t[6] != '_' && t[6] != 'a'))
    return GLOBAL_STATE_NONE;
  if (strcmp (t, "torch._C._set_grad_enabled") == 0)
    return GLOBAL_STATE_SET_GRAD;
  if (strcmp (t, "torch.amp.autocast_mode._enter_autocast") == 0
      || strcmp (t, "torch.amp._enter_autocast") == 0)
    return GLOBAL_STATE_ENTER_AUTOCAST;
  if (strcmp (t, "torch.amp.autocast_mode._exit_autocast") == 0
      || strcmp (t, "torch.amp._exit_autocast") == 0)
    return GLOBAL_STATE_EXIT_AUTOCAST;
  return GLOBAL_STATE_NONE;
}

static void
note_ref (const FxsNode *node, gpointer data)
{
  const FxsNode **first = data;
  if (!*first)
    *first = node;
}

/* The first node @value refers to, or NULL. */
static const FxsNode *
first_ref (const FxsValue *value)
{
  const FxsNode *first = NULL;
  fxs_value_foreach_node (value, note_ref, &first);
  return first;
}

/* ---- pass 1: partitions, symbols, global-state regions ------------------- */

static void record_node_uses (Analysis *a, const FxsNode *node, guint32 part);

static gboolean
partition_id_of (const IdSource *src, const FxsNode *node, gint64 *id, GError **error)
{
  if (src->ids)
    {
      *id = src->ids[node->index];
      return TRUE;
    }
  GError *cb_error = NULL;
  /* A callback that returns TRUE must have stored an id: the sentinel
   * tells when it did not (the one id value this reserves). */
  *id = FXS_PARTITION_ID_UNSET;
  if (!src->callback (node, src->user_data, id, &cb_error))
    {
      char *why = cb_error ? fxs_text_escape (cb_error->message, FXS_TEXT_MESSAGE_MAX)
                           : g_strdup ("the partition callback failed without an error message");
      g_set_error (error, FXS_ERROR, FXS_ERROR_CALLBACK, "node '%s': %s", node->name, why);
      g_free (why);
      g_clear_error (&cb_error);
      return FALSE;
    }
  if (*id == FXS_PARTITION_ID_UNSET)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CALLBACK,
                   "node '%s': the partition callback returned TRUE without storing a "
                   "partition id (or stored %" G_GINT64_FORMAT ", the value reserved to tell)",
                   node->name, (gint64) FXS_PARTITION_ID_UNSET);
      g_clear_error (&cb_error);
      return FALSE;
    }
  if (cb_error)
    {
      g_warning ("node '%s': the partition callback succeeded but set an error: %s",
                 node->name, cb_error->message);
      g_clear_error (&cb_error);
    }
  return TRUE;
}

static guint32
dense_partition (Analysis *a, gint64 id)
{
  if (a->ids->len && g_array_index (a->ids, gint64, a->last_dense) == id)
    return a->last_dense;
  gboolean inserted;
  guint32 dense = fxs_id_map_lookup_or_insert (&a->dense_of_id, (guint64) id, a->ids->len,
                                               &inserted);
  if (inserted)
    {
      g_array_append_val (a->ids, id);
      g_array_append_val (a->last, ((Last) { G_MAXUINT32, G_MAXUINT32 }));
    }
  a->last_dense = dense;
  return dense;
}

static gboolean
check_attr (Analysis *a, const FxsNode *node, GError **error)
{
  if (a->attr_of[node->index] != G_MAXUINT32)
    return TRUE;
  g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
               "node '%s': %s target '%s' is not in the attribute table", node->name,
               fxs_op_to_string ((FxsOp) node->op), node->target);
  return FALSE;
}

/* Region bookkeeping for one global-state node; @last_call_part is the
 * partition of the call node before @node. */
static gboolean
track_global_state (Analysis *a, const FxsNode *node, guint32 dense, guint32 last_call_part,
                    GError **error)
{
  FxsGlobalState kind = fxs_global_state_of (node);
  if (kind == GLOBAL_STATE_NONE)
    return TRUE;
  a->has_global_state = TRUE;
  const FxsNode *ref = first_ref (&node->kwargs);
  if (ref)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                   "node '%s': %s may not take node '%s' as a keyword argument",
                   node->name, node->target, ref->name);
      return FALSE;
    }

  if (kind == GLOBAL_STATE_SET_GRAD)
    {
      if (node->args.n != 1 || node->args.u.items[0].kind != FXS_VALUE_BOOL)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                       "node '%s': %s takes exactly one argument, a bool",
                       node->name, node->target);
          return FALSE;
        }
      /* a new grad region ends the previous one */
      if (a->grad_regions->len)
        g_array_index (a->grad_regions, Region, a->grad_regions->len - 1).hi = last_call_part;
      Region region = { node->index, FXS_NO_PARTITION, dense, dense };
      g_array_append_val (a->grad_regions, region);
      return TRUE;
    }

  if (kind == GLOBAL_STATE_ENTER_AUTOCAST)
    {
      /* its arguments are copied into other partitions as they are */
      ref = first_ref (&node->args);
      if (ref)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                       "node '%s': %s takes constants only, not node '%s'",
                       node->name, node->target, ref->name);
          return FALSE;
        }
      Region region = { node->index, FXS_NO_PARTITION, dense, dense };
      g_array_append_val (a->autocast_regions, region);
      g_hash_table_insert (a->open_autocast, GUINT_TO_POINTER (node->index + 1),
                           GUINT_TO_POINTER (a->autocast_regions->len));
      return TRUE;
    }

  /* _exit_autocast(enter) closes the region that enter opened */
  const FxsNode *enter = NULL;
  if (node->args.n == 1 && node->args.u.items[0].kind == FXS_VALUE_NODE)
    enter = node->args.u.items[0].u.node;
  guint region = enter ? GPOINTER_TO_UINT (g_hash_table_lookup (a->open_autocast,
                                                               GUINT_TO_POINTER (enter->index + 1)))
                       : 0;
  if (!region)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                   "node '%s': %s takes exactly one argument, an _enter_autocast node "
                   "whose region is still open", node->name, node->target);
      return FALSE;
    }
  g_hash_table_remove (a->open_autocast, GUINT_TO_POINTER (enter->index + 1));
  Region *r = &g_array_index (a->autocast_regions, Region, region - 1);
  r->exit = node->index;
  r->hi = dense;
  return TRUE;
}

static gboolean
assign_partitions (Analysis *a, const IdSource *src, GError **error)
{
  guint32 last_call_part = FXS_NO_PARTITION;
  for (guint i = 0; i < a->n; i++)
    {
      const FxsNode *node = node_at (a, i);
      a->r->part_of[i] = FXS_NO_PARTITION;

      /* the first node whose value is a symbol binds it (placeholders
       * come first, so they win) */
      const char *symbol = node->meta ? node->meta->symbol : NULL;
      if (symbol && !g_hash_table_contains (a->binder, symbol))
        g_hash_table_insert (a->binder, (gpointer) symbol, GUINT_TO_POINTER (i + 1));

      switch ((FxsOp) node->op)
        {
        case FXS_OP_PLACEHOLDER:
          {
            /* the default value is copied into the top-level graph as it is */
            const FxsNode *ref = node->args.n ? first_ref (&node->args.u.items[0]) : NULL;
            if (ref)
              {
                g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                             "node '%s': a placeholder's default value may not refer to node '%s'",
                             node->name, ref->name);
                return FALSE;
              }
            continue;
          }
        case FXS_OP_GET_ATTR:
          if (!check_attr (a, node, error))
            return FALSE;
          continue;
        case FXS_OP_OUTPUT:
          if (node->args.n != 1)
            {
              g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                           "node '%s': the output node takes exactly one argument, not %u",
                           node->name, node->args.n);
              return FALSE;
            }
          if (a->fused)
            record_node_uses (a, node, FXS_NO_PARTITION);
          continue;
        default:
          break;
        }

      gint64 id;
      if (!partition_id_of (src, node, &id, error))
        return FALSE;
      guint32 dense = dense_partition (a, id);
      a->r->part_of[i] = dense;
      if (node->op == FXS_OP_CALL_MODULE)
        {
          if (!check_attr (a, node, error))
            return FALSE;
          a->call_modules[a->n_call_modules++] = i;
        }
      if (!track_global_state (a, node, dense, last_call_part, error))
        return FALSE;
      last_call_part = dense;
      if (a->has_global_state)
        a->fused = FALSE;   /* their uses are recorded differently */
      if (a->fused)
        record_node_uses (a, node, dense);
    }

  if (a->grad_regions->len)
    g_array_index (a->grad_regions, Region, a->grad_regions->len - 1).hi = last_call_part;
  for (guint k = 0; k < a->autocast_regions->len; k++)
    {
      const Region *r = &g_array_index (a->autocast_regions, Region, k);
      if (r->exit == FXS_NO_PARTITION)
        {
          const FxsNode *enter = node_at (a, r->node);
          g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                       "node '%s': %s has no matching _exit_autocast", enter->name,
                       enter->target);
          return FALSE;
        }
    }
  if (!fxs_graph_output_node (a->g))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH, "the graph has no output node");
      return FALSE;
    }
  return TRUE;
}

/* ---- pass 2: cross-partition uses ----------------------------------------- */

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

static void
add_dependent (Analysis *a, guint32 def_part, guint32 use_part)
{
  guint32 *last = &g_array_index (a->last, Last, def_part).dependent;
  if (*last == use_part)
    return;
  *last = use_part;
  if (fxs_id_set_add (&a->dependent_seen, fxs_id_pair (def_part, use_part)))
    fxs_pairs_add (a->dependent_pairs, def_part, use_part);
}

static void
add_dependency (Analysis *a, guint32 use_part, guint32 def_part, guint32 def_node,
                guint32 use_node, const char *symbol)
{
  guint32 *last = &g_array_index (a->last, Last, use_part).dependency;
  if (*last == def_part)
    return;
  *last = def_part;
  if (!fxs_id_set_add (&a->dependency_seen, fxs_id_pair (use_part, def_part)))
    return;
  DepEdge e = { use_part, def_part, def_node, use_node, symbol };
  g_array_append_val (a->dep_edges, e);
}

typedef struct {
  Analysis *a;
  guint32 use_node;
  guint32 use_part;   /* FXS_NO_PARTITION for the output node */
} Use;

/* split_module's record_cross_partition_use(def, use). */
static void
record_use (const FxsNode *def, gpointer data)
{
  const Use *use = data;
  Analysis *a = use->a;
  if (a->error)
    return;
  guint32 d = def->index;
  guint32 dp = a->r->part_of[d], up = use->use_part;
  if (dp == up)
    return;
  if (dp != FXS_NO_PARTITION)
    {
      add_output (a, dp, d);
      if (up != FXS_NO_PARTITION)
        add_dependent (a, dp, up);
    }
  if (up == FXS_NO_PARTITION)
    return;

  add_input (a, up, d);
  /* the nodes binding the symbols in def's sizes come along as inputs */
  for (guint k = 0; k < fxs_node_n_free_symbols (def); k++)
    {
      const char *symbol = fxs_node_free_symbol (def, k);
      guint b = GPOINTER_TO_UINT (g_hash_table_lookup (a->binder, symbol));
      if (!b && a->fused)
        {
          /* a later node may bind it: record the uses after all */
          a->fused = FALSE;
          return;
        }
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
          add_dependent (a, bp, up);
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

/* The uses of @node (in partition @part, or none), in pass 1. */
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

/* Empty bookkeeping for recording uses. */
static void
uses_init (Analysis *a)
{
  a->first_input_part = g_malloc ((a->n ? a->n : 1) * sizeof (guint32));
  memset (a->first_input_part, 0xff, a->n * sizeof (guint32));
  a->is_output = g_malloc0 (a->n ? a->n : 1);
}

/* Forgets the uses recorded so far. */
static void
uses_reset (Analysis *a)
{
  memset (a->first_input_part, 0xff, a->n * sizeof (guint32));
  memset (a->is_output, 0, a->n ? a->n : 1);
  memset (a->last->data, 0xff, a->last->len * sizeof (Last));
  g_array_set_size (a->input_pairs, 0);
  g_array_set_size (a->output_pairs, 0);
  g_array_set_size (a->dependent_pairs, 0);
  g_array_set_size (a->dep_edges, 0);
  fxs_id_set_clear (&a->input_seen);
  fxs_id_set_clear (&a->dependent_seen);
  fxs_id_set_clear (&a->dependency_seen);
  fxs_id_set_init (&a->input_seen);
  fxs_id_set_init (&a->dependent_seen);
  fxs_id_set_init (&a->dependency_seen);
}

/* Pass 2, when pass 1 could not record the uses. */
static gboolean
record_uses (Analysis *a, GError **error)
{
  uses_reset (a);
  const FxsNode *prev = NULL;   /* the previous call node */
  for (guint i = 0; i < a->n; i++)
    {
      const FxsNode *node = node_at (a, i);
      Use use = { a, i, a->r->part_of[i] };
      if (node->op == FXS_OP_OUTPUT)
        record_value_uses (&node->args.u.items[0], &use);
      else if (use.use_part != FXS_NO_PARTITION)
        {
          if (a->has_global_state && !check_monotonic (a, node, &prev, error))
            return FALSE;
          /* global-state nodes are re-entered in every partition of their
           * region instead of being passed around */
          if (!a->has_global_state || fxs_global_state_of (node) == GLOBAL_STATE_NONE)
            {
              record_value_uses (&node->args, &use);
              if (node->kwargs.n)
                record_value_uses (&node->kwargs, &use);
            }
        }
      if (a->error)
        {
          g_propagate_error (error, a->error);
          a->error = NULL;
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- partition order -------------------------------------------------------- */

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
  guint P = a->ids->len;
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
          next = g_array_index (a->dep_edges, DepEdge, e).def_part;
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
      const DepEdge *e = &g_array_index (a->dep_edges, DepEdge, ring_via[k]);
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
sort_partitions (Analysis *a, const FxsCsr *deps, guint32 *order, GError **error)
{
  guint P = a->ids->len;
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
  for (guint p = 0; p < a->ids->len; p++)
    for (guint k = 0; k < fxs_csr_count (deps, p); k++)
      {
        const DepEdge *e = &g_array_index (a->dep_edges, DepEdge, fxs_csr_items (deps, p)[k]);
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

/* ---- the result's tables ---------------------------------------------------- */

static void
make_partitions (Analysis *a, const char *affix)
{
  FxsSplitResult *r = a->r;
  guint P = a->ids->len;
  r->n_partitions = P;
  r->partitions = g_new0 (FxsPartition, P ? P : 1);
  r->by_dense = g_new (FxsPartition *, P ? P : 1);
  for (guint p = 0; p < P; p++)
    {
      /* the call position is set once the order is known */
      FxsPartition *part = &r->partitions[p];
      part->result = r;
      part->dense = p;
      part->id = g_array_index (a->ids, gint64, p);
      char *name = affix ? g_strdup_printf ("%s_%" G_GINT64_FORMAT, affix, part->id)
                         : g_strdup_printf ("%" G_GINT64_FORMAT, part->id);
      char *submod = g_strconcat ("submod_", name, NULL);
      part->name = g_string_chunk_insert (r->strings, name);
      part->submod_name = g_string_chunk_insert (r->strings, submod);
      g_free (name);
      g_free (submod);
      r->by_dense[p] = part;
    }
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

static void
make_node_lists (FxsSplitResult *r, guint n)
{
  fxs_csr_init_from_groups (&r->nodes, r->n_partitions, r->part_of, n, FXS_NO_PARTITION);
}

/* Dependencies as edge indices (for messages); see deps_to_partitions. */
static void
make_dependency_edges (Analysis *a, FxsCsr *deps)
{
  FxsPairs *pairs = fxs_pairs_new ();
  for (guint e = 0; e < a->dep_edges->len; e++)
    fxs_pairs_add (pairs, g_array_index (a->dep_edges, DepEdge, e).use_part, e);
  fxs_csr_init_from_pairs (deps, a->ids->len, pairs);
  g_array_free (pairs, TRUE);
}

static void
deps_to_partitions (Analysis *a, FxsCsr *deps)
{
  guint total = deps->offsets[a->ids->len];
  for (guint k = 0; k < total; k++)
    deps->items[k] = g_array_index (a->dep_edges, DepEdge, deps->items[k]).def_part;
}

/* Copies of global-state nodes: _set_grad_enabled and _enter_autocast at
 * the start of every partition of their region but the first (autocast
 * regions first), _exit_autocast at the end of every partition but the
 * last (innermost region first). */
static void
make_global_state_copies (Analysis *a, FxsSplitPlan *plan)
{
  guint P = a->ids->len;
  FxsPairs *pairs = fxs_pairs_new ();
  GArray *lists[] = { a->autocast_regions, a->grad_regions };
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint k = 0; k < lists[l]->len; k++)
      {
        const Region *r = &g_array_index (lists[l], Region, k);
        for (guint32 p = r->lo + 1; p <= r->hi; p++)
          fxs_pairs_add (pairs, p, r->node);
      }
  fxs_csr_init_from_pairs (&plan->preludes, P, pairs);
  g_array_set_size (pairs, 0);
  for (guint k = a->autocast_regions->len; k-- > 0;)
    {
      const Region *r = &g_array_index (a->autocast_regions, Region, k);
      for (guint32 p = r->lo; p < r->hi; p++)
        fxs_pairs_add (pairs, p, r->exit);
    }
  fxs_csr_init_from_pairs (&plan->epilogues, P, pairs);
  g_array_free (pairs, TRUE);
}

/* ---- entry points ----------------------------------------------------------- */

static void
analysis_init (Analysis *a, FxsGraph *graph)
{
  memset (a, 0, sizeof *a);
  a->g = graph;
  a->n = fxs_graph_n_nodes (graph);
  a->r = fxs_split_result_new (graph);
  a->r->part_of = g_malloc ((a->n ? a->n : 1) * sizeof (guint32));
  a->attr_of = fxs_graph_target_attrs (graph);
  /* room for every node: pages of it never used are never touched */
  a->call_modules = g_malloc ((a->n ? a->n : 1) * sizeof (guint32));
  a->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  a->last = g_array_new (FALSE, FALSE, sizeof (Last));
  a->input_pairs = fxs_pairs_new ();
  a->output_pairs = fxs_pairs_new ();
  a->dependent_pairs = fxs_pairs_new ();
  fxs_id_map_init (&a->dense_of_id);
  a->dep_edges = g_array_new (FALSE, FALSE, sizeof (DepEdge));
  fxs_id_set_init (&a->input_seen);
  fxs_id_set_init (&a->dependent_seen);
  fxs_id_set_init (&a->dependency_seen);
  a->binder = g_hash_table_new (g_str_hash, g_str_equal);
  a->autocast_regions = g_array_new (FALSE, FALSE, sizeof (Region));
  a->grad_regions = g_array_new (FALSE, FALSE, sizeof (Region));
  a->open_autocast = g_hash_table_new (NULL, NULL);
}

static void
analysis_clear (Analysis *a)
{
  g_array_free (a->ids, TRUE);
  fxs_id_map_clear (&a->dense_of_id);
  if (a->input_pairs)
    {
      g_array_free (a->input_pairs, TRUE);
      g_array_free (a->output_pairs, TRUE);
      g_array_free (a->dependent_pairs, TRUE);
    }
  g_array_free (a->dep_edges, TRUE);
  g_free (a->call_modules);
  fxs_id_set_clear (&a->input_seen);
  g_free (a->first_input_part);
  g_free (a->is_output);
  g_array_free (a->last, TRUE);
  fxs_id_set_clear (&a->dependent_seen);
  fxs_id_set_clear (&a->dependency_seen);
  g_hash_table_unref (a->binder);
  g_array_free (a->autocast_regions, TRUE);
  g_array_free (a->grad_regions, TRUE);
  g_hash_table_unref (a->open_autocast);
  g_clear_error (&a->error);
}

/* Frees a pair list as soon as its table is made, to keep the peak low. */
static void
pairs_to_csr (FxsCsr *csr, guint n_groups, FxsPairs **pairs)
{
  fxs_csr_init_from_pairs (csr, n_groups, *pairs);
  g_array_free (*pairs, TRUE);
  *pairs = NULL;
}

static FxsSplitResult *
split (FxsGraph *graph, const IdSource *src, const FxsSplitOptions *options, GError **error)
{
  FxsSplitOptions *defaults = options ? NULL : fxs_split_options_new ();
  if (!options)
    options = defaults;
  FxsSplitPlan plan = {
    .keep_original_order = fxs_split_options_get_keep_original_order (options),
    .keep_original_node_name = fxs_split_options_get_keep_original_node_name (options),
    .keep_original_input_name = fxs_split_options_get_keep_original_input_name (options),
    .tuple_return = fxs_split_options_get_tuple_return (options),
    .threads = fxs_split_options_get_threads (options),
  };
  Analysis a;
  analysis_init (&a, graph);
  FxsCsr deps = { NULL, NULL };
  guint32 *order = NULL;
  uses_init (&a);
  a.fused = TRUE;
  gboolean ok = assign_partitions (&a, src, error) && (a.fused || record_uses (&a, error));
  if (ok)
    {
      guint P = a.ids->len;
      make_partitions (&a, fxs_split_options_get_partition_affix (options));
      make_node_lists (a.r, a.n);
      pairs_to_csr (&a.r->inputs, P, &a.input_pairs);
      pairs_to_csr (&a.r->outputs, P, &a.output_pairs);
      pairs_to_csr (&a.r->dependents, P, &a.dependent_pairs);
      make_dependency_edges (&a, &deps);
      order = g_new (guint32, P ? P : 1);
      ok = sort_partitions (&a, &deps, order, error);
      if (ok && plan.keep_original_order)
        {
          for (guint p = 0; p < P; p++)
            order[p] = p;
          ok = check_original_order (&a, &deps, error);
        }
    }
  if (ok)
    {
      make_global_state_copies (&a, &plan);
      plan.n_call_modules = a.n_call_modules;
      plan.call_modules = a.call_modules;
      plan.attr_of = a.attr_of;
      a.call_modules = NULL;
      deps_to_partitions (&a, &deps);
      a.r->dependencies = deps;
      deps.offsets = deps.items = NULL;
      apply_order (a.r, order);
    }
  FxsSplitResult *result = a.r;
  analysis_clear (&a);
  fxs_csr_clear (&deps);
  g_free (order);
  fxs_split_options_free (defaults);

  ok = ok && fxs_split_build (result, &plan, error);
  g_free (plan.call_modules);
  fxs_csr_clear (&plan.preludes);
  fxs_csr_clear (&plan.epilogues);
  if (!ok)
    {
      fxs_split_result_free (result);
      return NULL;
    }
  return result;
}

FxsSplitResult *
fxs_split (FxsGraph *graph, FxsSplitCallback callback, gpointer user_data,
           const FxsSplitOptions *options, GError **error)
{
  g_return_val_if_fail (graph != NULL && callback != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  IdSource src = { callback, user_data, NULL };
  return split (graph, &src, options, error);
}

FxsSplitResult *
fxs_split_with_ids (FxsGraph *graph, const gint64 *ids, const FxsSplitOptions *options,
                    GError **error)
{
  g_return_val_if_fail (graph != NULL && (ids != NULL || fxs_graph_n_nodes (graph) == 0), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  IdSource src = { NULL, NULL, ids };
  return split (graph, &src, options, error);
}
