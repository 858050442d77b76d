/* Verifying a split (fxsplit/verify.h, docs/split-semantics.md "What
 * verify checks"), then the checks once all of it ran: the top-level
 * output, every original computation, the submodules' inputs, outputs and
 * calls.
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

/* A scope of @graph with no node evaluated yet, owned by v->scopes. */
static Scope *
scope_new (Verifier *v, const FxsGraph *graph, const char *name, const FxsNode *call)
{
  guint n = fxs_graph_n_nodes (graph);
  Scope *s = g_malloc0 (sizeof (Scope) + n * sizeof (guint32));
  s->graph = graph;
  s->name = name;
  s->call = call;
  memset (s->val, 0xff, n * sizeof (guint32));
  g_ptr_array_add (v->scopes, s);
  return s;
}

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

/* @scope's state after its global-state node @node, with value number @vn. */
static void
next_state (Verifier *v, Scope *scope, const FxsNode *node, guint32 vn)
{
  guint64 state = g_array_index (v->pairs, guint64, scope->state);
  guint32 grad = (guint32) (state >> 32), stack = (guint32) state;
  switch (fxs_global_state_of (node))
    {
    case GLOBAL_STATE_SET_GRAD:
      grad = vn + 1;
      break;
    case GLOBAL_STATE_ENTER_AUTOCAST:
      stack = intern_pair (v, stack, vn + 1);
      break;
    case GLOBAL_STATE_EXIT_AUTOCAST:
      /* the region entered by the value number of the exit's argument */
      if (stack && node->args.n > 0
          && (guint32) g_array_index (v->pairs, guint64, stack)
             == fxs_verify_resolve (v, &node->args.u.items[0], scope).vn + 1)
        stack = (guint32) (g_array_index (v->pairs, guint64, stack) >> 32);
      else /* not the innermost region: a state of its own, alike on both sides */
        stack = intern_pair (v, stack, VAL_STRUCT | vn);
      break;
    default:
      break;
    }
  scope->state = intern_pair (v, grad, stack);
}

/* ---- value numbers -------------------------------------------------------------------- */

/* The original's name of @target used by @node of @scope: submodules'
 * call_module and get_attr targets go through the qualname map. */
static const char *
original_target (const Verifier *v, const Scope *scope, const FxsNode *node)
{
  if (!scope->name || !v->qualnames || (node->op != FXS_OP_CALL_MODULE && node->op != FXS_OP_GET_ATTR))
    return node->target;
  char *qualname = g_strconcat (scope->name, ".", node->target, NULL);  /* "submod_1.target" */
  const char *old = g_hash_table_lookup (v->qualnames, qualname);
  g_free (qualname);
  return old ? old : node->target;
}

/* The value number of what call or get_attr node @node of @scope
 * computes, or VAL_NONE; with @insert_rep a new number for it (original
 * node @insert_rep) when there is none.  Numbers are found by key, written
 * at the end of v->keys: the op, the original target, the state unless
 * @node sets it or reads an attribute, and what its args and kwargs stand
 * for.  A new number keeps its key there. */
