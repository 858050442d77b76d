/* Loading graph files (docs/graph-format.md): the file's structure.
 *
 * The JSON reader streams the top-level object and the `nodes` arrays and
 * hands over one node (or attribute, partition, ...) object at a time;
 * graph-load-node.c checks it and turns it into graph memory.  Split
 * results are graph files too: their submodules, partition table and
 * qualname map are checked for shape, and one submodule may be loaded
 * instead of the top level.
 */
#include "graph-load-private.h"

#include <string.h>
#include <glib/gstdio.h>

#define FORMAT_NAME "fxsplit-graph"

/* What a streamed container is; the build flag says whether its contents go
 * into the graph being loaded or are only checked for shape. */
enum {
  TAG_TOP = 1,
  TAG_ATTRS,
  TAG_NODES,
  TAG_SUBMODULES,
  TAG_SUBMODULE,
  TAG_PARTITIONS,
  TAG_QUALNAME_MAP,
  TAG_KIND_MASK = 0xff,
  TAG_BUILD = 0x100,
};

/* ---- partitions and the qualname map (shape only) -------------------------------- */

static gboolean
check_name_list (FxsLoadConv *c, const FxsJson *list, const FxsJsonPath *path)
{
  if (!fxs_load_expect (c, list, FXS_JSON_ARRAY, path, "must be an array of names"))
    return FALSE;
  for (guint i = 0; i < list->n; i++)
    {
      FxsJsonPath p = { path, NULL, 0, i };
      if (!fxs_load_check_text (c, &list->u.items[i], &p, "a name"))
        return FALSE;
    }
  return TRUE;
}

void
fxs_load_partition_free (gpointer data)
{
  FxsLoadPartition *p = data;
  g_free (p->name);
  g_free (p->submodule);
  g_ptr_array_unref (p->dependencies);
  g_ptr_array_unref (p->dependents);
  g_free (p);
}

/* The names of a list that check_name_list() accepted. */
static GPtrArray *
name_list (const FxsJson *list)
{
  GPtrArray *names = g_ptr_array_new_full (list ? list->n : 0, g_free);
  for (guint i = 0; list && i < list->n; i++)
    g_ptr_array_add (names, g_strndup (list->u.items[i].u.s, list->u.items[i].n));
  return names;
}

/* Keeps the entry @obj (checked) for fxs_split_file_verify(). */
static void
keep_partition (FxsLoadConv *c, const FxsJson *obj)
{
  FxsLoadPartition *p = g_new0 (FxsLoadPartition, 1);
  const FxsJson *name = fxs_json_member (obj, "name");
  const FxsJson *submodule = fxs_json_member (obj, "submodule");
  p->name = g_strndup (name->u.s, name->n);
  p->submodule = g_strndup (submodule->u.s, submodule->n);
  fxs_load_parse_integer (fxs_json_member (obj, "id")->u.s, &p->id);
  p->dependencies = name_list (fxs_json_member (obj, "dependencies"));
  p->dependents = name_list (fxs_json_member (obj, "dependents"));
  p->pos = obj->pos;
  g_ptr_array_add (c->loader->all->partitions, p);
}

static gboolean
check_partition (FxsLoadConv *c, const FxsJson *obj)
{
  static const char *const lists[] = { "nodes", "inputs", "outputs", "dependencies", "dependents" };
  static const char valid[] = "\"name\", \"id\", \"submodule\", \"label\", \"nodes\", "
    "\"inputs\", \"outputs\", \"dependencies\", \"dependents\"";
  gboolean have_name = FALSE, have_id = FALSE, have_submodule = FALSE;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i], *v = key + 1;
      FxsJsonPath p = { NULL, key->u.s, key->n, 0 };
      gboolean list = FALSE;
      for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
        list |= is_key (key, lists[k]);
      if (list)
        {
          if (!check_name_list (c, v, &p))
            return FALSE;
        }
      else if (is_key (key, "name") || is_key (key, "submodule") || is_key (key, "label"))
        {
          if (!fxs_load_check_text (c, v, &p, key->n == 4   ? "\"name\""
                                              : key->n == 5 ? "\"label\""
                                                            : "\"submodule\""))
            return FALSE;
          have_name |= key->n == 4;
          have_submodule |= key->n == 9;
        }
      else if (is_key (key, "id"))
        {
          gint64 id;
          if (v->type != FXS_JSON_NUMBER || !fxs_load_is_integer (v))
            return fxs_load_fail (c, FXS_ERROR_FORMAT, v, &p, "\"id\" must be an integer, not %s",
                                  fxs_load_type_name (v->type));
          if (!fxs_load_integer (c, v, &p, &id))
            return FALSE;
          have_id = TRUE;
        }
      else
        return fxs_load_unknown_member (c, key, NULL, valid);
    }
  if (!have_name || !have_id || !have_submodule)
    return fxs_load_fail (c, FXS_ERROR_FORMAT, obj, NULL, "a partition without \"%s\"",
                          !have_name ? "name" : !have_id ? "id" : "submodule");
  if (c->loader->all)
    keep_partition (c, obj);
  return TRUE;
}

