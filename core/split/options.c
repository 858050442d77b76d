/* Options of fxs_split(), with split_module()'s defaults. */
#include "split-private.h"

const FxsSplitOptions fxs_split_options_default = { .keep_original_input_name = TRUE };

FxsSplitOptions *
fxs_split_options_new (void)
{
  return g_memdup2 (&fxs_split_options_default, sizeof fxs_split_options_default);
}

void
fxs_split_options_free (FxsSplitOptions *options)
{
  if (!options)
    return;
  g_free (options->partition_affix);
  g_free (options);
}

/* The setter and getter of option @name (@fallback for NULL); the setter
 * stores @stored, an expression of its argument v. */
#define OPTION(type, name, stored, fallback)                            \
  void                                                                  \
  fxs_split_options_set_##name (FxsSplitOptions *o, type v)             \
  {                                                                     \
    g_return_if_fail (o != NULL);                                       \
    o->name = stored;                                                   \
  }                                                                     \
  FXS_GETTER (type, fxs_split_options_get_##name, FxsSplitOptions, o, o->name, fallback)

OPTION (gboolean, keep_original_order, !!v, FALSE)
OPTION (gboolean, keep_original_node_name, !!v, FALSE)
OPTION (gboolean, keep_original_input_name, !!v, TRUE)
OPTION (gboolean, tuple_return, !!v, FALSE)
OPTION (guint, threads, v, 0)

void
fxs_split_options_set_partition_affix (FxsSplitOptions *o, const char *affix)
{
  g_return_if_fail (o != NULL);
  char *copy = g_strdup (affix);
  g_free (o->partition_affix);
  o->partition_affix = copy;
}

FXS_GETTER (const char *, fxs_split_options_get_partition_affix, FxsSplitOptions, o,
            o->partition_affix, NULL)
