/* Verifying a split (fxsplit/verify.h, docs/split-semantics.md "What
 * verify checks").
 *
 * The original graph is numbered by value: two call nodes get the same
 * value number when they have the same op, target, grad/autocast state
 * and args/kwargs whose references have the same numbers (so identical
 * computations are interchangeable, and the numbering needs no names).
 * The split is then evaluated symbolically: the top-level graph node by
 * node, each submodule inlined where the top-level graph calls it, every
 * node mapped to the value number it computes.  A call node of the split
 * whose number does not exist in the original, a number computed more or
 * fewer times than in the original, or an output of another structure is
 * a difference.
 *
 * Submodule calls return their output value; when that is not a single
 * node (a tuple), the call stands for the value itself ("a structure") and
 * getitem(call, k) in the top-level graph picks item k without being a
 * computation of its own.  Everything is linear: one hash table of value
 * numbers, one array per graph. */
#include "verify-private.h"

#include <string.h>

/* ---- scopes ----------------------------------------------------------------------- */

static Scope *
scope_new (Verifier *v, const FxsGraph *graph, const char *name, const FxsNode *call)
{
  Scope *s = g_new0 (Scope, 1);
  guint n = fxs_graph_n_nodes (graph);
  s->graph = graph;
  s->name = name;
  s->call = call;
  s->val = g_new (guint32, n ? n : 1);
  memset (s->val, 0xff, (n ? n : 1) * sizeof (guint32));
  g_ptr_array_add (v->scopes, s);
  return s;
}

static void
scope_free (gpointer data)
{
  Scope *s = data;
  g_free (s->val);
  g_free (s);
}

/* What a call node computes: enough to look its number up. */
typedef struct {
  const FxsNode *node;
  Scope *scope;
  const char *target;   /* mapped back to the original's names */
  FxsGlobalState global;
  guint32 state;        /* ignored for global-state calls */
  guint64 hash;
} Sig;

/* ---- grad and autocast state ------------------------------------------------------ */

static guint32
intern_pair (Verifier *v, guint32 a, guint32 b)
{
  gboolean inserted;
  guint64 pair = fxs_id_pair (a, b);
  guint32 id = fxs_id_map_lookup_or_insert (&v->pair_ids, pair, v->pairs->len, &inserted);
  if (inserted)
    g_array_append_val (v->pairs, pair);
  return id;
}

/* The state after global-state node @sig, with value number @vn. */
static guint32
next_state (Verifier *v, const Sig *sig, guint32 vn)
{
  guint64 state = g_array_index (v->pairs, guint64, sig->state);
  guint32 grad = (guint32) (state >> 32), stack = (guint32) state;
  switch (sig->global)
    {
    case GLOBAL_STATE_SET_GRAD:
      grad = vn + 1;
      break;
    case GLOBAL_STATE_ENTER_AUTOCAST:
      stack = intern_pair (v, stack, vn + 1);
      break;
    case GLOBAL_STATE_EXIT_AUTOCAST:
      /* the region entered by the value number of the exit's argument */
      if (stack && sig->node->args.n > 0
          && (guint32) g_array_index (v->pairs, guint64, stack)
             == fxs_verify_resolve (v, &sig->node->args.u.items[0], sig->scope).vn + 1)
        stack = (guint32) (g_array_index (v->pairs, guint64, stack) >> 32);
      else /* not the innermost region: a state of its own, alike on both sides */
        stack = intern_pair (v, stack, VAL_STRUCT | vn);
      break;
    default:
      break;
    }
  return intern_pair (v, grad, stack);
}

/* ---- value numbers -------------------------------------------------------------------- */

static void
sig_hash (const Verifier *v, Sig *sig)
{
  guint64 h = fxs_verify_mix (sig->node->op, 0);
  h = fxs_verify_mix (h, fxs_name_hash (sig->target, strlen (sig->target)));
  if (!sig->global)
    h = fxs_verify_mix (h, sig->state);
  h = fxs_verify_mix (h, fxs_verify_hash_value (v, &sig->node->args, sig->scope));
  sig->hash = fxs_verify_mix (h, fxs_verify_hash_value (v, &sig->node->kwargs, sig->scope));
}

