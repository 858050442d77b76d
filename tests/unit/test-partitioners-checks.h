/* Checks the partitioner tests share (CUnit): a split the engine must
 * accept, and partition ids by node name. */
#ifndef FXS_TEST_PARTITIONERS_CHECKS_H
#define FXS_TEST_PARTITIONERS_CHECKS_H

#include <CUnit/CUnit.h>
#include <stdio.h>

#include "test-partitioners-graphs.h"

/* Splits @graph with @ids and checks that the engine accepts it (above
 * all, no FXS_ERROR_CYCLE); returns the result for more checks. */
static inline FxsSplitResult *
split_checked (FxsGraph *graph, const gint64 *ids)
{
  GError *error = NULL;
  FxsSplitResult *result = fxs_split_with_ids (graph, ids, NULL, &error);
  if (error)
    fprintf (stderr, "\nsplit failed: %s\n", error->message);
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&error);
  return result;
}

static inline gint64
id_of (const FxsGraph *g, const gint64 *ids, const char *name)
{
  const FxsNode *node = fxs_graph_lookup_node (g, name);
  CU_ASSERT_PTR_NOT_NULL_FATAL (node);
  return ids[fxs_node_index (node)];
}

/* "name=id ..." holds for @ids. */
static inline void
assert_ids (const FxsGraph *g, const gint64 *ids, const char *expected)
{
  char **pairs = g_strsplit (expected, " ", -1);
  for (char **p = pairs; *p; p++)
    {
      char **kv = g_strsplit (*p, "=", 2);
      gint64 want = g_ascii_strtoll (kv[1], NULL, 10);
      gint64 got = id_of (g, ids, kv[0]);
      if (got != want)
        {
          fprintf (stderr, "\n%s: partition %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT "\n",
                   kv[0], got, want);
          CU_FAIL ("wrong partition");
        }
      g_strfreev (kv);
    }
  g_strfreev (pairs);
}

#endif
