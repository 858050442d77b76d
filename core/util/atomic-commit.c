/* Committing atomic files together: every destination gets its new file,
 * or every destination keeps what it held. */
#include "atomic-file-private.h"
#include <fxsplit/error.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* The signals a command removes its temporaries on (cli/cli-signals.c)
 * wait while files are renamed, so that a commit is never cut half-way. */
static void
block_signals (sigset_t *saved)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ, SIGQUIT };
  sigset_t set;
  sigemptyset (&set);
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    sigaddset (&set, signals[i]);
  pthread_sigmask (SIG_BLOCK, &set, saved);
}

/* Keeps each existing destination aside under a hidden hard link, checking
 * again that it may be replaced.  Where no link may be made (a file system
 * without them, or another user's file under protected_hardlinks) the old
 * file is moved there just before its replacement instead.  Returns the
 * file that failed, @why set. */
static FxsAtomicFile *
keep_old_files (FxsAtomicFile **files, guint n, char **why)
{
  for (guint i = 0; i < n; i++)
    {
      FxsAtomicFile *f = files[i];
      char *problem = fxs_atomic_file_destination_problem (f->path);
      if (problem)
        {
          *why = g_strdup_printf ("it %s", problem);
          g_free (problem);
          return f;
        }
      char *old = g_strconcat (f->tmp_path, ".old", NULL);
      int err = link (f->path, old) == 0 ? 0 : errno;
      if (err == 0 || err == EPERM || err == EMLINK || err == EOPNOTSUPP)
        {
          f->old_path = old;
          f->move_aside = err != 0;
          continue;
        }
      g_free (old);
      if (err != ENOENT)
        {
          *why = g_strdup_printf ("cannot keep the old file aside: %s", g_strerror (err));
          return f;
        }
    }
  return NULL;
}

static FxsAtomicFile *
rename_all (FxsAtomicFile **files, guint n, char **why)
{
  for (guint i = 0; i < n; i++)
    {
      FxsAtomicFile *f = files[i];
      if (f->move_aside && rename (f->path, f->old_path) != 0)
        {
          *why = g_strdup_printf ("cannot move the old file aside: %s", g_strerror (errno));
          g_clear_pointer (&f->old_path, g_free);
          return f;
        }
      if (rename (f->tmp_path, f->path) != 0)
        {
          *why = g_strdup_printf ("cannot move the new file into place: %s", g_strerror (errno));
          f->renamed = f->move_aside;  /* restore() moves the old file back */
          return f;
        }
      f->renamed = TRUE;
      fxs_atomic_file_untrack (f);
    }
  return NULL;
}

/* Puts every old file back (or removes a destination that was new).  An
 * old file that cannot go back stays where it was kept, and @notes says
 * where. */
static void
restore (FxsAtomicFile **files, guint n, GString *notes)
{
  for (guint i = 0; i < n; i++)
    {
      FxsAtomicFile *f = files[i];
      if (!f->renamed)
        continue;
      gboolean ok = f->old_path ? rename (f->old_path, f->path) == 0 : unlink (f->path) == 0;
      if (!ok)
        g_string_append_printf (notes, "; %s could not be restored (%s)%s%s", f->path,
                                g_strerror (errno), f->old_path ? ": its old file is " : "",
                                f->old_path ? f->old_path : "");
      else
        g_clear_pointer (&f->old_path, g_free);
      f->renamed = !ok;  /* still renamed: old_path is the only copy of the old file */
    }
}

/* Makes the renames durable, as the files' data already is.  Best effort:
 * the commit has happened, whatever a directory's fsync says. */
static void
sync_directories (FxsAtomicFile **files, guint n)
{
  char *previous = NULL;
  for (guint i = 0; i < n; i++)
    {
      char *dir = g_path_get_dirname (files[i]->path);
      if (g_strcmp0 (dir, previous) != 0)
        {
          int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          if (fd >= 0)
            {
              (void) fsync (fd);
              close (fd);
            }
        }
      g_free (previous);
      previous = dir;
    }
  g_free (previous);
}

/* Removes what is left beside the destinations: temporaries not renamed
 * and the hard links to old files, but never the only copy of an old
 * file. */
static void
remove_leftovers (FxsAtomicFile **files, guint n, gboolean committed, GString *notes)
{
  for (guint i = 0; i < n; i++)
    {
      FxsAtomicFile *f = files[i];
      if (!committed && unlink (f->tmp_path) != 0 && errno != ENOENT)
        g_string_append_printf (notes, "; its temporary file %s could not be removed (%s)",
                                f->tmp_path, g_strerror (errno));
      gboolean only_copy = !committed && f->renamed;
      if (f->old_path && !only_copy && unlink (f->old_path) != 0 && errno != ENOENT)
        g_string_append_printf (notes, "; the old file kept as %s could not be removed (%s)",
                                f->old_path, g_strerror (errno));
    }
}

gboolean
fxs_atomic_file_commit_all (FxsAtomicFile **files, guint n, GError **error)
{
  FxsAtomicFile *failed = NULL;
  char *why = NULL;
  /* Everything is written and on disk before anything appears. */
  for (guint i = 0; i < n; i++)
    if (!fxs_atomic_file_finish_writing (files[i]) && !failed)
      {
        failed = files[i];
        why = g_strdup (g_strerror (failed->err));
      }
  sigset_t saved;
  block_signals (&saved);
  fxs_atomic_file_set_committing (TRUE);
  /* One file is replaced by one rename, which cannot half-fail. */
  if (!failed && n > 1)
    failed = keep_old_files (files, n, &why);
  if (!failed)
    failed = rename_all (files, n, &why);
  GString *notes = g_string_new (NULL);
  if (failed)
    restore (files, n, notes);
  else
    sync_directories (files, n);
  remove_leftovers (files, n, failed == NULL, notes);
  fxs_atomic_file_set_committing (FALSE);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  if (failed)
    g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: %s%s", failed->path, why,
                 notes->str);
  g_string_free (notes, TRUE);
  g_free (why);
  for (guint i = 0; i < n; i++)
    fxs_atomic_file_free (files[i]);
  return failed == NULL;
}

gboolean
fxs_atomic_file_commit (FxsAtomicFile *file, GError **error)
{
  g_return_val_if_fail (file != NULL, FALSE);
  return fxs_atomic_file_commit_all (&file, 1, error);
}
