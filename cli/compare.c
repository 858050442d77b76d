/* fxsplit compare GRAPH.json -p SPEC -p SPEC ...: runs several partitioners
 * (or chains) on one graph and prints one table of what their splits cost,
 * counted by the report output's code (plugins/common/partition-stats.c),
 * or an HTML page with their partition pictures side by side. */
#include "cli.h"
#include "compare-spec.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "graphviz.h"
#include "partition-stats.h"
#include "partition-view.h"
#include "report-table.h"
#include "units.h"

enum { COL_SPEC, COL_PARTS, COL_CUT, COL_MAX, COL_MEAN, COL_BALANCE, COL_CRITICAL,
       COL_BOTTLENECK, COL_TIME, N_COLUMNS };

typedef struct {
  char **cells;      /* N_COLUMNS */
  char *svg;         /* html: the picture, or NULL */
  char *missing;     /* html: why there is none */
  guint per_box;
} Row;

static void
row_free (gpointer data)
{
  Row *r = data;
  g_strfreev (r->cells);
  g_free (r->svg);
  g_free (r->missing);
  g_free (r);
}

static gboolean
column_is_number (guint column)
{
  return column != COL_SPEC;
}

/* The slowest stage's time, cost / speed with the spec's `speed` option
 * (one relative speed per partition in call order), or "-" without one. */
static char *
bottleneck_text (const CompareSpec *spec, const FxsSplitResult *result,
                 const PartitionStats *stats)
{
  const char *speed = compare_spec_option (spec, "speed");
  if (!speed)
    return g_strdup ("-");
  char **words = g_strsplit_set (speed, ", \t", -1);
  GArray *speeds = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean ok = TRUE;
  for (char **w = words; *w; w++)
    if (**w)
      {
        char *end;
        double v = g_ascii_strtod (*w, &end);
        ok &= *end == '\0' && v > 0 && isfinite (v);
        g_array_append_val (speeds, v);
      }
  g_strfreev (words);
  char *text;
  if (!ok || speeds->len != stats->n)
    text = g_strdup_printf ("- (%u speeds, %u partitions)", speeds->len, stats->n);
  else
    {
      guint worst = 0;
      double top = -1;
      for (guint i = 0; i < stats->n; i++)
        if (stats->parts[i].cost / g_array_index (speeds, double, i) > top)
          {
            top = stats->parts[i].cost / g_array_index (speeds, double, i);
            worst = i;
          }
      GString *s = g_string_new (NULL);
      if (stats->kind == FXS_COST_NODES)
        g_string_append_printf (s, "%.1f", top);
      else
        units_append_cost (s, stats->kind, (gint64) llround (top));
      g_string_append_printf (s, " (%s)", fxs_partition_submod_name (
                                            fxs_split_result_partition (result, worst)));
      text = g_string_free (s, FALSE);
    }
  g_array_unref (speeds);
  return text;
}

/* The cells of one split, the numbers the report prints for it. */
static char **
cells_of (const CompareSpec *spec, const FxsSplitResult *result, const PartitionStats *stats,
          double seconds)
{
  char **c = g_new0 (char *, N_COLUMNS + 1);
  GString *s = g_string_new (NULL);
  c[COL_SPEC] = g_strdup (spec->text);
  c[COL_PARTS] = report_cell_count (stats->n);
  c[COL_CUT] = report_cell_bytes (stats->cut_bytes);
  report_append_mean_cost (s, stats);
  c[COL_MEAN] = g_string_free (s, FALSE);
  c[COL_MAX] = report_cell_cost (stats->kind, stats->max_cost);
  c[COL_BALANCE] = stats->total_cost > 0
                   ? g_strdup_printf ("%.3f", partition_stats_balance (stats)) : g_strdup ("-");
  c[COL_CRITICAL] = report_cell_cost (stats->kind, stats->critical_cost);
  c[COL_BOTTLENECK] = bottleneck_text (spec, result, stats);
  c[COL_TIME] = g_strdup_printf ("%.1f ms", seconds * 1e3);
  return c;
}

typedef struct {
  CliCommon common;
  char **specs;      /* -p */
  char *cost;
  char *format;
  char *graphviz;
} CompareArgs;

/* The partition picture of @result as SVG in @row, or why there is none. */
static gboolean
draw (Row *row, const char *program, const FxsSplitResult *result, const PartitionStats *stats,
      GError **error)
{
  if (!program)
    {
      row->missing = g_strdup ("No picture: Graphviz was not found (install graphviz).");
      return TRUE;
    }
  GString *dot = g_string_new (NULL);
  row->per_box = partition_view_append_at_most (dot, result, stats, PARTITION_VIEW_MAX_BOXES);
  GBytes *svg = graphviz_render (NULL, program, "svg", dot, error);
  g_string_free (dot, TRUE);
  if (!svg)
    return FALSE;
  gsize len;
  const char *data = g_bytes_get_data (svg, &len);
  row->svg = g_strndup (data, len);
  g_bytes_unref (svg);
  return TRUE;
}

