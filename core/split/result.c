/* The split result and its partitions: lifetime, accessors and the
 * qualname map. */
#include "split-private.h"

#include <string.h>

/* A counting sort: stable, so each group keeps the items' order. */
void
fxs_csr_init (FxsCsr *csr, guint n_groups, gsize n, const guint32 *group_of,
              const guint32 *item, gsize stride)
{
  csr->offsets = g_malloc0 ((n_groups + 1) * sizeof (guint32));
  for (gsize i = 0; i < n; i++)
    if (group_of[i * stride] != FXS_NO_PARTITION)
      csr->offsets[group_of[i * stride] + 1]++;
  for (guint g = 0; g < n_groups; g++)
    csr->offsets[g + 1] += csr->offsets[g];
  guint32 *fill = g_memdup2 (csr->offsets, (n_groups + 1) * sizeof (guint32));
  csr->items = g_malloc ((csr->offsets[n_groups] ? csr->offsets[n_groups] : 1) * sizeof (guint32));
  for (gsize i = 0; i < n; i++)
    if (group_of[i * stride] != FXS_NO_PARTITION)
      csr->items[fill[group_of[i * stride]]++] = item ? item[i * stride] : (guint32) i;
  g_free (fill);
}

void
fxs_csr_clear (FxsCsr *csr)
{
  g_clear_pointer (&csr->offsets, g_free);
  g_clear_pointer (&csr->items, g_free);
}

FxsSplitResult *
fxs_split_result_new (FxsGraph *graph)
{
  FxsSplitResult *r = g_new0 (FxsSplitResult, 1);
  r->original = fxs_graph_ref (graph);
  r->strings = g_string_chunk_new (4096);
  return r;
}

void
fxs_split_result_add_partitions (FxsSplitResult *r, const GArray *ids, const char *affix)
{
  guint P = ids->len;
  r->n_partitions = P;
  r->partitions = g_new0 (FxsPartition, P ? P : 1);
  r->by_dense = g_new (FxsPartition *, P ? P : 1);
  for (guint p = 0; p < P; p++)
    {
      /* the call position is set once the order is known */
      FxsPartition *part = &r->partitions[p];
      part->result = r;
      part->dense = p;
      part->id = g_array_index (ids, gint64, p);
      char *submod = affix ? g_strdup_printf ("submod_%s_%" G_GINT64_FORMAT, affix, part->id)
                           : g_strdup_printf ("submod_%" G_GINT64_FORMAT, part->id);
      part->submod_name = g_string_chunk_insert (r->strings, submod);
      part->name = part->submod_name + strlen ("submod_");
      g_free (submod);
      r->by_dense[p] = part;
    }
}

void
fxs_split_result_free (FxsSplitResult *result)
{
  if (!result)
    return;
  for (guint i = 0; i < result->n_partitions; i++)
    fxs_graph_unref (result->partitions[i].graph);
  g_free (result->partitions);
  g_free (result->by_dense);
  g_free (result->part_of);
  fxs_csr_clear (&result->nodes);
  fxs_csr_clear (&result->inputs);
  fxs_csr_clear (&result->outputs);
  fxs_csr_clear (&result->dependencies);
  fxs_csr_clear (&result->dependents);
  fxs_items_clear (result->qualnames);
  g_string_chunk_free (result->strings);
  fxs_graph_unref (result->top);
  fxs_graph_unref (result->original);
  g_free (result);
}

FXS_GETTER (const FxsGraph *, fxs_split_result_original, FxsSplitResult, result,
            result->original, NULL)
FXS_GETTER (const FxsGraph *, fxs_split_result_top, FxsSplitResult, result, result->top, NULL)
FXS_GETTER (guint, fxs_split_result_n_partitions, FxsSplitResult, result, result->n_partitions, 0)

const FxsPartition *
fxs_split_result_partition (const FxsSplitResult *result, guint i)
{
  g_return_val_if_fail (result != NULL && i < result->n_partitions, NULL);
  return &result->partitions[i];
}

const FxsPartition *
fxs_split_result_partition_of (const FxsSplitResult *result, const FxsNode *original_node)
{
  g_return_val_if_fail (result != NULL && original_node != NULL, NULL);
  g_return_val_if_fail (fxs_node_graph (original_node) == result->original, NULL);
  guint32 dense = result->part_of[fxs_node_index (original_node)];
  return dense == FXS_NO_PARTITION ? NULL : result->by_dense[dense];
}

FXS_GETTER (guint, fxs_split_result_n_qualnames, FxsSplitResult, result,
            result->qualnames->len / 2, 0)

void
fxs_split_result_qualname (const FxsSplitResult *result, guint i, const char **new_name,
                           const char **old_name)
{
  g_return_if_fail (result != NULL && i < result->qualnames->len / 2);
  if (new_name)
    *new_name = result->qualnames->pdata[2 * i];
  if (old_name)
    *old_name = result->qualnames->pdata[2 * i + 1];
}

/* ---- partitions ------------------------------------------------------------ */

#define PARTITION_GETTER(Ret, fn, expr, fallback)                           \
  FXS_GETTER (Ret, fn, FxsPartition, p, expr, fallback)

/* Item @i of the partition's list @csr, of @n_fn (p) items, as @lookup
 * (r, index in @csr) finds it. */
