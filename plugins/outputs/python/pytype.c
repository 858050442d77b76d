/* type_repr of torch 1.13 (CodeGen._gen_python_code), working on the
 * annotation's _type_repr text: generic aliases ("typing.List[int]",
 * "list[int]") print their origin (mapped through _origin_type_map) as a
 * global and their arguments joined by "," without spaces; other types are
 * globals named after their qualified names. */
#include "pytype.h"
#include "pynames.h"

#include <string.h>

/* _custom_builtins: (qualified name used as the object's key, name). */
static const struct {
  const char *key, *name;
} custom_builtins[] = {
  { "math.inf", "inf" }, { "math.nan", "nan" }, { "NoneType", "NoneType" },
  { "torch", "torch" }, { "torch.device", "device" },
  { "torch.fx._pytree", "fx_pytree" }, { "torch.utils._pytree", "pytree" },
};

void
fxs_py_add_custom_builtins (FxsPyNamespace *ns)
{
  for (guint i = 0; i < G_N_ELEMENTS (custom_builtins); i++)
    fxs_py_namespace_global (ns, custom_builtins[i].key, custom_builtins[i].name,
                             custom_builtins[i].name);
}

const char *
fxs_py_global_name (FxsPyNamespace *ns, const char *qualname)
{
  /* _is_from_torch: torch's objects keep their qualified names, except
   * torch.device, which is the custom builtin "device". */
  if (g_str_has_prefix (qualname, "torch.") && strcmp (qualname, "torch.device") != 0)
    return qualname;
  gboolean builtin = strchr (qualname, '.') == NULL
                     && (fxs_py_is_builtin (qualname) || fxs_py_is_custom_builtin (qualname));
  return fxs_py_namespace_global (ns, qualname, qualname, builtin ? qualname : NULL);
}

/* ---- parsing _type_repr text ------------------------------------------------ */

typedef struct TypeNode TypeNode;
struct TypeNode {
  char *atom;          /* "typing.List", "...", "()", "'a'", or NULL for a [list] */
  gboolean subscripted;
  GPtrArray *args;     /* TypeNode*: the subscript's items, or a [list]'s */
};

static void
type_node_free (gpointer data)
{
  TypeNode *t = data;
  g_free (t->atom);
  if (t->args)
    g_ptr_array_unref (t->args);
  g_free (t);
}

static TypeNode *
type_node_new (char *atom)
{
  TypeNode *t = g_new0 (TypeNode, 1);
  t->atom = atom;
  t->args = g_ptr_array_new_with_free_func (type_node_free);
  return t;
}

typedef struct {
  const char *p;
} Parser;

static void
skip_spaces (Parser *ps)
{
  while (*ps->p == ' ')
    ps->p++;
}

static gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '.' || (guchar) c >= 0x80;
}

/* A quoted string literal (Literal['a']), escapes skipped over. */
static char *
parse_string (Parser *ps)
{
  const char *start = ps->p;
  char quote = *ps->p++;
  while (*ps->p && *ps->p != quote)
    {
      if (*ps->p == '\\' && ps->p[1])
        ps->p++;
      ps->p++;
    }
  if (*ps->p != quote)
    return NULL;
  ps->p++;
  return g_strndup (start, (gsize) (ps->p - start));
}

static char *
parse_atom (Parser *ps)
{
  const char *start = ps->p;
  if (g_str_has_prefix (ps->p, "..."))
    {
      ps->p += 3;
      return g_strdup ("...");
    }
  if (g_str_has_prefix (ps->p, "()"))
    {
      ps->p += 2;
      return g_strdup ("()");
    }
  if (*ps->p == '\'' || *ps->p == '"')
    return parse_string (ps);
  if (*ps->p == '-')
    ps->p++;
  while (is_name_char (*ps->p))
    ps->p++;
  if (ps->p == start)
    return NULL;
  return g_strndup (start, (gsize) (ps->p - start));
}

static TypeNode *parse_type (Parser *ps);

