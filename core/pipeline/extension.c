/* A warning when a built-in output's path has an extension that belongs to
 * another format (`plugin = dot`, `path = x.json`): the run goes on, the
 * warning names the setting's file:line. */
#include "pipeline-private.h"

#include <string.h>

static const struct {
  const char *plugin;
  const char *format;             /* the report's format option, or NULL */
  const char *const extensions[3]; /* the expected ones */
} expected[] = {
  { "json", NULL, { ".json" } },
  { "dot", NULL, { ".dot", ".gv" } },
  { "python", NULL, { ".py" } },
  { "report", "text", { ".txt", ".text" } },
  { "report", "csv", { ".csv" } },
  { "report", "html", { ".html", ".htm" } },
};

/* The expected extensions of @ctx's path, or NULL when nothing is known. */
static const char *const *
expected_extensions (const FxsPluginContext *ctx)
{
  const char *name = fxs_plugin_name (ctx->plugin);
  const FxsOptionValue *format = fxs_options_get (ctx->options, "format", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    if (strcmp (expected[i].plugin, name) == 0
        && (!expected[i].format || (format && strcmp (format->text, expected[i].format) == 0)))
      return expected[i].extensions;
  return NULL;
}

void
fxs_pipeline_warn_output_extensions (FxsPipeline *p)
{
  for (guint i = 0; i < p->outputs->len; i++)
    {
      FxsPluginContext *ctx = p->outputs->pdata[i];
      const char *const *valid = expected_extensions (ctx);
      const FxsOptionValue *path = fxs_options_get (ctx->options, "path", NULL);
      char *base = valid && path ? g_path_get_basename (path->text) : NULL;
      const char *dot = base ? strrchr (base, '.') : NULL;
      /* a name without an extension contradicts nothing */
      if (dot && dot != base && !g_strv_contains (valid, dot))
        {
          const FxsPipelineSetting *s
            = g_hash_table_lookup (fxs_pipeline_group (p, ctx->label, NULL)->by_key, "path");
          char *joined = g_strjoinv (" or ", (char **) valid);
          char *where = fxs_pipeline_where (s ? s->origin : NULL, ctx->label);
          char *line = g_strdup_printf ("%s%s: warning: path '%s' ends in %s, not %s", where,
                                        fxs_plugin_name (ctx->plugin),
                                        s ? s->value : path->text, dot, joined);
          fxs_pipeline_log (FXS_LOG_WARNING, line, p);
          g_free (line);
          g_free (where);
          g_free (joined);
        }
      g_free (base);
    }
}