/* ---- the file's structure ------------------------------------------------------- */

static FxsJsonAction
expect_type (FxsJsonReader *reader, const FxsJsonItem *item, FxsJsonType type,
             const char *what, FxsJsonAction action)
{
  if (item->type == type)
    return action;
  fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->pos, NULL, "%s must be %s, not %s",
                        what, fxs_load_type_name (type), fxs_load_type_name (item->type));
  return FXS_JSON_FAIL;
}

/* The members streamed at the top level (all of them) and in a submodule
 * (the first two); the first two are built with TAG_BUILD. */
static const struct {
  const char *key, *quoted;
  FxsJsonType type;
  int tag;
} streamed[] = {
  { "attributes", "\"attributes\"", FXS_JSON_OBJECT, TAG_ATTRS },
  { "nodes", "\"nodes\"", FXS_JSON_ARRAY, TAG_NODES },
  { "submodules", "\"submodules\"", FXS_JSON_ARRAY, TAG_SUBMODULES },
  { "partitions", "\"partitions\"", FXS_JSON_ARRAY, TAG_PARTITIONS },
  { "qualname_map", "\"qualname_map\"", FXS_JSON_OBJECT, TAG_QUALNAME_MAP },
};

/* Member @item (a key other than the head's) of the top level (@top) or
 * a submodule: streamed when it is one of streamed[], an x-... extension
 * read and ignored at the top, else an error. */
static FxsJsonAction
begin_member (FxsLoader *l, FxsJsonReader *reader, const FxsJsonItem *item, gboolean top,
              int build, int *tag)
{
  FxsLoadConv c = { l, reader, NULL, NULL };
  for (guint i = 0; i < (top ? G_N_ELEMENTS (streamed) : 2); i++)
    if (item_is (item, streamed[i].key))
      {
        *tag = streamed[i].tag | (i < 2 ? build : 0);
        if (streamed[i].tag == TAG_NODES)
          *(top ? &l->have_nodes : &l->entry_has_nodes) = TRUE;
        if (streamed[i].tag == TAG_PARTITIONS && l->all)
          l->all->has_partitions = TRUE;
        return expect_type (reader, item, streamed[i].type, streamed[i].quoted,
                            i == 0 && build ? FXS_JSON_STREAM_OWN_KEYS : FXS_JSON_STREAM);
      }
  if (top && g_str_has_prefix (item->key, "x-"))
    return FXS_JSON_COLLECT;
  fxs_load_fail_at (&c, FXS_ERROR_FORMAT, item->key_pos, NULL, "unknown member %s (expected %s)",
                    fxs_load_quoted (&c, item->key, item->key_len),
                    top ? "\"format\", \"version\", \"attributes\", \"nodes\", \"submodules\", "
                          "\"partitions\", \"qualname_map\" or \"x-...\""
                        : "\"name\", \"attributes\", \"nodes\"");
  return FXS_JSON_FAIL;
}

static FxsJsonAction
begin_top_member (FxsLoader *l, FxsJsonReader *reader, const FxsJsonItem *item, int *tag)
{
  FxsLoadConv c = { l, reader, NULL, NULL };
  if (item_is (item, "format") || item_is (item, "version"))
    return FXS_JSON_COLLECT;
  if (!(l->have_format && l->have_version))
    {
      fxs_load_fail_at (&c, FXS_ERROR_FORMAT, item->key_pos, NULL,
                        "found %s before \"format\" and \"version\": a graph file starts "
                        "with \"format\": \"" FORMAT_NAME "\", \"version\": %d",
                        fxs_load_quoted (&c, item->key, item->key_len), FXS_GRAPH_FORMAT_VERSION);
      return FXS_JSON_FAIL;
    }
  return begin_member (l, reader, item, TRUE, l->want ? 0 : TAG_BUILD, tag);
}