static gboolean
sig_matches (const Verifier *v, const Sig *sig, guint32 vn_index, const guint32 *rep_state)
{
  const Vn *vn = &g_array_index (v->vns, Vn, vn_index);
  if (vn->hash != (guint32) sig->hash)
    return FALSE;
  const FxsNode *rep = fxs_graph_node (v->orig.graph, vn->rep);
  return rep->op == sig->node->op && strcmp (rep->target, sig->target) == 0
         && (sig->global || rep_state[vn->rep] == sig->state)
         && !fxs_verify_first_difference (v, &sig->node->args, sig->scope, &rep->args,
                                          (Scope *) &v->orig, NULL, NULL)
         && !fxs_verify_first_difference (v, &sig->node->kwargs, sig->scope, &rep->kwargs,
                                          (Scope *) &v->orig, NULL, NULL);
}

/* The number of @sig, or VAL_NONE; with @insert_rep a new number for it
 * (original node @insert_rep) when there is none. */
static guint32
vn_lookup (Verifier *v, const Sig *sig, const guint32 *rep_state, guint32 insert_rep)
{
  guint32 hash = (guint32) sig->hash;
  if (insert_rep != VAL_NONE)
    fxs_table_room (&v->numbers);
  for (gsize i = fxs_table_start (&v->numbers, hash);; i = fxs_table_step (&v->numbers, i))
    {
      FxsTableHead *e = fxs_table_at (&v->numbers, i);
      if (!e->tag)
        {
          if (insert_rep == VAL_NONE)
            return VAL_NONE;
          Vn entry = { insert_rep, hash, 0, 0 };
          g_array_append_val (v->vns, entry);
          *e = (FxsTableHead) { hash, v->vns->len };
          fxs_table_added (&v->numbers);
          return v->vns->len - 1;
        }
      if (e->hash == hash && sig_matches (v, sig, e->tag - 1, rep_state))
        return e->tag - 1;
    }
}

static guint32
new_vn (Verifier *v, guint32 rep)
{
  Vn entry = { rep, 0, 0, 0 };
  g_array_append_val (v->vns, entry);
  return v->vns->len - 1;
}

/* ---- the original ---------------------------------------------------------------------- */

typedef struct {
  guint32 *state;            /* per original node: the state it ran under */
  GArray *placeholders;      /* guint32 node indices */
} Original;

static void
number_original (Verifier *v, Original *o)
{
  const FxsGraph *g = v->orig.graph;
  guint n = fxs_graph_n_nodes (g);
  fxs_table_reserve (&v->numbers, n);
  o->state = g_new0 (guint32, n ? n : 1);
  guint32 state = 0;
  for (guint i = 0; i < n; i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      guint32 vn;
      o->state[i] = state;
      switch ((FxsOp) node->op)
        {
        case FXS_OP_PLACEHOLDER:
          vn = new_vn (v, i);
          g_array_append_val (o->placeholders, i);
          break;
        case FXS_OP_GET_ATTR:
          {
            gpointer known = g_hash_table_lookup (v->attr_vn, node->target);
            vn = known ? GPOINTER_TO_UINT (known) - 1 : new_vn (v, i);
            if (!known)
              g_hash_table_insert (v->attr_vn, (gpointer) node->target, GUINT_TO_POINTER (vn + 1));
            break;
          }
        case FXS_OP_OUTPUT:
          vn = VAL_NONE;
          break;
        default:
          {
            Sig sig = { node, &v->orig, node->target, fxs_global_state_of (node),
                        state, 0 };
            sig_hash (v, &sig);
            vn = vn_lookup (v, &sig, o->state, i);
            g_array_index (v->vns, Vn, vn).n_orig++;
            if (sig.global)
              state = next_state (v, &sig, vn);
            break;
          }
        }
      v->orig.val[i] = vn;
    }
}

