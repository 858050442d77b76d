/* Node costs for partitioners: node count, parameter bytes, output bytes
 * and estimated FLOPs (see include/fxsplit/cost.h for the definitions). */
#include <fxsplit/cost.h>
#include "graph-private.h"

#include <string.h>

struct FxsNodeCosts {
  guint n;
  gint64 *costs;
  gint64 total;
  guint n_unknown;
  const FxsNode *first_unknown;
};

static const char *const kind_names[] = { "nodes", "param_bytes", "output_bytes", "flops" };

FXS_ENUM_STRINGS (FxsCostKind, fxs_cost_kind_to_string, fxs_cost_kind_from_string,
                  kind_names)

/* ---- parameter bytes ------------------------------------------------------ */

/* Bytes of the parameters and buffers under each module attribute, by its
 * position in the table, in one pass over it (fxs_attr_bytes per node would
 * rescan the table for every call_module). */
static gint64 *
module_bytes (FxsGraph *graph)
{
  gint64 *sums = g_new0 (gint64, MAX (graph->attrs->len, 1));
  for (guint i = 0; i < graph->attrs->len; i++)
    {
      const FxsAttr *a = graph->attrs->pdata[i];
      if (a->kind != FXS_ATTR_PARAMETER && a->kind != FXS_ATTR_BUFFER)
        continue;
      gint64 bytes = fxs_attr_bytes (a);
      for (const char *dot = strchr (a->name, '.'); bytes > 0 && dot; dot = strchr (dot + 1, '.'))
        {
          gsize len = dot - a->name;
          guint32 at = fxs_graph_name_position (graph, FALSE, a->name, len,
                                                fxs_name_hash (a->name, len));
          if (at != G_MAXUINT32)
            sums[at] += bytes;
        }
    }
  return sums;
}

typedef struct {
  const guint32 *attr_of;  /* fxs_graph_target_attrs() */
  gint64 *module_bytes;
  guint32 *seen;        /* per node index: 1 + index of the last user that counted it */
  guint32 stamp;
  gint64 bytes;
  gboolean unknown;     /* for the node last scanned */
} ParamScan;

/* Adds the bytes of the attribute that is @node's target, or notes that
 * they are unknown. */
static void
add_attr_bytes (ParamScan *scan, const FxsNode *node)
{
  guint32 at = scan->attr_of[node->index];
  const FxsAttr *attr = at != G_MAXUINT32 ? node->graph->attrs->pdata[at] : NULL;
  gint64 b = -1;
  if (attr && fxs_attr_kind (attr) == FXS_ATTR_MODULE)
    b = scan->module_bytes[at];
  else if (attr && fxs_attr_kind (attr) == FXS_ATTR_OBJECT)
    b = 0;
  else if (attr && fxs_attr_tensor (attr))
    b = fxs_tensor_bytes (fxs_attr_tensor (attr));
  if (b < 0)
    scan->unknown = TRUE;
  else
    scan->bytes += b;
}

static void
add_get_attr_arg (const FxsNode *def, gpointer data)
{
  ParamScan *scan = data;
  if (fxs_node_op (def) != FXS_OP_GET_ATTR || scan->seen[fxs_node_index (def)] == scan->stamp)
    return;
  scan->seen[fxs_node_index (def)] = scan->stamp;
  add_attr_bytes (scan, def);
}

static gint64
param_bytes (ParamScan *scan, const FxsNode *node)
{
  scan->stamp = fxs_node_index (node) + 1;
  scan->bytes = 0;
  scan->unknown = FALSE;
  if (fxs_node_op (node) == FXS_OP_CALL_MODULE)
    add_attr_bytes (scan, node);
  fxs_value_foreach_node (fxs_node_args (node), add_get_attr_arg, scan);
  fxs_value_foreach_node (fxs_node_kwargs (node), add_get_attr_arg, scan);
  return scan->bytes;
}

/* ---- FLOPs ---------------------------------------------------------------- */

typedef enum {
  FLOPS_ZERO = 1,       /* shape and data movement: known, free */
  FLOPS_ELEMENTWISE,    /* one per output element */
  FLOPS_NORM,           /* normalizations and softmax: five per output element */
  FLOPS_REDUCTION,      /* one per element of the first input */
  FLOPS_LINEAR,         /* f(input, weight, bias) with weight [out, in] */
  FLOPS_MATMUL,         /* f(a, b): 2 * out * a's last dim */
  FLOPS_ADDMM,          /* f(bias, a, b): matmul plus one add per output element */
  FLOPS_CONV,           /* f(input, weight, bias) with weight [out, in/groups, k...] */
  FLOPS_CONV_TRANSPOSE, /* weight [in, out/groups, k...] */
  FLOPS_ATTENTION,      /* nn.MultiheadAttention */
} FlopsRule;

