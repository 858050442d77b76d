/* Transitional: the files that another change rewrites (the loader's name
 * table, the engine's names) still call these; they are GLib's allocator
 * under older names.  Delete this header once nothing includes it. */
#ifndef FXS_BULK_H
#define FXS_BULK_H

#include <glib.h>

#define fxs_bulk_alloc g_malloc0
#define fxs_bulk_alloc_uninit g_malloc
#define fxs_bulk_free g_free

#endif