/* ---- the split ----------------------------------------------------------------------- */

/* The original's name of @target used by @node of @scope: submodules'
 * call_module and get_attr targets go through the qualname map. */
static const char *
original_target (Verifier *v, Scope *scope, const FxsNode *node)
{
  if (!scope->name || (node->op != FXS_OP_CALL_MODULE && node->op != FXS_OP_GET_ATTR))
    return node->target;
  g_string_assign (v->qualname, scope->name);
  g_string_append_c (v->qualname, '.');
  g_string_append (v->qualname, node->target);
  const char *key = v->qualname->str, *old = NULL;
  if (v->src->result)
    old = fxs_split_result_lookup_qualname (v->src->result, key);
  else if (v->src->qualnames)
    old = g_hash_table_lookup (v->src->qualnames, key);
  return old ? old : node->target;
}

/* Every reference must be to an earlier node of the same graph: that is
 * what makes the partitions' calls an order (no cycle).  The loader and
 * fxs_graph_add_node() see to it; the engine's graphs are what is checked.
 * An earlier node has its value: evaluation stops at the first that has
 * none. */
static gboolean
check_refs (Verifier *v, Scope *scope, const FxsNode *node)
{
  const FxsNode *ref = fxs_graph_bad_ref (scope->graph, node->index, &node->args, &node->kwargs);
  if (!ref)
    return TRUE;
  return fxs_verify_fail (v, "%s refers to %s, %s", fxs_verify_split_node (v, scope, node),
                          fxs_verify_quoted (v, ref->name),
                          ref->graph == scope->graph ? "which does not come before it"
                                                     : "which is not a node of its graph");
}

/* The original call node that @sig should have matched, for the message:
 * the first with the same op and target that the split has not computed
 * as often yet, preferring one of the same name. */
static const FxsNode *
closest_original (const Verifier *v, const Sig *sig)
{
  const FxsGraph *g = v->orig.graph;
  const FxsNode *best = NULL;
  for (guint i = 0; i < fxs_graph_n_nodes (g); i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      if (node->op != sig->node->op || strcmp (node->target, sig->target) != 0)
        continue;
      const Vn *vn = &g_array_index (v->vns, Vn, v->orig.val[i]);
      if (vn->n_split >= vn->n_orig)
        continue;
      if (strcmp (node->name, sig->node->name) == 0)
        return node;
      if (!best)
        best = node;
    }
  return best;
}

static gboolean
fail_unmatched (Verifier *v, const Sig *sig)
{
  GString *m = g_string_new (fxs_verify_split_node (v, sig->scope, sig->node));
  GString *path = g_string_new (NULL), *why = g_string_new (NULL);
  const FxsNode *close = closest_original (v, sig);
  if (!close)
    {
      g_string_append (m, " computes nothing the original computes: ");
      if (!sig->scope->name && sig->node->op == FXS_OP_CALL_MODULE)
        g_string_append (m, "it calls no submodule of the split, and ");
      g_string_append_printf (m, "no original %s node with target ",
                              fxs_op_to_string ((FxsOp) sig->node->op));
      fxs_verify_append_quoted (m, sig->target);
      g_string_append (m, " is left to match it");
    }
  else
    {
      g_string_append_printf (m, " does not match %s: ", fxs_verify_orig_node (v, close));
      if (fxs_verify_first_difference (v, &sig->node->args, sig->scope, &close->args, &v->orig, path, why))
        g_string_append_printf (m, "args%s %s", path->str, why->str);
      else if (fxs_verify_first_difference (v, &sig->node->kwargs, sig->scope, &close->kwargs, &v->orig,
                                 path, why))
        g_string_append_printf (m, "kwargs%s %s", path->str, why->str);
      else
        g_string_append (m, "it runs under other set_grad_enabled / autocast calls "
                            "(counted from the start of its submodule)");
    }
  fxs_verify_fail (v, "%s", m->str);
  g_string_free (m, TRUE);
  g_string_free (path, TRUE);
  g_string_free (why, TRUE);
  return FALSE;
}

