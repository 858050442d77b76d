/* Node metadata by content (graph-load-private.h, FxsMetaMemo): the nodes
 * of a graph mostly share a few metadata values ({"tensor": ..., "stage":
 * 3}), and converting one is a pure function of its JSON except where it
 * refers to a node.  So every node whose meta JSON is equal, value for
 * value, to one converted before in the same graph takes the same
 * FxsNodeMeta (immutable; setters copy it first): converted and stored once.
 * This is the one place where metadata is de-duplicated by its text. */
#include "graph-load-private.h"

/* Distinct texts kept at most: a graph whose metas are all different (each
 * refers to its own shape) keeps no more than this many copies. */
#define MAX_DISTINCT 4096

struct FxsMetaMemo {
  GHashTable *by_json;      /* FxsJson copy (one block, owned) -> const FxsNodeMeta * */
  /* the entry found or added last, compared first: neighbouring nodes
   * mostly have equal metas (a stage's tag), and a compare that fails
   * stops at the first difference, where a hash reads all of the tree */
  const FxsJson *last_json;
  const FxsNodeMeta *last_meta;
};

/* ---- copies of trees ------------------------------------------------------- */

static gsize
tree_bytes (const FxsJson *j)
{
  gsize size = sizeof (FxsJson);
  if (j->type == FXS_JSON_NUMBER || j->type == FXS_JSON_STRING)
    size += 8 * (j->n / 8 + 1);
  else if (j->type == FXS_JSON_ARRAY || j->type == FXS_JSON_OBJECT)
    {
      guint n = j->type == FXS_JSON_OBJECT ? 2 * j->n : j->n;
      for (guint i = 0; i < n; i++)
        size += tree_bytes (&j->u.items[i]);
    }
  return size;
}

/* @from's items and texts into *@free on, @from itself into @to. */
static void
copy_below (const FxsJson *from, FxsJson *to, char **free)
{
  *to = *from;
  if (from->type == FXS_JSON_NUMBER || from->type == FXS_JSON_STRING)
    {
      /* with its padding (json-reader.h) */
      gsize words = from->n / 8 + 1;
      memcpy (*free, from->u.s, 8 * words);
      to->u.s = *free;
      *free += 8 * words;
    }
  else if (from->type == FXS_JSON_ARRAY || from->type == FXS_JSON_OBJECT)
    {
      guint n = from->type == FXS_JSON_OBJECT ? 2 * from->n : from->n;
      FxsJson *items = (FxsJson *) *free;
      *free += n * sizeof (FxsJson);
      for (guint i = 0; i < n; i++)
        copy_below (&from->u.items[i], &items[i], free);
      to->u.items = n ? items : NULL;
    }
}

/* @j and all below it in one g_malloc() block. */
static FxsJson *
tree_copy (const FxsJson *j)
{
  FxsJson *block = g_malloc (tree_bytes (j));
  char *free = (char *) block + sizeof (FxsJson);
  copy_below (j, block, &free);
  return block;
}

/* ---- the table ------------------------------------------------------------- */

static guint
hash_json (gconstpointer p)
{
  const FxsJson *j = p;
  guint h = j->type * 31u + j->n;
  switch ((FxsJsonType) j->type)
    {
    case FXS_JSON_NULL:
      break;
    case FXS_JSON_BOOL:
      h = h * 31u + !!j->u.b;
      break;
    case FXS_JSON_NUMBER:
    case FXS_JSON_STRING:
      for (guint i = 0; i < j->n; i++)
        h = (h ^ (guchar) j->u.s[i]) * 16777619u;
      break;
    case FXS_JSON_ARRAY:
    case FXS_JSON_OBJECT:
      {
        guint n = j->type == FXS_JSON_OBJECT ? 2 * j->n : j->n;
        for (guint i = 0; i < n; i++)
          h = h * 31u + hash_json (&j->u.items[i]);
        break;
      }
    }
  return h;
}

static gboolean
equal_json (gconstpointer pa, gconstpointer pb)
{
  const FxsJson *a = pa, *b = pb;
  if (a->type != b->type || a->n != b->n)
    return FALSE;
  switch ((FxsJsonType) a->type)
    {
    case FXS_JSON_NULL:
      return TRUE;
    case FXS_JSON_BOOL:
      return !a->u.b == !b->u.b;
    case FXS_JSON_NUMBER:
    case FXS_JSON_STRING:
      /* texts are zero-padded (json-reader.h), and so are the copies */
      return fxs_load_same_text (a->u.s, b->u.s, a->n);
    case FXS_JSON_ARRAY:
    case FXS_JSON_OBJECT:
      {
        guint n = a->type == FXS_JSON_OBJECT ? 2 * a->n : a->n;
        for (guint i = 0; i < n; i++)
          if (!equal_json (&a->u.items[i], &b->u.items[i]))
            return FALSE;
        return TRUE;
      }
    }
  return FALSE;
}

FxsMetaMemo *
fxs_meta_memo_new (void)
{
  FxsMetaMemo *m = g_new0 (FxsMetaMemo, 1);
  m->by_json = g_hash_table_new_full (hash_json, equal_json, g_free, NULL);
  return m;
}

void
fxs_meta_memo_clear (FxsMetaMemo *m)
{
  g_hash_table_remove_all (m->by_json);
  m->last_json = NULL;
  m->last_meta = NULL;
}

void
fxs_meta_memo_free (FxsMetaMemo *m)
{
  if (!m)
    return;
  g_hash_table_unref (m->by_json);
  g_free (m);
}

/* Whether @j refers to a node (an object with a "node" member at any
 * depth): its conversion then depends on the graph. */
static gboolean
refers_to_node (const FxsJson *j)
{
  if (j->type != FXS_JSON_ARRAY && j->type != FXS_JSON_OBJECT)
    return FALSE;
  guint n = j->type == FXS_JSON_OBJECT ? 2 * j->n : j->n;
  for (guint i = 0; i < n; i++)
    {
      const FxsJson *v = &j->u.items[i];
      if (j->type == FXS_JSON_OBJECT && i % 2 == 0 && v->n == 4 && memcmp (v->u.s, "node", 4) == 0)
        return TRUE;
      if (refers_to_node (v))
        return TRUE;
    }
  return FALSE;
}

gboolean
fxs_meta_memo_find (FxsMetaMemo *m, const FxsJson *json, const FxsNodeMeta **meta)
{
  if (m->last_json && equal_json (m->last_json, json))
    {
      *meta = m->last_meta;
      return TRUE;
    }
  gpointer key, found;
  if (!g_hash_table_lookup_extended (m->by_json, json, &key, &found))
    return FALSE;
  m->last_json = key;
  m->last_meta = found;
  *meta = found;
  return TRUE;
}

void
fxs_meta_memo_add (FxsMetaMemo *m, const FxsJson *json, const FxsNodeMeta *meta)
{
  if (g_hash_table_size (m->by_json) >= MAX_DISTINCT || refers_to_node (json))
    return;
  FxsJson *copy = tree_copy (json);
  g_hash_table_insert (m->by_json, copy, (gpointer) meta);
  m->last_json = copy;
  m->last_meta = meta;
}