static guint32
vn_lookup (Verifier *v, Scope *scope, const FxsNode *node, guint32 insert_rep)
{
  GString *keys = v->keys;
  gsize start = keys->len;
  const char *target = original_target (v, scope, node);
  fxs_verify_encode_word (keys, node->op, strlen (target));
  g_string_append (keys, target);
  if (node->op != FXS_OP_GET_ATTR)
    {
      if (!fxs_global_state_of (node))
        fxs_verify_encode_word (keys, 0, scope->state);
      fxs_verify_encode (v, keys, &node->args, scope, FALSE);
      fxs_verify_encode (v, keys, &node->kwargs, scope, FALSE);
    }
  const char *key = keys->str + start;
  gsize len = keys->len - start;
  guint32 hash = fxs_name_hash (key, len);
  fxs_table_room (&v->numbers);
  for (gsize i = fxs_table_start (&v->numbers, hash);; i = fxs_table_step (&v->numbers, i))
    {
      FxsTableHead *e = fxs_table_at (&v->numbers, i);
      if (e->tag)
        {
          const Vn *vn = &g_array_index (v->vns, Vn, e->tag - 1);
          if (e->hash != hash || vn->key_len != len || memcmp (keys->str + vn->key, key, len) != 0)
            continue;
        }
      else if (insert_rep != VAL_NONE)
        {
          Vn entry = { insert_rep, 0, 0, start, len, NULL, NULL };
          g_array_append_val (v->vns, entry);
          *e = (FxsTableHead) { hash, v->vns->len };
          fxs_table_added (&v->numbers);
          return v->vns->len - 1;
        }
      g_string_truncate (keys, start);
      return e->tag ? e->tag - 1 : VAL_NONE;
    }
}

/* ---- the original ---------------------------------------------------------------------- */

static void
number_original (Verifier *v)
{
  const FxsGraph *g = v->orig->graph;
  for (guint i = 0; i < fxs_graph_n_nodes (g); i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      guint32 vn = VAL_NONE;
      if (node->op == FXS_OP_PLACEHOLDER)
        {
          Vn entry = { i, 0, 0, 0, 0, NULL, NULL };
          g_array_append_val (v->vns, entry);
          vn = v->vns->len - 1;
          g_array_append_val (v->placeholders, i);
        }
      else if (node->op != FXS_OP_OUTPUT)
        vn = vn_lookup (v, v->orig, node, i);
      if (fxs_op_is_call ((FxsOp) node->op))
        {
          g_array_index (v->vns, Vn, vn).n_orig++;
          if (fxs_global_state_of (node))
            next_state (v, v->orig, node, vn);
        }
      v->orig->val[i] = vn;
    }
}

/* ---- the split ----------------------------------------------------------------------- */

/* Every reference must be to an earlier node of the same graph: that is
 * what makes the partitions' calls an order (no cycle).  The loader and
 * fxs_graph_add_node() see to it; the engine's graphs are what is checked.
 * An earlier node has its value: evaluation stops at the first that has
 * none. */
static gboolean
check_refs (Verifier *v, Scope *scope, const FxsNode *node)
{
  const FxsNode *ref = fxs_graph_bad_ref (scope->graph, node->index, &node->args, &node->kwargs);
  return !ref || fxs_verify_fail (v, "%s refers to %s, %s", fxs_verify_node (v, scope, node),
                                  fxs_verify_quoted (v, ref->name),
                                  ref->graph == scope->graph ? "which does not come before it"
                                                             : "which is not a node of its graph");
}

/* The first original call node that the split has not computed as often
 * yet.  With @split (of original target @target), for the message about
 * what it should have matched: the first with the same op and target,
 * preferring one of the same name. */
static const FxsNode *
uncomputed_original (const Verifier *v, const FxsNode *split, const char *target)
{
  const FxsGraph *g = v->orig->graph;
  const FxsNode *best = NULL;
  for (guint i = 0; i < fxs_graph_n_nodes (g); i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      if (split ? node->op != split->op || strcmp (node->target, target) != 0
                : !fxs_op_is_call ((FxsOp) node->op))
        continue;
      const Vn *vn = &g_array_index (v->vns, Vn, v->orig->val[i]);
      if (vn->n_split >= vn->n_orig)
        continue;
      if (!split || strcmp (node->name, split->name) == 0)
        return node;
      if (!best)
        best = node;
    }
  return best;
}

