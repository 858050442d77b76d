/* The one place that opens module files (dlopen): open one exact file,
 * look up a symbol, close it, and say precisely why a file would not open. */
#ifndef FXS_PLUGIN_MODULE_H
#define FXS_PLUGIN_MODULE_H

#include <glib.h>

typedef struct FxsModule FxsModule;

/* Opens the module file @path (absolute; exactly that file, no extension
 * or directory search) with every symbol resolved now.  Its ELF
 * constructors run now.  On failure
 * sets FXS_ERROR_PLUGIN_INVALID with "PATH: cannot load: REASON", REASON
 * being the dynamic linker's (an unresolved dependency, an undefined
 * symbol) or "not a shared object".  Close with fxs_module_close(). */
FxsModule *fxs_module_open (const char *path, GError **error);

/* The address of symbol @name, or NULL when the module does not export it. */
gpointer fxs_module_symbol (FxsModule *module, const char *name);

/* Unloads the module.  NULL is ignored. */
void fxs_module_close (FxsModule *module);

#endif
