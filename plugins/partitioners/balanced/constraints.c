/* The capacity, speed and bandwidth options of the balanced partitioner,
 * and the StageGraph (plugins/common/stage-plan.h) of a graph's call
 * nodes: their costs, parameter bytes (cost param_bytes), the bytes of
 * their values and the values they read (earlier call nodes and graph
 * inputs; get_attr values are parameters, counted in param_bytes). */
#include "constraints.h"

#include <math.h>
#include <string.h>

#include "cost-option.h"
#include "stage-plan.h"
#include "units.h"

/* The comma-separated items of option @key, exactly @k of them. */
static char **
split_list (FxsPluginContext *ctx, const char *key, guint k, GError **error)
{
  char **items = g_strsplit (fxs_plugin_option_string (ctx, key), ",", -1);
  for (char **t = items; *t; t++)
    g_strstrip (*t);
  guint n = g_strv_length (items);
  if (n != k)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s: %u value%s for %u stage%s (give one per stage)",
                   key, n, n == 1 ? "" : "s", k, k == 1 ? "" : "s");
      g_strfreev (items);
      return NULL;
    }
  return items;
}

static gboolean
parse_speeds (FxsPluginContext *ctx, Constraints *c, GError **error)
{
  char **items = split_list (ctx, "speed", c->k, error);
  if (!items)
    return FALSE;
  for (guint i = 0; i < c->k; i++)
    {
      char *end = NULL;
      double v = g_ascii_strtod (items[i], &end);
      if (!*items[i] || *end || !isfinite (v) || v <= 0)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                       "speed: value %u '%s' is not a positive number", i + 1, items[i]);
          g_strfreev (items);
          return FALSE;
        }
      c->speed[i] = v;
    }
  g_strfreev (items);
  return TRUE;
}

static gboolean
parse_capacities (FxsPluginContext *ctx, Constraints *c, GError **error)
{
  char **items = split_list (ctx, "capacity", c->k, error);
  if (!items)
    return FALSE;
  c->capacity = g_new (gint64, c->k);
  for (guint i = 0; i < c->k; i++)
    if (!units_parse_bytes (items[i], &c->capacity[i]))
      {
        g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "capacity: value %u '%s' is not a size (%s)",
                     i + 1, items[i], UNITS_BYTES_SYNTAX);
        g_strfreev (items);
        return FALSE;
      }
  g_strfreev (items);
  return TRUE;
}

Constraints *
constraints_new (FxsPluginContext *ctx, guint k, GError **error)
{
  gboolean capacity = fxs_plugin_option_is_set (ctx, "capacity");
  gboolean speed = fxs_plugin_option_is_set (ctx, "speed");
  gboolean bandwidth = fxs_plugin_option_is_set (ctx, "bandwidth");
  if (!capacity && !speed && !bandwidth)
    return NULL;
  if (k > CONSTRAINTS_MAX_STAGES)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "stages: at most %u with capacity, speed or bandwidth, got %u", CONSTRAINTS_MAX_STAGES, k);
      return NULL;
    }
  Constraints *c = g_new0 (Constraints, 1);
  c->k = k;
  c->speed = g_new (double, k);
  for (guint i = 0; i < k; i++)
    c->speed[i] = 1;
  if ((speed && !parse_speeds (ctx, c, error)) || (capacity && !parse_capacities (ctx, c, error)))
    {
      constraints_free (c);
      return NULL;
    }
  if (bandwidth)
    {
      c->bandwidth = fxs_plugin_option_float (ctx, "bandwidth");
      if (!isfinite (c->bandwidth) || c->bandwidth <= 0)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "bandwidth: must be a positive number, got %g",
                       c->bandwidth);
          constraints_free (c);
          return NULL;
        }
    }
  return c;
}

void
constraints_free (Constraints *c)
{
  if (!c)
    return;
  g_free (c->speed);
  g_free (c->capacity);
  g_free (c);
}

static gboolean
is_call (FxsOp op)
{
  return op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE;
}

typedef struct {
  StageGraph g;
  guint32 *call_index;  /* element -> node index */
  gint64 *cost, *params, *bytes;
  guint32 *in_start, *in;
} Built;

static void
build (FxsPluginContext *ctx, const FxsGraph *graph, FxsCostKind kind, Built *b)
{
  guint n_nodes = fxs_graph_n_nodes (graph), n;
  b->cost = cost_option_call_costs (ctx, graph, kind, &n, &b->call_index);
  /* value id per node: elements first, then placeholders; NONE for others */
  guint32 *id = g_new (guint32, n_nodes + 1);
  guint n_external = 0;
  for (guint i = 0, e = 0; i < n_nodes; i++)
    {
      FxsOp op = fxs_node_op (fxs_graph_node (graph, i));
      id[i] = is_call (op) ? e++ : op == FXS_OP_PLACEHOLDER ? n + n_external++ : G_MAXUINT32;
    }
  FxsNodeCosts *params = fxs_node_costs_new (graph, FXS_COST_PARAM_BYTES);
  b->params = g_new (gint64, n + 1);
  b->bytes = g_new (gint64, n + n_external + 1);
  b->in_start = g_new0 (guint32, n + 2);
  for (guint i = 0; i < n_nodes; i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      if (id[i] == G_MAXUINT32)
        continue;
      if (id[i] < n)
        b->params[id[i]] = fxs_node_costs_get (params, i);
      b->bytes[id[i]] = MAX (fxs_node_output_bytes (node), 0);
      for (guint u = 0; u < fxs_node_n_users (node); u++)
        {
          guint32 reader = id[fxs_node_index (fxs_node_user (node, u))];
          if (reader < n)
            b->in_start[reader + 1]++;
        }
    }
  fxs_node_costs_free (params);
  for (guint j = 0; j < n; j++)
    b->in_start[j + 1] += b->in_start[j];
  b->in = g_new (guint32, b->in_start[n] + 1);
  guint32 *fill = g_memdup2 (b->in_start, (n + 1) * sizeof (guint32));
  for (guint i = 0; i < n_nodes; i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      if (id[i] == G_MAXUINT32)
        continue;
      for (guint u = 0; u < fxs_node_n_users (node); u++)
        {
          guint32 reader = id[fxs_node_index (fxs_node_user (node, u))];
          if (reader < n)
            b->in[fill[reader]++] = id[i];
        }
    }
  g_free (fill);
  g_free (id);
  b->g = (StageGraph) { .n = n, .n_external = n_external, .cost = b->cost, .params = b->params,
                        .bytes = b->bytes, .in_start = b->in_start, .in = b->in };
}

