/* The call-node DAG of a graph, its cut and the cycles of a partitioning. */
#include "call-dag.h"

static gboolean
is_call (const FxsNode *node)
{
  FxsOp op = fxs_node_op (node);
  return op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE;
}

typedef struct {
  const gint32 *call_of;   /* graph index -> call index or -1 */
  guint32 *stamp;          /* call index -> 1 + the last user that listed it */
  guint32 user;            /* the call node being scanned, + 1 */
  GArray *preds;
} PredScan;

static void
add_pred (const FxsNode *def, gpointer data)
{
  PredScan *s = data;
  gint32 c = s->call_of[fxs_node_index (def)];
  if (c < 0 || s->stamp[c] == s->user)
    return;
  s->stamp[c] = s->user;
  guint32 v = (guint32) c;
  g_array_append_val (s->preds, v);
}

CallDag *
call_dag_new (const FxsGraph *graph)
{
  guint n_nodes = fxs_graph_n_nodes (graph);
  gint32 *call_of = g_new (gint32, n_nodes ? n_nodes : 1);
  CallDag *dag = g_new0 (CallDag, 1);
  GArray *index = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < n_nodes; i++)
    {
      if (is_call (fxs_graph_node (graph, i)))
        {
          call_of[i] = (gint32) index->len;
          guint32 v = i;
          g_array_append_val (index, v);
        }
      else
        call_of[i] = -1;
    }
  guint n = index->len;
  dag->n = n;
  dag->node_index = (guint32 *) g_array_free (index, FALSE);

  PredScan scan = { call_of, g_new0 (guint32, n ? n : 1), 0,
                    g_array_new (FALSE, FALSE, sizeof (guint32)) };
  dag->pred_off = g_new (guint32, n + 1);
  dag->pred_off[0] = 0;
  for (guint v = 0; v < n; v++)
    {
      const FxsNode *node = fxs_graph_node (graph, dag->node_index[v]);
      scan.user = v + 1;
      fxs_value_foreach_node (fxs_node_args (node), add_pred, &scan);
      fxs_value_foreach_node (fxs_node_kwargs (node), add_pred, &scan);
      dag->pred_off[v + 1] = scan.preds->len;
    }
  guint m = scan.preds->len;
  dag->preds = (guint32 *) g_array_free (scan.preds, FALSE);
  g_free (scan.stamp);
  g_free (call_of);

  /* Users: the transpose, in user order. */
  dag->succ_off = g_new0 (guint32, n + 1);
  for (guint e = 0; e < m; e++)
    dag->succ_off[dag->preds[e] + 1]++;
  for (guint v = 0; v < n; v++)
    dag->succ_off[v + 1] += dag->succ_off[v];
  dag->succs = g_new (guint32, m ? m : 1);
  guint32 *fill = g_memdup2 (dag->succ_off, n * sizeof (guint32) + sizeof (guint32));
  for (guint v = 0; v < n; v++)
    for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++)
      dag->succs[fill[dag->preds[e]]++] = v;
  g_free (fill);
  return dag;
}

void
call_dag_free (CallDag *dag)
{
  if (!dag)
    return;
  g_free (dag->node_index);
  g_free (dag->pred_off);
  g_free (dag->preds);
  g_free (dag->succ_off);
  g_free (dag->succs);
  g_free (dag);
}

gint64 *
call_dag_value_bytes (const CallDag *dag, const FxsGraph *graph)
{
  gint64 *bytes = g_new (gint64, dag->n ? dag->n : 1);
  for (guint v = 0; v < dag->n; v++)
    {
      gint64 b = fxs_node_output_bytes (fxs_graph_node (graph, dag->node_index[v]));
      bytes[v] = b < 0 ? 1 : b;
    }
  return bytes;
}

