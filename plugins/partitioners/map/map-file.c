/* Partition map files, in JSON or in two columns. */
#include "map-file.h"

#include <fxsplit/error.h>
#include <fxsplit/text-file.h>

#include <string.h>
#include <yajl/yajl_parse.h>

static GHashTable *
new_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* Line and column (from 1) of byte @offset of @text. */
static void
position_of (const char *text, gsize offset, guint *line, guint *column)
{
  *line = 1;
  gsize start = 0;
  for (gsize i = 0; i < offset && text[i]; i++)
    if (text[i] == '\n')
      {
        (*line)++;
        start = i + 1;
      }
  *column = (guint) (offset - start + 1);
}

/* ---- JSON ----------------------------------------------------------------- */

typedef struct {
  GHashTable *table;
  char *key;         /* the key whose value comes next */
  int depth;
  const char *problem; /* why a callback stopped the parse */
  char *problem_key;
} JsonMap;

static int
on_start_map (void *data)
{
  JsonMap *m = data;
  if (++m->depth > 1)
    {
      m->problem = "is an object, expected an integer partition id";
      m->problem_key = g_strdup (m->key);
      return 0;
    }
  return 1;
}

static int
on_end_map (void *data)
{
  ((JsonMap *) data)->depth--;
  return 1;
}

static int
on_key (void *data, const unsigned char *key, size_t len)
{
  JsonMap *m = data;
  g_free (m->key);
  m->key = g_strndup ((const char *) key, len);
  return 1;
}

static int
on_integer (void *data, long long value)
{
  JsonMap *m = data;
  if (m->depth != 1)
    {
      m->problem = "the file must be a JSON object";
      return 0;
    }
  if (g_hash_table_contains (m->table, m->key))
    {
      m->problem = "appears twice";
      m->problem_key = g_strdup (m->key);
      return 0;
    }
  gint64 *id = g_new (gint64, 1);
  *id = value;
  g_hash_table_insert (m->table, g_strdup (m->key), id);
  return 1;
}

/* Any other value: not a partition id. */
static int
reject (JsonMap *m)
{
  m->problem = m->depth == 1 ? "is not an integer partition id" : "the file must be a JSON object";
  m->problem_key = m->depth == 1 ? g_strdup (m->key) : NULL;
  return 0;
}

static int on_null (void *d) { return reject (d); }
static int on_bool (void *d, int b) { (void) b; return reject (d); }
static int on_double (void *d, double v) { (void) v; return reject (d); }
static int on_string (void *d, const unsigned char *s, size_t l) { (void) s; (void) l; return reject (d); }
static int on_start_array (void *d) { return reject (d); }

static const yajl_callbacks json_callbacks = {
  .yajl_null = on_null,
  .yajl_boolean = on_bool,
  .yajl_integer = on_integer,
  .yajl_double = on_double,
  .yajl_string = on_string,
  .yajl_start_map = on_start_map,
  .yajl_map_key = on_key,
  .yajl_end_map = on_end_map,
  .yajl_start_array = on_start_array,
};

static GHashTable *
read_json (const char *path, const char *text, gsize length, GError **error)
{
  JsonMap m = { new_table (), NULL, 0, NULL, NULL };
  yajl_handle h = yajl_alloc (&json_callbacks, NULL, &m);
  yajl_status st = yajl_parse (h, (const unsigned char *) text, length);
  if (st == yajl_status_ok)
    st = yajl_complete_parse (h);
  if (st != yajl_status_ok)
    {
      guint line, column;
      position_of (text, yajl_get_bytes_consumed (h), &line, &column);
      if (m.problem && m.problem_key)
        {
          char *shown = fxs_text_excerpt (m.problem_key, -1);
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s:%u:%u: node %s %s", path, line,
                       column, shown, m.problem);
          g_free (shown);
        }
      else if (m.problem)
        g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s:%u:%u: %s", path, line, column,
                     m.problem);
      else
        {
          unsigned char *msg = yajl_get_error (h, 0, NULL, 0);
          char *one_line = g_strstrip (g_strdelimit (g_strdup ((char *) msg), "\n", ' '));
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s:%u:%u: not valid JSON: %s",
                       path, line, column, one_line);
          g_free (one_line);
          yajl_free_error (h, msg);
        }
      g_clear_pointer (&m.table, g_hash_table_unref);
    }
  yajl_free (h);
  g_free (m.key);
  g_free (m.problem_key);
  return m.table;
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
