/* Reading a pipeline from an INI file, line by line: "[group]", "key =
 * value" and "#" comments.  Values are taken as written (the blanks around
 * them dropped, no escapes), and every group and key keeps its line for
 * the messages of later checks.  GKeyFile is not used: it reports no
 * lines, merges duplicate groups and keys, turns "\n" in a value into a
 * line break, and reads KEY[LOCALE] as a translation kept or dropped
 * depending on LANG. */
#include "pipeline-private.h"

#include <fxsplit/text-file.h>

#include <string.h>

/* FXS_ERROR_CONFIG "FILE:LINE: [GROUP] @what SHOWN@after", SHOWN an
 * excerpt of @text. */
static gboolean
fail_at (GError **error, const char *origin, const char *group, const char *what,
         const char *text, const char *after)
{
  char *shown = fxs_text_excerpt (text, -1);
  fxs_pipeline_fail (error, FXS_ERROR_CONFIG, origin, group, "%s%s%s", what, shown, after);
  g_free (shown);
  return FALSE;
}

/* The line number of a setting's or group's origin "FILE:LINE". */
static const char *
line_of (const char *origin)
{
  return strrchr (origin, ':') + 1;
}

/* One line, without its line break and the blanks around it (changed in
 * place), into @pipeline; *@group is the group it is in. */
static gboolean
read_line (FxsPipeline *pipeline, char *line, const char *origin, FxsPipelineGroup **group,
           GError **error)
{
  if (*line == '[')
    {
      char *close = strchr (line, ']');
      if (!close || close[1] != '\0' || close == line + 1)
        return fail_at (error, origin, NULL, "malformed group header ", line,
                        " (expected [name])");
      *close = '\0';
      FxsPipelineGroup *g = g_hash_table_lookup (pipeline->group_by_name, line + 1);
      if (g)
        return fxs_pipeline_fail (error, FXS_ERROR_CONFIG, origin, NULL,
                                  "group [%s] appears twice (first at line %s)", line + 1,
                                  line_of (g->origin));
      *group = fxs_pipeline_group (pipeline, line + 1, origin);
      return TRUE;
    }
  char *eq = strchr (line, '=');
  if (!eq || eq == line)
    return fail_at (error, origin, NULL,
                    "expected '[group]', 'key = value' or a '#' comment, got ", line, "");
  if (!*group)
    return fxs_pipeline_fail (error, FXS_ERROR_CONFIG, origin, NULL,
                              "a key outside of any group (start with a [group] line)");
  *eq = '\0';
  const char *key = g_strchomp (line), *value = g_strstrip (eq + 1);
  const char *name = (*group)->name;
  /* no KEY[LOCALE]: GKeyFile would keep or drop it depending on LANG */
  if (strpbrk (key, "[]"))
    return fail_at (error, origin, name, "key ", key,
                    ": keys cannot hold '[' or ']' (no KEY[LOCALE] translations in a pipeline)");
  const FxsPipelineSetting *first = g_hash_table_lookup ((*group)->by_key, key);
  if (first)
    return fxs_pipeline_fail (error, FXS_ERROR_CONFIG, origin, name,
                              "%s is set twice (first at line %s)", key, line_of (first->origin));
  if (!g_utf8_validate (value, -1, NULL))
    {
      char *what = g_strconcat (key, ": the value is not UTF-8 text: ", NULL);
      fail_at (error, origin, name, what, value, "");
      g_free (what);
      return FALSE;
    }
  fxs_pipeline_group_set (*group, key, value, origin, pipeline->base_dir);
  return TRUE;
}

/* Reads @text (which holds no NUL byte), changing it.  Lines are found
 * with strchr, not g_strsplit: its strstr calls are each checked over the whole
 * rest of the text under AddressSanitizer (quadratic for 200,000 groups). */
static gboolean
read_lines (FxsPipeline *pipeline, char *text, GError **error)
{
  FxsPipelineGroup *group = NULL;
  gboolean ok = TRUE;
  for (guint n = 1; text && ok; n++)
    {
      char *nl = strchr (text, '\n');
      if (nl)
        *nl = '\0';
      char *line = g_strstrip (text);  /* also drops a '\r' */
      text = nl ? nl + 1 : NULL;
      if (*line == '\0' || *line == '#')
        continue;
      char *origin = g_strdup_printf ("%s:%u", pipeline->file, n);
      ok = read_line (pipeline, line, origin, &group, error);
      g_free (origin);
    }
  return ok;
}

FxsPipeline *
fxs_pipeline_load_file (FxsPluginRegistry *registry, const char *path, GError **error)
{
  g_return_val_if_fail (registry != NULL && path != NULL, NULL);
  char *text = NULL;
  gsize length = 0;
  if (!fxs_text_file_read (path, "a pipeline file", FXS_TEXT_FILE_MAX_PIPELINE, &text, &length,
                           error))
    return NULL;
  FxsPipeline *pipeline = fxs_pipeline_new (registry);
  pipeline->file = g_strdup (path);
  char *absolute = g_canonicalize_filename (path, NULL);
  g_free (pipeline->base_dir);
  pipeline->base_dir = g_path_get_dirname (absolute);
  g_free (absolute);
  gboolean ok = read_lines (pipeline, text, error);
  g_free (text);
  if (!ok)
    g_clear_pointer (&pipeline, fxs_pipeline_free);
  return pipeline;
}
