/* Pipelines: their groups and settings, log and progress sinks, and what
 * a run produced. */
#include "pipeline-private.h"
#include "util/getter.h"

#include <stdarg.h>

static void
setting_free (gpointer data)
{
  FxsPipelineSetting *s = data;
  g_free (s->key);
  g_free (s->value);
  g_free (s->origin);
  g_free (s->base_dir);
  g_free (s);
}

static void
group_free (gpointer data)
{
  FxsPipelineGroup *g = data;
  g_free (g->name);
  g_free (g->origin);
  g_hash_table_unref (g->by_key);
  g_ptr_array_unref (g->settings);
  g_free (g);
}

FxsPipeline *
fxs_pipeline_new (FxsPluginRegistry *registry)
{
  g_return_val_if_fail (registry != NULL, NULL);
  FxsPipeline *p = g_new0 (FxsPipeline, 1);
  p->registry = fxs_plugin_registry_ref (registry);
  p->base_dir = g_get_current_dir ();
  p->groups = g_ptr_array_new_with_free_func (group_free);
  p->group_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  p->partitioners = g_ptr_array_new_with_free_func ((GDestroyNotify) fxs_plugin_context_free);
  p->outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) fxs_plugin_context_free);
  return p;
}

void
fxs_pipeline_free (FxsPipeline *pipeline)
{
  if (!pipeline)
    return;
  /* The result and the graph first (a plugin's fini only frees its own
   * state), then the instances (running fini), and the registry last: it
   * unloads the plugins' code. */
  fxs_split_result_free (pipeline->result);
  fxs_graph_unref (pipeline->graph);
  g_ptr_array_unref (pipeline->outputs);
  g_ptr_array_unref (pipeline->partitioners);
  fxs_split_options_free (pipeline->split_options);
  g_hash_table_unref (pipeline->group_by_name);
  g_ptr_array_unref (pipeline->groups);
  g_free (pipeline->input);
  g_free (pipeline->base_dir);
  g_free (pipeline->file);
  fxs_plugin_registry_unref (pipeline->registry);
  g_free (pipeline);
}

FxsPipelineGroup *
fxs_pipeline_group (FxsPipeline *pipeline, const char *name, const char *origin)
{
  FxsPipelineGroup *g = g_hash_table_lookup (pipeline->group_by_name, name);
  if (g)
    return g;
  g = g_new0 (FxsPipelineGroup, 1);
  g->name = g_strdup (name);
  g->origin = g_strdup (origin);
  g->settings = g_ptr_array_new_with_free_func (setting_free);
  g->by_key = g_hash_table_new (g_str_hash, g_str_equal);
  g_ptr_array_add (pipeline->groups, g);
  g_hash_table_insert (pipeline->group_by_name, g->name, g);
  return g;
}

void
fxs_pipeline_group_set (FxsPipelineGroup *group, const char *key, const char *value,
                        const char *origin, const char *base_dir)
{
  FxsPipelineSetting *s = g_hash_table_lookup (group->by_key, key);
  if (!s)
    {
      s = g_new0 (FxsPipelineSetting, 1);
      s->key = g_strdup (key);
      g_ptr_array_add (group->settings, s);
      g_hash_table_insert (group->by_key, s->key, s);
    }
  g_free (s->value);
  g_free (s->origin);
  g_free (s->base_dir);
  s->value = g_strdup (value);
  s->origin = g_strdup (origin);
  s->base_dir = g_strdup (base_dir);
}

void
fxs_pipeline_set (FxsPipeline *pipeline, const char *group, const char *key, const char *value,
                  const char *origin)
{
  g_return_if_fail (pipeline != NULL && group != NULL && key != NULL && value != NULL);
  g_return_if_fail (!pipeline->prepared);
  char *cwd = g_get_current_dir ();
  fxs_pipeline_group_set (fxs_pipeline_group (pipeline, group, origin), key, value, origin, cwd);
  g_free (cwd);
}

void
fxs_pipeline_set_graph (FxsPipeline *pipeline, FxsGraph *graph)
{
  g_return_if_fail (pipeline != NULL && graph != NULL);
  fxs_graph_ref (graph);
  fxs_graph_unref (pipeline->graph);
  pipeline->graph = graph;
}

void
fxs_pipeline_set_progress_func (FxsPipeline *pipeline, FxsProgressFunc func, gpointer user_data)
{
  pipeline->progress = func;
  pipeline->progress_data = user_data;
}

void
fxs_pipeline_set_log_func (FxsPipeline *pipeline, FxsLogFunc func, gpointer user_data)
{
  pipeline->log = func;
  pipeline->log_data = user_data;
}

void
fxs_pipeline_log (FxsLogLevel level, const char *line, gpointer data)
{
  const FxsPipeline *pipeline = data;
  if (pipeline->log)
    {
      pipeline->log (level, line, pipeline->log_data);
      return;
    }
  GLogLevelFlags flags = level == FXS_LOG_WARNING ? G_LOG_LEVEL_MESSAGE
                         : level == FXS_LOG_INFO  ? G_LOG_LEVEL_INFO
                                                  : G_LOG_LEVEL_DEBUG;
  g_log ("fxsplit", flags, "%s", line);
}

char *
fxs_pipeline_where (const char *origin, const char *group)
{
  return g_strdup_printf ("%s%s%s%s%s", origin ? origin : "", origin ? ": " : "",
                          group ? "[" : "", group ? group : "", group ? "] " : "");
}

gboolean
fxs_pipeline_fail (GError **error, FxsErrorCode code, const char *origin, const char *group,
                   const char *format, ...)
{
  va_list args;
  va_start (args, format);
  GError *message = g_error_new_valist (FXS_ERROR, code, format, args);
  va_end (args);
  char *where = fxs_pipeline_where (origin, group);
  g_propagate_prefixed_error (error, message, "%s", where);
  g_free (where);
  return FALSE;
}

void
fxs_pipeline_progress (const FxsPipeline *pipeline, const char *step, guint64 done,
                       guint64 total)
{
  if (pipeline->progress)
    pipeline->progress (step, done, total, pipeline->progress_data);
}

FXS_GETTER (const FxsGraph *, fxs_pipeline_graph, FxsPipeline, p, p->graph, NULL)
FXS_GETTER (const FxsSplitResult *, fxs_pipeline_result, FxsPipeline, p, p->result, NULL)
FXS_GETTER (guint, fxs_pipeline_n_outputs, FxsPipeline, p, p->outputs->len, 0)

/* fxs_pipeline_output_NAME: @expr of output @i's instance ctx, @none when
 * there is no output @i. */
#define OUTPUT_GETTER(Ret, name, expr, none)                                  \
  Ret                                                                         \
  fxs_pipeline_output_##name (const FxsPipeline *pipeline, guint i)           \
  {                                                                           \
    g_return_val_if_fail (i < pipeline->outputs->len, none);                  \
    const FxsPluginContext *ctx = pipeline->outputs->pdata[i];                \
    return expr;                                                              \
  }

OUTPUT_GETTER (const char *, label, ctx->label, NULL)
OUTPUT_GETTER (const char *, plugin, fxs_plugin_name (ctx->plugin), NULL)
OUTPUT_GETTER (guint, n_files, pipeline->written ? ctx->files->len : 0, 0)

const char *
fxs_pipeline_output_file (const FxsPipeline *pipeline, guint i, guint j)
{
  g_return_val_if_fail (i < pipeline->outputs->len, NULL);
  const FxsPluginContext *ctx = pipeline->outputs->pdata[i];
  g_return_val_if_fail (pipeline->written && j < ctx->files->len, NULL);
  return ctx->files->pdata[j];
}
