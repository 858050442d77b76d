/* Contiguous pipeline stages with the smallest bottleneck: the algorithm of
 * the balanced partitioner, shared with mincut (its starting point). */
#ifndef FXS_PARTS_CONTIGUOUS_H
#define FXS_PARTS_CONTIGUOUS_H

#include <glib.h>

/* Splits the sequence @costs[0..n) (non-negative) into min(@k, @n)
 * non-empty contiguous stages such that the most expensive stage costs as
 * little as possible, and returns that cost.  @stage_of[i] receives the
 * stage of element i (0, 1, ...).  O(n log(sum of costs)): binary search on
 * the bottleneck with a greedy feasibility check.  @k >= 1. */
gint64 contiguous_split (const gint64 *costs, guint n, guint k, guint32 *stage_of);

/* The smallest bottleneck alone. */
gint64 contiguous_min_bottleneck (const gint64 *costs, guint n, guint k);

#endif
