/* Multilevel acyclic K-way partitioning by recursive bisection, the scheme
 * of dagP (Herrmann et al., SIAM J. Sci. Comput. 41(4), 2019) with its own
 * coarsening (acyclic-level.c) and gains in fxsplit's cut.
 *
 * One bisection: coarsen the level until it has few nodes (or stops
 * shrinking); on the coarsest level try prefixes of several topological
 * orders as side 0 (a prefix of a topological order has no edge back into
 * it) and keep the best after refinement; then project back level by
 * level, refining each.  Refinement is Fiduccia-Mattheyses on the two
 * sides: a node of side 0 may move once none of its users is in side 0, a
 * node of side 1 once none of its producers is in side 1, so no edge ever
 * goes from side 1 to side 0; a move must fit the target's cost limit.
 * Gains are exact for the cut: a net is cut when it has pins on both
 * sides.  K parts: side 0 gets K/2 of them, side 1 the rest, each side is
 * split again on its induced subgraph (nets split to it, so the cuts add
 * up), and part numbers follow the sides, so they stay topological. */
#include "acyclic-cut.h"

#include <math.h>
#include <string.h>

#include "gain-heap.h"

/* Moves without a new best prefix after which a pass stops (or a 50th of
 * the level's nodes when that is more). */
#define STALL_MOVES 400
/* Neighbours' gains are refreshed after a move through nets of at most
 * this many pins (a hub's pins would make each move cost its fan-out). */
#define NET_FANOUT 32
/* Candidates that did not fit retried after a move the other way. */
#define RETRIES_PER_MOVE 8
/* A coarse node costs at most this fraction of the smaller side limit
 * (and at most the slack, see bisect). */
#define CLUSTER_FRACTION 0.1
/* Coarsening stops when a level would keep more than 95% of the nodes. */
#define MIN_SHRINK 0.05

typedef struct {
  const Level *l;
  guint8 *side;
  guint32 *phi[2];       /* per net: pins on side 0, 1 */
  guint32 *succ0;        /* per node: users on side 0 */
  guint32 *pred1;        /* per node: producers on side 1 */
  gint64 load[2], lim[2];
  guint32 size[2], min_size[2];
  guint8 *locked;
  guint32 *stamp;
  guint32 pass;
  guint64 seed;
  Heap heap, deferred[2];   /* deferred[t]: did not fit into side t */
  GArray *moves;
} Bisection;

static void
bis_init (Bisection *b, const Level *l, guint8 *side, const gint64 *lim, const guint32 *min_size,
          guint64 seed)
{
  memset (b, 0, sizeof *b);
  b->l = l;
  b->side = side;
  b->seed = seed;
  for (guint s = 0; s < 2; s++)
    {
      b->phi[s] = g_new0 (guint32, l->n_nets ? l->n_nets : 1);
      b->lim[s] = lim[s];
      b->min_size[s] = min_size[s];
    }
  b->succ0 = g_new0 (guint32, l->n ? l->n : 1);
  b->pred1 = g_new0 (guint32, l->n ? l->n : 1);
  b->locked = g_new0 (guint8, l->n ? l->n : 1);
  b->stamp = g_new0 (guint32, l->n ? l->n : 1);
  b->moves = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 e = 0; e < l->n_nets; e++)
    for (guint32 k = l->net_off[e]; k < l->net_off[e + 1]; k++)
      b->phi[side[l->pins[k]]][e]++;
  for (guint32 v = 0; v < l->n; v++)
    {
      b->load[side[v]] += l->cost[v];
      b->size[side[v]]++;
      for (guint32 i = l->succ_off[v]; i < l->succ_off[v + 1]; i++)
        {
          guint32 x = l->succs[i];
          if (side[x] == 0)
            b->succ0[v]++;
          if (side[v] == 1)
            b->pred1[x]++;
        }
    }
}

