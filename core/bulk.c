/* Bulk memory (bulk.h): big blocks mapped on their own, backed by huge
 * pages where the kernel gives them, and a bounded pool of freed mappings. */
#include "bulk.h"

#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE_SIZE FXS_BULK_HUGE_PAGE
/* Blocks from this size on are mapped (and pooled when freed); smaller
 * ones come from malloc. */
#define BULK_MAP_MIN ((gsize) 256 << 10)

/* Every block starts with this header (16 bytes, keeping the data 16-byte
 * aligned): how it was allocated, for fxs_bulk_free. */
typedef struct {
  gsize mapped;    /* bytes mapped; 0: from g_malloc */
  gsize pad;
} BulkHeader;
G_STATIC_ASSERT (sizeof (BulkHeader) == FXS_BULK_HEADER);

/* Freed mappings kept for the next blocks, as malloc keeps freed heap
 * memory: a process that splits again (a partitioner's search, a service)
 * then touches no fresh pages.  Bounded in count and bytes: a split of 10^6
 * nodes takes about 60 blocks and 300 MiB, and the pool never holds more
 * than the process had in use before. */
#define POOL_BLOCKS 256
#define POOL_BYTES ((gsize) 1 << 30)

static GMutex pool_lock;
static BulkHeader *pool[POOL_BLOCKS];
static guint pool_len;
static gsize pool_bytes;

/* A pooled mapping of @mapped bytes or a little more, or NULL.  A much
 * bigger one is cut: its front is taken, the rest stays in the pool (a
 * loader's whole-file buffer, freed, then serves the engine's blocks
 * without fresh pages). */
static BulkHeader *
pool_take (gsize mapped)
{
  BulkHeader *found = NULL;
  g_mutex_lock (&pool_lock);
  guint best = G_MAXUINT;
  for (guint i = 0; i < pool_len; i++)
    if (pool[i]->mapped >= mapped && (best == G_MAXUINT || pool[i]->mapped < pool[best]->mapped))
      best = i;
  if (best != G_MAXUINT)
    {
      found = pool[best];
      pool[best] = pool[--pool_len];
      pool_bytes -= found->mapped;
      if (found->mapped > mapped + mapped / 2)
        {
          /* both parts stay whole huge pages: mapped sizes are multiples */
          BulkHeader *rest = (BulkHeader *) ((char *) found + mapped);
          rest->mapped = found->mapped - mapped;
          found->mapped = mapped;
          pool[pool_len++] = rest;
          pool_bytes += rest->mapped;
        }
    }
  g_mutex_unlock (&pool_lock);
  return found;
}

static gboolean
pool_give (BulkHeader *h)
{
  gboolean kept = FALSE;
  g_mutex_lock (&pool_lock);
  if (pool_len < POOL_BLOCKS && pool_bytes + h->mapped <= POOL_BYTES)
    {
      pool[pool_len++] = h;
      pool_bytes += h->mapped;
      kept = TRUE;
    }
  g_mutex_unlock (&pool_lock);
  return kept;
}

/* Set once the heap is in huge pages itself: blocks are then mapped from a
 * huge page on, not from BULK_MAP_MIN. */
static gint heap_below_huge_page;

void
fxs_bulk_use_heap_below_huge_page (void)
{
  g_atomic_int_set (&heap_below_huge_page, 1);
}

static gpointer
bulk_alloc (gsize size, gboolean zero)
{
  gsize total = size + sizeof (BulkHeader);
#if defined(G_OS_UNIX) && defined(MAP_ANONYMOUS)
  gsize map_min = g_atomic_int_get (&heap_below_huge_page) ? HUGE_PAGE_SIZE : BULK_MAP_MIN;
  if (total >= map_min)
    {
      /* whole huge pages: a 1 MiB block in 4 KiB pages is 256 page
       * faults, in a huge page one; and a freed block then fits more
       * later requests */
      gsize mapped = (total + HUGE_PAGE_SIZE - 1) & ~(HUGE_PAGE_SIZE - 1);
      BulkHeader *reused = pool_take (mapped);
      if (reused)
        {
          if (zero)
            memset (reused + 1, 0, size);
          return reused + 1;
        }
      /* map a huge page more, then trim both ends to a 2 MiB boundary so
       * that every huge page of the block can be backed as one */
      gsize padded = mapped + HUGE_PAGE_SIZE;
      char *raw = mmap (NULL, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw != MAP_FAILED)
        {
          char *start = (char *) (((guintptr) raw + HUGE_PAGE_SIZE - 1) & ~(HUGE_PAGE_SIZE - 1));
          gsize head = (gsize) (start - raw);
          if (head)
            munmap (raw, head);
          if (padded - head > mapped)
            munmap (start + mapped, padded - head - mapped);
#ifdef MADV_HUGEPAGE
          madvise (start, mapped, MADV_HUGEPAGE);
#endif
          ((BulkHeader *) start)->mapped = mapped;
          return start + sizeof (BulkHeader);
        }
    }
#endif
  BulkHeader *h = zero ? g_malloc0 (total) : g_malloc (total);
  h->mapped = 0;
  return h + 1;
}

gpointer
fxs_bulk_alloc (gsize size)
{
  return bulk_alloc (size, TRUE);
}

gpointer
fxs_bulk_alloc_uninit (gsize size)
{
  return bulk_alloc (size, FALSE);
}

void
fxs_bulk_free (gpointer block)
{
  if (!block)
    return;
  BulkHeader *h = (BulkHeader *) block - 1;
#if defined(G_OS_UNIX) && defined(MAP_ANONYMOUS)
  if (h->mapped)
    {
      if (!pool_give (h))
        munmap (h, h->mapped);
      return;
    }
#endif
  g_free (h);
}
