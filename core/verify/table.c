/* A split result file's partitions table checked against its graphs
 * (docs/split-semantics.md, section 10).  Readers of a split trust the
 * table for the stages' order and the data flow between them, so it must
 * say what the graphs do: every entry names a submodule of the file and
 * each submodule has exactly one entry, in the same (call) order; every
 * dependency is a partition of the table, listed once; the dependencies
 * are exactly the partitions whose values the top-level graph passes to
 * the entry's call (so they form no cycle once verify has seen each
 * submodule called once, reading earlier nodes only); the dependents are
 * the dependencies the other way round.  Linear in the size of the table
 * and of the top-level graph. */
#include "verify-private.h"
#include "model/loaded-split.h"

#include <string.h>

typedef struct {
  const FxsLoadSplit *parts;
  FxsLoadPartition **entries;  /* the table: parts->partitions */
  guint n_entries;
  GHashTable *submodules;    /* the file's: name -> graph */
  GHashTable *by_name;       /* partition name -> index + 1 */
  GHashTable *by_submodule;  /* submodule name -> index + 1 */
  FxsIdSet deps;             /* (entry, dependency) as the table lists them */
  FxsIdSet flow;             /* (user, producer) as the calls pass values */
  Verifier msg;              /* only its texts (the message's quoted names) and error */
} Table;

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
  for (guint i = 0; i < t->n_entries; i++)
    {
      const FxsLoadPartition *e = t->entries[i];
      if (index_of (t, e->name) >= 0)
        return fail (t, "two partitions are named %s", q (t, e->name));
      g_hash_table_insert (t->by_name, e->name, GUINT_TO_POINTER (i + 1));
      if (!g_hash_table_contains (t->submodules, e->submodule))
        return fail (t, "partition %s names submodule %s, which the file does not have",
                     q (t, e->name), q (t, e->submodule));
      guint other = GPOINTER_TO_UINT (g_hash_table_lookup (t->by_submodule, e->submodule));
      if (other)
        return fail (t, "partitions %s and %s both name submodule %s",
                     q (t, t->entries[other - 1]->name), q (t, e->name), q (t, e->submodule));
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
                     "both are listed in the order of the calls", q (t, t->entries[at - 1]->name),
                     at, q (t, names->pdata[i]), i + 1);
    }
  return TRUE;
}

/* The names in the entries' dependencies, then in their dependents, are
 * partitions, each listed once; then each dependent lists the entry among
 * its dependencies, and back.  t->deps gets (entry, dependency) for each.
 * Membership is tested by adding: a miss fails the check, so a set that
 * grew is not looked at again. */
static gboolean
check_lists (Table *t)
{
  FxsIdSet dependents;   /* (dependent, entry) */
  fxs_id_set_init (&dependents);
  gboolean ok = TRUE;
  for (int pass = 0; pass < 3 && ok; pass++)
    for (guint i = 0; i < t->n_entries && ok; i++)
      {
        const FxsLoadPartition *e = t->entries[i];
        GPtrArray *list = pass == 1 ? e->dependents : e->dependencies;
        const char *what = pass == 1 ? "dependents" : "dependencies";
        const char *other = pass == 1 ? "dependencies" : "dependents";
        for (guint k = 0; k < list->len && ok; k++)
          {
            gint64 at = index_of (t, list->pdata[k]);
            guint64 edge = pass == 1 ? fxs_id_pair ((guint32) at, i) : fxs_id_pair (i, (guint32) at);
            if (at < 0)
              ok = fail (t, "partition %s lists %s among its %s, but no partition has that name",
                         q (t, e->name), q (t, list->pdata[k]), what);
            else if (pass < 2 && !fxs_id_set_add (pass ? &dependents : &t->deps, edge))
              ok = fail (t, "partition %s lists %s twice among its %s", q (t, e->name),
                         q (t, list->pdata[k]), what);
            else if (pass > 0 && fxs_id_set_add (pass == 1 ? &t->deps : &dependents, edge))
              ok = fail (t, "partition %s lists %s among its %s, but %s does not list it "
                         "among its %s", q (t, e->name), q (t, list->pdata[k]), what,
                         q (t, list->pdata[k]), other);
          }
      }
  fxs_id_set_clear (&dependents);
  return ok;
}

