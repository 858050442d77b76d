/* Plugin instances: the context every hook receives, its option
 * accessors, logging and staged files; the precomputed-id callback. */
#include "host-private.h"
#include "util/getter.h"

#include <stdarg.h>
#include <string.h>

const char *volatile fxs_running_who;
const char *volatile fxs_running_hook;
const FxsNode *volatile fxs_running_node;

gboolean
fxs_pipeline_running_hook (const char **plugin, const char **hook, const char **node)
{
  const char *who = fxs_running_who;
  if (!who)
    return FALSE;
  *plugin = who;
  *hook = fxs_running_hook;
  const FxsNode *n = fxs_running_node;
  *node = n ? fxs_node_name (n) : NULL;
  return TRUE;
}

gboolean
fxs_plugin_context_done (const FxsPluginContext *ctx, gboolean ok, GError *hook_error,
                         const char *hook, GError **error)
{
  fxs_plugin_context_leave ();
  if (!ok && !hook_error)
    g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "%s%s failed without saying why",
                 ctx->prefix, hook);
  else if (!ok)
    {
      char *line = fxs_plugin_error_text (hook_error);
      g_set_error (error, FXS_ERROR,
                   hook_error->domain == FXS_ERROR ? hook_error->code : FXS_ERROR_PLUGIN_FAILED,
                   "%s%s", ctx->prefix, line);
      g_free (line);
    }
  g_clear_error (&hook_error);
  return ok;
}

char *
fxs_plugin_error_text (const GError *plugin_error)
{
  if (!plugin_error || !plugin_error->message)
    return g_strdup ("(plugin gave no message)");
  return fxs_text_escape (plugin_error->message, FXS_TEXT_MESSAGE_MAX);
}

gboolean
fxs_plugin_context_init (FxsPluginContext *ctx, GError **error)
{
  FxsPluginInitFunc init = ctx->plugin->info->init;
  if (init)
    {
      GError *local = NULL;
      fxs_plugin_context_enter (ctx, "init", NULL);
      gboolean ok = init (ctx, &ctx->state, &local);
      if (!fxs_plugin_context_done (ctx, ok, local, "init", error))
        return FALSE;
    }
  ctx->initialized = TRUE;
  return TRUE;
}

/* What is wrong with @label as a partition label, or NULL. */
static const char *
label_problem (const char *label)
{
  gsize len = strnlen (label, FXS_PARTITION_LABEL_MAX + 1);
  if (len == 0)
    return "it is empty (return NULL for no label)";
  if (len > FXS_PARTITION_LABEL_MAX)
    return "it is longer than " G_STRINGIFY (FXS_PARTITION_LABEL_MAX) " bytes";
  if (!g_utf8_validate (label, -1, NULL))
    return "it is not UTF-8 text";
  for (const char *c = label; *c; c = g_utf8_next_char (c))
    if (g_unichar_iscntrl (g_utf8_get_char (c)))
      return "it holds a control character";
  return NULL;
}

gboolean
fxs_plugin_context_partition_label (const FxsPluginContext *ctx, gint64 id, const char **label,
                                    GError **error)
{
  *label = NULL;
  if (!ctx->plugin->label)
    return TRUE;
  fxs_plugin_context_enter (ctx, "label", NULL);
  *label = ctx->plugin->label (ctx->state, id);
  fxs_plugin_context_leave ();
  const char *problem = *label ? label_problem (*label) : NULL;
  if (problem)
    {
      char *shown = fxs_text_escape (*label, 60);
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "%slabel of partition %" G_GINT64_FORMAT ": %s: \"%s\"", ctx->prefix, id,
                   problem, shown);
      g_free (shown);
      return FALSE;
    }
  return TRUE;
}

void
fxs_plugin_context_free (FxsPluginContext *ctx)
{
  if (!ctx)
    return;
  if (ctx->initialized && ctx->plugin->info->fini)
    {
      fxs_plugin_context_enter (ctx, "fini", NULL);
      ctx->plugin->info->fini (ctx->state);
      fxs_plugin_context_leave ();
    }
  fxs_options_free (ctx->options);
  g_ptr_array_unref (ctx->files);
  g_free (ctx->label);
  g_free (ctx->prefix);
  g_free (ctx);
}

FXS_GETTER (const char *, fxs_plugin_context_label, FxsPluginContext, ctx, ctx->label, NULL)

/* The value of @key, checking that the plugin reads it as declared (paths
 * as strings). */
