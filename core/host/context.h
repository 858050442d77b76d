/* Plugin instances: the context every hook receives, and the staging of
 * the files outputs write.  Used by core/pipeline/, which makes the
 * instances and runs them; nothing here calls back into the pipeline. */
#ifndef FXS_HOST_CONTEXT_H
#define FXS_HOST_CONTEXT_H

#include <stdio.h>
#include <fxsplit/pipeline.h>

#include "options.h"
#include "plugin-private.h"

/* Files staged by the outputs of one run; they appear all together on
 * commit or not at all. */
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
  char *who;                  /* "plugin 'NAME' (PATH)", for fxs_pipeline_running_hook */
};

/* A plugin instance.  @prefix is the start of every message about the
 * instance; @options (taken) its values; output paths are relative to
 * @base_dir; fxs_plugin_log() sends its lines to @log with @log_data, which
 * must outlive the instance.  The instance knows nothing of the pipeline
 * that made it. */
FxsPluginContext *fxs_plugin_context_new (const char *label, const char *prefix,
                                          const FxsPlugin *plugin, FxsOptions *options,
                                          const char *base_dir, FxsLogFunc log,
                                          gpointer log_data);
/* Runs the plugin's init.  Errors carry the instance's prefix. */
gboolean fxs_plugin_context_init (FxsPluginContext *ctx, GError **error);
/* Runs fini when init succeeded, and frees @ctx. */
void     fxs_plugin_context_free (FxsPluginContext *ctx);
/* Rewrites a hook's error as one line that names the instance, keeping the
 * code when it is in FXS_ERROR (else @code).  A hook that failed without
 * an error gets a generic message.  Consumes @hook_error. */
void     fxs_plugin_context_propagate (const FxsPluginContext *ctx, GError *hook_error,
                                       const char *hook, FxsErrorCode code, GError **error);

/* Asks the partitioner of @ctx for the label of its partition @id: sets
 * *@label to a copy, or to NULL (no label hook, or none for @id).  A label
 * that is empty, not UTF-8, holds a control character or is longer than
 * FXS_PARTITION_LABEL_MAX bytes is FXS_ERROR_PLUGIN_FAILED, one line
 * naming the instance, the partition and what is wrong. */
gboolean fxs_plugin_context_partition_label (const FxsPluginContext *ctx, gint64 id,
                                             char **label, GError **error);

/* The hook running (context.c), what fxs_pipeline_running_hook()
 * reports; volatile, as a signal handler reads it.  Process-wide rather
 * than per thread: hooks run on the thread that runs the pipeline, and a
 * thread-local in a shared library costs a call per access. */
G_GNUC_INTERNAL extern const char *volatile fxs_running_who;
G_GNUC_INTERNAL extern const char *volatile fxs_running_hook;
G_GNUC_INTERNAL extern const FxsNode *volatile fxs_running_node;

/* Around every call of a hook of @ctx (@node: split_callback's node, or
 * NULL); inline, as it runs for each node. */
static inline void
fxs_plugin_context_enter (const FxsPluginContext *ctx, const char *hook, const FxsNode *node)
{
  fxs_running_node = node;
  fxs_running_hook = hook;
  fxs_running_who = ctx->who;
}

static inline void
fxs_plugin_context_leave (void)
{
  fxs_running_who = NULL;
}

/* Staging (staging.c): the files fxs_output_open_file() opens while an
 * output's write hook runs (ctx->staging), made to appear by the run. */
FxsStaging *fxs_staging_new (void);
/* Opens @path (absolute) for @ctx.  Errors: FXS_ERROR_IO, FXS_ERROR_CONFIG
 * when @path was already opened in this staging. */
FILE       *fxs_staging_open (FxsStaging *staging, const char *path, const char *owner,
                              GError **error);
/* Makes every staged file appear; when one fails, none that is still
 * staged does.  Frees @staging. */
gboolean    fxs_staging_commit (FxsStaging *staging, GError **error);
/* Removes every staged file and frees @staging.  NULL is ignored. */
void        fxs_staging_abort (FxsStaging *staging);

#endif
