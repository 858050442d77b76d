/* Node metadata met lately (graph-load-private.h, FxsMetaMemo): neighbouring
 * nodes of a graph mostly repeat a few metadata values ({"tensor": ...,
 * "stage": 3}), and converting one is a pure function of its JSON except
 * where it refers to a node.  So a node whose meta is equal, value for
 * value, to one of the last few converted in the same graph takes the same
 * FxsNodeMeta (immutable; setters copy it first): no conversion, no memory. */
#include "graph-load-private.h"

#define RECENT 4

typedef struct {
  FxsJson *json;            /* a copy, in one block of its own */
  const FxsNodeMeta *meta;
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
    g_clear_pointer (&m->recent[i].json, g_free);
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

/* The bytes a copy of @j takes; FALSE when it refers to a node (an object
 * with a "node" member at any depth), whose conversion depends on the graph. */
static gboolean
measure_json (const FxsJson *j, gsize *size)
{
  if (j->type == FXS_JSON_NUMBER || j->type == FXS_JSON_STRING)
    *size += 8 * (j->n / 8 + 1);
  else if (j->type == FXS_JSON_ARRAY || j->type == FXS_JSON_OBJECT)
    {
      guint n = j->type == FXS_JSON_OBJECT ? 2 * j->n : j->n;
      *size += n * sizeof (FxsJson);
      for (guint i = 0; i < n; i++)
        {
          const FxsJson *v = &j->u.items[i];
          if (j->type == FXS_JSON_OBJECT && i % 2 == 0 && v->n == 4
              && memcmp (v->u.s, "node", 4) == 0)
            return FALSE;
          if (!measure_json (v, size))
            return FALSE;
        }
    }
  return TRUE;
}

/* @from into @to, its items and texts taken from *@free (as measured). */
static void
copy_json (const FxsJson *from, FxsJson *to, char **free)
{
  *to = *from;
  if (from->type == FXS_JSON_NUMBER || from->type == FXS_JSON_STRING)
    {
      /* with its padding, which equal_json() compares */
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
        copy_json (&from->u.items[i], &items[i], free);
      to->u.items = n ? items : NULL;
    }
}

gboolean
fxs_meta_memo_find (FxsMetaMemo *m, const FxsJson *json, const FxsNodeMeta **meta)
{
  /* the last one found or added first: runs of equal metas are common */
  for (guint k = 0; k < RECENT; k++)
    {
      guint i = (m->last + k) % RECENT;
      if (m->recent[i].json && equal_json (m->recent[i].json, json))
        {
          m->last = i;
          *meta = m->recent[i].meta;
          return TRUE;
        }
    }
  return FALSE;
}

void
fxs_meta_memo_add (FxsMetaMemo *m, const FxsJson *json, const FxsNodeMeta *meta)
{
  gsize size = sizeof (FxsJson);
  if (!measure_json (json, &size))
    return;
  /* items first, then texts, all 8-byte aligned */
  char *block = g_malloc (size), *free = block + sizeof (FxsJson);
  copy_json (json, (FxsJson *) block, &free);
  Recent *r = &m->recent[m->next];
  g_free (r->json);
  r->json = (FxsJson *) block;
  r->meta = meta;
  m->last = m->next;
  m->next = (m->next + 1) % RECENT;
}
