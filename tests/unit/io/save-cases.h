/* What the graph saving tests share: graphs compared node by node (node
 * references by name), and a saved text loaded again. */
#ifndef FXS_TEST_SAVE_CASES_H
#define FXS_TEST_SAVE_CASES_H

#include <fxsplit/fxsplit.h>
#include <math.h>
#include <string.h>
#include "../test-util.h"

/* ---- graph comparison (node references by name) ----------------------- */

static gboolean
values_equal (const FxsValue *a, const FxsValue *b)
{
  if (fxs_value_kind (a) != fxs_value_kind (b))
    return FALSE;
  switch (fxs_value_kind (a))
    {
    case FXS_VALUE_NODE:
      return strcmp (fxs_node_name (fxs_value_get_node (a)), fxs_node_name (fxs_value_get_node (b))) == 0;
    case FXS_VALUE_LIST:
    case FXS_VALUE_TUPLE:
    case FXS_VALUE_SLICE:
      if (fxs_value_n_items (a) != fxs_value_n_items (b))
        return FALSE;
      for (guint i = 0; i < fxs_value_n_items (a); i++)
        if (!values_equal (fxs_value_item (a, i), fxs_value_item (b, i)))
          return FALSE;
      return TRUE;
    case FXS_VALUE_DICT:
      if (fxs_value_n_items (a) != fxs_value_n_items (b))
        return FALSE;
      for (guint i = 0; i < fxs_value_n_items (a); i++)
        if (!values_equal (fxs_value_dict_key (a, i), fxs_value_dict_key (b, i))
            || !values_equal (fxs_value_dict_value (a, i), fxs_value_dict_value (b, i)))
          return FALSE;
      return TRUE;
    default:
      return fxs_value_equal (a, b);
    }
}

static gboolean
strings_equal (const char *a, const char *b)
{
  return a == b || (a && b && strcmp (a, b) == 0);
}

static gboolean
tensors_equal (const FxsTensorMeta *a, const FxsTensorMeta *b)
{
  if (!a || !b)
    return a == b;
  if (fxs_tensor_rank (a) != fxs_tensor_rank (b) || !strings_equal (fxs_tensor_dtype (a), fxs_tensor_dtype (b)))
    return FALSE;
  for (guint d = 0; d < fxs_tensor_rank (a); d++)
    if (fxs_tensor_dim (a, d) != fxs_tensor_dim (b, d)
        || !strings_equal (fxs_tensor_dim_symbol (a, d), fxs_tensor_dim_symbol (b, d)))
      return FALSE;
  return TRUE;
}

/* Names the first difference, or NULL when @a and @b are equal. */
static inline char *
graph_difference (const FxsGraph *a, const FxsGraph *b)
{
  if (fxs_graph_n_nodes (a) != fxs_graph_n_nodes (b))
    return g_strdup ("node count");
  for (guint i = 0; i < fxs_graph_n_nodes (a); i++)
    {
      const FxsNode *x = fxs_graph_node (a, i), *y = fxs_graph_node (b, i);
      const char *what = NULL;
      if (strcmp (fxs_node_name (x), fxs_node_name (y)) != 0)
        what = "name";
      else if (fxs_node_op (x) != fxs_node_op (y) || strcmp (fxs_node_target (x), fxs_node_target (y)) != 0)
        what = "op or target";
      else if (!values_equal (fxs_node_args (x), fxs_node_args (y)))
        what = "args";
      else if (!values_equal (fxs_node_kwargs (x), fxs_node_kwargs (y)))
        what = "kwargs";
      else if (!strings_equal (fxs_node_type (x), fxs_node_type (y)))
        what = "type";
      else if (fxs_node_n_tensors (x) != fxs_node_n_tensors (y)
               || fxs_node_value_is_tuple (x) != fxs_node_value_is_tuple (y))
        what = "tensor count";
      else if (!strings_equal (fxs_node_symbol (x), fxs_node_symbol (y))
               || fxs_node_n_free_symbols (x) != fxs_node_n_free_symbols (y))
        what = "symbols";
      else if (!values_equal (fxs_node_meta (x), fxs_node_meta (y)))
        what = "meta";
      for (guint t = 0; !what && t < fxs_node_n_tensors (x); t++)
        if (!tensors_equal (fxs_node_tensor (x, t), fxs_node_tensor (y, t)))
          what = "tensor";
      for (guint s = 0; !what && s < fxs_node_n_free_symbols (x); s++)
        if (strcmp (fxs_node_free_symbol (x, s), fxs_node_free_symbol (y, s)) != 0)
          what = "free symbols";
      if (what)
        return g_strdup_printf ("node %s: %s", fxs_node_name (x), what);
    }
  if (fxs_graph_n_attrs (a) != fxs_graph_n_attrs (b))
    return g_strdup ("attribute count");
  for (guint i = 0; i < fxs_graph_n_attrs (a); i++)
    {
      const FxsAttr *x = fxs_graph_attr (a, i), *y = fxs_graph_attr (b, i);
      if (strcmp (fxs_attr_name (x), fxs_attr_name (y)) != 0 || fxs_attr_kind (x) != fxs_attr_kind (y)
          || !strings_equal (fxs_attr_class (x), fxs_attr_class (y))
          || !tensors_equal (fxs_attr_tensor (x), fxs_attr_tensor (y)))
        return g_strdup_printf ("attribute %s", fxs_attr_name (x));
    }
  return NULL;
}

static void
assert_graphs_equal (const FxsGraph *a, const FxsGraph *b)
{
  char *diff = graph_difference (a, b);
  CU_ASSERT_PTR_NULL (diff);
  if (diff)
    fprintf (stderr, "\n  graphs differ: %s\n", diff);
  g_free (diff);
}


static inline FxsGraph *
reload (const GString *text)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (text->str, text->len, "saved.json", &error);
  if (error)
    fprintf (stderr, "\n  %s\n", error->message);
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&error);
  return g;
}


#endif
