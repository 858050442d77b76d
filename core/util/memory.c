/* The process-wide memory tuning (fxsplit/memory.h). */
#include <fxsplit/memory.h>

#include "bulk.h"

#include <stdint.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/* How far the heap grows at a time, and the biggest block it serves
 * (glibc's limit for the latter on 64-bit). */
#define HEAP_STEP ((size_t) 64 << 20)
#define HEAP_BLOCK_MAX ((size_t) 32 << 20)

gboolean
fxs_memory_tune_for_big_graphs (void)
{
#ifdef __GLIBC__
  /* one arena: other threads' arenas are mappings of their own, in 4 KiB
   * pages (the library's threads allocate big blocks, rarely) */
  if (!mallopt (M_MMAP_THRESHOLD, (int) HEAP_BLOCK_MAX) || !mallopt (M_TOP_PAD, (int) HEAP_STEP)
      || !mallopt (M_TRIM_THRESHOLD, (int) (2 * HEAP_STEP)) || !mallopt (M_ARENA_MAX, 1))
    return FALSE;
  /* a block from the heap (which grows by HEAP_STEP more if it must):
   * from it to the heap's end is what the next allocations take */
  void *block = malloc (HEAP_BLOCK_MAX / 2);
  uintptr_t start = ((uintptr_t) block + FXS_BULK_HUGE_PAGE - 1) & ~(uintptr_t) (FXS_BULK_HUGE_PAGE - 1);
  uintptr_t end = (uintptr_t) sbrk (0) & ~(uintptr_t) (FXS_BULK_HUGE_PAGE - 1);
  /* not the heap (another malloc, or glibc's mmap'd arena): leave it */
  gboolean heap = block && end > start && end - start < 2 * HEAP_STEP;
  if (heap)
    madvise ((void *) start, end - start, MADV_HUGEPAGE); /* advice: failure is harmless */
  free (block);
  /* the heap below its first huge page boundary can only have 4 KiB pages:
   * kept out of use by a block that is never touched (the next ones, a
   * loader's read buffer say, would take a page fault per 4 KiB there) */
  static void *below_first_huge_page;
  if (heap && !below_first_huge_page && start - (uintptr_t) block > 64)
    below_first_huge_page = malloc (start - (uintptr_t) block - 2 * sizeof (size_t));
  if (heap)
    fxs_bulk_use_heap_below_huge_page ();
  return heap;
#else
  return FALSE;
#endif
}
