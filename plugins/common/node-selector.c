/* Node selectors: "KIND:GLOB" lists naming nodes by name, target, class
 * or module path. */
#include "node-selector.h"

#include <string.h>

static const char *const kind_names[] = { "name", "function", "method", "class", "module" };

static gboolean
glob_match (GPatternSpec *pattern, const char *text)
{
#if GLIB_CHECK_VERSION (2, 70, 0)
  return g_pattern_spec_match_string (pattern, text);
#else
  return g_pattern_match_string (pattern, text);
#endif
}

static void
selector_free (gpointer data)
{
  Selector *sel = data;
  g_pattern_spec_free (sel->pattern);
  g_strfreev (sel->dtypes);
  g_free (sel->text);
  g_free (sel);
}

void
selector_list_free (SelectorList *list)
{
  if (!list)
    return;
  g_ptr_array_unref (list->items);
  g_free (list->option);
  g_free (list);
}

/* The dtypes of the condition @cond ("float16|float32") as torch prints
 * them ("torch.float16"), or NULL with @error. */
static char **
parse_dtypes (const char *option, const char *item, const char *cond, GError **error)
{
  if (*cond == '\0')
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s: an empty dtype in '%s'", option,
                   item);
      return NULL;
    }
  char **names = g_strsplit (cond, "|", -1);
  for (char **n = names; *n; n++)
    {
      if (**n == '\0')
        g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s: an empty dtype in '%s'", option,
                     item);
      else if (fxs_dtype_size (*n) == 0)
        g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                     "%s: unknown dtype '%s' in '%s' (names as torch prints them: float32, "
                     "float16, bfloat16, int64, bool, ...)", option, *n, item);
      if (**n == '\0' || fxs_dtype_size (*n) == 0)
        {
          g_strfreev (names);
          return NULL;
        }
      if (!g_str_has_prefix (*n, "torch."))
        {
          char *full = g_strconcat ("torch.", *n, NULL);
          g_free (*n);
          *n = full;
        }
    }
  return names;
}

static SelectorList *
parse_list (const char *option, const char *text, gboolean with_dtypes, GError **error)
{
  SelectorList *list = g_new0 (SelectorList, 1);
  list->option = g_strdup (option);
  list->items = g_ptr_array_new_with_free_func (selector_free);
  char **words = g_strsplit_set (text ? text : "", ", \t\n", -1);
  for (char **w = words; *w; w++)
    {
      if (**w == '\0')
        continue;
      SelectorKind kind = SELECT_NAME;
      char **dtypes = NULL;
      char *at = with_dtypes ? strrchr (*w, '@') : NULL;
      if (at)
        {
          if (!(dtypes = parse_dtypes (option, *w, at + 1, error)))
            goto fail;
          *at = '\0';
        }
      const char *glob = *w;
      const char *colon = strchr (*w, ':');
      if (colon)
        {
          gsize len = colon - *w;
          guint k;
          for (k = 0; k < G_N_ELEMENTS (kind_names); k++)
            if (strlen (kind_names[k]) == len && strncmp (*w, kind_names[k], len) == 0)
              break;
          if (k == G_N_ELEMENTS (kind_names))
            {
              if (at)
                *at = '@';
              g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                           "%s: unknown selector kind '%.*s' in '%s' "
                           "(valid: name, function, method, class, module)",
                           option, (int) len, *w, *w);
              g_strfreev (dtypes);
              goto fail;
            }
          kind = (SelectorKind) k;
          glob = colon + 1;
        }
      if (*glob == '\0')
        {
          if (at)
            *at = '@';
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                       "%s: '%s' has an empty pattern", option, *w);
          g_strfreev (dtypes);
          goto fail;
        }
      Selector *sel = g_new0 (Selector, 1);
      sel->kind = kind;
      sel->pattern = g_pattern_spec_new (glob);
      sel->dtypes = dtypes;
      if (at)
        *at = '@';
      sel->text = g_strdup (*w);
      g_ptr_array_add (list->items, sel);
    }
  g_strfreev (words);
  return list;

fail:
  g_strfreev (words);
  selector_list_free (list);
  return NULL;
}

SelectorList *
selector_list_parse (const char *option, const char *text, GError **error)
{
  return parse_list (option, text, FALSE, error);
}

SelectorList *
selector_list_parse_dtypes (const char *option, const char *text, GError **error)
{
  return parse_list (option, text, TRUE, error);
}

/* Whether every tensor @node produces has one of @dtypes. */
static gboolean
dtypes_match (char **dtypes, const FxsNode *node)
{
  guint n = fxs_node_n_tensors (node);
  if (n == 0)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const char *dtype = fxs_tensor_dtype (fxs_node_tensor (node, i));
      if (!dtype || !g_strv_contains ((const char *const *) dtypes, dtype))
        return FALSE;
    }
  return TRUE;
}

static const char *
last_component (const char *qualname)
{
  const char *dot = strrchr (qualname, '.');
  return dot ? dot + 1 : qualname;
}

static gboolean
matches (const Selector *sel, const FxsNode *node)
{
  FxsOp op = fxs_node_op (node);
  switch (sel->kind)
    {
    case SELECT_NAME:
      return glob_match (sel->pattern, fxs_node_name (node));
    case SELECT_FUNCTION:
      return op == FXS_OP_CALL_FUNCTION
             && (glob_match (sel->pattern, fxs_node_target (node))
                 || glob_match (sel->pattern, fxs_node_target_short_name (node)));
    case SELECT_METHOD:
      return op == FXS_OP_CALL_METHOD && glob_match (sel->pattern, fxs_node_target (node));
    case SELECT_CLASS:
      {
        if (op != FXS_OP_CALL_MODULE)
          return FALSE;
        const FxsAttr *a = fxs_graph_lookup_attr (fxs_node_graph (node), fxs_node_target (node));
        const char *cls = a ? fxs_attr_class (a) : NULL;
        return cls && (glob_match (sel->pattern, cls)
                       || glob_match (sel->pattern, last_component (cls)));
      }
    case SELECT_MODULE:
      return op == FXS_OP_CALL_MODULE && glob_match (sel->pattern, fxs_node_target (node));
    }
  return FALSE;
}

gboolean
selector_match (Selector *sel, const FxsNode *node)
{
  if (!matches (sel, node) || (sel->dtypes && !dtypes_match (sel->dtypes, node)))
    return FALSE;
  sel->matches++;
  return TRUE;
}

gboolean
selector_list_match (SelectorList *list, const FxsNode *node)
{
  gboolean any = FALSE;
  for (guint i = 0; i < list->items->len; i++)
    any |= selector_match (list->items->pdata[i], node);
  return any;
}

gsize
selector_module_prefix (const Selector *sel, const char *path)
{
  char *copy = g_strdup (path);
  gsize found = 0;
  for (char *p = copy;; p++)
    if (*p == '.' || *p == '\0')
      {
        char saved = *p;
        *p = '\0';
        gboolean hit = glob_match (sel->pattern, copy);
        *p = saved;
        if (hit)
          {
            found = p - copy;
            break;
          }
        if (saved == '\0')
          break;
      }
  g_free (copy);
  return found;
}

const Selector *
selector_list_first_unmatched (const SelectorList *list)
{
  for (guint i = 0; i < list->items->len; i++)
    {
      const Selector *sel = list->items->pdata[i];
      if (sel->matches == 0)
        return sel;
    }
  return NULL;
}