/* A rule and the names it is for, separated by spaces. */
typedef struct {
  FlopsRule rule;
  const char *names;
} FlopsNames;

/* call_function short names (the last component of the target) and
 * call_method names. */
static const FlopsNames callable_rules[] = {
  { FLOPS_ZERO,
    "getitem getattr size dim numel view view_as reshape flatten unflatten permute transpose t "
    "contiguous unsqueeze squeeze expand expand_as repeat cat concat stack split chunk unbind "
    "narrow select to type type_as float half double int long bool clone detach dropout _assert "
    "movedim roll zeros ones full arange zeros_like ones_like new_zeros new_ones embedding "
    "index_select gather pad" },
  { FLOPS_ELEMENTWISE,
    "add iadd add_ sub isub sub_ mul imul mul_ div truediv div_ floordiv mod pow neg abs exp "
    "log sqrt rsqrt sin cos erf relu relu_ relu6 gelu silu sigmoid tanh hardtanh hardswish "
    "hardsigmoid leaky_relu elu softplus mish clamp clamp_ where maximum minimum eq ne lt le gt "
    "ge masked_fill" },
  { FLOPS_NORM, "batch_norm layer_norm group_norm instance_norm normalize softmax log_softmax" },
  { FLOPS_REDUCTION,
    "sum mean amax amin max min prod std var norm logsumexp argmax argmin max_pool1d max_pool2d "
    "max_pool3d avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d "
    "adaptive_avg_pool3d adaptive_max_pool2d" },
  { FLOPS_LINEAR, "linear" },
  { FLOPS_MATMUL, "matmul mm bmm" },
  { FLOPS_ADDMM, "addmm baddbmm" },
  { FLOPS_CONV, "conv1d conv2d conv3d" },
  { FLOPS_CONV_TRANSPOSE, "conv_transpose1d conv_transpose2d conv_transpose3d" },
};

/* call_module classes, by the last component of the qualified class name. */
static const FlopsNames module_rules[] = {
  { FLOPS_ZERO, "Identity Dropout Dropout2d Flatten Unflatten Embedding" },
  { FLOPS_ELEMENTWISE,
    "ReLU ReLU6 GELU SiLU Sigmoid Tanh Hardswish Hardsigmoid Hardtanh LeakyReLU ELU Softplus "
    "Mish" },
  { FLOPS_NORM,
    "BatchNorm1d BatchNorm2d BatchNorm3d LayerNorm GroupNorm InstanceNorm1d InstanceNorm2d "
    "InstanceNorm3d Softmax LogSoftmax" },
  { FLOPS_REDUCTION,
    "MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d "
    "AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool2d" },
  { FLOPS_LINEAR, "Linear NonDynamicallyQuantizableLinear LazyLinear" },
  { FLOPS_CONV, "Conv1d Conv2d Conv3d" },
  { FLOPS_CONV_TRANSPOSE, "ConvTranspose1d ConvTranspose2d ConvTranspose3d" },
  { FLOPS_ATTENTION, "MultiheadAttention" },
};

static GHashTable *
rule_table (const FlopsNames *rules, guint n)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n; i++)
    {
      char **names = g_strsplit (rules[i].names, " ", -1);
      for (char **name = names; *name; name++)
        g_hash_table_insert (table, *name, GUINT_TO_POINTER (rules[i].rule));
      g_free (names);
    }
  return table;
}

typedef struct {
  GHashTable *callables;
  GHashTable *modules;
} FlopsRules;

/* Product of the sizes from dimension @from on, or -1 when one is symbolic. */
static gint64
trailing_numel (const FxsTensorMeta *t, guint from)
{
  gint64 n = 1;
  for (guint d = from; d < fxs_tensor_rank (t); d++)
    {
      gint64 s = fxs_tensor_dim (t, d);
      if (s < 0 || (s > 0 && n > G_MAXINT64 / 64 / s))
        return -1;
      n *= s;
    }
  return n;
}

/* The single tensor a node produces: from its meta, or for a get_attr from
 * the attribute table.  NULL when unknown or a tuple. */
static const FxsTensorMeta *
node_tensor (const FxsNode *node)
{
  if (fxs_node_n_tensors (node) == 1 && !fxs_node_value_is_tuple (node))
    return fxs_node_tensor (node, 0);
  if (fxs_node_op (node) == FXS_OP_GET_ATTR)
    {
      const FxsAttr *a = fxs_graph_lookup_attr (fxs_node_graph (node), fxs_node_target (node));
      return a ? fxs_attr_tensor (a) : NULL;
    }
  return NULL;
}

/* The argument at position @pos (counting self for methods), or the
 * keyword argument @key. */
static const FxsValue *
argument (const FxsNode *node, guint pos, const char *key)
{
  const FxsValue *args = fxs_node_args (node);
  if (pos < fxs_value_n_items (args))
    return fxs_value_item (args, pos);
  return key ? fxs_value_dict_lookup (fxs_node_kwargs (node), key) : NULL;
}

