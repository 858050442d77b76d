/* Unit test of the command's malloc tuning (cli/cli-memory.c): after it,
 * a big block comes from the heap, in memory advised for 2 MiB pages. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "test-util.h"

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

static void
test_big_blocks_in_huge_pages (void)
{
  /* valgrind and ASan bring their own malloc, which ignores the tuning */
  gboolean own_malloc = g_strrstr (g_getenv ("LD_PRELOAD") ? g_getenv ("LD_PRELOAD") : "",
                                   "vgpreload") != NULL;
#if defined(__SANITIZE_ADDRESS__)
  own_malloc = TRUE;
#endif
  cli_tune_memory ();
  /* a table of one entry per node of a 10^5-node graph, say: without the
   * tuning a mapping of its own, in 4 KiB pages */
  gsize size = 4u << 20;
  char *block = g_malloc0 (size);
  const char *inside = (const char *) (((uintptr_t) block + (2u << 20)) & ~(uintptr_t) ((2u << 20) - 1));
  char *flags = NULL, *name = NULL;
  CU_ASSERT_TRUE_FATAL (find_mapping (inside, &flags, &name));
  if (!own_malloc)
    {
      CU_ASSERT_STRING_EQUAL (name, "[heap]");
      CU_ASSERT_PTR_NOT_NULL (strstr (flags, " hg"));
    }
  g_free (flags);
  g_free (name);
  g_free (block);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_big_blocks_in_huge_pages),
    { NULL, NULL },
  };
  fxs_test_add_suite ("cli memory", cases);
}

FXS_TEST_MAIN (register_tests)
