/* Running Graphviz (see graphviz.h), with GLib alone.  The DOT text
 * reaches the program as a file on its stdin, not through a pipe: a
 * program that exits without reading everything would make writing to a
 * pipe raise SIGPIPE, which kills the host.  Its stdout and stderr are
 * drained together, so a big picture cannot deadlock them. */
#include "graphviz.h"

#include <errno.h>
#include <glib-unix.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *
graphviz_find (const FxsPluginContext *ctx)
{
  return fxs_plugin_option_program (ctx, "graphviz");
}

/* The first non-empty line of @text (at most 200 bytes), for messages. */
static char *
first_line (const char *text, gsize len)
{
  const char *end = text + len, *start = text;
  while (start < end && g_ascii_isspace (*start))
    start++;
  const char *stop = start;
  while (stop < end && *stop != '\n' && *stop != '\r' && stop - start < 200)
    stop++;
  char *line = g_strndup (start, stop - start);
  char *valid = g_utf8_make_valid (line, -1);
  g_free (line);
  return valid;
}

/* Why the program that ended with @status printed no usable picture,
 * or NULL. */
static char *
failure_of (int status, const GByteArray *out)
{
  if (WIFSIGNALED (status))
    return g_strdup_printf ("killed by signal %d", WTERMSIG (status));
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return g_strdup_printf ("exit status %d", WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  if (out->len == 0)
    return g_strdup ("no picture printed");
  return NULL;
}

/* An unlinked temporary file holding @dot, open for reading from its
 * start, or -1 with FXS_ERROR_IO. */
static int
dot_text_fd (const GString *dot, GError **error)
{
  FILE *tmp = tmpfile ();
  int fd = -1;
  errno = 0;
  if (tmp && fwrite (dot->str, 1, dot->len, tmp) == dot->len && fflush (tmp) == 0
      && fseek (tmp, 0, SEEK_SET) == 0)
    fd = dup (fileno (tmp));
  if (fd < 0)
    g_set_error (error, FXS_ERROR, FXS_ERROR_IO,
                 "cannot write the DOT text for Graphviz to a temporary file: %s",
                 g_strerror (errno ? errno : EIO));
  if (tmp)
    fclose (tmp);
  return fd;
}

/* Reads @fds[0] into @out and @fds[1] into @err until both end; closes
 * them. */
static void
drain (int fds[2], GByteArray *out, GByteArray *err)
{
  struct pollfd p[2] = { { .fd = fds[0], .events = POLLIN }, { .fd = fds[1], .events = POLLIN } };
  GByteArray *into[2] = { out, err };
  guint8 buf[65536];
  while (p[0].fd >= 0 || p[1].fd >= 0)
    {
      if (poll (p, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      for (int i = 0; i < 2; i++)
        {
          if (p[i].fd < 0 || !p[i].revents)
            continue;
          ssize_t n = read (p[i].fd, buf, sizeof buf);
          if (n > 0)
            g_byte_array_append (into[i], buf, (guint) n);
          else if (n == 0 || errno != EINTR)
            {
              close (p[i].fd);
              p[i].fd = -1;
            }
        }
    }
  for (int i = 0; i < 2; i++)
    if (p[i].fd >= 0)
      close (p[i].fd);
}

/* Runs @program_path -T@format with stdin @in; its status, stdout and
 * stderr.  FALSE with @error when it cannot be started. */
static gboolean
run (const char *program_path, const char *format, int in, int *status, GByteArray *out,
     GByteArray *err, GError **error)
{
  int out_pipe[2], err_pipe[2];
  if (!g_unix_open_pipe (out_pipe, FD_CLOEXEC, error))
    return FALSE;
  if (!g_unix_open_pipe (err_pipe, FD_CLOEXEC, error))
    {
      close (out_pipe[0]);
      close (out_pipe[1]);
      return FALSE;
    }
  char *type = g_strdup_printf ("-T%s", format);
  char *argv[] = { (char *) program_path, type, NULL };
  GPid pid;
  gboolean started = g_spawn_async_with_fds (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                             NULL, &pid, in, out_pipe[1], err_pipe[1], error);
  g_free (type);
  close (out_pipe[1]);
  close (err_pipe[1]);
  int read_ends[2] = { out_pipe[0], err_pipe[0] };
  if (!started)
    {
      close (read_ends[0]);
      close (read_ends[1]);
      return FALSE;
    }
  drain (read_ends, out, err);
  while (waitpid (pid, status, 0) < 0 && errno == EINTR)
    ;
  g_spawn_close_pid (pid);
  return TRUE;
}

GBytes *
graphviz_render (FxsPluginContext *ctx, const char *program_path, const char *format,
                 const GString *dot, GError **error)
{
  int in = dot_text_fd (dot, error);
  if (in < 0)
    return NULL;
  GByteArray *out = g_byte_array_new (), *err = g_byte_array_new ();
  GError *local = NULL;
  int status = 0;
  gboolean ran = run (program_path, format, in, &status, out, err, &local);
  close (in);
  char *failure = ran ? failure_of (status, out) : NULL;
  char *complaint = first_line (err->len ? (const char *) err->data : "", err->len);
  if (!ran)
    g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "%s: cannot run: %s",
                 program_path, local->message);
  else if (failure)
    g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "%s -T%s failed (%s)%s%s",
                 program_path, format, failure, *complaint ? ": " : "", complaint);
  else if (*complaint && ctx)
    fxs_plugin_log (ctx, FXS_LOG_WARNING, "%s: %s", program_path, complaint);
  gboolean ok = ran && !failure;
  g_clear_error (&local);
  g_free (failure);
  g_free (complaint);
  g_byte_array_unref (err);
  if (!ok)
    {
      g_byte_array_unref (out);
      return NULL;
    }
  return g_byte_array_free_to_bytes (out);
}
