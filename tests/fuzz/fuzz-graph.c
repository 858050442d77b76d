/* See fuzz-graph.h.  Bytes are read one at a time; past the end every
 * read gives 0, which ends the node list. */
#include "fuzz-graph.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_NODES 160

typedef struct {
  const uint8_t *data;
  size_t size, pos;
} Bytes;

static guint
take (Bytes *b)
{
  return b->pos < b->size ? b->data[b->pos++] : 0;
}

static gboolean
more (const Bytes *b)
{
  return b->pos < b->size;
}

typedef struct {
  Bytes in;
  FxsGraph *g;
  GPtrArray *nodes;          /* FxsNode*, every node so far */
  GPtrArray *enters;         /* open _enter_autocast nodes */
  GPtrArray *attrs;          /* const char* qualified names of tensors */
  GPtrArray *modules;        /* const char* qualified names of modules */
  gboolean has_binder;       /* a node binds symbol "s0" */
  GArray *ids;               /* gint64 per node, read as each call node is made */
  gint64 last_id;
} Decoder;

static const FxsNode *
some_node (Decoder *d)
{
  return d->nodes->pdata[take (&d->in) % d->nodes->len];
}

static const FxsValue *
constant (Decoder *d)
{
  switch (take (&d->in) % 7)
    {
    case 0: return fxs_value_new_int (d->g, (gint64) take (&d->in) - 128);
    case 1: return fxs_value_new_float (d->g, take (&d->in) / 4.0);
    case 2: return fxs_value_new_string (d->g, take (&d->in) & 1 ? "mean" : "");
    case 3: return fxs_value_new_bool (d->g, take (&d->in) & 1);
    case 4: return fxs_value_new_opaque (d->g, "torch.dtype", "torch.float16");
    case 5: return fxs_value_new_int (d->g, take (&d->in) & 1 ? G_MAXINT64 : G_MININT64);
    default: return fxs_value_new_none (d->g);
    }
}

/* An argument: mostly references, sometimes constants and containers. */
static const FxsValue *
argument (Decoder *d, guint depth)
{
  guint k = take (&d->in) % 10;
  if (k < 5 || depth > 2)
    return k < 8 ? fxs_value_new_node (d->g, some_node (d)) : constant (d);
  if (k < 7)
    return constant (d);
  if (k == 9)
    {
      const FxsValue *keys[2] = { fxs_value_new_string (d->g, "a"), fxs_value_new_string (d->g, "b") };
      const FxsValue *vals[2] = { argument (d, depth + 1), argument (d, depth + 1) };
      return fxs_value_new_dict (d->g, keys, vals, 1 + take (&d->in) % 2);
    }
  guint n = take (&d->in) % 4;
  const FxsValue *items[3];
  for (guint i = 0; i < n && i < 3; i++)
    items[i] = argument (d, depth + 1);
  return fxs_value_new_sequence (d->g, take (&d->in) & 1 ? FXS_VALUE_LIST : FXS_VALUE_TUPLE,
                                 items, MIN (n, 3));
}

static FxsValue *
args_of (Decoder *d, guint n)
{
  const FxsValue *items[4];
  for (guint i = 0; i < n; i++)
    items[i] = argument (d, 0);
  return fxs_value_new_sequence (d->g, FXS_VALUE_TUPLE, items, n);
}

static gint64 partition_id (Decoder *d, gint64 previous);

static FxsNode *
add (Decoder *d, FxsOp op, const char *target, const FxsValue *args, const FxsValue *kwargs)
{
  char name[32];
  snprintf (name, sizeof name, "n%u", d->nodes->len);
  GError *error = NULL;
  FxsNode *node = fxs_graph_add_node (d->g, op, name, target, args, kwargs, &error);
  if (!node)
    {
      fprintf (stderr, "fuzz graph decoder: %s\n", error->message);
      abort ();
    }
  g_ptr_array_add (d->nodes, node);
  gint64 id = 0;
  if (op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE)
    id = d->last_id = partition_id (d, d->last_id);
  g_array_append_val (d->ids, id);
  return node;
}

