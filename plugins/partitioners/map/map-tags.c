/* String tags as partitions (see map-tags.h). */
#include "map-tags.h"

#include <fxsplit/error.h>
#include <fxsplit/partitioner.h>
#include <fxsplit/text-file.h>

#include <string.h>

typedef enum { KIND_NONE, KIND_INT, KIND_STRING } Kind;

struct MapTags {
  gboolean fixed;        /* the `tags` option gave the order */
  GPtrArray *names;      /* char*, in partition order */
  GHashTable *index;     /* tag -> its position + 1 */
  GArray *used;          /* gboolean per tag: some node has it */
  Kind kind;             /* what the graph's values are */
  char *first_node;      /* the first node of that kind, for messages */
  char *first_value;     /* its value, quoted */
};

/* Why @tag cannot be a partition label, or NULL. */
static const char *
tag_problem (const char *tag)
{
  if (*tag == '\0')
    return "is empty";
  if (strlen (tag) > FXS_PARTITION_LABEL_MAX)
    return "is longer than the " G_STRINGIFY (FXS_PARTITION_LABEL_MAX) " bytes of a label";
  for (const char *c = tag; *c; c++)
    if (g_ascii_iscntrl (*c))
      return "holds a control character";
  return NULL;
}

static void
add_tag (MapTags *t, const char *tag)
{
  g_ptr_array_add (t->names, g_strdup (tag));
  g_hash_table_insert (t->index, t->names->pdata[t->names->len - 1],
                       GUINT_TO_POINTER (t->names->len));
  gboolean no = FALSE;
  g_array_append_val (t->used, no);
}

MapTags *
map_tags_new (const char *tags, GError **error)
{
  MapTags *t = g_new0 (MapTags, 1);
  t->names = g_ptr_array_new_with_free_func (g_free);
  t->index = g_hash_table_new (g_str_hash, g_str_equal);
  t->used = g_array_new (FALSE, FALSE, sizeof (gboolean));
  if (!tags)
    return t;
  t->fixed = TRUE;
  char **words = g_strsplit_set (tags, ", \t\n", -1);
  for (char **w = words; *w; w++)
    {
      if (**w == '\0')
        continue;
      const char *problem = tag_problem (*w);
      if (!problem && g_hash_table_contains (t->index, *w))
        problem = "is listed twice";
      if (problem)
        {
          char *shown = fxs_text_excerpt (*w, -1);
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "tags: tag %s %s", shown, problem);
          g_free (shown);
          g_strfreev (words);
          map_tags_free (t);
          return NULL;
        }
      add_tag (t, *w);
    }
  g_strfreev (words);
  if (t->names->len == 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "tags: lists no tag");
      map_tags_free (t);
      return NULL;
    }
  return t;
}

void
map_tags_free (MapTags *t)
{
  if (!t)
    return;
  g_hash_table_unref (t->index);
  g_ptr_array_unref (t->names);
  g_array_unref (t->used);
  g_free (t->first_node);
  g_free (t->first_value);
  g_free (t);
}

void
map_tags_reset (MapTags *t)
{
  if (!t->fixed)
    {
      g_hash_table_remove_all (t->index);
      g_ptr_array_set_size (t->names, 0);
      g_array_set_size (t->used, 0);
    }
  for (guint i = 0; i < t->used->len; i++)
    g_array_index (t->used, gboolean, i) = FALSE;
  t->kind = KIND_NONE;
  g_clear_pointer (&t->first_node, g_free);
  g_clear_pointer (&t->first_value, g_free);
}

/* Records that @node is the first of kind @kind, or fails when an earlier
 * node was of the other kind. */
