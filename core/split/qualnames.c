/* The qualname map of a split result: "submod_1.layer_0_linear" ->
 * "layer.0.linear" for every call_module, in graph order (split_module
 * fills it while copying nodes).  The keys are indexed here in a table of
 * their own: (hash, pair index + 1). */
#include "split-private.h"
#include "names.h"

#include <string.h>

typedef struct {
  guint32 hash;
  guint32 pair;
} QualnameSlot;

void
fxs_split_make_qualname_map (FxsSplitResult *r, const FxsSplitPlan *plan)
{
  /* room for every call_module up front: no growing; the keys go to one
   * block */
  gsize n_calls = plan->n_call_modules, text_size = 1;
  for (gsize k = 0; k < n_calls; k++)
    {
      guint32 i = plan->call_modules[k];
      const FxsNode *node = r->original->nodes->pdata[i];
      text_size += strlen (r->by_dense[r->part_of[i]]->submod_name) + strlen (node->target) + 2;
    }
  gsize mask = 63, used = 0;
  while (mask + 1 < 2 * n_calls)
    mask = 2 * mask + 1;
  QualnameSlot *slots = g_malloc0 ((mask + 1) * sizeof (QualnameSlot));
  gsize array_size = 2 * n_calls * sizeof (gpointer);
  r->qualname_block = g_malloc (array_size + text_size);
  fxs_items_use_storage (r->qualnames, r->qualname_block, (guint) (2 * n_calls));
  char *text = (char *) r->qualname_block + array_size;
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
      gsize s = hash & mask;
      for (; slots[s].pair; s = (s + 1) & mask)
        if (slots[s].hash == hash && strcmp (r->qualnames->pdata[2 * (slots[s].pair - 1)],
                                             key) == 0)
          break;
      if (slots[s].pair)
        {
          r->qualnames->pdata[2 * (slots[s].pair - 1) + 1] = (gpointer) node->target;
          continue;
        }
      text += key_len + 1;
      fxs_items_add (r->qualnames, key);
      fxs_items_add (r->qualnames, (gpointer) node->target);
      slots[s] = (QualnameSlot) { hash, r->qualnames->len / 2 };
      used++;
    }
  g_assert (2 * used <= mask + 1);
  g_free (slots);
}