static FxsJsonAction
begin_submodule_member (FxsLoader *l, FxsJsonReader *reader, const FxsJsonItem *item, int *tag)
{
  if (item_is (item, "name"))
    return FXS_JSON_COLLECT;
  if (!l->entry_named)
    {
      fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->key_pos, NULL,
                            "\"name\" must be the first member of a submodule");
      return FXS_JSON_FAIL;
    }
  return begin_member (l, reader, item, FALSE, l->entry_build ? TAG_BUILD : 0, tag);
}

static FxsJsonAction
on_begin (FxsJsonReader *reader, gpointer data, const FxsJsonItem *item, int *tag)
{
  FxsLoader *l = data;
  switch (item->parent_tag & TAG_KIND_MASK)
    {
    case 0:
      *tag = TAG_TOP;
      if (item->type == FXS_JSON_OBJECT)
        return FXS_JSON_STREAM;
      fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, item->pos, NULL,
                            "a graph file is a JSON object, not %s",
                            fxs_load_type_name (item->type));
      return FXS_JSON_FAIL;
    case TAG_TOP:
      return begin_top_member (l, reader, item, tag);
    case TAG_ATTRS:
      if (item->parent_tag & TAG_BUILD)
        {
          /* its duplicate check comes once the object is read */
          l->attr_hash = fxs_name_hash (item->key, item->key_len);
          fxs_graph_name_prefetch (l->graph, FALSE, l->attr_hash);
        }
      return expect_type (reader, item, FXS_JSON_OBJECT, "an attribute", FXS_JSON_COLLECT);
    case TAG_NODES:
      return expect_type (reader, item, FXS_JSON_OBJECT, "a node", FXS_JSON_COLLECT);
    case TAG_SUBMODULES:
      l->entry_named = l->entry_build = l->entry_has_nodes = FALSE;
      *tag = TAG_SUBMODULE;
      return expect_type (reader, item, FXS_JSON_OBJECT, "a submodule", FXS_JSON_STREAM);
    case TAG_SUBMODULE:
      return begin_submodule_member (l, reader, item, tag);
    case TAG_PARTITIONS:
      return expect_type (reader, item, FXS_JSON_OBJECT, "a partition", FXS_JSON_COLLECT);
    case TAG_QUALNAME_MAP:
      return expect_type (reader, item, FXS_JSON_STRING, "a qualname map entry", FXS_JSON_COLLECT);
    default:
      g_return_val_if_reached (FXS_JSON_FAIL);
    }
}

static gboolean
top_value (FxsLoader *l, FxsJsonReader *reader, const FxsJsonItem *item, const FxsJson *v)
{
  FxsLoadConv c = { l, reader, NULL, NULL };
  if (item_is (item, "format"))
    {
      if (v->type != FXS_JSON_STRING || !is_key (v, FORMAT_NAME))
        return fxs_load_fail (&c, FXS_ERROR_FORMAT, v, NULL,
                              "not an fxsplit graph file: \"format\" must be \"" FORMAT_NAME "\"");
      l->have_format = TRUE;
    }
  else if (item_is (item, "version"))
    {
      gint64 version;
      if (v->type != FXS_JSON_NUMBER || !fxs_load_is_integer (v))
        return fxs_load_fail (&c, FXS_ERROR_FORMAT, v, NULL,
                              "\"version\" must be an integer, not %s",
                              fxs_load_type_name (v->type));
      char buf[64];
      if (!fxs_load_parse_integer (v->u.s, &version) || version != FXS_GRAPH_FORMAT_VERSION)
        return fxs_load_fail (&c, FXS_ERROR_VERSION, v, NULL,
                              "unsupported format version %s (this build reads version %d)",
                              fxs_load_shown (v, buf), FXS_GRAPH_FORMAT_VERSION);
      l->have_version = TRUE;
    }
  return TRUE; /* x-... extensions */
}

