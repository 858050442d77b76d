/* The dot output: the split as a Graphviz picture.  Small graphs are drawn
 * node by node inside one cluster per partition, big ones (or on request)
 * one box per partition; optionally rendered to SVG or PNG with Graphviz
 * right away.  docs/cli.md describes the options. */
#include <fxsplit/output.h>

#include <string.h>

#include "graphviz.h"
#include "node-view.h"
#include "partition-view.h"

/* view = auto draws nodes up to this many nodes in the original graph:
 * beyond it neither Graphviz nor a reader copes with a node picture. */
#define AUTO_NODE_LIMIT 2000

static const FxsOptionSpec dot_options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "the DOT file to write" },
  { .key = "view", .type = FXS_OPTION_STRING, .default_value = "auto",
    .help = "nodes (a cluster per partition), partitions (a box per partition), or auto: "
            "nodes up to 2000 nodes, partitions beyond" },
  { .key = "cost", .type = FXS_OPTION_STRING, .default_value = "nodes",
    .help = "the cost in the labels: " FXS_COST_KIND_NAMES },
  { .key = "render", .type = FXS_OPTION_STRING, .default_value = "none",
    .help = "none, svg or png: also draw the picture with Graphviz, into the path with "
            "its .dot/.gv extension replaced (or the format's extension appended)" },
  { .key = "graphviz", .type = FXS_OPTION_STRING, .default_value = "dot",
    .help = "the Graphviz program render runs (a name in PATH, or a path relative to the pipeline file); "
            "the run fails when it is missing" },
  { NULL },
};

typedef enum { VIEW_AUTO, VIEW_NODES, VIEW_PARTITIONS } View;

typedef struct {
  const char *path;
  View view;
  FxsCostKind cost;
  const char *render;   /* NULL: none; else "svg" / "png" */
  char *graphviz;       /* its full path when rendering */
} Dot;

static void
dot_free (gpointer state)
{
  Dot *d = state;
  g_free (d->graphviz);
  g_free (d);
}

static gboolean
parse_choice (const char *key, const char *value, const char *const *choices, guint *index,
              GError **error)
{
  for (guint i = 0; choices[i]; i++)
    if (strcmp (value, choices[i]) == 0)
      {
        *index = i;
        return TRUE;
      }
  char *valid = g_strjoinv (", ", (char **) choices);
  g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION, "%s: unknown value '%s' (valid: %s)",
               key, value, valid);
  g_free (valid);
  return FALSE;
}

static gboolean
dot_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  static const char *const views[] = { "auto", "nodes", "partitions", NULL };
  static const char *const renders[] = { "none", "svg", "png", NULL };
  guint view, render;
  FxsCostKind cost;
  if (!parse_choice ("view", fxs_plugin_option_string (ctx, "view"), views, &view, error)
      || !parse_choice ("render", fxs_plugin_option_string (ctx, "render"), renders, &render,
                        error))
    return FALSE;
  if (!fxs_cost_kind_from_string (fxs_plugin_option_string (ctx, "cost"), &cost))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "cost: unknown cost kind '%s' (valid: " FXS_COST_KIND_NAMES ")",
                   fxs_plugin_option_string (ctx, "cost"));
      return FALSE;
    }
  char *graphviz = NULL;
  if (render)
    {
      /* Checked now, before a big graph is loaded and split for nothing. */
      const char *program = fxs_plugin_option_string (ctx, "graphviz");
      graphviz = graphviz_find (ctx);
      if (!graphviz)
        {
          g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_FAILED,
                       "render = %s needs Graphviz's '%s' program, which is not found "
                       "(install graphviz, set graphviz to its path, or set render = none)",
                       renders[render], program);
          return FALSE;
        }
    }
  Dot *d = g_new0 (Dot, 1);
  d->path = fxs_plugin_option_string (ctx, "path");
  d->view = (View) view;
  d->cost = cost;
  d->render = render ? renders[render] : NULL;
  d->graphviz = graphviz;
  *state = d;
  return TRUE;
}

/* @path with a .dot or .gv extension replaced by .@format, else with
 * .@format appended. */
static char *
rendered_path (const char *path, const char *format)
{
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  const char *ext = strrchr (base, '.');
  gsize keep = strlen (path);
  if (ext && ext != base && (strcmp (ext, ".dot") == 0 || strcmp (ext, ".gv") == 0))
    keep = ext - path;
  return g_strdup_printf ("%.*s.%s", (int) keep, path, format);
}

static gboolean
render (FxsPluginContext *ctx, const Dot *d, const GString *text, GError **error)
{
  GBytes *picture = graphviz_render (ctx, d->graphviz, d->render, text, error);
  if (!picture)
    return FALSE;
  char *path = rendered_path (d->path, d->render);
  FILE *out = fxs_output_open_file (ctx, path, error);
  if (out)
    {
      gsize len;
      const void *data = g_bytes_get_data (picture, &len);
      fwrite (data, 1, len, out);
    }
  g_free (path);
  g_bytes_unref (picture);
  return out != NULL;
}

static gboolean
dot_write (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result, GError **error)
{
  const Dot *d = state;
  const FxsGraph *graph = fxs_split_result_original (result);
  gboolean nodes = d->view == VIEW_NODES
                   || (d->view == VIEW_AUTO && fxs_graph_n_nodes (graph) <= AUTO_NODE_LIMIT);
  if (d->view == VIEW_AUTO && !nodes)
    fxs_plugin_log (ctx, FXS_LOG_INFO, "%u nodes (more than %d): drawing one box per partition",
                    fxs_graph_n_nodes (graph), AUTO_NODE_LIMIT);
  PartitionStats *stats = partition_stats_new (result, d->cost);
  GString *text = g_string_new (NULL);
  if (nodes)
    node_view_append (text, result, stats);
  else
    partition_view_append (text, result, stats);
  partition_stats_free (stats);

  gboolean ok = FALSE;
  FILE *out = fxs_output_open_file (ctx, d->path, error);
  if (out)
    {
      /* Write errors are caught when the host commits the file. */
      fwrite (text->str, 1, text->len, out);
      ok = !d->render || render (ctx, d, text, error);
    }
  g_string_free (text, TRUE);
  return ok;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = {
    FXS_OUTPUT_ABI,
    .name = "dot",
    .version = "1.0",
    .description = "the split as a Graphviz picture: a cluster per partition with its "
                   "nodes, or a box per partition; optionally rendered to SVG or PNG",
    .options = dot_options,
    .init = dot_init,
    .fini = dot_free,
  },
  .write = dot_write,
};
