/* Stages under device constraints (see stage-plan.h).
 *
 * Without sending times a stage's time only grows when the stage grows,
 * and so does its memory (a value that leaves the run when it shrinks is
 * read from outside instead: the same bytes).  Then "fill each stage as
 * far as it fits" covers the most elements a feasible plan can cover
 * (exchange argument; stages may be empty), so a bisection on the
 * bottleneck over the ordered bit patterns of doubles finds the smallest
 * one exactly.  Sending times shrink when a stage grows over a value's
 * readers, so with bandwidth the plan is a dynamic program over (stage,
 * end), each start scanned forward while it fits, cut off where the cost
 * alone exceeds the time of the bisection's plan. */
#include "stage-plan.h"

#include <math.h>
#include <string.h>

#define NONE G_MAXUINT32

static gint64
sat_add (gint64 a, gint64 b)
{
  return a > G_MAXINT64 - b ? G_MAXINT64 : a + b;
}

/* A run [s, e) that grows one element at a time. */
typedef struct {
  const StageGraph *g;
  guint32 *stamp;        /* per value: the scan that counted it as read */
  guint32 now;
  guint32 *last_reader;  /* per element: the last element reading it, NONE */
  guint32 *dying_start;  /* [n + 1]: the elements whose last reader is j */
  guint32 *dying;
  guint s, e;
  gint64 cost, memory, sent;
} Scan;

static void
scan_init (Scan *sc, const StageGraph *g)
{
  guint n = g->n;
  memset (sc, 0, sizeof *sc);
  sc->g = g;
  sc->stamp = g_new0 (guint32, n + g->n_external + 1);
  sc->last_reader = g_new (guint32, n + 1);
  sc->dying_start = g_new0 (guint32, n + 2);
  for (guint i = 0; i < n; i++)
    sc->last_reader[i] = NONE;
  for (guint j = 0; j < n; j++)
    for (guint r = g->in_start[j]; r < g->in_start[j + 1]; r++)
      if (g->in[r] < n)
        sc->last_reader[g->in[r]] = j;  /* readers come in order: the last one wins */
  for (guint i = 0; i < n; i++)
    if (sc->last_reader[i] != NONE)
      sc->dying_start[sc->last_reader[i] + 1]++;
  for (guint j = 0; j < n; j++)
    sc->dying_start[j + 1] += sc->dying_start[j];
  sc->dying = g_new (guint32, sc->dying_start[n] + 1);
  guint32 *fill = g_memdup2 (sc->dying_start, (n + 1) * sizeof (guint32));
  for (guint i = 0; i < n; i++)
    if (sc->last_reader[i] != NONE)
      sc->dying[fill[sc->last_reader[i]]++] = i;
  g_free (fill);
}

static void
scan_clear (Scan *sc)
{
  g_free (sc->stamp);
  g_free (sc->last_reader);
  g_free (sc->dying_start);
  g_free (sc->dying);
}

static void
scan_start (Scan *sc, guint s)
{
  sc->s = sc->e = s;
  sc->cost = sc->memory = sc->sent = 0;
  if (++sc->now == 0)
    {
      memset (sc->stamp, 0, (sc->g->n + sc->g->n_external) * sizeof (guint32));
      sc->now = 1;
    }
}

/* What the run's cost, memory and sent bytes would be with element e. */
static void
scan_peek (const Scan *sc, gint64 *cost, gint64 *memory, gint64 *sent)
{
  const StageGraph *g = sc->g;
  guint e = sc->e;
  gint64 m = sat_add (sat_add (sc->memory, g->params[e]), g->bytes[e]);
  for (guint r = g->in_start[e]; r < g->in_start[e + 1]; r++)
    {
      guint32 v = g->in[r];
      if ((v >= g->n || v < sc->s) && sc->stamp[v] != sc->now)
        m = sat_add (m, g->bytes[v]);
    }
  gint64 out = sc->sent;
  if (sc->last_reader[e] != NONE)
    out = sat_add (out, g->bytes[e]);
  for (guint d = sc->dying_start[e]; d < sc->dying_start[e + 1]; d++)
    if (sc->dying[d] >= sc->s)
      out -= g->bytes[sc->dying[d]];
  *cost = sat_add (sc->cost, g->cost[e]);
  *memory = m;
  *sent = out;
}

/* Adds element e (after a peek that gave these numbers). */
static void
scan_push (Scan *sc, gint64 cost, gint64 memory, gint64 sent)
{
  const StageGraph *g = sc->g;
  for (guint r = g->in_start[sc->e]; r < g->in_start[sc->e + 1]; r++)
    sc->stamp[g->in[r]] = sc->now;
  sc->cost = cost;
  sc->memory = memory;
  sc->sent = sent;
  sc->e++;
}

static double
stage_time (const StageDevices *d, guint k, gint64 cost, gint64 sent)
{
  return (double) cost / d->speed[k] + (d->bandwidth > 0 ? (double) sent / d->bandwidth : 0.0);
}

static gboolean
fits (const StageDevices *d, guint k, gint64 memory)
{
  return !d->capacity || memory <= d->capacity[k];
}

/* Fills each stage as far as it fits in memory and in @limit (sending
 * ignored); TRUE when every element found a stage.  With @stage_of, records
 * the plan; *@worst gets its largest time (with sending). */
