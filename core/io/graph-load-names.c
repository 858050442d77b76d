/* Loading graph files: the loader's name tables.
 *
 * Node names (for duplicates and {"node": NAME} references), attribute
 * names (duplicates) and interned strings are looked up by their bytes as
 * the file holds them, with a hash computed once per string.  The graph's
 * own name tables (GHashTables of C strings) are left to be made on first
 * use: loading needs none of them, and most users of a loaded graph never
 * search it by name.
 */
#include "graph-load-private.h"

#include <string.h>

guint32
fxs_load_hash (const char *s, gsize len)
{
  /* as fxs_load_hash_text(), for texts that are not padded */
  gsize done;
  guint64 h = fxs_load_hash_words (s, len, &done), last = 0;
  for (gsize i = done; i < len; i++)
    last |= (guint64) (guchar) s[i] << (8 * (i - done));
  return fxs_load_hash_last (h, last);
}

/* ---- names of nodes and attributes -------------------------------------- */

void
fxs_load_names_init (FxsLoadNames *t, gsize name_offset)
{
  memset (t, 0, sizeof *t);
  t->name_offset = name_offset;
}

static gsize
names_bytes (const FxsLoadNames *t)
{
  return 2 * sizeof (guint32) * ((gsize) t->mask + 1);
}

void
fxs_load_names_clear (FxsLoadNames *t)
{
  if (t->slots)
    fxs_bulk_free (t->slots);
  gsize offset = t->name_offset;
  fxs_load_names_init (t, offset);
}

static const char *
name_at (const FxsLoadNames *t, guint32 index)
{
  return *(const char *const *) ((const char *) t->items->pdata[index] + t->name_offset);
}

static void
insert_slot (FxsLoadNames *t, guint32 hash, guint32 index)
{
  guint32 i = hash & t->mask;
  while (t->slots[2 * i + 1])
    i = (i + 1) & t->mask;
  t->slots[2 * i] = hash;
  t->slots[2 * i + 1] = index + 1;
}

static void
grow (FxsLoadNames *t)
{
  guint32 *old = t->slots;
  guint32 old_n = old ? t->mask + 1 : 0;
  guint32 n = old_n ? 2 * old_n : 64;
  t->mask = n - 1;
  t->slots = fxs_bulk_alloc (names_bytes (t));
  for (guint32 i = 0; i < old_n; i++)
    if (old[2 * i + 1])
      insert_slot (t, old[2 * i], old[2 * i + 1] - 1);
  if (old)
    fxs_bulk_free (old);
}

static gint64
probe (const FxsLoadNames *t, const char *s, gsize len, guint32 hash)
{
  if (!t->slots)
    return -1;
  for (guint32 i = hash & t->mask; t->slots[2 * i + 1]; i = (i + 1) & t->mask)
    if (t->slots[2 * i] == hash)
      {
        guint32 index = t->slots[2 * i + 1] - 1;
        const char *name = name_at (t, index);
        if (strncmp (name, s, len) == 0 && name[len] == '\0')
          return index;
      }
  return -1;
}

/* Indexes the items added since the last call: after a switch of graphs
 * (a split result's submodules), or items added by other code. */
static void
index_new_items (FxsLoadNames *t, FxsItems *items)
{
  if (t->items != items)
    {
      fxs_load_names_clear (t);
      t->items = items;
    }
  while (t->n_indexed < items->len)
    {
      const char *name = name_at (t, t->n_indexed);
      gsize len = strlen (name);
      guint32 hash = fxs_load_hash (name, len);
      if (probe (t, name, len, hash) < 0)
        fxs_load_names_add (t, items, hash);
      else
        t->n_indexed++; /* the first of two equal names wins */
    }
}

gint64
fxs_load_names_find (FxsLoadNames *t, FxsItems *items, const char *s, gsize len, guint32 hash)
{
  if (G_UNLIKELY (t->items != items || t->n_indexed != items->len))
    index_new_items (t, items);
  return probe (t, s, len, hash);
}

void
fxs_load_names_prefetch (const FxsLoadNames *t, FxsItems *items, guint32 hash)
{
  if (t->items == items && t->slots)
    __builtin_prefetch (&t->slots[2 * (hash & t->mask)]);
}

void
fxs_load_names_add (FxsLoadNames *t, FxsItems *items, guint32 hash)
{
  g_assert (t->items == items && t->n_indexed < items->len);
  if (2 * ((gsize) t->n_indexed + 1) > (t->slots ? (gsize) t->mask + 1 : 0))
    grow (t);
  insert_slot (t, hash, t->n_indexed);
  t->n_indexed++;
}

/* ---- interned strings ------------------------------------------------------ */

void
fxs_load_strings_clear (FxsLoadStrings *t)
{
  if (t->slots)
    fxs_bulk_free (t->slots);
  memset (t, 0, sizeof *t);
}

const char *
fxs_load_strings_intern (FxsLoadStrings *t, FxsGraph *graph, const char *s, gsize len,
                         guint32 hash)
{
  if (t->graph != graph)
    {
      fxs_load_strings_clear (t);
      t->graph = graph;
    }
  if (2 * ((gsize) t->used + 1) > (t->slots ? (gsize) t->mask + 1 : 0))
    {
      FxsLoadString *old = t->slots;
      guint32 old_n = old ? t->mask + 1 : 0;
      guint32 n = old_n ? 2 * old_n : 64;
      t->slots = fxs_bulk_alloc (sizeof (FxsLoadString) * (gsize) n);
      t->mask = n - 1;
      for (guint32 i = 0; i < old_n; i++)
        if (old[i].text)
          {
            guint32 k = old[i].hash & t->mask;
            while (t->slots[k].text)
              k = (k + 1) & t->mask;
            t->slots[k] = old[i];
          }
      if (old)
        fxs_bulk_free (old);
    }
  guint32 i = hash & t->mask;
  for (; t->slots[i].text; i = (i + 1) & t->mask)
    if (t->slots[i].hash == hash && t->slots[i].len == len
        && memcmp (t->slots[i].text, s, len) == 0)
      return t->slots[i].text;
  /* padded: fxs_load_intern() compares its recent ones a word at a time */
  t->slots[i].text = fxs_load_padded_copy (&graph->arena, s, len);
  t->slots[i].hash = hash;
  t->slots[i].len = (guint32) len;
  t->used++;
  return t->slots[i].text;
}
