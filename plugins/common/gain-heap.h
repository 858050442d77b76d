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

/* Whether a candidate node may still move, and its gain now. */
typedef gboolean (*HeapValid) (gconstpointer data, guint32 node);
typedef gint64   (*HeapGain) (gconstpointer data, guint32 node);

/* Pops candidates until one whose node is still @valid and whose gain is
 * still @gain's (a stale one goes back with its current gain, so gains
 * need not be updated on every move); FALSE when none is left. */
gboolean  heap_pop_current (Heap *h, HeapValid valid, HeapGain gain, gconstpointer data,
                            Candidate *out);

/* A well-mixed 32-bit hash of @x (splitmix64's finalizer): seeded keys. */
guint32   gain_mix (guint64 x);

#endif
