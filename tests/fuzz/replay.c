/* Runs a fuzz harness's LLVMFuzzerTestOneInput on files, without libFuzzer:
 * the regression test of every seed and every crash input, in every build
 * (normal, ASan/UBSan, valgrind).
 *
 *   replay-HARNESS PATH...   (files, or directories of files)
 *
 * A failed check aborts, as under libFuzzer; the exit status is 0 when
 * every input ran, 2 when a path cannot be read. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
/* Optional in a harness. */
int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__ ((weak));

static gboolean
replay_file (const char *path)
{
  char *data;
  gsize size;
  GError *error = NULL;
  if (!g_file_get_contents (path, &data, &size, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  printf ("%s\n", path);
  fflush (stdout);
  LLVMFuzzerTestOneInput ((const uint8_t *) data, size);
  g_free (data);
  return TRUE;
}

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static gboolean
replay_path (const char *path, guint *count)
{
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      (*count)++;
      return replay_file (path);
    }
  GError *error = NULL;
  GDir *dir = g_dir_open (path, 0, &error);
  if (!dir)
    {
      fprintf (stderr, "%s\n", error->message);
      g_error_free (error);
      return FALSE;
    }
  /* sorted, so that runs are repeatable */
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  for (const char *name; (name = g_dir_read_name (dir));)
    g_ptr_array_add (names, g_build_filename (path, name, NULL));
  g_dir_close (dir);
  g_ptr_array_sort (names, compare_paths);
  gboolean ok = TRUE;
  for (guint i = 0; i < names->len && ok; i++)
    {
      const char *file = names->pdata[i];
      /* a README says what the inputs of a directory are */
      if (g_file_test (file, G_FILE_TEST_IS_REGULAR)
          && !g_str_has_prefix (strrchr (file, G_DIR_SEPARATOR) + 1, "README"))
        {
          (*count)++;
          ok = replay_file (file);
        }
    }
  g_ptr_array_unref (names);
  return ok;
}

int
main (int argc, char **argv)
{
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize (&argc, &argv);
  guint count = 0;
  for (int i = 1; i < argc; i++)
    if (!replay_path (argv[i], &count))
      return 2;
  printf ("%u inputs replayed\n", count);
  return count ? 0 : 2;
}
