#include "arena.h"

#include <string.h>

#define BLOCK_SIZE (64 * 1024)

struct FxsArenaBlock {
  FxsArenaBlock *next;
  /* data follows, 16-byte aligned */
  char pad[8];
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
      gsize block = size > BLOCK_SIZE / 4 ? size : BLOCK_SIZE;
      FxsArenaBlock *b = g_malloc0 (sizeof (FxsArenaBlock) + block);
      char *data = (char *) (b + 1);
      if (block != BLOCK_SIZE)
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
