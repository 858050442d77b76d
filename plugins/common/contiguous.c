/* Minimum-bottleneck contiguous partitioning (the "linear partition"
 * problem): binary search on the bottleneck B, with the greedy check
 * "fill each stage while it stays <= B" deciding whether k stages suffice.
 * The greedy check is exact (no split into k stages with bottleneck B
 * exists when greedy needs more than k), so the search finds the optimum. */
#include "contiguous.h"

/* Whether @costs fits into at most @k stages of cost <= @limit. */
static gboolean
fits (const gint64 *costs, guint n, guint k, gint64 limit)
{
  guint stages = 1;
  gint64 sum = 0;
  for (guint i = 0; i < n; i++)
    {
      if (costs[i] > limit)
        return FALSE;
      if (sum > limit - costs[i])
        {
          if (++stages > k)
            return FALSE;
          sum = 0;
        }
      sum += costs[i];
    }
  return TRUE;
}

gint64
contiguous_min_bottleneck (const gint64 *costs, guint n, guint k)
{
  g_return_val_if_fail (k >= 1, 0);
  gint64 total = 0, largest = 0;
  for (guint i = 0; i < n; i++)
    {
      total += costs[i];
      largest = MAX (largest, costs[i]);
    }
  /* No stage is cheaper than the largest element or the average. */
  gint64 lo = MAX (largest, total / k + (total % k != 0));
  gint64 hi = total;
  while (lo < hi)
    {
      gint64 mid = lo + (hi - lo) / 2;
      if (fits (costs, n, k, mid))
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

gint64
contiguous_split (const gint64 *costs, guint n, guint k, guint32 *stage_of)
{
  gint64 bottleneck = contiguous_min_bottleneck (costs, n, k);
  guint m = MIN (k, n);
  /* Greedy fill with the optimal bottleneck, except that once as many
   * elements remain as stages are still to open, each gets its own stage:
   * exactly m stages, none empty, none above the bottleneck. */
  guint stage = 0;
  gint64 sum = 0;
  gboolean empty = TRUE;
  for (guint i = 0; i < n; i++)
    {
      gboolean over = sum > bottleneck - costs[i];
      gboolean must_open = n - i == m - 1 - stage;
      if (!empty && (over || must_open))
        {
          stage++;
          sum = 0;
        }
      stage_of[i] = stage;
      sum += costs[i];
      empty = FALSE;
    }
  return bottleneck;
}
