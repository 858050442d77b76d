/* A split result file's partitions table checked against its graphs
 * (docs/split-semantics.md, section 10).  Readers of a split trust the
 * table for the stages' order and the data flow between them, so it must
 * say what the graphs do: every entry names a submodule of the file and
 * each submodule has exactly one entry, in the same (call) order; every
 * dependency is a partition of the table, listed once; the dependencies
 * form no cycle and are exactly the partitions whose values the top-level
 * graph passes to the entry's call; the dependents are the dependencies
 * the other way round.  Linear in the size of the table and of the
 * top-level graph. */
#include "verify-private.h"
#include "model/loaded-split.h"

#include <string.h>

typedef struct {
  const FxsLoadSplit *parts;
  GHashTable *submodules;    /* the file's: name -> graph */
  GHashTable *by_name;       /* partition name -> index + 1 */
  GHashTable *by_submodule;  /* submodule name -> index + 1 */
  Verifier msg;              /* only its texts (the message's quoted names) and error */
} Table;

static const FxsLoadPartition *
entry (const Table *t, guint i)
{
  return t->parts->partitions->pdata[i];
}

static guint
n_entries (const Table *t)
{
  return t->parts->partitions->len;
}

/* @s quoted and escaped for the message (owned by @t). */
static const char *
q (Table *t, const char *s)
{
  return fxs_verify_quoted (&t->msg, s);
}

/* A macro, to put the prefix before the literal format. */
#define fail(t, ...) fxs_verify_fail (&(t)->msg, "partitions table: " __VA_ARGS__)

/* Index of partition @name, or -1. */
static gint64
index_of (const Table *t, const char *name)
{
  return (gint64) GPOINTER_TO_UINT (g_hash_table_lookup (t->by_name, name)) - 1;
}

/* One entry per submodule, in the submodules' order. */
static gboolean
check_entries (Table *t)
{
  for (guint i = 0; i < n_entries (t); i++)
    {
      const FxsLoadPartition *e = entry (t, i);
      if (index_of (t, e->name) >= 0)
        return fail (t, "two partitions are named %s", q (t, e->name));
      g_hash_table_insert (t->by_name, e->name, GUINT_TO_POINTER (i + 1));
      if (!g_hash_table_contains (t->submodules, e->submodule))
        return fail (t, "partition %s names submodule %s, which the file does not have",
                     q (t, e->name), q (t, e->submodule));
      guint other = GPOINTER_TO_UINT (g_hash_table_lookup (t->by_submodule, e->submodule));
      if (other)
        return fail (t, "partitions %s and %s both name submodule %s",
                     q (t, entry (t, other - 1)->name), q (t, e->name), q (t, e->submodule));
      g_hash_table_insert (t->by_submodule, e->submodule, GUINT_TO_POINTER (i + 1));
    }
  GPtrArray *names = t->parts->names;
  for (guint i = 0; i < names->len; i++)
    {
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (t->by_submodule, names->pdata[i]));
      if (!at)
        return fail (t, "submodule %s has no entry", q (t, names->pdata[i]));
      if (at - 1 != i)
        return fail (t, "partition %s is entry %u, but its submodule %s is submodule %u: "
                     "both are listed in the order of the calls", q (t, entry (t, at - 1)->name),
                     at, q (t, names->pdata[i]), i + 1);
    }
  return TRUE;
}

/* The names of @list (the @what of @e) are partitions, each listed once;
 * @edges gets (entry, named) for each. */
static gboolean
check_names (Table *t, guint i, GPtrArray *list, const char *what, FxsIdSet *edges)
{
  const FxsLoadPartition *e = entry (t, i);
  for (guint k = 0; k < list->len; k++)
    {
      const char *name = list->pdata[k];
      gint64 at = index_of (t, name);
      if (at < 0)
        return fail (t, "partition %s lists %s among its %s, but no partition has that name",
                     q (t, e->name), q (t, name), what);
      if (!fxs_id_set_add (edges, fxs_id_pair (i, (guint32) at)))
        return fail (t, "partition %s lists %s twice among its %s", q (t, e->name), q (t, name),
                     what);
    }
  return TRUE;
}

/* No cycle through the dependencies: a depth-first walk, without
 * recursion (a chain may be as long as the table). */
