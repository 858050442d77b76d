/* Acyclic K-way partitioning with a small cut (see acyclic-cut.h).
 *
 * Parts are kept in a topological order: every edge goes from a part to the
 * same or a later one.  Two starting points, both contiguous in graph order
 * and so acyclic: the split with the smallest bottleneck (the balanced
 * partitioner's) and the split with the fewest crossing bytes that meets the
 * cost limit (a dynamic program over boundaries).  Each is then refined by
 * Fiduccia-Mattheyses passes on pairs of neighbouring parts (a, a+1): a node
 * of a may move to a+1 once none of its users is left in a, a node of a+1
 * may move to a once none of its producers is in a+1, so the order of parts
 * stays topological.  Gains count the cut exactly as the split sees it: a
 * value costs its bytes once per other partition that uses it.  Each pass
 * keeps only its best prefix of moves, so the cut never grows.  With the
 * multilevel algorithm (acyclic-bisect.c) its result, refined the same
 * way, is a third candidate; the least cut wins. */
#include "acyclic-cut.h"

#include <math.h>
#include <string.h>

#include "contiguous.h"
#include "gain-heap.h"

/* Passes stop after this many moves without a new best prefix. */
#define STALL_MOVES 1000
/* FM passes per visit of a pair of parts. */
#define PAIR_PASSES 4
/* Sibling gains are refreshed after a move only through producers with at
 * most this many users (hubs would make a move cost their whole fan-out). */
#define SIBLING_FANOUT 16
/* After a move, this many of the best candidates that did not fit the
 * other way get another chance (all of them would make passes quadratic
 * when many wait). */
#define RETRIES_PER_MOVE 16
/* The dynamic program keeps K * (n + 1) choices; above this it is skipped. */
#define DP_MAX_CHOICES (1u << 24)

/* ---- refinement --------------------------------------------------------------- */

typedef struct {
  const CallDag *dag;
  const gint64 *cost;
  const gint64 *bytes;
  guint32 *part;
  gint64 *load;
  guint32 *size;
  gint64 limit;
  guint m;
  guint64 seed;
  GArray **members;     /* per part: its call nodes */

  /* The pair (a, b = a + 1) being refined. */
  guint32 a, b;
  GArray *pair;         /* the nodes of a and b */
  guint32 *users_a;     /* per node: users in a */
  guint32 *users_b;     /* per node: users in b */
  guint32 *preds_b;     /* per node of the pair: producers in b */
  guint8 *locked;
  Heap heap;
  Heap deferred[2];     /* candidates that did not fit into b (0) or a (1) */
  GArray *moves;        /* nodes moved in this pass, in order */
} Refiner;

/* Loops over the producers of call node v, each as `u`, and over its
 * users, each as `x` (the edge index e_ is internal). */
#define PREDS(r, v) for (guint32 e_ = (r)->dag->pred_off[v], u; \
                         e_ < (r)->dag->pred_off[(v) + 1] && ((u = (r)->dag->preds[e_]), TRUE); e_++)
#define SUCCS(r, v) for (guint32 e_ = (r)->dag->succ_off[v], x; \
                         e_ < (r)->dag->succ_off[(v) + 1] && ((x = (r)->dag->succs[e_]), TRUE); e_++)

static gboolean
in_pair (const Refiner *r, guint32 v)
{
  return r->part[v] == r->a || r->part[v] == r->b;
}

/* The cut's decrease if @v moved to the other part of the pair. */
static gint64
gain (gconstpointer data, guint32 v)
{
  const Refiner *r = data;
  guint32 s = r->part[v], t = s == r->a ? r->b : r->a;
  gint64 delta = 0;
  /* v's own value: the part it leaves may start to need it, the part it
   * joins stops needing it.  Users of v are never in a when it is in a
   * movable position, so only b's users matter. */
  if (r->users_b[v] > 0)
    delta += s == r->a ? -r->bytes[v] : r->bytes[v];
  PREDS (r, v)
    {
      guint32 pu = r->part[u];
      guint32 in_s = s == r->a ? r->users_a[u] : r->users_b[u];
      guint32 in_t = t == r->a ? r->users_a[u] : r->users_b[u];
      if (t != pu && in_t == 0)
        delta += r->bytes[u];   /* t starts needing u's value */
      if (s != pu && in_s == 1)
        delta -= r->bytes[u];   /* s no longer needs it */
    }
  return -delta;
}

