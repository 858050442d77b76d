/* A JSON object of integers read by the one JSON reader (fxsplit/text-file.h). */
#include <fxsplit/text-file.h>
#include "json-reader.h"
#include "graph-load-private.h"

typedef struct {
  FxsJsonReader *reader;
  FxsJsonIntMemberFunc each;
  gpointer user_data;
} IntMap;

static FxsJsonAction
on_begin (gpointer data, const FxsJsonItem *item, int *tag)
{
  IntMap *m = data;
  if (item->parent_tag == 1)
    return FXS_JSON_COLLECT;
  if (item->type == FXS_JSON_OBJECT)
    {
      *tag = 1;
      /* the caller keeps the keys: it rejects a repeated one itself */
      return FXS_JSON_STREAM_OWN_KEYS;
    }
  fxs_json_reader_fail (m->reader, FXS_ERROR_PARSE, item->pos, "not a JSON object");
  return FXS_JSON_FAIL;
}

static gboolean
on_value (gpointer data, const FxsJsonItem *item, const FxsJson *v)
{
  IntMap *m = data;
  gint64 id;
  gboolean is_int = v->type == FXS_JSON_NUMBER && fxs_load_is_integer (v)
                    && fxs_load_parse_integer (v->u.s, &id);
  GError *e = NULL;
  if (m->each (item->key, item->key_len, is_int ? &id : NULL, m->user_data, &e))
    return TRUE;
  fxs_json_reader_fail_message (m->reader, e ? (FxsErrorCode) e->code : FXS_ERROR_PARSE,
                                is_int ? item->key_pos : item->pos,
                                e ? e->message : "rejected");
  g_clear_error (&e);
  return FALSE;
}

gboolean
fxs_json_read_int_map (const char *data, gsize length, const char *display_name,
                       FxsJsonIntMemberFunc each, gpointer user_data, GError **error)
{
  static const FxsJsonHandler handler = { on_begin, on_value, NULL };
  IntMap m = { NULL, each, user_data };
  m.reader = fxs_json_reader_new (display_name, &handler, &m);
  gboolean ok = fxs_json_reader_parse (m.reader, NULL, data, length, error);
  fxs_json_reader_free (m.reader);
  return ok;
}
