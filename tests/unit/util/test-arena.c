/* The graphs' bump allocator (util/arena.c). */
#include <string.h>

#include "util/arena.h"
#include "../test-util.h"

/* A large object as the first allocation gets a block of its own and is
 * still freed with the arena (its block's link was left unset: clearing
 * walked an uninitialised pointer, which valgrind reports). */
static void
test_arena_big_first (void)
{
  FxsArena a;
  fxs_arena_init (&a);
  char *big = fxs_arena_alloc (&a, 100000);
  CU_ASSERT_PTR_NOT_NULL_FATAL (big);
  CU_ASSERT_EQUAL (big[0], 0);
  CU_ASSERT_EQUAL (big[99999], 0);
  memset (big, 'x', 100000);
  char *small = fxs_arena_alloc (&a, 16);
  CU_ASSERT_PTR_NOT_NULL (small);
  CU_ASSERT (small < big || small >= big + 100000);
  char *big2 = fxs_arena_alloc (&a, 50000);
  CU_ASSERT (big2 + 50000 <= big || big2 >= big + 100000);
  CU_ASSERT_EQUAL (big[99999], 'x');
  fxs_arena_clear (&a);
  CU_ASSERT_PTR_NULL (a.blocks);
  CU_ASSERT_EQUAL (a.total, 0);
}

/* Objects are 8-byte aligned and zeroed, strings are copied with their
 * NUL, and neither overlaps another. */
static void
test_arena_objects_and_strings (void)
{
  FxsArena a;
  fxs_arena_init (&a);
  GPtrArray *objs = g_ptr_array_new ();
  gboolean ok = TRUE;
  for (guint i = 1; i <= 5000; i++)
    {
      guint64 *o = fxs_arena_alloc (&a, (i % 40) + 8);
      ok = ok && ((guintptr) o % 8) == 0 && o[0] == 0;
      o[0] = i;
      g_ptr_array_add (objs, o);
      char *s = fxs_arena_strndup (&a, "abcdefghij", i % 11);
      ok = ok && strlen (s) == i % 11 && strncmp (s, "abcdefghij", i % 11) == 0;
    }
  for (guint i = 1; i <= 5000; i++)
    ok = ok && *(guint64 *) objs->pdata[i - 1] == i;
  CU_ASSERT (ok);
  g_ptr_array_unref (objs);
  fxs_arena_clear (&a);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_arena_big_first),
    FXS_TEST (test_arena_objects_and_strings),
    { NULL, NULL },
  };
  fxs_test_add_suite ("arena", cases);
}

FXS_TEST_MAIN (register_tests)
