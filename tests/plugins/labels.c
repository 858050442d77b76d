/* Test plugin: the k-th call node of each graph it is prepared for goes to
 * partition k % partitions, labelled as option `label` says: "part N", or
 * one bad label (too long, not UTF-8, a control character, empty). */
#include <fxsplit/partitioner.h>

#include <string.h>

static const FxsOptionSpec options[] = {
  { .key = "partitions", .type = FXS_OPTION_INT, .default_value = "2", .help = "how many" },
  { .key = "label", .type = FXS_OPTION_STRING, .default_value = "part",
    .help = "part, none, long, not-utf8, control or empty" },
  { NULL },
};

typedef struct {
  gint64 partitions, next;
  const char *mode;
  char text[300];
} Labels;

static gboolean
labels_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  (void) error;
  Labels *l = g_new0 (Labels, 1);
  l->partitions = MAX (1, fxs_plugin_option_int (ctx, "partitions"));
  l->mode = fxs_plugin_option_string (ctx, "label");
  *state = l;
  return TRUE;
}

static gboolean
labels_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) ctx;
  (void) graph;
  (void) error;
  ((Labels *) state)->next = 0;
  return TRUE;
}

static const char *
labels_label (gpointer state, gint64 partition)
{
  Labels *l = state;
  if (strcmp (l->mode, "none") == 0)
    return NULL;
  if (strcmp (l->mode, "long") == 0)
    memset (l->text, 'x', FXS_PARTITION_LABEL_MAX + 1), l->text[FXS_PARTITION_LABEL_MAX + 1] = 0;
  else if (strcmp (l->mode, "not-utf8") == 0)
    strcpy (l->text, "caf\xe9");
  else if (strcmp (l->mode, "control") == 0)
    strcpy (l->text, "two\nlines");
  else if (strcmp (l->mode, "empty") == 0)
    l->text[0] = 0;
  else
    g_snprintf (l->text, sizeof l->text, "part %" G_GINT64_FORMAT, partition);
  return l->text;
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = { FXS_PARTITIONER_ABI, .name = "labels", .version = "1.0",
              .description = "test: round-robin partitions with labels", .options = options,
              .init = labels_init, .fini = g_free },
  .prepare = labels_prepare,
  .label = labels_label,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  (void) node;
  (void) error;
  Labels *l = state;
  *partition = l->next++ % l->partitions;
  return TRUE;
}
