/* The thread limit as the library's own parts read it. */
#ifndef FXS_THREADS_PRIVATE_H
#define FXS_THREADS_PRIVATE_H

#include <fxsplit/split.h>

/* fxs_get_max_threads(), with 0 resolved to the processors: at least 1. */
guint fxs_threads_available (void);

#endif
