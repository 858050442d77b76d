/* The "cost" option shared by balanced and mincut. */
#include "cost-option.h"

gboolean
cost_option_parse (const char *text, FxsCostKind *kind, GError **error)
{
  if (fxs_cost_kind_from_string (text, kind))
    return TRUE;
  g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
               "cost: unknown cost kind '%s' (valid: " FXS_COST_KIND_NAMES ")",
               text ? text : "");
  return FALSE;
}

static gboolean
is_call (const FxsNode *node)
{
  FxsOp op = fxs_node_op (node);
  return op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE;
}

gint64 *
cost_option_call_costs (FxsPluginContext *ctx, const FxsGraph *graph, FxsCostKind kind,
                        guint *n_calls, guint32 **call_index)
{
  FxsNodeCosts *costs = fxs_node_costs_new (graph, kind);
  guint n = fxs_graph_n_nodes (graph);
  gint64 *out = g_new (gint64, n ? n : 1);
  guint32 *index = g_new (guint32, n ? n : 1);
  guint m = 0;
  for (guint i = 0; i < n; i++)
    if (is_call (fxs_graph_node (graph, i)))
      {
        out[m] = fxs_node_costs_get (costs, i);
        index[m++] = i;
      }
  guint unknown = fxs_node_costs_n_unknown (costs);
  if (ctx && unknown > 0)
    fxs_plugin_log (ctx, FXS_LOG_WARNING,
                    "%u of %u call nodes have no known %s cost (the first is '%s'); they count 0",
                    unknown, m, fxs_cost_kind_to_string (kind),
                    fxs_node_name (fxs_node_costs_first_unknown (costs)));
  fxs_node_costs_free (costs);
  *n_calls = m;
  *call_index = index;
  return out;
}