/* The first split node computing value number @vn, other than @except. */
static const char *
first_computing (Verifier *v, guint32 vn, const FxsNode *except)
{
  for (guint k = 0; k < v->scopes->len; k++)
    {
      Scope *s = v->scopes->pdata[k];
      for (guint i = 0; i < fxs_graph_n_nodes (s->graph); i++)
        {
          const FxsNode *node = fxs_graph_node (s->graph, i);
          if (s->val[i] == vn && fxs_op_is_call ((FxsOp) node->op) && node != except)
            return fxs_verify_split_node (v, s, node);
        }
    }
  return "another node";
}

static gboolean
match_call (Verifier *v, Scope *scope, const FxsNode *node, const Original *o)
{
  Sig sig = { node, scope, original_target (v, scope, node), fxs_global_state_of (node),
              scope->state, 0 };
  sig_hash (v, &sig);
  guint32 vn = vn_lookup (v, &sig, o->state, VAL_NONE);
  if (vn == VAL_NONE)
    return fail_unmatched (v, &sig);
  Vn *entry = &g_array_index (v->vns, Vn, vn);
  entry->n_split++;
  if (!sig.global && entry->n_split > entry->n_orig)
    return fxs_verify_fail (v, "%s computes %s again, which %s computes already",
                 fxs_verify_split_node (v, scope, node),
                 fxs_verify_orig_node (v, fxs_graph_node (v->orig.graph, entry->rep)),
                 first_computing (v, vn, node));
  scope->val[node->index] = vn;
  if (sig.global)
    scope->state = next_state (v, &sig, vn);
  return TRUE;
}

/* Node @i of @scope stands for @r: its value number, or the structure. */
static void
bind (Verifier *v, Scope *scope, guint32 i, Resolved r)
{
  if (!r.value)
    scope->val[i] = r.vn;
  else
    {
      Struct st = { r.value, r.scope };
      g_array_append_val (v->structs, st);
      scope->val[i] = VAL_STRUCT | (v->structs->len - 1);
    }
}

/* getitem(call, k) on a submodule's returned tuple picks item k: not a
 * computation.  Returns TRUE when @node is one (and binds it). */
static gboolean
fold_getitem (Verifier *v, Scope *scope, const FxsNode *node)
{
  if (node->op != FXS_OP_CALL_FUNCTION || strcmp (node->target, "_operator.getitem") != 0
      || node->args.n != 2 || node->kwargs.n != 0
      || node->args.u.items[0].kind != FXS_VALUE_NODE || node->args.u.items[1].kind != FXS_VALUE_INT)
    return FALSE;
  guint32 val = scope->val[node->args.u.items[0].u.node->index];
  if (!(val & VAL_STRUCT) || val == VAL_NONE)
    return FALSE;
  const Struct st = *fxs_verify_struct (v, val);
  if (st.value->kind != FXS_VALUE_TUPLE && st.value->kind != FXS_VALUE_LIST)
    return FALSE;
  gint64 k = node->args.u.items[1].u.i, len = st.value->n;
  if (k < -len || k >= len)
    return FALSE;
  const FxsValue *item = &st.value->u.items[k < 0 ? k + len : k];
  bind (v, scope, node->index, fxs_verify_resolve (v, item, st.scope));
  return TRUE;
}

static gboolean evaluate (Verifier *v, Scope *scope, const Original *o);

/* A top-level call of a submodule: its placeholders take the call's
 * arguments, its nodes are evaluated, the call stands for its output. */
