/* Levels of the multilevel acyclic partitioning (see acyclic-level.h).
 *
 * Why coarsening never makes a cycle: level_coarsen merges only nodes that
 * are consecutive in a topological order pi of the level (pairs pi[i],
 * pi[i+1]; pi is the level's numbering or a depth-first order), so every
 * cluster is an interval of pi, and the clusters are numbered in pi's
 * order.  An edge u -> v has pos(u) < pos(v) in pi, so the
 * cluster of u is the cluster of v or an earlier interval: every edge of
 * the coarse graph goes from a lower to a higher cluster number.  The
 * coarse graph therefore has a topological order (its numbering, which is
 * the invariant a Level keeps) and no cycle; by induction no level has
 * one, and a partition whose parts are in topological order on a coarse
 * level stays so when projected to the finer one (a node inherits its
 * cluster's part, an edge inside a cluster stays inside a part). */
#include "acyclic-level.h"

#include <string.h>

#include "gain-heap.h"

/* From the nets, fills the nodes' net lists and the DAG: src -> every
 * other pin, each distinct edge once. */
static void
level_finish (Level *l)
{
  guint n = l->n;
  l->node_off = g_new0 (guint32, n + 1);
  for (guint32 e = 0; e < l->n_nets; e++)
    for (guint32 k = l->net_off[e]; k < l->net_off[e + 1]; k++)
      l->node_off[l->pins[k] + 1]++;
  for (guint v = 0; v < n; v++)
    l->node_off[v + 1] += l->node_off[v];
  l->node_nets = g_new (guint32, l->node_off[n] ? l->node_off[n] : 1);
  guint32 *fill = g_memdup2 (l->node_off, (n + 1) * sizeof (guint32));
  for (guint32 e = 0; e < l->n_nets; e++)
    for (guint32 k = l->net_off[e]; k < l->net_off[e + 1]; k++)
      l->node_nets[fill[l->pins[k]]++] = e;

  guint32 *stamp = g_new0 (guint32, n ? n : 1);
  GArray *succs = g_array_new (FALSE, FALSE, sizeof (guint32));
  l->succ_off = g_new (guint32, n + 1);
  l->succ_off[0] = 0;
  for (guint32 u = 0; u < n; u++)
    {
      stamp[u] = u + 1;
      for (guint32 i = l->node_off[u]; i < l->node_off[u + 1]; i++)
        {
          guint32 e = l->node_nets[i];
          if (l->net_src[e] != u)
            continue;
          for (guint32 k = l->net_off[e]; k < l->net_off[e + 1]; k++)
            if (stamp[l->pins[k]] != u + 1)
              {
                stamp[l->pins[k]] = u + 1;
                g_array_append_val (succs, l->pins[k]);
              }
        }
      l->succ_off[u + 1] = succs->len;
    }
  guint m = succs->len;
  l->succs = (guint32 *) g_array_free (succs, FALSE);
  l->pred_off = g_new0 (guint32, n + 1);
  for (guint32 i = 0; i < m; i++)
    l->pred_off[l->succs[i] + 1]++;
  for (guint v = 0; v < n; v++)
    l->pred_off[v + 1] += l->pred_off[v];
  l->preds = g_new (guint32, m ? m : 1);
  memcpy (fill, l->pred_off, (n + 1) * sizeof (guint32));
  for (guint32 u = 0; u < n; u++)
    for (guint32 i = l->succ_off[u]; i < l->succ_off[u + 1]; i++)
      l->preds[fill[l->succs[i]]++] = u;
  g_free (fill);
  g_free (stamp);
}

/* Nets are appended to growing arrays, then the level is finished. */
typedef struct {
  GArray *off, *pins, *src, *w;
} NetBuilder;

static NetBuilder
nets_new (void)
{
  NetBuilder b = { g_array_new (FALSE, FALSE, sizeof (guint32)),
                   g_array_new (FALSE, FALSE, sizeof (guint32)),
                   g_array_new (FALSE, FALSE, sizeof (guint32)),
                   g_array_new (FALSE, FALSE, sizeof (gint64)) };
  guint32 zero = 0;
  g_array_append_val (b.off, zero);
  return b;
}

/* Closes the net whose pins were appended since the last one: kept when it
 * has two pins or more. */
static void
nets_close (NetBuilder *b, guint32 src, gint64 w)
{
  guint32 start = g_array_index (b->off, guint32, b->off->len - 1);
  if (b->pins->len - start < 2)
    {
      g_array_set_size (b->pins, start);
      return;
    }
  guint32 end = b->pins->len;
  g_array_append_val (b->off, end);
  g_array_append_val (b->src, src);
  g_array_append_val (b->w, w);
}

