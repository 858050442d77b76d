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

/* The names of a list that fxs_load_members() accepted. */
static GPtrArray *
name_list (const FxsJson *list)
{
  GPtrArray *names = g_ptr_array_new_full (list ? list->n : 0, g_free);
  for (guint i = 0; list && i < list->n; i++)
    g_ptr_array_add (names, g_strndup (list->u.items[i].u.s, list->u.items[i].n));
  return names;
}

enum { NAME, ID, SUBMODULE, LABEL, NODES, INPUTS, OUTPUTS, DEPENDENCIES, DEPENDENTS, N_PARTITION };

/* A partition entry, kept for fxs_split_file_verify() when loading a whole
 * split result. */
static gboolean
check_partition (FxsLoader *l, const FxsJson *obj)
{
  static const FxsMember members[N_PARTITION] = {
    [NAME] = FXS_MEMBER ("name", FXS_MEMBER_TEXT, .missing = "a partition without \"name\""),
    [ID] = FXS_MEMBER ("id", FXS_MEMBER_INTEGER, .missing = "a partition without \"id\""),
    [SUBMODULE] = FXS_MEMBER ("submodule", FXS_MEMBER_TEXT,
                              .missing = "a partition without \"submodule\""),
    [LABEL] = FXS_MEMBER ("label", FXS_MEMBER_TEXT),
    [NODES] = FXS_MEMBER ("nodes", FXS_MEMBER_NAMES),
    [INPUTS] = FXS_MEMBER ("inputs", FXS_MEMBER_NAMES),
    [OUTPUTS] = FXS_MEMBER ("outputs", FXS_MEMBER_NAMES),
    [DEPENDENCIES] = FXS_MEMBER ("dependencies", FXS_MEMBER_NAMES),
    [DEPENDENTS] = FXS_MEMBER ("dependents", FXS_MEMBER_NAMES),
  };
  const FxsJson *m[N_PARTITION];
  if (!fxs_load_members (l, obj, members, N_PARTITION, m))
    return FALSE;
  if (!l->all)
    return TRUE;
  FxsLoadPartition *p = g_new0 (FxsLoadPartition, 1);
  p->name = g_strndup (m[NAME]->u.s, m[NAME]->n);
  p->submodule = g_strndup (m[SUBMODULE]->u.s, m[SUBMODULE]->n);
  p->dependencies = name_list (m[DEPENDENCIES]);
  p->dependents = name_list (m[DEPENDENTS]);
  g_ptr_array_add (l->all->partitions, p);
  return TRUE;
}

/* ---- the file's structure ------------------------------------------------------- */