/* Splits @graph as @spec says and adds its row; an exit code on failure. */
static CliExit
run_one (const CompareArgs *a, FxsPluginRegistry *registry, FxsGraph *graph, const char *path,
         const CompareSpec *spec, FxsCostKind kind, const char *program, GPtrArray *rows)
{
  FxsPipeline *pipeline = fxs_pipeline_new (registry);
  fxs_pipeline_set (pipeline, "graph", "input", path, NULL);
  fxs_pipeline_set_graph (pipeline, graph);
  compare_spec_apply (spec, pipeline);
  GError *error = NULL;
  gint64 start = g_get_monotonic_time ();
  CliExit code = cli_split_pipeline (pipeline, &a->common, &error);
  double seconds = (g_get_monotonic_time () - start) / 1e6;
  if (code == CLI_EXIT_OK)
    {
      const FxsSplitResult *result = fxs_pipeline_result (pipeline);
      PartitionStats *stats = partition_stats_new (result, kind);
      Row *row = g_new0 (Row, 1);
      row->cells = cells_of (spec, result, stats, seconds);
      g_ptr_array_add (rows, row);
      if (strcmp (a->format, "html") == 0 && !draw (row, program, result, stats, &error))
        code = CLI_EXIT_IO;
      partition_stats_free (stats);
    }
  fxs_pipeline_free (pipeline);
  /* settings' errors name the -p already, the split's do not */
  if (error && !g_str_has_prefix (error->message, "-p "))
    g_prefix_error (&error, "-p %s: ", spec->text);
  if (error)
    return cli_fail_error (code, error);
  return code;
}

static const char *const headers[N_COLUMNS] = {
  "partitioner", "partitions", "cut", NULL, "mean", "max/mean", "critical path", "bottleneck",
  "time",
};

static GPtrArray *
table_rows (GPtrArray *rows, FxsCostKind kind)
{
  GPtrArray *table = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  char **head = g_new0 (char *, N_COLUMNS + 1);
  for (guint c = 0; c < N_COLUMNS; c++)
    head[c] = headers[c] ? g_strdup (headers[c])
                         : g_strdup_printf ("max (%s)", fxs_cost_kind_to_string (kind));
  g_ptr_array_add (table, head);
  for (guint r = 0; r < rows->len; r++)
    g_ptr_array_add (table, g_strdupv (((Row *) rows->pdata[r])->cells));
  return table;
}

static void
append_html (GString *out, const char *graph, GPtrArray *rows, FxsCostKind kind)
{
  g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<title>fxsplit compare: ");
  report_html_append_escaped (out, graph);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>"
                          "fxsplit compare: ", report_html_style);
  report_html_append_escaped (out, graph);
  g_string_append_printf (out, "</h1>\n<p>Costs are <b>%s</b>, counted as the report output "
                          "counts them.</p>\n<table>\n", fxs_cost_kind_to_string (kind));
  GPtrArray *table = table_rows (rows, kind);
  for (guint r = 0; r < table->len; r++)
    {
      char **cells = table->pdata[r];
      const char *tag = r ? "td" : "th";
      g_string_append (out, "<tr>");
      for (guint c = 0; c < N_COLUMNS; c++)
        {
          g_string_append_printf (out, "<%s%s>", tag, column_is_number (c) ? " class=\"n\"" : "");
          report_html_append_escaped (out, cells[c]);
          g_string_append_printf (out, "</%s>", tag);
        }
      g_string_append (out, "</tr>\n");
    }
  g_ptr_array_unref (table);
  g_string_append (out, "</table>\n<div class=\"pictures\">\n");
  for (guint r = 0; r < rows->len; r++)
    {
      const Row *row = rows->pdata[r];
      g_string_append (out, "<figure>\n<figcaption>");
      report_html_append_escaped (out, row->cells[COL_SPEC]);
      if (row->per_box > 1)
        g_string_append_printf (out, " (reduced: a box for each %u partitions)", row->per_box);
      g_string_append (out, "</figcaption>\n");
      if (row->svg)
        report_html_append_svg (out, row->svg);
      else
        {
          g_string_append (out, "<p class=\"missing\">");
          report_html_append_escaped (out, row->missing);
          g_string_append (out, "</p>\n");
        }
      g_string_append (out, "</figure>\n");
    }
  g_string_append (out, "</div>\n</body>\n</html>\n");
}

/* The Graphviz program for --format html, or NULL (with a warning) when it
 * is not found. */
static char *
find_graphviz (const CompareArgs *a)
{
  const char *name = a->graphviz ? a->graphviz : "dot";
  char *program = strchr (name, '/') ? (g_file_test (name, G_FILE_TEST_IS_EXECUTABLE)
                                        ? g_strdup (name) : NULL)
                                     : g_find_program_in_path (name);
  if (!program && !a->common.quiet)
    fprintf (stderr, "fxsplit: warning: compare: Graphviz's '%s' program was not found: the "
             "page has no pictures\n", name);
  return program;
}

