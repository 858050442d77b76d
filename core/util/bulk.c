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
static GCond pool_taken;    /* a prefaulter waits on it for room (below) */
static BulkHeader *pool[POOL_BLOCKS];
static guint pool_len;
static gsize pool_bytes;

/* A pooled mapping of @mapped bytes or a little more, or NULL.  A much
 * bigger one is cut: its front is taken, the rest stays in the pool (a big
 * table, freed, then serves the next blocks without fresh pages). */
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
      g_cond_broadcast (&pool_taken);
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

/* Frees @block: a mapping into the pool when @pooled and it has room,
 * else back to the system. */
static void
bulk_free (gpointer block, gboolean pooled)
{
  if (!block)
    return;
  BulkHeader *h = (BulkHeader *) block - 1;
#if defined(G_OS_UNIX) && defined(MAP_ANONYMOUS)
  if (h->mapped)
    {
      if (!pooled || !pool_give (h))
        munmap (h, h->mapped);
      return;
    }
#endif
  g_free (h);
}

void
fxs_bulk_free (gpointer block)
{
  bulk_free (block, TRUE);
}

void
fxs_bulk_release (gpointer block)
{
  bulk_free (block, FALSE);
}

/* ---- touching fresh memory ahead, on a spare core --------------------- */

/* Prefaulted memory waiting in the pool at most: enough for ~100 ms of a
 * loader's allocations. */
#define PREFAULT_AHEAD ((gsize) 64 << 20)
/* What it touches at a time: blocks up to this size (a loader's name
 * table) find room in it, smaller ones are cut from its front. */
#define PREFAULT_PIECE ((gsize) 8 << 20)

struct FxsBulkPrefault {
  GThread *thread;
  gsize budget;             /* bytes to prefault in all */
  gboolean stop;            /* under pool_lock */
};

/* @size bytes (whole huge pages), mapped on a huge page boundary, their
 * pages touched; NULL when mmap fails. */
static BulkHeader *
map_touched (gsize size)
{
#if !defined(G_OS_UNIX) || !defined(MAP_ANONYMOUS)
  (void) size;
  return NULL; /* blocks are malloc'd here: nothing to prefault */
#else
  char *raw = mmap (NULL, size + HUGE_PAGE_SIZE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return NULL;
  char *start = (char *) (((guintptr) raw + HUGE_PAGE_SIZE - 1) & ~(HUGE_PAGE_SIZE - 1));
  if (start > raw)
    munmap (raw, (gsize) (start - raw));
  munmap (start + size, (gsize) (raw + HUGE_PAGE_SIZE - start));
#ifdef MADV_HUGEPAGE
  madvise (start, size, MADV_HUGEPAGE);
#endif
  /* where the kernel gives a huge page the first store faults it all in;
   * elsewhere every 4 KiB page takes its own */
  for (gsize off = 0; off < size; off += 4096)
    ((volatile char *) start)[off] = 0;
  BulkHeader *h = (BulkHeader *) start;
  h->mapped = size;
  return h;
#endif
}

static gpointer
prefault_run (gpointer data)
{
  FxsBulkPrefault *pf = data;
  for (gsize done = 0; done < pf->budget; done += PREFAULT_PIECE)
    {
      g_mutex_lock (&pool_lock);
      while (!pf->stop && pool_bytes >= PREFAULT_AHEAD)
        g_cond_wait (&pool_taken, &pool_lock);
      gboolean stop = pf->stop;
      g_mutex_unlock (&pool_lock);
      if (stop)
        break;
      BulkHeader *h = map_touched (PREFAULT_PIECE);
      if (!h)
        break;
      if (!pool_give (h))
        {
          munmap (h, PREFAULT_PIECE);
          break;            /* the pool is full of other blocks */
        }
    }
  return NULL;
}

FxsBulkPrefault *
fxs_bulk_prefault_start (gsize bytes)
{
  FxsBulkPrefault *pf = g_new0 (FxsBulkPrefault, 1);
  pf->budget = bytes;
  pf->thread = g_thread_try_new ("fxs-prefault", prefault_run, pf, NULL);
  return pf;
}

void
fxs_bulk_prefault_stop (FxsBulkPrefault *pf)
{
  if (!pf)
    return;
  g_mutex_lock (&pool_lock);
  pf->stop = TRUE;
  g_cond_broadcast (&pool_taken);
  g_mutex_unlock (&pool_lock);
  if (pf->thread)
    g_thread_join (pf->thread);
  g_free (pf);
}

gsize
fxs_bulk_pool_bytes (void)
{
  g_mutex_lock (&pool_lock);
  gsize bytes = pool_bytes;
  g_mutex_unlock (&pool_lock);
  return bytes;
}
