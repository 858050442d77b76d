/* Reading a pipeline from an INI file.
 *
 * GKeyFile reads the values but reports no line numbers, so the file is
 * first scanned line by line: that finds the line of every group and key
 * (for the messages of later checks) and rejects what GKeyFile would
 * silently accept or merge (duplicate groups and keys). */
#include "pipeline-private.h"

#include <fxsplit/text-file.h>

#include <string.h>

typedef struct {
  GHashTable *group_line;  /* group name -> line (GUINT_TO_POINTER) */
  GHashTable *key_line;    /* "group\nkey" -> line */
} LineIndex;

static void
line_index_clear (LineIndex *index)
{
  g_hash_table_unref (index->group_line);
  g_hash_table_unref (index->key_line);
}

static char *
key_id (const char *group, const char *key)
{
  return g_strconcat (group, "\n", key, NULL);
}

/* Scans the @length bytes of @text; on a malformed line sets
 * FXS_ERROR_CONFIG "FILE:LINE: ...".  Lines are found with memchr, not
 * g_strsplit: its strstr calls are each checked over the whole rest of
 * the text under AddressSanitizer, which made 200,000 groups quadratic. */
static gboolean
scan_lines (const char *file, const char *text, gsize length, LineIndex *index, GError **error)
{
  index->group_line = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  index->key_line = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GString *buf = g_string_new (NULL);
  const char *p = text, *end = text + length;
  char *group = NULL;
  gboolean ok = TRUE, last = FALSE;
  for (guint n = 0; !last && ok; n++)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      last = nl == NULL;
      g_string_truncate (buf, 0);
      g_string_append_len (buf, p, (last ? end : nl) - p);
      p = last ? end : nl + 1;
      guint line_no = n + 1;
      char *line = g_strstrip (buf->str);  /* also drops a '\r' */
      if (*line == '\0' || *line == '#')
        continue;
      if (*line == '[')
        {
          char *close = strchr (line, ']');
          if (!close || close[1] != '\0' || close == line + 1)
            {
              char *shown = fxs_text_excerpt (line, -1);
              g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                           "%s:%u: malformed group header %s (expected [name])", file,
                           line_no, shown);
              g_free (shown);
              ok = FALSE;
              break;
            }
          g_free (group);
          group = g_strndup (line + 1, close - line - 1);
          gpointer first = g_hash_table_lookup (index->group_line, group);
          if (first)
            {
              g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                           "%s:%u: group [%s] appears twice (first at line %u)", file,
                           line_no, group, GPOINTER_TO_UINT (first));
              ok = FALSE;
              break;
            }
          g_hash_table_insert (index->group_line, g_strdup (group), GUINT_TO_POINTER (line_no));
          continue;
        }
      char *eq = strchr (line, '=');
      if (!eq || eq == line)
        {
          char *shown = fxs_text_excerpt (line, -1);
          g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                       "%s:%u: expected '[group]', 'key = value' or a '#' comment, got %s",
                       file, line_no, shown);
          g_free (shown);
          ok = FALSE;
          break;
        }
      if (!group)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                       "%s:%u: a key outside of any group (start with a [group] line)", file,
                       line_no);
          ok = FALSE;
          break;
        }
      char *key = g_strstrip (g_strndup (line, eq - line));
      if (strpbrk (key, "[]"))
        {
          /* GKeyFile takes KEY[LOCALE] for a translation of KEY and keeps it
           * only when LOCALE is one of the user's languages: such a key would
           * be ignored or not depending on LANG. */
          char *shown = fxs_text_excerpt (key, -1);
          g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                       "%s:%u: [%s] key %s: keys cannot hold '[' or ']' (no KEY[LOCALE] "
                       "translations in a pipeline)", file, line_no, group, shown);
          g_free (shown);
          g_free (key);
          ok = FALSE;
          break;
        }
      char *id = key_id (group, key);
      gpointer first = g_hash_table_lookup (index->key_line, id);
      if (first)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                       "%s:%u: [%s] %s is set twice (first at line %u)", file, line_no, group,
                       key, GPOINTER_TO_UINT (first));
          g_free (id);
          ok = FALSE;
        }
      else
        g_hash_table_insert (index->key_line, id, GUINT_TO_POINTER (line_no));
      g_free (key);
    }
  g_free (group);
  g_string_free (buf, TRUE);
  return ok;
}

/* "FILE:LINE" of a group or key. */
static char *
origin_at (const char *file, GHashTable *lines, const char *id)
{
  return g_strdup_printf ("%s:%u", file, GPOINTER_TO_UINT (g_hash_table_lookup (lines, id)));
}

static gboolean
read_groups (FxsPipeline *pipeline, GKeyFile *kf, LineIndex *index, GError **error)
{
  const char *file = pipeline->file;
  gchar **groups = g_key_file_get_groups (kf, NULL);
  gboolean ok = TRUE;
  for (gchar **g = groups; *g && ok; g++)
    {
      char *group_origin = origin_at (file, index->group_line, *g);
      FxsPipelineGroup *group = fxs_pipeline_group (pipeline, *g, group_origin);
      g_free (group_origin);
      gchar **keys = g_key_file_get_keys (kf, *g, NULL, NULL);
      for (gchar **k = keys; keys && *k && ok; k++)
        {
          char *id = key_id (*g, *k);
          char *origin = origin_at (file, index->key_line, id);
          g_free (id);
          GError *local = NULL;
          char *value = g_key_file_get_string (kf, *g, *k, &local);
          if (!value)
            {
              g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG, "%s: [%s] %s: %s", origin, *g,
                           *k, local->message);
              g_error_free (local);
              ok = FALSE;
            }
          else
            /* GKeyFile keeps trailing blanks; nobody means them (paths,
             * plugin names), so they go. */
            fxs_pipeline_group_set (group, *k, g_strchomp (value), origin, pipeline->base_dir);
          g_free (value);
          g_free (origin);
        }
      g_strfreev (keys);
    }
  g_strfreev (groups);
  return ok;
}

FxsPipeline *
fxs_pipeline_load_file (FxsPluginRegistry *registry, const char *path, GError **error)
{
  g_return_val_if_fail (registry != NULL && path != NULL, NULL);
  char *text = NULL;
  gsize length = 0;
  GError *local = NULL;
  if (!fxs_text_file_read (path, "a pipeline file", FXS_TEXT_FILE_MAX_PIPELINE, &text, &length,
                           error))
    return NULL;
  FxsPipeline *pipeline = fxs_pipeline_new (registry);
  pipeline->file = g_strdup (path);
  char *absolute = g_canonicalize_filename (path, NULL);
  g_free (pipeline->base_dir);
  pipeline->base_dir = g_path_get_dirname (absolute);
  g_free (absolute);

  LineIndex index;
  GKeyFile *kf = g_key_file_new ();
  gboolean ok = scan_lines (path, text, length, &index, error);
  if (ok && !g_key_file_load_from_data (kf, text, length, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG, "%s: %s", path, local->message);
      g_error_free (local);
      ok = FALSE;
    }
  if (ok)
    ok = read_groups (pipeline, kf, &index, error);
  g_key_file_free (kf);
  line_index_clear (&index);
  g_free (text);
  if (!ok)
    {
      fxs_pipeline_free (pipeline);
      return NULL;
    }
  return pipeline;
}
