/* Test plugin: a shared object with a split_callback but no descriptor. */
#include <fxsplit/partitioner.h>

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) state;
  (void) error;
  *partition = 0;
  return TRUE;
}
