/* The process-wide thread limit (fxs_set_max_threads, fxsplit/split.h). */
#include "threads-private.h"

static gint max_threads;   /* atomic; 0: the processors */

void
fxs_set_max_threads (guint n)
{
  g_atomic_int_set (&max_threads, (gint) MIN (n, (guint) G_MAXINT));
}

guint
fxs_get_max_threads (void)
{
  return (guint) g_atomic_int_get (&max_threads);
}

guint
fxs_threads_available (void)
{
  guint n = fxs_get_max_threads ();
  return n ? n : (guint) g_get_num_processors ();
}
