/* DDPOptimizer's bucketing (see buckets.h), with the parameters of a
 * module found by a binary search in the sorted parameter names: linear
 * in the graph after one sort of the attribute table. */
#include "buckets.h"

#include <string.h>

typedef struct {
  const FxsAttr **params;  /* the parameters, sorted by name */
  guint n;
  gboolean *counted;       /* per sorted parameter */
} Params;

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (fxs_attr_name (*(const FxsAttr *const *) a),
                 fxs_attr_name (*(const FxsAttr *const *) b));
}

static void
params_init (Params *p, const FxsGraph *graph)
{
  guint n_attrs = fxs_graph_n_attrs (graph);
  p->params = g_new (const FxsAttr *, n_attrs ? n_attrs : 1);
  p->n = 0;
  for (guint i = 0; i < n_attrs; i++)
    if (fxs_attr_kind (fxs_graph_attr (graph, i)) == FXS_ATTR_PARAMETER)
      p->params[p->n++] = fxs_graph_attr (graph, i);
  qsort (p->params, p->n, sizeof *p->params, compare_names);
  p->counted = g_new0 (gboolean, p->n ? p->n : 1);
}

/* The first sorted parameter whose name is >= @name. */
static guint
params_lower_bound (const Params *p, const char *name)
{
  guint lo = 0, hi = p->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (strcmp (fxs_attr_name (p->params[mid]), name) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static gint64
params_take (Params *p, guint i)
{
  if (p->counted[i])
    return 0;
  p->counted[i] = TRUE;
  return fxs_attr_bytes (p->params[i]);
}

/* The bytes of the parameters @node uses that were not counted yet. */
static gint64
params_of_node (Params *p, const FxsNode *node)
{
  FxsOp op = fxs_node_op (node);
  const char *target = fxs_node_target (node);
  gint64 bytes = 0;
  if (op == FXS_OP_GET_ATTR)
    {
      guint i = params_lower_bound (p, target);
      if (i < p->n && strcmp (fxs_attr_name (p->params[i]), target) == 0)
        bytes = params_take (p, i);
    }
  else if (op == FXS_OP_CALL_MODULE)
    {
      /* The names under "target." sort together, right after "target.". */
      char *prefix = g_strconcat (target, ".", NULL);
      gsize len = strlen (prefix);
      for (guint i = params_lower_bound (p, prefix);
           i < p->n && strncmp (fxs_attr_name (p->params[i]), prefix, len) == 0; i++)
        bytes += params_take (p, i);
      g_free (prefix);
    }
  return bytes;
}

guint
buckets_assign (const FxsGraph *graph, gint64 cap, gint64 first_cap, gint64 *ids, GArray *bytes)
{
  guint n = fxs_graph_n_nodes (graph);
  Params params;
  params_init (&params, graph);
  /* bucket[i]: node i's bucket counted from the graph's end, -1 unassigned. */
  gint *bucket = g_new (gint, n ? n : 1);
  GArray *sizes = g_array_new (FALSE, TRUE, sizeof (gint64));
  gint64 size = 0;
  gint current = 0;
  gboolean external = FALSE;  /* a node of the open bucket is used outside it */
  for (guint i = n; i-- > 0;)
    {
      bucket[i] = -1;
      const FxsNode *node = fxs_graph_node (graph, i);
      FxsOp op = fxs_node_op (node);
      if (op == FXS_OP_OUTPUT || op == FXS_OP_PLACEHOLDER)
        continue;
      if ((size >= cap || (current == 0 && size >= first_cap)) && external)
        {
          g_array_append_val (sizes, size);
          current++;
          size = 0;
          external = FALSE;
        }
      gint64 add = params_of_node (&params, node);
      size = size > G_MAXINT64 - add ? G_MAXINT64 : size + add;
      bucket[i] = current;
      /* Users come later in the graph: already in a bucket, or the output. */
      for (guint u = 0; u < fxs_node_n_users (node) && !external; u++)
        external = bucket[fxs_node_index (fxs_node_user (node, u))] != current;
    }
  g_array_append_val (sizes, size);
  if (current > 0 && size == 0)
    {
      /* A preamble without parameters joins the bucket after it. */
      for (guint i = 0; i < n; i++)
        if (bucket[i] == current)
          bucket[i] = current - 1;
      g_array_set_size (sizes, current);
      current--;
    }
  guint n_buckets = (guint) current + 1;
  for (guint i = 0; i < n; i++)
    ids[i] = bucket[i] < 0 ? 0 : current - bucket[i];
  if (bytes)
    for (guint b = n_buckets; b-- > 0;)
      g_array_append_val (bytes, g_array_index (sizes, gint64, b));
  g_array_free (sizes, TRUE);
  g_free (bucket);
  g_free (params.params);
  g_free (params.counted);
  return n_buckets;
}