/* The partition whose call, or an item of what the call returns, @ref
 * stands for, or -1. */
static gint64
partition_of (const Table *t, const FxsNode *ref)
{
  while (ref->op == FXS_OP_CALL_FUNCTION && strcmp (ref->target, "_operator.getitem") == 0
         && ref->args.n >= 1 && ref->args.u.items[0].kind == FXS_VALUE_NODE)
    ref = ref->args.u.items[0].u.node;
  if (ref->op != FXS_OP_CALL_MODULE)
    return -1;
  return (gint64) GPOINTER_TO_UINT (g_hash_table_lookup (t->by_submodule, ref->target)) - 1;
}

typedef struct {
  Table *t;
  guint user;
  gint64 unlisted;       /* a producer the table does not list, or -1 */
} Flow;

static void
add_flow (const FxsNode *ref, gpointer data)
{
  Flow *f = data;
  gint64 p = partition_of (f->t, ref);
  if (p < 0 || p == f->user)
    return;
  guint64 edge = fxs_id_pair (f->user, (guint32) p);
  /* listed?  Adding tells; a miss ends the check, so the set that grew
   * is not looked at again */
  if (fxs_id_set_add (&f->t->flow, edge) && f->unlisted < 0 && fxs_id_set_add (&f->t->deps, edge))
    f->unlisted = p;
}

/* The dependencies are the partitions whose values reach each call. */
static gboolean
check_data_flow (Table *t)
{
  const FxsGraph *top = t->parts->top;
  gboolean ok = TRUE;
  for (guint i = 0; i < fxs_graph_n_nodes (top) && ok; i++)
    {
      const FxsNode *node = fxs_graph_node (top, i);
      gint64 user = node->op == FXS_OP_CALL_MODULE ? partition_of (t, node) : -1;
      if (user < 0)
        continue;  /* not a call of an entry's submodule: verify reports other calls */
      Flow f = { t, (guint) user, -1 };
      fxs_value_foreach_node (&node->args, add_flow, &f);
      fxs_value_foreach_node (&node->kwargs, add_flow, &f);
      if (f.unlisted >= 0)
        ok = fail (t, "partition %s takes values of partition %s (its call reads submodule %s's), "
                   "but does not list it among its dependencies", q (t, t->entries[user]->name),
                   q (t, t->entries[f.unlisted]->name), q (t, t->entries[f.unlisted]->submodule));
    }
  /* every flow is listed; a listed dependency without a flow is left */
  for (guint i = 0; i < t->n_entries && ok && t->deps.table.used > t->flow.table.used; i++)
    {
      GPtrArray *deps = t->entries[i]->dependencies;
      for (guint k = 0; k < deps->len && ok; k++)
        {
          guint d = (guint) index_of (t, deps->pdata[k]);
          if (fxs_id_set_add (&t->flow, fxs_id_pair (i, d)))
            ok = fail (t, "partition %s lists partition %s among its dependencies, but its call "
                       "takes no value of submodule %s", q (t, t->entries[i]->name),
                       q (t, t->entries[d]->name), q (t, t->entries[d]->submodule));
        }
    }
  return ok;
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
    parts, (FxsLoadPartition **) parts->partitions->pdata, parts->partitions->len, submodules,
    g_hash_table_new (g_str_hash, g_str_equal),
    g_hash_table_new (g_str_hash, g_str_equal),
    .msg = { .texts = g_ptr_array_new_with_free_func (g_free) },
  };
  fxs_id_set_init (&t.deps);
  fxs_id_set_init (&t.flow);
  gboolean ok = check_entries (&t) && check_lists (&t) && check_data_flow (&t);
  fxs_id_set_clear (&t.deps);
  fxs_id_set_clear (&t.flow);
  g_hash_table_unref (t.by_name);
  g_hash_table_unref (t.by_submodule);
  if (!ok)
    g_propagate_error (error, t.msg.error);
  g_ptr_array_unref (t.msg.texts);
  return ok;
}
