/* Running Graphviz (see graphviz.h).  The DOT text reaches the program
 * as a file on its stdin, not through a pipe: a program that exits without
 * reading everything would make writing to a pipe raise SIGPIPE, which
 * kills the host.  GSubprocess drains its stdout and stderr together, so
 * a big picture cannot deadlock them. */
#include "graphviz.h"

#include <errno.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *
graphviz_find (const char *program)
{
  return program && *program ? g_find_program_in_path (program) : NULL;
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

/* Why a finished run of @proc printed no usable picture, or NULL. */
static char *
failure_of (GSubprocess *proc, GBytes *out)
{
  if (g_subprocess_get_if_signaled (proc))
    return g_strdup_printf ("killed by signal %d", g_subprocess_get_term_sig (proc));
  if (g_subprocess_get_exit_status (proc) != 0)
    return g_strdup_printf ("exit status %d", g_subprocess_get_exit_status (proc));
  if (!out || g_bytes_get_size (out) == 0)
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

GBytes *
graphviz_render (FxsPluginContext *ctx, const char *program_path, const char *format,
                 const GString *dot, GError **error)
{
  int fd = dot_text_fd (dot, error);
  if (fd < 0)
    return NULL;
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                             | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_take_stdin_fd (launcher, fd);
  char *type = g_strdup_printf ("-T%s", format);
  GError *local = NULL;
  GSubprocess *proc = g_subprocess_launcher_spawn (launcher, &local, program_path, type, NULL);
  g_free (type);
  g_object_unref (launcher);
  GBytes *out = NULL, *err = NULL;
  if (proc)
    g_subprocess_communicate (proc, NULL, NULL, &out, &err, &local);

  char *failure = local ? NULL : failure_of (proc, out);
  gsize err_len = 0;
  const char *err_text = err ? g_bytes_get_data (err, &err_len) : NULL;
  char *complaint = first_line (err_text ? err_text : "", err_len);
  if (local)
    g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "%s: cannot run: %s",
                 program_path, local->message);
  else if (failure)
    g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "%s -T%s failed (%s)%s%s",
                 program_path, format, failure, *complaint ? ": " : "", complaint);
  else if (*complaint)
    fxs_plugin_log (ctx, FXS_LOG_WARNING, "%s: %s", program_path, complaint);
  gboolean ok = !local && !failure;
  g_clear_error (&local);
  g_free (failure);
  g_free (complaint);
  if (!ok)
    g_clear_pointer (&out, g_bytes_unref);
  g_clear_pointer (&err, g_bytes_unref);
  g_clear_object (&proc);
  return out;
}
