/* CodeGen._gen_python_code of torch 1.13, over the read-only graph API.
 *
 * Names: torch.fx prints nodes and globals through one fresh _Namespace,
 * in the order emission asks for them (a node is named when it is first
 * printed), so the order of the calls below follows torch.fx's f-strings
 * and must not be rearranged.  Frees: a node is freed after its last use,
 * found by one pass over the graph backwards (register_last_uses).
 * The graph printed is the one a torch.fx.Graph gets when its nodes are
 * created with these names, which runs them through the graph's own
 * _Namespace first: node names pass both namespaces, in node order. */
#include "codegen.h"
#include "pynames.h"
#include "pynamespace.h"
#include "pyrepr.h"
#include "pytype.h"

#include <fxsplit/error.h>
#include <string.h>

/* torch/fx/graph.py magic_methods (with reflectable_magic_methods) and
 * inplace_methods, by the function's __name__ in _operator. */
typedef struct {
  const char *name, *format;
} OperatorSyntax;

static const OperatorSyntax magic_methods[] = {
  { "add", "{} + {}" }, { "sub", "{} - {}" }, { "mul", "{} * {}" },
  { "floordiv", "{} // {}" }, { "truediv", "{} / {}" }, { "div", "{} / {}" },
  { "mod", "{} % {}" }, { "pow", "{} ** {}" }, { "lshift", "{} << {}" },
  { "rshift", "{} >> {}" }, { "and_", "{} & {}" }, { "or_", "{} | {}" },
  { "xor", "{} ^ {}" }, { "getitem", "{}[{}]" }, { "matmul", "{} @ {}" },
  { "eq", "{} == {}" }, { "ne", "{} != {}" }, { "lt", "{} < {}" }, { "gt", "{} > {}" },
  { "le", "{} <= {}" }, { "ge", "{} >= {}" }, { "pos", "+{}" }, { "neg", "-{}" },
  { "invert", "~{}" },
};

static const OperatorSyntax inplace_methods[] = {
  { "iadd", "{} += {}" }, { "iand", "{} &= {}" }, { "ifloordiv", "{} //= {}" },
  { "ilshift", "{} <<= {}" }, { "imod", "{} %= {}" }, { "imul", "{} *= {}" },
  { "imatmul", "{} @= {}" }, { "ior", "{} |= {}" }, { "ipow", "{} **= {}" },
  { "irshift", "{} >>= {}" }, { "isub", "{} -= {}" }, { "itruediv", "{} /= {}" },
  { "ixor", "{} ^= {}" }, { "setitem", "{}[{}] = {}" },
};

static const char *
operator_format (const OperatorSyntax *table, guint n, const char *function)
{
  if (!g_str_has_prefix (function, "_operator."))
    return NULL;
  const char *name = function + strlen ("_operator.");
  for (guint i = 0; i < n; i++)
    if (strcmp (table[i].name, name) == 0)
      return table[i].format;
  return NULL;
}

void
fxs_py_canonical_function (const char *target, GString *out)
{
  if (g_str_has_prefix (target, "builtins."))
    g_string_assign (out, target + strlen ("builtins."));
  else if (g_str_has_prefix (target, "operator."))
    {
      g_string_assign (out, "_");
      g_string_append (out, target);
    }
  else
    g_string_assign (out, target);
}

typedef struct {
  const FxsGraph *graph;
  FxsPyNamespace *ns;
  FxsPyNamespace *graph_ns;  /* Graph._graph_namespace */
  const char **graph_names;  /* by node index: the names the graph gives */
  const char **names;        /* by node index; NULL until first printed */
  GString *body;
  GPtrArray *free_vars;      /* char*, owned */
  GPtrArray *wrapped;        /* global names of wrapped functions, first use first */
  GString *return_annotation;
  /* register_last_uses: the nodes whose last use is node i are
   * deletes[delete_start[i] .. delete_start[i] + delete_count[i]) */
  const FxsNode **deletes;
  guint32 *delete_start, *delete_count;
  GString *scratch;
} Codegen;

