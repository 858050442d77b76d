/* Tables keyed by 64-bit integers, for the engine's per-graph bookkeeping,
 * on the core's one open-addressing table (table.h), keys stored in the
 * entries.  FxsIdSet answers "seen before?", FxsIdMap maps a key to a
 * 32-bit value (dense indices, below G_MAXUINT32). */
#ifndef FXS_IDSET_H
#define FXS_IDSET_H

#include "table.h"

typedef struct {
  FxsTable table;    /* entries: hash and value + 1, the key */
} FxsIdTable;

typedef FxsIdTable FxsIdSet;
typedef FxsIdTable FxsIdMap;

/* An empty table; clearing frees it (and leaves it empty, usable). */
void     fxs_id_table_init (FxsIdTable *t);
static inline void
fxs_id_table_clear (FxsIdTable *t)
{
  fxs_table_clear (&t->table);
}

#define fxs_id_set_init fxs_id_table_init
#define fxs_id_set_clear fxs_id_table_clear
#define fxs_id_map_init fxs_id_table_init
#define fxs_id_map_clear fxs_id_table_clear

/* TRUE when @key was not in the set yet (and is now). */
gboolean fxs_id_set_add (FxsIdSet *set, guint64 key);

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
