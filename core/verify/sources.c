/* The entry points of verify (fxsplit/verify.h): a split result file's
 * tables, or a split result in memory. */
#include "verify-private.h"

#include <string.h>

const FxsGraph *
fxs_verify_submodule (Source *src, const char *name)
{
  const FxsSplitResult *r = src->result;
  guint n = r ? fxs_split_result_n_partitions (r) : 0;
  if (src->next < n && strcmp (fxs_partition_submod_name (fxs_split_result_partition (r, src->next)),
                               name) == 0)
    return fxs_partition_graph (fxs_split_result_partition (r, src->next++));
  if (!src->submodules)
    {
      src->submodules = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < n; i++)
        g_hash_table_insert (src->submodules,
                             (gpointer) fxs_partition_submod_name (fxs_split_result_partition (r, i)),
                             (gpointer) fxs_partition_graph (fxs_split_result_partition (r, i)));
    }
  return g_hash_table_lookup (src->submodules, name);
}

guint
fxs_verify_n_submodules (const Source *src)
{
  return src->result ? fxs_split_result_n_partitions (src->result)
                     : g_hash_table_size (src->submodules);
}

gboolean
fxs_verify_split (const FxsGraph *original, const FxsGraph *split_top, GHashTable *submodules,
                  GHashTable *qualname_map, GError **error)
{
  g_return_val_if_fail (original != NULL && split_top != NULL && submodules != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  Source src = { submodules, qualname_map, NULL, 0 };
  return fxs_verify_run (original, split_top, &src, error);
}

gboolean
fxs_split_result_verify (const FxsSplitResult *result, GError **error)
{
  g_return_val_if_fail (result != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  /* the partition table: each partition is called after those it needs */
  guint n = fxs_split_result_n_partitions (result);
  for (guint i = 0; i < n; i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      for (guint k = 0; k < fxs_partition_n_dependencies (p); k++)
        {
          const FxsPartition *d = fxs_partition_dependency (p, k);
          if (fxs_partition_index (d) < i)
            continue;
          g_set_error (error, FXS_ERROR, FXS_ERROR_VERIFY,
                       "partition %s is called before partition %s, whose values it needs",
                       fxs_partition_name (p), fxs_partition_name (d));
          return FALSE;
        }
    }
  Source src = { NULL, NULL, result, 0 };
  gboolean ok = fxs_verify_run (fxs_split_result_original (result), fxs_split_result_top (result),
                                &src, error);
  g_clear_pointer (&src.submodules, g_hash_table_unref);
  return ok;
}
