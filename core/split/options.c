/* Options of fxs_split(), with split_module()'s defaults. */
#include <fxsplit/split.h>

struct FxsSplitOptions {
  gboolean keep_original_order;
  gboolean keep_original_node_name;
  gboolean keep_original_input_name;
  gboolean tuple_return;
  char *partition_affix;
  guint threads;
};

FxsSplitOptions *
fxs_split_options_new (void)
{
  FxsSplitOptions *o = g_new0 (FxsSplitOptions, 1);
  o->keep_original_input_name = TRUE;
  return o;
}

FxsSplitOptions *
fxs_split_options_copy (const FxsSplitOptions *options)
{
  g_return_val_if_fail (options != NULL, NULL);
  FxsSplitOptions *o = g_memdup2 (options, sizeof *options);
  o->partition_affix = g_strdup (options->partition_affix);
  return o;
}

void
fxs_split_options_free (FxsSplitOptions *options)
{
  if (!options)
    return;
  g_free (options->partition_affix);
  g_free (options);
}

/* The setter and getter of boolean option @name (@fallback for NULL). */
#define BOOLEAN_OPTION(name, fallback)                                  \
  void                                                                  \
  fxs_split_options_set_##name (FxsSplitOptions *o, gboolean v)         \
  {                                                                     \
    g_return_if_fail (o != NULL);                                       \
    o->name = !!v;                                                      \
  }                                                                     \
  gboolean                                                              \
  fxs_split_options_get_##name (const FxsSplitOptions *o)               \
  {                                                                     \
    g_return_val_if_fail (o != NULL, fallback);                         \
    return o->name;                                                     \
  }

BOOLEAN_OPTION (keep_original_order, FALSE)
BOOLEAN_OPTION (keep_original_node_name, FALSE)
BOOLEAN_OPTION (keep_original_input_name, TRUE)
BOOLEAN_OPTION (tuple_return, FALSE)

void
fxs_split_options_set_partition_affix (FxsSplitOptions *o, const char *affix)
{
  g_return_if_fail (o != NULL);
  char *copy = g_strdup (affix);
  g_free (o->partition_affix);
  o->partition_affix = copy;
}

const char *
fxs_split_options_get_partition_affix (const FxsSplitOptions *o)
{
  g_return_val_if_fail (o != NULL, NULL);
  return o->partition_affix;
}

void
fxs_split_options_set_threads (FxsSplitOptions *o, guint threads)
{
  g_return_if_fail (o != NULL);
  o->threads = threads;
}

guint
fxs_split_options_get_threads (const FxsSplitOptions *o)
{
  g_return_val_if_fail (o != NULL, 0);
  return o->threads;
}
