/* Open-addressing (linear probing) tables of 64-bit keys. */
#include "idset.h"

#include <string.h>

#define EMPTY G_MAXUINT64
#define MIN_CAPACITY 16

/* splitmix64's finaliser: keys are often small consecutive integers, so
 * they need mixing before masking. */
static inline gsize
mix (guint64 k)
{
  k ^= k >> 30;
  k *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  k ^= k >> 27;
  k *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  k ^= k >> 31;
  return (gsize) k;
}

static void
table_init (FxsIdTable *t, gboolean with_values)
{
  memset (t, 0, sizeof *t);
  t->keys = g_new (guint64, MIN_CAPACITY);
  memset (t->keys, 0xff, MIN_CAPACITY * sizeof (guint64));
  t->values = with_values ? g_new (guint32, MIN_CAPACITY) : NULL;
  t->mask = MIN_CAPACITY - 1;
}

static void
table_clear (FxsIdTable *t)
{
  g_free (t->keys);
  g_free (t->values);
  memset (t, 0, sizeof *t);
}

/* The slot holding @key, or the empty slot where it would go. */
static inline gsize
find_slot (const FxsIdTable *t, guint64 key)
{
  gsize i = mix (key) & t->mask;
  while (t->keys[i] != key && t->keys[i] != EMPTY)
    i = (i + 1) & t->mask;
  return i;
}

static void
grow (FxsIdTable *t)
{
  gsize old_cap = t->mask + 1;
  guint64 *old_keys = t->keys;
  guint32 *old_values = t->values;
  gsize cap = old_cap * 2;
  t->keys = g_new (guint64, cap);
  memset (t->keys, 0xff, cap * sizeof (guint64));
  t->values = old_values ? g_new (guint32, cap) : NULL;
  t->mask = cap - 1;
  for (gsize i = 0; i < old_cap; i++)
    if (old_keys[i] != EMPTY)
      {
        gsize j = find_slot (t, old_keys[i]);
        t->keys[j] = old_keys[i];
        if (old_values)
          t->values[j] = old_values[i];
      }
  g_free (old_keys);
  g_free (old_values);
}

/* Inserts @key if absent; returns its slot, or (gsize) -1 for G_MAXUINT64. */
static gsize
insert (FxsIdTable *t, guint64 key, guint32 value, gboolean *inserted)
{
  if (key == EMPTY)
    {
      *inserted = !t->has_max;
      if (!t->has_max)
        {
          t->has_max = TRUE;
          t->max_value = value;
        }
      return (gsize) -1;
    }
  /* keep the load factor at or below 1/2 */
  if (2 * (t->size + 1) > t->mask + 1)
    grow (t);
  gsize i = find_slot (t, key);
  *inserted = t->keys[i] == EMPTY;
  if (*inserted)
    {
      t->keys[i] = key;
      if (t->values)
        t->values[i] = value;
      t->size++;
    }
  return i;
}

void
fxs_id_set_init (FxsIdSet *set)
{
  table_init (set, FALSE);
}

void
fxs_id_set_clear (FxsIdSet *set)
{
  table_clear (set);
}

gboolean
fxs_id_set_add (FxsIdSet *set, guint64 key)
{
  gboolean inserted;
  insert (set, key, 0, &inserted);
  return inserted;
}

void
fxs_id_map_init (FxsIdMap *map)
{
  table_init (map, TRUE);
}

void
fxs_id_map_clear (FxsIdMap *map)
{
  table_clear (map);
}

guint32
fxs_id_map_lookup_or_insert (FxsIdMap *map, guint64 key, guint32 value, gboolean *inserted)
{
  gsize i = insert (map, key, value, inserted);
  return i == (gsize) -1 ? map->max_value : map->values[i];
}
