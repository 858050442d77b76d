/* A progress line redrawn four times a second by its own thread, so that
 * long steps without progress calls (loading a graph) still show it. */
#include "cli-progress.h"

#include <stdio.h>

#define SHOW_AFTER_US G_USEC_PER_SEC
#define REDRAW_US (G_USEC_PER_SEC / 4)

struct CliProgress {
  GMutex lock;
  GCond wake;
  GThread *thread;
  gboolean stop;
  gint64 start;
  char step[32];
  guint64 done, total;
  gboolean shown;   /* a progress line is on the terminal */
};

static void
erase_line (CliProgress *p)
{
  if (p->shown)
    fputs ("\r\033[K", stderr);
  p->shown = FALSE;
}

static void
draw (CliProgress *p)
{
  double seconds = (g_get_monotonic_time () - p->start) / (double) G_USEC_PER_SEC;
  if (p->total)
    fprintf (stderr, "\r\033[Kfxsplit: %s: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
             " %s (%.0f%%), %.1f s", p->step, p->done, p->total,
             g_str_equal (p->step, "writing") ? "outputs" : "nodes",
             100.0 * (double) p->done / (double) p->total, seconds);
  else
    fprintf (stderr, "\r\033[Kfxsplit: %s, %.1f s", p->step, seconds);
  fflush (stderr);
  p->shown = TRUE;
}

static gpointer
redraw_loop (gpointer data)
{
  CliProgress *p = data;
  g_mutex_lock (&p->lock);
  while (!p->stop)
    {
      g_cond_wait_until (&p->wake, &p->lock, g_get_monotonic_time () + REDRAW_US);
      if (!p->stop && p->step[0] && g_get_monotonic_time () - p->start >= SHOW_AFTER_US)
        draw (p);
    }
  erase_line (p);
  g_mutex_unlock (&p->lock);
  return NULL;
}

CliProgress *
cli_progress_new (gboolean enabled)
{
  CliProgress *p = g_new0 (CliProgress, 1);
  g_mutex_init (&p->lock);
  g_cond_init (&p->wake);
  p->start = g_get_monotonic_time ();
  if (enabled)
    p->thread = g_thread_new ("progress", redraw_loop, p);
  return p;
}

void
cli_progress_update (const char *step, guint64 done, guint64 total, gpointer progress)
{
  CliProgress *p = progress;
  g_mutex_lock (&p->lock);
  g_strlcpy (p->step, step, sizeof p->step);
  p->done = done;
  p->total = total;
  g_mutex_unlock (&p->lock);
}

void
cli_progress_print (CliProgress *p, const char *line)
{
  g_mutex_lock (&p->lock);
  gboolean was_shown = p->shown;
  erase_line (p);
  fprintf (stderr, "fxsplit: %s\n", line);
  if (was_shown)
    draw (p);
  g_mutex_unlock (&p->lock);
}

void
cli_progress_free (CliProgress *p)
{
  if (!p)
    return;
  if (p->thread)
    {
      g_mutex_lock (&p->lock);
      p->stop = TRUE;
      g_cond_signal (&p->wake);
      g_mutex_unlock (&p->lock);
      g_thread_join (p->thread);
    }
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->wake);
  g_free (p);
}
