/* The graphs of a split result: one per partition and the top-level graph,
 * built node by node in split_module's order, so that every name comes out
 * of the torch.fx namespace as in PyTorch.  Copies share what the original
 * (kept alive) holds; only argument values that refer to nodes are rebuilt.
 * An attribute table is a Python dict: a name set twice keeps its first
 * position and takes the second value. */
#include "split-private.h"
#include "names.h"

#include <string.h>

/* Candidates repeat with the (interned) targets: cached by target, per graph */
#define CANDIDATE_CACHE_SIZE 256

typedef struct {
  const char *target;
  guint32 owner;          /* the graph it is for (Builder.owner); G_MAXUINT32: none */
  FxsOp op;
  FxsNameCandidate name;  /* its text in the graph */
  const char *flat;       /* call_module: the flattened target in this graph */
} CachedCandidate;

/* Builder.owner of the top-level graph (a partition's is its dense index) */
#define TOP_OWNER (G_MAXUINT32 - 1)

struct FxsBuilder {
  FxsSplitResult *r;
  const FxsSplitPlan *plan;
  FxsGraph *orig;
  /* environment: the node standing for original node i in the graph being
   * built, valid when env_owner[i] == owner (partition dense index, or
   * TOP_OWNER for the top-level graph) */
  FxsNode **env;
  guint32 *env_owner;
  guint32 owner;
  FxsGraph *graph;
  FxsNamespace *ns;
  GString *candidate;
  guint n_top_bound;        /* split_module's len(base_mod_env) */
  guint32 *passed_inputs;   /* see fxs_builder_new() */
  CachedCandidate cache[CANDIDATE_CACHE_SIZE];
};

typedef FxsBuilder Builder;

/* Memory for the graph being built. */
static gpointer
node_memory (Builder *b, gsize size)
{
  return fxs_arena_take (&b->graph->arena, size);
}

/* Sets attribute @name (as long-lived as the graph). */
static void
attr_table_set (Builder *b, const char *name, FxsAttrKind kind, const char *class_name,
                const FxsTensorMeta *tensor)
{
  gsize len = strlen (name);
  guint32 hash = fxs_name_hash (name, len);
  guint32 pos = fxs_graph_name_position (b->graph, FALSE, name, len, hash);
  if (pos != G_MAXUINT32)
    {
      FxsAttr *a = b->graph->attrs->pdata[pos];
      a->kind = kind;
      a->class_name = class_name;
      a->tensor = tensor;
      return;
    }
  fxs_graph_append_attr_at (b->graph, node_memory (b, sizeof (FxsAttr)), name, kind, class_name,
                            tensor);
  fxs_graph_name_added (b->graph, FALSE, hash);
}

static FxsValue
node_value (const FxsNode *node)
{
  FxsValue v = { .kind = FXS_VALUE_NODE, .u.node = node };
  return v;
}

static FxsValue
tuple_value (Builder *b, guint n, FxsValue **items)
{
  *items = n ? node_memory (b, n * sizeof (FxsValue)) : NULL;
  FxsValue v = { .kind = FXS_VALUE_TUPLE, .n = n, .u.items = *items };
  return v;
}

/* (item,) */
static FxsValue
tuple1 (Builder *b, const FxsValue *item)
{
  FxsValue *items;
  FxsValue v = tuple_value (b, 1, &items);
  items[0] = *item;
  return v;
}

static gboolean remap (Builder *b, const FxsValue *in, FxsValue *out);

/* The node standing for @v's node in the graph being built into *@out. */
static inline void
map_ref (Builder *b, const FxsValue *v, FxsValue *out)
{
  guint32 i = v->u.node->index;
  /* the analysis made every value a graph uses one of its inputs */
  g_assert (b->env_owner[i] == b->owner);
  *out = *v;
  out->u.node = b->env[i];
}

/* remap() of a container's items: of @count items at @in_items, every
 * @step-th from @first on.  Returns a copy with the changes, or NULL when
 * nothing changes. */
static inline FxsValue *
remap_items (Builder *b, const FxsValue *in_items, guint count, guint first, guint step)
{
  FxsValue *items = NULL;
  for (guint k = first; k < count; k += step)
    {
      const FxsValue *v = &in_items[k];
      FxsValue item;
      /* most items are scalars or plain references: no recursion */
      if (v->kind == FXS_VALUE_NODE)
        map_ref (b, v, &item);
      else if (v->kind < FXS_VALUE_LIST || !remap (b, v, &item))
        continue;
      if (!items)
        items = memcpy (node_memory (b, count * sizeof (FxsValue)), in_items,
                        count * sizeof (FxsValue));
      items[k] = item;
    }
  return items;
}