static const FxsTensorMeta *
argument_tensor (const FxsNode *node, guint pos, const char *key)
{
  const FxsValue *v = argument (node, pos, key);
  if (!v || fxs_value_kind (v) != FXS_VALUE_NODE)
    return NULL;
  return node_tensor (fxs_value_get_node (v));
}

/* A layer's tensor @name: for a call_module its attribute
 * "<module>.<name>", else its argument at @pos or keyword @name. */
static const FxsTensorMeta *
layer_tensor (const FxsNode *node, guint pos, const char *name)
{
  if (fxs_node_op (node) != FXS_OP_CALL_MODULE)
    return argument_tensor (node, pos, name);
  char *qualname = g_strconcat (fxs_node_target (node), ".", name, NULL);
  const FxsAttr *a = fxs_graph_lookup_attr (fxs_node_graph (node), qualname);
  g_free (qualname);
  return a ? fxs_attr_tensor (a) : NULL;
}

static gint64
saturating_mul (gint64 a, gint64 b)
{
  if (a < 0 || b < 0)
    return -1;
  if (a != 0 && b > G_MAXINT64 / 4 / a)
    return G_MAXINT64 / 4;
  return a * b;
}

/* Estimated FLOPs of a matrix product producing @out from @a (K = a's last
 * dimension), or -1. */
static gint64
matmul_flops (const FxsTensorMeta *out, const FxsTensorMeta *a)
{
  if (!out || !a || fxs_tensor_rank (a) == 0)
    return -1;
  gint64 k = fxs_tensor_dim (a, fxs_tensor_rank (a) - 1);
  return saturating_mul (2 * trailing_numel (out, 0), k);
}

/* Multi-head attention on a query [L, B, E] or [B, L, E] (which one is not
 * recorded, so the longer of the first two is taken as the sequence):
 * the q/k/v and output projections plus the two attention products, for
 * self-attention. */
static gint64
attention_flops (const FxsNode *node)
{
  const FxsTensorMeta *q = argument_tensor (node, 0, "query");
  if (!q || fxs_tensor_rank (q) != 3)
    return -1;
  gint64 d0 = fxs_tensor_dim (q, 0), d1 = fxs_tensor_dim (q, 1), e = fxs_tensor_dim (q, 2);
  if (d0 < 0 || d1 < 0 || e < 0)
    return -1;
  gint64 tokens = d0 * d1;
  gint64 seq = MAX (d0, d1);
  gint64 projections = saturating_mul (saturating_mul (8 * tokens, e), e);
  gint64 products = saturating_mul (saturating_mul (4 * tokens, seq), e);
  return projections + products;
}

static gint64
rule_flops (const FxsNode *node, FlopsRule rule)
{
  const FxsTensorMeta *out = node_tensor (node);
  gint64 out_n = out ? trailing_numel (out, 0) : -1;
  gint64 f;
  switch (rule)
    {
    case FLOPS_ZERO:
      return 0;
    case FLOPS_ELEMENTWISE:
      return out_n;
    case FLOPS_NORM:
      return saturating_mul (5, out_n);
    case FLOPS_REDUCTION:
      {
        const FxsTensorMeta *in = argument_tensor (node, 0, "input");
        return in ? trailing_numel (in, 0) : -1;
      }
    case FLOPS_LINEAR:
      {
        const FxsTensorMeta *w = layer_tensor (node, 1, "weight");
        const FxsTensorMeta *in = argument_tensor (node, 0, "input");
        gint64 k = -1;
        if (w && fxs_tensor_rank (w) == 2)
          k = fxs_tensor_dim (w, 1);
        else if (in && fxs_tensor_rank (in) > 0)
          k = fxs_tensor_dim (in, fxs_tensor_rank (in) - 1);
        f = saturating_mul (2 * out_n, k);
        break;
      }
    case FLOPS_MATMUL:
      return matmul_flops (out, argument_tensor (node, 0, "input"));
    case FLOPS_ADDMM:
      f = matmul_flops (out, argument_tensor (node, 1, "mat1"));
      if (f < 0)
        f = matmul_flops (out, argument_tensor (node, 1, "batch1"));
      return f < 0 ? -1 : f + out_n;
    case FLOPS_CONV:
    case FLOPS_CONV_TRANSPOSE:
      {
        const FxsTensorMeta *w = layer_tensor (node, 1, "weight");
        if (!w || fxs_tensor_rank (w) < 2)
          return -1;
        /* Every output (or, transposed, input) element takes one
         * multiply-add per weight element of one output channel. */
        const FxsTensorMeta *base = rule == FLOPS_CONV ? out : argument_tensor (node, 0, "input");
        f = saturating_mul (2 * (base ? trailing_numel (base, 0) : -1), trailing_numel (w, 1));
        break;
      }
    case FLOPS_ATTENTION:
      return attention_flops (node);
    default:
      return -1;
    }
  /* linear and convolution layers, with one add per output element for a bias */
  const FxsValue *b = argument (node, 2, "bias");
  gboolean bias = fxs_node_op (node) == FXS_OP_CALL_MODULE
                    ? layer_tensor (node, 2, "bias") != NULL
                    : b && fxs_value_kind (b) != FXS_VALUE_NONE;
  return f < 0 ? -1 : f + (bias ? out_n : 0);
}

