#include "arena.h"

#include <string.h>

#define BLOCK_SIZE (64 * 1024)
/* A graph's blocks grow from this size to BLOCK_SIZE: the engine makes one
 * graph per partition, most of them a few nodes, and 10^7 partitions with
 * a 64 KiB block each would not fit in memory (tests/hostile). */
#define FIRST_BLOCK_SIZE 256

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
      gsize next = arena->blocks ? MIN (2 * arena->blocks->size, BLOCK_SIZE) : FIRST_BLOCK_SIZE;
      gsize block = big ? size : MAX (next, size);
      FxsArenaBlock *b = g_malloc0 (sizeof (FxsArenaBlock) + block);
      b->size = block;
      char *data = (char *) (b + 1);
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