static Level *
nets_finish (NetBuilder *b, guint n, gint64 *cost)
{
  Level *l = g_new0 (Level, 1);
  l->n = n;
  l->cost = cost;
  l->n_nets = b->src->len;
  l->net_off = (guint32 *) g_array_free (b->off, FALSE);
  l->pins = (guint32 *) g_array_free (b->pins, FALSE);
  l->net_src = (guint32 *) g_array_free (b->src, FALSE);
  l->net_w = (gint64 *) g_array_free (b->w, FALSE);
  level_finish (l);
  return l;
}

Level *
level_from_dag (const CallDag *dag, const gint64 *cost, const gint64 *bytes)
{
  NetBuilder b = nets_new ();
  for (guint32 v = 0; v < dag->n; v++)
    {
      g_array_append_val (b.pins, v);
      g_array_append_vals (b.pins, dag->succs + dag->succ_off[v],
                           dag->succ_off[v + 1] - dag->succ_off[v]);
      nets_close (&b, v, bytes[v]);
    }
  return nets_finish (&b, dag->n, g_memdup2 (cost, (dag->n ? dag->n : 1) * sizeof (gint64)));
}

Level *
level_induced (const Level *level, const guint32 *keep, guint n_keep)
{
  guint32 *local = g_new (guint32, level->n ? level->n : 1);
  for (guint v = 0; v < level->n; v++)
    local[v] = LEVEL_NONE;
  gint64 *cost = g_new (gint64, n_keep ? n_keep : 1);
  for (guint i = 0; i < n_keep; i++)
    {
      local[keep[i]] = i;
      cost[i] = level->cost[keep[i]];
    }
  NetBuilder b = nets_new ();
  for (guint32 e = 0; e < level->n_nets; e++)
    {
      for (guint32 k = level->net_off[e]; k < level->net_off[e + 1]; k++)
        if (local[level->pins[k]] != LEVEL_NONE)
          g_array_append_val (b.pins, local[level->pins[k]]);
      guint32 src = level->net_src[e];
      nets_close (&b, src == LEVEL_NONE ? LEVEL_NONE : local[src], level->net_w[e]);
    }
  g_free (local);
  return nets_finish (&b, n_keep, cost);
}

static guint32
order_key (guint32 v, guint64 seed)
{
  return seed ? gain_mix (v ^ seed) : v;
}

static gint
by_decreasing_key (gconstpointer a, gconstpointer b, gpointer seed)
{
  guint32 ka = order_key (*(const guint32 *) a, *(const guint64 *) seed);
  guint32 kb = order_key (*(const guint32 *) b, *(const guint64 *) seed);
  return ka < kb ? 1 : ka > kb ? -1 : 0;
}

/* Sorts @v[0..n) by decreasing key, so the smallest key is pushed last
 * and popped first (insertion sort for the short lists of one step). */
static void
sort_by_key (guint32 *v, guint n, guint64 seed)
{
  if (n > 16)
    {
      g_qsort_with_data (v, (gint) n, sizeof (guint32), by_decreasing_key, &seed);
      return;
    }
  for (guint i = 1; i < n; i++)
    {
      guint32 x = v[i], kx = order_key (x, seed);
      guint j = i;
      for (; j > 0 && order_key (v[j - 1], seed) < kx; j--)
        v[j] = v[j - 1];
      v[j] = x;
    }
}

void
level_dfs_order (const Level *level, guint64 seed, guint32 *order)
{
  guint n = level->n;
  guint32 *missing = g_new (guint32, n ? n : 1);
  guint32 *stack = g_new (guint32, n ? n : 1);
  guint sp = 0, len = 0;
  for (guint32 v = 0; v < n; v++)
    {
      missing[v] = level->pred_off[v + 1] - level->pred_off[v];
      if (missing[v] == 0)
        stack[sp++] = v;
    }
  sort_by_key (stack, sp, seed);
  while (sp > 0)
    {
      guint32 u = stack[--sp];
      order[len++] = u;
      guint first = sp;
      for (guint32 i = level->succ_off[u]; i < level->succ_off[u + 1]; i++)
        if (--missing[level->succs[i]] == 0)
          stack[sp++] = level->succs[i];
      sort_by_key (stack + first, sp - first, seed);
    }
  g_assert (len == n);
  g_free (missing);
  g_free (stack);
}

/* The heaviest matching on the path order[0] - order[1] - ... (pairs
 * that share nets, within @cap); clusters numbered backwards in @map, their
 * number in @n_coarse.  @stamp: one entry per net, zero. */
