/* The one place that opens module files.
 *
 * A module is opened once, with plain dlopen() on the exact file the
 * registry resolved (an absolute path, so that the dynamic linker searches
 * nothing), and that handle is the one whose descriptor is checked and
 * whose hooks run.  libltdl is not used for this: its extension search
 * (lt_dladvise_ext) tries NAME.la and NAME.so before NAME, so the file that
 * was checked was not always the one that ran, and a .la file is a text
 * file that names yet another library to load.
 *
 * RTLD_NOW binds every symbol up front, so that a plugin built against a
 * newer libfxsplit fails here with the dynamic linker's precise message
 * instead of aborting the process in the middle of a run.  Opening a
 * module runs its ELF constructors: plugins are trusted code (docs/cli.md,
 * "Security and data safety"). */
#include "plugin-private.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Why @path is not a loadable module, when it is plainly not an ELF file. */
static const char *
not_elf_reason (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  unsigned char magic[4] = { 0 };
  size_t n = fread (magic, 1, sizeof magic, f);
  fclose (f);
  if (n < sizeof magic || memcmp (magic, "\177ELF", 4) != 0)
    return "not a shared object (no ELF header)";
  return NULL;
}

/* The dynamic linker's message without the leading "PATH: " it often adds. */
static const char *
strip_path_prefix (const char *message, const char *path)
{
  gsize len = strlen (path);
  if (strncmp (message, path, len) == 0 && strncmp (message + len, ": ", 2) == 0)
    return message + len + 2;
  return message;
}

void *
fxs_module_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  if (!g_path_is_absolute (path))
    {
      /* dlopen() would search LD_LIBRARY_PATH and the system for a name
       * without '/'; the registry always resolves to absolute paths. */
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_NOT_FOUND,
                   "%s: cannot load: not an absolute path", path);
      return NULL;
    }
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_NOT_FOUND,
                   "%s: cannot load: no such file", path);
      return NULL;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID,
                   "%s: cannot load: %s", path,
                   g_file_test (path, G_FILE_TEST_IS_DIR) ? "is a directory"
                                                          : "not a regular file");
      return NULL;
    }
  const char *reason = not_elf_reason (path);
  if (reason)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID, "%s: cannot load: %s", path,
                   reason);
      return NULL;
    }
  dlerror ();
  /* local: plugins do not see each other's symbols. */
  void *handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    {
      const char *why = dlerror ();
      why = why ? strip_path_prefix (why, path) : "unknown reason";
      if (strstr (why, "invalid ELF header") || strstr (why, "file too short")
          || strstr (why, "only ET_DYN and ET_EXEC"))
        g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID,
                     "%s: cannot load: not a shared object (%s)", path, why);
      else
        g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID, "%s: cannot load: %s",
                     path, why);
      return NULL;
    }
  return handle;
}
