#include "arena.h"
#include "hugemem.h"

#include <string.h>

/* A graph's blocks grow from FIRST_BLOCK_SIZE to SMALL_BLOCK_MAX from the
 * heap: the engine makes one graph per partition, most of them a few nodes,
 * and 10^7 partitions with a 64 KiB block each would not fit in memory
 * (tests/hostile).  A graph that outgrows that gets huge-page blocks
 * (hugemem.h), which cost one page fault per 2 MiB instead of 512. */
#define FIRST_BLOCK_SIZE 256
#define SMALL_BLOCK_MAX (64 * 1024)
#define BLOCK_SIZE (FXS_HUGEMEM_PAGE - sizeof (FxsArenaBlock))

struct FxsArenaBlock {
  FxsArenaBlock *next;
  gsize size;     /* of data */
  gboolean huge;  /* from fxs_hugemem_alloc0(), else g_malloc0() */
  _Alignas (16) char data[];
};

static FxsArenaBlock *
new_block (gsize size)
{
  gboolean huge = size + sizeof (FxsArenaBlock) >= FXS_HUGEMEM_PAGE;
  FxsArenaBlock *b = huge ? fxs_hugemem_alloc0 (sizeof (FxsArenaBlock) + size)
                          : g_malloc0 (sizeof (FxsArenaBlock) + size);
  b->size = size;
  b->huge = huge;
  return b;
}

static void
free_block (FxsArenaBlock *b)
{
  if (b->huge)
    fxs_hugemem_free (b, sizeof (FxsArenaBlock) + b->size);
  else
    g_free (b);
}

void
fxs_arena_init (FxsArena *arena)
{
  memset (arena, 0, sizeof *arena);
}

void
fxs_arena_clear (FxsArena *arena)
{
  FxsArenaBlock *b = arena->blocks;
  while (b)
    {
      FxsArenaBlock *next = b->next;
      free_block (b);
      b = next;
    }
  fxs_arena_init (arena);
}

gpointer
fxs_arena_alloc (FxsArena *arena, gsize size)
{
  size = (size + 7) & ~(gsize) 7;
  if (size == 0)
    size = 8;
  if (size > arena->left)
    {
      /* Large objects get a block of their own so the current block's
       * remainder is not wasted. */
      gboolean big = size > BLOCK_SIZE / 4;
      gsize next = FIRST_BLOCK_SIZE;
      if (arena->blocks)
        next = arena->blocks->size >= SMALL_BLOCK_MAX ? BLOCK_SIZE : 2 * arena->blocks->size;
      gsize block = big ? size : MAX (next, size);
      FxsArenaBlock *b = new_block (block);
      char *data = b->data;
      if (big)
        {
          /* keep the current block as the cursor; link the big one after */
          if (arena->blocks)
            {
              b->next = arena->blocks->next;
              arena->blocks->next = b;
            }
          else
            arena->blocks = b;
          return data;
        }
      b->next = arena->blocks;
      arena->blocks = b;
      arena->cursor = data;
      arena->left = block;
    }
  gpointer p = arena->cursor;
  arena->cursor += size;
  arena->left -= size;
  return p;
}

gpointer
fxs_arena_memdup (FxsArena *arena, gconstpointer data, gsize size)
{
  gpointer p = fxs_arena_alloc (arena, size);
  if (size)
    memcpy (p, data, size);
  return p;
}

char *
fxs_arena_strndup (FxsArena *arena, const char *s, gsize len)
{
  char *p = fxs_arena_alloc (arena, len + 1);
  memcpy (p, s, len);
  p[len] = '\0';
  return p;
}