static gboolean
fail_unmatched (Verifier *v, Scope *scope, const FxsNode *node)
{
  const char *m = fxs_verify_node (v, scope, node);
  const char *target = original_target (v, scope, node);
  const FxsNode *close = uncomputed_original (v, node, target);
  if (!close)
    return fxs_verify_fail (v, "%s computes nothing the original computes: %sno original %s node "
                            "with target %s is left to match it", m,
                            !scope->name && node->op == FXS_OP_CALL_MODULE
                              ? "it calls no submodule of the split, and " : "",
                            fxs_op_to_string ((FxsOp) node->op), fxs_verify_quoted (v, target));
  GString *d = g_string_new ("args");
  if (!fxs_verify_first_difference (v, &node->args, scope, &close->args, v->orig, d))
    {
      g_string_assign (d, "kwargs");
      if (!fxs_verify_first_difference (v, &node->kwargs, scope, &close->kwargs, v->orig, d))
        g_string_assign (d, "it runs under other set_grad_enabled / autocast calls "
                            "(counted from the start of its submodule)");
    }
  return fxs_verify_fail (v, "%s does not match %s: %s", m, fxs_verify_node (v, v->orig, close),
                          fxs_verify_keep (v, d));
}

static gboolean
match_call (Verifier *v, Scope *scope, const FxsNode *node)
{
  guint32 vn = vn_lookup (v, scope, node, VAL_NONE);
  if (vn == VAL_NONE)
    return fail_unmatched (v, scope, node);
  Vn *entry = &g_array_index (v->vns, Vn, vn);
  gboolean global = fxs_global_state_of (node) != GLOBAL_STATE_NONE;
  entry->n_split++;
  if (!global && entry->n_split > entry->n_orig)
    return fxs_verify_fail (v, "%s computes %s again, which %s computes already",
                 fxs_verify_node (v, scope, node),
                 fxs_verify_node (v, v->orig, fxs_graph_node (v->orig->graph, entry->rep)),
                 fxs_verify_node (v, entry->first_scope, entry->first));
  if (entry->n_split == 1)
    {
      entry->first = node;
      entry->first_scope = scope;
    }
  scope->val[node->index] = vn;
  if (global)
    next_state (v, scope, node, vn);
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
      g_array_append_val (v->structs, r);
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
  Resolved st = fxs_verify_resolve (v, &node->args.u.items[0], scope);
  if (!st.value || (st.value->kind != FXS_VALUE_TUPLE && st.value->kind != FXS_VALUE_LIST))
    return FALSE;
  gint64 k = node->args.u.items[1].u.i, len = st.value->n;
  if (k < -len || k >= len)
    return FALSE;
  const FxsValue *item = &st.value->u.items[k < 0 ? k + len : k];
  bind (v, scope, node->index, fxs_verify_resolve (v, item, st.scope));
  return TRUE;
}

static gboolean evaluate (Verifier *v, Scope *scope);

/* A top-level call of a submodule: its placeholders take the call's
 * arguments, its nodes are evaluated, the call stands for its output. */
static gboolean
inline_call (Verifier *v, Scope *top, const FxsNode *call, const FxsGraph *sub)
{
  const char *m = fxs_verify_node (v, top, call);
  if (!g_hash_table_add (v->called, (gpointer) sub))
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
  if (!evaluate (v, scope))
    return FALSE;

  const FxsNode *out = fxs_graph_output_node (sub);
  if (!out || out->args.n != 1)
    return fxs_verify_fail (v, "%s: the output node must return exactly one value", scope->name);
  bind (v, top, call->index, fxs_verify_resolve (v, &out->args.u.items[0], scope));
  return TRUE;
}

/* Input @k of @scope: in a submodule, the value of one node that its call
 * passes; in the top-level graph, the original's input @k. */