static const FxsOptionValue *
option_value (const FxsPluginContext *ctx, const char *key, FxsOptionType type)
{
  const FxsOptionSpec *spec;
  const FxsOptionValue *value = fxs_options_get (ctx->options, key, &spec);
  if (!spec)
    {
      g_critical ("plugin '%s' reads option '%s', which its option table does not declare",
                  fxs_plugin_name (ctx->plugin), key);
      return NULL;
    }
  gboolean path = spec->type == FXS_OPTION_PATH || spec->type == FXS_OPTION_OUTPUT_PATH;
  if (spec->type != type && !(path && type == FXS_OPTION_STRING))
    {
      g_critical ("plugin '%s' reads option '%s' (%s) as another type",
                  fxs_plugin_name (ctx->plugin), key, fxs_option_type_to_string (spec->type));
      return NULL;
    }
  return value;
}

gboolean
fxs_plugin_option_is_set (const FxsPluginContext *ctx, const char *key)
{
  g_return_val_if_fail (ctx != NULL && key != NULL, FALSE);
  return fxs_options_get (ctx->options, key, NULL) != NULL;
}

/* fxs_plugin_option_NAME: the value of @key read as @type, its member
 * @member; @none when it is unset or declared as another type. */
#define OPTION_READER(Ret, name, type, member, none)                           \
  Ret                                                                          \
  fxs_plugin_option_##name (const FxsPluginContext *ctx, const char *key)     \
  {                                                                            \
    g_return_val_if_fail (ctx != NULL && key != NULL, none);                   \
    const FxsOptionValue *v = option_value (ctx, key, type);                   \
    return v ? v->member : none;                                               \
  }

OPTION_READER (const char *, string, FXS_OPTION_STRING, text, NULL)
OPTION_READER (gint64, int, FXS_OPTION_INT, i, 0)
OPTION_READER (double, float, FXS_OPTION_FLOAT, f, 0.0)
OPTION_READER (gboolean, bool, FXS_OPTION_BOOL, b, FALSE)

char *
fxs_plugin_option_program (const FxsPluginContext *ctx, const char *key)
{
  const char *program = fxs_plugin_option_string (ctx, key);
  if (!program || !*program)
    return NULL;
  if (!strchr (program, '/'))
    return g_find_program_in_path (program);
  /* Relative to the directory the value was written relative to: its
   * setting's, or the pipeline's for a default. */
  char *path = g_canonicalize_filename (program, fxs_options_base_dir (ctx->options, key));
  if (!g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) || g_file_test (path, G_FILE_TEST_IS_DIR))
    g_clear_pointer (&path, g_free);
  return path;
}

void
fxs_plugin_log (const FxsPluginContext *ctx, FxsLogLevel level, const char *format, ...)
{
  g_return_if_fail (ctx != NULL && format != NULL);
  va_list args;
  va_start (args, format);
  char *message = g_strdup_vprintf (format, args);
  va_end (args);
  /* A plugin's line stays one short line on a terminal. */
  char *shown = fxs_text_escape (message, FXS_TEXT_MESSAGE_MAX);
  char *line = g_strdup_printf ("[%s] %s: %s", ctx->label, fxs_plugin_name (ctx->plugin),
                                shown);
  g_free (shown);
  ctx->log (level, line, ctx->log_data);
  g_free (line);
  g_free (message);
}

FILE *
fxs_output_open_file (FxsPluginContext *ctx, const char *path, GError **error)
{
  g_return_val_if_fail (ctx != NULL && path != NULL, NULL);
  if (!ctx->staging)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "fxs_output_open_file() called outside of an output's write hook");
      return NULL;
    }
  /* relative to the pipeline's directory, as the options' defaults are */
  char *absolute = g_canonicalize_filename (path, fxs_options_base_dir (ctx->options, NULL));
  FILE *stream = fxs_staging_open (ctx->staging, absolute, ctx->label, error);
  if (stream)
    g_ptr_array_add (ctx->files, absolute);
  else
    g_free (absolute);
  return stream;
}

gboolean
fxs_partitioner_precomputed_id (const gint64 *ids, guint n_ids, const FxsNode *node,
                                gint64 *partition, GError **error)
{
  guint i = fxs_node_index (node);
  if (!ids || i >= n_ids)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "called for a graph it was not prepared for");
      return FALSE;
    }
  *partition = ids[i];
  return TRUE;
}
