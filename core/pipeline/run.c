/* Running a pipeline: prepare, load the graph, split, write. */
#include "pipeline-private.h"
#include "util/threads-private.h"

#include <glib/gstdio.h>

/* Progress is reported every this many nodes (a power of two). */
#define PROGRESS_EVERY 65536

gboolean
fxs_pipeline_prepare (FxsPipeline *pipeline, GError **error)
{
  g_return_val_if_fail (pipeline != NULL, FALSE);
  if (pipeline->prepared)
    return TRUE;
  if (!fxs_pipeline_check (pipeline, error))
    return FALSE;
  if (!fxs_plugin_context_init (pipeline->partitioner, error))
    return FALSE;
  for (guint i = 0; i < pipeline->outputs->len; i++)
    if (!fxs_plugin_context_init (pipeline->outputs->pdata[i], error))
      return FALSE;
  pipeline->prepared = TRUE;
  return TRUE;
}

gboolean
fxs_pipeline_load_graph (FxsPipeline *pipeline, GError **error)
{
  g_return_val_if_fail (pipeline != NULL, FALSE);
  if (pipeline->graph)
    return TRUE;
  g_return_val_if_fail (pipeline->prepared, FALSE);
  fxs_pipeline_progress (pipeline, "loading", 0, 0);
  pipeline->graph = fxs_graph_load_file (pipeline->input, error);
  return pipeline->graph != NULL;
}

typedef struct {
  FxsPipeline *pipeline;
  FxsPluginContext *ctx;
  guint64 done;
  guint64 total;
} CallbackRun;

/* Calls the plugin's split_callback with its state, naming the plugin in
 * its errors (the engine adds the node's name). */
static gboolean
call_partitioner (const FxsNode *node, gpointer data, gint64 *partition, GError **error)
{
  CallbackRun *run = data;
  GError *local = NULL;
  fxs_plugin_context_enter (run->ctx, "split_callback", node);
  gboolean ok = run->ctx->plugin->callback (node, run->ctx->state, partition, &local);
  fxs_plugin_context_leave ();
  if (!ok)
    {
      char *line = local ? fxs_plugin_error_text (local) : g_strdup ("failed without saying why");
      g_set_error (error, FXS_ERROR, FXS_ERROR_CALLBACK, "partitioner '%s': %s",
                   fxs_plugin_name (run->ctx->plugin), line);
      g_free (line);
    }
  else if (*partition == FXS_PARTITION_ID_UNSET)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CALLBACK,
                   "partitioner '%s': split_callback returned TRUE without storing a partition "
                   "id (or stored %" G_GINT64_FORMAT ", the value reserved to tell)",
                   fxs_plugin_name (run->ctx->plugin), (gint64) FXS_PARTITION_ID_UNSET);
      ok = FALSE;
    }
  g_clear_error (&local);
  if ((++run->done & (PROGRESS_EVERY - 1)) == 0)
    fxs_pipeline_progress (run->pipeline, "splitting", run->done, run->total);
  return ok;
}

static gboolean
split_graph (FxsPipeline *pipeline, GError **error)
{
  g_clear_pointer (&pipeline->result, fxs_split_result_free);
  pipeline->written = FALSE;
  FxsPluginContext *ctx = pipeline->partitioner;
  fxs_pipeline_progress (pipeline, "splitting", 0, 0);
  if (ctx->plugin->prepare)
    {
      GError *local = NULL;
      fxs_plugin_context_enter (ctx, "prepare", NULL);
      gboolean ok = ctx->plugin->prepare (ctx, ctx->state, pipeline->graph, &local);
      fxs_plugin_context_leave ();
      if (!ok)
        {
          fxs_plugin_context_propagate (ctx, local, "prepare", FXS_ERROR_PLUGIN_FAILED, error);
          return FALSE;
        }
      g_clear_error (&local);
    }
  CallbackRun run = { pipeline, ctx, 0, 0 };
  if (pipeline->progress) /* the total is only for a progress display */
    run.total = fxs_graph_count_op (pipeline->graph, FXS_OP_CALL_FUNCTION)
                + fxs_graph_count_op (pipeline->graph, FXS_OP_CALL_METHOD)
                + fxs_graph_count_op (pipeline->graph, FXS_OP_CALL_MODULE);
  pipeline->result = fxs_split (pipeline->graph, call_partitioner, &run,
                                pipeline->split_options, error);
  return pipeline->result != NULL;
}

gboolean
fxs_pipeline_split (FxsPipeline *pipeline, GError **error)
{
  g_return_val_if_fail (pipeline != NULL && pipeline->prepared && pipeline->graph, FALSE);
  return split_graph (pipeline, error);
}

gboolean
fxs_pipeline_write (FxsPipeline *pipeline, GError **error)
{
  g_return_val_if_fail (pipeline != NULL && pipeline->result, FALSE);
  pipeline->written = FALSE;
  FxsStaging *staging = fxs_staging_new ();
  for (guint i = 0; i < pipeline->outputs->len; i++)
    {
      FxsPluginContext *ctx = pipeline->outputs->pdata[i];
      fxs_pipeline_progress (pipeline, "writing", i, pipeline->outputs->len);
      g_ptr_array_set_size (ctx->files, 0);
      ctx->staging = staging;
      GError *local = NULL;
      fxs_plugin_context_enter (ctx, "write", NULL);
      gboolean ok = ctx->plugin->write (ctx, ctx->state, pipeline->result, &local);
      fxs_plugin_context_leave ();
      ctx->staging = NULL;
      if (!ok)
        {
          fxs_plugin_context_propagate (ctx, local, "write", FXS_ERROR_PLUGIN_FAILED, error);
          fxs_staging_abort (staging);
          return FALSE;
        }
      g_clear_error (&local);
    }
  if (!fxs_staging_commit (staging, error))
    return FALSE;
  pipeline->written = TRUE;
  return TRUE;
}

gboolean
fxs_pipeline_run (FxsPipeline *pipeline, GError **error)
{
  return fxs_pipeline_prepare (pipeline, error) && fxs_pipeline_load_graph (pipeline, error)
         && fxs_pipeline_split (pipeline, error) && fxs_pipeline_write (pipeline, error);
}
