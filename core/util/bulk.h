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
/* Frees @block back to the system, not into the pool: for a block much
 * bigger than usual that the next ones are unlikely to reuse. */
void     fxs_bulk_release (gpointer block);

/* Fresh memory is dear where a page fault is (in a virtual machine the
 * host may back each page only at its first touch: ~1.5 ms per MiB, ten
 * times the cost of using warm memory).  A prefaulter maps @bytes of huge
 * pages on a thread of its own, 8 MiB at a time, touches them and puts
 * them in the pool, where the next bulk blocks up to 8 MiB (a graph's
 * arena, the engine's node blocks of 2 MiB, a loader's name table) find
 * them: a caller that is about to allocate that much on one core has a
 * spare one do the faulting.  It keeps at most 64 MiB waiting in the pool
 * and stops when the pool is full.  NULL-safe stop: tells it to stop and
 * waits for it (a few milliseconds at most); what it pooled stays. */
typedef struct FxsBulkPrefault FxsBulkPrefault;
FxsBulkPrefault *fxs_bulk_prefault_start (gsize bytes);
void             fxs_bulk_prefault_stop (FxsBulkPrefault *prefault);
/* Bytes of freed or prefaulted mappings in the pool (for tests). */
gsize            fxs_bulk_pool_bytes (void);

#endif