/* Items up to @close, separated by ", " */
static gboolean
parse_items (Parser *ps, char close, GPtrArray *into)
{
  skip_spaces (ps);
  if (*ps->p == close)
    {
      ps->p++;
      return TRUE;
    }
  for (;;)
    {
      TypeNode *item = parse_type (ps);
      if (!item)
        return FALSE;
      g_ptr_array_add (into, item);
      skip_spaces (ps);
      if (*ps->p == close)
        {
          ps->p++;
          return TRUE;
        }
      if (*ps->p != ',')
        return FALSE;
      ps->p++;
      skip_spaces (ps);
    }
}

static TypeNode *
parse_type (Parser *ps)
{
  skip_spaces (ps);
  if (*ps->p == '[')
    {
      ps->p++;
      TypeNode *list = type_node_new (NULL);
      if (!parse_items (ps, ']', list->args))
        {
          type_node_free (list);
          return NULL;
        }
      return list;
    }
  char *atom = parse_atom (ps);
  if (!atom)
    return NULL;
  TypeNode *t = type_node_new (atom);
  if (*ps->p == '[')
    {
      ps->p++;
      t->subscripted = TRUE;
      if (!parse_items (ps, ']', t->args))
        {
          type_node_free (t);
          return NULL;
        }
    }
  return t;
}

/* ---- printing --------------------------------------------------------------- */

/* Generic aliases whose __origin__ is another object: the typing aliases
 * (the origin of typing.List is list, which _origin_type_map turns back
 * into typing.List), the builtin generics, and Optional (a Union). */
static const struct {
  const char *alias, *origin;
} origins[] = {
  { "typing.AbstractSet", "collections.abc.Set" },
  { "typing.AsyncContextManager", "contextlib.AbstractAsyncContextManager" },
  { "typing.AsyncGenerator", "collections.abc.AsyncGenerator" },
  { "typing.AsyncIterable", "collections.abc.AsyncIterable" },
  { "typing.AsyncIterator", "collections.abc.AsyncIterator" },
  { "typing.Awaitable", "collections.abc.Awaitable" },
  { "typing.ByteString", "collections.abc.ByteString" },
  { "typing.Callable", "collections.abc.Callable" },
  { "typing.ChainMap", "collections.ChainMap" },
  { "typing.Collection", "collections.abc.Collection" },
  { "typing.Container", "collections.abc.Container" },
  { "typing.ContextManager", "contextlib.AbstractContextManager" },
  { "typing.Coroutine", "collections.abc.Coroutine" },
  { "typing.Counter", "collections.Counter" },
  { "typing.DefaultDict", "collections.defaultdict" },
  { "typing.Deque", "collections.deque" },
  { "typing.Dict", "typing.Dict" },
  { "typing.FrozenSet", "typing.FrozenSet" },
  { "typing.Generator", "collections.abc.Generator" },
  { "typing.Hashable", "collections.abc.Hashable" },
  { "typing.ItemsView", "collections.abc.ItemsView" },
  { "typing.Iterable", "collections.abc.Iterable" },
  { "typing.Iterator", "collections.abc.Iterator" },
  { "typing.KeysView", "collections.abc.KeysView" },
  { "typing.List", "typing.List" },
  { "typing.Mapping", "collections.abc.Mapping" },
  { "typing.MappingView", "collections.abc.MappingView" },
  { "typing.Match", "re.Match" },
  { "typing.MutableMapping", "collections.abc.MutableMapping" },
  { "typing.MutableSequence", "collections.abc.MutableSequence" },
  { "typing.MutableSet", "collections.abc.MutableSet" },
  { "typing.OrderedDict", "collections.OrderedDict" },
  { "typing.Pattern", "re.Pattern" },
  { "typing.Reversible", "collections.abc.Reversible" },
  { "typing.Sequence", "collections.abc.Sequence" },
  { "typing.Set", "typing.Set" },
  { "typing.Sized", "collections.abc.Sized" },
  { "typing.Tuple", "typing.Tuple" },
  { "typing.Type", "type" },
  { "typing.ValuesView", "collections.abc.ValuesView" },
};

