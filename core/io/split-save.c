/* Writing split results as graph files: the top-level graph, then one
 * submodule graph per partition, the partition table and the qualname map
 * (docs/graph-format.md).  Uses only the public split.h accessors. */
#include <fxsplit/split.h>
#include <fxsplit/io.h>
#include "json-writer.h"

typedef const FxsNode *(*NodeAt) (const FxsPartition *p, guint i);
typedef const FxsPartition *(*PartitionAt) (const FxsPartition *p, guint i);

/* "KEY: [...]": the names of @p's @n nodes (@node_at) or partitions. */
static void
write_names (FxsJsonWriter *w, const char *key, const FxsPartition *p, guint n, NodeAt node_at,
             PartitionAt partition_at)
{
  fxs_json_write_raw (w, key);
  fxs_json_write_literal (w, ": [");
  for (guint i = 0; i < n; i++)
    {
      if (i)
        fxs_json_write_literal (w, ", ");
      fxs_json_write_cstring (w, node_at ? fxs_node_name (node_at (p, i))
                                         : fxs_partition_name (partition_at (p, i)));
    }
  fxs_json_write_literal (w, "]");
}

static void
partition_item (FxsJsonWriter *w, gconstpointer result, guint i)
{
  const FxsPartition *p = fxs_split_result_partition (result, i);
  fxs_json_write_literal (w, "{\"name\": ");
  fxs_json_write_cstring (w, fxs_partition_name (p));
  fxs_json_write_literal (w, ", \"id\": ");
  fxs_json_write_int (w, fxs_partition_id (p));
  fxs_json_write_literal (w, ", \"submodule\": ");
  fxs_json_write_cstring (w, fxs_partition_submod_name (p));
  if (fxs_partition_label (p))
    {
      fxs_json_write_literal (w, ", \"label\": ");
      fxs_json_write_cstring (w, fxs_partition_label (p));
    }
  write_names (w, ", \"nodes\"", p, fxs_partition_n_nodes (p), fxs_partition_node, NULL);
  write_names (w, ", \"inputs\"", p, fxs_partition_n_inputs (p), fxs_partition_input, NULL);
  write_names (w, ", \"outputs\"", p, fxs_partition_n_outputs (p), fxs_partition_output, NULL);
  write_names (w, ", \"dependencies\"", p, fxs_partition_n_dependencies (p), NULL,
               fxs_partition_dependency);
  write_names (w, ", \"dependents\"", p, fxs_partition_n_dependents (p), NULL,
               fxs_partition_dependent);
  fxs_json_write_literal (w, "}");
}

static void
submodule_item (FxsJsonWriter *w, gconstpointer result, guint i)
{
  const FxsPartition *p = fxs_split_result_partition (result, i);
  fxs_json_write_literal (w, "{\n      \"name\": ");
  fxs_json_write_cstring (w, fxs_partition_submod_name (p));
  fxs_json_write_literal (w, ",\n");
  fxs_graph_write_members (w, fxs_partition_graph (p), "      ");
  fxs_json_write_literal (w, "\n    }");
}

static void
qualname_item (FxsJsonWriter *w, gconstpointer result, guint i)
{
  const char *new_name, *old_name;
  fxs_split_result_qualname (result, i, &new_name, &old_name);
  fxs_json_write_cstring (w, new_name);
  fxs_json_write_literal (w, ": ");
  fxs_json_write_cstring (w, old_name);
}

static void
write_split_result (FxsJsonWriter *w, gconstpointer result)
{
  guint n = fxs_split_result_n_partitions (result);
  fxs_graph_write_start (w, fxs_split_result_top (result));
  fxs_json_write_literal (w, ",\n");
  fxs_graph_write_list (w, "  ", "\"submodules\": [", n, submodule_item, result, ']');
  fxs_json_write_literal (w, ",\n");
  fxs_graph_write_list (w, "  ", "\"partitions\": [", n, partition_item, result, ']');
  fxs_json_write_literal (w, ",\n");
  fxs_graph_write_list (w, "  ", "\"qualname_map\": {", fxs_split_result_n_qualnames (result),
                        qualname_item, result, '}');
  fxs_json_write_literal (w, "\n}\n");
}

void
fxs_split_result_to_json (const FxsSplitResult *result, GString *out)
{
  g_return_if_fail (result != NULL && out != NULL);
  fxs_json_write_with (out, NULL, write_split_result, result);
}

void
fxs_split_result_write_json (const FxsSplitResult *result, FILE *out)
{
  g_return_if_fail (result != NULL && out != NULL);
  fxs_json_write_with (NULL, out, write_split_result, result);
}

gboolean
fxs_split_result_save_file (const FxsSplitResult *result, const char *path, GError **error)
{
  g_return_val_if_fail (result != NULL && path != NULL, FALSE);
  return fxs_json_save_file (path, write_split_result, result, error);
}
