/* The mincut partitioner: K partitions within a balance tolerance that send
 * as few bytes between them as possible, and never form a cycle (so the
 * split cannot fail with one).  See acyclic-cut.h for the algorithm. */
#include <fxsplit/partitioner.h>

#include "acyclic-cut.h"
#include "cost-option.h"

typedef struct {
  FxsCostKind cost;
  AcyclicCutParams params;
  gint64 *ids;       /* per node index of the prepared graph */
  guint n_nodes;
} Mincut;

static const FxsOptionSpec mincut_options[] = {
  { .key = "parts", .type = FXS_OPTION_INT, .flags = FXS_OPTION_REQUIRED,
    .help = "number of partitions K >= 1 (fewer when the graph has fewer call nodes)" },
  COST_OPTION_SPEC,
  { .key = "tolerance", .type = FXS_OPTION_FLOAT, .default_value = "0.05",
    .help = "each partition may cost up to (1 + tolerance) * total / K, or the best "
            "contiguous split's bottleneck when that is more" },
  { .key = "passes", .type = FXS_OPTION_INT, .default_value = "8",
    .help = "refinement sweeps at most, and with multilevel the passes on each level "
            "of each bisection (0: no refinement)" },
  { .key = "seed", .type = FXS_OPTION_INT, .default_value = "0",
    .help = "breaks ties between equal moves and orders the coarsening; the result is "
            "the same for the same seed" },
  { .key = "algorithm", .type = FXS_OPTION_STRING, .default_value = "multilevel",
    .help = "refine (mincut 1.0): the best contiguous splits, refined by moves between "
            "neighbouring partitions; multilevel: also coarsens the graph keeping it acyclic, "
            "splits it by recursive bisection refined on every level, refines the result "
            "like refine, and keeps it when it cuts less" },
  { .key = "coarsest", .type = FXS_OPTION_INT, .default_value = "64",
    .help = "multilevel: a bisection stops coarsening at this many nodes" },
  { .key = "tries", .type = FXS_OPTION_INT, .default_value = "8",
    .help = "multilevel: initial bisections of the coarsest graph tried (prefixes of "
            "different topological orders, each refined); the best is kept" },
  { NULL },
};

static gboolean
mincut_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  gint64 parts = fxs_plugin_option_int (ctx, "parts");
  double tolerance = fxs_plugin_option_float (ctx, "tolerance");
  gint64 passes = fxs_plugin_option_int (ctx, "passes");
  gint64 coarsest = fxs_plugin_option_int (ctx, "coarsest");
  gint64 tries = fxs_plugin_option_int (ctx, "tries");
  const char *algorithm = fxs_plugin_option_string (ctx, "algorithm");
  FxsCostKind cost;
  if (parts < 1 || parts > G_MAXINT32)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "parts: must be between 1 and %d, got %" G_GINT64_FORMAT, G_MAXINT32, parts);
  else if (!(tolerance >= 0.0 && tolerance <= 1e6))
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "tolerance: must be between 0 and 1e6, got %g", tolerance);
  else if (passes < 0 || passes > 1000)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "passes: must be between 0 and 1000, got %" G_GINT64_FORMAT, passes);
  else if (coarsest < 2 || coarsest > 1000000)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "coarsest: must be between 2 and 1000000, got %" G_GINT64_FORMAT, coarsest);
  else if (tries < 1 || tries > 1000)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "tries: must be between 1 and 1000, got %" G_GINT64_FORMAT, tries);
  else if (g_strcmp0 (algorithm, "multilevel") != 0 && g_strcmp0 (algorithm, "refine") != 0)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "algorithm: must be multilevel or refine, got '%s'", algorithm);
  else if (cost_option_parse (fxs_plugin_option_string (ctx, "cost"), &cost, error))
    {
      Mincut *m = g_new0 (Mincut, 1);
      m->cost = cost;
      m->params.parts = (guint) parts;
      m->params.tolerance = tolerance;
      m->params.passes = (guint) passes;
      m->params.seed = (guint64) fxs_plugin_option_int (ctx, "seed");
      m->params.algorithm = g_strcmp0 (algorithm, "refine") == 0 ? ACYCLIC_REFINE
                                                                 : ACYCLIC_MULTILEVEL;
      m->params.coarsest = (guint) coarsest;
      m->params.tries = (guint) tries;
      *state = m;
      return TRUE;
    }
  return FALSE;
}

