/* Partitioning a pipeline's graph with its chain of partitioners: the
 * first splits the graph; each later one refines every partition of the
 * split before it, seeing that partition's submodule graph as a graph of
 * its own, so that a plugin written for one level works at any level.
 * Final ids and labels: docs/cli.md, "Partitioner chains". */
#include "pipeline-private.h"
#include "split/split-private.h"

#include <stdlib.h>
#include <string.h>

/* Progress is reported every this many nodes (a power of two). */
#define PROGRESS_EVERY 65536

typedef struct {
  FxsPipeline *pipeline;
  FxsPluginContext *ctx;
  guint64 done;
  guint64 total;
} CallbackRun;

/* Calls the plugin's split_callback with its state, naming the plugin (and
 * a later group of a chain) in its errors; the caller adds the node. */
static gboolean
call_partitioner (const FxsNode *node, gpointer data, gint64 *partition, GError **error)
{
  CallbackRun *run = data;
  GError *local = NULL;
  fxs_plugin_context_enter (run->ctx, "split_callback", node);
  gboolean ok = run->ctx->plugin->callback (node, run->ctx->state, partition, &local);
  fxs_plugin_context_leave ();
  if (!ok || *partition == FXS_PARTITION_ID_UNSET)
    {
      const char *group = run->ctx->label;
      char *why = !ok && local ? fxs_plugin_error_text (local)
                  : !ok ? g_strdup ("failed without saying why")
                        : g_strdup_printf ("split_callback returned TRUE without storing a "
                                           "partition id (or stored %" G_GINT64_FORMAT
                                           ", the value reserved to tell)",
                                           (gint64) FXS_PARTITION_ID_UNSET);
      ok = fxs_pipeline_fail (error, FXS_ERROR_CALLBACK, NULL,
                              strcmp (group, "partitioner") == 0 ? NULL : group,
                              "partitioner '%s': %s", fxs_plugin_name (run->ctx->plugin), why);
      g_free (why);
    }
  g_clear_error (&local);
  if ((++run->done & (PROGRESS_EVERY - 1)) == 0)
    fxs_pipeline_progress (run->pipeline, "splitting", run->done, run->total);
  return ok;
}

static gboolean
prepare (FxsPluginContext *ctx, const FxsGraph *graph, GError **error)
{
  if (!ctx->plugin->prepare)
    return TRUE;
  GError *local = NULL;
  fxs_plugin_context_enter (ctx, "prepare", NULL);
  gboolean ok = ctx->plugin->prepare (ctx, ctx->state, graph, &local);
  return fxs_plugin_context_done (ctx, ok, local, "prepare", error);
}

static gboolean
label_partitions (const FxsPluginContext *ctx, FxsSplitResult *r, GError **error)
{
  for (guint i = 0; ctx->plugin->label && i < r->n_partitions; i++)
    {
      const char *label;
      if (!fxs_plugin_context_partition_label (ctx, r->partitions[i].id, &label, error))
        return FALSE;
      fxs_split_result_set_label (r, i, label);
    }
  return TRUE;
}