static void
bis_clear (Bisection *b)
{
  g_free (b->phi[0]);
  g_free (b->phi[1]);
  g_free (b->succ0);
  g_free (b->pred1);
  g_free (b->locked);
  g_free (b->stamp);
  g_free (b->heap.items);
  g_free (b->deferred[0].items);
  g_free (b->deferred[1].items);
  g_array_free (b->moves, TRUE);
}

static gint64
bis_gain (gconstpointer data, guint32 v)
{
  const Bisection *b = data;
  const Level *l = b->l;
  guint s = b->side[v], t = 1 - s;
  gint64 g = 0;
  for (guint32 i = l->node_off[v]; i < l->node_off[v + 1]; i++)
    {
      guint32 e = l->node_nets[i];
      if (b->phi[s][e] == 1)
        g += l->net_w[e];    /* the net leaves s */
      if (b->phi[t][e] == 0)
        g -= l->net_w[e];    /* it reaches t */
    }
  return g;
}

static gboolean
bis_movable (gconstpointer data, guint32 v)
{
  const Bisection *b = data;
  guint s = b->side[v];
  if (b->locked[v] || b->size[s] <= b->min_size[s])
    return FALSE;
  return s == 0 ? b->succ0[v] == 0 : b->pred1[v] == 0;
}

static void
bis_push (Bisection *b, guint32 v)
{
  if (bis_movable (b, v))
    heap_push (&b->heap, (Candidate) { bis_gain (b, v), gain_mix (v ^ b->seed), v });
}

static gint64
overload (const Bisection *b)
{
  return MAX (0, b->load[0] - b->lim[0]) + MAX (0, b->load[1] - b->lim[1]);
}

static void
bis_move (Bisection *b, guint32 v, gboolean refresh)
{
  const Level *l = b->l;
  guint s = b->side[v], t = 1 - s;
  for (guint32 i = l->node_off[v]; i < l->node_off[v + 1]; i++)
    {
      b->phi[s][l->node_nets[i]]--;
      b->phi[t][l->node_nets[i]]++;
    }
  for (guint32 i = l->pred_off[v]; i < l->pred_off[v + 1]; i++)
    b->succ0[l->preds[i]] += s == 0 ? -1 : 1;
  for (guint32 i = l->succ_off[v]; i < l->succ_off[v + 1]; i++)
    b->pred1[l->succs[i]] += s == 0 ? 1 : -1;
  b->side[v] = t;
  b->load[s] -= l->cost[v];
  b->load[t] += l->cost[v];
  b->size[s]--;
  b->size[t]++;
  if (!refresh)
    return;
  for (guint32 i = l->node_off[v]; i < l->node_off[v + 1]; i++)
    {
      guint32 e = l->node_nets[i];
      if (l->net_off[e + 1] - l->net_off[e] <= NET_FANOUT)
        for (guint32 k = l->net_off[e]; k < l->net_off[e + 1]; k++)
          if (l->pins[k] != v)
            bis_push (b, l->pins[k]);
    }
  for (guint32 i = l->pred_off[v]; i < l->pred_off[v + 1]; i++)
    bis_push (b, l->preds[i]);
  for (guint32 i = l->succ_off[v]; i < l->succ_off[v + 1]; i++)
    bis_push (b, l->succs[i]);
}

/* One pass: starts from the nodes on cut nets, moves the best movable
 * candidate that fits (also when the cut grows for now) and takes back
 * the moves after the best state seen: the least overload, then the
 * least cut.  Returns TRUE when that state is better than the start. */