static gboolean
bind_input (Verifier *v, Scope *scope, const FxsNode *node, guint k)
{
  if (scope->call)
    {
      Resolved r = fxs_verify_resolve (v, &scope->call->args.u.items[k], v->top);
      scope->val[node->index] = r.vn;
      if (!r.value)
        return TRUE;
      GString *d = g_string_new (NULL);
      fxs_verify_describe_resolved (v, d, r);
      return fxs_verify_fail (v, "%s is given %s, not the value of one node (verify expects a node per "
                              "input)", fxs_verify_node (v, scope, node), fxs_verify_keep (v, d));
    }
  const char *m = fxs_verify_node (v, scope, node);
  if (k >= v->placeholders->len)
    return fxs_verify_fail (v, "%s is an input the original does not have (it has %u)", m,
                 v->placeholders->len);
  guint32 i = g_array_index (v->placeholders, guint32, k);
  const FxsNode *orig = fxs_graph_node (v->orig->graph, i);
  scope->val[node->index] = v->orig->val[i];
  /* keep_original_node_name gives the top-level placeholder the node's name as target */
  if (strcmp (node->target, orig->target) != 0 && strcmp (node->target, orig->name) != 0)
    return fxs_verify_fail (v, "%s is input %u, which is %s in the original", m, k,
                            fxs_verify_node (v, v->orig, orig));
  if ((node->args.n != 0) != (orig->args.n != 0)
      || (node->args.n && !fxs_value_equal (&node->args.u.items[0], &orig->args.u.items[0])))
    return fxs_verify_fail (v, "%s has another default value than %s", m,
                            fxs_verify_node (v, v->orig, orig));
  return TRUE;
}

static gboolean
evaluate (Verifier *v, Scope *scope)
{
  gboolean top = scope->call == NULL;
  guint n_placeholders = 0;
  /* a missing input first: everything after it would differ */
  guint n_top_inputs = top ? fxs_graph_count_op (scope->graph, FXS_OP_PLACEHOLDER) : 0;
  if (top && n_top_inputs < v->placeholders->len)
    return fxs_verify_fail (v, "the top-level graph has %u inputs, the original %u: %s is missing",
                            n_top_inputs, v->placeholders->len,
                            fxs_verify_node (v, v->orig, fxs_graph_node (v->orig->graph,
                                             g_array_index (v->placeholders, guint32, n_top_inputs))));
  for (guint i = 0; i < fxs_graph_n_nodes (scope->graph); i++)
    {
      const FxsNode *node = fxs_graph_node (scope->graph, i);
      if (!check_refs (v, scope, node))
        return FALSE;
      switch ((FxsOp) node->op)
        {
        case FXS_OP_PLACEHOLDER:
          if (!bind_input (v, scope, node, n_placeholders++))
            return FALSE;
          break;
        case FXS_OP_GET_ATTR:
          scope->val[i] = vn_lookup (v, scope, node, VAL_NONE);
          if (scope->val[i] == VAL_NONE)
            return fxs_verify_fail (v, "%s reads attribute %s, which no get_attr node of the original "
                                    "reads", fxs_verify_node (v, scope, node),
                                    fxs_verify_quoted (v, original_target (v, scope, node)));
          break;
        case FXS_OP_OUTPUT:
          break;
        default:
          {
            const FxsGraph *sub = top && node->op == FXS_OP_CALL_MODULE
                                    ? g_hash_table_lookup (v->submodules, node->target)
                                    : NULL;
            if (sub ? !inline_call (v, scope, node, sub)
                    : !fold_getitem (v, scope, node) && !match_call (v, scope, node))
              return FALSE;
          }
        }
    }
  return TRUE;
}

/* ---- the checks once everything ran --------------------------------------------- */

/* The top-level output returns what the original's does. */
static gboolean
check_output (Verifier *v, Scope *top)
{
  const FxsNode *out = fxs_graph_output_node (top->graph);
  const FxsNode *orig_out = fxs_graph_output_node (v->orig->graph);
  if (!out || out->args.n != 1)
    return fxs_verify_fail (v, "the top-level graph's output node must return exactly one value");
  GString *d = g_string_new ("the top-level output");
  if (fxs_verify_first_difference (v, &out->args.u.items[0], top, &orig_out->args.u.items[0],
                                   v->orig, d))
    return fxs_verify_fail (v, "%s", fxs_verify_keep (v, d));
  g_string_free (d, TRUE);
  return TRUE;
}

