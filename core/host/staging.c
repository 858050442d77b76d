/* Staged output files: every output's files are written to temporary
 * files and appear together only when the whole run succeeded. */
#include "host-private.h"

#include "util/atomic-file.h"

struct FxsStaging {
  GPtrArray *files;      /* FxsAtomicFile*, in opening order */
  GHashTable *owner_of;  /* path -> owner (both borrowed) */
};

FxsStaging *
fxs_staging_new (void)
{
  FxsStaging *s = g_new0 (FxsStaging, 1);
  s->files = g_ptr_array_new_with_free_func ((GDestroyNotify) fxs_atomic_file_abort);
  s->owner_of = g_hash_table_new (g_str_hash, g_str_equal);
  return s;
}

FILE *
fxs_staging_open (FxsStaging *staging, const char *path, const char *owner, GError **error)
{
  const char *previous = g_hash_table_lookup (staging->owner_of, path);
  if (previous)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "%s: written twice in one run, by [%s] and by [%s]", path, previous, owner);
      return NULL;
    }
  FxsAtomicFile *file = fxs_atomic_file_open (path, error);
  if (!file)
    return NULL;
  g_ptr_array_add (staging->files, file);
  g_hash_table_insert (staging->owner_of, (gpointer) fxs_atomic_file_path (file),
                       (gpointer) owner);
  return fxs_atomic_file_stream (file);
}

void
fxs_staging_abort (FxsStaging *staging)
{
  if (!staging)
    return;
  g_hash_table_unref (staging->owner_of);
  g_ptr_array_unref (staging->files);  /* aborts what is still staged */
  g_free (staging);
}

gboolean
fxs_staging_commit (FxsStaging *staging, GError **error)
{
  g_ptr_array_set_free_func (staging->files, NULL);  /* the commit frees them */
  gboolean ok = fxs_atomic_file_commit_all ((FxsAtomicFile **) staging->files->pdata,
                                            staging->files->len, error);
  fxs_staging_abort (staging);
  return ok;
}
