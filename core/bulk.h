/* Memory for big arrays and blocks (graph arenas, the engine's tables). */
#ifndef FXS_BULK_H
#define FXS_BULK_H

#include <glib.h>

/* The huge page size big blocks are aligned to, and the bytes each block
 * keeps before the memory it hands out: a caller that wants whole huge
 * pages asks for multiples of the first less the second. */
#define FXS_BULK_HUGE_PAGE ((gsize) 2 << 20)
#define FXS_BULK_HEADER 16

/* Zero-filled memory for big arrays and blocks: from 256 KiB on mapped on
 * its own, in whole 2 MiB huge pages (where the kernel gives them on
 * request), which make the first touch of fresh memory
 * much cheaper than 4 KiB page faults (several times so on virtual
 * machines); smaller ones from g_malloc0.  Free with fxs_bulk_free(), which
 * keeps a bounded number of freed mappings (at most 256 blocks, 1 GiB) for
 * the next blocks, as malloc keeps freed heap memory; a block much smaller
 * than a kept one is cut from its front, the rest kept. */
gpointer fxs_bulk_alloc (gsize size);
/* From now on blocks under a huge page come from malloc, packed, instead of
 * a huge page of their own (whose first touch zeroes all 2 MiB): for a
 * process whose malloc heap is in huge pages (fxs_memory_tune_for_big_graphs). */
void     fxs_bulk_use_heap_below_huge_page (void);
/* The same without zeroing (a freed block may be given again). */
gpointer fxs_bulk_alloc_uninit (gsize size);
void     fxs_bulk_free (gpointer block);

#endif
