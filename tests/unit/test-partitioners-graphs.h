/* Graphs for the cost and partitioner tests, made with the builder API:
 * small hand-made ones and seeded random DAGs. */
#ifndef FXS_TEST_PARTITIONERS_GRAPHS_H
#define FXS_TEST_PARTITIONERS_GRAPHS_H

#include <fxsplit/fxsplit.h>
#include <stdarg.h>

/* Appends a node whose args are the @n_args nodes @args; aborts the test
 * program when the builder refuses (the test itself is wrong then). */
static inline FxsNode *
tp_node (FxsGraph *g, FxsOp op, const char *name, const char *target,
         const FxsNode *const *args, guint n_args)
{
  const FxsValue *items[64] = { NULL };
  g_assert (n_args <= G_N_ELEMENTS (items));
  for (guint i = 0; i < n_args; i++)
    items[i] = fxs_value_new_node (g, args[i]);
  GError *error = NULL;
  FxsNode *node = fxs_graph_add_node (g, op, name, target,
                                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, items, n_args),
                                      NULL, &error);
  g_assert_no_error (error);
  return node;
}

/* A call_function / call_method / call_module node on up to three nodes
 * (NULL-terminated). */
static inline FxsNode *
tp_call (FxsGraph *g, FxsOp op, const char *name, const char *target, ...)
{
  const FxsNode *args[8];
  guint n = 0;
  va_list ap;
  va_start (ap, target);
  for (const FxsNode *a; n < G_N_ELEMENTS (args) && (a = va_arg (ap, const FxsNode *));)
    args[n++] = a;
  va_end (ap);
  return tp_node (g, op, name, target, args, n);
}

/* Gives @node one tensor of @dtype with the @rank sizes that follow. */
static inline void
tp_tensor (FxsGraph *g, FxsNode *node, const char *dtype, guint rank, ...)
{
  gint64 dims[8];
  g_assert (rank <= G_N_ELEMENTS (dims));
  va_list ap;
  va_start (ap, rank);
  for (guint d = 0; d < rank; d++)
    dims[d] = va_arg (ap, gint64);
  va_end (ap);
  const FxsTensorMeta *t = fxs_tensor_meta_new (g, rank, dims, NULL, dtype);
  fxs_node_set_tensors (node, &t, 1, FALSE);
}

static inline void
tp_attr (FxsGraph *g, const char *name, FxsAttrKind kind, const char *cls, guint rank,
         const gint64 *dims)
{
  GError *error = NULL;
  const FxsTensorMeta *t = rank || dims ? fxs_tensor_meta_new (g, rank, dims, NULL,
                                                               "torch.float32") : NULL;
  fxs_graph_add_attr (g, name, kind, cls, t, &error);
  g_assert_no_error (error);
}

static inline void
tp_output (FxsGraph *g, const FxsNode *value)
{
  tp_node (g, FXS_OP_OUTPUT, "output", "output", &value, 1);
}

/* A random DAG of @n_calls call nodes over two placeholders and a few
 * parameters and Linear modules: adds, relus, matmuls, linears (function
 * and module), views and tuple-producing splits with getitems.  Arguments
 * come mostly from recent nodes, sometimes from any earlier one; most
 * nodes have float32 shapes in meta, some none (unknown bytes and FLOPs).
 * The output returns the last node and every node nobody uses. */