static gboolean
bis_pass (Bisection *b)
{
  const Level *l = b->l;
  b->heap.len = b->deferred[0].len = b->deferred[1].len = 0;
  g_array_set_size (b->moves, 0);
  b->pass++;
  for (guint32 e = 0; e < l->n_nets; e++)
    if (b->phi[0][e] > 0 && b->phi[1][e] > 0)
      for (guint32 k = l->net_off[e]; k < l->net_off[e + 1]; k++)
        if (b->stamp[l->pins[k]] != b->pass)
          {
            b->stamp[l->pins[k]] = b->pass;
            bis_push (b, l->pins[k]);
          }
  gint64 total = 0, best = 0, start_over = overload (b), best_over = start_over;
  guint best_len = 0;
  Candidate c;
  while (heap_pop_current (&b->heap, bis_movable, bis_gain, b, &c))
    {
      guint32 v = c.node;
      gint64 g = c.gain;
      guint t = 1 - b->side[v];
      if (b->load[t] + l->cost[v] > b->lim[t] && b->load[1 - t] <= b->lim[1 - t])
        {
          heap_push (&b->deferred[t], c);
          continue;
        }
      bis_move (b, v, TRUE);
      b->locked[v] = 1;
      g_array_append_val (b->moves, v);
      for (guint i = 0; i < RETRIES_PER_MOVE && b->deferred[1 - t].len > 0; i++)
        heap_push (&b->heap, heap_pop (&b->deferred[1 - t]));
      total += g;
      gint64 over = overload (b);
      if (over < best_over || (over == best_over && total > best))
        {
          best = total;
          best_over = over;
          best_len = b->moves->len;
        }
      else if (b->moves->len - best_len > MAX (STALL_MOVES, l->n / 50))
        break;
    }
  for (guint i = b->moves->len; i > best_len; i--)
    bis_move (b, g_array_index (b->moves, guint32, i - 1), FALSE);
  for (guint i = 0; i < b->moves->len; i++)
    b->locked[g_array_index (b->moves, guint32, i)] = 0;
  return best_over < start_over || best > 0;
}

static void
refine2 (const Level *l, guint8 *side, const gint64 *lim, const guint32 *min_size,
         const AcyclicCutParams *params, guint64 seed)
{
  Bisection b;
  bis_init (&b, l, side, lim, min_size, seed);
  for (guint p = 0; p < params->passes && bis_pass (&b); p++)
    ;
  bis_clear (&b);
}

/* The best prefix of @order as side 0: least overload, then least cut
 * (a net is cut when its first pin is before the split and its last one
 * after it). */
static void
best_prefix (const Level *l, const guint32 *order, const gint64 *lim, const guint32 *min_size,
             guint8 *side)
{
  guint n = l->n;
  guint32 *pos = g_new (guint32, n);
  gint64 *delta = g_new0 (gint64, n + 1), total = 0;
  for (guint i = 0; i < n; i++)
    {
      pos[order[i]] = i;
      total += l->cost[order[i]];
    }
  for (guint32 e = 0; e < l->n_nets; e++)
    {
      guint32 first = G_MAXUINT32, last = 0;
      for (guint32 k = l->net_off[e]; k < l->net_off[e + 1]; k++)
        {
          first = MIN (first, pos[l->pins[k]]);
          last = MAX (last, pos[l->pins[k]]);
        }
      delta[first + 1] += l->net_w[e];   /* cut for splits s in first+1..last */
      delta[last + 1] -= l->net_w[e];
    }
  gint64 cut = 0, load0 = 0, best_cut = G_MAXINT64, best_over = G_MAXINT64;
  guint best_s = min_size[0];
  for (guint s = 1; s < n; s++)
    {
      cut += delta[s];
      load0 += l->cost[order[s - 1]];
      if (s < min_size[0] || n - s < min_size[1])
        continue;
      gint64 over = MAX (0, load0 - lim[0]) + MAX (0, total - load0 - lim[1]);
      if (over < best_over || (over == best_over && cut < best_cut))
        {
          best_over = over;
          best_cut = cut;
          best_s = s;
        }
    }
  for (guint i = 0; i < n; i++)
    side[order[i]] = i < best_s ? 0 : 1;
  g_free (pos);
  g_free (delta);
}

static gint64
side_overload (const Level *l, const guint8 *side, const gint64 *lim)
{
  gint64 load[2] = { 0, 0 };
  for (guint v = 0; v < l->n; v++)
    load[side[v]] += l->cost[v];
  return MAX (0, load[0] - lim[0]) + MAX (0, load[1] - lim[1]);
}

