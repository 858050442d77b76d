/* libltdl behind four functions.
 *
 * libltdl's own error text is usually just "file not found", whatever the
 * real cause.  So before handing a file to libltdl we open it once with
 * dlopen(RTLD_NOW): its error names the missing library or symbol, and a
 * successful RTLD_NOW open also binds every symbol up front, so that a
 * plugin built against a newer libfxsplit fails here with a clear message
 * instead of aborting the process in the middle of a run (libltdl opens
 * lazily). */
#include "plugin-module.h"

#include <fxsplit/error.h>

#include <dlfcn.h>
#include <errno.h>
#include <ltdl.h>
#include <stdio.h>
#include <string.h>

struct FxsModule {
  lt_dlhandle handle;
};

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

/* Opens @path with dlopen(RTLD_NOW) and returns that handle, or NULL with
 * the precise reason in @error. */
static void *
probe_with_dlopen (const char *path, GError **error)
{
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_NOT_FOUND,
                   "%s: cannot load: no such file", path);
      return NULL;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID,
                   "%s: cannot load: is a directory", path);
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
  void *probe = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!probe)
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
  return probe;
}

FxsModule *
fxs_module_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  if (lt_dlinit () != 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID,
                   "%s: cannot load: libltdl failed to start: %s", path, lt_dlerror ());
      return NULL;
    }
  void *probe = probe_with_dlopen (path, error);
  if (!probe)
    {
      lt_dlexit ();
      return NULL;
    }

  lt_dladvise advise;
  lt_dlhandle handle = NULL;
  if (lt_dladvise_init (&advise) == 0)
    {
      /* local: plugins do not see each other's symbols; ext: a path given
       * without ".so" works as with lt_dlopenext(). */
      lt_dladvise_local (&advise);
      lt_dladvise_ext (&advise);
      handle = lt_dlopenadvise (path, advise);
      lt_dladvise_destroy (&advise);
    }
  /* libltdl reopened the same, already bound object; the probe's reference
   * only had to keep it loaded until then. */
  dlclose (probe);
  if (!handle)
    {
      const char *why = lt_dlerror ();
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID, "%s: cannot load: %s", path,
                   why ? why : "libltdl refused it");
      lt_dlexit ();
      return NULL;
    }
  FxsModule *module = g_new0 (FxsModule, 1);
  module->handle = handle;
  return module;
}

gpointer
fxs_module_symbol (FxsModule *module, const char *name)
{
  g_return_val_if_fail (module != NULL && name != NULL, NULL);
  return lt_dlsym (module->handle, name);
}

void
fxs_module_close (FxsModule *module)
{
  if (module == NULL)
    return;
  lt_dlclose (module->handle);
  lt_dlexit ();
  g_free (module);
}