static const char *
node_name (Codegen *cg, const FxsNode *node)
{
  guint i = fxs_node_index (node);
  if (!cg->names[i])
    cg->names[i] = fxs_py_namespace_create_name (cg->ns, cg->graph_names[i]);
  return cg->names[i];
}

static void
append_node_name (const FxsNode *node, gpointer data, GString *out)
{
  g_string_append (out, node_name (data, node));
}

static void
append_repr (Codegen *cg, const FxsValue *value, GString *out)
{
  const FxsPyReprHooks hooks = { append_node_name, NULL, cg };
  fxs_py_repr_value (value, &hooks, out);
}

/* ---- last uses ----------------------------------------------------------- */

typedef struct {
  guint8 *seen;       /* by node index: its last use is known */
  GArray *deletes;    /* const FxsNode* */
} LastUses;

static void
register_last_use (const FxsNode *node, gpointer data)
{
  LastUses *lu = data;
  guint i = fxs_node_index (node);
  if (lu->seen[i])
    return;
  lu->seen[i] = 1;
  g_array_append_val (lu->deletes, node);
}

static void
find_last_uses (Codegen *cg)
{
  guint n = fxs_graph_n_nodes (cg->graph);
  LastUses lu = { g_new0 (guint8, n), g_array_new (FALSE, FALSE, sizeof (const FxsNode *)) };
  cg->delete_start = g_new (guint32, n);
  cg->delete_count = g_new (guint32, n);
  for (guint i = n; i-- > 0;)
    {
      const FxsNode *user = fxs_graph_node (cg->graph, i);
      cg->delete_start[i] = lu.deletes->len;
      fxs_value_foreach_node (fxs_node_args (user), register_last_use, &lu);
      fxs_value_foreach_node (fxs_node_kwargs (user), register_last_use, &lu);
      cg->delete_count[i] = lu.deletes->len - cg->delete_start[i];
    }
  g_free (lu.seen);
  cg->deletes = (const FxsNode **) g_array_free (lu.deletes, FALSE);
}

/* delete_unused_values */
static void
append_frees (Codegen *cg, const FxsNode *user)
{
  guint i = fxs_node_index (user);
  if (fxs_node_op (user) == FXS_OP_OUTPUT || cg->delete_count[i] == 0)
    {
      g_string_append_c (cg->body, '\n');
      return;
    }
  g_string_append (cg->body, ";  ");
  for (guint k = 0; k < cg->delete_count[i]; k++)
    {
      g_string_append (cg->body, node_name (cg, cg->deletes[cg->delete_start[i] + k]));
      g_string_append (cg->body, " = ");
    }
  g_string_append (cg->body, "None\n");
}

/* ---- pieces of a line ------------------------------------------------------ */

/* _format_target(base, target) */
static void
append_target (GString *out, const char *base, const char *target)
{
  GString *r = g_string_new (base);
  char **elems = g_strsplit (target, ".", -1);
  for (char **e = elems; *e; e++)
    {
      if (fxs_py_is_identifier (*e))
        g_string_append_printf (r, ".%s", *e);
      else
        {
          g_string_prepend (r, "getattr(");
          g_string_append_printf (r, ", \"%s\")", *e);
        }
    }
  g_strfreev (elems);
  g_string_append_len (out, r->str, r->len);
  g_string_free (r, TRUE);
}

/* _format_args(args[first:], kwargs) */
static void
append_args (Codegen *cg, const FxsNode *node, guint first, GString *out)
{
  const FxsValue *args = fxs_node_args (node), *kwargs = fxs_node_kwargs (node);
  gboolean any = FALSE;
  for (guint i = first; i < fxs_value_n_items (args); i++, any = TRUE)
    {
      if (any)
        g_string_append (out, ", ");
      append_repr (cg, fxs_value_item (args, i), out);
    }
  for (guint i = 0; i < fxs_value_n_items (kwargs); i++, any = TRUE)
    {
      if (any)
        g_string_append (out, ", ");
      const FxsValue *key = fxs_value_dict_key (kwargs, i);
      g_string_append_len (out, fxs_value_get_string (key), fxs_value_get_string_length (key));
      g_string_append (out, " = ");
      append_repr (cg, fxs_value_dict_value (kwargs, i), out);
    }
}

