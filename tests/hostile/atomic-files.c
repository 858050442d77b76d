/* Hostile destinations for atomic files (the library's writer of every
 * output, graph and split file): what already exists at a path is never
 * destroyed, a failing commit of several files restores all of them, and a
 * write error keeps its cause. */
#include <fxsplit/fxsplit.h>
#include "util/atomic-file.h"
#include <glib/gstdio.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test-util.h"

static char *dir;

static int
make_dir (void)
{
  dir = g_dir_make_tmp ("fxs-hostile-atomic-XXXXXX", NULL);
  return dir ? 0 : 1;
}

static int
remove_dir (void)
{
  char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  int rc = system (cmd);
  g_free (cmd);
  g_free (dir);
  return rc;
}

static char *
in_dir (const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static void
put (const char *path, const char *text)
{
  CU_ASSERT_TRUE_FATAL (g_file_set_contents (path, text, -1, NULL));
}

static void
assert_contents (const char *path, const char *text)
{
  char *got = NULL;
  CU_ASSERT_TRUE (g_file_get_contents (path, &got, NULL, NULL));
  CU_ASSERT_STRING_EQUAL (got ? got : "", text);
  g_free (got);
}

/* Files whose name starts with '.' in the scratch directory. */
static guint
n_hidden (void)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  for (const char *name; (name = g_dir_read_name (d));)
    n += name[0] == '.';
  g_dir_close (d);
  return n;
}

/* Opening @path fails with FXS_ERROR_IO saying @why; nothing is created. */
static void
expect_refused (const char *path, const char *why)
{
  GError *error = NULL;
  FxsAtomicFile *f = fxs_atomic_file_open (path, &error);
  CU_ASSERT_PTR_NULL (f);
  fxs_atomic_file_abort (f);
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_IO));
  if (error && !strstr (error->message, why))
    {
      fprintf (stderr, "\nexpected: %s\ngot: %s\n", why, error->message);
      CU_FAIL ("another message");
    }
  g_clear_error (&error);
  CU_ASSERT_EQUAL (n_hidden (), 0);
}

static void
test_non_regular_destinations (void)
{
  char *fifo = in_dir ("fifo"), *sym = in_dir ("link"), *target = in_dir ("target");
  char *first = in_dir ("first"), *second = in_dir ("second"), *sub = in_dir ("sub");
  CU_ASSERT_EQUAL_FATAL (mkfifo (fifo, 0644), 0);
  expect_refused (fifo, "is a FIFO, not a regular file");
  put (target, "target");
  CU_ASSERT_EQUAL_FATAL (symlink (target, sym), 0);
  expect_refused (sym, "is a symbolic link");
  assert_contents (target, "target");
  put (first, "linked");
  CU_ASSERT_EQUAL_FATAL (link (first, second), 0);
  expect_refused (second, "has 2 hard links");
  g_mkdir (sub, 0755);
  expect_refused (sub, "is a directory");
  if (geteuid () == 0)
    {
      char *dev = in_dir ("null");
      CU_ASSERT_EQUAL_FATAL (mknod (dev, S_IFCHR | 0666, makedev (1, 3)), 0);
      expect_refused (dev, "is a character device, not a regular file");
      g_unlink (dev);
      g_free (dev);
    }
  struct stat st;
  CU_ASSERT_TRUE (lstat (fifo, &st) == 0 && S_ISFIFO (st.st_mode));
  CU_ASSERT_TRUE (lstat (sym, &st) == 0 && S_ISLNK (st.st_mode));
  g_unlink (fifo), g_unlink (sym), g_unlink (target), g_unlink (first), g_unlink (second);
  g_rmdir (sub);
  g_free (fifo), g_free (sym), g_free (target), g_free (first), g_free (second), g_free (sub);
}

/* The second of two renames fails (its temporary vanished): the first
 * file gets its old contents back, the same inode. */