/* A qualname map entry, kept when loading a whole split result. */
static gboolean
qualname_entry (FxsLoader *l, FxsJsonReader *reader, const FxsJsonItem *item, const FxsJson *v)
{
  FxsLoadConv c = { l, reader, NULL, NULL };
  if (!l->all)
    return TRUE;
  if (item->key_len == 0 || strlen (item->key) != item->key_len)
    return fxs_load_fail_at (&c, FXS_ERROR_FORMAT, item->key_pos, NULL,
                             "a qualname map key must be non-empty and without NUL");
  FxsJsonPath p = { NULL, item->key, item->key_len, 0 };
  if (!fxs_load_check_text (&c, v, &p, "a qualname map value"))
    return FALSE;
  g_ptr_array_add (l->all->qualnames, g_strdup (item->key));
  g_ptr_array_add (l->all->qualnames, g_strdup (v->u.s));
  return TRUE;
}

static gboolean
submodule_name (FxsLoader *l, FxsJsonReader *reader, const FxsJson *v)
{
  FxsLoadConv c = { l, reader, NULL, NULL };
  if (!fxs_load_check_text (&c, v, NULL, "a submodule's \"name\""))
    return FALSE;
  if (g_hash_table_contains (l->submodule_names, v->u.s))
    return fxs_load_fail (&c, FXS_ERROR_GRAPH, v, NULL, "duplicate submodule name %s",
                          fxs_load_quoted (&c, v->u.s, v->n));
  char *name = g_strdup (v->u.s);
  g_hash_table_add (l->submodule_names, name);
  g_ptr_array_add (l->submodule_list, name);
  l->entry_named = TRUE;
  if (l->want && strcmp (l->want, name) == 0)
    {
      l->found = l->entry_build = TRUE;
      l->graph = fxs_graph_new ();
    }
  else if (l->all)
    {
      /* the top-level graph waits in l->all->top until the entry ends */
      l->entry_build = TRUE;
      l->graph = fxs_graph_new ();
      g_ptr_array_add (l->all->names, g_strdup (name));
      g_ptr_array_add (l->all->submodules, l->graph);
      fxs_meta_share_clear (l->share); /* it serves one graph at a time */
    }
  return TRUE;
}

static gboolean
on_value (FxsJsonReader *reader, gpointer data, const FxsJsonItem *item, const FxsJson *v)
{
  FxsLoader *l = data;
  gboolean build = (item->parent_tag & TAG_BUILD) != 0;
  FxsLoadConv c = { l, reader, l->graph, NULL };
  switch (item->parent_tag & TAG_KIND_MASK)
    {
    case TAG_TOP:
      return top_value (l, reader, item, v);
    case TAG_ATTRS:
      return fxs_load_attr (&c, item, v, build);
    case TAG_NODES:
      return fxs_load_node (l, reader, item, v, build);
    case TAG_SUBMODULE:
      return submodule_name (l, reader, v);
    case TAG_PARTITIONS:
      return check_partition (&c, v);
    case TAG_QUALNAME_MAP:
      return qualname_entry (l, reader, item, v);
    default:
      g_return_val_if_reached (FALSE);
    }
}

static gboolean
missing (FxsJsonReader *reader, gint64 pos, const char *what)
{
  fxs_json_reader_fail (reader, FXS_ERROR_FORMAT, pos, NULL, "no %s", what);
  return FALSE;
}

static gboolean
end_top (FxsLoader *l, FxsJsonReader *reader, gint64 pos)
{
  if (!l->have_format)
    return missing (reader, pos, "\"format\": not an fxsplit graph file");
  if (!l->have_version)
    return missing (reader, pos, "\"version\"");
  if (!l->have_nodes)
    return missing (reader, pos, "\"nodes\"");
  if (!l->want || l->found)
    return TRUE;
  GString *names = g_string_new (NULL);
  for (guint i = 0; i < l->submodule_list->len && i < 20; i++)
    {
      const char *name = l->submodule_list->pdata[i];
      g_string_append (names, i ? ", " : "");
      fxs_json_append_quoted (names, name, strlen (name));
    }
  if (l->submodule_list->len > 20)
    g_string_append_printf (names, " and %u more", l->submodule_list->len - 20);
  FxsLoadConv c = { l, reader, NULL, NULL };
  fxs_load_fail_at (&c, FXS_ERROR_GRAPH, pos, NULL, "no submodule %s (%s%s)",
                    fxs_load_quoted (&c, l->want, strlen (l->want)),
                    l->submodule_list->len ? "the file has " : "the file has no submodules",
                    names->str);
  g_string_free (names, TRUE);
  return FALSE;
}

