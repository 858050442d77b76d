/* How many threads the library may use. */
#ifndef FXSPLIT_THREADS_H
#define FXSPLIT_THREADS_H

#include <glib.h>

G_BEGIN_DECLS

/* The most threads one operation of the library (loading a graph file,
 * building a split's graphs, writing a split result as json) uses at once,
 * for the whole process: 0, the default, for as many as the machine has
 * processors; 1 keeps all work on the calling thread.  Only big inputs use
 * more than one.  fxs_split_options_set_threads() overrides it for one
 * split.  Results and errors never depend on it.  Safe to call from any
 * thread; operations already running keep the count they started with. */
void  fxs_set_max_threads (guint n);
guint fxs_get_max_threads (void);

G_END_DECLS

#endif
