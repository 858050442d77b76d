/* The split_callback of partitioners that decide every node in prepare()
 * (partitioner.h: fxs_partitioner_precomputed_id). */
#include <fxsplit/partitioner.h>
#include <fxsplit/error.h>

gboolean
fxs_partitioner_precomputed_id (const gint64 *ids, guint n_ids, const FxsNode *node,
                                gint64 *partition, GError **error)
{
  guint i = fxs_node_index (node);
  if (!ids || i >= n_ids)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "called for a graph it was not prepared for");
      return FALSE;
    }
  *partition = ids[i];
  return TRUE;
}
