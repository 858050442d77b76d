/* Writing graphs as graph files (docs/graph-format.md): deterministic, one
 * node per line, the inverse of graph-load.c. */
#include <fxsplit/io.h>
#include "model/graph-private.h"
#include "json-writer.h"

#include <math.h>
#include <string.h>

static void write_value (FxsJsonWriter *w, const FxsValue *v);

static void
write_items (FxsJsonWriter *w, const FxsValue *items, guint n)
{
  fxs_json_write_literal (w, "[");
  for (guint i = 0; i < n; i++)
    {
      if (i)
        fxs_json_write_literal (w, ", ");
      write_value (w, &items[i]);
    }
  fxs_json_write_literal (w, "]");
}

static void
write_value (FxsJsonWriter *w, const FxsValue *v)
{
  char buf[32];
  switch ((FxsValueKind) v->kind)
    {
    case FXS_VALUE_NONE:
      fxs_json_write_literal (w, "null");
      break;
    case FXS_VALUE_BOOL:
      fxs_json_write_raw (w, v->u.b ? "true" : "false");
      break;
    case FXS_VALUE_INT:
      fxs_json_write_int (w, v->u.i);
      break;
    case FXS_VALUE_FLOAT:
      /* Python's repr ("1.0", "1e-05"), or {"float": "inf"} when not finite */
      fxs_format_float (v->u.f, buf);
      if (!isfinite (v->u.f))
        fxs_json_write_literal (w, "{\"float\": \"");
      fxs_json_write_raw (w, buf);
      if (!isfinite (v->u.f))
        fxs_json_write_literal (w, "\"}");
      break;
    case FXS_VALUE_STRING:
      fxs_json_write_string (w, v->u.s, v->n);
      break;
    case FXS_VALUE_LIST:
      write_items (w, v->u.items, v->n);
      break;
    case FXS_VALUE_TUPLE:
    case FXS_VALUE_SLICE:
      fxs_json_write_raw (w, v->kind == FXS_VALUE_TUPLE ? "{\"tuple\": " : "{\"slice\": ");
      write_items (w, v->u.items, v->n);
      fxs_json_write_literal (w, "}");
      break;
    case FXS_VALUE_DICT:
      fxs_json_write_literal (w, "{\"dict\": [");
      for (guint i = 0; i < v->n; i++)
        {
          if (i)
            fxs_json_write_literal (w, ", ");
          write_items (w, &v->u.items[2 * i], 2);  /* [key, value] */
        }
      fxs_json_write_literal (w, "]}");
      break;
    case FXS_VALUE_ELLIPSIS:
      fxs_json_write_literal (w, "{\"ellipsis\": true}");
      break;
    case FXS_VALUE_NODE:
      fxs_json_write_literal (w, "{\"node\": ");
      fxs_json_write_cstring (w, v->u.node->name);
      fxs_json_write_literal (w, "}");
      break;
    case FXS_VALUE_OPAQUE:
      fxs_json_write_literal (w, "{\"opaque\": ");
      fxs_json_write_string (w, v->u.items[0].u.s, v->u.items[0].n);
      fxs_json_write_literal (w, ", \"repr\": ");
      fxs_json_write_string (w, v->u.items[1].u.s, v->u.items[1].n);
      fxs_json_write_literal (w, "}");
      break;
    }
}

/* Whether @key (as a C string, up to a NUL) names a meta entry that the
 * format reads itself; the first byte spares most keys the comparisons. */
static gboolean
is_reserved (const char *key)
{
  switch (key[0])
    {
    case 't': return strcmp (key, "tensor") == 0 || strcmp (key, "tensors") == 0;
    case 'f': return strcmp (key, "free_symbols") == 0;
    case 's': return strcmp (key, "symbol") == 0;
    default: return FALSE;
    }
}

/* Members of a dict with string keys as a JSON object's members, each
 * preceded by ", " unless it is the very first of the object (*@first). */
