/* A bump allocator: many small objects freed together with their graph. */
#ifndef FXS_ARENA_H
#define FXS_ARENA_H

#include <glib.h>

typedef struct FxsArenaBlock FxsArenaBlock;

/* Objects are taken from the front of the current block (8-byte aligned),
 * strings from its back (unaligned), so names waste no padding. */
typedef struct {
  FxsArenaBlock *blocks;
  char *cursor;
  gsize left;
  gsize total;              /* bytes of all blocks */
  gsize expected;           /* fxs_arena_expect() */
} FxsArena;

void     fxs_arena_init (FxsArena *arena);
void     fxs_arena_clear (FxsArena *arena);
/* Says that the arena will hold about @bytes (a loader knows its input's
 * size, the engine its graphs' nodes): its first block has that size (up
 * to 64 KiB), and a big arena takes big blocks from the first on instead
 * of growing through small ones. */
void     fxs_arena_expect (FxsArena *arena, gsize bytes);
/* Zero-filled, 8-byte aligned memory that lives until fxs_arena_clear(). */
gpointer fxs_arena_alloc (FxsArena *arena, gsize size);
/* The block for @size more bytes (a multiple of 8): a new current block
 * (NULL returned), or for a large object a block of its own, returned. */
gpointer fxs_arena_grow (FxsArena *arena, gsize size);

/* @size bytes, 8-byte aligned, not zeroed: inline, for the engine's
 * nodes and names. */
static inline gpointer
fxs_arena_take (FxsArena *arena, gsize size)
{
  size = size ? (size + 7) & ~(gsize) 7 : 8;
  gpointer p;
  if (G_UNLIKELY (size > arena->left) && (p = fxs_arena_grow (arena, size)) != NULL)
    return p;
  p = arena->cursor;
  arena->cursor += size;
  arena->left -= size;
  return p;
}

/* A copy of @size bytes, 8-byte aligned (the padding up to a multiple of 8
 * is not zeroed). */
gpointer fxs_arena_memdup (FxsArena *arena, gconstpointer data, gsize size);
/* @len bytes of @s and a NUL, unaligned. */
char    *fxs_arena_strndup (FxsArena *arena, const char *s, gsize len);

#endif
