/* Huge-page-backed allocations (see hugemem.h): anonymous mappings, which
 * the kernel hands out zero-filled, aligned by hand to the huge page size
 * so that every 2 MiB of them can be one huge page. */
#include "hugemem.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static gsize
round_up (gsize size)
{
  return (size + FXS_HUGEMEM_PAGE - 1) & ~(gsize) (FXS_HUGEMEM_PAGE - 1);
}

gpointer
fxs_hugemem_alloc0 (gsize size)
{
  size = round_up (size ? size : 1);
  /* map one huge page more than needed and trim both ends to alignment */
  gsize mapped = size + FXS_HUGEMEM_PAGE;
  char *raw = mmap (NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    g_error ("%s: failed to map %" G_GSIZE_FORMAT " bytes: %s", G_STRLOC, mapped,
             g_strerror (errno));
  char *mem = (char *) (((guintptr) raw + FXS_HUGEMEM_PAGE - 1) & ~(guintptr) (FXS_HUGEMEM_PAGE - 1));
  gsize head = (gsize) (mem - raw), tail = mapped - head - size;
  if (head)
    munmap (raw, head);
  if (tail)
    munmap (mem + size, tail);
#ifdef MADV_HUGEPAGE
  /* only advice: without THP the memory is ordinary pages */
  madvise (mem, size, MADV_HUGEPAGE);
#endif
  return mem;
}

void
fxs_hugemem_free (gpointer mem, gsize size)
{
  if (mem)
    munmap (mem, round_up (size ? size : 1));
}
