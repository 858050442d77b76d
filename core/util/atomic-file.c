/* Atomic file replacement: a temporary file in the same directory, then
 * rename; several files are committed together, all or none. */
#include "atomic-file.h"
#include "file-kind.h"
#include <fxsplit/error.h>
#include <fxsplit/io.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct FxsAtomicFile {
  char *path;      /* the destination */
  char *tmp_path;  /* ".NAME.XXXXXX" beside it */
  char *old_path;  /* during a commit: where the file replaced is kept */
  gboolean move_aside;  /* old_path cannot be a hard link: move the old file there */
  FILE *stream;    /* NULL once finished writing */
  int fd;          /* the temporary's descriptor */
  int err;         /* the first write error (errno), 0 if none */
  off_t written;   /* bytes written so far */
  off_t flushing;  /* of them, those whose writeback has started */
  gboolean renamed;
};

/* The temporaries a signal handler removes: slots hold paths owned by
 * their FxsAtomicFile, set and cleared atomically; the handler only reads
 * them and calls unlink(2).  Beyond MAX_TRACKED open files, a temporary
 * is not tracked. */
#define MAX_TRACKED 1024
static char *tracked[MAX_TRACKED];

/* Moves a slot from @from to @to: tracks a temporary (@from NULL) or
 * stops a handler from removing it (@to NULL: it is renamed or about to be
 * freed; nothing happens when it is not tracked). */
static void
retrack (char *from, char *to)
{
  for (int i = 0; i < MAX_TRACKED; i++)
    if (g_atomic_pointer_compare_and_exchange (&tracked[i], from, to))
      return;
}

/* Set while files are renamed: a handler running on another thread (the
 * committing one blocks the signals) waits for the commit to end rather
 * than cut it half-way. */
static int committing;
static pthread_t committer;

void
fxs_io_remove_temporaries (void)
{
  const struct timespec pause = { 0, 1000000 };
  /* (a crash of the committing thread itself must not wait for itself) */
  while (g_atomic_int_get (&committing) && !pthread_equal (committer, pthread_self ()))
    nanosleep (&pause, NULL);
  for (int i = 0; i < MAX_TRACKED; i++)
    {
      char *path = g_atomic_pointer_get (&tracked[i]);
      if (path)
        unlink (path);
    }
}

char *
fxs_atomic_file_destination_problem (const char *path)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    return NULL;  /* absent (or unreachable: creating the temporary says why) */
  /* A link is refused rather than followed: one planted in a shared
   * directory would otherwise redirect the write to any file the process
   * may write; replacing it would silently break the link. */
  if (S_ISLNK (st.st_mode))
    return g_strdup ("is a symbolic link (outputs do not follow or replace links; "
                     "give the path of its target)");
  if (!S_ISREG (st.st_mode))
    {
      const char *kind = fxs_file_kind (st.st_mode);
      return S_ISDIR (st.st_mode) ? g_strdup_printf ("is %s", kind)
                                  : g_strdup_printf ("is %s, not a regular file", kind);
    }
  /* Replacing gives the path a new file; the other names would keep the
   * old contents, which is never what a hard link is for. */
  if (st.st_nlink > 1)
    return g_strdup_printf ("has %lu hard links (a new file would leave the other names "
                            "with the old contents; remove them or write elsewhere)",
                            (unsigned long) st.st_nlink);
  return NULL;
}

/* Every WRITEBACK_STEP bytes the disk starts writing what was written, so
 * the commit's fsync() waits for the last step only (15 ms -> 2 ms for the
 * 27 MB split of a 10^5-node graph); errors are fsync()'s to report. */
#define WRITEBACK_STEP (4 << 20)

/* The stream's writes: errors keep their errno (stdio only keeps a flag). */
static ssize_t
stream_write (void *cookie, const char *buf, size_t size)
{
  FxsAtomicFile *f = cookie;
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = write (f->fd, buf + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (!f->err)
            f->err = n < 0 ? errno : EIO;
          return -1;
        }
      done += (size_t) n;
    }
  f->written += (off_t) size;
  if (f->written - f->flushing >= WRITEBACK_STEP)
    {
      (void) sync_file_range (f->fd, f->flushing, 0 /* to the end */, SYNC_FILE_RANGE_WRITE);
      f->flushing = f->written;
    }
  return (ssize_t) size;
}

FxsAtomicFile *
fxs_atomic_file_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  char *problem = fxs_atomic_file_destination_problem (path);
  if (problem)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: it %s", path, problem);
      g_free (problem);
      return NULL;
    }
  struct stat old;
  gboolean exists = lstat (path, &old) == 0;
  char *dir = g_path_get_dirname (path);
  char *base = g_path_get_basename (path);
  char *tmpl = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_free (base);

  /* A new destination gets a plain create's mode (0666 less the umask);
   * a replacement starts private and then takes the old file's. */
  int fd = g_mkstemp_full (tmpl, O_WRONLY, exists ? 0600 : 0666);
  if (fd < 0)
    {
      int err = errno;
      char *why = g_file_test (dir, G_FILE_TEST_IS_DIR)
                    ? g_strdup (g_strerror (err))
                    : g_strdup_printf ("directory '%s' does not exist", dir);
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: %s", path, why);
      g_free (why);
      g_free (tmpl);
      g_free (dir);
      return NULL;
    }
  g_free (dir);

  FxsAtomicFile *f = g_new0 (FxsAtomicFile, 1);
  f->path = g_strdup (path);
  f->tmp_path = tmpl;
  f->fd = fd;
  retrack (NULL, tmpl);
  /* The new file gets the old one's owner and mode, chown first: it clears
   * set-id bits that fchmod then restores.  Only root (or the owner, for a
   * group it is in) may chown; otherwise the file is the process's, as any
   * new file would be. */
  if (exists && fchown (fd, old.st_uid, old.st_gid) != 0)
    { /* not permitted: keep the process's ownership */ }
  if (exists && fchmod (fd, old.st_mode & 07777) != 0)
    { /* not fatal: the file is still correct, only its mode differs */ }
  /* write-only, no seek: output is written once from its start */
  f->stream = fopencookie (f, "w", (cookie_io_functions_t) { .write = stream_write });
  if (!f->stream)
    g_error ("fopencookie: %s", g_strerror (errno));  /* out of memory, as g_malloc aborts */
  /* Large buffer: graph files are written in many small pieces. */
  setvbuf (f->stream, NULL, _IOFBF, 1 << 20);
  return f;
}

