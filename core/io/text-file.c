/* Small text files read whole with a size limit, and short escaped
 * excerpts of their contents for messages (fxsplit/text-file.h). */
#include <fxsplit/text-file.h>
#include <fxsplit/error.h>
#include "util/file-kind.h"
#include "util/text-escape.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FALSE, with @error saying why the last call failed (errno). */
static gboolean
cannot_read (const char *path, GError **error)
{
  g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: cannot read: %s", path, g_strerror (errno));
  return FALSE;
}

/* TRUE for a regular file or a pipe. */
static gboolean
check_kind (const char *path, const char *what, mode_t mode, GError **error)
{
  if (S_ISREG (mode) || S_ISFIFO (mode))
    return TRUE;
  g_set_error (error, FXS_ERROR, FXS_ERROR_IO,
               "%s: cannot read: it is %s, not a regular file or a pipe (expected %s)", path,
               fxs_file_kind (mode), what);
  return FALSE;
}

static gboolean
too_big (const char *path, const char *what, gsize limit, GError **error)
{
  gboolean mib = limit % (1 << 20) == 0;
  g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "%s: larger than the limit of %" G_GSIZE_FORMAT
               " %s for %s", path, mib ? limit >> 20 : limit, mib ? "MiB" : "bytes", what);
  return FALSE;
}

/* Reads @fd to its end into @buf, stopping after @limit + 1 bytes or at a
 * NUL byte (an error). */
static gboolean
read_all (int fd, const char *path, const char *what, gsize limit, GByteArray *buf,
          GError **error)
{
  guint8 chunk[65536];
  while (buf->len <= limit)
    {
      gsize want = MIN (sizeof chunk, limit + 1 - buf->len);
      ssize_t n = read (fd, chunk, want);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return cannot_read (path, error);
      if (n == 0)
        break;
      /* a NUL ends the read at once: /dev/zero behind a pipe is not read
       * up to the limit */
      if (memchr (chunk, '\0', (gsize) n))
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_IO,
                       "%s: not a text file (it holds NUL bytes), expected %s", path, what);
          return FALSE;
        }
      g_byte_array_append (buf, chunk, (guint) n);
    }
  return TRUE;
}

gboolean
fxs_text_file_read (const char *path, const char *what, gsize limit, char **contents,
                    gsize *length, GError **error)
{
  g_return_val_if_fail (path && what && contents && length, FALSE);
  g_return_val_if_fail (limit < G_MAXUINT, FALSE);
  /* The kind is checked before opening: opening a device can have effects,
   * and opening a FIFO waits for its writer. */
  GStatBuf st;
  if (g_stat (path, &st) != 0)
    return cannot_read (path, error);
  if (!check_kind (path, what, st.st_mode, error))
    return FALSE;
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0)
    return cannot_read (path, error);
  /* again on what was opened: the path may have changed in between */
  struct stat now;
  if (fstat (fd, &now) != 0)
    now.st_mode = 0;
  gboolean ok = check_kind (path, what, now.st_mode, error);
  if (ok && S_ISREG (now.st_mode) && (guint64) now.st_size > limit)
    ok = too_big (path, what, limit, error);
  GByteArray *buf = g_byte_array_sized_new (ok && S_ISREG (now.st_mode) ? (guint) now.st_size + 1
                                                                       : 65536);
  if (ok)
    ok = read_all (fd, path, what, limit, buf, error);
  close (fd);
  if (ok && buf->len > limit)
    ok = too_big (path, what, limit, error);
  if (!ok)
    {
      g_byte_array_unref (buf);
      return FALSE;
    }
  *length = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (buf, FALSE);
  return TRUE;
}

char *
fxs_text_excerpt (const char *text, gssize length)
{
  gsize n = length < 0 ? strlen (text) : (gsize) length;
  gsize shown = MIN (n, FXS_TEXT_EXCERPT_MAX);
  GString *out = g_string_new ("'");
  fxs_text_append_escaped (out, text, text + shown, "'\\", 0);
  g_string_append_c (out, '\'');
  if (shown < n)
    g_string_append (out, "...");
  return g_string_free (out, FALSE);
}
