/* Atomic file replacement: temp file in the same directory, then rename
 * (the commit is in atomic-commit.c). */
#include "atomic-file-private.h"
#include "file-kind.h"
#include <fxsplit/error.h>
#include <fxsplit/io.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The temporaries a signal handler removes: slots hold paths owned by
 * their FxsAtomicFile, set and cleared atomically; the handler only reads
 * them and calls unlink(2). */
#define MAX_TRACKED 1024
static char *tracked[MAX_TRACKED];

static int
track (char *tmp_path)
{
  for (int i = 0; i < MAX_TRACKED; i++)
    if (g_atomic_pointer_compare_and_exchange (&tracked[i], NULL, tmp_path))
      return i;
  return -1;
}

void
fxs_atomic_file_untrack (FxsAtomicFile *file)
{
  if (file->slot >= 0)
    g_atomic_pointer_set (&tracked[file->slot], NULL);
  file->slot = -1;
}

/* Set while files are renamed: a handler running on another thread (the
 * committing one blocks the signals) waits for the commit to end rather
 * than cut it half-way. */
static int committing;
static pthread_t committer;

void
fxs_atomic_file_set_committing (gboolean on)
{
  if (on)
    committer = pthread_self ();
  g_atomic_int_set (&committing, on);
}

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

/* Whether an lstat() result may be replaced; NULL or why not. */
static char *
stat_problem (const struct stat *st)
{
  /* A link is refused rather than followed: one planted in a shared
   * directory would otherwise redirect the write to any file the process
   * may write; replacing it would silently break the link. */
  if (S_ISLNK (st->st_mode))
    return g_strdup ("is a symbolic link (outputs do not follow or replace links; "
                     "give the path of its target)");
  if (!S_ISREG (st->st_mode))
    {
      const char *kind = fxs_file_kind (st->st_mode);
      return S_ISDIR (st->st_mode) ? g_strdup_printf ("is %s", kind)
                                   : g_strdup_printf ("is %s, not a regular file", kind);
    }
  /* Replacing gives the path a new file; the other names would keep the
   * old contents, which is never what a hard link is for. */
  if (st->st_nlink > 1)
    return g_strdup_printf ("has %lu hard links (a new file would leave the other names "
                            "with the old contents; remove them or write elsewhere)",
                            (unsigned long) st->st_nlink);
  return NULL;
}

char *
fxs_atomic_file_destination_problem (const char *path)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    return NULL;  /* absent (or unreachable: creating the temporary says why) */
  return stat_problem (&st);
}

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
  return (ssize_t) size;
}

static int
stream_seek (void *cookie, off64_t *offset, int whence)
{
  FxsAtomicFile *f = cookie;
  off_t at = lseek (f->fd, (off_t) *offset, whence);
  if (at < 0)
    return -1;
  *offset = at;
  return 0;
}

static int
stream_close (void *cookie)
{
  FxsAtomicFile *f = cookie;
  int rc = close (f->fd);
  if (rc != 0 && !f->err)
    f->err = errno;
  f->fd = -1;
  return rc;
}

/* The new file gets the old one's owner and mode, or a plain create's. */
static void
set_owner_and_mode (int fd, const struct stat *old)
{
  if (!old)
    {
      mode_t mask = umask (0);
      umask (mask);
      if (fchmod (fd, 0666 & ~mask) != 0)
        { /* not fatal: the file is still correct, only its mode differs */ }
      return;
    }
  /* chown first: it clears set-id bits that fchmod then restores.  Only
   * root (or the owner, for a group it is in) may; otherwise the file is
   * the process's, as any new file would be. */
  if ((old->st_uid != geteuid () || old->st_gid != getegid ())
      && fchown (fd, old->st_uid, old->st_gid) != 0)
    { /* not permitted: keep the process's ownership */ }
  if (fchmod (fd, old->st_mode & 07777) != 0)
    { /* as above */ }
}

FxsAtomicFile *
fxs_atomic_file_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  struct stat old;
  gboolean exists = lstat (path, &old) == 0;
  char *problem = exists ? stat_problem (&old) : NULL;
  if (problem)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: it %s", path, problem);
      g_free (problem);
      return NULL;
    }
  char *dir = g_path_get_dirname (path);
  char *base = g_path_get_basename (path);
  char *tmpl = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_free (base);

  int fd = g_mkstemp_full (tmpl, O_WRONLY, 0600);
  if (fd < 0)
    {
      int err = errno;
      if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
        g_set_error (error, FXS_ERROR, FXS_ERROR_IO,
                     "%s: cannot write: directory '%s' does not exist", path, dir);
      else
        g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: %s", path,
                     g_strerror (err));
      g_free (tmpl);
      g_free (dir);
      return NULL;
    }
  g_free (dir);

  FxsAtomicFile *f = g_new0 (FxsAtomicFile, 1);
  f->path = g_strdup (path);
  f->tmp_path = tmpl;
  f->fd = fd;
  f->slot = track (tmpl);
  set_owner_and_mode (fd, exists ? &old : NULL);
  cookie_io_functions_t io = { .write = stream_write, .seek = stream_seek,
                              .close = stream_close };
  f->stream = fopencookie (f, "w", io);
  if (!f->stream)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: %s", path,
                   g_strerror (errno));
      close (fd);
      f->fd = -1;
      fxs_atomic_file_abort (f);
      return NULL;
    }
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

void
fxs_atomic_file_free (FxsAtomicFile *file)
{
  fxs_atomic_file_untrack (file);
  g_free (file->path);
  g_free (file->tmp_path);
  g_free (file->old_path);
  g_free (file);
}

gboolean
fxs_atomic_file_finish_writing (FxsAtomicFile *file)
{
  FILE *stream = file->stream;
  file->stream = NULL;
  int flushed = fflush (stream);
  if (flushed != 0 && !file->err)
    file->err = errno ? errno : EIO;
  if (ferror (stream) && !file->err)
    file->err = EIO;
  if (!file->err && fsync (file->fd) != 0)
    file->err = errno;
  fclose (stream);  /* stream_close records a failure */
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
    }
  g_unlink (file->tmp_path);
  fxs_atomic_file_free (file);
}