/* The initial bisection of the coarsest level: prefixes of the node order
 * and of params->tries - 1 seeded depth-first orders, each refined. */
static void
initial_bisection (const Level *l, const gint64 *lim, const guint32 *min_size,
                   const AcyclicCutParams *params, guint64 seed, guint8 *side)
{
  guint n = l->n;
  guint32 *order = g_new (guint32, n);
  guint8 *trial = g_new (guint8, n);
  gint64 best_cut = G_MAXINT64, best_over = G_MAXINT64;
  for (guint t = 0; t < MAX (params->tries, 1); t++)
    {
      if (t == 0)
        for (guint32 v = 0; v < n; v++)
          order[v] = v;
      else
        level_dfs_order (l, seed * 1000003u + t, order);
      best_prefix (l, order, lim, min_size, trial);
      refine2 (l, trial, lim, min_size, params, seed + t);
      gint64 over = side_overload (l, trial, lim), cut = level_cut2 (l, trial);
      if (over < best_over || (over == best_over && cut < best_cut))
        {
          best_over = over;
          best_cut = cut;
          memcpy (side, trial, n);
        }
    }
  g_free (order);
  g_free (trial);
}

/* Multilevel bisection of @l into side 0 (no edge from side 1 into it)
 * and side 1, each within its limit when possible. */
static void
bisect (const Level *l, const gint64 *lim, const guint32 *min_size,
        const AcyclicCutParams *params, guint64 seed, guint8 *side)
{
  GPtrArray *levels = g_ptr_array_new ();
  GPtrArray *maps = g_ptr_array_new ();
  g_ptr_array_add (levels, (gpointer) l);
  /* With every node at most cap <= lim[0] + lim[1] - total, some prefix
   * split fits both limits: the longest prefix within lim[0] has
   * load0 > lim[0] - cap, so side 1 gets less than total - lim[0] + cap
   * <= lim[1].  Coarse nodes within cap keep that true on every level. */
  gint64 total = 0;
  for (guint v = 0; v < l->n; v++)
    total += l->cost[v];
  gint64 cap = MAX (1, MIN ((gint64) (CLUSTER_FRACTION * MIN (lim[0], lim[1])),
                            lim[0] + lim[1] - total));
  for (const Level *cur = l; cur->n > MAX (params->coarsest, 2 * (min_size[0] + min_size[1]));)
    {
      guint32 *map = g_new (guint32, cur->n);
      Level *next = level_coarsen (cur, cap, seed + levels->len, MIN_SHRINK, map);
      if (!next)
        {
          g_free (map);
          break;
        }
      g_ptr_array_add (levels, next);
      g_ptr_array_add (maps, map);
      cur = next;
    }
  guint top = levels->len - 1;
  const Level *coarse = g_ptr_array_index (levels, top);
  guint8 *cs = g_new (guint8, coarse->n);
  initial_bisection (coarse, lim, min_size, params, seed, cs);
  if (params->level_hook)
    params->level_hook (coarse, cs, lim, params->hook_data);
  for (guint i = top; i > 0; i--)
    {
      const Level *fine = g_ptr_array_index (levels, i - 1);
      const guint32 *map = g_ptr_array_index (maps, i - 1);
      guint8 *fs = i == 1 ? side : g_new (guint8, fine->n);
      for (guint32 v = 0; v < fine->n; v++)
        fs[v] = cs[map[v]];
      g_free (cs);
      cs = fs;
      refine2 (fine, cs, lim, min_size, params, seed + i);
      if (params->level_hook)
        params->level_hook (fine, cs, lim, params->hook_data);
      level_free (g_ptr_array_index (levels, i));
      g_free (g_ptr_array_index (maps, i - 1));
    }
  if (top == 0)
    {
      memcpy (side, cs, l->n);
      g_free (cs);
    }
  g_ptr_array_free (levels, TRUE);
  g_ptr_array_free (maps, TRUE);
}