static gboolean
inline_call (Verifier *v, Scope *top, const FxsNode *call, const FxsGraph *sub, const Original *o)
{
  const char *m = fxs_verify_split_node (v, top, call);
  if (!fxs_id_set_add (&v->called, (guint64) (guintptr) sub))
    return fxs_verify_fail (v, "%s calls %s a second time (verify expects each submodule to be called once)",
                 m, call->target);
  if (call->kwargs.n)
    return fxs_verify_fail (v, "%s passes keyword arguments to %s (split_module passes positional ones only)",
                 m, call->target);
  Scope *scope = scope_new (v, sub, call->target, call);
  guint n_inputs = fxs_graph_count_op (sub, FXS_OP_PLACEHOLDER);
  if (n_inputs != call->args.n)
    return fxs_verify_fail (v, "%s passes %u arguments to %s, which takes %u inputs", m, call->args.n,
                 call->target, n_inputs);
  guint k = 0;
  for (guint i = 0; i < fxs_graph_n_nodes (sub); i++)
    {
      const FxsNode *node = fxs_graph_node (sub, i);
      if (node->op != FXS_OP_PLACEHOLDER)
        continue;
      Resolved r = fxs_verify_resolve (v, &call->args.u.items[k++], top);
      if (r.value)
        {
          GString *d = g_string_new (NULL);
          fxs_verify_describe_resolved (v, d, r);
          return fxs_verify_fail (v, "%s is given %s, not the value of one node (verify expects a node per "
                       "input)", fxs_verify_split_node (v, scope, node), fxs_verify_keep (v, d));
        }
      scope->val[i] = r.vn;
    }
  if (!evaluate (v, scope, o))
    return FALSE;

  const FxsNode *out = fxs_graph_output_node (sub);
  if (!out || out->args.n != 1)
    return fxs_verify_fail (v, "%s: the output node must return exactly one value", scope->name);
  bind (v, top, call->index, fxs_verify_resolve (v, &out->args.u.items[0], scope));
  return TRUE;
}

static gboolean
check_placeholder (Verifier *v, Scope *top, const FxsNode *node, guint k, const Original *o)
{
  const char *m = fxs_verify_split_node (v, top, node);
  if (k >= o->placeholders->len)
    return fxs_verify_fail (v, "%s is an input the original does not have (it has %u)", m,
                 o->placeholders->len);
  guint32 i = g_array_index (o->placeholders, guint32, k);
  const FxsNode *orig = fxs_graph_node (v->orig.graph, i);
  top->val[node->index] = v->orig.val[i];
  /* keep_original_node_name gives the top-level placeholder the node's name as target */
  if (strcmp (node->target, orig->target) != 0 && strcmp (node->target, orig->name) != 0)
    return fxs_verify_fail (v, "%s is input %u, which is %s in the original", m, k, fxs_verify_orig_node (v, orig));
  if ((node->args.n != 0) != (orig->args.n != 0)
      || (node->args.n && !fxs_value_equal (&node->args.u.items[0], &orig->args.u.items[0])))
    return fxs_verify_fail (v, "%s has another default value than %s", m, fxs_verify_orig_node (v, orig));
  return TRUE;
}