/* map_arg(value, lambda n: env[n]) into *@out; TRUE when @out differs from
 * @in (it refers to nodes), in which case the changed containers live in
 * the graph being built.  Dict keys are not mapped, as in torch.fx. */
static gboolean
remap (Builder *b, const FxsValue *in, FxsValue *out)
{
  *out = *in;
  FxsValue *items;
  switch (in->kind)
    {
    case FXS_VALUE_NODE:
      map_ref (b, in, out);
      return TRUE;
    case FXS_VALUE_LIST:
    case FXS_VALUE_TUPLE:
    case FXS_VALUE_SLICE:
      items = remap_items (b, in->u.items, in->n, 0, 1);
      break;
    case FXS_VALUE_DICT:
      items = remap_items (b, in->u.items, 2 * in->n, 1, 2);
      break;
    default:
      return FALSE;
    }
  if (!items)
    return FALSE;
  out->u.items = items;
  return TRUE;
}

/* "layer.0.linear" -> "layer_0_linear", stored in the graph being built. */
static const char *
flat_target (Builder *b, const char *target)
{
  /* most targets have no dot: share the original's string (kept alive) */
  if (!strchr (target, '.'))
    return target;
  char *flat = fxs_arena_strndup (&b->graph->arena, target, strlen (target));
  for (char *c = flat; *c; c++)
    if (*c == '.')
      *c = '_';
  return flat;
}

/* Targets of the nodes every graph has: static, not stored per graph. */
static const char output_target[] = "output";
static const char getitem_target[] = "_operator.getitem";

/* The original attribute @orig's target names (the analysis checked that
 * there is one for every get_attr and call_module). */
static const FxsAttr *
original_attr (const Builder *b, const FxsNode *orig)
{
  return b->orig->attrs->pdata[b->plan->attr_of[orig->index]];
}

/* Sets attribute @name to the original attribute @orig's target names. */
static void
copy_attr (Builder *b, const FxsNode *orig, const char *name)
{
  const FxsAttr *attr = original_attr (b, orig);
  attr_table_set (b, name, attr->kind, attr->class_name, attr->tensor);
}

/* torch.fx's name candidate for @target (and, for call_module, the
 * flattened target), remembered for the graph being built in @e, its
 * cache slot. */
G_GNUC_NO_INLINE static CachedCandidate *
add_target (Builder *b, FxsOp op, const char *target, CachedCandidate *e)
{
  e->target = target;
  e->owner = b->owner;
  e->op = op;
  e->flat = op == FXS_OP_CALL_MODULE ? flat_target (b, target) : target;
  fxs_name_candidate_init_for_node (&e->name, op, e->flat, b->candidate, &b->graph->arena);
  return e;
}

/* The cached candidate for @target, made by add_target() when new (the
 * cached case, most calls, stays small enough to inline). */
static inline CachedCandidate *
lookup_target (Builder *b, FxsOp op, const char *target)
{
  /* interned: the target's address is its key */
  guint64 h = ((guint64) (guintptr) target ^ op) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  CachedCandidate *e = &b->cache[(h >> 56) & (CANDIDATE_CACHE_SIZE - 1)];
  if (e->target == target && e->op == op && e->owner == b->owner)
    return e;
  return add_target (b, op, target, e);
}

/* A name from the namespace for a node torch.fx names after its target. */
static const char *
name_for_target (Builder *b, FxsOp op, const char *target)
{
  return fxs_namespace_create_name_from (b->ns, &lookup_target (b, op, target)->name);
}

static FxsNode *
add_node (Builder *b, FxsOp op, const char *name, const char *target, const FxsValue *args,
          const FxsValue *kwargs)
{
  return fxs_graph_append_node_at (b->graph, node_memory (b, sizeof (FxsNode)), op, name, target,
                                   args, kwargs);
}

/* A copy of @orig made for @orig: same type and metadata. */
static FxsNode *
add_copy (Builder *b, const FxsNode *orig, FxsOp op, const char *name, const char *target,
          const FxsValue *args, const FxsValue *kwargs)
{
  FxsNode *node = add_node (b, op, name, target, args, kwargs);
  node->type_expr = orig->type_expr;
  node->meta = orig->meta;
  return node;
}

/* add_copy() named after @target (global-state nodes, placeholders: kept
 * as long as the graph). */
static FxsNode *
add_named_copy (Builder *b, const FxsNode *orig, FxsOp op, const char *target,
                const FxsValue *args)
{
  return add_copy (b, orig, op, name_for_target (b, op, target), target, args, NULL);
}