static inline FxsGraph *
tp_random_dag (GRand *rng, guint n_calls)
{
  FxsGraph *g = fxs_graph_new ();
  static const gint64 wdims[2] = { 8, 8 }, bdims[1] = { 8 };
  GPtrArray *nodes = g_ptr_array_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  tp_tensor (g, x, "torch.float32", 2, (gint64) 4, (gint64) 8);
  FxsNode *y = tp_node (g, FXS_OP_PLACEHOLDER, "y", "y", NULL, 0);
  tp_tensor (g, y, "torch.float32", 2, (gint64) 4, (gint64) 8);
  g_ptr_array_add (nodes, x);
  g_ptr_array_add (nodes, y);
  const FxsNode *weights[3];
  for (guint i = 0; i < 3; i++)
    {
      char name[32], mod[32];
      g_snprintf (name, sizeof name, "w%u", i);
      tp_attr (g, name, FXS_ATTR_PARAMETER, NULL, 2, wdims);
      weights[i] = tp_node (g, FXS_OP_GET_ATTR, name, name, NULL, 0);
      g_snprintf (mod, sizeof mod, "lin%u", i);
      tp_attr (g, mod, FXS_ATTR_MODULE, "torch.nn.modules.linear.Linear", 0, NULL);
      g_snprintf (name, sizeof name, "lin%u.weight", i);
      tp_attr (g, name, FXS_ATTR_PARAMETER, NULL, 2, wdims);
      g_snprintf (name, sizeof name, "lin%u.bias", i);
      tp_attr (g, name, FXS_ATTR_PARAMETER, NULL, 1, bdims);
    }
  guint8 *used = g_new0 (guint8, n_calls + 16);
  guint first_call = nodes->len;
  for (guint i = 0; i < n_calls; i++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "n%u", i);
      guint len = nodes->len;
      const FxsNode *a[2];
      for (guint k = 0; k < 2; k++)
        {
          guint j = g_rand_int_range (rng, 0, 4) == 0 ? (guint) g_rand_int_range (rng, 0, len)
                    : len - 1 - (guint) g_rand_int_range (rng, 0, MIN (len, 3));
          a[k] = nodes->pdata[j];
          if (j >= first_call)
            used[j - first_call] = 1;
        }
      FxsNode *node;
      gboolean tuple = FALSE;
      switch (g_rand_int_range (rng, 0, 8))
        {
        case 0:
          node = tp_call (g, FXS_OP_CALL_FUNCTION, name, "torch.relu", a[0], NULL);
          break;
        case 1:
          node = tp_call (g, FXS_OP_CALL_FUNCTION, name, "torch.matmul", a[0], a[1], NULL);
          break;
        case 2:
          node = tp_call (g, FXS_OP_CALL_FUNCTION, name, "torch._C._nn.linear", a[0],
                          weights[g_rand_int_range (rng, 0, 3)], NULL);
          break;
        case 3:
          {
            char mod[32];
            g_snprintf (mod, sizeof mod, "lin%d", g_rand_int_range (rng, 0, 3));
            node = tp_call (g, FXS_OP_CALL_MODULE, name, mod, a[0], NULL);
            break;
          }
        case 4:
          node = tp_call (g, FXS_OP_CALL_METHOD, name, "view", a[0], NULL);
          break;
        case 5:
          node = tp_call (g, FXS_OP_CALL_FUNCTION, name, "torch.split", a[0], NULL);
          tuple = TRUE;
          break;
        default:
          node = tp_call (g, FXS_OP_CALL_FUNCTION, name, "_operator.add", a[0], a[1], NULL);
          break;
        }
      gint64 rows = g_rand_int_range (rng, 1, 17);
      if (tuple)
        {
          gint64 dims[2] = { rows, 8 };
          const FxsTensorMeta *t[2] = { fxs_tensor_meta_new (g, 2, dims, NULL, "torch.float32"),
                                        fxs_tensor_meta_new (g, 2, dims, NULL, "torch.float32") };
          fxs_node_set_tensors (node, t, 2, TRUE);
          g_ptr_array_add (nodes, node);
          /* Its parts, so that the tuple itself is only taken apart. */
          if (++i < n_calls)
            {
              char item[32];
              g_snprintf (item, sizeof item, "n%u", i);
              const FxsValue *args[2] = { fxs_value_new_node (g, node), fxs_value_new_int (g, 0) };
              GError *error = NULL;
              node = fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, item, "_operator.getitem",
                                         fxs_value_new_sequence (g, FXS_VALUE_TUPLE, args, 2),
                                         NULL, &error);
              g_assert_no_error (error);
              used[nodes->len - 1 - first_call] = 1;
              tp_tensor (g, node, "torch.float32", 2, rows, (gint64) 8);
            }
          else
            continue;
        }
      else if (g_rand_int_range (rng, 0, 10) != 0)
        tp_tensor (g, node, "torch.float32", 2, rows, (gint64) 8);
      g_ptr_array_add (nodes, node);
    }
  /* Output: the last node and every call node nobody uses. */
  GPtrArray *outs = g_ptr_array_new ();
  for (guint j = first_call; j < nodes->len; j++)
    if (!used[j - first_call] || j == nodes->len - 1)
      g_ptr_array_add (outs, fxs_value_new_node (g, nodes->pdata[j]));
  const FxsValue *ret = fxs_value_new_sequence (g, FXS_VALUE_TUPLE,
                                                (const FxsValue *const *) outs->pdata, outs->len);
  GError *error = NULL;
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &ret, 1), NULL, &error);
  g_assert_no_error (error);
  g_ptr_array_free (outs, TRUE);
  g_ptr_array_free (nodes, TRUE);
  g_free (used);
  return g;
}

#endif