static void
built_clear (Built *b)
{
  g_free (b->call_index);
  g_free (b->cost);
  g_free (b->params);
  g_free (b->bytes);
  g_free (b->in_start);
  g_free (b->in);
}

static const char *
element_name (const FxsGraph *graph, const Built *b, guint e)
{
  return fxs_node_name (fxs_graph_node (graph, b->call_index[e]));
}

/* The one error line when no plan fits: a node too big for every stage,
 * or where filling each stage as far as it fits runs out of stages. */
static void
set_capacity_error (const FxsGraph *graph, const Constraints *c, const Built *b, guint left,
                    guint last_start, GError **error)
{
  gint64 largest = 0;
  for (guint k = 0; k < c->k; k++)
    largest = MAX (largest, c->capacity[k]);
  gint64 alone = stage_plan_memory (&b->g, left, left + 1);
  GString *need = g_string_new (NULL), *cap = g_string_new (NULL);
  if (alone > largest)
    {
      units_append_bytes (need, alone);
      units_append_bytes (cap, largest);
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "capacity: call node '%s' alone needs %s (its parameters, its value and the values it reads),"
                   " more than the largest capacity %s", element_name (graph, b, left), need->str, cap->str);
    }
  else
    {
      units_append_bytes (need, stage_plan_memory (&b->g, last_start, left + 1));
      units_append_bytes (cap, c->capacity[c->k - 1]);
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "capacity: no split into %u stages fits: with each stage filled as far as its capacity allows,"
                   " the last stage (capacity %s) would need %s to take call node '%s' too, and %u call nodes"
                   " from it on are left over", c->k, cap->str, need->str, element_name (graph, b, left),
                   b->g.n - left);
    }
  g_string_free (need, TRUE);
  g_string_free (cap, TRUE);
}

gboolean
constraints_plan (FxsPluginContext *ctx, const Constraints *c, const FxsGraph *graph,
                  FxsCostKind kind, gint64 *ids, GError **error)
{
  Built b;
  build (ctx, graph, kind, &b);
  guint n = b.g.n;
  if (c->bandwidth > 0 && (n > STAGE_PLAN_MAX_SENDING_ELEMENTS
                           || (guint64) c->k * (n + 1) > STAGE_PLAN_MAX_SENDING_PAIRS))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "bandwidth: the plan with sending times takes time quadratic in the call nodes: this graph"
                   " has %u call nodes for %u stages, at most %u call nodes and %u stage x call node pairs"
                   " are planned (drop bandwidth, or plan a coarser graph)",
                   n, c->k, STAGE_PLAN_MAX_SENDING_ELEMENTS, STAGE_PLAN_MAX_SENDING_PAIRS);
      built_clear (&b);
      return FALSE;
    }
  StageDevices d = { .k = c->k, .speed = c->speed, .capacity = c->capacity, .bandwidth = c->bandwidth };
  guint32 *stage_of = g_new0 (guint32, n + 1);
  double bottleneck = 0;
  guint left = 0, last_start = 0;
  gboolean ok = stage_plan (&b.g, &d, stage_of, &bottleneck, &left, &last_start);
  if (!ok)
    set_capacity_error (graph, c, &b, left, last_start, error);
  else
    {
      for (guint e = 0; e < n; e++)
        ids[b.call_index[e]] = stage_of[e];
      guint used = 0;
      for (guint e = 0; e < n; e++)
        used += e == 0 || stage_of[e] != stage_of[e - 1];
      fxs_plugin_log (ctx, FXS_LOG_INFO, "%u stages (%u with nodes), bottleneck %.6g (time = cost %s / speed%s)",
                      c->k, used, bottleneck, fxs_cost_kind_to_string (kind),
                      c->bandwidth > 0 ? " + bytes sent / bandwidth" : "");
      for (guint e = 0, s = 0; e < n; e = s)
        {
          for (s = e; s < n && stage_of[s] == stage_of[e]; s++)
            ;
          GString *mem = g_string_new (NULL);
          units_append_bytes (mem, stage_plan_memory (&b.g, e, s));
          fxs_plugin_log (ctx, FXS_LOG_DEBUG, "stage %u: call nodes '%s' to '%s', memory %s",
                          stage_of[e], element_name (graph, &b, e), element_name (graph, &b, s - 1), mem->str);
          g_string_free (mem, TRUE);
        }
    }
  g_free (stage_of);
  built_clear (&b);
  return ok;
}
