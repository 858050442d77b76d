/* Test helpers: graphs from the oracle's text format, and back. */
#include "graph-builders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  FxsGraph *graph;
  const char *p;
  const char *line;
} Parser;

static void G_GNUC_NORETURN
parse_fail (const Parser *ps, const char *what)
{
  g_error ("graph-builders: %s at \"%s\" in line \"%s\"", what, ps->p, ps->line);
}

static void
skip_spaces (Parser *ps)
{
  while (*ps->p == ' ')
    ps->p++;
}

static gboolean
accept (Parser *ps, char c)
{
  skip_spaces (ps);
  if (*ps->p != c)
    return FALSE;
  ps->p++;
  return TRUE;
}

static const FxsValue *parse_value (Parser *ps);

/* Items up to @close, separated by commas (a trailing comma allowed). */
static GPtrArray *
parse_items (Parser *ps, char close, gboolean dict, GPtrArray **keys)
{
  GPtrArray *items = g_ptr_array_new ();
  if (dict)
    *keys = g_ptr_array_new ();
  while (!accept (ps, close))
    {
      if (dict)
        {
          g_ptr_array_add (*keys, (gpointer) parse_value (ps));
          if (!accept (ps, ':'))
            parse_fail (ps, "expected ':'");
        }
      g_ptr_array_add (items, (gpointer) parse_value (ps));
      if (!accept (ps, ',') && (skip_spaces (ps), *ps->p != close))
        parse_fail (ps, "expected ',' or a closing bracket");
    }
  return items;
}

static const FxsValue *
parse_word (Parser *ps)
{
  const char *start = ps->p;
  while (g_ascii_isalnum (*ps->p) || *ps->p == '_' || *ps->p == '.')
    ps->p++;
  char *word = g_strndup (start, ps->p - start);
  const FxsValue *v;
  const FxsNode *node = fxs_graph_lookup_node (ps->graph, word);
  if (strcmp (word, "slice") == 0 && accept (ps, '('))
    {
      GPtrArray *items = parse_items (ps, ')', FALSE, NULL);
      if (items->len != 3)
        parse_fail (ps, "a slice has three items");
      v = fxs_value_new_slice (ps->graph, items->pdata[0], items->pdata[1], items->pdata[2]);
      g_ptr_array_free (items, TRUE);
    }
  else if (node)
    v = fxs_value_new_node (ps->graph, node);
  else if (strcmp (word, "None") == 0)
    v = fxs_value_new_none (ps->graph);
  else if (strcmp (word, "True") == 0 || strcmp (word, "False") == 0)
    v = fxs_value_new_bool (ps->graph, word[0] == 'T');
  else if (strcmp (word, "Ellipsis") == 0)
    v = fxs_value_new_ellipsis (ps->graph);
  else if (strchr (word, '.'))
    v = fxs_value_new_opaque (ps->graph, g_str_has_prefix (word, "torch.") ? "torch.dtype" : "object",
                              word);
  else
    parse_fail (ps, "unknown name");
  g_free (word);
  return v;
}

static const FxsValue *
parse_value (Parser *ps)
{
  skip_spaces (ps);
  char c = *ps->p;
  if (c == '(' || c == '[' || c == '{')
    {
      ps->p++;
      GPtrArray *keys = NULL;
      GPtrArray *items = parse_items (ps, c == '(' ? ')' : c == '[' ? ']' : '}', c == '{', &keys);
      const FxsValue *v;
      if (c == '{')
        v = fxs_value_new_dict (ps->graph, (const FxsValue *const *) keys->pdata,
                                (const FxsValue *const *) items->pdata, items->len);
      else
        v = fxs_value_new_sequence (ps->graph, c == '(' ? FXS_VALUE_TUPLE : FXS_VALUE_LIST,
                                    (const FxsValue *const *) items->pdata, items->len);
      g_ptr_array_free (items, TRUE);
      if (keys)
        g_ptr_array_free (keys, TRUE);
      return v;
    }
  if (c == '\'')
    {
      GString *s = g_string_new (NULL);
      for (ps->p++; *ps->p != '\''; ps->p++)
        {
          if (*ps->p == '\0')
            parse_fail (ps, "unterminated string");
          if (*ps->p == '\\')
            ps->p++;
          g_string_append_c (s, *ps->p);
        }
      ps->p++;
      const FxsValue *v = fxs_value_new_string_len (ps->graph, s->str, s->len);
      g_string_free (s, TRUE);
      return v;
    }
  if (g_ascii_isdigit (c) || c == '-')
    {
      char *end;
      gint64 i = g_ascii_strtoll (ps->p, &end, 10);
      if (*end == '.' || *end == 'e')
        {
          double f = g_ascii_strtod (ps->p, &end);
          ps->p = end;
          return fxs_value_new_float (ps->graph, f);
        }
      ps->p = end;
      return fxs_value_new_int (ps->graph, i);
    }
  if (g_ascii_isalpha (c) || c == '_')
    return parse_word (ps);
  parse_fail (ps, "unexpected character");
}

