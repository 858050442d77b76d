/* Unit tests of bulk memory (core/bulk.c): freed mappings are kept and
 * given again, a big one cut into the smaller blocks asked for later, which
 * never overlap and come zeroed from fxs_bulk_alloc(). */
#include <glib.h>
#include <string.h>

#include "bulk.h"
#include "test-util.h"

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

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_bulk_cuts_a_freed_block),
    FXS_TEST (test_bulk_small_blocks),
    { NULL, NULL },
  };
  fxs_test_add_suite ("bulk memory", cases);
}

FXS_TEST_MAIN (register_tests)
