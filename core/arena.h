/* A bump allocator: many small objects freed together with their graph. */
#ifndef FXS_ARENA_H
#define FXS_ARENA_H

#include <glib.h>

typedef struct FxsArenaBlock FxsArenaBlock;

typedef struct {
  FxsArenaBlock *blocks;
  char *cursor;
  gsize left;
} FxsArena;

void     fxs_arena_init (FxsArena *arena);
void     fxs_arena_clear (FxsArena *arena);
/* Zero-filled, 8-byte aligned memory that lives until fxs_arena_clear(). */
gpointer fxs_arena_alloc (FxsArena *arena, gsize size);
gpointer fxs_arena_memdup (FxsArena *arena, gconstpointer data, gsize size);
char    *fxs_arena_strndup (FxsArena *arena, const char *s, gsize len);

#endif