static FxsJsonAction
expect_type (FxsLoader *l, const FxsJsonItem *item, FxsJsonType type, const char *what,
             FxsJsonAction action)
{
  if (item->type == type)
    return action;
  fxs_json_reader_fail (l->reader, FXS_ERROR_FORMAT, item->pos, "%s must be %s, not %s",
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

/* Member @item of the top level (@top) or of a submodule: its head
 * ("format" and "version", or "name") collected, then the members of
 * streamed[] streamed, an x-... extension read and ignored at the top, else
 * an error. */
static FxsJsonAction
begin_member (FxsLoader *l, const FxsJsonItem *item, gboolean top, int *tag)
{
  if (top ? item_is (item, "format") || item_is (item, "version") : item_is (item, "name"))
    return FXS_JSON_COLLECT;
  if (top && !(l->have_format && l->have_version))
    {
      fxs_json_reader_fail (l->reader, FXS_ERROR_FORMAT, item->key_pos,
                            "found %s before \"format\" and \"version\": a graph file starts "
                            "with \"format\": \"" FORMAT_NAME "\", \"version\": %d",
                            fxs_load_quoted (l, item->key, item->key_len),
                            FXS_GRAPH_FORMAT_VERSION);
      return FXS_JSON_FAIL;
    }
  if (!top && !l->entry_named)
    {
      fxs_json_reader_fail (l->reader, FXS_ERROR_FORMAT, item->key_pos,
                            "\"name\" must be the first member of a submodule");
      return FXS_JSON_FAIL;
    }
  gboolean build = top ? !l->want : l->entry_build;
  for (guint i = 0; i < (top ? G_N_ELEMENTS (streamed) : 2); i++)
    if (item_is (item, streamed[i].key))
      {
        *tag = streamed[i].tag | (i < 2 && build ? TAG_BUILD : 0);
        if (streamed[i].tag == TAG_NODES)
          *(top ? &l->have_nodes : &l->entry_has_nodes) = TRUE;
        if (streamed[i].tag == TAG_PARTITIONS && l->all)
          l->all->has_partitions = TRUE;
        return expect_type (l, item, streamed[i].type, streamed[i].quoted,
                            i == 0 && build ? FXS_JSON_STREAM_OWN_KEYS : FXS_JSON_STREAM);
      }
  if (top && g_str_has_prefix (item->key, "x-"))
    return FXS_JSON_COLLECT;
  fxs_json_reader_fail (l->reader, FXS_ERROR_FORMAT, item->key_pos,
                        "unknown member %s (expected %s)",
                        fxs_load_quoted (l, item->key, item->key_len),
                        top ? "\"format\", \"version\", \"attributes\", \"nodes\", "
                              "\"submodules\", \"partitions\", \"qualname_map\" or \"x-...\""
                            : "\"name\", \"attributes\", \"nodes\"");
  return FXS_JSON_FAIL;
}

static FxsJsonAction
on_begin (gpointer data, const FxsJsonItem *item, int *tag)
{
  FxsLoader *l = data;
  switch (item->parent_tag & TAG_KIND_MASK)
    {
    case 0:
      *tag = TAG_TOP;
      if (item->type == FXS_JSON_OBJECT)
        return FXS_JSON_STREAM;
      fxs_json_reader_fail (l->reader, FXS_ERROR_FORMAT, item->pos,
                            "a graph file is a JSON object, not %s",
                            fxs_load_type_name (item->type));
      return FXS_JSON_FAIL;
    case TAG_TOP:
      return begin_member (l, item, TRUE, tag);
    case TAG_ATTRS:
      if (item->parent_tag & TAG_BUILD)
        {
          /* its duplicate check comes once the object is read */
          l->attr_hash = fxs_name_hash (item->key, item->key_len);
          fxs_graph_name_prefetch (l->graph, FALSE, l->attr_hash);
        }
      return expect_type (l, item, FXS_JSON_OBJECT, "an attribute", FXS_JSON_COLLECT);
    case TAG_NODES:
      return expect_type (l, item, FXS_JSON_OBJECT, "a node", FXS_JSON_COLLECT);
    case TAG_SUBMODULES:
      l->entry_named = l->entry_build = l->entry_has_nodes = FALSE;
      *tag = TAG_SUBMODULE;
      return expect_type (l, item, FXS_JSON_OBJECT, "a submodule", FXS_JSON_STREAM);
    case TAG_SUBMODULE:
      return begin_member (l, item, FALSE, tag);
    case TAG_PARTITIONS:
      return expect_type (l, item, FXS_JSON_OBJECT, "a partition", FXS_JSON_COLLECT);
    case TAG_QUALNAME_MAP:
      return expect_type (l, item, FXS_JSON_STRING, "a qualname map entry", FXS_JSON_COLLECT);
    default:
      g_return_val_if_reached (FXS_JSON_FAIL);
    }
}

static gboolean
top_value (FxsLoader *l, const FxsJsonItem *item, const FxsJson *v)
{
  if (item_is (item, "format"))
    {
      if (v->type != FXS_JSON_STRING || !is_key (v, FORMAT_NAME))
        return fxs_load_fail (l, FXS_ERROR_FORMAT, v,
                              "not an fxsplit graph file: \"format\" must be \"" FORMAT_NAME "\"");
      l->have_format = TRUE;
    }
  else if (item_is (item, "version"))
    {
      gint64 version;
      if (v->type != FXS_JSON_NUMBER || !fxs_load_is_integer (v))
        return fxs_load_fail (l, FXS_ERROR_FORMAT, v,
                              "\"version\" must be an integer, not %s",
                              fxs_load_type_name (v->type));
      if (!fxs_load_parse_integer (v->u.s, &version) || version != FXS_GRAPH_FORMAT_VERSION)
        return fxs_load_fail (l, FXS_ERROR_VERSION, v,
                              "unsupported format version %s (this build reads version %d)",
                              fxs_load_shown (l, v), FXS_GRAPH_FORMAT_VERSION);
      l->have_version = TRUE;
    }
  return TRUE; /* x-... extensions */
}

/* A qualname map entry, kept when loading a whole split result. */
static gboolean
qualname_entry (FxsLoader *l, const FxsJsonItem *item, const FxsJson *v)
{
  if (!l->all)
    return TRUE;
  if (item->key_len == 0 || strlen (item->key) != item->key_len)
    return fxs_load_fail_at (l, FXS_ERROR_FORMAT, item->key_pos, NULL,
                             "a qualname map key must be non-empty and without NUL");
  if (!fxs_load_check_text (l, v, "a qualname map value"))
    return FALSE;
  /* no key appears twice in an object: the reader checks */
  g_hash_table_insert (l->all->qualname_map, g_strdup (item->key), g_strdup (v->u.s));
  return TRUE;
}

static gboolean
submodule_name (FxsLoader *l, const FxsJson *v)
{
  if (!fxs_load_check_text (l, v, "a submodule's \"name\""))
    return FALSE;
  if (g_hash_table_contains (l->submodule_names, v->u.s))
    return fxs_load_fail (l, FXS_ERROR_GRAPH, v, "duplicate submodule name %s",
                          fxs_load_quoted (l, v->u.s, v->n));
  char *name = g_strdup (v->u.s);
  g_hash_table_add (l->submodule_names, name);
  g_ptr_array_add (l->submodule_list, name);
  l->entry_named = TRUE;
  if (l->want && strcmp (l->want, name) == 0)
    {
      l->entry_build = TRUE;
      l->graph = fxs_graph_new ();
    }
  else if (l->all)
    {
      /* the top-level graph waits in l->top until the entry ends */
      l->entry_build = TRUE;
      l->graph = fxs_graph_new ();
      g_ptr_array_add (l->all->names, g_strdup (name));
      g_ptr_array_add (l->all->submodules, l->graph);
      fxs_meta_share_clear (l->share); /* it serves one graph at a time */
    }
  return TRUE;
}

static gboolean
on_value (gpointer data, const FxsJsonItem *item, const FxsJson *v)
{
  FxsLoader *l = data;
  gboolean build = (item->parent_tag & TAG_BUILD) != 0;
  l->root = v;
  l->node_name = NULL;
  switch (item->parent_tag & TAG_KIND_MASK)
    {
    case TAG_TOP:
      return top_value (l, item, v);
    case TAG_ATTRS:
      return fxs_load_attr (l, item, v, build);
    case TAG_NODES:
      return fxs_load_node (l, item, v, build);
    case TAG_SUBMODULE:
      return submodule_name (l, v);
    case TAG_PARTITIONS:
      return check_partition (l, v);
    case TAG_QUALNAME_MAP:
      return qualname_entry (l, item, v);
    default:
      g_return_val_if_reached (FALSE);
    }
}

static gboolean
missing (FxsLoader *l, gint64 pos, const char *what)
{
  return fxs_json_reader_fail (l->reader, FXS_ERROR_FORMAT, pos, "no %s", what);
}

static gboolean
end_top (FxsLoader *l, gint64 pos)
{
  if (!l->have_format)
    return missing (l, pos, "\"format\": not an fxsplit graph file");
  if (!l->have_version)
    return missing (l, pos, "\"version\"");
  if (!l->have_nodes)
    return missing (l, pos, "\"nodes\"");
  if (l->graph) /* the top level, or the submodule wanted */
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
  fxs_json_reader_fail (l->reader, FXS_ERROR_GRAPH, pos, "no submodule %s (%s%s)",
                    fxs_load_quoted (l, l->want, strlen (l->want)),
                    l->submodule_list->len ? "the file has " : "the file has no submodules",
                    names->str);
  g_string_free (names, TRUE);
  return FALSE;
}

static gboolean
on_end (gpointer data, int tag, gint64 pos)
{
  FxsLoader *l = data;
  switch (tag & TAG_KIND_MASK)
    {
    case TAG_TOP:
      return end_top (l, pos);
    case TAG_NODES:
      return fxs_load_end_nodes (l, (tag & TAG_BUILD) != 0, pos);
    case TAG_SUBMODULE:
      if (!l->entry_named)
        return missing (l, pos, "\"name\" in a submodule");
      if (!l->entry_has_nodes)
        return missing (l, pos, "\"nodes\" in a submodule");
      if (l->all)
        {
          l->graph = l->top;
          fxs_meta_share_clear (l->share);
        }
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
  l->top = l->graph = want ? NULL : fxs_graph_new ();
  if (l->graph && !all)
    /* a split result's top level is small */
    fxs_graph_expect_file (l->graph, input_size (path, length));
  l->submodule_names = g_hash_table_new (g_str_hash, g_str_equal);
  l->submodule_list = g_ptr_array_new_with_free_func (g_free);
  l->share = fxs_meta_share_new ();
  l->quoted = g_string_new (NULL);
  l->reader = fxs_json_reader_new (path ? path : display_name, &handler, l);
  gboolean ok = fxs_json_reader_parse (l->reader, path, data ? data : "", length, error);
  fxs_json_reader_free (l->reader);
  g_hash_table_unref (l->submodule_names);
  g_ptr_array_unref (l->submodule_list);
  fxs_meta_share_free (l->share);
  g_string_free (l->quoted, TRUE);
  g_free (l->forward.name);
  if (l->forward.message)
    g_string_free (l->forward.message, TRUE);
  /* l->graph may be a submodule of a whole split result: all->submodules has it */
  FxsGraph *graph = want ? l->graph : l->top;
  g_free (l);
  if (!ok)
    g_clear_pointer (&graph, fxs_graph_unref);
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
