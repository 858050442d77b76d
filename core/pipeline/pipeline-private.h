/* Internal layout of pipelines, shared by core/pipeline/'s files. */
#ifndef FXS_PIPELINE_PRIVATE_H
#define FXS_PIPELINE_PRIVATE_H

#include <fxsplit/io.h>

#include "host/host-private.h"

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
  GHashTable *by_key;   /* key -> FxsPipelineSetting* (borrowed) */
} FxsPipelineGroup;

struct FxsPipeline {
  FxsPluginRegistry *registry;
  char *file;                  /* the pipeline file, or NULL */
  char *base_dir;              /* absolute */
  GPtrArray *groups;           /* FxsPipelineGroup*, in order */
  GHashTable *group_by_name;   /* name -> FxsPipelineGroup* (borrowed): no linear searches */

  /* Set by prepare. */
  gboolean prepared;
  char *input;                 /* absolute path of the graph file */
  FxsSplitOptions *split_options;
  GPtrArray *partitioners;     /* FxsPluginContext*: the chain, in pipeline order */
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

/* Warns about built-in outputs whose path has another format's extension. */
void fxs_pipeline_warn_output_extensions (FxsPipeline *pipeline);
/* "ORIGIN: [GROUP] ", each part left out when NULL: how messages about a
 * setting or group start.  Free with g_free(). */
char *fxs_pipeline_where (const char *origin, const char *group);
/* Sets @error to @code, fxs_pipeline_where() and the message; FALSE. */
gboolean fxs_pipeline_fail (GError **error, FxsErrorCode code, const char *origin,
                            const char *group, const char *format, ...) G_GNUC_PRINTF (5, 6);
/* To the pipeline's log function (an FxsLogFunc of @pipeline: the plugin
 * instances' log sink, so that a log function set later still receives
 * their lines) and to its progress function. */
void fxs_pipeline_log (FxsLogLevel level, const char *line, gpointer pipeline);
void fxs_pipeline_progress (const FxsPipeline *pipeline, const char *step, guint64 done,
                            guint64 total);

/* Reads every group into the prepared state (check.c). */
gboolean fxs_pipeline_check (FxsPipeline *pipeline, GError **error);

#endif
