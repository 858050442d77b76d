/* The capability partitioner: the nodes a backend supports, grouped into
 * as few acyclic partitions as possible, with the unsupported nodes in
 * partitions of their own between them (what PyTorch's
 * CapabilityBasedPartitioner does, with a provably minimal count); or
 * several backends in priority order, each partition labelled with its
 * backend. */
#include <fxsplit/partitioner.h>

#include <string.h>

#include "capability-assign.h"

typedef struct {
  Capability cap;
  GPtrArray *names;  /* backend names (char*), with cap.backends; NULL with allow */
  gint64 *ids;       /* per node index of the prepared graph */
  guint n_nodes;
  guint8 *part_kind; /* per partition id: 0 unsupported, else 1 + its backend */
  guint n_parts;
} CapabilityPlugin;

static const FxsOptionSpec capability_options[] = {
  { .key = "allow", .type = FXS_OPTION_STRING,
    .help = "what the backend supports: function:GLOB, method:GLOB, class:GLOB, module:GLOB, "
            "name:GLOB, separated by commas or spaces; an item may end in @DTYPE|DTYPE... to "
            "match only nodes whose output tensors have those dtypes (function:relu@float16); "
            "set this or backends" },
  { .key = "backends", .type = FXS_OPTION_STRING,
    .help = "several backends in priority order, 'NAME: SELECTORS NAME: SELECTORS ...' "
            "(gpu: class:Conv2d function:relu, dsp: function:add@int8): a node goes to the "
            "first backend that supports it; each partition is labelled with its backend" },
  { .key = "deny", .type = FXS_OPTION_STRING,
    .help = "exceptions to allow (or to every backend), in the same form" },
  { .key = "non_compute_ops", .type = FXS_OPTION_STRING,
    .help = "nodes that do no work (views, getitem), in the same form: they do not count "
            "towards min_size, and a supported group never starts or ends with them (they go "
            "to unsupported partitions beside it), as PyTorch's non_compute_ops" },
  { .key = "min_size", .type = FXS_OPTION_INT, .default_value = "1",
    .help = "supported groups with fewer compute nodes go back to the unsupported side" },
  { .key = "getitem_with_producer", .type = FXS_OPTION_BOOL, .default_value = "true",
    .help = "a getitem node is supported exactly when the node it takes apart is" },
  { .key = "ids", .type = FXS_OPTION_STRING, .default_value = "order",
    .help = "partition ids: 'order' (all in dependency order) or 'supported_first' "
            "(supported groups 0..m-1 in order, then the unsupported partitions)" },
  { NULL },
};

static void
capability_fini (gpointer state)
{
  CapabilityPlugin *p = state;
  selector_list_free (p->cap.allow);
  selector_list_free (p->cap.deny);
  selector_list_free (p->cap.non_compute);
  if (p->cap.backends)
    g_ptr_array_unref (p->cap.backends);
  if (p->names)
    g_ptr_array_unref (p->names);
  g_free (p->part_kind);
  g_free (p->ids);
  g_free (p);
}

/* A word "NAME:" that starts a backend; NULL for a selector. */
static char *
backend_name (const char *word)
{
  gsize len = strlen (word);
  if (len < 2 || word[len - 1] != ':' || memchr (word, ':', len - 1))
    return NULL;
  return g_strndup (word, len - 1);
}

