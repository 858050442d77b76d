/* Hostile input at scale: a chain of N call nodes, each also reading the
 * graph's input, split into partitions of K consecutive nodes (K = 1: one
 * partition per node), then verified.  Fails when the split or the check
 * takes longer than the limit, or when memory grows by more than the
 * limit per partition (bookkeeping that is not linear shows up there).
 *
 *   hostile-many-partitions N K MAX_SECONDS MAX_BYTES_PER_PARTITION */
#include <fxsplit/fxsplit.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static long
peak_rss_kb (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static FxsGraph *
chain (guint n)
{
  FxsGraph *g = fxs_graph_new ();
  const FxsNode *x = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, NULL);
  const FxsNode *prev = x;
  char name[32];
  for (guint i = 0; i < n; i++)
    {
      const FxsValue *args[2] = { fxs_value_new_node (g, prev), fxs_value_new_node (g, x) };
      g_snprintf (name, sizeof name, "add_%u", i);
      prev = fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, name, "_operator.add",
                                 fxs_value_new_sequence (g, FXS_VALUE_TUPLE, args, 2), NULL, NULL);
    }
  const FxsValue *result = fxs_value_new_node (g, prev);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &result, 1), NULL, NULL);
  return g;
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: %s N K MAX_SECONDS MAX_BYTES_PER_PARTITION\n", argv[0]);
      return 2;
    }
  guint n = strtoul (argv[1], NULL, 10), k = strtoul (argv[2], NULL, 10);
  double max_seconds = strtod (argv[3], NULL);
  double max_bytes = strtod (argv[4], NULL);
  gint64 t0 = g_get_monotonic_time ();
  FxsGraph *g = chain (n);
  gint64 *ids = g_new (gint64, n + 2);
  for (guint i = 0; i < n + 2; i++)
    ids[i] = i ? (i - 1) / k : 0;   /* node i is call node i - 1 */
  long rss_graph = peak_rss_kb ();
  gint64 t1 = g_get_monotonic_time ();
  GError *error = NULL;
  FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
  if (!r)
    {
      fprintf (stderr, "split failed: %s\n", error->message);
      return 1;
    }
  gint64 t2 = g_get_monotonic_time ();
  long rss_split = peak_rss_kb ();
  if (!fxs_split_result_verify (r, &error))
    {
      fprintf (stderr, "verify failed: %s\n", error->message);
      return 1;
    }
  gint64 t3 = g_get_monotonic_time ();
  guint parts = fxs_split_result_n_partitions (r);
  double per_part = (peak_rss_kb () - rss_graph) * 1024.0 / parts;
  double seconds = (t3 - t1) / 1e6;
  printf ("%u call nodes in %u partitions: graph built in %.1f s (%ld MB), split in %.1f s "
          "(+%ld MB), verified in %.1f s; peak %ld MB, %.0f bytes per partition\n",
          n, parts, (t1 - t0) / 1e6, rss_graph / 1024, (t2 - t1) / 1e6,
          (rss_split - rss_graph) / 1024, (t3 - t2) / 1e6, peak_rss_kb () / 1024, per_part);
  fxs_split_result_free (r);
  g_free (ids);
  fxs_graph_unref (g);
  if (seconds > max_seconds || per_part > max_bytes)
    {
      fprintf (stderr, "over the limits: %.1f s (max %.0f), %.0f bytes per partition (max %.0f)\n",
               seconds, max_seconds, per_part, max_bytes);
      return 1;
    }
  return 0;
}