static gboolean
same_kind (MapTags *t, const FxsNode *node, const char *key, Kind kind, const char *shown,
           GError **error)
{
  if (t->kind == kind)
    return TRUE;
  if (t->kind != KIND_NONE)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "node '%s': meta '%s' is %s %s, but node '%s' has %s %s: use integer ids "
                   "or string tags, not both", fxs_node_name (node), key,
                   kind == KIND_INT ? "the integer" : "the string tag", shown, t->first_node,
                   kind == KIND_INT ? "the string tag" : "the integer", t->first_value);
      return FALSE;
    }
  t->kind = kind;
  t->first_node = g_strdup (fxs_node_name (node));
  t->first_value = g_strdup (shown);
  return TRUE;
}

gboolean
map_tags_id (MapTags *t, const FxsNode *node, const char *key, const FxsValue *value,
             gint64 *id, GError **error)
{
  FxsValueKind vk = fxs_value_kind (value);
  if (vk == FXS_VALUE_INT)
    {
      *id = fxs_value_get_int (value);
      /* the common case, one more node with an integer id: nothing to
       * record or report, so no text to format */
      if (t->kind == KIND_INT)
        return TRUE;
      char *shown = g_strdup_printf ("%" G_GINT64_FORMAT, *id);
      gboolean ok = FALSE;
      if (t->fixed)
        g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                     "node '%s': meta '%s' is the integer %s, but tags lists string tags",
                     fxs_node_name (node), key, shown);
      else
        ok = same_kind (t, node, key, KIND_INT, shown, error);
      g_free (shown);
      return ok;
    }
  if (vk != FXS_VALUE_STRING)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "node '%s': meta '%s' is neither an integer partition id nor a string tag",
                   fxs_node_name (node), key);
      return FALSE;
    }
  const char *tag = fxs_value_get_string (value);
  const char *problem = fxs_value_get_string_length (value) != strlen (tag)
                        ? "holds a NUL character" : tag_problem (tag);
  gpointer pos = g_hash_table_lookup (t->index, tag);
  if (!problem && !pos && t->fixed)
    problem = "is not one of tags";
  /* the tag as messages show it, needed only for an error or the first
   * node with a string tag */
  char *shown = problem || t->kind != KIND_STRING ? fxs_text_excerpt (tag, -1) : NULL;
  gboolean ok = FALSE;
  if (problem)
    g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED, "node '%s': meta '%s': tag %s %s",
                 fxs_node_name (node), key, shown, problem);
  else if (same_kind (t, node, key, KIND_STRING, shown, error))
    {
      if (!pos)
        {
          add_tag (t, tag);
          pos = GUINT_TO_POINTER (t->names->len);
        }
      *id = GPOINTER_TO_UINT (pos) - 1;
      g_array_index (t->used, gboolean, *id) = TRUE;
      ok = TRUE;
    }
  g_free (shown);
  return ok;
}

gboolean
map_tags_check (MapTags *t, FxsPluginContext *ctx, gboolean has_default, GError **error)
{
  if (t->kind == KIND_STRING && has_default)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                   "default: an integer partition id, but the nodes have string tags "
                   "(node '%s': %s); tag every call node instead", t->first_node, t->first_value);
      return FALSE;
    }
  GString *unused = g_string_new (NULL);
  guint n_unused = 0;
  for (guint i = 0; i < t->used->len; i++)
    if (!g_array_index (t->used, gboolean, i))
      {
        char *shown = fxs_text_excerpt (t->names->pdata[i], -1);
        g_string_append_printf (unused, "%s%s", n_unused++ ? ", " : "", shown);
        g_free (shown);
      }
  if (n_unused)
    fxs_plugin_log (ctx, FXS_LOG_WARNING, "tags: no node has the tag%s %s: %s no partition",
                    n_unused == 1 ? "" : "s", unused->str, n_unused == 1 ? "it gets" : "they get");
  g_string_free (unused, TRUE);
  return TRUE;
}

gboolean
map_tags_are_strings (const MapTags *t)
{
  return t->fixed || t->kind == KIND_STRING;
}

const char *
map_tags_label (const MapTags *t, gint64 partition)
{
  if (t->kind != KIND_STRING || partition < 0 || partition >= (gint64) t->names->len)
    return NULL;
  return t->names->pdata[partition];
}
