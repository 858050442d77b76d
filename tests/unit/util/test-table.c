/* The core's one open-addressing table (util/table.c) and the id sets on
 * it (util/idset.c). */
#include <string.h>

#include "util/table.h"
#include "../test-util.h"

typedef struct {
  FxsTableHead head;   /* tag: i + 1 */
  guint64 key;
} Entry;

static Entry *
find (const FxsTable *t, guint64 key)
{
  guint32 hash = (guint32) (key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) >> 32);
  for (gsize i = fxs_table_start (t, hash);; i = fxs_table_step (t, i))
    {
      Entry *e = fxs_table_at (t, i);
      if (!e->head.tag || e->key == key)
        return e;
    }
}

static void
add (FxsTable *t, guint64 key, guint32 tag)
{
  guint32 hash = (guint32) (key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) >> 32);
  Entry *e = fxs_table_add (t, hash);
  e->head.tag = tag;
  e->key = key;
}

/* Growing keeps every entry; an empty table finds nothing without slots of
 * its own. */
static void
test_table_grow (void)
{
  FxsTable t;
  fxs_table_init (&t, sizeof (Entry));
  CU_ASSERT_EQUAL (find (&t, 7)->head.tag, 0);
  for (guint32 i = 0; i < 100000; i++)
    add (&t, 3 * (guint64) i, i + 1);
  CU_ASSERT_EQUAL (t.used, 100000);
  CU_ASSERT (2 * t.used <= t.mask + 1);
  gboolean all = TRUE;
  for (guint32 i = 0; i < 100000; i++)
    all = all && find (&t, 3 * (guint64) i)->head.tag == i + 1 && !find (&t, 3 * (guint64) i + 1)->head.tag;
  CU_ASSERT (all);
  fxs_table_clear (&t);
  CU_ASSERT_EQUAL (t.used, 0);
  CU_ASSERT_EQUAL (find (&t, 0)->head.tag, 0);
  add (&t, 5, 1);
  CU_ASSERT_EQUAL (find (&t, 5)->head.tag, 1);
  fxs_table_clear (&t);
}

/* A reset costs what the table held: one after a small use of a big
 * table gives the memory back, so that many small uses after one big one
 * do not each wipe the big table. */
static void
test_table_reset (void)
{
  FxsTable t;
  fxs_table_init (&t, sizeof (Entry));
  fxs_table_reset (&t);
  for (guint32 i = 0; i < 10000; i++)
    add (&t, i, i + 1);
  fxs_table_reset (&t);
  CU_ASSERT_EQUAL (t.used, 0);
  CU_ASSERT_EQUAL (find (&t, 1)->head.tag, 0);
  CU_ASSERT (t.mask + 1 >= 20000);   /* held 10^4: wiped in place */
  for (guint32 i = 0; i < 4; i++)
    add (&t, i, i + 1);
  fxs_table_reset (&t);
  CU_ASSERT_EQUAL (find (&t, 2)->head.tag, 0);
  add (&t, 2, 1);
  CU_ASSERT (t.mask + 1 <= 64);
  fxs_table_reset (&t);   /* small: wiped in place */
  CU_ASSERT (t.mask + 1 <= 64 && t.used == 0);
  CU_ASSERT_EQUAL (find (&t, 2)->head.tag, 0);
  fxs_table_reserve (&t, 1000);
  CU_ASSERT (t.mask + 1 >= 2000);
  fxs_table_clear (&t);
}

static void
test_id_set_and_map (void)
{
  FxsIdSet set;
  fxs_id_set_init (&set);
  const guint64 keys[] = { 0, 1, G_MAXUINT64, G_MAXUINT64 - 1, fxs_id_pair (3, 4),
                           fxs_id_pair (4, 3) };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    CU_ASSERT (fxs_id_set_add (&set, keys[i]));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    CU_ASSERT (!fxs_id_set_add (&set, keys[i]));
  fxs_id_set_clear (&set);
  CU_ASSERT (fxs_id_set_add (&set, 0));
  fxs_id_set_clear (&set);

  FxsIdMap map;
  fxs_id_map_init (&map);
  gboolean inserted, all = TRUE;
  for (guint32 i = 0; i < 50000; i++)
    all = all && fxs_id_map_lookup_or_insert (&map, (guint64) i << 20, i, &inserted) == i && inserted;
  for (guint32 i = 0; i < 50000; i++)
    all = all && fxs_id_map_lookup_or_insert (&map, (guint64) i << 20, 7, &inserted) == i && !inserted;
  CU_ASSERT (all);
  CU_ASSERT_EQUAL (fxs_id_map_lookup_or_insert (&map, G_MAXUINT64, 9, &inserted), 9);
  CU_ASSERT (inserted);
  fxs_id_map_clear (&map);
}

static void
test_name_hash (void)
{
  /* equal bytes, equal hash, whatever follows them */
  char a[32] = "layer_0_linear", b[32] = "layer_0_linear_weight";
  CU_ASSERT_EQUAL (fxs_name_hash (a, 14), fxs_name_hash (b, 14));
  CU_ASSERT_NOT_EQUAL (fxs_name_hash (a, 14), fxs_name_hash (b, 21));
  CU_ASSERT_NOT_EQUAL (fxs_name_hash ("ab", 2), fxs_name_hash ("ba", 2));
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_table_grow),
    FXS_TEST (test_table_reset),
    FXS_TEST (test_id_set_and_map),
    FXS_TEST (test_name_hash),
    { NULL, NULL },
  };
  fxs_test_add_suite ("table", cases);
}

FXS_TEST_MAIN (register_tests)