static void
bind (Builder *b, guint32 original_index, FxsNode *node)
{
  b->env[original_index] = node;
  b->env_owner[original_index] = b->owner;
  if (b->owner == TOP_OWNER)
    b->n_top_bound++;
}

static const FxsNode *
original_node (const Builder *b, guint32 i)
{
  return b->orig->nodes->pdata[i];
}

static void
begin_graph (Builder *b, guint32 owner, guint n_nodes)
{
  b->graph = fxs_graph_new ();
  /* a node, its arguments and name take about 160 bytes */
  fxs_arena_expect (&b->graph->arena, n_nodes * 160);
  fxs_items_reserve (b->graph->nodes, n_nodes);
  fxs_graph_keep_alive (b->graph, b->orig);
  fxs_namespace_reset (b->ns, b->graph);
  b->owner = owner;
}

/* A get_attr of @orig's target, which goes into the graph's table. */
static FxsNode *
add_get_attr (Builder *b, const FxsNode *orig)
{
  FxsNode *node = add_node (b, FXS_OP_GET_ATTR, name_for_target (b, FXS_OP_GET_ATTR, orig->target),
                            orig->target, NULL, NULL);
  node->meta = orig->meta;
  copy_attr (b, orig, orig->target);
  return node;
}

/* Whether original node @i, an input of a partition, is passed to it:
 * module attributes are not, the submodule fetches them itself with
 * get_attr. */
static gboolean
input_is_passed (const Builder *b, guint32 i)
{
  const FxsNode *orig = original_node (b, i);
  return orig->op != FXS_OP_GET_ATTR || fxs_attr_kind (original_attr (b, orig)) != FXS_ATTR_MODULE;
}

/* The partition's inputs: placeholders, or get_attrs for module attributes. */
static void
add_inputs (Builder *b, const FxsPartition *part)
{
  const guint32 *inputs = fxs_csr_items (&b->r->inputs, part->dense);
  guint n = fxs_csr_count (&b->r->inputs, part->dense), counter = 0;
  for (guint k = 0; k < n; k++)
    {
      const FxsNode *orig = original_node (b, inputs[k]);
      FxsNode *node;
      if (!input_is_passed (b, inputs[k]))
        node = add_get_attr (b, orig);
      else
        {
          const char *target = orig->name;
          if (!b->plan->options->keep_original_input_name)
            {
              char arg[32];
              g_snprintf (arg, sizeof arg, "arg_%u", counter++);
              target = fxs_arena_strndup (&b->graph->arena, arg, strlen (arg));
            }
          node = add_named_copy (b, orig, FXS_OP_PLACEHOLDER, target, NULL);
        }
      bind (b, inputs[k], node);
    }
}

static void
add_partition_nodes (Builder *b, const FxsPartition *part)
{
  const guint32 *nodes = fxs_csr_items (&b->r->nodes, part->dense);
  for (guint k = 0; k < fxs_csr_count (&b->r->nodes, part->dense); k++)
    {
      const FxsNode *orig = original_node (b, nodes[k]);
      FxsValue args, kwargs = orig->kwargs;
      remap (b, &orig->args, &args);
      if (kwargs.n)   /* most are {} */
        remap (b, &orig->kwargs, &kwargs);
      CachedCandidate *c = lookup_target (b, (FxsOp) orig->op, orig->target);
      const char *target = c->flat;
      /* a dict assignment per call: the last module given a name wins */
      if (orig->op == FXS_OP_CALL_MODULE)
        copy_attr (b, orig, target);
      const char *name = b->plan->options->keep_original_node_name
                           ? fxs_namespace_create_name (b->ns, orig->name)
                           : fxs_namespace_create_name_from (b->ns, &c->name);
      bind (b, nodes[k], add_copy (b, orig, (FxsOp) orig->op, name, target, &args, &kwargs));
    }
}

/* Global-state nodes re-entered at the start of the partition. */
static void
add_preludes (Builder *b, const FxsPartition *part)
{
  const guint32 *preludes = fxs_csr_items (&b->plan->preludes, part->dense);
  for (guint k = 0; k < fxs_csr_count (&b->plan->preludes, part->dense); k++)
    {
      const FxsNode *orig = original_node (b, preludes[k]);
      /* their arguments are constants (checked by the analysis) */
      bind (b, preludes[k],
            add_named_copy (b, orig, (FxsOp) orig->op, orig->target, &orig->args));
    }
}

