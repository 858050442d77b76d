/* Tables of 64-bit keys on table.h. */
#include "idset.h"

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

/* Inserts @key with @value if absent; returns its entry. */
static IdEntry *
insert (FxsIdTable *t, guint64 key, guint32 value, gboolean *inserted)
{
  g_assert (value != G_MAXUINT32);
  guint32 hash = mix (key);
  fxs_table_room (&t->table);
  for (gsize i = fxs_table_start (&t->table, hash);; i = fxs_table_step (&t->table, i))
    {
      IdEntry *e = fxs_table_at (&t->table, i);
      *inserted = !e->head.tag;
      if (*inserted)
        {
          *e = (IdEntry) { { hash, value + 1 }, key };
          fxs_table_added (&t->table);
          return e;
        }
      if (e->key == key)
        return e;
    }
}

void
fxs_id_table_init (FxsIdTable *t)
{
  fxs_table_init (&t->table, sizeof (IdEntry));
}

gboolean
fxs_id_set_add (FxsIdSet *set, guint64 key)
{
  gboolean inserted;
  insert (set, key, 0, &inserted);
  return inserted;
}

guint32
fxs_id_map_lookup_or_insert (FxsIdMap *map, guint64 key, guint32 value, gboolean *inserted)
{
  return insert (map, key, value, inserted)->head.tag - 1;
}