static gboolean
on_end (FxsJsonReader *reader, gpointer data, int tag, guint64 n_members, gint64 pos)
{
  FxsLoader *l = data;
  (void) n_members;
  switch (tag & TAG_KIND_MASK)
    {
    case TAG_TOP:
      return end_top (l, reader, pos);
    case TAG_NODES:
      return fxs_load_end_nodes (l, reader, (tag & TAG_BUILD) != 0, pos);
    case TAG_SUBMODULE:
      if (!l->entry_named)
        return missing (reader, pos, "\"name\" in a submodule");
      if (!l->entry_has_nodes)
        return missing (reader, pos, "\"nodes\" in a submodule");
      if (l->all)
        {
          l->graph = l->all->top;
          fxs_meta_share_clear (l->share);
        }
      l->entry_build = FALSE;
      return TRUE;
    default:
      return TRUE;
    }
}

static const FxsJsonHandler handler = { on_begin, on_value, on_end };

/* ---- entry points ---------------------------------------------------------------- */

/* The input's size in bytes (0 when unknown). */
static gsize
input_size (const char *path, gsize length)
{
  GStatBuf st;
  if (!path)
    return length;
  return g_stat (path, &st) == 0 && st.st_size > 0 ? (gsize) st.st_size : 0;
}

/* One reading of the input by a new loader, the file at @path or else
 * @data (named @display_name, or "<data>", in messages). */
static FxsGraph *
load (const char *path, const char *data, gsize length, const char *display_name,
      const char *want, FxsLoadSplit *all, GError **error)
{
  /* big (its caches): not on the stack */
  FxsLoader *l = g_new0 (FxsLoader, 1);
  l->want = want;
  l->all = all;
  l->graph = want ? NULL : fxs_graph_new ();
  if (all)
    all->top = l->graph;
  if (l->graph && !all)
    /* a split result's top level is small */
    fxs_graph_expect_file (l->graph, input_size (path, length));
  l->submodule_names = g_hash_table_new (g_str_hash, g_str_equal);
  l->submodule_list = g_ptr_array_new_with_free_func (g_free);
  l->share = fxs_meta_share_new ();
  l->quoted = g_string_new (NULL);
  FxsJsonReader *reader = fxs_json_reader_new (path ? path : display_name ? display_name : "<data>",
                                               &handler, l);
  gboolean ok = path ? fxs_json_reader_parse_file (reader, path, error)
                     : fxs_json_reader_parse_data (reader, data ? data : "", length, error);
  fxs_json_reader_free (reader);
  g_hash_table_unref (l->submodule_names);
  g_ptr_array_unref (l->submodule_list);
  fxs_meta_share_free (l->share);
  g_string_free (l->quoted, TRUE);
  g_free (l->forward.name);
  if (l->forward.message)
    g_string_free (l->forward.message, TRUE);
  if (all)
    {
      /* the submodule being read when it failed is in all->submodules */
      l->graph = all->top;
      all->top = NULL;
    }
  FxsGraph *graph = l->graph;
  g_free (l);
  if (!ok)
    {
      fxs_graph_unref (graph);
      return NULL;
    }
  return graph;
}

FxsGraph *
fxs_graph_load_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  return load (path, NULL, 0, NULL, NULL, NULL, error);
}

FxsGraph *
fxs_graph_load_submodule_file (const char *path, const char *submodule, GError **error)
{
  g_return_val_if_fail (path != NULL && submodule != NULL, NULL);
  return load (path, NULL, 0, NULL, submodule, NULL, error);
}

FxsGraph *
fxs_graph_load_data (const char *data, gsize length, const char *display_name, GError **error)
{
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  return load (NULL, data, length, display_name, NULL, NULL, error);
}

gboolean
fxs_load_split (const char *path, const char *data, gsize length, const char *display_name,
                FxsLoadSplit *out, GError **error)
{
  out->top = load (path, data, length, display_name, NULL, out, error);
  return out->top != NULL;
}