/* Every original call node is computed by the split. */
static gboolean
check_counts (Verifier *v)
{
  const FxsNode *node = uncomputed_original (v, NULL, NULL);
  return !node || fxs_verify_fail (v, "%s is not computed by the split%s",
                                   fxs_verify_node (v, v->orig, node),
                                   fxs_node_n_users (node) ? "" : " (it is dead code, but "
                                   "split_module keeps every call node, and dropping one may drop "
                                   "a side effect)");
}

/* Every input of a submodule is used, except those that only bring a
 * symbolic size into scope (their node is that symbol). */
static gboolean
check_inputs_used (Verifier *v, const Scope *scope)
{
  for (guint i = 0; i < fxs_graph_n_nodes (scope->graph); i++)
    {
      const FxsNode *node = fxs_graph_node (scope->graph, i);
      if (node->op != FXS_OP_PLACEHOLDER || fxs_node_n_users (node) > 0 || fxs_node_symbol (node))
        continue;
      return fxs_verify_fail (v, "%s is an input that nothing in the submodule uses",
                   fxs_verify_node (v, scope, node));
    }
  return TRUE;
}

/* Every value a submodule returns is read in the top-level graph (by any
 * node, the output included). */
static gboolean
check_outputs_read (Verifier *v, const Scope *scope)
{
  const FxsNode *call = scope->call;
  const FxsValue *ret = &fxs_graph_output_node (scope->graph)->args.u.items[0];
  gboolean tuple = ret->kind == FXS_VALUE_TUPLE || ret->kind == FXS_VALUE_LIST;
  const FxsValue *items = tuple ? ret->u.items : ret;
  guint n = tuple ? ret->n : 1;
  gboolean whole = FALSE;
  guint8 *read = g_new0 (guint8, n ? n : 1);
  for (guint u = 0; u < fxs_node_n_users (call) && !whole; u++)
    {
      const FxsNode *user = fxs_node_user (call, u);
      gboolean picks = tuple && user->op == FXS_OP_CALL_FUNCTION
                       && strcmp (user->target, "_operator.getitem") == 0 && user->args.n == 2
                       && user->args.u.items[0].kind == FXS_VALUE_NODE
                       && user->args.u.items[0].u.node == call
                       && user->args.u.items[1].kind == FXS_VALUE_INT
                       && user->args.u.items[1].u.i >= 0
                       && (guint64) user->args.u.items[1].u.i < n;
      if (!picks)
        whole = TRUE;
      else if (fxs_node_n_users (user) > 0)
        read[user->args.u.items[1].u.i] = TRUE;
    }
  guint k = 0;
  while (!whole && k < n && read[k])
    k++;
  g_free (read);
  if (whole || k == n)
    return TRUE;
  GString *what = g_string_new (NULL);
  if (items[k].kind == FXS_VALUE_NODE)
    g_string_append (what, fxs_verify_quoted (v, items[k].u.node->name));
  else
    g_string_append (what, fxs_verify_kind_name ((FxsValueKind) items[k].kind));
  if (tuple)
    g_string_append_printf (what, " (output %u)", k);
  return fxs_verify_fail (v, "%s returns %s, which nothing in the top-level graph reads", scope->name,
                          fxs_verify_keep (v, what));
}

/* Every submodule is called: the first by name that is not fails. */
static gboolean
check_all_called (Verifier *v)
{
  const char *first = NULL;
  GHashTableIter it;
  gpointer name, sub;
  g_hash_table_iter_init (&it, v->submodules);
  while (g_hash_table_iter_next (&it, &name, &sub))
    if (!g_hash_table_contains (v->called, sub) && (!first || strcmp (name, first) < 0))
      first = name;
  return !first || fxs_verify_fail (v, "submodule %s is never called by the top-level graph",
                                    fxs_verify_quoted (v, first));
}