static char *
next_field (Parser *ps)
{
  skip_spaces (ps);
  const char *start = ps->p;
  while (*ps->p && *ps->p != ' ')
    ps->p++;
  if (ps->p == start)
    parse_fail (ps, "missing field");
  return g_strndup (start, ps->p - start);
}

FxsGraph *
fxs_test_graph_new (const char *text)
{
  FxsGraph *graph = fxs_graph_new ();
  char **lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      Parser ps = { graph, *l, *l };
      skip_spaces (&ps);
      if (*ps.p == '\0')
        continue;
      char *op_name = next_field (&ps), *name = next_field (&ps), *target = next_field (&ps);
      FxsOp op;
      if (!fxs_op_from_string (op_name, &op))
        parse_fail (&ps, "unknown op");
      const FxsValue *args = NULL, *kwargs = NULL;
      skip_spaces (&ps);
      if (*ps.p)
        args = parse_value (&ps);
      skip_spaces (&ps);
      if (*ps.p)
        kwargs = parse_value (&ps);
      GError *error = NULL;
      if (!fxs_graph_add_node (graph, op, name, target, args, kwargs, &error))
        g_error ("graph-builders: %s", error->message);
      g_free (op_name);
      g_free (name);
      g_free (target);
    }
  g_strfreev (lines);
  return graph;
}

void
fxs_test_add_attrs (FxsGraph *graph, const char *spec)
{
  char **entries = g_strsplit (spec, " ", -1);
  for (char **e = entries; *e; e++)
    {
      if (**e == '\0')
        continue;
      char **parts = g_strsplit (*e, ":", 3);
      FxsAttrKind kind;
      if (!parts[1] || !fxs_attr_kind_from_string (parts[1], &kind))
        g_error ("graph-builders: bad attribute \"%s\"", *e);
      GError *error = NULL;
      if (!fxs_graph_add_attr (graph, parts[0], kind, parts[2], NULL, &error))
        g_error ("graph-builders: %s", error->message);
      g_strfreev (parts);
    }
  g_strfreev (entries);
}

gint64 *
fxs_test_ids (const FxsGraph *graph, const char *spec)
{
  gint64 *ids = g_new0 (gint64, fxs_graph_n_nodes (graph) + 1);
  char **entries = g_strsplit (spec, " ", -1);
  for (char **e = entries; *e; e++)
    {
      if (**e == '\0')
        continue;
      char *eq = strchr (*e, '=');
      if (!eq)
        g_error ("graph-builders: bad id \"%s\"", *e);
      *eq = '\0';
      const FxsNode *node = fxs_graph_lookup_node (graph, *e);
      if (!node)
        g_error ("graph-builders: no node \"%s\"", *e);
      ids[fxs_node_index (node)] = g_ascii_strtoll (eq + 1, NULL, 10);
    }
  g_strfreev (entries);
  return ids;
}

/* ---- dumping -------------------------------------------------------------- */