static gboolean
check_acyclic (Table *t)
{
  guint n = n_entries (t);
  guint8 *state = g_new0 (guint8, n ? n : 1);  /* 0 new, 1 on the walk, 2 done */
  guint *next = g_new0 (guint, n ? n : 1);     /* the dependency to follow next */
  GArray *walk = g_array_new (FALSE, FALSE, sizeof (guint));  /* entry indices */
  gboolean ok = TRUE;
  for (guint start = 0; start < n && ok; start++)
    {
      if (state[start])
        continue;
      g_array_append_val (walk, start);
      state[start] = 1;
      while (walk->len && ok)
        {
          guint i = g_array_index (walk, guint, walk->len - 1);
          GPtrArray *deps = entry (t, i)->dependencies;
          if (next[i] == deps->len)
            {
              state[i] = 2;
              g_array_set_size (walk, walk->len - 1);
              continue;
            }
          guint d = (guint) index_of (t, deps->pdata[next[i]++]);
          if (state[d] == 1)
            {
              GString *cycle = g_string_new (NULL);
              guint from = walk->len;
              while (g_array_index (walk, guint, from - 1) != d)
                from--;
              for (guint w = from - 1; w < walk->len; w++)
                g_string_append_printf (cycle, "%s -> ",
                                        q (t, entry (t, g_array_index (walk, guint, w))->name));
              g_string_append (cycle, q (t, entry (t, d)->name));
              ok = fail (t, "the dependencies form a cycle: %s", cycle->str);
              g_string_free (cycle, TRUE);
            }
          else if (state[d] == 0)
            {
              state[d] = 1;
              g_array_append_val (walk, d);
            }
        }
    }
  g_array_free (walk, TRUE);
  g_free (next);
  g_free (state);
  return ok;
}

/* The partition whose call or returned tuple @ref stands for, or -1. */
static gint64
producer (const Table *t, const FxsNode *ref)
{
  while (ref->op == FXS_OP_CALL_FUNCTION && strcmp (ref->target, "_operator.getitem") == 0
         && ref->args.n >= 1 && ref->args.u.items[0].kind == FXS_VALUE_NODE)
    ref = ref->args.u.items[0].u.node;
  if (ref->op != FXS_OP_CALL_MODULE)
    return -1;
  return (gint64) GPOINTER_TO_UINT (g_hash_table_lookup (t->by_submodule, ref->target)) - 1;
}

typedef struct {
  const Table *t;
  guint user;
  FxsIdSet *flow;        /* (user, producer) found so far */
  FxsIdSet *listed;
  gint64 unlisted;       /* a producer the table does not list, or -1 */
} Flow;

static void
add_flow (const FxsNode *ref, gpointer data)
{
  Flow *f = data;
  gint64 p = producer (f->t, ref);
  if (p < 0 || p == f->user)
    return;
  guint64 edge = fxs_id_pair (f->user, (guint32) p);
  /* listed?  Adding tells; a miss ends the check, so the set that grew
   * is not looked at again */
  if (fxs_id_set_add (f->flow, edge) && f->unlisted < 0 && fxs_id_set_add (f->listed, edge))
    f->unlisted = p;
}

