/* Partition map files, in JSON or in two columns. */
#include "map-file.h"

#include <fxsplit/error.h>
#include <fxsplit/text-file.h>

#include <string.h>

static GHashTable *
new_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* ---- JSON ----------------------------------------------------------------- */

static gboolean
add_member (const char *key, gsize key_len, const gint64 *value, gpointer table, GError **error)
{
  const char *problem = !value ? "is not an integer partition id"
                        : memchr (key, 0, key_len) ? "holds a NUL, which no node name does"
                        : g_hash_table_contains (table, key) ? "appears twice"
                        : NULL;
  if (problem)
    {
      char *shown = fxs_text_excerpt (key, (gssize) key_len);
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "node %s %s", shown, problem);
      g_free (shown);
      return FALSE;
    }
  g_hash_table_insert (table, g_strndup (key, key_len), g_memdup2 (value, sizeof *value));
  return TRUE;
}

static GHashTable *
read_json (const char *path, const char *text, gsize length, GError **error)
{
  GHashTable *table = new_table ();
  if (!fxs_json_read_int_map (text, length, path, add_member, table, error))
    g_clear_pointer (&table, g_hash_table_unref);
  return table;
}

/* ---- two columns ------------------------------------------------------------ */

static GHashTable *
read_columns (const char *path, const char *text, GError **error)
{
  GHashTable *table = new_table ();
  char **lines = g_strsplit (text, "\n", -1);
  for (guint n = 0; lines[n]; n++)
    {
      char *line = g_strstrip (lines[n]);
      if (*line == '\0' || *line == '#')
        continue;
      char **fields = g_strsplit_set (line, " \t", -1);
      const char *cols[3] = { NULL, NULL, NULL };
      guint k = 0;
      for (char **f = fields; *f; f++)
        if (**f && k < 3)
          cols[k++] = *f;
      char *end = NULL;
      gint64 id = cols[1] ? g_ascii_strtoll (cols[1], &end, 10) : 0;
      const char *problem = NULL;
      if (k != 2)
        problem = "expected 'NODE ID'";
      else if (!end || *end != '\0' || end == cols[1])
        problem = "the partition id is not an integer";
      else if (g_hash_table_contains (table, cols[0]))
        problem = "this node appears twice";
      if (problem)
        {
          /* the file may be anything (a secret): quote only its start */
          char *shown = fxs_text_excerpt (line, -1);
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s:%u: %s, got %s", path, n + 1,
                       problem, shown);
          g_free (shown);
          g_strfreev (fields);
          g_strfreev (lines);
          g_hash_table_unref (table);
          return NULL;
        }
      gint64 *value = g_new (gint64, 1);
      *value = id;
      g_hash_table_insert (table, g_strdup (cols[0]), value);
      g_strfreev (fields);
    }
  g_strfreev (lines);
  return table;
}

GHashTable *
fxs_map_file_read (const char *path, GError **error)
{
  char *text = NULL;
  gsize length = 0;
  if (!fxs_text_file_read (path, "a partition map", FXS_TEXT_FILE_MAX_MAP, &text, &length, error))
    return NULL;
  const char *first = text;
  while (g_ascii_isspace (*first))
    first++;
  GHashTable *table = *first == '{' ? read_json (path, text, length, error)
                                    : read_columns (path, text, error);
  g_free (text);
  return table;
}