static void
write_dict_members (FxsJsonWriter *w, const FxsValue *dict, gboolean skip_reserved,
                    gboolean *first)
{
  for (guint i = 0; i < dict->n; i++)
    {
      const FxsValue *key = &dict->u.items[2 * i];
      if (key->kind != FXS_VALUE_STRING)
        {
          g_warning ("graph file writer: skipping a dict entry whose key is not a string");
          continue;
        }
      if (skip_reserved && is_reserved (key->u.s))
        {
          g_warning ("graph file writer: skipping free-form meta entry \"%s\", a reserved name",
                     key->u.s);
          continue;
        }
      if (!*first)
        fxs_json_write_literal (w, ", ");
      *first = FALSE;
      fxs_json_write_string (w, key->u.s, key->n);
      fxs_json_write_literal (w, ": ");
      write_value (w, &dict->u.items[2 * i + 1]);
    }
}

/* @before (a literal), then the "shape" and "dtype" members, as tensor
 * metadata and attributes have them. */
static inline void
write_shape_and_dtype (FxsJsonWriter *w, const char *before, const FxsTensorMeta *t)
{
  fxs_json_write_raw (w, before);
  fxs_json_write_literal (w, "[");
  for (guint d = 0; d < t->rank; d++)
    {
      if (d)
        fxs_json_write_literal (w, ", ");
      if (t->dims[d] >= 0)
        fxs_json_write_int (w, t->dims[d]);
      else if (t->symbols && t->symbols[d])
        fxs_json_write_cstring (w, t->symbols[d]);
      else
        fxs_json_write_literal (w, "null");
    }
  fxs_json_write_literal (w, "]");
  if (t->dtype)
    {
      fxs_json_write_literal (w, ", \"dtype\": ");
      fxs_json_write_cstring (w, t->dtype);
    }
}

static void
write_meta (FxsJsonWriter *w, const FxsNodeMeta *m)
{
  gboolean tensors = m->is_tuple || m->n_tensors > 1;
  if (!tensors && m->n_tensors == 0 && m->n_free_symbols == 0 && !m->symbol
      && (!m->extra || m->extra->n == 0))
    return;
  fxs_json_write_literal (w, ", \"meta\": {");
  if (tensors)
    fxs_json_write_literal (w, "\"tensors\": [");
  else if (m->n_tensors == 1)
    fxs_json_write_literal (w, "\"tensor\": ");
  for (guint i = 0; i < m->n_tensors; i++)
    {
      if (i)
        fxs_json_write_literal (w, ", ");
      write_shape_and_dtype (w, "{\"shape\": ", m->tensors[i]);
      fxs_json_write_literal (w, "}");
    }
  if (tensors)
    fxs_json_write_literal (w, "]");
  gboolean first = m->n_tensors == 0 && !tensors;
  if (m->n_free_symbols > 0)
    {
      fxs_json_write_raw (w, first ? "\"free_symbols\": [" : ", \"free_symbols\": [");
      for (guint i = 0; i < m->n_free_symbols; i++)
        {
          if (i)
            fxs_json_write_literal (w, ", ");
          fxs_json_write_cstring (w, m->free_symbols[i]);
        }
      fxs_json_write_literal (w, "]");
      first = FALSE;
    }
  if (m->symbol)
    {
      fxs_json_write_raw (w, first ? "\"symbol\": " : ", \"symbol\": ");
      fxs_json_write_cstring (w, m->symbol);
      first = FALSE;
    }
  if (m->extra)
    write_dict_members (w, m->extra, TRUE, &first);
  fxs_json_write_literal (w, "}");
}