static CliExit
compare (const CompareArgs *a, const char *path)
{
  FxsCostKind kind = FXS_COST_NODES;
  if (a->cost && !fxs_cost_kind_from_string (a->cost, &kind))
    return cli_fail (CLI_EXIT_USAGE, "--cost: unknown cost kind '%s' (valid: "
                     FXS_COST_KIND_NAMES ")", a->cost);
  if (strcmp (a->format, "text") != 0 && strcmp (a->format, "html") != 0)
    return cli_fail (CLI_EXIT_USAGE, "--format: unknown format '%s' (valid: text, html)",
                     a->format);
  GPtrArray *specs = g_ptr_array_new_with_free_func ((GDestroyNotify) compare_spec_free);
  GError *error = NULL;
  for (char **s = a->specs; *s; s++)
    {
      CompareSpec *spec = compare_spec_parse (*s, &error);
      if (!spec)
        {
          g_ptr_array_unref (specs);
          return cli_fail_error (CLI_EXIT_USAGE, error);
        }
      g_ptr_array_add (specs, spec);
    }
  FxsGraph *graph = fxs_graph_load_file (path, &error);
  if (!graph)
    {
      g_ptr_array_unref (specs);
      return cli_fail_error (CLI_EXIT_GRAPH, error);
    }
  char *program = strcmp (a->format, "html") == 0 ? find_graphviz (a) : NULL;
  FxsPluginRegistry *registry = cli_registry_new (&a->common);
  GPtrArray *rows = g_ptr_array_new_with_free_func (row_free);
  CliExit code = CLI_EXIT_OK;
  for (guint i = 0; i < specs->len && code == CLI_EXIT_OK; i++)
    code = run_one (a, registry, graph, path, specs->pdata[i], kind, program, rows);
  if (code == CLI_EXIT_OK)
    {
      GString *out = g_string_new (NULL);
      if (strcmp (a->format, "html") == 0)
        append_html (out, path, rows, kind);
      else
        {
          GPtrArray *table = table_rows (rows, kind);
          report_append_aligned (out, table, N_COLUMNS, column_is_number);
          g_ptr_array_unref (table);
        }
      errno = 0;
      if (fwrite (out->str, 1, out->len, stdout) != out->len || fflush (stdout) != 0)
        code = cli_fail (CLI_EXIT_IO, "standard output: cannot write: %s",
                         g_strerror (errno ? errno : EIO));
      g_string_free (out, TRUE);
    }
  g_ptr_array_unref (rows);
  fxs_plugin_registry_unref (registry);
  g_free (program);
  fxs_graph_unref (graph);
  g_ptr_array_unref (specs);
  return code;
}

int
cli_cmd_compare (int argc, char **argv)
{
  CompareArgs a = { 0 };
  const GOptionEntry entries[] = {
    { "partitioner", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &a.specs,
      "A partitioner and its options, or a chain of them joined by '+' (repeatable)",
      "NAME[:KEY=VALUE,...]" },
    { "cost", 'c', 0, G_OPTION_ARG_STRING, &a.cost,
      "What a partition costs: " FXS_COST_KIND_NAMES " (default nodes)", "KIND" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &a.format,
      "text (default) or html (the table and the partition pictures side by side)", "FORMAT" },
    { "graphviz", 0, 0, G_OPTION_ARG_STRING, &a.graphviz,
      "The Graphviz program that draws the html pictures (default dot)", "PROGRAM" },
    { NULL },
  };
  GOptionContext *context = g_option_context_new ("GRAPH.json - compare partitioners");
  g_option_context_set_summary (context,
    "Splits GRAPH.json with each -p partitioner (or chain) and prints one row per split:\n"
    "partitions, bytes cut, the costliest and the mean partition, max/mean, the critical\n"
    "path, the slowest stage where a 'speed' option is set, and the time taken; the same\n"
    "numbers as the report output's.  Example:\n"
    "  fxsplit compare model.json -p balanced:stages=4 -p mincut:parts=4 --cost flops");
  cli_add_common_options (context, &a.common);
  g_option_context_add_main_entries (context, entries, NULL);
  int code = CLI_EXIT_USAGE;
  if (!cli_parse (context, &argc, &argv))
    goto out;
  if (!a.format)
    a.format = g_strdup ("text");
  if (argc != 2)
    cli_fail (CLI_EXIT_USAGE, "compare: expected one graph file, got %d arguments (see --help)",
              argc - 1);
  else if (!a.specs || !a.specs[0])
    cli_fail (CLI_EXIT_USAGE, "compare: give at least one -p NAME[:KEY=VALUE,...] (see "
              "fxsplit plugins)");
  else
    code = compare (&a, argv[1]);
out:
  g_strfreev (a.specs);
  g_free (a.cost);
  g_free (a.format);
  g_free (a.graphviz);
  cli_common_clear (&a.common);
  g_option_context_free (context);
  return code;
}
