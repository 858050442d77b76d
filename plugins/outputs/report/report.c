/* The report output: per partition its nodes, inputs, outputs, cost and
 * share, bytes received and sent; then the cut, the balance and the
 * critical path.  As text for a terminal, CSV, or an HTML page with the
 * partition picture.  docs/cli.md describes the options. */
#include <fxsplit/output.h>

#include <errno.h>
#include <string.h>

#include "partition-stats.h"
#include "report-formats.h"
#include "graphviz.h"
#include "partition-view.h"

static const FxsOptionSpec report_options[] = {
  { .key = "format", .type = FXS_OPTION_STRING, .default_value = "text",
    .help = "text (a table for the terminal), csv (raw numbers) or html (a page with the "
            "partition picture)" },
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH,
    .help = "the file to write; unset: print to standard output as the run writes "
            "(not staged with the files)" },
  { .key = "cost", .type = FXS_OPTION_STRING, .default_value = "nodes",
    .help = "what a partition costs: " FXS_COST_KIND_NAMES },
  { .key = "graphviz", .type = FXS_OPTION_STRING, .default_value = "dot",
    .help = "the Graphviz program that draws the HTML picture (a name in PATH, or a path relative to the pipeline file); "
            "when missing, the page says so" },
  { NULL },
};

typedef enum { FORMAT_TEXT, FORMAT_CSV, FORMAT_HTML } Format;

typedef struct {
  Format format;
  const char *path;   /* NULL: standard output */
  FxsCostKind cost;
  const char *graphviz;
} Report;

static gboolean
report_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  static const char *const formats[] = { "text", "csv", "html" };
  const char *format = fxs_plugin_option_string (ctx, "format");
  guint f = 0;
  while (f < G_N_ELEMENTS (formats) && strcmp (format, formats[f]) != 0)
    f++;
  if (f == G_N_ELEMENTS (formats))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "format: unknown value '%s' (valid: text, csv, html)", format);
      return FALSE;
    }
  FxsCostKind cost;
  if (!fxs_cost_kind_from_string (fxs_plugin_option_string (ctx, "cost"), &cost))
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_OPTION,
                   "cost: unknown cost kind '%s' (valid: " FXS_COST_KIND_NAMES ")",
                   fxs_plugin_option_string (ctx, "cost"));
      return FALSE;
    }
  Report *r = g_new0 (Report, 1);
  r->format = (Format) f;
  r->path = fxs_plugin_option_string (ctx, "path");
  r->cost = cost;
  r->graphviz = fxs_plugin_option_string (ctx, "graphviz");
  *state = r;
  return TRUE;
}

/* The page with Graphviz's picture, or with a line saying why it is
 * missing (and a warning) when Graphviz is not installed. */
static gboolean
append_html (FxsPluginContext *ctx, const Report *r, const FxsSplitResult *result,
             const PartitionStats *stats, GString *out, GError **error)
{
  char *program = graphviz_find (ctx);
  if (!program)
    {
      char *missing = g_strdup_printf ("No picture: Graphviz's '%s' program was not found "
                                       "(install graphviz).", r->graphviz ? r->graphviz : "");
      fxs_plugin_log (ctx, FXS_LOG_WARNING, "%s", missing);
      report_append_html (out, result, stats, NULL, missing, 1);
      g_free (missing);
      return TRUE;
    }
  /* a bounded picture: Graphviz crashed on 900,000 boxes */
  GString *dot = g_string_new (NULL);
  guint per_box = partition_view_append_at_most (dot, result, stats, PARTITION_VIEW_MAX_BOXES);
  GBytes *svg = graphviz_render (ctx, program, "svg", dot, error);
  g_string_free (dot, TRUE);
  g_free (program);
  if (!svg)
    return FALSE;
  /* The SVG as a string: GBytes data is not NUL-terminated. */
  gsize len;
  const char *data = g_bytes_get_data (svg, &len);
  char *text = g_strndup (data, len);
  report_append_html (out, result, stats, text, NULL, per_box);
  g_free (text);
  g_bytes_unref (svg);
  return TRUE;
}

static gboolean
write_stdout (const GString *text, GError **error)
{
  errno = 0;
  if (fwrite (text->str, 1, text->len, stdout) != text->len || fflush (stdout) != 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_IO, "standard output: cannot write: %s",
                   g_strerror (errno ? errno : EIO));
      return FALSE;
    }
  return TRUE;
}

static gboolean
report_write (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result,
              GError **error)
{
  const Report *r = state;
  PartitionStats *stats = partition_stats_new (result, r->cost);
  GString *text = g_string_new (NULL);
  gboolean ok = TRUE;
  switch (r->format)
    {
    case FORMAT_TEXT:
      report_append_text (text, result, stats);
      break;
    case FORMAT_CSV:
      report_append_csv (text, result, stats);
      break;
    case FORMAT_HTML:
    default:
      ok = append_html (ctx, r, result, stats, text, error);
      break;
    }
  partition_stats_free (stats);
  if (ok && !r->path)
    ok = write_stdout (text, error);
  else if (ok)
    {
      FILE *out = fxs_output_open_file (ctx, r->path, error);
      ok = out != NULL;
      /* Write errors are caught when the host commits the file. */
      if (ok)
        fwrite (text->str, 1, text->len, out);
    }
  g_string_free (text, TRUE);
  return ok;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = {
    FXS_OUTPUT_ABI,
    .name = "report",
    .version = "1.0",
    .description = "per-partition nodes, inputs, outputs, cost and bytes, the cut, balance "
                   "and critical path: as text, CSV or an HTML page",
    .options = report_options,
    .init = report_init,
    .fini = g_free,
  },
  .write = report_write,
};