static gboolean
greedy (Scan *sc, const StageDevices *d, double limit, guint32 *stage_of, double *worst,
        guint *left_over, guint *last_start)
{
  guint n = sc->g->n, pos = 0;
  double w = 0;
  for (guint k = 0; k < d->k && pos < n; k++)
    {
      scan_start (sc, pos);
      if (last_start)
        *last_start = pos;
      while (sc->e < n)
        {
          gint64 cost, memory, sent;
          scan_peek (sc, &cost, &memory, &sent);
          if (!fits (d, k, memory) || (double) cost / d->speed[k] > limit)
            break;
          scan_push (sc, cost, memory, sent);
          if (stage_of)
            stage_of[sc->e - 1] = k;
        }
      w = MAX (w, stage_time (d, k, sc->cost, sc->sent));
      pos = sc->e;
    }
  if (worst)
    *worst = w;
  if (left_over)
    *left_over = pos;
  return pos == n;
}

static double
from_bits (guint64 bits)
{
  double v;
  memcpy (&v, &bits, sizeof v);
  return v;
}

static guint64
to_bits (double v)
{
  guint64 bits;
  memcpy (&bits, &v, sizeof bits);
  return bits;
}

/* The smallest bottleneck "fill as far as it fits" meets, and its plan.
 * Non-negative doubles order as their bit patterns. */
static double
bisect (Scan *sc, const StageDevices *d, double upper, guint32 *stage_of)
{
  guint64 lo = 0, hi = to_bits (upper);
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (greedy (sc, d, from_bits (mid), NULL, NULL, NULL, NULL))
        hi = mid;
      else
        lo = mid + 1;
    }
  double worst;
  greedy (sc, d, from_bits (hi), stage_of, &worst, NULL, NULL);
  return worst;
}

/* The exact plan with sending times: best[e] after stage k is the
 * smallest bottleneck of the first e elements on stages 0..k. */
static double
dynamic (Scan *sc, const StageDevices *d, double upper, guint32 *stage_of)
{
  guint n = sc->g->n, k_stages = d->k;
  double *prev = g_new (double, n + 1), *cur = g_new (double, n + 1);
  guint32 *from = g_new (guint32, (gsize) k_stages * (n + 1));
  for (guint e = 0; e <= n; e++)
    prev[e] = e == 0 ? 0 : INFINITY;
  for (guint k = 0; k < k_stages; k++)
    {
      guint32 *arg = from + (gsize) k * (n + 1);
      for (guint e = 0; e <= n; e++)
        {
          cur[e] = prev[e];  /* stage k empty */
          arg[e] = e;
        }
      for (guint s = 0; s < n; s++)
        {
          if (!(prev[s] <= upper))
            continue;
          scan_start (sc, s);
          while (sc->e < n)
            {
              gint64 cost, memory, sent;
              scan_peek (sc, &cost, &memory, &sent);
              /* The cost alone only grows: past upper no plan is better. */
              if (!fits (d, k, memory) || (double) cost / d->speed[k] > upper)
                break;
              scan_push (sc, cost, memory, sent);
              double v = MAX (prev[s], stage_time (d, k, cost, sent));
              if (v < cur[sc->e])
                {
                  cur[sc->e] = v;
                  arg[sc->e] = s;
                }
            }
        }
      double *t = prev;
      prev = cur;
      cur = t;
    }
  double best = prev[n];
  /* Only a finite bottleneck has a chain of choices back to the start
   * (times that overflow to infinity tell no plan apart): then the
   * bisection's plan, already in @stage_of, stays. */
  for (guint k = k_stages, e = n; best < INFINITY && k-- > 0;)
    {
      guint s = from[(gsize) k * (n + 1) + e];
      for (guint i = s; i < e; i++)
        stage_of[i] = k;
      e = s;
    }
  g_free (prev);
  g_free (cur);
  g_free (from);
  return best < INFINITY ? best : upper;
}

gboolean
stage_plan (const StageGraph *g, const StageDevices *d, guint32 *stage_of, double *bottleneck,
            guint *left_over, guint *last_start)
{
  g_return_val_if_fail (d->k >= 1, FALSE);
  Scan sc;
  scan_init (&sc, g);
  double upper;
  gboolean ok = greedy (&sc, d, INFINITY, NULL, &upper, left_over, last_start);
  if (ok)
    {
      /* The bisection's own plan, with its sending times, bounds the dynamic
       * program's. */
      StageDevices no_sending = *d;
      no_sending.bandwidth = 0;
      greedy (&sc, &no_sending, INFINITY, NULL, &upper, NULL, NULL);
      double worst = bisect (&sc, &no_sending, upper, stage_of);
      if (d->bandwidth > 0)
        {
          greedy (&sc, d, worst, NULL, &upper, NULL, NULL);
          worst = dynamic (&sc, d, upper, stage_of);
        }
      *bottleneck = worst;
    }
  scan_clear (&sc);
  return ok;
}

gint64
stage_plan_memory (const StageGraph *g, guint s, guint e)
{
  Scan sc;
  scan_init (&sc, g);
  scan_start (&sc, s);
  while (sc.e < e)
    {
      gint64 cost, memory, sent;
      scan_peek (&sc, &cost, &memory, &sent);
      scan_push (&sc, cost, memory, sent);
    }
  gint64 m = sc.memory;
  scan_clear (&sc);
  return m;
}