/* The dependencies are the partitions whose values reach each call. */
static gboolean
check_data_flow (Table *t, FxsIdSet *listed)
{
  const FxsGraph *top = t->parts->top;
  FxsIdSet flow;
  fxs_id_set_init (&flow);
  gboolean ok = TRUE;
  for (guint i = 0; i < fxs_graph_n_nodes (top) && ok; i++)
    {
      const FxsNode *node = fxs_graph_node (top, i);
      if (node->op != FXS_OP_CALL_MODULE)
        continue;
      gint64 user = (gint64) GPOINTER_TO_UINT (g_hash_table_lookup (t->by_submodule,
                                                                     node->target)) - 1;
      if (user < 0)
        continue;  /* a call of something else: verify reports it */
      Flow f = { t, (guint) user, &flow, listed, -1 };
      fxs_value_foreach_node (&node->args, add_flow, &f);
      fxs_value_foreach_node (&node->kwargs, add_flow, &f);
      if (f.unlisted >= 0)
        ok = fail (t, "partition %s takes values of partition %s (its call reads submodule %s's), "
                   "but does not list it among its dependencies", q (t, entry (t, user)->name),
                   q (t, entry (t, f.unlisted)->name), q (t, entry (t, f.unlisted)->submodule));
    }
  /* every flow is listed; a listed dependency without a flow is left */
  for (guint i = 0; i < n_entries (t) && ok && listed->table.used > flow.table.used; i++)
    {
      GPtrArray *deps = entry (t, i)->dependencies;
      for (guint k = 0; k < deps->len && ok; k++)
        {
          guint d = (guint) index_of (t, deps->pdata[k]);
          if (fxs_id_set_add (&flow, fxs_id_pair (i, d)))
            ok = fail (t, "partition %s lists partition %s among its dependencies, but its call "
                       "takes no value of submodule %s", q (t, entry (t, i)->name),
                       q (t, entry (t, d)->name), q (t, entry (t, d)->submodule));
        }
    }
  fxs_id_set_clear (&flow);
  return ok;
}

/* Each dependent lists the partition among its dependencies, and back.
 * Membership is tested by adding: a miss fails the check, so a set that
 * grew is not looked at again. */
static gboolean
check_dependents (Table *t, FxsIdSet *deps, FxsIdSet *dependents)
{
  for (int way = 0; way < 2; way++)
    for (guint i = 0; i < n_entries (t); i++)
      {
        GPtrArray *list = way ? entry (t, i)->dependencies : entry (t, i)->dependents;
        for (guint k = 0; k < list->len; k++)
          {
            guint d = (guint) index_of (t, list->pdata[k]);
            if (fxs_id_set_add (way ? dependents : deps, fxs_id_pair (d, i)))
              return fail (t, "partition %s lists %s among its %s, but %s does not list it "
                           "among its %s", q (t, entry (t, i)->name), q (t, entry (t, d)->name),
                           way ? "dependencies" : "dependents", q (t, entry (t, d)->name),
                           way ? "dependents" : "dependencies");
          }
      }
  return TRUE;
}

gboolean
fxs_verify_partition_table (const FxsGraph *original, const FxsLoadSplit *parts,
                            GHashTable *submodules, GError **error)
{
  if (!parts->has_partitions)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_VERIFY, "%s", parts->submodules->len == 0
                   ? "it has no submodules and no \"partitions\" table: a graph file, not a "
                     "split result"
                   : "it has no \"partitions\" table: not a split result");
      return FALSE;
    }
  guint calls = fxs_graph_count_op (original, FXS_OP_CALL_FUNCTION)
                + fxs_graph_count_op (original, FXS_OP_CALL_METHOD)
                + fxs_graph_count_op (original, FXS_OP_CALL_MODULE);
  if (parts->submodules->len == 0 && calls > 0)
    {
      /* a split of a graph without call nodes has no submodules; any
       * other needs one */
      g_set_error (error, FXS_ERROR, FXS_ERROR_VERIFY,
                   "it has no submodules, but the original graph has %u call nodes", calls);
      return FALSE;
    }
  Table t = {
    parts, submodules,
    g_hash_table_new (g_str_hash, g_str_equal),
    g_hash_table_new (g_str_hash, g_str_equal),
    { .texts = g_ptr_array_new_with_free_func (g_free) },
  };
  FxsIdSet deps, dependents;
  fxs_id_set_init (&deps);
  fxs_id_set_init (&dependents);
  gboolean ok = check_entries (&t);
  for (guint i = 0; i < n_entries (&t) && ok; i++)
    ok = check_names (&t, i, entry (&t, i)->dependencies, "dependencies", &deps)
         && check_names (&t, i, entry (&t, i)->dependents, "dependents", &dependents);
  if (ok)
    ok = check_acyclic (&t) && check_dependents (&t, &deps, &dependents);
  if (ok)
    ok = check_data_flow (&t, &deps);
  fxs_id_set_clear (&deps);
  fxs_id_set_clear (&dependents);
  g_hash_table_unref (t.by_name);
  g_hash_table_unref (t.by_submodule);
  if (!ok)
    g_propagate_error (error, t.msg.error);
  g_ptr_array_unref (t.msg.texts);
  return ok;
}
