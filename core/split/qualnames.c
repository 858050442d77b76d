/* The qualname map of a split result: "submod_1.layer_0_linear" ->
 * "layer.0.linear" for every call_module, in graph order (split_module
 * fills it while copying nodes); a key met again takes the later value. */
#include "split-private.h"
#include "names.h"

#include <string.h>

void
fxs_split_make_qualname_map (FxsSplitResult *r, const FxsSplitPlan *plan)
{
  /* room for every call_module up front; the keys go to one block */
  gsize n_calls = plan->n_call_modules, text_size = 1;
  for (gsize k = 0; k < n_calls; k++)
    {
      guint32 i = plan->call_modules[k];
      const FxsNode *node = r->original->nodes->pdata[i];
      text_size += strlen (r->by_dense[r->part_of[i]]->submod_name) + strlen (node->target) + 2;
    }
  FxsTable keys;   /* FxsTableHead: pair index + 1 */
  fxs_table_init (&keys, sizeof (FxsTableHead));
  fxs_table_reserve (&keys, n_calls);
  fxs_items_reserve (r->qualnames, (guint) (2 * n_calls));
  char *text = r->qualname_block = g_malloc (text_size);
  const FxsNode *last = NULL;   /* consecutive calls of one module add nothing new */
  for (gsize k = 0; k < n_calls; k++)
    {
      guint32 i = plan->call_modules[k];
      const FxsNode *node = r->original->nodes->pdata[i];
      if (last && last->target == node->target && r->part_of[last->index] == r->part_of[i])
        continue;
      last = node;
      const char *submod = r->by_dense[r->part_of[i]]->submod_name;
      gsize submod_len = strlen (submod), target_len = strlen (node->target);
      char *key = text;
      gsize key_len = submod_len + 1 + target_len;
      memcpy (key, submod, submod_len);
      key[submod_len] = '.';
      char *flat = key + submod_len + 1;
      for (gsize c = 0; c < target_len; c++)
        flat[c] = node->target[c] == '.' ? '_' : node->target[c];
      key[key_len] = '\0';
      guint32 hash = fxs_name_hash (key, key_len);
      FxsTableHead *e;
      for (gsize at = fxs_table_start (&keys, hash);; at = fxs_table_step (&keys, at))
        {
          e = fxs_table_at (&keys, at);
          if (!e->tag
              || (e->hash == hash && strcmp (r->qualnames->pdata[2 * (e->tag - 1)], key) == 0))
            break;
        }
      if (e->tag)
        {
          r->qualnames->pdata[2 * (e->tag - 1) + 1] = (gpointer) node->target;
          continue;
        }
      text += key_len + 1;
      fxs_items_add (r->qualnames, key);
      fxs_items_add (r->qualnames, (gpointer) node->target);
      *e = (FxsTableHead) { hash, r->qualnames->len / 2 };
      fxs_table_added (&keys);
    }
  fxs_table_clear (&keys);
}