FILE *
fxs_atomic_file_stream (FxsAtomicFile *file)
{
  return file->stream;
}

const char *
fxs_atomic_file_path (const FxsAtomicFile *file)
{
  return file->path;
}

/* Frees @file without touching the disk. */
static void
free_file (FxsAtomicFile *file)
{
  retrack (file->tmp_path, NULL);
  g_free (file->path);
  g_free (file->tmp_path);
  g_free (file->old_path);
  g_free (file);
}

/* Flushes, fsyncs and closes the stream; FALSE (file->err set) on a write
 * error now or earlier. */
static gboolean
finish_writing (FxsAtomicFile *file)
{
  FILE *stream = file->stream;
  file->stream = NULL;
  /* a failed write has set file->err (stream_write) */
  if ((fflush (stream) != 0 || ferror (stream)) && !file->err)
    file->err = EIO;
  if (!file->err && fsync (file->fd) != 0)
    file->err = errno;
  fclose (stream);  /* the cookie has no close: the descriptor is closed here */
  if (close (file->fd) != 0 && !file->err)
    file->err = errno;
  return file->err == 0;
}

void
fxs_atomic_file_abort (FxsAtomicFile *file)
{
  if (file == NULL)
    return;
  if (file->stream)
    {
      __fpurge (file->stream);  /* what is buffered need not be written */
      fclose (file->stream);
      close (file->fd);
    }
  g_unlink (file->tmp_path);
  free_file (file);
}

/* ---- committing: every destination gets its new file, or every
 * destination keeps what it held ---------------------------------------- */

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
      f->old_path = g_strconcat (f->tmp_path, ".old", NULL);
      int err = link (f->path, f->old_path) == 0 ? 0 : errno;
      f->move_aside = err == EPERM || err == EMLINK || err == EOPNOTSUPP;
      if (err == 0 || f->move_aside)
        continue;
      g_clear_pointer (&f->old_path, g_free);  /* no old file (ENOENT), or an error */
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
          f->renamed = f->move_aside;  /* the old file is moved back */
          return f;
        }
      f->renamed = TRUE;
      retrack (f->tmp_path, NULL);
    }
  return NULL;
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

/* Removes what is left beside the destinations.  After a failure every
 * old file is put back (or a destination that was new removed) and the
 * temporaries go; the hard links to old files go either way, but never the
 * only copy of an old file: one that cannot go back stays where it was
 * kept, and @notes says where. */
static void
remove_leftovers (FxsAtomicFile **files, guint n, gboolean committed, GString *notes)
{
  for (guint i = 0; i < n; i++)
    {
      FxsAtomicFile *f = files[i];
      if (!committed && f->renamed)
        {
          gboolean ok = f->old_path ? rename (f->old_path, f->path) == 0
                                    : unlink (f->path) == 0;
          if (!ok)
            g_string_append_printf (notes, "; %s could not be restored (%s)%s%s", f->path,
                                    g_strerror (errno), f->old_path ? ": its old file is " : "",
                                    f->old_path ? f->old_path : "");
          else
            g_clear_pointer (&f->old_path, g_free);
          f->renamed = !ok;  /* still renamed: old_path is the only copy of the old file */
        }
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
    if (!finish_writing (files[i]) && !failed)
      {
        failed = files[i];
        why = g_strdup (g_strerror (failed->err));
      }
  sigset_t saved;
  block_signals (&saved);
  committer = pthread_self ();
  g_atomic_int_set (&committing, TRUE);
  /* One file is replaced by one rename, which cannot half-fail. */
  if (!failed && n > 1)
    failed = keep_old_files (files, n, &why);
  if (!failed)
    failed = rename_all (files, n, &why);
  GString *notes = g_string_new (NULL);
  if (!failed)
    sync_directories (files, n);
  remove_leftovers (files, n, failed == NULL, notes);
  g_atomic_int_set (&committing, FALSE);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  if (failed)
    g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: %s%s", failed->path, why,
                 notes->str);
  g_string_free (notes, TRUE);
  g_free (why);
  for (guint i = 0; i < n; i++)
    free_file (files[i]);
  return failed == NULL;
}

gboolean
fxs_atomic_file_commit (FxsAtomicFile *file, GError **error)
{
  g_return_val_if_fail (file != NULL, FALSE);
  return fxs_atomic_file_commit_all (&file, 1, error);
}