/* Autocast regions left at the end of the partition. */
static void
add_epilogues (Builder *b, const FxsPartition *part)
{
  const guint32 *exits = fxs_csr_items (&b->plan->epilogues, part->dense);
  for (guint k = 0; k < fxs_csr_count (&b->plan->epilogues, part->dense); k++)
    {
      const FxsNode *exit = original_node (b, exits[k]);
      FxsValue enter, args;
      remap (b, &exit->args.u.items[0], &enter);
      args = tuple1 (b, &enter);
      add_named_copy (b, exit, (FxsOp) exit->op, exit->target, &args);
    }
}

/* The graph's output node, which returns @result. */
static void
add_output (Builder *b, const FxsValue *result)
{
  FxsValue args = tuple1 (b, result);
  add_node (b, FXS_OP_OUTPUT, fxs_namespace_create_name (b->ns, "output"), output_target, &args,
            NULL);
}

/* One output returned bare, several (or any with tuple_return) as a tuple. */
static void
add_partition_output (Builder *b, const FxsPartition *part)
{
  const guint32 *outputs = fxs_csr_items (&b->r->outputs, part->dense);
  guint n = fxs_csr_count (&b->r->outputs, part->dense);
  FxsValue *items;
  FxsValue result = tuple_value (b, n, &items);
  for (guint k = 0; k < n; k++)
    items[k] = node_value (b->env[outputs[k]]);
  if (n == 1 && !b->plan->options->tuple_return)
    result = items[0];
  add_output (b, &result);
}

void
fxs_builder_build_partition (FxsBuilder *b, guint k)
{
  FxsPartition *part = &b->r->partitions[k];
  guint dense = part->dense;
  begin_graph (b, dense, fxs_csr_count (&b->plan->preludes, dense)
                           + fxs_csr_count (&b->r->inputs, dense)
                           + fxs_csr_count (&b->r->nodes, dense)
                           + fxs_csr_count (&b->plan->epilogues, dense) + 1);
  part->graph = b->graph;
  add_preludes (b, part);
  add_inputs (b, part);
  part->first_node = b->graph->nodes->len;
  add_partition_nodes (b, part);
  add_epilogues (b, part);
  add_partition_output (b, part);
  b->graph = NULL;
}

/* split_module's construct_graph: a placeholder or get_attr of the original. */
static void
construct (Builder *b, guint32 i)
{
  const FxsNode *orig = original_node (b, i);
  FxsNode *node;
  if (orig->op == FXS_OP_PLACEHOLDER)
    {
      /* with keep_original_node_name the node's name becomes the target */
      const char *target = b->plan->options->keep_original_node_name ? orig->name : orig->target;
      FxsValue args = { .kind = FXS_VALUE_TUPLE };
      if (orig->args.n)
        args = tuple1 (b, &orig->args.u.items[0]);
      node = add_named_copy (b, orig, FXS_OP_PLACEHOLDER, target, &args);
    }
  else
    node = add_get_attr (b, orig);
  bind (b, i, node);
}

/* The placeholders (and with @get_attrs the get_attrs) not constructed yet. */
static void
construct_all (Builder *b, gboolean get_attrs)
{
  /* placeholders and get_attrs are in no partition: most nodes are passed
   * over without reading them */
  for (guint i = 0; i < b->orig->nodes->len; i++)
    {
      if (b->r->part_of[i] != FXS_NO_PARTITION)
        continue;
      FxsOp op = (FxsOp) original_node (b, i)->op;
      if ((op == FXS_OP_PLACEHOLDER || (op == FXS_OP_GET_ATTR && get_attrs))
          && b->env_owner[i] != TOP_OWNER)
        construct (b, i);
    }
}

/* Calls the partition and binds its outputs (unpacked with getitem when it
 * returns a tuple). */
