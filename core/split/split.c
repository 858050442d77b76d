/* The splitting engine's analysis, after torch.fx.passes.split_module:
 * which partition every call node goes to, each partition's inputs,
 * outputs and dependencies, the global-state regions, and the order in
 * which the top-level graph calls the partitions (uses.c records the
 * uses and finds the order); build.c then makes the graphs.
 * docs/split-semantics.md has the rules.  Everything is linear in the graph. */
#include "analysis.h"

#include <string.h>

typedef struct {
  FxsSplitCallback callback;
  gpointer user_data;
  const gint64 *ids;
} IdSource;

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

/* The first node @value refers to, or NULL. */
static const FxsNode *
first_ref (const Analysis *a, const FxsValue *value)
{
  /* every reference lies past the graph's first 0 nodes */
  return fxs_graph_bad_ref (a->g, 0, value, NULL);
}

/* ---- pass 1: partitions, symbols, global-state regions ------------------- */

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
    g_array_append_val (a->ids, id);
  a->last_dense = dense;
  return dense;
}

static gboolean
check_attr (Analysis *a, const FxsNode *node, GError **error)
{
  if (a->plan->attr_of[node->index] != G_MAXUINT32)
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
  const FxsNode *ref = first_ref (a, &node->kwargs);
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
      ref = first_ref (a, &node->args);
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
  gpointer region = NULL;
  if (node->args.n == 1 && node->args.u.items[0].kind == FXS_VALUE_NODE)
    g_hash_table_steal_extended (a->open_autocast,
                                 GUINT_TO_POINTER (node->args.u.items[0].u.node->index + 1), NULL,
                                 &region);
  if (!region)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                   "node '%s': %s takes exactly one argument, an _enter_autocast node "
                   "whose region is still open", node->name, node->target);
      return FALSE;
    }
  Region *r = &g_array_index (a->autocast_regions, Region, GPOINTER_TO_UINT (region) - 1);
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
            const FxsNode *ref = node->args.n ? first_ref (a, &node->args.u.items[0]) : NULL;
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
          a->plan->call_modules[a->plan->n_call_modules++] = i;
        }
      if (!track_global_state (a, node, dense, last_call_part, error))
        return FALSE;
      last_call_part = dense;
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

/* ---- the result's tables ---------------------------------------------------- */

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
analysis_init (Analysis *a, FxsGraph *graph, FxsSplitPlan *plan)
{
  memset (a, 0, sizeof *a);
  a->g = graph;
  a->n = fxs_graph_n_nodes (graph);
  a->r = fxs_split_result_new (graph);
  a->r->part_of = g_malloc ((a->n ? a->n : 1) * sizeof (guint32));
  a->plan = plan;
  plan->attr_of = fxs_graph_target_attrs (graph);
  /* room for every node: pages of it never used are never touched */
  plan->call_modules = g_malloc ((a->n ? a->n : 1) * sizeof (guint32));
  a->ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  a->input_pairs = fxs_pairs_new ();
  a->output_pairs = fxs_pairs_new ();
  fxs_id_map_init (&a->dense_of_id);
  a->dep_edges = g_array_new (FALSE, FALSE, sizeof (FxsDepEdge));
  fxs_id_set_init (&a->input_seen);
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
  g_array_free (a->input_pairs, TRUE);
  g_array_free (a->output_pairs, TRUE);
  g_array_free (a->dep_edges, TRUE);
  fxs_id_set_clear (&a->input_seen);
  g_free (a->is_output);
  fxs_id_set_clear (&a->dependency_seen);
  g_hash_table_unref (a->binder);
  g_array_free (a->autocast_regions, TRUE);
  g_array_free (a->grad_regions, TRUE);
  g_hash_table_unref (a->open_autocast);
  g_clear_error (&a->error);
}

static FxsSplitResult *
split (FxsGraph *graph, const IdSource *src, const FxsSplitOptions *options, GError **error)
{
  FxsSplitPlan plan = { .options = options ? options : &fxs_split_options_default };
  Analysis a;
  analysis_init (&a, graph, &plan);
  gboolean ok = assign_partitions (&a, src, error) && fxs_analysis_record_uses (&a, error);
  if (ok)
    {
      guint P = a.ids->len;
      fxs_split_result_add_partitions (a.r, a.ids, plan.options->partition_affix);
      fxs_csr_init (&a.r->nodes, P, a.n, a.r->part_of, NULL, 1);
      fxs_csr_init_from_pairs (&a.r->inputs, P, a.input_pairs);
      fxs_csr_init_from_pairs (&a.r->outputs, P, a.output_pairs);
      ok = fxs_analysis_order (&a, error);
    }
  if (ok)
    make_global_state_copies (&a, &plan);
  FxsSplitResult *result = a.r;
  analysis_clear (&a);

  if (ok)
    fxs_split_build (result, &plan);
  else
    g_clear_pointer (&result, fxs_split_result_free);
  g_free (plan.call_modules);
  fxs_csr_clear (&plan.preludes);
  fxs_csr_clear (&plan.epilogues);
  return result;
}

FxsSplitResult *
fxs_split (FxsGraph *graph, FxsSplitCallback callback, gpointer user_data,
           const FxsSplitOptions *options, GError **error)
{
  g_return_val_if_fail (graph != NULL && callback != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return split (graph, &(IdSource) { callback, user_data, NULL }, options, error);
}

FxsSplitResult *
fxs_split_with_ids (FxsGraph *graph, const gint64 *ids, const FxsSplitOptions *options,
                    GError **error)
{
  g_return_val_if_fail (graph != NULL && (ids != NULL || fxs_graph_n_nodes (graph) == 0), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return split (graph, &(IdSource) { NULL, NULL, ids }, options, error);
}