static int
compare_ids (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

static int
compare_partition_ids (const void *a, const void *b)
{
  return compare_ids (&(*(FxsPartition *const *) a)->id, &(*(FxsPartition *const *) b)->id);
}

/* Runs the instance of @run on partition @part's own graph: stores the
 * final id of each of its nodes in @ids (by original index), numbering its
 * pieces from *@next in ascending order of the ids the plugin gave, and
 * appends their labels ("PARENT/PIECE", each a label or else an id) to
 * @labels, one per final id. */
static gboolean
refine_partition (CallbackRun *run, const FxsPartition *part, gint64 *ids, gint64 *next,
                  GPtrArray *labels, GError **error)
{
  FxsPluginContext *ctx = run->ctx;
  const FxsGraph *sub = fxs_partition_graph (part);
  guint n = fxs_partition_n_nodes (part);
  if (!prepare (ctx, sub, error))
    return FALSE;
  gint64 *piece = g_new (gint64, n);
  /* the submodule holds copies of the partition's nodes in a row, in their
   * order, besides copies of global-state nodes of other partitions, which
   * the plugin is not asked about */
  for (guint i = 0; i < n; i++)
    {
      const FxsNode *node = fxs_graph_node (sub, part->first_node + i);
      piece[i] = FXS_PARTITION_ID_UNSET;  /* as the engine does: tells a missing id */
      if (!call_partitioner (node, run, &piece[i], error))
        {
          g_prefix_error (error, "node '%s': ", fxs_node_name (fxs_partition_node (part, i)));
          g_free (piece);
          return FALSE;
        }
    }
  /* the distinct ids it gave, ascending */
  gint64 *sorted = g_memdup2 (piece, n * sizeof *piece);
  qsort (sorted, n, sizeof *sorted, compare_ids);
  guint k = 0;
  for (guint i = 0; i < n; i++)
    if (i == 0 || sorted[i] != sorted[k - 1])
      sorted[k++] = sorted[i];
  gboolean ok = TRUE;
  char *parent = fxs_partition_label (part)
                   ? g_strdup (fxs_partition_label (part))
                   : g_strdup_printf ("%" G_GINT64_FORMAT, fxs_partition_id (part));
  for (guint j = 0; ok && j < k; j++)
    {
      const char *label;
      ok = fxs_plugin_context_partition_label (ctx, sorted[j], &label, error);
      if (ok)
        g_ptr_array_add (labels, label ? g_strconcat (parent, "/", label, NULL)
                                       : g_strdup_printf ("%s/%" G_GINT64_FORMAT, parent,
                                                          sorted[j]));
    }
  for (guint i = 0; ok && i < n; i++)
    {
      const gint64 *at = bsearch (&piece[i], sorted, k, sizeof *sorted, compare_ids);
      ids[fxs_node_index (fxs_partition_node (part, i))] = *next + (at - sorted);
    }
  *next += k;
  g_free (parent);
  g_free (sorted);
  g_free (piece);
  return ok;
}

/* The split of @parent's graph whose partitions are @ctx's pieces of each
 * partition of @parent, taken in ascending order of their ids. */
static FxsSplitResult *
refine (FxsPipeline *p, FxsSplitResult *parent, FxsPluginContext *ctx, GError **error)
{
  gint64 *ids = g_new0 (gint64, fxs_graph_n_nodes (parent->original));
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  CallbackRun run = { p, ctx, 0, 0 };
  gint64 next = 0;
  gboolean ok = TRUE;
  FxsPartition **by_id = g_memdup2 (parent->by_dense, parent->n_partitions * sizeof *by_id);
  qsort (by_id, parent->n_partitions, sizeof *by_id, compare_partition_ids);
  for (guint i = 0; i < parent->n_partitions && ok; i++)
    ok = refine_partition (&run, by_id[i], ids, &next, labels, error);
  g_free (by_id);
  FxsSplitResult *r = ok ? fxs_split_with_ids (parent->original, ids, p->split_options, error)
                         : NULL;
  if (ok && !r)
    g_prefix_error (error, "after [%s] %s: ", ctx->label, fxs_plugin_name (ctx->plugin));
  for (guint i = 0; r && i < r->n_partitions; i++)
    fxs_split_result_set_label (r, i, labels->pdata[r->partitions[i].id]);
  g_ptr_array_unref (labels);
  g_free (ids);
  return r;
}

gboolean
fxs_pipeline_split (FxsPipeline *p, GError **error)
{
  g_return_val_if_fail (p != NULL && p->prepared && p->graph, FALSE);
  g_clear_pointer (&p->result, fxs_split_result_free);
  p->written = FALSE;
  FxsPluginContext *first = p->partitioners->pdata[0];
  fxs_pipeline_progress (p, "splitting", 0, 0);
  if (!prepare (first, p->graph, error))
    return FALSE;
  CallbackRun run = { p, first, 0, 0 };
  if (p->progress) /* the total is only for a progress display */
    run.total = fxs_graph_count_op (p->graph, FXS_OP_CALL_FUNCTION)
                + fxs_graph_count_op (p->graph, FXS_OP_CALL_METHOD)
                + fxs_graph_count_op (p->graph, FXS_OP_CALL_MODULE);
  FxsSplitResult *r = fxs_split (p->graph, call_partitioner, &run, p->split_options, error);
  if (r && !label_partitions (first, r, error))
    g_clear_pointer (&r, fxs_split_result_free);
  for (guint k = 1; r && k < p->partitioners->len; k++)
    {
      FxsSplitResult *next = refine (p, r, p->partitioners->pdata[k], error);
      fxs_split_result_free (r);
      r = next;
    }
  p->result = r;
  return r != NULL;
}
