/* Atomic file replacement: temp file in the same directory, then rename. */
#include "atomic-file.h"
#include <fxsplit/error.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

struct FxsAtomicFile {
  char *path;
  char *tmp_path;
  FILE *stream;
};

FxsAtomicFile *
fxs_atomic_file_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  char *dir = g_path_get_dirname (path);
  char *base = g_path_get_basename (path);
  char *tmpl = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_free (base);

  int fd = g_mkstemp_full (tmpl, O_WRONLY, 0666 & ~0022);
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

  /* mkstemp makes 0600; give the file the permissions a plain create would. */
  mode_t mask = umask (0);
  umask (mask);
  if (fchmod (fd, 0666 & ~mask) != 0)
    { /* not fatal: the file is still correct, only its mode differs */ }

  FxsAtomicFile *f = g_new0 (FxsAtomicFile, 1);
  f->path = g_strdup (path);
  f->tmp_path = tmpl;
  f->stream = fdopen (fd, "w");
  if (!f->stream)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: %s", path,
                   g_strerror (errno));
      close (fd);
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

static void
atomic_file_free (FxsAtomicFile *file)
{
  g_free (file->path);
  g_free (file->tmp_path);
  g_free (file);
}

gboolean
fxs_atomic_file_commit (FxsAtomicFile *file, GError **error)
{
  g_return_val_if_fail (file != NULL, FALSE);
  gboolean failed = ferror (file->stream) != 0;
  int err = failed ? EIO : 0;
  if (fflush (file->stream) != 0 && !failed)
    {
      failed = TRUE;
      err = errno;
    }
  if (fclose (file->stream) != 0 && !failed)
    {
      failed = TRUE;
      err = errno;
    }
  file->stream = NULL;
  if (!failed && g_rename (file->tmp_path, file->path) != 0)
    {
      failed = TRUE;
      err = errno;
    }
  if (failed)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot write: %s", file->path,
                   g_strerror (err));
      g_unlink (file->tmp_path);
    }
  atomic_file_free (file);
  return !failed;
}

void
fxs_atomic_file_abort (FxsAtomicFile *file)
{
  if (file == NULL)
    return;
  if (file->stream)
    fclose (file->stream);
  g_unlink (file->tmp_path);
  atomic_file_free (file);
}