/* ---- the whole check ---------------------------------------------------------------- */

gboolean
fxs_verify_split (const FxsGraph *original, const FxsGraph *split_top, GHashTable *submodules,
                  GHashTable *qualname_map, GError **error)
{
  g_return_val_if_fail (original != NULL && split_top != NULL && submodules != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!fxs_graph_output_node (original))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_VERIFY, "the original graph has no output node");
      return FALSE;
    }
  Verifier v = { 0 };
  v.submodules = submodules;
  v.qualnames = qualname_map;
  guint n = fxs_graph_n_nodes (original);
  v.placeholders = g_array_new (FALSE, FALSE, sizeof (guint32));
  v.vns = g_array_sized_new (FALSE, FALSE, sizeof (Vn), n);
  fxs_table_init (&v.numbers, sizeof (FxsTableHead));
  fxs_table_reserve (&v.numbers, n);
  v.keys = g_string_new (NULL);
  v.structs = g_array_new (FALSE, FALSE, sizeof (Resolved));
  v.scopes = g_ptr_array_new_with_free_func (g_free);
  v.texts = g_ptr_array_new_with_free_func (g_free);
  v.called = g_hash_table_new (NULL, NULL);
  fxs_id_map_init (&v.pair_ids);
  v.pairs = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* pair 0: the first state (no set_grad yet, no autocast), the empty stack */
  intern_pair (&v, 0, 0);

  v.orig = scope_new (&v, original, NULL, NULL);
  number_original (&v);
  v.top = scope_new (&v, split_top, NULL, NULL);
  gboolean ok = evaluate (&v, v.top) && check_output (&v, v.top)
                && check_all_called (&v) && check_counts (&v);
  for (guint k = 2; ok && k < v.scopes->len; k++)  /* the submodules' */
    ok = check_inputs_used (&v, v.scopes->pdata[k]) && check_outputs_read (&v, v.scopes->pdata[k]);
  if (!ok)
    g_propagate_error (error, v.error);

  g_array_free (v.placeholders, TRUE);
  g_array_free (v.vns, TRUE);
  fxs_table_clear (&v.numbers);
  g_string_free (v.keys, TRUE);
  g_array_free (v.structs, TRUE);
  g_ptr_array_unref (v.scopes);
  g_ptr_array_unref (v.texts);
  g_hash_table_unref (v.called);
  fxs_id_map_clear (&v.pair_ids);
  g_array_free (v.pairs, TRUE);
  return ok;
}

gboolean
fxs_split_result_verify (const FxsSplitResult *result, GError **error)
{
  g_return_val_if_fail (result != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  /* the partition table: each partition is called after those it needs */
  GHashTable *submodules = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < fxs_split_result_n_partitions (result); i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      for (guint k = 0; k < fxs_partition_n_dependencies (p); k++)
        {
          const FxsPartition *d = fxs_partition_dependency (p, k);
          if (fxs_partition_index (d) < i)
            continue;
          g_set_error (error, FXS_ERROR, FXS_ERROR_VERIFY,
                       "partition %s is called before partition %s, whose values it needs",
                       fxs_partition_name (p), fxs_partition_name (d));
          g_hash_table_unref (submodules);
          return FALSE;
        }
      g_hash_table_insert (submodules, (gpointer) fxs_partition_submod_name (p),
                           (gpointer) fxs_partition_graph (p));
    }
  GHashTable *qualnames = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < fxs_split_result_n_qualnames (result); i++)
    {
      const char *new_name, *old_name;
      fxs_split_result_qualname (result, i, &new_name, &old_name);
      g_hash_table_insert (qualnames, (gpointer) new_name, (gpointer) old_name);
    }
  gboolean ok = fxs_verify_split (fxs_split_result_original (result), fxs_split_result_top (result),
                                  submodules, qualnames, error);
  g_hash_table_unref (submodules);
  g_hash_table_unref (qualnames);
  return ok;
}
