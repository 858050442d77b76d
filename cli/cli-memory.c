/* The process's malloc tuned for big graphs (cli.h, cli_tune_memory). */
#include "cli.h"

#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* How far the heap grows at a time, and the biggest block it serves
 * (glibc's limit for the latter on 64-bit). */
#define HEAP_STEP ((size_t) 64 << 20)
#define HEAP_BLOCK_MAX ((size_t) 32 << 20)
#define HUGE_PAGE ((uintptr_t) 2 << 20)

void
cli_tune_memory (void)
{
  /* Big arrays (a plugin's table of one entry per node, say) come from the
   * heap instead of a mapping each, and the heap grows in big steps that
   * are kept: then they can be taken in 2 MiB pages.  The first touch of
   * each 4 KiB page costs a page fault, ~12 us on the virtual machines we
   * measured; a 2 MiB page takes one. */
  if (!mallopt (M_MMAP_THRESHOLD, (int) HEAP_BLOCK_MAX) || !mallopt (M_TOP_PAD, (int) HEAP_STEP)
      || !mallopt (M_TRIM_THRESHOLD, (int) (2 * HEAP_STEP)))
    return;
  /* a block from the heap (which grows by HEAP_STEP more if it must):
   * from it to the heap's end is what the next allocations take */
  void *block = malloc (HEAP_BLOCK_MAX / 2);
  uintptr_t start = ((uintptr_t) block + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t end = (uintptr_t) sbrk (0) & ~(HUGE_PAGE - 1);
  if (block && end > start && end - start < 2 * HEAP_STEP)
    madvise ((void *) start, end - start, MADV_HUGEPAGE); /* advice: failure is harmless */
  free (block);
}