/* format(*(repr(a) for a in node.args)): every argument is printed (and
 * named) even when the syntax takes fewer. */
static gboolean
append_operator (Codegen *cg, const FxsNode *node, const char *format, GString *out,
                 GError **error)
{
  const FxsValue *args = fxs_node_args (node);
  guint n = fxs_value_n_items (args);
  char **reprs = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      g_string_truncate (cg->scratch, 0);
      append_repr (cg, fxs_value_item (args, i), cg->scratch);
      reprs[i] = g_strdup (cg->scratch->str);
    }
  guint wanted = 0;
  for (const char *f = strstr (format, "{}"); f; f = strstr (f + 2, "{}"))
    wanted++;
  if (n < wanted)
    {
      g_strfreev (reprs);
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                   "node '%s': %s takes %u positional arguments, the node has %u",
                   fxs_node_name (node), fxs_node_target (node), wanted, n);
      return FALSE;
    }
  guint used = 0;
  for (const char *f = format; *f; f++)
    {
      if (f[0] == '{' && f[1] == '}')
        {
          g_string_append (out, reprs[used++]);
          f++;
        }
      else
        g_string_append_c (out, *f);
    }
  g_strfreev (reprs);
  return TRUE;
}

/* ---- emit_node --------------------------------------------------------------- */

static void
append_type (Codegen *cg, const FxsNode *node, const char *prefix, GString *out)
{
  const char *type = fxs_node_type (node);
  if (!type)
    return;
  g_string_append (out, prefix);
  fxs_py_type_repr (type, cg->ns, out);
}

static void
emit_placeholder (Codegen *cg, const FxsNode *node, const char *annotation)
{
  const char *target = fxs_node_target (node);
  GString *var = g_string_new (target);
  g_string_append (var, annotation);
  const FxsValue *args = fxs_node_args (node);
  if (fxs_value_n_items (args) > 0)
    {
      g_string_append (var, " = ");
      append_repr (cg, fxs_value_item (args, 0), var);
    }
  g_ptr_array_add (cg->free_vars, g_string_free (var, FALSE));

  GString *raw = g_string_new (NULL);
  for (const char *p = target; *p; p++)
    if (*p != '*')
      g_string_append_c (raw, *p);
  const char *name = node_name (cg, node);
  if (strcmp (raw->str, name) != 0)
    g_string_append_printf (cg->body, "%s = %s\n", name, raw->str);
  g_string_free (raw, TRUE);
}

gboolean
fxs_py_node_is_wrapped (const FxsNode *node)
{
  const FxsValue *v = fxs_node_meta_lookup (node, "is_wrapped");
  if (!v)
    return FALSE;
  switch (fxs_value_kind (v))
    {
    case FXS_VALUE_BOOL:
      return fxs_value_get_bool (v);
    case FXS_VALUE_INT:
      return fxs_value_get_int (v) != 0;
    default:
      return FALSE;
    }
}

static void
note_wrapped (Codegen *cg, const char *global_name)
{
  for (guint i = 0; i < cg->wrapped->len; i++)
    if (strcmp (cg->wrapped->pdata[i], global_name) == 0)
      return;
  g_ptr_array_add (cg->wrapped, (gpointer) global_name);
}

