/* Unit tests of bulk memory (core/util/bulk.c): freed mappings are kept and
 * given again, a big one cut into the smaller blocks asked for later, which
 * never overlap and come zeroed from fxs_bulk_alloc(); a prefaulter fills
 * the pool ahead of use, within its limits. */
#include <glib.h>
#include <string.h>

#include "util/bulk.h"
#include "../test-util.h"

#define MIB ((gsize) 1 << 20)

static gboolean
inside (gconstpointer p, gconstpointer block, gsize size)
{
  return (const char *) p >= (const char *) block && (const char *) p < (const char *) block + size;
}

static void
test_bulk_cuts_a_freed_block (void)
{
  /* a 16 MiB block, written all over, then freed (as a loader's file) */
  gsize big_size = 16 * MIB - FXS_BULK_HEADER;
  char *big = fxs_bulk_alloc_uninit (big_size);
  CU_ASSERT_PTR_NOT_NULL_FATAL (big);
  memset (big, 0xab, big_size);
  fxs_bulk_free (big);

  /* smaller blocks come out of it, zeroed when asked, without overlapping */
  enum { N = 6 };
  char *parts[N];
  gsize part_size = 2 * MIB - FXS_BULK_HEADER;
  for (guint i = 0; i < N; i++)
    {
      parts[i] = i % 2 ? fxs_bulk_alloc (part_size) : fxs_bulk_alloc_uninit (part_size);
      CU_ASSERT_PTR_NOT_NULL_FATAL (parts[i]);
      CU_ASSERT_TRUE (inside (parts[i], big - FXS_BULK_HEADER, 16 * MIB));
      if (i % 2)
        {
          gboolean zero = TRUE;
          for (gsize k = 0; k < part_size && zero; k += 4096)
            zero = parts[i][k] == 0 && parts[i][part_size - 1] == 0;
          CU_ASSERT_TRUE (zero);
        }
      memset (parts[i], (int) i + 1, part_size);
    }
  for (guint i = 0; i < N; i++)
    for (guint j = 0; j < N; j++)
      if (i != j)
        CU_ASSERT_FALSE (inside (parts[i], parts[j] - FXS_BULK_HEADER, 2 * MIB));
  for (guint i = 0; i < N; i++)
    CU_ASSERT_EQUAL (parts[i][part_size - 1], (char) (i + 1));

  /* what is left (4 MiB) serves one more, then a bigger one is new */
  char *last = fxs_bulk_alloc (4 * MIB - FXS_BULK_HEADER);
  CU_ASSERT_TRUE (inside (last, big - FXS_BULK_HEADER, 16 * MIB));
  char *other = fxs_bulk_alloc (8 * MIB - FXS_BULK_HEADER);
  CU_ASSERT_FALSE (inside (other, big - FXS_BULK_HEADER, 16 * MIB));
  fxs_bulk_free (last);
  fxs_bulk_free (other);
  for (guint i = 0; i < N; i++)
    fxs_bulk_free (parts[i]);
}

static void
test_bulk_small_blocks (void)
{
  /* below 256 KiB: malloc'd, zeroed when asked */
  char *p = fxs_bulk_alloc (1000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_EQUAL (p[0], 0);
  CU_ASSERT_EQUAL (p[999], 0);
  fxs_bulk_free (p);
  fxs_bulk_free (NULL);
}

/* Waits up to 10 s for the pool to hold @bytes: what it holds then. */
static gsize
wait_for_pool (gsize bytes)
{
  gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (fxs_bulk_pool_bytes () < bytes && g_get_monotonic_time () < until)
    g_usleep (1000);
  return fxs_bulk_pool_bytes ();
}

static void
test_bulk_prefault_fills_the_pool (void)
{
  /* 8 MiB in huge pages, touched on another thread, wait in the pool
   * (one piece) */
  gsize before = fxs_bulk_pool_bytes ();
  CU_ASSERT_TRUE_FATAL (before < 56 * MIB);
  FxsBulkPrefault *prefault = fxs_bulk_prefault_start (8 * MIB);
  CU_ASSERT_EQUAL (wait_for_pool (before + 8 * MIB), before + 8 * MIB);
  fxs_bulk_prefault_stop (prefault);
  CU_ASSERT_EQUAL (fxs_bulk_pool_bytes (), before + 8 * MIB);
  /* the next blocks of 2 MiB are cut from it, zeroed when asked */
  char *blocks[4];
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      blocks[i] = fxs_bulk_alloc (2 * MIB - FXS_BULK_HEADER);
      gboolean zero = TRUE;
      for (gsize k = 0; k < 2 * MIB - FXS_BULK_HEADER && zero; k += 4096)
        zero = blocks[i][k] == 0;
      CU_ASSERT_TRUE (zero);
    }
  CU_ASSERT_EQUAL (fxs_bulk_pool_bytes (), before);
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    fxs_bulk_free (blocks[i]);
  fxs_bulk_prefault_stop (NULL);
}

static void
test_bulk_prefault_keeps_ahead_and_stops (void)
{
  /* with 1 GiB to do it keeps 64 MiB waiting, refills what is taken, and
   * stops when told */
  CU_ASSERT_TRUE_FATAL (fxs_bulk_pool_bytes () < 64 * MIB);
  FxsBulkPrefault *prefault = fxs_bulk_prefault_start (1024 * MIB);
  CU_ASSERT_TRUE (wait_for_pool (64 * MIB) >= 64 * MIB);
  /* one more 8 MiB piece may have been on its way */
  g_usleep (20000);
  gsize held = fxs_bulk_pool_bytes ();
  CU_ASSERT_TRUE (held < 72 * MIB);
  char *taken[8];
  for (guint i = 0; i < G_N_ELEMENTS (taken); i++)
    taken[i] = fxs_bulk_alloc_uninit (2 * MIB - FXS_BULK_HEADER);
  CU_ASSERT_TRUE (wait_for_pool (held) >= held);
  gint64 start = g_get_monotonic_time ();
  fxs_bulk_prefault_stop (prefault);
  CU_ASSERT_TRUE (g_get_monotonic_time () - start < G_USEC_PER_SEC);
  CU_ASSERT_TRUE (fxs_bulk_pool_bytes () < 72 * MIB);
  for (guint i = 0; i < G_N_ELEMENTS (taken); i++)
    fxs_bulk_free (taken[i]);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_bulk_cuts_a_freed_block),
    FXS_TEST (test_bulk_small_blocks),
    FXS_TEST (test_bulk_prefault_fills_the_pool),
    FXS_TEST (test_bulk_prefault_keeps_ahead_and_stops),
    { NULL, NULL },
  };
  fxs_test_add_suite ("bulk memory", cases);
}

FXS_TEST_MAIN (register_tests)
