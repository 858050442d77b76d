/* Running a pipeline: prepare, load the graph, split (partition.c), write. */
#include "pipeline-private.h"

gboolean
fxs_pipeline_prepare (FxsPipeline *pipeline, GError **error)
{
  g_return_val_if_fail (pipeline != NULL, FALSE);
  if (pipeline->prepared)
    return TRUE;
  if (!fxs_pipeline_check (pipeline, error))
    return FALSE;
  /* the partitioners first, then the outputs */
  GPtrArray *const instances[] = { pipeline->partitioners, pipeline->outputs };
  for (guint k = 0; k < G_N_ELEMENTS (instances); k++)
    for (guint i = 0; i < instances[k]->len; i++)
      if (!fxs_plugin_context_init (instances[k]->pdata[i], error))
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
      ctx->staging = NULL;
      if (!fxs_plugin_context_done (ctx, ok, local, "write", error))
        {
          fxs_staging_abort (staging);
          return FALSE;
        }
    }
  pipeline->written = fxs_staging_commit (staging, error);
  return pipeline->written;
}

gboolean
fxs_pipeline_run (FxsPipeline *pipeline, GError **error)
{
  return fxs_pipeline_prepare (pipeline, error) && fxs_pipeline_load_graph (pipeline, error)
         && fxs_pipeline_split (pipeline, error) && fxs_pipeline_write (pipeline, error);
}