static gboolean
emit_call_function (Codegen *cg, const FxsNode *node, const char *annotation, GError **error)
{
  GString *body = cg->body;
  const FxsValue *args = fxs_node_args (node);
  guint n_args = fxs_value_n_items (args);
  GString *function = g_string_new (NULL);
  fxs_py_canonical_function (fxs_node_target (node), function);
  gboolean ok = TRUE;

  const char *format;
  if ((format = operator_format (magic_methods, G_N_ELEMENTS (magic_methods), function->str)))
    {
      g_string_append_printf (body, "%s%s = ", node_name (cg, node), annotation);
      ok = append_operator (cg, node, format, body, error);
    }
  else if ((format = operator_format (inplace_methods, G_N_ELEMENTS (inplace_methods),
                                      function->str)))
    {
      ok = append_operator (cg, node, format, body, error);
      if (ok)
        {
          g_string_append_printf (body, ";  %s%s = ", node_name (cg, node), annotation);
          append_repr (cg, fxs_value_item (args, 0), body);
        }
    }
  else if (!strchr (function->str, '.') && !fxs_py_is_builtin (function->str))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                   "node '%s': call_function target '%s' is neither a builtin nor a "
                   "qualified name (module.function)", fxs_node_name (node), function->str);
      ok = FALSE;
    }
  else
    {
      const char *global_name = fxs_py_global_name (cg->ns, function->str);
      const FxsValue *attr = n_args == 2 ? fxs_value_item (args, 1) : NULL;
      if (strcmp (global_name, "getattr") == 0 && attr
          && fxs_value_kind (attr) == FXS_VALUE_STRING
          && strlen (fxs_value_get_string (attr)) == fxs_value_get_string_length (attr)
          && fxs_py_is_identifier (fxs_value_get_string (attr)))
        {
          g_string_append_printf (body, "%s%s = ", node_name (cg, node), annotation);
          g_string_truncate (cg->scratch, 0);
          append_repr (cg, fxs_value_item (args, 0), cg->scratch);
          append_target (body, cg->scratch->str, fxs_value_get_string (attr));
        }
      else
        {
          g_string_append_printf (body, "%s%s = %s(", node_name (cg, node), annotation,
                                  global_name);
          append_args (cg, node, 0, body);
          g_string_append_c (body, ')');
          if (fxs_py_node_is_wrapped (node))
            note_wrapped (cg, global_name);
        }
    }
  g_string_free (function, TRUE);
  return ok;
}

static gboolean
emit_node (Codegen *cg, const FxsNode *node, GError **error)
{
  GString *body = cg->body;
  const FxsValue *args = fxs_node_args (node);
  /* maybe_type_annotation comes first: its globals are named before the node */
  GString *annotation = g_string_new (NULL);
  append_type (cg, node, " : ", annotation);
  gboolean ok = TRUE;

  switch (fxs_node_op (node))
    {
    case FXS_OP_PLACEHOLDER:
      emit_placeholder (cg, node, annotation->str);
      break;
    case FXS_OP_CALL_METHOD:
      if (fxs_value_n_items (args) == 0)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                       "node '%s': call_method '%s' has no self argument",
                       fxs_node_name (node), fxs_node_target (node));
          ok = FALSE;
          break;
        }
      g_string_append_printf (body, "%s%s = ", node_name (cg, node), annotation->str);
      g_string_truncate (cg->scratch, 0);
      append_repr (cg, fxs_value_item (args, 0), cg->scratch);
      append_target (body, cg->scratch->str, fxs_node_target (node));
      g_string_append_c (body, '(');
      append_args (cg, node, 1, body);
      g_string_append_c (body, ')');
      break;
    case FXS_OP_CALL_FUNCTION:
      ok = emit_call_function (cg, node, annotation->str, error);
      break;
    case FXS_OP_CALL_MODULE:
      g_string_append_printf (body, "%s%s = ", node_name (cg, node), annotation->str);
      append_target (body, "self", fxs_node_target (node));
      g_string_append_c (body, '(');
      append_args (cg, node, 0, body);
      g_string_append_c (body, ')');
      break;
    case FXS_OP_GET_ATTR:
      g_string_append_printf (body, "%s%s = ", node_name (cg, node), annotation->str);
      append_target (body, "self", fxs_node_target (node));
      break;
    case FXS_OP_OUTPUT:
      if (fxs_value_n_items (args) == 0)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_GRAPH,
                       "node '%s': the output node has no value", fxs_node_name (node));
          ok = FALSE;
          break;
        }
      if (fxs_node_type (node))
        {
          g_string_truncate (cg->return_annotation, 0);
          append_type (cg, node, " -> ", cg->return_annotation);
        }
      g_string_append (body, "return ");
      append_repr (cg, fxs_value_item (args, 0), body);
      break;
    }
  g_string_free (annotation, TRUE);
  return ok;
}