/* Builtins that only have an origin when subscripted ("list[int]"). */
static const struct {
  const char *alias, *origin;
} subscript_origins[] = {
  { "dict", "typing.Dict" }, { "frozenset", "typing.FrozenSet" },
  { "list", "typing.List" }, { "set", "typing.Set" },
  { "tuple", "typing.Tuple" }, { "type", "type" },
  { "typing.Optional", "typing.Union" },
};

static const char *
alias_origin (const char *name, gboolean subscripted)
{
  for (guint i = 0; i < G_N_ELEMENTS (origins); i++)
    if (strcmp (origins[i].alias, name) == 0)
      return origins[i].origin;
  if (subscripted)
    for (guint i = 0; i < G_N_ELEMENTS (subscript_origins); i++)
      if (strcmp (subscript_origins[i].alias, name) == 0)
        return subscript_origins[i].origin;
  return NULL;
}

/* add_global for an atom: a qualified name, "...", or a literal. */
static const char *
atom_global (FxsPyNamespace *ns, const char *atom)
{
  if (strcmp (atom, "...") == 0)
    return fxs_py_namespace_global (ns, "...", "...", "Ellipsis");
  if (g_ascii_isalpha (atom[0]) || atom[0] == '_' || (guchar) atom[0] >= 0x80)
    return fxs_py_global_name (ns, atom);
  return fxs_py_namespace_global (ns, atom, atom, NULL);
}

/* The arguments in __args__ order: a [list] (Callable's parameters) is
 * spliced in; a lone () stands for no arguments (Tuple[()]). */
static void
flatten_args (const GPtrArray *args, GPtrArray *into)
{
  if (args->len == 1)
    {
      const TypeNode *only = args->pdata[0];
      if (only->atom && strcmp (only->atom, "()") == 0 && !only->subscripted)
        return;
    }
  for (guint i = 0; i < args->len; i++)
    {
      TypeNode *a = args->pdata[i];
      if (!a->atom)
        flatten_args (a->args, into);
      else
        g_ptr_array_add (into, a);
    }
}

static void
print_type (const TypeNode *t, FxsPyNamespace *ns, GString *out)
{
  if (!t->atom)
    {
      /* a bare [list] outside a subscript: not a type torch.fx prints */
      g_string_append_c (out, '[');
      for (guint i = 0; i < t->args->len; i++)
        {
          if (i)
            g_string_append_c (out, ',');
          print_type (t->args->pdata[i], ns, out);
        }
      g_string_append_c (out, ']');
      return;
    }
  if (strcmp (t->atom, "()") == 0 && !t->subscripted)
    {
      g_string_append (out, "()");
      return;
    }
  const char *origin = alias_origin (t->atom, t->subscripted);
  if (!t->subscripted)
    {
      g_string_append (out, atom_global (ns, origin ? origin : t->atom));
      return;
    }

  g_string_append (out, atom_global (ns, origin ? origin : t->atom));
  GPtrArray *args = g_ptr_array_new ();
  flatten_args (t->args, args);
  gboolean optional = strcmp (t->atom, "typing.Optional") == 0;
  if (args->len > 0 || optional)
    {
      g_string_append_c (out, '[');
      for (guint i = 0; i < args->len; i++)
        {
          if (i)
            g_string_append_c (out, ',');
          print_type (args->pdata[i], ns, out);
        }
      if (optional)
        g_string_append_printf (out, "%s%s", args->len ? "," : "",
                                fxs_py_global_name (ns, "NoneType"));
      g_string_append_c (out, ']');
    }
  g_ptr_array_unref (args);
}

void
fxs_py_type_repr (const char *expr, FxsPyNamespace *ns, GString *out)
{
  if (strcmp (expr, "()") == 0)
    {
      g_string_append (out, "()");
      return;
    }
  Parser ps = { expr };
  TypeNode *t = parse_type (&ps);
  skip_spaces (&ps);
  if (t && *ps.p == '\0')
    print_type (t, ns, out);
  else
    g_string_append (out, fxs_py_namespace_global (ns, expr, expr, NULL));
  if (t)
    type_node_free (t);
}
