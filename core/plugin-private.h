/* Internal view of a loaded plugin, shared by the registry, the pipeline
 * and the plugin context. */
#ifndef FXS_PLUGIN_PRIVATE_H
#define FXS_PLUGIN_PRIVATE_H

#include <fxsplit/pipeline.h>
#include <fxsplit/partitioner.h>
#include <fxsplit/output.h>

#include "plugin-module.h"

struct FxsPlugin {
  char *path;                 /* the module file */
  FxsModule *module;
  const FxsPluginInfo *info;  /* inside the module */
  guint n_options;
  /* Hooks beyond the common header, read only as far as the descriptor's
   * recorded size reaches. */
  FxsPartitionerPrepareFunc prepare;
  FxsSplitCallback callback;  /* the module's split_callback */
  FxsOutputWriteFunc write;
};

/* Opens the module file @path and checks its descriptor: the ABI version,
 * the kind, the required hooks and the option table.  Errors name @path:
 * FXS_ERROR_PLUGIN_INVALID, FXS_ERROR_PLUGIN_ABI.  Free with
 * fxs_plugin_close(). */
FxsPlugin *fxs_plugin_open (const char *path, GError **error);
void       fxs_plugin_close (FxsPlugin *plugin);

#endif
