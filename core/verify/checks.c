/* The checks of a split once the whole of it was evaluated (verify.c):
 * the top-level output, every original computation, and the submodules'
 * inputs, outputs and calls. */
#include "verify-private.h"

#include <string.h>

gboolean
fxs_verify_check_output (Verifier *v, Scope *top)
{
  const FxsNode *out = fxs_graph_output_node (top->graph);
  const FxsNode *orig_out = fxs_graph_output_node (v->orig.graph);
  if (!out || out->args.n != 1)
    return fxs_verify_fail (v, "the top-level graph's output node must return exactly one value");
  GString *path = g_string_new (NULL), *why = g_string_new (NULL);
  gboolean differs = fxs_verify_first_difference (v, &out->args.u.items[0], top, &orig_out->args.u.items[0],
                                       &v->orig, path, why);
  if (differs)
    fxs_verify_fail (v, "the top-level output%s %s", path->str, why->str);
  g_string_free (path, TRUE);
  g_string_free (why, TRUE);
  return !differs;
}

gboolean
fxs_verify_check_counts (Verifier *v)
{
  const FxsGraph *g = v->orig.graph;
  for (guint i = 0; i < fxs_graph_n_nodes (g); i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      if (!fxs_op_is_call ((FxsOp) node->op))
        continue;
      const Vn *vn = &g_array_index (v->vns, Vn, v->orig.val[i]);
      if (vn->n_split >= vn->n_orig)
        continue;
      return fxs_verify_fail (v, "%s is not computed by the split%s", fxs_verify_orig_node (v, node),
                   fxs_node_n_users (node) ? "" : " (it is dead code, but split_module keeps "
                   "every call node, and dropping one may drop a side effect)");
    }
  return TRUE;
}

gboolean
fxs_verify_check_inputs_used (Verifier *v, const Scope *scope)
{
  for (guint i = 0; i < fxs_graph_n_nodes (scope->graph); i++)
    {
      const FxsNode *node = fxs_graph_node (scope->graph, i);
      if (node->op != FXS_OP_PLACEHOLDER || fxs_node_n_users (node) > 0 || fxs_node_symbol (node))
        continue;
      return fxs_verify_fail (v, "%s is an input that nothing in the submodule uses",
                   fxs_verify_split_node (v, scope, node));
    }
  return TRUE;
}

gboolean
fxs_verify_check_outputs_read (Verifier *v, const Scope *scope)
{
  const FxsNode *call = scope->call;
  const FxsNode *out = fxs_graph_output_node (scope->graph);
  const FxsValue *ret = &out->args.u.items[0];
  const FxsValue *items = ret;
  guint n = 1;
  if (ret->kind == FXS_VALUE_TUPLE || ret->kind == FXS_VALUE_LIST)
    {
      items = ret->u.items;
      n = ret->n;
    }
  gboolean whole = FALSE;
  guint8 *read = g_new0 (guint8, n ? n : 1);
  for (guint u = 0; u < fxs_node_n_users (call) && !whole; u++)
    {
      const FxsNode *user = fxs_node_user (call, u);
      gboolean picks = ret != items && user->op == FXS_OP_CALL_FUNCTION
                       && strcmp (user->target, "_operator.getitem") == 0 && user->args.n == 2
                       && user->args.u.items[0].kind == FXS_VALUE_NODE
                       && user->args.u.items[0].u.node == call
                       && user->args.u.items[1].kind == FXS_VALUE_INT
                       && user->args.u.items[1].u.i >= 0
                       && (guint64) user->args.u.items[1].u.i < n;
      if (!picks)
        whole = TRUE;
      else if (fxs_node_n_users (user) > 0)
        read[user->args.u.items[1].u.i] = TRUE;
    }
  for (guint k = 0; k < n && !whole; k++)
    {
      if (read[k])
        continue;
      GString *m = g_string_new (NULL);
      g_string_append_printf (m, "%s returns ", scope->name);
      if (items[k].kind == FXS_VALUE_NODE)
        fxs_verify_append_quoted (m, items[k].u.node->name);
      else
        g_string_append (m, fxs_verify_kind_name ((FxsValueKind) items[k].kind));
      if (ret != items)
        g_string_append_printf (m, " (output %u)", k);
      g_string_append (m, ", which nothing in the top-level graph reads");
      fxs_verify_fail (v, "%s", m->str);
      g_string_free (m, TRUE);
      break;
    }
  g_free (read);
  return v->error == NULL;
}

gboolean
fxs_verify_check_all_called (Verifier *v)
{
  if (v->called.table.used >= g_hash_table_size (v->submodules))
    return TRUE;
  /* the first by name: the names sorted */
  GList *names = g_list_sort (g_hash_table_get_keys (v->submodules), (GCompareFunc) strcmp);
  for (GList *l = names; l; l = l->next)
    {
      const FxsGraph *sub = g_hash_table_lookup (v->submodules, l->data);
      if (fxs_id_set_add (&v->called, (guint64) (guintptr) sub))
        {
          fxs_verify_fail (v, "submodule %s is never called by the top-level graph",
                fxs_verify_quoted (v, l->data));
          break;
        }
    }
  g_list_free (names);
  return v->error == NULL;
}

