/* The one place that opens module files: plain dlopen() of the exact,
 * absolute file the registry resolved, so that the file whose descriptor
 * is checked is the one that runs (libltdl's extension search tried
 * NAME.la and NAME.so first).  RTLD_NOW: a plugin built against a newer
 * libfxsplit fails here with the dynamic linker's message, not mid-run.
 * Its ELF constructors run: plugins are trusted code (docs/cli.md). */
#include "host-private.h"

#include <dlfcn.h>
#include <string.h>

void *
fxs_module_open (const char *path, GError **error)
{
  /* dlopen() would search LD_LIBRARY_PATH and the system for a name
   * without '/'; the registry always resolves to absolute paths. */
  g_return_val_if_fail (path != NULL && g_path_is_absolute (path), NULL);
  FxsErrorCode code = FXS_ERROR_PLUGIN_NOT_FOUND;
  const char *reason = "no such file";
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      /* not a FIFO or a device, which dlopen() would block on or read; a
       * file that is not ELF is told by dlopen() (below) */
      code = FXS_ERROR_PLUGIN_INVALID;
      reason = g_file_test (path, G_FILE_TEST_IS_DIR)        ? "is a directory"
               : !g_file_test (path, G_FILE_TEST_IS_REGULAR) ? "not a regular file"
                                                             : NULL;
    }
  if (reason)
    {
      g_set_error (error, FXS_ERROR, code, "%s: cannot load: %s", path, reason);
      return NULL;
    }
  dlerror ();
  /* local: plugins do not see each other's symbols. */
  void *handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    {
      const char *why = dlerror ();
      why = why ? why : "unknown reason";
      /* without the leading "PATH: " it often adds */
      gsize len = strlen (path);
      if (strncmp (why, path, len) == 0 && strncmp (why + len, ": ", 2) == 0)
        why += len + 2;
      gboolean not_so = strstr (why, "invalid ELF header") || strstr (why, "file too short")
                        || strstr (why, "only ET_DYN and ET_EXEC");
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID, "%s: cannot load: %s%s%s", path,
                   not_so ? "not a shared object (" : "", why, not_so ? ")" : "");
    }
  return handle;
}