static void
mincut_fini (gpointer state)
{
  Mincut *m = state;
  g_free (m->ids);
  g_free (m);
}

/* Bytes of a graph input (placeholder or get_attr) value, 1 when unknown. */
static gint64
input_bytes (const FxsGraph *graph, const FxsNode *node)
{
  gint64 b = fxs_node_output_bytes (node);
  if (b < 0 && fxs_node_op (node) == FXS_OP_GET_ATTR)
    {
      const FxsAttr *a = fxs_graph_lookup_attr (graph, fxs_node_target (node));
      const FxsTensorMeta *t = a ? fxs_attr_tensor (a) : NULL;
      b = t ? fxs_tensor_bytes (t) : -1;
    }
  return b < 0 ? 1 : b;
}

/* What the partitions receive from the graph's inputs: not part of the cut
 * mincut minimizes (no partition produces them), reported apart. */
static gint64
graph_input_bytes (const FxsGraph *graph, const gint64 *ids, guint n_parts)
{
  gint64 total = 0;
  guint32 *stamp = g_new0 (guint32, n_parts ? n_parts : 1);
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      FxsOp op = fxs_node_op (node);
      if (op != FXS_OP_PLACEHOLDER && op != FXS_OP_GET_ATTR)
        continue;
      for (guint k = 0; k < fxs_node_n_users (node); k++)
        {
          const FxsNode *user = fxs_node_user (node, k);
          FxsOp uop = fxs_node_op (user);
          if (uop == FXS_OP_OUTPUT || uop == FXS_OP_PLACEHOLDER || uop == FXS_OP_GET_ATTR)
            continue;
          gint64 p = ids[fxs_node_index (user)];
          if (stamp[p] != i + 1)
            {
              stamp[p] = i + 1;
              total += input_bytes (graph, node);
            }
        }
    }
  g_free (stamp);
  return total;
}

static gboolean
mincut_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) error;
  Mincut *m = state;
  guint n_calls;
  guint32 *call_index;
  gint64 *costs = cost_option_call_costs (ctx, graph, m->cost, &n_calls, &call_index);
  CallDag *dag = call_dag_new (graph);
  gint64 *bytes = call_dag_value_bytes (dag, graph);
  guint32 *part = g_new (guint32, n_calls ? n_calls : 1);
  AcyclicCutStats stats;
  acyclic_cut (dag, costs, bytes, &m->params, part, &stats);

  g_free (m->ids);
  m->n_nodes = fxs_graph_n_nodes (graph);
  m->ids = g_new0 (gint64, m->n_nodes ? m->n_nodes : 1);
  for (guint v = 0; v < n_calls; v++)
    m->ids[dag->node_index[v]] = part[v];

  if (stats.relaxed)
    fxs_plugin_log (ctx, FXS_LOG_WARNING,
                    "no contiguous split meets tolerance %g; every partition may cost up to %"
                    G_GINT64_FORMAT " (the best contiguous bottleneck)",
                    m->params.tolerance, stats.limit);
  fxs_plugin_log (ctx, FXS_LOG_INFO,
                  "%u partitions, cut %" G_GINT64_FORMAT " bytes (best contiguous split: %"
                  G_GINT64_FORMAT "), largest partition cost %" G_GINT64_FORMAT " of limit %"
                  G_GINT64_FORMAT " (cost %s, total %" G_GINT64_FORMAT ")",
                  stats.parts, stats.cut, stats.contiguous_cut, stats.max_load, stats.limit,
                  fxs_cost_kind_to_string (m->cost), stats.total);
  fxs_plugin_log (ctx, FXS_LOG_INFO,
                  "graph inputs (placeholders, get_attr) sent to partitions: %" G_GINT64_FORMAT
                  " bytes, not counted in the cut", graph_input_bytes (graph, m->ids, stats.parts));
  g_free (part);
  g_free (bytes);
  call_dag_free (dag);
  g_free (costs);
  g_free (call_index);
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "mincut",
    .version = "1.1",
    .description = "K balanced acyclic partitions that send the fewest bytes between them",
    .options = mincut_options,
    .init = mincut_init,
    .fini = mincut_fini,
  },
  .prepare = mincut_prepare,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  const Mincut *m = state;
  return fxs_partitioner_precomputed_id (m->ids, m->n_nodes, node, partition, error);
}
