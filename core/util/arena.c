#include "arena.h"

#include <string.h>

#define BLOCK_SIZE (64 * 1024)
/* A graph's blocks grow from this size to BLOCK_SIZE: the engine makes one
 * graph per partition, most of them a few nodes, and 10^7 partitions with
 * a 64 KiB block each would not fit in memory (tests/hostile). */
#define FIRST_BLOCK_SIZE 256
/* A big graph (this much arena memory, or expected) takes blocks of
 * BIG_BLOCK_SIZE: fewer blocks, and the last one wastes at most a third. */
#define BIG_BLOCK_SIZE ((gsize) 2 << 20)
#define HUGE_AFTER (2 * BIG_BLOCK_SIZE)

struct FxsArenaBlock {
  FxsArenaBlock *next;
  gsize size;   /* of the data, which follows 16-byte aligned */
};

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
      g_free (b);
      b = next;
    }
  fxs_arena_init (arena);
}

void
fxs_arena_expect (FxsArena *arena, gsize bytes)
{
  arena->expected = bytes;
}

gpointer
fxs_arena_grow (FxsArena *arena, gsize size)
{
  /* Large objects get a block of their own so the current block's
   * remainder is not wasted. */
  gboolean big = size > BLOCK_SIZE / 4;
  gsize next = arena->blocks ? MIN (2 * arena->blocks->size, BLOCK_SIZE)
                             : CLAMP (arena->expected, FIRST_BLOCK_SIZE, BLOCK_SIZE);
  if (arena->total >= HUGE_AFTER || arena->expected >= HUGE_AFTER)
    next = BIG_BLOCK_SIZE - sizeof (FxsArenaBlock);
  gsize block = big ? size : MAX (next, size);
  /* not zeroed here: each object is as it is handed out, while it is in
   * the cache anyway, and strings need not be */
  FxsArenaBlock *b = g_malloc (sizeof (FxsArenaBlock) + block);
  b->size = block;
  arena->total += block;
  char *data = (char *) (b + 1);
  if (big)
    {
      /* keep the current block as the cursor; link the big one after */
      FxsArenaBlock **at = arena->blocks ? &arena->blocks->next : &arena->blocks;
      b->next = *at;
      *at = b;
      return data;
    }
  b->next = arena->blocks;
  arena->blocks = b;
  arena->cursor = data;
  arena->left = block;
  return NULL;
}

gpointer
fxs_arena_alloc (FxsArena *arena, gsize size)
{
  return memset (fxs_arena_take (arena, size), 0, size);
}

gpointer
fxs_arena_memdup (FxsArena *arena, gconstpointer data, gsize size)
{
  gpointer p = fxs_arena_take (arena, size);
  if (size)
    memcpy (p, data, size);
  return p;
}

char *
fxs_arena_strndup (FxsArena *arena, const char *s, gsize len)
{
  char *p = G_UNLIKELY (len + 1 > arena->left) ? fxs_arena_grow (arena, (len + 1 + 7) & ~(gsize) 7)
                                                : NULL;
  if (!p)
    {
      /* from the back of the block: the cursor stays aligned */
      arena->left -= len + 1;
      p = arena->cursor + arena->left;
    }
  memcpy (p, s, len);
  p[len] = '\0';
  return p;
}