static gboolean
movable (gconstpointer data, guint32 v)
{
  const Refiner *r = data;
  if (r->locked[v] || r->size[r->part[v]] <= 1)
    return FALSE;
  if (r->part[v] == r->a)
    return r->users_a[v] == 0;
  return r->part[v] == r->b && r->preds_b[v] == 0;
}

static void
push (Refiner *r, guint32 v)
{
  if (in_pair (r, v) && movable (r, v))
    heap_push (&r->heap, (Candidate) { gain (r, v), gain_mix (v ^ r->seed), v });
}

/* Moves @v to the other part of the pair, updating the counters; with
 * @refresh, pushes the nodes whose gains or movability it changed. */
static void
apply_move (Refiner *r, guint32 v, gboolean refresh)
{
  guint32 s = r->part[v], t = s == r->a ? r->b : r->a;
  PREDS (r, v)
    {
      if (s == r->a)
        {
          r->users_a[u]--;
          r->users_b[u]++;
        }
      else
        {
          r->users_b[u]--;
          r->users_a[u]++;
        }
    }
  SUCCS (r, v)
    if (r->part[x] == r->b)
      {
        if (t == r->b)
          r->preds_b[x]++;
        else
          r->preds_b[x]--;
      }
  r->part[v] = t;
  r->load[s] -= r->cost[v];
  r->load[t] += r->cost[v];
  r->size[s]--;
  r->size[t]++;
  if (!refresh)
    return;
  PREDS (r, v)
    {
      push (r, u);
      if (r->dag->succ_off[u + 1] - r->dag->succ_off[u] <= SIBLING_FANOUT)
        SUCCS (r, u)
          if (x != v)
            push (r, x);
    }
  SUCCS (r, v)
    push (r, x);
}

/* Candidates whose target part was full wait until a move the other way
 * makes room in it; then the best of them are tried again. */
static void
retry_deferred (Refiner *r, guint into_a)
{
  Heap *d = &r->deferred[into_a];
  for (guint i = 0; i < RETRIES_PER_MOVE && d->len > 0; i++)
    heap_push (&r->heap, heap_pop (d));
}

/* One Fiduccia-Mattheyses pass over the pair: moves the best candidate
 * that fits, even when it makes the cut worse for now, and finally takes
 * back every move after the best cut seen.  Returns the cut decrease. */
static gint64
fm_pass (Refiner *r)
{
  r->heap.len = 0;
  g_array_set_size (r->moves, 0);
  r->deferred[0].len = r->deferred[1].len = 0;
  for (guint i = 0; i < r->pair->len; i++)
    push (r, g_array_index (r->pair, guint32, i));
  gint64 total = 0, best = 0;
  guint best_len = 0;
  Candidate c;
  while (heap_pop_current (&r->heap, movable, gain, r, &c))
    {
      guint32 v = c.node;
      gint64 g = c.gain;
      guint into_a = r->part[v] == r->b;
      guint32 t = into_a ? r->a : r->b;
      if (r->load[t] > r->limit - r->cost[v])
        {
          heap_push (&r->deferred[into_a], c);
          continue;
        }
      apply_move (r, v, TRUE);
      r->locked[v] = 1;
      g_array_append_val (r->moves, v);
      retry_deferred (r, !into_a);
      total += g;
      if (total > best)
        {
          best = total;
          best_len = r->moves->len;
        }
      else if (r->moves->len - best_len > STALL_MOVES)
        break;
    }
  for (guint i = r->moves->len; i > best_len; i--)
    apply_move (r, g_array_index (r->moves, guint32, i - 1), FALSE);
  for (guint i = 0; i < r->moves->len; i++)
    r->locked[g_array_index (r->moves, guint32, i)] = 0;
  return best;
}

