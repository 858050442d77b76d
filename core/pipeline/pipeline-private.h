/* Internal layout of pipelines and plugin instances, shared by the
 * pipeline's modules (file reading, checking, running, staging). */
#ifndef FXS_PIPELINE_PRIVATE_H
#define FXS_PIPELINE_PRIVATE_H

#include <stdio.h>
#include <fxsplit/pipeline.h>
#include <fxsplit/io.h>

#include "host/options.h"
#include "host/plugin-private.h"

/* One key = value, with where it came from. */
typedef struct {
  char *key;
  char *value;
  char *origin;    /* "FILE:LINE", "--set g.k", or NULL */
  char *base_dir;  /* relative paths in value are relative to it */
} FxsPipelineSetting;

/* One [group] and its settings, in the order first set. */
typedef struct {
  char *name;           /* "graph", "output main" */
  char *origin;         /* where the group starts ("FILE:LINE"), or NULL */
  GPtrArray *settings;  /* FxsPipelineSetting* */
} FxsPipelineGroup;

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
  FxsPipeline *pipeline;
  FxsStaging *staging;        /* set only while write runs */
  GPtrArray *files;           /* char*: the files it wrote in the last run */
  char *who;                  /* "plugin 'NAME' (PATH)", for fxs_pipeline_running_hook */
};

struct FxsPipeline {
  FxsPluginRegistry *registry;
  char *file;                  /* the pipeline file, or NULL */
  char *base_dir;              /* absolute */
  GPtrArray *groups;           /* FxsPipelineGroup*, in order */

  /* Set by prepare. */
  gboolean prepared;
  char *input;                 /* absolute path of the graph file */
  FxsSplitOptions *split_options;
  FxsPluginContext *partitioner;
  GPtrArray *outputs;          /* FxsPluginContext*, in pipeline order */

  FxsGraph *graph;
  FxsSplitResult *result;
  gboolean written;

  FxsProgressFunc progress;
  gpointer progress_data;
  FxsLogFunc log;
  gpointer log_data;
};

/* Finds or appends the group @name (@origin used only when it is new). */
FxsPipelineGroup *fxs_pipeline_group (FxsPipeline *pipeline, const char *name,
                                      const char *origin);
/* Sets @key in @group, replacing an earlier value. */
void fxs_pipeline_group_set (FxsPipelineGroup *group, const char *key, const char *value,
                             const char *origin, const char *base_dir);
/* The setting of @key in @group, or NULL. */
const FxsPipelineSetting *fxs_pipeline_group_lookup (const FxsPipelineGroup *group,
                                                     const char *key);

/* Warns (one log line each) about built-in outputs whose path has another
 * format's extension (pipeline-extension.c). */
void fxs_pipeline_warn_output_extensions (FxsPipeline *pipeline);
/* Sends one log line to the pipeline's log function. */
void fxs_pipeline_log (const FxsPipeline *pipeline, FxsLogLevel level, const char *line);
void fxs_pipeline_progress (const FxsPipeline *pipeline, const char *step, guint64 done,
                            guint64 total);

/* Plugin instances (plugin-context.c).  @prefix is the start of every
 * message about the instance. */
FxsPluginContext *fxs_plugin_context_new (FxsPipeline *pipeline, const char *label,
                                          const char *prefix, const FxsPlugin *plugin,
                                          FxsOptions *options);
/* Runs the plugin's init.  Errors carry the instance's prefix. */
gboolean fxs_plugin_context_init (FxsPluginContext *ctx, GError **error);
/* Runs fini when init succeeded, and frees @ctx. */
void     fxs_plugin_context_free (FxsPluginContext *ctx);
/* Rewrites a hook's error as one line that names the instance, keeping the
 * code when it is in FXS_ERROR (else @code).  A hook that failed without
 * an error gets a generic message.  Consumes @hook_error. */
void     fxs_plugin_context_propagate (const FxsPluginContext *ctx, GError *hook_error,
                                       const char *hook, FxsErrorCode code, GError **error);

/* The hook running (plugin-context.c), what fxs_pipeline_running_hook()
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

/* Staging (pipeline-staging.c). */
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

/* Checking (pipeline-check.c): reads every group into the prepared state. */
gboolean fxs_pipeline_check (FxsPipeline *pipeline, GError **error);

#endif