static gint64
node_flops (const FlopsRules *rules, const FxsNode *node)
{
  gpointer rule = NULL;
  switch (fxs_node_op (node))
    {
    case FXS_OP_CALL_FUNCTION:
    case FXS_OP_CALL_METHOD:
      rule = g_hash_table_lookup (rules->callables, fxs_node_target_short_name (node));
      break;
    case FXS_OP_CALL_MODULE:
      {
        const FxsAttr *a = fxs_graph_lookup_attr (fxs_node_graph (node), fxs_node_target (node));
        /* by the last component of the class name */
        const char *cls = a ? fxs_attr_class (a) : NULL;
        const char *dot = cls ? strrchr (cls, '.') : NULL;
        if (cls)
          rule = g_hash_table_lookup (rules->modules, dot ? dot + 1 : cls);
        break;
      }
    default:
      return 0;
    }
  return rule ? rule_flops (node, GPOINTER_TO_UINT (rule)) : -1;
}

/* ---- the table ------------------------------------------------------------ */

FxsNodeCosts *
fxs_node_costs_new (const FxsGraph *graph, FxsCostKind kind)
{
  g_return_val_if_fail (graph != NULL, NULL);
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (kind_names), NULL);
  FxsNodeCosts *c = g_new0 (FxsNodeCosts, 1);
  c->n = fxs_graph_n_nodes (graph);
  c->costs = g_new0 (gint64, c->n ? c->n : 1);
  /* No single cost above this, so that the total cannot overflow. */
  gint64 cap = G_MAXINT64 / 2 / MAX (c->n, 1);

  ParamScan params = { 0 };
  FlopsRules rules = { 0 };
  if (kind == FXS_COST_PARAM_BYTES)
    {
      /* the graph's indexes are caches: filling them does not change it */
      params.attr_of = fxs_graph_target_attrs ((FxsGraph *) graph);
      params.module_bytes = module_bytes ((FxsGraph *) graph);
      params.seen = g_new0 (guint32, c->n ? c->n : 1);
    }
  else if (kind == FXS_COST_FLOPS)
    {
      rules.callables = rule_table (callable_rules, G_N_ELEMENTS (callable_rules));
      rules.modules = rule_table (module_rules, G_N_ELEMENTS (module_rules));
    }

  for (guint i = 0; i < c->n; i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      if (!fxs_op_is_call (fxs_node_op (node)))
        continue;
      gint64 cost = 0;
      switch (kind)
        {
        case FXS_COST_NODES:
          cost = 1;
          break;
        case FXS_COST_PARAM_BYTES:
          cost = param_bytes (&params, node);
          break;
        case FXS_COST_OUTPUT_BYTES:
          cost = fxs_node_output_bytes (node);
          break;
        case FXS_COST_FLOPS:
          cost = node_flops (&rules, node);
          break;
        }
      if (cost < 0 || params.unknown)
        {
          if (c->n_unknown++ == 0)
            c->first_unknown = node;
        }
      c->costs[i] = CLAMP (cost, 0, cap);
      c->total += c->costs[i];
    }

  g_free (params.module_bytes);
  g_free (params.seen);
  g_clear_pointer (&rules.callables, g_hash_table_unref);
  g_clear_pointer (&rules.modules, g_hash_table_unref);
  return c;
}

void
fxs_node_costs_free (FxsNodeCosts *costs)
{
  if (!costs)
    return;
  g_free (costs->costs);
  g_free (costs);
}

gint64
fxs_node_costs_get (const FxsNodeCosts *costs, guint index)
{
  g_return_val_if_fail (index < costs->n, 0);
  return costs->costs[index];
}

FXS_GETTER (const gint64 *, fxs_node_costs_array, FxsNodeCosts, costs, costs->costs, NULL)
FXS_GETTER (gint64, fxs_node_costs_total, FxsNodeCosts, costs, costs->total, 0)
FXS_GETTER (guint, fxs_node_costs_n_unknown, FxsNodeCosts, costs, costs->n_unknown, 0)
FXS_GETTER (const FxsNode *, fxs_node_costs_first_unknown, FxsNodeCosts, costs,
            costs->first_unknown, NULL)
