/* Internal view of a loaded plugin, shared by the registry, the pipeline
 * and the plugin context. */
#ifndef FXS_PLUGIN_PRIVATE_H
#define FXS_PLUGIN_PRIVATE_H

#include <fxsplit/pipeline.h>
#include <fxsplit/partitioner.h>
#include <fxsplit/output.h>


struct FxsPlugin {
  char *path;                 /* the module file */
  char *who;                  /* "plugin 'NAME' (PATH)" escaped, for a crash handler */
  void *module;               /* its dlopen() handle */
  const FxsPluginInfo *info;  /* inside the module */
  guint n_options;
  /* Hooks beyond the common header, read only as far as the descriptor's
   * recorded size reaches. */
  FxsPartitionerPrepareFunc prepare;
  FxsPartitionerLabelFunc label;  /* ABI 1.1; NULL for 1.0 plugins */
  FxsSplitCallback callback;  /* the module's split_callback */
  FxsOutputWriteFunc write;
  /* Set when it was found by module name and hides a module of the same
   * name later on the search path. */
  char *shadowed;             /* that module's file */
  FxsPluginDirSource source, shadowed_source;
};

/* dlopen()s exactly the file @path (absolute), every symbol resolved now
 * (module.c).  Errors: "PATH: cannot load: REASON", FXS_ERROR_PLUGIN_INVALID
 * or _NOT_FOUND.  Close with dlclose(). */
void      *fxs_module_open (const char *path, GError **error);

/* Opens @path and checks its descriptor: ABI, kind, hooks, option table.
 * Errors name @path: FXS_ERROR_PLUGIN_INVALID, _ABI. */
FxsPlugin *fxs_plugin_open (const char *path, GError **error);
void       fxs_plugin_close (FxsPlugin *plugin);

/* A plugin's error message as it may be shown: escaped and cut
 * (fxs_text_escape, FXS_TEXT_MESSAGE_MAX); a missing error or message is
 * "(plugin gave no message)".  Free with g_free(). */
char      *fxs_plugin_error_text (const GError *plugin_error);

#endif
