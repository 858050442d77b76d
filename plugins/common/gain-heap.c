/* The move queue of the refinements (see gain-heap.h). */
#include "gain-heap.h"

static gboolean
better (const Candidate *x, const Candidate *y)
{
  return x->gain > y->gain || (x->gain == y->gain && x->key > y->key);
}

void
heap_push (Heap *h, Candidate c)
{
  if (h->len == h->cap)
    {
      h->cap = h->cap ? 2 * h->cap : 64;
      h->items = g_renew (Candidate, h->items, h->cap);
    }
  guint i = h->len++;
  while (i > 0 && better (&c, &h->items[(i - 1) / 2]))
    {
      h->items[i] = h->items[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  h->items[i] = c;
}

Candidate
heap_pop (Heap *h)
{
  Candidate top = h->items[0], last = h->items[--h->len];
  guint i = 0;
  while (TRUE)
    {
      guint c = 2 * i + 1;
      if (c >= h->len)
        break;
      if (c + 1 < h->len && better (&h->items[c + 1], &h->items[c]))
        c++;
      if (!better (&h->items[c], &last))
        break;
      h->items[i] = h->items[c];
      i = c;
    }
  if (h->len > 0)
    h->items[i] = last;
  return top;
}

gboolean
heap_pop_current (Heap *h, HeapValid valid, HeapGain gain, gconstpointer data, Candidate *out)
{
  while (h->len > 0)
    {
      Candidate c = heap_pop (h);
      if (!valid (data, c.node))
        continue;
      gint64 g = gain (data, c.node);
      if (g == c.gain)
        {
          *out = c;
          return TRUE;
        }
      c.gain = g;
      heap_push (h, c);
    }
  return FALSE;
}

guint32
gain_mix (guint64 x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return (guint32) (x ^ (x >> 31));
}