gint64
call_dag_cut (const CallDag *dag, const gint64 *bytes, const guint32 *part, guint n_parts)
{
  guint32 *stamp = g_new0 (guint32, n_parts ? n_parts : 1);
  gint64 cut = 0;
  for (guint v = 0; v < dag->n; v++)
    {
      stamp[part[v]] = v + 1;   /* the producer's own partition is free */
      for (guint32 e = dag->succ_off[v]; e < dag->succ_off[v + 1]; e++)
        {
          guint32 q = part[dag->succs[e]];
          if (stamp[q] != v + 1)
            {
              stamp[q] = v + 1;
              cut += bytes[v];
            }
        }
    }
  g_free (stamp);
  return cut;
}

/* Tarjan's strongly connected components over the partition graph,
 * iteratively (partition graphs of 10^7-node graphs may be deep). */
guint
call_dag_parts_on_cycles (const CallDag *dag, const guint32 *part, guint n_parts)
{
  /* The partition graph's distinct edges, in compressed form. */
  GArray *edges = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  for (guint v = 0; v < dag->n; v++)
    for (guint32 e = dag->succ_off[v]; e < dag->succ_off[v + 1]; e++)
      {
        guint32 a = part[v], b = part[dag->succs[e]];
        if (a != b)
          {
            guint32 pair[2] = { a, b };
            g_array_append_vals (edges, pair, 1);
          }
      }
  guint32 *off = g_new0 (guint32, n_parts + 1);
  for (guint e = 0; e < edges->len; e++)
    off[g_array_index (edges, guint32, 2 * e) + 1]++;
  for (guint p = 0; p < n_parts; p++)
    off[p + 1] += off[p];
  guint32 *adj = g_new (guint32, edges->len ? edges->len : 1);
  guint32 *fill = g_memdup2 (off, (n_parts + 1) * sizeof (guint32));
  for (guint e = 0; e < edges->len; e++)
    adj[fill[g_array_index (edges, guint32, 2 * e)]++] = g_array_index (edges, guint32, 2 * e + 1);
  g_free (fill);
  g_array_free (edges, TRUE);

  gint64 *order = g_new (gint64, n_parts ? n_parts : 1);   /* -1: unvisited */
  guint32 *low = g_new (guint32, n_parts ? n_parts : 1);
  gboolean *on_stack = g_new0 (gboolean, n_parts ? n_parts : 1);
  guint32 *stack = g_new (guint32, n_parts ? n_parts : 1);
  guint32 *call = g_new (guint32, n_parts ? n_parts : 1);   /* DFS: node */
  guint32 *next = g_new (guint32, n_parts ? n_parts : 1);   /* DFS: next edge */
  for (guint p = 0; p < n_parts; p++)
    order[p] = -1;
  guint counter = 0, sp = 0, on_cycles = 0;
  for (guint root = 0; root < n_parts; root++)
    {
      if (order[root] >= 0)
        continue;
      guint depth = 0;
      call[0] = root;
      next[0] = off[root];
      order[root] = low[root] = counter++;
      stack[sp++] = root;
      on_stack[root] = TRUE;
      while (TRUE)
        {
          guint32 u = call[depth];
          if (next[depth] < off[u + 1])
            {
              guint32 w = adj[next[depth]++];
              if (order[w] < 0)
                {
                  order[w] = low[w] = counter++;
                  stack[sp++] = w;
                  on_stack[w] = TRUE;
                  depth++;
                  call[depth] = w;
                  next[depth] = off[w];
                }
              else if (on_stack[w])
                low[u] = MIN (low[u], (guint32) order[w]);
              continue;
            }
          if (low[u] == order[u])
            {
              guint size = 0;
              guint32 w;
              do
                {
                  w = stack[--sp];
                  on_stack[w] = FALSE;
                  size++;
                }
              while (w != u);
              if (size > 1)
                on_cycles += size;
            }
          if (depth == 0)
            break;
          depth--;
          low[call[depth]] = MIN (low[call[depth]], low[u]);
        }
    }
  g_free (order);
  g_free (low);
  g_free (on_stack);
  g_free (stack);
  g_free (call);
  g_free (next);
  g_free (off);
  g_free (adj);
  return on_cycles;
}
