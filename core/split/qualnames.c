/* The qualname map of a split result: "submod_1.layer_0_linear" ->
 * "layer.0.linear" for every call_module, in graph order (split_module
 * fills it while copying nodes); a key met again takes the later value. */
#include "split-private.h"
#include "names.h"

#include <string.h>

/* The slot of @key (hashing to @hash) in r->qualname_keys: its entry, or
 * the empty slot where it would go. */
static FxsTableHead *
key_slot (const FxsSplitResult *r, const char *key, guint32 hash)
{
  for (gsize at = fxs_table_start (&r->qualname_keys, hash);;
       at = fxs_table_step (&r->qualname_keys, at))
    {
      FxsTableHead *e = fxs_table_at (&r->qualname_keys, at);
      if (!e->tag || (e->hash == hash && strcmp (r->qualnames->pdata[2 * (e->tag - 1)], key) == 0))
        return e;
    }
}

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
  /* FxsTableHead: pair index + 1; kept for fxs_split_result_lookup_qualname() */
  fxs_table_reserve (&r->qualname_keys, n_calls);
  fxs_items_reserve (r->qualnames, (guint) (2 * n_calls));
  char *text = r->qualname_block = g_malloc (text_size);
  for (gsize k = 0; k < n_calls; k++)
    {
      guint32 i = plan->call_modules[k];
      const FxsNode *node = r->original->nodes->pdata[i];
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
      FxsTableHead *e = key_slot (r, key, hash);
      if (e->tag)
        {
          r->qualnames->pdata[2 * (e->tag - 1) + 1] = (gpointer) node->target;
          continue;
        }
      text += key_len + 1;
      fxs_items_add (r->qualnames, key);
      fxs_items_add (r->qualnames, (gpointer) node->target);
      *e = (FxsTableHead) { hash, r->qualnames->len / 2 };
      fxs_table_added (&r->qualname_keys);
    }
}

const char *
fxs_split_result_lookup_qualname (const FxsSplitResult *result, const char *new_name)
{
  g_return_val_if_fail (result != NULL && new_name != NULL, NULL);
  const FxsTableHead *e = key_slot (result, new_name, fxs_name_hash (new_name, strlen (new_name)));
  return e->tag ? result->qualnames->pdata[2 * (e->tag - 1) + 1] : NULL;
}