/* ---- the function ------------------------------------------------------------- */

static void
codegen_clear (Codegen *cg)
{
  fxs_py_namespace_free (cg->ns);
  fxs_py_namespace_free (cg->graph_ns);
  g_free (cg->graph_names);
  g_free (cg->names);
  g_string_free (cg->body, TRUE);
  g_ptr_array_unref (cg->free_vars);
  g_ptr_array_unref (cg->wrapped);
  g_string_free (cg->return_annotation, TRUE);
  g_free (cg->deletes);
  g_free (cg->delete_start);
  g_free (cg->delete_count);
  g_string_free (cg->scratch, TRUE);
}

/* "\n{wrap_stmts}\n\n{prologue}\n{body, every line indented by 4}" */
static void
assemble (Codegen *cg, GString *out)
{
  g_string_append_c (out, '\n');
  if (cg->wrapped->len)
    {
      const char *wrap = fxs_py_global_name (cg->ns, "torch.fx._symbolic_trace.wrap");
      for (guint i = 0; i < cg->wrapped->len; i++)
        g_string_append_printf (out, "%s%s(\"%s\")", i ? "\n" : "", wrap,
                                (const char *) cg->wrapped->pdata[i]);
    }
  g_string_append (out, "\n\ndef forward(");
  /* gen_fn_def: self first unless the graph's first input is named so */
  if (cg->free_vars->len == 0 || strcmp (cg->free_vars->pdata[0], "self") != 0)
    g_string_append (out, cg->free_vars->len ? "self, " : "self");
  for (guint i = 0; i < cg->free_vars->len; i++)
    g_string_append_printf (out, "%s%s", i ? ", " : "", (const char *) cg->free_vars->pdata[i]);
  g_string_append_printf (out, ")%s:\n    ", cg->return_annotation->str);

  if (cg->body->len == 0)
    g_string_append (cg->body, "pass\n");
  const char *line = cg->body->str, *end = line + cg->body->len;
  for (const char *nl; (nl = memchr (line, '\n', (gsize) (end - line))); line = nl + 1)
    {
      g_string_append_len (out, line, nl + 1 - line);
      g_string_append (out, "    ");
    }
  g_string_append_len (out, line, end - line);
}

gboolean
fxs_py_codegen (const FxsGraph *graph, GString *out, GError **error)
{
  guint n = fxs_graph_n_nodes (graph);
  Codegen cg = {
    .graph = graph,
    .ns = fxs_py_namespace_new (),
    .graph_ns = fxs_py_namespace_new (),
    .graph_names = g_new (const char *, n),
    .names = g_new0 (const char *, n),
    .body = g_string_new (NULL),
    .free_vars = g_ptr_array_new_with_free_func (g_free),
    .wrapped = g_ptr_array_new (),
    .return_annotation = g_string_new (NULL),
    .scratch = g_string_new (NULL),
  };
  for (guint i = 0; i < n; i++)
    cg.graph_names[i] = fxs_py_namespace_create_name (cg.graph_ns,
                                                      fxs_node_name (fxs_graph_node (graph, i)));
  fxs_py_add_custom_builtins (cg.ns);
  find_last_uses (&cg);

  gboolean ok = TRUE;
  for (guint i = 0; ok && i < n; i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      ok = emit_node (&cg, node, error);
      if (ok && fxs_node_op (node) != FXS_OP_PLACEHOLDER)
        append_frees (&cg, node);
    }
  if (ok)
    assemble (&cg, out);
  codegen_clear (&cg);
  return ok;
}