static void
node_item (FxsJsonWriter *w, gconstpointer nodes, guint i)
{
  const FxsNode *node = ((const FxsItems *) nodes)->pdata[i];
  fxs_json_write_literal (w, "{\"name\": ");
  fxs_json_write_cstring (w, node->name);
  fxs_json_write_literal (w, ", \"op\": \"");
  fxs_json_write_raw (w, fxs_op_to_string ((FxsOp) node->op));
  fxs_json_write_literal (w, "\", \"target\": ");
  fxs_json_write_cstring (w, node->target);
  if (node->args.n > 0)
    {
      fxs_json_write_literal (w, ", \"args\": ");
      write_items (w, node->args.u.items, node->args.n);
    }
  if (node->kwargs.n > 0)
    {
      gboolean first = TRUE;
      fxs_json_write_literal (w, ", \"kwargs\": {");
      write_dict_members (w, &node->kwargs, FALSE, &first);
      fxs_json_write_literal (w, "}");
    }
  if (node->type_expr)
    {
      fxs_json_write_literal (w, ", \"type\": ");
      fxs_json_write_cstring (w, node->type_expr);
    }
  if (node->meta)
    write_meta (w, node->meta);
  fxs_json_write_literal (w, "}");
}

static void
attr_item (FxsJsonWriter *w, gconstpointer attrs, guint i)
{
  const FxsAttr *a = ((const FxsItems *) attrs)->pdata[i];
  fxs_json_write_cstring (w, a->name);
  fxs_json_write_literal (w, ": {\"kind\": \"");
  fxs_json_write_raw (w, fxs_attr_kind_to_string ((FxsAttrKind) a->kind));
  fxs_json_write_literal (w, "\"");
  if (a->class_name)
    {
      fxs_json_write_literal (w, ", \"class\": ");
      fxs_json_write_cstring (w, a->class_name);
    }
  if (a->tensor)
    write_shape_and_dtype (w, ", \"shape\": ", a->tensor);
  fxs_json_write_literal (w, "}");
}

void
fxs_graph_write_list (FxsJsonWriter *w, const char *indent, const char *head, guint n,
                      FxsJsonItemFunc item, gconstpointer data, char close)
{
  fxs_json_write_raw (w, indent);
  fxs_json_write_raw (w, head);
  /* what goes before each item, made once: ",\n", two spaces, @indent
   * (without the comma before the first) */
  char *sep = g_strconcat (",\n  ", indent, NULL);
  gsize sep_len = strlen (sep);
  for (guint i = 0; i < n; i++)
    {
      fxs_json_write_bytes (w, sep + (i == 0), sep_len - (i == 0));
      item (w, data, i);
    }
  g_free (sep);
  if (n)
    {
      fxs_json_write_literal (w, "\n");
      fxs_json_write_raw (w, indent);
    }
  fxs_json_write_char (w, close);
}

void
fxs_graph_write_members (FxsJsonWriter *w, const FxsGraph *graph, const char *indent)
{
  fxs_graph_write_list (w, indent, "\"attributes\": {", graph->attrs->len, attr_item, graph->attrs,
                        '}');
  fxs_json_write_literal (w, ",\n");
  fxs_graph_write_list (w, indent, "\"nodes\": [", graph->nodes->len, node_item, graph->nodes, ']');
}

void
fxs_graph_write_start (FxsJsonWriter *w, const FxsGraph *graph)
{
  fxs_json_write_literal (w, "{\n  \"format\": \"fxsplit-graph\",\n  \"version\": ");
  fxs_json_write_int (w, FXS_GRAPH_FORMAT_VERSION);
  fxs_json_write_literal (w, ",\n");
  fxs_graph_write_members (w, graph, "  ");
}

static void
write_graph_file (FxsJsonWriter *w, gconstpointer graph)
{
  fxs_graph_write_start (w, graph);
  fxs_json_write_literal (w, "\n}\n");
}

void
fxs_graph_to_json (const FxsGraph *graph, GString *out)
{
  g_return_if_fail (graph != NULL && out != NULL);
  fxs_json_write_with (out, NULL, write_graph_file, graph);
}

gboolean
fxs_graph_save_file (const FxsGraph *graph, const char *path, GError **error)
{
  g_return_val_if_fail (graph != NULL && path != NULL, FALSE);
  return fxs_json_save_file (path, write_graph_file, graph, error);
}
