/* Open-addressing hash tables keyed by 64-bit integers, for the engine's
 * per-graph bookkeeping: one flat allocation instead of a GHashTable node
 * per entry.  FxsIdSet answers "seen before?", FxsIdMap maps a key to a
 * 32-bit value (dense indices). */
#ifndef FXS_IDSET_H
#define FXS_IDSET_H

#include <glib.h>

typedef struct {
  guint64 *keys;
  guint32 *values;   /* NULL for a set */
  gsize mask;        /* capacity - 1; capacity is a power of two */
  gsize size;
  gboolean has_max;  /* G_MAXUINT64 marks empty slots, so it is kept apart */
  guint32 max_value;
} FxsIdTable;

typedef FxsIdTable FxsIdSet;
typedef FxsIdTable FxsIdMap;

void     fxs_id_set_init (FxsIdSet *set);
void     fxs_id_set_clear (FxsIdSet *set);
/* TRUE when @key was not in the set yet (and is now). */
gboolean fxs_id_set_add (FxsIdSet *set, guint64 key);

void     fxs_id_map_init (FxsIdMap *map);
void     fxs_id_map_clear (FxsIdMap *map);
/* Looks @key up; when absent, inserts it with @value.  Returns the value
 * stored under @key and sets *@inserted accordingly. */
guint32  fxs_id_map_lookup_or_insert (FxsIdMap *map, guint64 key, guint32 value,
                                      gboolean *inserted);

/* Packs two 32-bit indices into one key. */
static inline guint64
fxs_id_pair (guint32 a, guint32 b)
{
  return ((guint64) a << 32) | b;
}

#endif
