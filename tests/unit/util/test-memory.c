/* Unit test of the process-wide memory tuning (core/util/memory.c): after it, a
 * big malloc block comes from the heap, in memory advised for 2 MiB pages,
 * and bulk blocks under 2 MiB are packed there instead of a huge page
 * each; the heap's start, below its first huge page boundary, stays
 * unused. */
#include <fxsplit/fxsplit.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/bulk.h"
#include "../test-util.h"

/* The VmFlags line and name of the mapping holding @p, from /proc/self/smaps. */
static gboolean
find_mapping (const void *p, char **flags, char **name)
{
  char *smaps;
  if (!g_file_get_contents ("/proc/self/smaps", &smaps, NULL, NULL))
    return FALSE;
  gboolean in = FALSE, found = FALSE;
  char **lines = g_strsplit (smaps, "\n", -1);
  for (char **l = lines; *l && !(found && *flags); l++)
    {
      unsigned long start, end;
      char path[256] = "";
      if (sscanf (*l, "%lx-%lx %*s %*s %*s %*s %255s", &start, &end, path) >= 2
          && strchr (*l, '-') < strchr (*l, ' '))
        {
          if (found)
            break;
          in = (uintptr_t) p >= start && (uintptr_t) p < end;
          if (in)
            {
              found = TRUE;
              *name = g_strdup (path);
            }
        }
      else if (in && g_str_has_prefix (*l, "VmFlags:"))
        *flags = g_strdup (*l);
    }
  g_strfreev (lines);
  g_free (smaps);
  return found && *flags;
}

/* Whether @p is in the heap, in memory advised for huge pages. */
static gboolean
in_huge_heap (const void *p)
{
  char *flags = NULL, *name = NULL;
  gboolean yes = find_mapping (p, &flags, &name) && strcmp (name, "[heap]") == 0
                 && strstr (flags, " hg") != NULL;
  g_free (flags);
  g_free (name);
  return yes;
}

static gpointer
alloc_on_thread (gpointer size)
{
  return fxs_bulk_alloc (GPOINTER_TO_SIZE (size));
}

static void
test_tuned_heap (void)
{
  /* valgrind and ASan bring their own malloc, which the tuning leaves */
  gboolean own_malloc = g_strrstr (g_getenv ("LD_PRELOAD") ? g_getenv ("LD_PRELOAD") : "",
                                   "vgpreload") != NULL;
#if defined(__SANITIZE_ADDRESS__)
  own_malloc = TRUE;
#endif
  /* before: a 400 KB bulk block is a mapping of its own */
  char *before = fxs_bulk_alloc (400000);
  CU_ASSERT_FALSE (in_huge_heap (before));
  gboolean tuned = fxs_memory_tune_for_big_graphs ();
  CU_ASSERT_EQUAL (tuned, !own_malloc);
  if (!tuned)
    {
      fxs_bulk_free (before);
      return;
    }
  /* the first blocks after it are in memory advised for huge pages, all of
   * them: the heap below its first huge page boundary (4 KiB pages only) is
   * kept out of use */
  char *first = g_malloc (1u << 20);
  CU_ASSERT_TRUE (in_huge_heap (first));
  CU_ASSERT_TRUE (in_huge_heap (first + (1u << 20) - 1));
  g_free (first);
  /* a table of one entry per node of a 10^5-node graph, say: without the
   * tuning a mapping of its own, in 4 KiB pages */
  gsize size = 4u << 20;
  char *block = g_malloc0 (size);
  const char *inside = (const char *) (((uintptr_t) block + (2u << 20)) & ~(uintptr_t) ((2u << 20) - 1));
  CU_ASSERT_TRUE (in_huge_heap (inside));
  /* bulk blocks under 2 MiB: packed in the heap, zeroed when asked; the
   * block from before is still freed as a mapping */
  char *a = fxs_bulk_alloc (400000), *b = fxs_bulk_alloc_uninit (800000);
  CU_ASSERT_TRUE (in_huge_heap (a));
  CU_ASSERT_TRUE (in_huge_heap (b));
  CU_ASSERT_TRUE (a[0] == 0 && a[399999] == 0);
  memset (b, 1, 800000);
  /* on another thread too (the split's workers): glibc gives each thread an
   * arena of its own, a mapping in 4 KiB pages, unless told otherwise */
  GThread *t = g_thread_new ("bulk", alloc_on_thread, GSIZE_TO_POINTER (600000));
  char *c = g_thread_join (t);
  CU_ASSERT_TRUE (in_huge_heap (c));
  fxs_bulk_free (c);
  fxs_bulk_free (before);
  fxs_bulk_free (a);
  fxs_bulk_free (b);
  /* from 2 MiB on: mapped, in whole huge pages */
  char *big = fxs_bulk_alloc (3u << 20);
  CU_ASSERT_FALSE (in_huge_heap (big));
  fxs_bulk_free (big);
  g_free (block);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_tuned_heap),
    { NULL, NULL },
  };
  fxs_test_add_suite ("memory tuning", cases);
}

FXS_TEST_MAIN (register_tests)
