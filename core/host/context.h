/* Plugin instances and the staging of the files outputs write, made and
 * run by core/pipeline/; nothing here calls back into the pipeline. */
#ifndef FXS_HOST_CONTEXT_H
#define FXS_HOST_CONTEXT_H

#include <stdio.h>
#include <fxsplit/pipeline.h>

#include "options.h"
#include "plugin-private.h"

typedef struct FxsStaging FxsStaging;

/* A configured plugin instance: the [partitioner] or one [output NAME]. */
struct FxsPluginContext {
  char *label;                /* "partitioner", "output main" */
  char *prefix;               /* "FILE:LINE: [output main] json: " for messages */
  const FxsPlugin *plugin;
  FxsOptions *options;
  gpointer state;
  gboolean initialized;       /* init succeeded: fini is due */
  char *base_dir;             /* relative output paths are relative to it */
  FxsLogFunc log;             /* the log sink: where fxs_plugin_log's lines go */
  gpointer log_data;
  FxsStaging *staging;        /* set only while write runs */
  GPtrArray *files;           /* char*: the files it wrote in the last run */
};

/* A plugin instance: @prefix starts every message about it, @options
 * (taken) are its values, output paths are relative to @base_dir, and
 * fxs_plugin_log() sends its lines to @log (@log_data must outlive it). */
FxsPluginContext *fxs_plugin_context_new (const char *label, const char *prefix,
                                          const FxsPlugin *plugin, FxsOptions *options,
                                          const char *base_dir, FxsLogFunc log,
                                          gpointer log_data);
/* Runs the plugin's init.  Errors carry the instance's prefix. */
gboolean fxs_plugin_context_init (FxsPluginContext *ctx, GError **error);
/* Runs fini when init succeeded, and frees @ctx. */
void     fxs_plugin_context_free (FxsPluginContext *ctx);
/* After the call of @hook that fxs_plugin_context_enter() began, which
 * returned @ok: when it failed, sets @error to its error as one line that
 * names the instance, keeping its code when in FXS_ERROR (else
 * FXS_ERROR_PLUGIN_FAILED).  Consumes @hook_error; returns @ok. */
gboolean fxs_plugin_context_done (const FxsPluginContext *ctx, gboolean ok, GError *hook_error,
                                  const char *hook, GError **error);

/* Sets *@label to a copy of the label hook's label of partition @id, or
 * NULL.  One that is empty, not UTF-8 text, longer than
 * FXS_PARTITION_LABEL_MAX or holds a control character is
 * FXS_ERROR_PLUGIN_FAILED. */
gboolean fxs_plugin_context_partition_label (const FxsPluginContext *ctx, gint64 id,
                                             char **label, GError **error);

/* The hook running, for fxs_pipeline_running_hook(); volatile, as a
 * signal handler reads it.  Not thread-local: hooks run on the pipeline's
 * thread, and a thread-local in a shared library costs a call per access. */
G_GNUC_INTERNAL extern const char *volatile fxs_running_who;
G_GNUC_INTERNAL extern const char *volatile fxs_running_hook;
G_GNUC_INTERNAL extern const FxsNode *volatile fxs_running_node;

/* Around every call of a hook (@node: split_callback's, or NULL). */
static inline void
fxs_plugin_context_enter (const FxsPluginContext *ctx, const char *hook, const FxsNode *node)
{
  fxs_running_node = node;
  fxs_running_hook = hook;
  fxs_running_who = ctx->plugin->who;
}

static inline void
fxs_plugin_context_leave (void)
{
  fxs_running_who = NULL;
}

/* Staging (staging.c): the files of fxs_output_open_file() in one run;
 * they appear together on commit or not at all. */
FxsStaging *fxs_staging_new (void);
/* Opens @path (absolute) for @owner, which must outlive @staging.
 * Errors: FXS_ERROR_IO, FXS_ERROR_CONFIG when @path was opened before. */
FILE       *fxs_staging_open (FxsStaging *staging, const char *path, const char *owner,
                              GError **error);
/* Makes every staged file appear; when one fails, none that is still
 * staged does.  Frees @staging. */
gboolean    fxs_staging_commit (FxsStaging *staging, GError **error);
/* Removes every staged file and frees @staging.  NULL is ignored. */
void        fxs_staging_abort (FxsStaging *staging);

#endif