static void
call_partition (Builder *b, FxsPartition *part)
{
  /* the inputs passed (module attributes are not), listed for the result
   * apart from r->inputs, which the partitions' builders read meanwhile */
  const guint32 *inputs = fxs_csr_items (&b->r->inputs, part->dense);
  guint32 *passed = b->passed_inputs + b->r->inputs.offsets[part->dense];
  guint n_passed = 0;
  for (guint k = 0; k < fxs_csr_count (&b->r->inputs, part->dense); k++)
    if (input_is_passed (b, inputs[k]))
      passed[n_passed++] = inputs[k];
  part->n_inputs = n_passed;
  FxsValue *items;
  FxsValue args = tuple_value (b, n_passed, &items);
  for (guint k = 0; k < n_passed; k++)
    {
      FxsValue ref = node_value (original_node (b, passed[k]));
      map_ref (b, &ref, &items[k]);   /* checks it is bound in the top-level graph */
    }
  const char *submod = fxs_arena_strndup (&b->graph->arena, part->submod_name,
                                          strlen (part->submod_name));
  /* one name per partition, and no attribute of the original */
  g_string_truncate (b->candidate, 0);
  fxs_node_name_candidate (FXS_OP_CALL_MODULE, submod, b->candidate);
  FxsNode *call = add_node (b, FXS_OP_CALL_MODULE,
                            fxs_namespace_create_name (b->ns, b->candidate->str), submod, &args,
                            NULL);
  attr_table_set (b, submod, FXS_ATTR_MODULE, "torch.fx.graph_module.GraphModule", NULL);

  const guint32 *outputs = fxs_csr_items (&b->r->outputs, part->dense);
  guint n = fxs_csr_count (&b->r->outputs, part->dense);
  if (n == 1 && !b->plan->options->tuple_return)
    bind (b, outputs[0], call);
  else
    for (guint k = 0; k < n; k++)
      {
        FxsValue getitem_args = tuple_value (b, 2, &items);
        items[0] = node_value (call);
        items[1] = (FxsValue) { .kind = FXS_VALUE_INT, .u.i = k };
        bind (b, outputs[k],
              add_node (b, FXS_OP_CALL_FUNCTION, fxs_namespace_create_name (b->ns, "getitem"),
                        getitem_target, &getitem_args, NULL));
      }
}

static void
construct_get_attr_ref (const FxsNode *def, gpointer data)
{
  Builder *b = data;
  if (def->op == FXS_OP_GET_ATTR && b->env_owner[def->index] != TOP_OWNER)
    construct (b, def->index);
}

/* split_module's top-level graph: the original's placeholders and
 * get_attrs (with keep_original_order among the calls, as they are needed),
 * the partitions' calls and the output. */
void
fxs_builder_build_top (FxsBuilder *b)
{
  guint n_top = b->r->n_partitions + b->r->outputs.offsets[b->r->n_partitions] + 1;
  for (guint i = 0; i < b->orig->nodes->len; i++)
    n_top += b->r->part_of[i] == FXS_NO_PARTITION;
  begin_graph (b, TOP_OWNER, n_top);
  gboolean keep_order = b->plan->options->keep_original_order;
  if (!keep_order)
    construct_all (b, TRUE);
  b->r->top = b->graph;
  for (guint k = 0; k < b->r->n_partitions; k++)
    {
      FxsPartition *part = &b->r->partitions[k];
      if (keep_order)
        {
          /* every placeholder before the first call, then the attributes
           * this partition takes, as they are needed */
          if (k == 0)
            construct_all (b, FALSE);
          const guint32 *inputs = fxs_csr_items (&b->r->inputs, part->dense);
          for (guint i = 0; i < fxs_csr_count (&b->r->inputs, part->dense); i++)
            if (original_node (b, inputs[i])->op == FXS_OP_GET_ATTR
                && input_is_passed (b, inputs[i]) && b->env_owner[inputs[i]] != TOP_OWNER)
              construct (b, inputs[i]);
        }
      call_partition (b, part);
    }
  /* with no partitions (or none binding anything) nothing was constructed */
  if (keep_order && b->n_top_bound == 0)
    construct_all (b, TRUE);

  const FxsNode *out = fxs_graph_output_node (b->orig);
  /* PyTorch fails here on an attribute only the output uses; fetch it */
  if (keep_order)
    fxs_value_foreach_node (&out->args.u.items[0], construct_get_attr_ref, b);
  FxsValue result;
  remap (b, &out->args.u.items[0], &result);
  add_output (b, &result);
  b->graph = NULL;
}

FxsBuilder *
fxs_builder_new (FxsSplitResult *r, const FxsSplitPlan *plan, guint32 *passed_inputs)
{
  Builder *b = g_new (Builder, 1);
  guint n = MAX (r->original->nodes->len, 1);
  *b = (Builder) {
    .r = r,
    .plan = plan,
    .orig = r->original,
    .env = g_new (FxsNode *, n),
    .env_owner = g_new (guint32, n),
    .candidate = g_string_new (NULL),
    .passed_inputs = passed_inputs,
  };
  memset (b->env_owner, 0xff, n * sizeof (guint32));
  for (guint i = 0; i < CANDIDATE_CACHE_SIZE; i++)
    b->cache[i].owner = G_MAXUINT32;
  b->ns = fxs_namespace_new (NULL);
  return b;
}

void
fxs_builder_free (FxsBuilder *b)
{
  fxs_namespace_free (b->ns);
  g_free (b->env);
  g_free (b->env_owner);
  g_string_free (b->candidate, TRUE);
  g_free (b);
}