/* Parses the backends option into @p's names and selector lists. */
static gboolean
parse_backends (CapabilityPlugin *p, const char *text, GError **error)
{
  p->names = g_ptr_array_new_with_free_func (g_free);
  p->cap.backends = g_ptr_array_new_with_free_func ((GDestroyNotify) selector_list_free);
  char **words = g_strsplit_set (text, ", \t\n", -1);
  GString *items = g_string_new (NULL);
  gboolean ok = TRUE;
  for (char **w = words; ok; w++)
    {
      char *name = *w ? backend_name (*w) : NULL;
      if (*w && !name)
        {
          if (**w && p->names->len == 0)
            {
              g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                           "backends: '%s' comes before the first backend name "
                           "(expected NAME: SELECTORS, NAME: SELECTORS ...)", *w);
              ok = FALSE;
            }
          g_string_append_printf (items, " %s", *w);
          continue;
        }
      /* a backend ends: at the next name or at the end */
      if (p->names->len > p->cap.backends->len)
        {
          const char *prev = p->names->pdata[p->names->len - 1];
          char *option = g_strdup_printf ("backends: %s", prev);
          SelectorList *list = selector_list_parse_dtypes (option, items->str, error);
          g_free (option);
          if (list && list->items->len == 0)
            {
              g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                           "backends: backend '%s' lists no selector", prev);
              selector_list_free (list);
              list = NULL;
            }
          if (!list)
            ok = FALSE;
          else
            g_ptr_array_add (p->cap.backends, list);
          g_string_truncate (items, 0);
        }
      if (!name)
        break;
      static const char *const kinds[] = { "name", "function", "method", "class", "module",
                                           NULL };
      if (ok && g_strv_contains (kinds, name))
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                       "backends: '%s:' is a selector kind, not a backend name (write %s:GLOB "
                       "without a blank)", name, name);
          ok = FALSE;
        }
      else if (ok && strlen (name) > FXS_PARTITION_LABEL_MAX)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                       "backends: a backend name is longer than the %d bytes of a label",
                       FXS_PARTITION_LABEL_MAX);
          ok = FALSE;
        }
      else if (ok && strcmp (name, "unsupported") == 0)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                       "backends: 'unsupported' is the label of the other partitions, "
                       "not a backend name");
          ok = FALSE;
        }
      else if (ok && g_ptr_array_find_with_equal_func (p->names, name, g_str_equal, NULL))
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                       "backends: backend '%s' is named twice", name);
          ok = FALSE;
        }
      else if (ok && p->names->len == CAPABILITY_MAX_BACKENDS)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                       "backends: more than %d backends", CAPABILITY_MAX_BACKENDS);
          ok = FALSE;
        }
      g_ptr_array_add (p->names, name);
    }
  if (ok && p->names->len == 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "backends: names no backend "
                   "(expected NAME: SELECTORS, NAME: SELECTORS ...)");
      ok = FALSE;
    }
  g_string_free (items, TRUE);
  g_strfreev (words);
  return ok;
}

static gboolean
capability_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  CapabilityPlugin *p = g_new0 (CapabilityPlugin, 1);
  Capability *cap = &p->cap;
  cap->min_size = fxs_plugin_option_int (ctx, "min_size");
  cap->getitem_with_producer = fxs_plugin_option_bool (ctx, "getitem_with_producer");
  const char *ids = fxs_plugin_option_string (ctx, "ids");
  const char *allow = fxs_plugin_option_string (ctx, "allow");
  const char *backends = fxs_plugin_option_string (ctx, "backends");
  const char *non_compute = fxs_plugin_option_string (ctx, "non_compute_ops");
  if ((allow == NULL) == (backends == NULL))
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "set exactly one of 'allow' (one backend) and 'backends' (several)");
  else if (cap->min_size < 1)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "min_size: must be at least 1, got %" G_GINT64_FORMAT, cap->min_size);
  else if (strcmp (ids, "order") != 0 && strcmp (ids, "supported_first") != 0)
    g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                 "ids: unknown scheme '%s' (valid: order, supported_first)", ids);
  else if ((backends ? parse_backends (p, backends, error)
                     : (cap->allow = selector_list_parse_dtypes ("allow", allow, error)) != NULL)
           && (cap->deny = selector_list_parse_dtypes ("deny", fxs_plugin_option_string (ctx, "deny"),
                                                       error))
           && (!non_compute
               || (cap->non_compute = selector_list_parse_dtypes ("non_compute_ops", non_compute,
                                                                  error))))
    {
      cap->ids = strcmp (ids, "order") == 0 ? CAPABILITY_IDS_ORDER
                                            : CAPABILITY_IDS_SUPPORTED_FIRST;
      if (cap->allow && cap->allow->items->len == 0)
        fxs_plugin_log (ctx, FXS_LOG_WARNING, "allow lists nothing: no node is supported");
      *state = p;
      return TRUE;
    }
  capability_fini (p);
  return FALSE;
}