static const char *const functions[] = {
  "_operator.add", "torch.relu", "torch.cat", "_operator.getitem", "builtins.getattr",
  "torch.randn", "_operator.mul",
};

/* One call or get_attr node. */
static void
add_node (Decoder *d)
{
  guint k = take (&d->in) % 16;
  const FxsValue *no_kwargs = NULL;
  if (k < 7)
    {
      FxsValue *kwargs = NULL;
      if (take (&d->in) % 4 == 0)
        {
          const FxsValue *key = fxs_value_new_string (d->g, "alpha"), *val = argument (d, 1);
          kwargs = fxs_value_new_dict (d->g, &key, &val, 1);
        }
      add (d, FXS_OP_CALL_FUNCTION, functions[k], args_of (d, take (&d->in) % 4), kwargs);
    }
  else if (k == 7)
    add (d, FXS_OP_CALL_METHOD, take (&d->in) & 1 ? "view" : "add_", args_of (d, 1 + take (&d->in) % 2),
         no_kwargs);
  else if (k == 8 && d->modules->len)
    add (d, FXS_OP_CALL_MODULE, d->modules->pdata[take (&d->in) % d->modules->len],
         args_of (d, take (&d->in) % 3), no_kwargs);
  else if (k == 9)
    {
      /* a get_attr of a tensor or of a module */
      GPtrArray *from = take (&d->in) & 1 && d->modules->len ? d->modules : d->attrs;
      if (from->len)
        add (d, FXS_OP_GET_ATTR, from->pdata[take (&d->in) % from->len], NULL, NULL);
    }
  else if (k == 10)
    {
      const FxsValue *flag = fxs_value_new_bool (d->g, take (&d->in) & 1);
      add (d, FXS_OP_CALL_FUNCTION, "torch._C._set_grad_enabled",
           fxs_value_new_sequence (d->g, FXS_VALUE_TUPLE, &flag, 1), NULL);
    }
  else if (k == 11)
    {
      const FxsValue *items[2] = { fxs_value_new_string (d->g, "cpu"),
                                   fxs_value_new_bool (d->g, take (&d->in) & 1) };
      g_ptr_array_add (d->enters, add (d, FXS_OP_CALL_FUNCTION,
                                       "torch.amp.autocast_mode._enter_autocast",
                                       fxs_value_new_sequence (d->g, FXS_VALUE_TUPLE, items, 2),
                                       NULL));
    }
  else if (k == 12 && d->enters->len)
    {
      /* exits close the innermost region, as `with` does */
      const FxsValue *enter = fxs_value_new_node (d->g, g_ptr_array_steal_index (d->enters,
                                                                                 d->enters->len - 1));
      add (d, FXS_OP_CALL_FUNCTION, "torch.amp.autocast_mode._exit_autocast",
           fxs_value_new_sequence (d->g, FXS_VALUE_TUPLE, &enter, 1), NULL);
    }
  else if (k == 13)
    {
      /* a node whose size is symbolic: it needs a binder of s0 */
      FxsNode *node = add (d, FXS_OP_CALL_FUNCTION, "torch.relu", args_of (d, 1), NULL);
      if (!d->has_binder)
        {
          fxs_node_set_symbol (node, "s0");
          d->has_binder = TRUE;
        }
      else
        {
          const char *symbols[] = { "s0" };
          fxs_node_set_free_symbols (node, symbols, 1);
        }
    }
  else
    add (d, FXS_OP_CALL_FUNCTION, "_operator.add", args_of (d, 2), NULL);
}

