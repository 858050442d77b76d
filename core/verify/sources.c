/* The entry points of verify (fxsplit/verify.h): where the split's graphs
 * come from, a split result file's tables or a split result in memory. */
#include "verify-private.h"

#include <string.h>

/* -- from hash tables -- */

typedef struct {
  GHashTable *submodules;
  GHashTable *qualnames;
} TableSource;

static const FxsGraph *
table_submodule (gpointer data, const char *name)
{
  return g_hash_table_lookup (((TableSource *) data)->submodules, name);
}

static const char *
table_qualname (gpointer data, const char *new_name)
{
  TableSource *t = data;
  return t->qualnames ? g_hash_table_lookup (t->qualnames, new_name) : NULL;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static GPtrArray *
table_names (gpointer data)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, ((TableSource *) data)->submodules);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (names, key);
  g_ptr_array_sort (names, compare_names);
  return names;
}

gboolean
fxs_verify_split (const FxsGraph *original, const FxsGraph *split_top, GHashTable *submodules,
                  GHashTable *qualname_map, GError **error)
{
  g_return_val_if_fail (original != NULL && split_top != NULL && submodules != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  TableSource t = { submodules, qualname_map };
  Source src = { &t, table_submodule, table_qualname, g_hash_table_size (submodules), table_names };
  return fxs_verify_run (original, split_top, &src, error);
}

/* -- from a split result: the top-level graph calls the partitions in
 * order, so a cursor finds each one without a table -- */

typedef struct {
  const FxsSplitResult *result;
  guint next;
  GHashTable *by_name;   /* made only if the calls are out of order */
} ResultSource;

static const FxsGraph *
result_submodule (gpointer data, const char *name)
{
  ResultSource *rs = data;
  guint n = fxs_split_result_n_partitions (rs->result);
  if (rs->next < n)
    {
      const FxsPartition *p = fxs_split_result_partition (rs->result, rs->next);
      if (strcmp (fxs_partition_submod_name (p), name) == 0)
        {
          rs->next++;
          return fxs_partition_graph (p);
        }
    }
  if (!rs->by_name)
    {
      rs->by_name = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < n; i++)
        {
          const FxsPartition *p = fxs_split_result_partition (rs->result, i);
          g_hash_table_insert (rs->by_name, (gpointer) fxs_partition_submod_name (p),
                               (gpointer) fxs_partition_graph (p));
        }
    }
  return g_hash_table_lookup (rs->by_name, name);
}

static const char *
result_qualname (gpointer data, const char *new_name)
{
  return fxs_split_result_lookup_qualname (((ResultSource *) data)->result, new_name);
}

static GPtrArray *
result_names (gpointer data)
{
  const FxsSplitResult *result = ((ResultSource *) data)->result;
  GPtrArray *names = g_ptr_array_new ();
  for (guint i = 0; i < fxs_split_result_n_partitions (result); i++)
    g_ptr_array_add (names, (gpointer) fxs_partition_submod_name (fxs_split_result_partition (result, i)));
  g_ptr_array_sort (names, compare_names);
  return names;
}

gboolean
fxs_split_result_verify (const FxsSplitResult *result, GError **error)
{
  g_return_val_if_fail (result != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  /* the partition table: each partition is called after those it needs */
  for (guint i = 0; i < fxs_split_result_n_partitions (result); i++)
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
  ResultSource rs = { result, 0, NULL };
  Source src = { &rs, result_submodule, result_qualname, fxs_split_result_n_partitions (result),
                 result_names };
  gboolean ok = fxs_verify_run (fxs_split_result_original (result), fxs_split_result_top (result),
                                &src, error);
  if (rs.by_name)
    g_hash_table_unref (rs.by_name);
  return ok;
}