#define PARTITION_ITEM(Ret, fn, n_fn, csr, lookup)                          \
  Ret                                                                       \
  fn (const FxsPartition *p, guint i)                                       \
  {                                                                         \
    g_return_val_if_fail (p != NULL && i < n_fn (p), NULL);                 \
    return lookup (p->result, fxs_csr_items (&p->result->csr, p->dense)[i]); \
  }
#define ORIGINAL_NODE(r, i) fxs_graph_node ((r)->original, i)
#define BY_DENSE(r, i) (r)->by_dense[i]

PARTITION_GETTER (guint, fxs_partition_index, p->index, 0)
PARTITION_GETTER (gint64, fxs_partition_id, p->id, 0)
PARTITION_GETTER (const char *, fxs_partition_name, p->name, NULL)
PARTITION_GETTER (const char *, fxs_partition_submod_name, p->submod_name, NULL)
PARTITION_GETTER (const char *, fxs_partition_label, p->label, NULL)
PARTITION_GETTER (const FxsGraph *, fxs_partition_graph, p->graph, NULL)

PARTITION_GETTER (guint, fxs_partition_n_nodes, fxs_csr_count (&p->result->nodes, p->dense), 0)
PARTITION_ITEM (const FxsNode *, fxs_partition_node, fxs_partition_n_nodes, nodes, ORIGINAL_NODE)
/* the inputs passed, at the start of the partition's list */
PARTITION_GETTER (guint, fxs_partition_n_inputs, p->n_inputs, 0)
PARTITION_ITEM (const FxsNode *, fxs_partition_input, fxs_partition_n_inputs, inputs,
                ORIGINAL_NODE)
PARTITION_GETTER (guint, fxs_partition_n_outputs, fxs_csr_count (&p->result->outputs, p->dense), 0)
PARTITION_ITEM (const FxsNode *, fxs_partition_output, fxs_partition_n_outputs, outputs,
                ORIGINAL_NODE)
PARTITION_GETTER (guint, fxs_partition_n_dependencies,
                  fxs_csr_count (&p->result->dependencies, p->dense), 0)
PARTITION_ITEM (const FxsPartition *, fxs_partition_dependency, fxs_partition_n_dependencies,
                dependencies, BY_DENSE)
PARTITION_GETTER (guint, fxs_partition_n_dependents,
                  fxs_csr_count (&p->result->dependents, p->dense), 0)
PARTITION_ITEM (const FxsPartition *, fxs_partition_dependent, fxs_partition_n_dependents,
                dependents, BY_DENSE)

void
fxs_split_result_set_label (FxsSplitResult *r, guint index, const char *label)
{
  g_return_if_fail (index < r->n_partitions);
  r->partitions[index].label = label ? g_string_chunk_insert (r->strings, label) : NULL;
}

/* ---- the qualname map -------------------------------------------------------- *
 *
 * "submod_1.layer_0_linear" -> "layer.0.linear" for every call_module, in
 * graph order (split_module fills it while copying nodes); a key met again
 * takes the later value. */

/* The slot of @key (hashing to @hash) in @keys, a table of pair indices
 * + 1 in r->qualnames: its entry, or the empty slot where it would go. */
static FxsTableHead *
key_slot (const FxsSplitResult *r, const FxsTable *keys, const char *key, guint32 hash)
{
  for (gsize at = fxs_table_start (keys, hash);; at = fxs_table_step (keys, at))
    {
      FxsTableHead *e = fxs_table_at (keys, at);
      if (!e->tag || (e->hash == hash && strcmp (r->qualnames->pdata[2 * (e->tag - 1)], key) == 0))
        return e;
    }
}

void
fxs_split_make_qualname_map (FxsSplitResult *r, const FxsSplitPlan *plan)
{
  gsize n_calls = plan->n_call_modules;
  FxsTable keys;
  fxs_table_init (&keys, sizeof (FxsTableHead));
  fxs_table_reserve (&keys, n_calls);
  fxs_items_reserve (r->qualnames, (guint) (2 * n_calls));
  GString *scratch = g_string_new (NULL);
  for (gsize k = 0; k < n_calls; k++)
    {
      guint32 i = plan->call_modules[k];
      const FxsNode *node = r->original->nodes->pdata[i];
      const char *submod = r->by_dense[r->part_of[i]]->submod_name;
      gsize submod_len = strlen (submod), target_len = strlen (node->target);
      gsize key_len = submod_len + 1 + target_len;
      char *key = g_string_set_size (scratch, key_len)->str;
      memcpy (key, submod, submod_len);
      key[submod_len] = '.';
      char *flat = key + submod_len + 1;
      for (gsize c = 0; c < target_len; c++)
        flat[c] = node->target[c] == '.' ? '_' : node->target[c];
      guint32 hash = fxs_name_hash (key, key_len);
      FxsTableHead *e = key_slot (r, &keys, key, hash);
      if (e->tag)
        {
          r->qualnames->pdata[2 * (e->tag - 1) + 1] = (gpointer) node->target;
          continue;
        }
      /* during the build only this task adds to r->strings */
      fxs_items_add (r->qualnames, g_string_chunk_insert_len (r->strings, key, key_len));
      fxs_items_add (r->qualnames, (gpointer) node->target);
      *e = (FxsTableHead) { hash, r->qualnames->len / 2 };
      fxs_table_added (&keys);
    }
  fxs_table_clear (&keys);
  g_string_free (scratch, TRUE);
}
