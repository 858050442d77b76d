/* Node metadata met lately (graph-load-private.h, FxsMetaMemo): neighbouring
 * nodes of a graph mostly repeat a few metadata values ({"tensor": ...,
 * "stage": 3}), and converting one is a pure function of its JSON except
 * where it refers to a node.  So a node whose meta is equal, value for
 * value, to one of the last few converted in the same graph takes the same
 * FxsNodeMeta (immutable; setters copy it first): no conversion, no memory. */
#include "graph-load-private.h"

#define RECENT 8

typedef struct {
  const FxsNodeMeta *meta;  /* NULL: an empty entry */
  guint64 text_id;          /* its text's (fxs_json_reader_repeat_id()), or 0 */
  FxsJson *json;            /* without a text_id: a copy, in one block of its own */
} Recent;

struct FxsMetaMemo {
  Recent recent[RECENT];
  guint next;               /* the entry to replace */
  guint last;               /* the entry found or added last */
};

FxsMetaMemo *
fxs_meta_memo_new (void)
{
  return g_new0 (FxsMetaMemo, 1);
}

void
fxs_meta_memo_clear (FxsMetaMemo *m)
{
  for (guint i = 0; i < RECENT; i++)
    {
      g_free (m->recent[i].json);
      m->recent[i] = (Recent) { NULL, 0, NULL };
    }
}

void
fxs_meta_memo_free (FxsMetaMemo *m)
{
  if (!m)
    return;
  fxs_meta_memo_clear (m);
  g_free (m);
}

static gboolean
equal_json (const FxsJson *a, const FxsJson *b)
{
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
      /* texts are zero-padded (json-reader.h), and so are the memo's copies */
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
fxs_meta_memo_find (FxsMetaMemo *m, const FxsJson *json, guint64 text_id,
                    const FxsNodeMeta **meta)
{
  /* the last one found or added first: runs of equal metas are common */
  for (guint k = 0; k < RECENT; k++)
    {
      guint i = (m->last + k) % RECENT;
      const Recent *r = &m->recent[i];
      if (r->meta && (text_id ? r->text_id == text_id : r->json && equal_json (r->json, json)))
        {
          m->last = i;
          *meta = r->meta;
          return TRUE;
        }
    }
  return FALSE;
}

void
fxs_meta_memo_add (FxsMetaMemo *m, const FxsJson *json, guint64 text_id,
                   const FxsNodeMeta *meta)
{
  if (refers_to_node (json))
    return;
  Recent *r = &m->recent[m->next];
  g_free (r->json);
  /* the text's identifier says it all: no copy to compare */
  r->json = text_id ? NULL : fxs_json_tree_copy (json, g_malloc (fxs_json_tree_bytes (json)));
  r->text_id = text_id;
  r->meta = meta;
  m->last = m->next;
  m->next = (m->next + 1) % RECENT;
}