typedef struct {
  const AcyclicCutParams *params;
  gint64 limit;      /* every final part */
  double step;       /* 1 + the tolerance each bisection may use */
  guint32 *part;     /* per call node */
} Recursion;

/* The limit of a side of @k final parts: what its own bisections still
 * need to divide, k * limit / step^(their depth). */
static gint64
side_limit (const Recursion *r, guint k)
{
  guint depth = 0;
  while ((1u << depth) < k)
    depth++;
  return (gint64) floor ((double) k * (double) r->limit / pow (r->step, depth));
}

/* Splits @l (its node i is call node @ids[i]) into @k parts numbered from
 * @base. */
static void
recurse (Recursion *r, const Level *l, const guint32 *ids, guint k, guint32 base, guint64 seed)
{
  if (k == 1)
    {
      for (guint v = 0; v < l->n; v++)
        r->part[ids[v]] = base;
      return;
    }
  guint k0 = k / 2, ks[2] = { k0, k - k0 };
  gint64 total = 0, lim[2];
  for (guint v = 0; v < l->n; v++)
    total += l->cost[v];
  guint32 min_size[2] = { ks[0], ks[1] };
  for (guint s = 0; s < 2; s++)
    lim[s] = MAX (side_limit (r, ks[s]), (gint64) ceil ((double) total * ks[s] / k));
  guint8 *side = g_new (guint8, l->n);
  bisect (l, lim, min_size, r->params, seed, side);
  for (guint s = 0; s < 2; s++)
    {
      guint32 *keep = g_new (guint32, l->n), *sub_ids = g_new (guint32, l->n);
      guint n_keep = 0;
      for (guint32 v = 0; v < l->n; v++)
        if (side[v] == s)
          {
            sub_ids[n_keep] = ids[v];
            keep[n_keep++] = v;
          }
      Level *sub = level_induced (l, keep, n_keep);
      g_free (keep);
      recurse (r, sub, sub_ids, ks[s], base + (s ? ks[0] : 0), seed * 31 + s + 1);
      level_free (sub);
      g_free (sub_ids);
    }
  g_free (side);
}

gboolean
acyclic_multilevel (const CallDag *dag, const gint64 *cost, const gint64 *bytes, guint m,
                    gint64 limit, const AcyclicCutParams *params, guint32 *part)
{
  guint n = dag->n;
  gint64 total = 0;
  for (guint v = 0; v < n; v++)
    total += cost[v];
  guint depth = 0;
  while ((1u << depth) < m)
    depth++;
  double ratio = total > 0 ? (double) limit * m / (double) total : 1.0;
  Recursion r = { params, limit, depth ? pow (MAX (ratio, 1.0), 1.0 / depth) : 1.0, part };
  Level *l = level_from_dag (dag, cost, bytes);
  guint32 *ids = g_new (guint32, n ? n : 1);
  for (guint32 v = 0; v < n; v++)
    ids[v] = v;
  recurse (&r, l, ids, m, 0, params->seed + 1);
  g_free (ids);
  level_free (l);

  /* Check what the parts promise; the caller falls back otherwise. */
  gint64 *load = g_new0 (gint64, m);
  guint32 *size = g_new0 (guint32, m);
  gboolean ok = TRUE;
  for (guint32 v = 0; v < n; v++)
    {
      load[part[v]] += cost[v];
      size[part[v]]++;
      for (guint32 e = dag->succ_off[v]; e < dag->succ_off[v + 1]; e++)
        ok = ok && part[dag->succs[e]] >= part[v];
    }
  for (guint p = 0; p < m; p++)
    ok = ok && load[p] <= limit && size[p] > 0;
  g_free (load);
  g_free (size);
  if (ok)
    acyclic_refine (dag, cost, bytes, m, limit, params, part);
  return ok;
}