/* One log line per backend: its partitions. */
static void
log_backends (FxsPluginContext *ctx, const CapabilityPlugin *p)
{
  GString *line = g_string_new (NULL);
  for (guint b = 0; b < p->names->len; b++)
    {
      guint parts = 0;
      for (guint i = 0; i < p->n_parts; i++)
        parts += p->part_kind[i] == b + 1;
      g_string_append_printf (line, "%s%s %u", b ? ", " : "", (char *) p->names->pdata[b],
                              parts);
    }
  fxs_plugin_log (ctx, FXS_LOG_INFO, "partitions by backend: %s", line->str);
  g_string_free (line, TRUE);
}

static gboolean
capability_prepare (FxsPluginContext *ctx, gpointer state, const FxsGraph *graph, GError **error)
{
  (void) error;
  CapabilityPlugin *p = state;
  CallDag *dag = call_dag_new (graph);
  g_free (p->ids);
  g_free (p->part_kind);
  p->n_nodes = fxs_graph_n_nodes (graph);
  p->ids = g_new (gint64, p->n_nodes ? p->n_nodes : 1);
  CapabilityStats stats;
  capability_assign (&p->cap, graph, dag, p->ids, NULL, &stats);
  p->part_kind = stats.part_kind;
  p->n_parts = stats.n_parts;
  fxs_plugin_log (ctx, FXS_LOG_INFO,
                  "%u supported partition%s (%u of %u call nodes), %u unsupported partition%s",
                  stats.supported_parts, stats.supported_parts == 1 ? "" : "s",
                  stats.supported_nodes, dag->n, stats.unsupported_parts,
                  stats.unsupported_parts == 1 ? "" : "s");
  if (p->names)
    log_backends (ctx, p);
  if (stats.demoted_nodes)
    fxs_plugin_log (ctx, FXS_LOG_INFO,
                    "%u supported call node%s in groups with fewer than min_size = %"
                    G_GINT64_FORMAT " compute nodes: they stay unsupported",
                    stats.demoted_nodes, stats.demoted_nodes == 1 ? " was" : "s were",
                    p->cap.min_size);
  if (stats.bookend_nodes)
    fxs_plugin_log (ctx, FXS_LOG_INFO,
                    "%u non-compute node%s at the edge of a supported group: moved beside it",
                    stats.bookend_nodes, stats.bookend_nodes == 1 ? " was" : "s were");
  call_dag_free (dag);
  return TRUE;
}

/* "supported" / "unsupported" with allow, the backend's name (or
 * "unsupported") with backends. */
static const char *
capability_label (gpointer state, gint64 partition)
{
  const CapabilityPlugin *p = state;
  if (partition < 0 || partition >= (gint64) p->n_parts)
    return NULL;
  guint8 kind = p->part_kind[partition];
  if (kind == 0)
    return "unsupported";
  return p->names ? p->names->pdata[kind - 1] : "supported";
}

FXS_PLUGIN_EXPORT const FxsPartitionerDescriptor fxsplit_partitioner = {
  .plugin = {
    FXS_PARTITIONER_ABI,
    .name = "capability",
    .version = "1.1",
    .description = "fewest acyclic partitions of the nodes a backend supports, the rest between "
                   "them; or several backends in priority order",
    .options = capability_options,
    .init = capability_init,
    .fini = capability_fini,
  },
  .prepare = capability_prepare,
  .label = capability_label,
};

FXS_PLUGIN_EXPORT gboolean
split_callback (const FxsNode *node, gpointer state, gint64 *partition, GError **error)
{
  const CapabilityPlugin *p = state;
  return fxs_partitioner_precomputed_id (p->ids, p->n_nodes, node, partition, error);
}
