/* A max-heap of candidate moves by gain, ties broken by a seeded key: the
 * move queue of mincut's refinements (acyclic-cut.c, acyclic-bisect.c). */
#ifndef FXS_PARTS_GAIN_HEAP_H
#define FXS_PARTS_GAIN_HEAP_H

#include <glib.h>

typedef struct {
  gint64 gain;
  guint32 key;
  guint32 node;
} Candidate;

typedef struct {
  Candidate *items;
  guint len, cap;
} Heap;

void      heap_push (Heap *h, Candidate c);
/* The best candidate, removed; @h must not be empty. */
Candidate heap_pop (Heap *h);

/* A well-mixed 32-bit hash of @x (splitmix64's finalizer): seeded keys. */
guint32   gain_mix (guint64 x);

#endif