static gint64
partition_id (Decoder *d, gint64 previous)
{
  static const gint64 extremes[] = { G_MININT64, G_MAXINT64, -1, G_MININT64 + 1, G_MAXINT64 - 1 };
  guint k = take (&d->in);
  if (k < 160)
    return previous;                 /* neighbours mostly share a partition */
  if (k < 240)
    /* never decreasing, as global state needs (saturating at the top) */
    return previous > G_MAXINT64 - 2 ? previous : previous + (k % 3);
  if (k < 250)
    return (gint64) (k % 4);
  return extremes[k % G_N_ELEMENTS (extremes)];
}

void
fuzz_graph_decode (const uint8_t *data, size_t size, FuzzGraph *out)
{
  Decoder d = { { data, size, 0 }, fxs_graph_new (), g_ptr_array_new (), g_ptr_array_new (),
                g_ptr_array_new (), g_ptr_array_new (), FALSE,
                g_array_new (FALSE, FALSE, sizeof (gint64)), 0 };
  GError *error = NULL;
  guint flags = take (&d.in);
  out->options = fxs_split_options_new ();
  fxs_split_options_set_keep_original_order (out->options, flags & 1);
  fxs_split_options_set_keep_original_node_name (out->options, flags & 2);
  fxs_split_options_set_keep_original_input_name (out->options, !(flags & 4));
  fxs_split_options_set_tuple_return (out->options, flags & 8);
  if (flags & 16)
    fxs_split_options_set_partition_affix (out->options, "st");

  static const char *const tensors[] = { "w", "layer.0.bias", "buf" };
  static const char *const modules[] = { "lin", "layer.0.lin", "layer.1" };
  guint n_attrs = take (&d.in) % 7;
  for (guint i = 0; i < n_attrs; i++)
    {
      gboolean module = i % 2;
      const char *name = module ? modules[i / 2] : tensors[i / 2];
      if (!fxs_graph_add_attr (d.g, name, module ? FXS_ATTR_MODULE : FXS_ATTR_PARAMETER,
                               module ? "torch.nn.Linear" : NULL, NULL, &error))
        abort ();
      g_ptr_array_add (module ? d.modules : d.attrs, (gpointer) name);
    }

  guint n_inputs = 1 + take (&d.in) % 3;
  for (guint i = 0; i < n_inputs; i++)
    {
      char target[8];
      snprintf (target, sizeof target, "x%u", i);
      guint k = take (&d.in);
      const FxsValue *def = fxs_value_new_int (d.g, 2);
      FxsNode *node = add (&d, FXS_OP_PLACEHOLDER, target,
                           k & 1 ? fxs_value_new_sequence (d.g, FXS_VALUE_TUPLE, &def, 1) : NULL,
                           NULL);
      if (k & 2 && !d.has_binder)
        {
          fxs_node_set_symbol (node, "s0");
          d.has_binder = TRUE;
        }
    }
  while (more (&d.in) && d.nodes->len < MAX_NODES)
    add_node (&d);
  /* regions left open are closed at the end, as the engine requires */
  while (d.enters->len)
    {
      const FxsValue *enter = fxs_value_new_node (d.g, g_ptr_array_steal_index (d.enters,
                                                                               d.enters->len - 1));
      add (&d, FXS_OP_CALL_FUNCTION, "torch.amp.autocast_mode._exit_autocast",
           fxs_value_new_sequence (d.g, FXS_VALUE_TUPLE, &enter, 1), NULL);
    }
  const FxsValue *result = argument (&d, 0);
  add (&d, FXS_OP_OUTPUT, "output", fxs_value_new_sequence (d.g, FXS_VALUE_TUPLE, &result, 1), NULL);

  out->ids = (gint64 *) g_array_free (d.ids, FALSE);
  out->graph = d.g;
  g_ptr_array_unref (d.nodes);
  g_ptr_array_unref (d.enters);
  g_ptr_array_unref (d.attrs);
  g_ptr_array_unref (d.modules);
}

void
fuzz_graph_clear (FuzzGraph *fg)
{
  fxs_graph_unref (fg->graph);
  g_free (fg->ids);
  fxs_split_options_free (fg->options);
}