static gint64
refine_pair (Refiner *r, guint32 a)
{
  r->a = a;
  r->b = a + 1;
  g_array_set_size (r->pair, 0);
  g_array_append_vals (r->pair, r->members[a]->data, r->members[a]->len);
  g_array_append_vals (r->pair, r->members[a + 1]->data, r->members[a + 1]->len);
  for (guint i = 0; i < r->pair->len; i++)
    {
      guint32 v = g_array_index (r->pair, guint32, i);
      PREDS (r, v)
        {
          if (r->part[v] == r->a)
            r->users_a[u]++;
          else
            r->users_b[u]++;
          if (r->part[v] == r->b && r->part[u] == r->b)
            r->preds_b[v]++;
        }
    }
  gint64 improved = 0;
  for (guint pass = 0; pass < PAIR_PASSES; pass++)
    {
      gint64 g = fm_pass (r);
      improved += g;
      if (g <= 0)
        break;
    }
  /* Clear the counters and sort the pair's nodes back into their parts. */
  g_array_set_size (r->members[a], 0);
  g_array_set_size (r->members[a + 1], 0);
  for (guint i = 0; i < r->pair->len; i++)
    {
      guint32 v = g_array_index (r->pair, guint32, i);
      PREDS (r, v)
        r->users_a[u] = r->users_b[u] = 0;
      r->preds_b[v] = 0;
      g_array_append_val (r->members[r->part[v]], v);
    }
  return improved;
}

void
acyclic_refine (const CallDag *dag, const gint64 *cost, const gint64 *bytes, guint m,
                gint64 limit, const AcyclicCutParams *params, guint32 *part)
{
  if (m < 2)
    return;
  guint n = dag->n;
  Refiner r = {
    .dag = dag, .cost = cost, .bytes = bytes, .part = part, .limit = limit, .m = m,
    .seed = params->seed,
    .load = g_new0 (gint64, m), .size = g_new0 (guint32, m),
    .members = g_new (GArray *, m),
    .pair = g_array_new (FALSE, FALSE, sizeof (guint32)),
    .users_a = g_new0 (guint32, n), .users_b = g_new0 (guint32, n),
    .preds_b = g_new0 (guint32, n), .locked = g_new0 (guint8, n),
    .moves = g_array_new (FALSE, FALSE, sizeof (guint32)),
  };
  for (guint p = 0; p < m; p++)
    r.members[p] = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 v = 0; v < n; v++)
    {
      r.load[part[v]] += cost[v];
      r.size[part[v]]++;
      g_array_append_val (r.members[part[v]], v);
    }
  /* Sweeps forward then backward over the pairs, so a node can travel
   * more than one part in a sweep, until a sweep gains nothing. */
  for (guint sweep = 0; sweep < params->passes; sweep++)
    {
      gint64 improved = 0;
      for (guint32 a = 0; a + 1 < m; a++)
        improved += refine_pair (&r, a);
      for (guint32 a = m - 1; a-- > 0;)
        improved += refine_pair (&r, a);
      if (improved <= 0)
        break;
    }
  for (guint p = 0; p < m; p++)
    g_array_free (r.members[p], TRUE);
  g_free (r.members);
  g_free (r.load);
  g_free (r.size);
  g_array_free (r.pair, TRUE);
  g_free (r.users_a);
  g_free (r.users_b);
  g_free (r.preds_b);
  g_free (r.locked);
  g_free (r.heap.items);
  g_array_free (r.moves, TRUE);
  g_free (r.deferred[0].items);
  g_free (r.deferred[1].items);
}

/* ---- the contiguous split with the fewest crossing bytes ---------------------- */

/* Exactly @m non-empty contiguous parts, each costing at most @limit,
 * minimizing the sum over boundaries of the bytes of values crossing them
 * (an upper bound of the cut: a value crossing two boundaries into one
 * partition counts twice here, once in the cut).  O(m * n) time with a
 * sliding-window minimum.  FALSE when the table of choices would be too
 * large. */
