/* The open-addressing table of table.h: its one grow function, and the
 * tables of 64-bit keys on it. */
#include "table.h"

#include <string.h>

#define MIN_CAPACITY 16

/* The slot of an empty table: every search stops at it. */
static const guint8 empty_slot[FXS_TABLE_MAX_ENTRY];

void
fxs_table_init (FxsTable *t, gsize entry_size)
{
  g_assert (entry_size >= sizeof (FxsTableHead) && entry_size <= FXS_TABLE_MAX_ENTRY);
  *t = (FxsTable) { .slots = (guint8 *) empty_slot, .entry_size = entry_size };
}

void
fxs_table_clear (FxsTable *t)
{
  if (t->slots != empty_slot)
    g_free (t->slots);
  fxs_table_init (t, t->entry_size);
}

void
fxs_table_reset (FxsTable *t)
{
  if (t->slots == empty_slot)
    return;
  /* a table much bigger than what it held goes: wiping it each time would
   * cost its size, not its use */
  if (t->mask + 1 > 8 * MAX (t->used, MIN_CAPACITY))
    fxs_table_clear (t);
  else
    {
      memset (t->slots, 0, (t->mask + 1) * t->entry_size);
      t->used = 0;
    }
}

static gpointer
empty_slot_for (const FxsTable *t, guint32 hash)
{
  gsize i = fxs_table_start (t, hash);
  while (((const FxsTableHead *) fxs_table_at (t, i))->tag)
    i = fxs_table_step (t, i);
  return fxs_table_at (t, i);
}

void
fxs_table_reserve (FxsTable *t, gsize n)
{
  gsize cap = MIN_CAPACITY;
  while (cap < 2 * n)
    cap *= 2;
  if (t->slots != empty_slot && cap <= t->mask + 1)
    return;
  FxsTable old = *t;  /* an empty table's one slot is empty too */
  /* written, not calloc()ed: fresh memory calloc() leaves untouched is
   * first read by look-ups, mapped to the zero page, then faulted again
   * (with a TLB flush on every core of a threaded process) when written */
  t->slots = memset (g_malloc (cap * t->entry_size), 0, cap * t->entry_size);
  t->mask = cap - 1;
  for (gsize i = 0; i <= old.mask; i++)
    {
      const FxsTableHead *e = fxs_table_at (&old, i);
      if (e->tag)
        memcpy (empty_slot_for (t, e->hash), e, t->entry_size);
    }
  fxs_table_clear (&old);
}

gpointer
fxs_table_add (FxsTable *t, guint32 hash)
{
  fxs_table_room (t);
  FxsTableHead *e = empty_slot_for (t, hash);
  e->hash = hash;
  t->used++;
  return e;
}

guint32
fxs_name_hash (const char *s, gsize len)
{
  /* eight bytes at a time, multiply-xorshift mixed */
  const guint64 k = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  guint64 h = len * k;
  for (; len >= 8; s += 8, len -= 8)
    {
      guint64 w;
      memcpy (&w, s, 8);
      h = (h ^ w) * k;
      h ^= h >> 29;
    }
  /* the last 0-7 bytes in a zeroed word */
  guint64 w = 0;
  memcpy (&w, s, len);
  h = (h ^ w) * k;
  h ^= h >> 32;
  return (guint32) h;
}

typedef struct {
  FxsTableHead head;   /* tag: value + 1 */
  guint64 key;
} IdEntry;

/* splitmix64's finaliser: keys are often small consecutive integers, so
 * they need mixing before masking. */
static inline guint32
mix (guint64 k)
{
  k ^= k >> 30;
  k *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  k ^= k >> 27;
  k *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  k ^= k >> 31;
  return (guint32) k;
}

void
fxs_id_table_init (FxsIdTable *t)
{
  fxs_table_init (&t->table, sizeof (IdEntry));
}

guint32
fxs_id_map_lookup_or_insert (FxsIdMap *map, guint64 key, guint32 value, gboolean *inserted)
{
  g_assert (value != G_MAXUINT32);
  guint32 hash = mix (key);
  fxs_table_room (&map->table);
  for (gsize i = fxs_table_start (&map->table, hash);; i = fxs_table_step (&map->table, i))
    {
      IdEntry *e = fxs_table_at (&map->table, i);
      *inserted = !e->head.tag;
      if (*inserted)
        {
          *e = (IdEntry) { { hash, value + 1 }, key };
          fxs_table_added (&map->table);
          return value;
        }
      if (e->key == key)
        return e->head.tag - 1;
    }
}

gboolean
fxs_id_set_add (FxsIdSet *set, guint64 key)
{
  gboolean inserted;
  fxs_id_map_lookup_or_insert (set, key, 0, &inserted);
  return inserted;
}