static void
path_matching (const Level *level, const guint32 *order, gint64 cap, guint32 *stamp,
               guint32 *map, guint *n_coarse)
{
  guint n = level->n;
  /* rating[i]: merging order[i] and order[i + 1]. */
  double *rating = g_new0 (double, n);
  for (guint i = 0; i + 1 < n; i++)
    {
      guint32 a = order[i], b = order[i + 1];
      if (level->cost[a] + level->cost[b] > cap)
        continue;
      for (guint32 k = level->node_off[a]; k < level->node_off[a + 1]; k++)
        stamp[level->node_nets[k]] = i + 1;
      for (guint32 k = level->node_off[b]; k < level->node_off[b + 1]; k++)
        {
          guint32 e = level->node_nets[k];
          if (stamp[e] == i + 1)
            rating[i] += (double) level->net_w[e] / (level->net_off[e + 1] - level->net_off[e] - 1);
        }
    }
  /* best[j]: the heaviest matching of the first j nodes. */
  double *best = g_new (double, n + 1);
  best[0] = best[1] = 0.0;
  for (guint j = 2; j <= n; j++)
    {
      double with = rating[j - 2] > 0.0 ? best[j - 2] + rating[j - 2] : -1.0;
      best[j] = MAX (best[j - 1], with);
    }
  *n_coarse = 0;
  for (guint j = n; j > 0;)
    {
      if (j >= 2 && rating[j - 2] > 0.0 && best[j] == best[j - 2] + rating[j - 2])
        {
          map[order[j - 1]] = map[order[j - 2]] = (*n_coarse)++;
          j -= 2;
        }
      else
        {
          map[order[j - 1]] = (*n_coarse)++;
          j -= 1;
        }
    }
  g_free (best);
  g_free (rating);
}

Level *
level_coarsen (const Level *level, gint64 cap, guint64 seed, double min_shrink, guint32 *map)
{
  guint n = level->n;
  if (n < 2)
    return NULL;
  /* Two paths: the level's own numbering, and when that would not shrink
   * the level enough, a depth-first order (both topological). */
  guint32 *order = g_new (guint32, n);
  guint32 *stamp = g_new0 (guint32, MAX (level->n_nets, n));
  for (guint32 v = 0; v < n; v++)
    order[v] = v;
  guint n_coarse;
  path_matching (level, order, cap, stamp, map, &n_coarse);
  if (n_coarse > (guint) ((1.0 - min_shrink) * n))
    {
      level_dfs_order (level, seed, order);
      memset (stamp, 0, MAX (level->n_nets, n) * sizeof (guint32));
      path_matching (level, order, cap, stamp, map, &n_coarse);
    }
  g_free (order);
  if (n_coarse > (guint) ((1.0 - min_shrink) * n))
    {
      g_free (stamp);
      return NULL;
    }
  gint64 *cost = g_new0 (gint64, n_coarse);
  for (guint v = 0; v < n; v++)
    {
      map[v] = n_coarse - 1 - map[v];
      cost[map[v]] += level->cost[v];
    }
  memset (stamp, 0, MAX (level->n_nets, n) * sizeof (guint32));
  NetBuilder b = nets_new ();
  for (guint32 e = 0; e < level->n_nets; e++)
    {
      for (guint32 k = level->net_off[e]; k < level->net_off[e + 1]; k++)
        {
          guint32 c = map[level->pins[k]];
          if (stamp[c] != e + 1)
            {
              stamp[c] = e + 1;
              g_array_append_val (b.pins, c);
            }
        }
      guint32 src = level->net_src[e];
      nets_close (&b, src == LEVEL_NONE ? LEVEL_NONE : map[src], level->net_w[e]);
    }
  g_free (stamp);
  return nets_finish (&b, n_coarse, cost);
}

gint64
level_cut2 (const Level *level, const guint8 *side)
{
  gint64 cut = 0;
  for (guint32 e = 0; e < level->n_nets; e++)
    {
      guint8 first = side[level->pins[level->net_off[e]]];
      for (guint32 k = level->net_off[e] + 1; k < level->net_off[e + 1]; k++)
        if (side[level->pins[k]] != first)
          {
            cut += level->net_w[e];
            break;
          }
    }
  return cut;
}

void
level_free (Level *level)
{
  if (!level)
    return;
  g_free (level->cost);
  g_free (level->net_off);
  g_free (level->pins);
  g_free (level->net_src);
  g_free (level->net_w);
  g_free (level->node_off);
  g_free (level->node_nets);
  g_free (level->pred_off);
  g_free (level->preds);
  g_free (level->succ_off);
  g_free (level->succs);
  g_free (level);
}