static void
test_commit_all_restores (void)
{
  char *a = in_dir ("a.txt"), *b = in_dir ("b.txt");
  put (a, "old a");
  put (b, "old b");
  struct stat before;
  CU_ASSERT_EQUAL (stat (a, &before), 0);
  GError *error = NULL;
  FxsAtomicFile *files[2] = { fxs_atomic_file_open (a, &error), fxs_atomic_file_open (b, &error) };
  CU_ASSERT_PTR_NOT_NULL_FATAL (files[0]);
  CU_ASSERT_PTR_NOT_NULL_FATAL (files[1]);
  fputs ("new a", fxs_atomic_file_stream (files[0]));
  fputs ("new b", fxs_atomic_file_stream (files[1]));
  /* remove b's temporary, as a temp cleaner could */
  GDir *d = g_dir_open (dir, 0, NULL);
  for (const char *name; (name = g_dir_read_name (d));)
    if (g_str_has_prefix (name, ".b.txt."))
      {
        char *tmp = in_dir (name);
        g_unlink (tmp);
        g_free (tmp);
      }
  g_dir_close (d);
  CU_ASSERT_FALSE (fxs_atomic_file_commit_all (files, 2, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_IO));
  CU_ASSERT_TRUE (error && strstr (error->message, "b.txt: cannot write: cannot move the new "
                                                   "file into place"));
  g_clear_error (&error);
  assert_contents (a, "old a");
  assert_contents (b, "old b");
  struct stat after;
  CU_ASSERT_TRUE (stat (a, &after) == 0 && after.st_ino == before.st_ino);
  CU_ASSERT_EQUAL (n_hidden (), 0);

  /* and without the sabotage both appear */
  files[0] = fxs_atomic_file_open (a, &error);
  files[1] = fxs_atomic_file_open (b, &error);
  fputs ("new a", fxs_atomic_file_stream (files[0]));
  fputs ("new b", fxs_atomic_file_stream (files[1]));
  CU_ASSERT_TRUE (fxs_atomic_file_commit_all (files, 2, &error));
  assert_contents (a, "new a");
  assert_contents (b, "new b");
  CU_ASSERT_EQUAL (n_hidden (), 0);
  g_unlink (a), g_unlink (b);
  g_free (a), g_free (b);
}

/* A write past the file size limit (SIGXFSZ ignored): "File too large",
 * not stdio's lost errno. */
static void
test_write_error_keeps_its_cause (void)
{
  char *path = in_dir ("big.txt");
  struct rlimit saved, small = { 1 << 16, 1 << 16 };
  getrlimit (RLIMIT_FSIZE, &saved);
  void (*old) (int) = signal (SIGXFSZ, SIG_IGN);
  setrlimit (RLIMIT_FSIZE, &small);
  GError *error = NULL;
  FxsAtomicFile *f = fxs_atomic_file_open (path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  char block[4096];
  memset (block, 'x', sizeof block);
  for (int i = 0; i < 64; i++)
    fwrite (block, 1, sizeof block, fxs_atomic_file_stream (f));
  CU_ASSERT_FALSE (fxs_atomic_file_commit (f, &error));
  setrlimit (RLIMIT_FSIZE, &saved);
  signal (SIGXFSZ, old);
  CU_ASSERT_TRUE (error && strstr (error->message, g_strerror (EFBIG)));
  g_clear_error (&error);
  CU_ASSERT_FALSE (g_file_test (path, G_FILE_TEST_EXISTS));
  CU_ASSERT_EQUAL (n_hidden (), 0);
  g_free (path);
}

/* A replaced file keeps its mode. */
static void
test_mode_is_kept (void)
{
  char *path = in_dir ("private.txt");
  put (path, "old");
  g_chmod (path, 0600);
  GError *error = NULL;
  FxsAtomicFile *f = fxs_atomic_file_open (path, &error);
  fputs ("new", fxs_atomic_file_stream (f));
  CU_ASSERT_TRUE (fxs_atomic_file_commit (f, &error));
  struct stat st;
  CU_ASSERT_TRUE (stat (path, &st) == 0 && (st.st_mode & 07777) == 0600);
  g_unlink (path);
  g_free (path);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_non_regular_destinations),
    FXS_TEST (test_commit_all_restores),
    FXS_TEST (test_write_error_keeps_its_cause),
    FXS_TEST (test_mode_is_kept),
    { NULL, NULL },
  };
  fxs_test_add_suite_with ("atomic-files", make_dir, remove_dir, cases);
}

FXS_TEST_MAIN (register_tests)
