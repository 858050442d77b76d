/* Staged output files: every output's files are written to temporary
 * files and appear together only when the whole run succeeded. */
#include "context.h"

#include "util/atomic-file.h"


typedef struct {
  FxsAtomicFile *file;
  char *owner;
} Staged;

struct FxsStaging {
  GPtrArray *files;      /* Staged*, in opening order */
  GHashTable *owner_of;  /* path -> owner label (borrowed from Staged) */
};

static void
staged_free (gpointer data)
{
  Staged *s = data;
  fxs_atomic_file_abort (s->file);
  g_free (s->owner);
  g_free (s);
}

FxsStaging *
fxs_staging_new (void)
{
  FxsStaging *s = g_new0 (FxsStaging, 1);
  s->files = g_ptr_array_new_with_free_func (staged_free);
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
  Staged *s = g_new0 (Staged, 1);
  s->file = file;
  s->owner = g_strdup (owner);
  g_ptr_array_add (staging->files, s);
  g_hash_table_insert (staging->owner_of, (gpointer) fxs_atomic_file_path (file), s->owner);
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
  GPtrArray *files = g_ptr_array_sized_new (staging->files->len);
  for (guint i = 0; i < staging->files->len; i++)
    {
      Staged *s = staging->files->pdata[i];
      g_ptr_array_add (files, s->file);
      s->file = NULL;  /* the commit frees it */
    }
  gboolean ok = fxs_atomic_file_commit_all ((FxsAtomicFile **) files->pdata, files->len, error);
  g_ptr_array_unref (files);
  fxs_staging_abort (staging);
  return ok;
}