static gboolean
evaluate (Verifier *v, Scope *scope, const Original *o)
{
  gboolean top = scope->call == NULL;
  guint n_placeholders = 0;
  /* a missing input first: everything after it would differ */
  guint n_top_inputs = top ? fxs_graph_count_op (scope->graph, FXS_OP_PLACEHOLDER) : 0;
  if (top && n_top_inputs < o->placeholders->len)
    return fxs_verify_fail (v, "the top-level graph has %u inputs, the original %u: %s is missing",
                 n_top_inputs, o->placeholders->len,
                 fxs_verify_orig_node (v, fxs_graph_node (v->orig.graph, g_array_index (o->placeholders,
                                                                             guint32, n_top_inputs))));
  for (guint i = 0; i < fxs_graph_n_nodes (scope->graph) && !v->error; i++)
    {
      const FxsNode *node = fxs_graph_node (scope->graph, i);
      if (!check_refs (v, scope, node))
        return FALSE;
      switch ((FxsOp) node->op)
        {
        case FXS_OP_PLACEHOLDER:
          if (top && !check_placeholder (v, scope, node, n_placeholders, o))
            return FALSE;
          n_placeholders++;
          break;
        case FXS_OP_GET_ATTR:
          {
            const char *target = original_target (v, scope, node);
            gpointer vn = g_hash_table_lookup (v->attr_vn, target);
            if (!vn)
              return fxs_verify_fail (v, "%s reads attribute %s, which no get_attr node of the original "
                           "reads", fxs_verify_split_node (v, scope, node), fxs_verify_quoted (v, target));
            scope->val[i] = GPOINTER_TO_UINT (vn) - 1;
            break;
          }
        case FXS_OP_OUTPUT:
          break;
        default:
          {
            const FxsGraph *sub = top && node->op == FXS_OP_CALL_MODULE
                                    ? fxs_verify_submodule (v->src, node->target)
                                    : NULL;
            if (sub)
              {
                if (!inline_call (v, scope, node, sub, o))
                  return FALSE;
              }
            else if (!fold_getitem (v, scope, node) && !match_call (v, scope, node, o))
              return FALSE;
          }
        }
    }
  return v->error == NULL;
}

/* ---- the whole check ---------------------------------------------------------------- */

gboolean
fxs_verify_run (const FxsGraph *original, const FxsGraph *top, Source *src, GError **error)
{
  if (!fxs_graph_output_node (original))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_VERIFY, "the original graph has no output node");
      return FALSE;
    }
  Verifier v = { 0 };
  v.src = src;
  v.orig.graph = original;
  guint n = fxs_graph_n_nodes (original);
  v.orig.val = g_new (guint32, n ? n : 1);
  v.vns = g_array_sized_new (FALSE, FALSE, sizeof (Vn), n);
  v.attr_vn = g_hash_table_new (g_str_hash, g_str_equal);
  v.structs = g_array_new (FALSE, FALSE, sizeof (Struct));
  v.scopes = g_ptr_array_new_with_free_func (scope_free);
  v.qualname = g_string_new (NULL);
  v.texts = g_ptr_array_new_with_free_func (g_free);
  fxs_table_init (&v.numbers, sizeof (FxsTableHead));
  fxs_id_set_init (&v.called);
  fxs_id_map_init (&v.pair_ids);
  v.pairs = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* pair 0: the first state (no set_grad yet, no autocast), the empty stack */
  intern_pair (&v, 0, 0);

  Original o = { NULL, g_array_new (FALSE, FALSE, sizeof (guint32)) };
  number_original (&v, &o);
  Scope *top_scope = scope_new (&v, top, NULL, NULL);
  gboolean ok = evaluate (&v, top_scope, &o) && fxs_verify_check_output (&v, top_scope)
                && fxs_verify_check_all_called (&v) && fxs_verify_check_counts (&v);
  for (guint k = 1; ok && k < v.scopes->len; k++)
    ok = fxs_verify_check_inputs_used (&v, v.scopes->pdata[k]) && fxs_verify_check_outputs_read (&v, v.scopes->pdata[k]);
  if (!ok)
    g_propagate_error (error, v.error);

  g_free (o.state);
  g_array_free (o.placeholders, TRUE);
  g_free (v.orig.val);
  g_array_free (v.vns, TRUE);
  fxs_table_clear (&v.numbers);
  g_hash_table_unref (v.attr_vn);
  g_array_free (v.structs, TRUE);
  g_ptr_array_unref (v.scopes);
  g_string_free (v.qualname, TRUE);
  g_ptr_array_unref (v.texts);
  fxs_id_set_clear (&v.called);
  fxs_id_map_clear (&v.pair_ids);
  g_array_free (v.pairs, TRUE);
  return ok;
}