static void
dump_value (const FxsValue *v, GString *out)
{
  char buf[32];
  switch (fxs_value_kind (v))
    {
    case FXS_VALUE_NONE:
      g_string_append (out, "None");
      break;
    case FXS_VALUE_BOOL:
      g_string_append (out, fxs_value_get_bool (v) ? "True" : "False");
      break;
    case FXS_VALUE_INT:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, fxs_value_get_int (v));
      break;
    case FXS_VALUE_FLOAT:
      g_string_append (out, fxs_format_float (fxs_value_get_float (v), buf));
      break;
    case FXS_VALUE_STRING:
      g_string_append_c (out, '\'');
      for (const char *s = fxs_value_get_string (v); *s; s++)
        {
          if (*s == '\'' || *s == '\\')
            g_string_append_c (out, '\\');
          g_string_append_c (out, *s);
        }
      g_string_append_c (out, '\'');
      break;
    case FXS_VALUE_LIST:
    case FXS_VALUE_TUPLE:
      {
        gboolean tuple = fxs_value_kind (v) == FXS_VALUE_TUPLE;
        g_string_append_c (out, tuple ? '(' : '[');
        for (guint i = 0; i < fxs_value_n_items (v); i++)
          {
            if (i)
              g_string_append (out, ", ");
            dump_value (fxs_value_item (v, i), out);
          }
        if (tuple && fxs_value_n_items (v) == 1)
          g_string_append_c (out, ',');
        g_string_append_c (out, tuple ? ')' : ']');
        break;
      }
    case FXS_VALUE_DICT:
      g_string_append_c (out, '{');
      for (guint i = 0; i < fxs_value_n_items (v); i++)
        {
          if (i)
            g_string_append (out, ", ");
          dump_value (fxs_value_dict_key (v, i), out);
          g_string_append (out, ": ");
          dump_value (fxs_value_dict_value (v, i), out);
        }
      g_string_append_c (out, '}');
      break;
    case FXS_VALUE_SLICE:
      g_string_append (out, "slice(");
      for (guint i = 0; i < 3; i++)
        {
          if (i)
            g_string_append (out, ", ");
          dump_value (fxs_value_item (v, i), out);
        }
      g_string_append_c (out, ')');
      break;
    case FXS_VALUE_ELLIPSIS:
      g_string_append (out, "Ellipsis");
      break;
    case FXS_VALUE_NODE:
      g_string_append (out, fxs_node_name (fxs_value_get_node (v)));
      break;
    case FXS_VALUE_OPAQUE:
      g_string_append (out, fxs_value_get_opaque_repr (v));
      break;
    }
}

void
fxs_test_dump_graph (const FxsGraph *graph, GString *out)
{
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *n = fxs_graph_node (graph, i);
      g_string_append_printf (out, "%s %s %s ", fxs_op_to_string (fxs_node_op (n)),
                              fxs_node_name (n), fxs_node_target (n));
      dump_value (fxs_node_args (n), out);
      if (fxs_value_n_items (fxs_node_kwargs (n)))
        {
          g_string_append_c (out, ' ');
          dump_value (fxs_node_kwargs (n), out);
        }
      g_string_append_c (out, '\n');
    }
}

char *
fxs_test_dump_split (const FxsSplitResult *result)
{
  GString *out = g_string_new ("--- top\n");
  fxs_test_dump_graph (fxs_split_result_top (result), out);
  for (guint i = 0; i < fxs_split_result_n_partitions (result); i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      g_string_append_printf (out, "--- %s\n", fxs_partition_submod_name (p));
      fxs_test_dump_graph (fxs_partition_graph (p), out);
    }
  if (fxs_split_result_n_qualnames (result))
    g_string_append (out, "--- qualname_map\n");
  for (guint i = 0; i < fxs_split_result_n_qualnames (result); i++)
    {
      const char *new_name, *old_name;
      fxs_split_result_qualname (result, i, &new_name, &old_name);
      g_string_append_printf (out, "%s -> %s\n", new_name, old_name);
    }
  return g_string_free (out, FALSE);
}

gboolean
fxs_test_text_equal (const char *actual, const char *expected)
{
  if (strcmp (actual, expected) == 0)
    return TRUE;
  fprintf (stderr, "\n--- expected:\n%s--- actual:\n%s--- end\n", expected, actual);
  return FALSE;
}

const char fxs_test_global_state_graph[] =
  "placeholder x x ()\n"
  "call_function _set_grad_enabled torch._C._set_grad_enabled (False,)\n"
  "call_function relu torch.relu (x,)\n"
  "call_function _enter_autocast torch.amp.autocast_mode._enter_autocast "
  "('cuda', None, True, None)\n"
  "call_function neg torch.neg (relu,)\n"
  "call_function sin torch.sin (neg,)\n"
  "call_function _exit_autocast torch.amp.autocast_mode._exit_autocast (_enter_autocast,)\n"
  "call_function cos torch.cos (sin,)\n"
  "output output output (cos,)\n";
