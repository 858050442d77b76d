/* Split result files loaded whole (fxsplit/verify.h): the loader's
 * one-pass mode (fxs_load_split) behind an opaque type with look-ups. */
#include <fxsplit/verify.h>

#include "graph-load-private.h"
#include "verify/verify-private.h"

struct FxsSplitFile {
  FxsLoadSplit parts;
  GHashTable *submodule_by_name;   /* name -> FxsGraph* */
};

static void
partition_free (gpointer data)
{
  FxsLoadPartition *p = data;
  g_free (p->name);
  g_free (p->submodule);
  g_ptr_array_unref (p->dependencies);
  g_ptr_array_unref (p->dependents);
  g_free (p);
}

static void
parts_clear (FxsLoadSplit *parts)
{
  fxs_graph_unref (parts->top);
  g_ptr_array_unref (parts->names);
  g_ptr_array_unref (parts->submodules);
  g_hash_table_unref (parts->qualname_map);
  g_ptr_array_unref (parts->partitions);
}

static FxsSplitFile *
load (const char *path, const char *data, gsize length, const char *display_name,
      GError **error)
{
  FxsLoadSplit parts = {
    .names = g_ptr_array_new_with_free_func (g_free),
    .submodules = g_ptr_array_new_with_free_func ((GDestroyNotify) fxs_graph_unref),
    .qualname_map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
    .partitions = g_ptr_array_new_with_free_func (partition_free),
  };
  if (!fxs_load_split (path, data, length, display_name, &parts, error))
    {
      parts_clear (&parts);
      return NULL;
    }
  FxsSplitFile *file = g_new0 (FxsSplitFile, 1);
  file->parts = parts;
  /* names are unique (the loader checks) */
  file->submodule_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < parts.names->len; i++)
    g_hash_table_insert (file->submodule_by_name, parts.names->pdata[i], parts.submodules->pdata[i]);
  return file;
}

FxsSplitFile *
fxs_split_file_load (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  return load (path, NULL, 0, path, error);
}

FxsSplitFile *
fxs_split_file_load_data (const char *data, gsize length, const char *display_name,
                          GError **error)
{
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  return load (NULL, data, length, display_name, error);
}

void
fxs_split_file_free (FxsSplitFile *file)
{
  if (!file)
    return;
  g_hash_table_unref (file->submodule_by_name);
  parts_clear (&file->parts);
  g_free (file);
}

const FxsGraph *
fxs_split_file_top (const FxsSplitFile *file)
{
  return file->parts.top;
}

guint
fxs_split_file_n_submodules (const FxsSplitFile *file)
{
  return file->parts.submodules->len;
}

const char *
fxs_split_file_submodule_name (const FxsSplitFile *file, guint i)
{
  g_return_val_if_fail (i < file->parts.names->len, NULL);
  return file->parts.names->pdata[i];
}

const FxsGraph *
fxs_split_file_submodule (const FxsSplitFile *file, guint i)
{
  g_return_val_if_fail (i < file->parts.submodules->len, NULL);
  return file->parts.submodules->pdata[i];
}

const FxsGraph *
fxs_split_file_lookup_submodule (const FxsSplitFile *file, const char *name)
{
  return g_hash_table_lookup (file->submodule_by_name, name);
}

guint
fxs_split_file_n_qualnames (const FxsSplitFile *file)
{
  return g_hash_table_size (file->parts.qualname_map);
}

const char *
fxs_split_file_lookup_qualname (const FxsSplitFile *file, const char *new_name)
{
  return g_hash_table_lookup (file->parts.qualname_map, new_name);
}

gboolean
fxs_split_file_verify (const FxsGraph *original, const FxsSplitFile *file, GError **error)
{
  g_return_val_if_fail (original != NULL && file != NULL, FALSE);
  return fxs_verify_partition_table (original, &file->parts, file->submodule_by_name, error)
         && fxs_verify_split (original, file->parts.top, file->submodule_by_name,
                              file->parts.qualname_map, error);
}
