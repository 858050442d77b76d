/* The core's one table that is not a GHashTable: open addressing with
 * linear probing, at most half full, the caller's entries (a FxsTableHead,
 * then its fields) stored in the slots and compared by the caller inline.
 * For names looked up a few times per node at 10^5-10^7 nodes, where keys
 * are not NUL-terminated (the loader's bytes) or compare with context
 * (verify's value numbers).  Measured: 10^6 node names inserted and each
 * looked up three times, 232-353 ns per operation against GHashTable's
 * 302-592.  A search:
 *
 *   for (gsize i = fxs_table_start (t, hash);; i = fxs_table_step (t, i))
 *     {
 *       Entry *e = fxs_table_at (t, i);
 *       if (!e->head.tag) -> absent: fill *e, then fxs_table_added (t)
 *                            (after fxs_table_room (t) before the search)
 *       if (e->head.hash == hash && ...) -> found
 *     }
 *
 * or fxs_table_add() for an entry known to be absent.  Entry pointers stay
 * valid until the next fxs_table_room(), fxs_table_add() or reset. */
#ifndef FXS_TABLE_H
#define FXS_TABLE_H

#include <glib.h>

typedef struct {
  guint32 hash;
  guint32 tag;       /* 0: empty slot */
} FxsTableHead;

typedef struct {
  guint8 *slots;     /* a shared empty slot until the first fxs_table_room() */
  gsize entry_size;  /* sizeof the caller's entry, FxsTableHead first */
  gsize mask;        /* capacity - 1; capacity is a power of two */
  gsize used;
} FxsTable;

/* The largest entry a table takes. */
#define FXS_TABLE_MAX_ENTRY 32

void fxs_table_init (FxsTable *t, gsize entry_size);
/* Frees the slots; the table is empty and usable again. */
void fxs_table_clear (FxsTable *t);
/* Empties the table, in time proportional to what it held. */
void fxs_table_reset (FxsTable *t);
/* Room for @n entries in all, at most half full. */
void fxs_table_reserve (FxsTable *t, gsize n);

/* Room for one more entry. */
static inline void
fxs_table_room (FxsTable *t)
{
  if (G_UNLIKELY (2 * (t->used + 1) > t->mask + 1))
    fxs_table_reserve (t, t->used + 1);
}

static inline gsize
fxs_table_start (const FxsTable *t, guint32 hash)
{
  return hash & t->mask;
}

static inline gsize
fxs_table_step (const FxsTable *t, gsize i)
{
  return (i + 1) & t->mask;
}

static inline gpointer
fxs_table_at (const FxsTable *t, gsize i)
{
  return t->slots + i * t->entry_size;
}

/* Starts fetching the slot of @hash into the cache, for a search that
 * comes a little later (a big table is far bigger than the cache). */
static inline void
fxs_table_prefetch (const FxsTable *t, guint32 hash)
{
  __builtin_prefetch (fxs_table_at (t, fxs_table_start (t, hash)));
}

/* Counts the entry just stored in an empty slot. */
static inline void
fxs_table_added (FxsTable *t)
{
  t->used++;
}

/* A new entry for @hash, known to be absent: room is made, its head.hash
 * set and it is counted; the caller sets head.tag and its fields. */
gpointer fxs_table_add (FxsTable *t, guint32 hash);

/* A fast hash of @len bytes (names, keys of the tables above). */
guint32 fxs_name_hash (const char *s, gsize len);

/* Tables keyed by 64-bit integers, the keys stored in the entries, for the
 * engine's per-graph bookkeeping: FxsIdSet answers "seen before?", FxsIdMap
 * maps a key to a 32-bit value (dense indices, below G_MAXUINT32).  Clearing
 * one frees it and leaves it empty, usable. */
typedef struct {
  FxsTable table;    /* entries: hash and value + 1, the key */
} FxsIdTable;
typedef FxsIdTable FxsIdSet;
typedef FxsIdTable FxsIdMap;

void fxs_id_table_init (FxsIdTable *t);
#define fxs_id_set_init fxs_id_table_init
#define fxs_id_map_init fxs_id_table_init
#define fxs_id_set_clear(set) fxs_table_clear (&(set)->table)
#define fxs_id_map_clear(map) fxs_table_clear (&(map)->table)

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
