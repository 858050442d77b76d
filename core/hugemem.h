/* Large zero-filled allocations backed by transparent huge pages where the
 * kernel offers them (THP "always" or "madvise").
 *
 * Why: a graph of 10^6 nodes is a few hundred MB of small objects, and the
 * first touch of every 4 KiB page is a page fault.  On virtual machines a
 * fault costs several microseconds (12 us measured on the development VM:
 * 0.8 s per 256 MB), more than loading or splitting the bytes themselves;
 * one 2 MiB page replaces 512 faults. */
#ifndef FXS_HUGEMEM_H
#define FXS_HUGEMEM_H

#include <glib.h>

/* The huge page size these allocations are aligned and rounded to. */
#define FXS_HUGEMEM_PAGE (2u * 1024 * 1024)

/* @size bytes (rounded up to FXS_HUGEMEM_PAGE), zero-filled, aligned to
 * FXS_HUGEMEM_PAGE.  Aborts on out-of-memory, like g_malloc().  Free with
 * fxs_hugemem_free() and the same @size. */
gpointer fxs_hugemem_alloc0 (gsize size);
void     fxs_hugemem_free (gpointer mem, gsize size);

#endif