static gboolean
best_contiguous (const CallDag *dag, const gint64 *cost, const gint64 *bytes, guint m,
                 gint64 limit, guint32 *part)
{
  guint n = dag->n;
  if ((guint64) m * (n + 1) > DP_MAX_CHOICES)
    return FALSE;
  gint64 *crossing = g_new0 (gint64, n + 2);
  for (guint32 v = 0; v < n; v++)
    if (dag->succ_off[v + 1] > dag->succ_off[v])
      {
        guint32 last = dag->succs[dag->succ_off[v + 1] - 1];   /* users are in order */
        crossing[v + 1] += bytes[v];
        crossing[last + 1] -= bytes[v];
      }
  for (guint s = 1; s <= n; s++)
    crossing[s] += crossing[s - 1];
  gint64 *prefix = g_new (gint64, n + 1);
  prefix[0] = 0;
  for (guint i = 0; i < n; i++)
    prefix[i + 1] = prefix[i] + cost[i];

  const gint64 inf = G_MAXINT64;
  gint64 *prev = g_new (gint64, n + 1), *cur = g_new (gint64, n + 1);
  guint32 *choice = g_new (guint32, (gsize) m * (n + 1));
  guint32 *deque = g_new (guint32, n + 1);
  for (guint t = 0; t <= n; t++)
    prev[t] = t == 0 ? 0 : inf;
  for (guint k = 1; k <= m; k++)
    {
      guint head = 0, tail = 0, lo = 0;
      cur[0] = inf;
      for (guint t = 1; t <= n; t++)
        {
          guint s = t - 1;
          if (prev[s] < inf)
            {
              gint64 val = prev[s] + (s > 0 ? crossing[s] : 0);
              while (tail > head && prev[deque[tail - 1]] + (deque[tail - 1] > 0 ? crossing[deque[tail - 1]] : 0) >= val)
                tail--;
              deque[tail++] = s;
            }
          while (prefix[t] - prefix[lo] > limit)
            lo++;
          while (tail > head && deque[head] < lo)
            head++;
          if (tail > head)
            {
              guint32 best = deque[head];
              cur[t] = prev[best] + (best > 0 ? crossing[best] : 0);
              choice[(gsize) (k - 1) * (n + 1) + t] = best;
            }
          else
            cur[t] = inf;
        }
      gint64 *swap = prev;
      prev = cur;
      cur = swap;
    }
  gboolean found = prev[n] < inf;
  if (found)
    {
      guint t = n;
      for (guint k = m; k >= 1; k--)
        {
          guint s = choice[(gsize) (k - 1) * (n + 1) + t];
          for (guint i = s; i < t; i++)
            part[i] = k - 1;
          t = s;
        }
    }
  g_free (crossing);
  g_free (prefix);
  g_free (prev);
  g_free (cur);
  g_free (choice);
  g_free (deque);
  return found;
}

/* ---- the whole ------------------------------------------------------------------ */

static gint64
max_load (const gint64 *cost, const guint32 *part, guint n, guint m)
{
  gint64 *load = g_new0 (gint64, m ? m : 1);
  gint64 top = 0;
  for (guint v = 0; v < n; v++)
    load[part[v]] += cost[v];
  for (guint p = 0; p < m; p++)
    top = MAX (top, load[p]);
  g_free (load);
  return top;
}

/* Keeps @other in @part when it cuts less (refined first with @refine). */
static void
keep_better (const CallDag *dag, const gint64 *cost, const gint64 *bytes, guint m,
             AcyclicCutStats *stats, const AcyclicCutParams *params, gboolean refine,
             guint32 *part, guint32 *other)
{
  if (refine)
    acyclic_refine (dag, cost, bytes, m, stats->limit, params, other);
  gint64 cut = call_dag_cut (dag, bytes, other, m);
  if (cut < stats->cut)
    {
      memcpy (part, other, dag->n * sizeof (guint32));
      stats->cut = cut;
    }
}

void
acyclic_cut (const CallDag *dag, const gint64 *cost, const gint64 *bytes,
             const AcyclicCutParams *params, guint32 *part, AcyclicCutStats *stats)
{
  g_return_if_fail (params->parts >= 1);
  guint n = dag->n;
  guint m = MIN (params->parts, n);
  memset (stats, 0, sizeof *stats);
  stats->parts = m;
  if (n == 0)
    return;

  gint64 bottleneck = contiguous_split (cost, n, params->parts, part);
  for (guint v = 0; v < n; v++)
    stats->total += cost[v];
  double wanted = floor ((1.0 + params->tolerance) * (double) stats->total / params->parts);
  gint64 limit = wanted >= (double) stats->total ? stats->total : (gint64) wanted;
  stats->relaxed = limit < bottleneck;
  stats->limit = MAX (limit, bottleneck);
  stats->contiguous_cut = call_dag_cut (dag, bytes, part, m);

  guint32 *other = g_new (guint32, n);
  acyclic_refine (dag, cost, bytes, m, stats->limit, params, part);
  stats->cut = call_dag_cut (dag, bytes, part, m);
  if (best_contiguous (dag, cost, bytes, m, stats->limit, other))
    keep_better (dag, cost, bytes, m, stats, params, TRUE, part, other);
  if (params->algorithm == ACYCLIC_MULTILEVEL && m > 1
      && acyclic_multilevel (dag, cost, bytes, m, stats->limit, params, other))
    keep_better (dag, cost, bytes, m, stats, params, FALSE, part, other);
  g_free (other);
  stats->max_load = max_load (cost, part, n, m);
}
