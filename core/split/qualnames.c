/* The qualname map of a split result: "submod_1.layer_0_linear" ->
 * "layer.0.linear" for every call_module, in graph order (split_module
 * fills it while copying nodes).  The keys are indexed here in a
 * GHashTable of their own: key -> pair index + 1. */
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
  GHashTable *keys = g_hash_table_new (g_str_hash, g_str_equal);
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
      guint pair = GPOINTER_TO_UINT (g_hash_table_lookup (keys, key));
      if (pair)
        {
          r->qualnames->pdata[2 * (pair - 1) + 1] = (gpointer) node->target;
          continue;
        }
      text += key_len + 1;
      fxs_items_add (r->qualnames, key);
      fxs_items_add (r->qualnames, (gpointer) node->target);
      g_hash_table_insert (keys, key, GUINT_TO_POINTER (r->qualnames->len / 2));
    }
  g_hash_table_unref (keys);
}
