/* bench-split: times loading a graph file and splitting it with the engine.
 *
 * Loads the graph L times (the last one is kept), then splits it R times
 * with fxs_split_with_ids() into K partitions, contiguous stages by node
 * index and/or round-robin over the call nodes (PyTorch's own example
 * partitioning; on residual graphs it makes a cycle, which is then what is
 * timed).  Prints one JSON line per measurement, a summary per phase (median,
 * min, peak RSS, bytes per node) and the partition structure, which
 * bench/torch_split.py prints the same way so that bench/run.py can check
 * that both cut the graph identically.
 *
 * Under callgrind, only the splits are counted when it starts with
 * instrumentation off (docs/PERFORMANCE.md: instruction counts):
 *   valgrind --tool=callgrind --instr-atstart=no bench-split -r 1 -l 1 GRAPH
 */
#include <fxsplit/fxsplit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#ifdef HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

typedef enum {
  MODE_CONTIGUOUS,
  MODE_ROUND_ROBIN,
} SplitMode;

static const char *const mode_names[] = { "contiguous", "round-robin" };

typedef struct {
  const char *path;
  guint partitions;
  guint repeat;
  guint load_repeat;
  guint threads;          /* fxs_split_options_set_threads(); 0: the processors */
  gboolean modes[G_N_ELEMENTS (mode_names)];
} BenchConfig;

/* Wall and CPU time of one run.  CPU time (user + system) barely changes
 * when other processes compete for the cores; wall time does. */
typedef struct {
  double wall;
  double cpu;
} Times;

/* Measurements of one phase. */
typedef struct {
  double *wall;
  double *cpu;
  guint n;
} Samples;

/* ---- clocks, memory, JSON -------------------------------------------------- */

static double
clock_seconds (clockid_t clock)
{
  struct timespec ts;
  clock_gettime (clock, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static Times
times_now (void)
{
  return (Times) { clock_seconds (CLOCK_MONOTONIC), clock_seconds (CLOCK_PROCESS_CPUTIME_ID) };
}

static Times
times_since (Times start)
{
  Times now = times_now ();
  return (Times) { now.wall - start.wall, now.cpu - start.cpu };
}

static void
samples_init (Samples *s, guint capacity)
{
  s->wall = g_new (double, capacity);
  s->cpu = g_new (double, capacity);
  s->n = 0;
}

static void
samples_add (Samples *s, Times t)
{
  s->wall[s->n] = t.wall;
  s->cpu[s->n] = t.cpu;
  s->n++;
}

static void
samples_clear (Samples *s)
{
  g_free (s->wall);
  g_free (s->cpu);
}

/* The process's peak RSS so far, in bytes. */
static gint64
peak_rss_bytes (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (gint64) ru.ru_maxrss * 1024;
}

/* A memory field of /proc/self/status (VmRSS, VmHWM) in bytes, -1 if unknown. */
static gint64
status_bytes (const char *field)
{
  char *text = NULL;
  gint64 value = -1;
  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return -1;
  gsize len = strlen (field);
  for (char *line = text; line && *line; line = strchr (line, '\n'), line = line ? line + 1 : NULL)
    if (strncmp (line, field, len) == 0 && line[len] == ':')
      {
        value = g_ascii_strtoll (line + len + 1, NULL, 10) * 1024;
        break;
      }
  g_free (text);
  return value;
}

/* Starts VmHWM again from the current RSS, so that the peak of one phase can
 * be read on its own.  FALSE where the kernel does not allow it. */
static gboolean
reset_peak_rss (void)
{
  /* A plain write: g_file_set_contents() would rename a temporary file. */
  FILE *f = fopen ("/proc/self/clear_refs", "w");
  if (!f)
    return FALSE;
  gboolean ok = fputs ("5", f) >= 0;
  return fclose (f) == 0 && ok;
}

static void
json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (out, "\\%c", *p);
      else if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  g_string_append_c (out, '"');
}

/* Starts a JSON line with the fields every line carries. */
static GString *
record_begin (const BenchConfig *cfg, guint n_nodes, gint64 file_bytes, const char *phase)
{
  GString *out = g_string_new ("{\"tool\":\"bench-split\",\"graph\":");
  json_string (out, cfg->path);
  g_string_append_printf (out, ",\"nodes\":%u,\"file_bytes\":%" G_GINT64_FORMAT
                          ",\"phase\":\"%s\"", n_nodes, file_bytes, phase);
  return out;
}

static void
record_end (GString *out)
{
  g_string_append (out, "}\n");
  fputs (out->str, stdout);
  fflush (stdout);
  g_string_free (out, TRUE);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Sorts @v and returns its median. */
static double
median_of (double *v, guint n)
{
  qsort (v, n, sizeof (double), compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
append_stats (GString *out, Samples *s)
{
  double wall = median_of (s->wall, s->n), cpu = median_of (s->cpu, s->n);
  g_string_append_printf (out, ",\"summary\":true,\"runs\":%u,\"median_seconds\":%.6f"
                          ",\"min_seconds\":%.6f,\"median_cpu_seconds\":%.6f"
                          ",\"min_cpu_seconds\":%.6f", s->n, wall, s->wall[0], cpu, s->cpu[0]);
}

static void
append_times (GString *out, Times t)
{
  g_string_append_printf (out, ",\"seconds\":%.6f,\"cpu_seconds\":%.6f", t.wall, t.cpu);
}

/* ---- phases ------------------------------------------------------------------ */

static FxsGraph *
bench_load (const BenchConfig *cfg, gint64 file_bytes, GError **error)
{
  /* What the process holds before any graph: subtracted for bytes per node. */
  gint64 rss_at_start = status_bytes ("VmRSS");
  Samples s;
  samples_init (&s, cfg->load_repeat);
  FxsGraph *graph = NULL;
  for (guint run = 0; run < cfg->load_repeat; run++)
    {
      g_clear_pointer (&graph, fxs_graph_unref);
      Times t0 = times_now ();
      graph = fxs_graph_load_file (cfg->path, error);
      Times t = times_since (t0);
      if (!graph)
        {
          samples_clear (&s);
          return NULL;
        }
      samples_add (&s, t);
      GString *out = record_begin (cfg, fxs_graph_n_nodes (graph), file_bytes, "load");
      g_string_append_printf (out, ",\"run\":%u", run);
      append_times (out, t);
      record_end (out);
    }
  guint n = fxs_graph_n_nodes (graph);
  GString *out = record_begin (cfg, n, file_bytes, "load");
  append_stats (out, &s);
  gint64 rss = status_bytes ("VmRSS"), peak = MAX (peak_rss_bytes (), status_bytes ("VmHWM"));
  g_string_append_printf (out, ",\"rss_at_start_bytes\":%" G_GINT64_FORMAT
                          ",\"rss_after_load_bytes\":%" G_GINT64_FORMAT
                          ",\"peak_rss_bytes\":%" G_GINT64_FORMAT
                          ",\"graph_bytes_per_node\":%.1f,\"file_bytes_per_node\":%.1f",
                          rss_at_start, rss, peak, (double) (rss - rss_at_start) / n,
                          (double) file_bytes / n);
  record_end (out);
  samples_clear (&s);
  return graph;
}

static gint64 *
make_ids (const FxsGraph *graph, SplitMode mode, guint k)
{
  guint n = fxs_graph_n_nodes (graph);
  gint64 *ids = g_new0 (gint64, n ? n : 1);
  guint64 calls = 0;
  for (guint i = 0; i < n; i++)
    {
      FxsOp op = fxs_node_op (fxs_graph_node (graph, i));
      gboolean is_call = op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD
                         || op == FXS_OP_CALL_MODULE;
      if (mode == MODE_CONTIGUOUS)
        ids[i] = (gint64) ((guint64) i * k / n);
      else if (is_call)
        ids[i] = (gint64) (calls++ % k);
    }
  return ids;
}

/* Per partition in call order: what torch_split.py reports for PyTorch's. */
static void
report_structure (const BenchConfig *cfg, const FxsGraph *graph, gint64 file_bytes,
                  SplitMode mode, const FxsSplitResult *result)
{
  GString *out = record_begin (cfg, fxs_graph_n_nodes (graph), file_bytes, "partitions");
  g_string_append_printf (out, ",\"mode\":\"%s\",\"partitions_called\":[", mode_names[mode]);
  GChecksum *sha1 = g_checksum_new (G_CHECKSUM_SHA1);
  for (guint i = 0; i < fxs_split_result_n_partitions (result); i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      g_checksum_reset (sha1);
      for (guint j = 0; j < fxs_partition_n_inputs (p); j++)
        {
          const char *name = fxs_node_name (fxs_partition_input (p, j));
          if (j)
            g_checksum_update (sha1, (const guchar *) "\n", 1);
          g_checksum_update (sha1, (const guchar *) name, (gssize) strlen (name));
        }
      g_string_append_printf (out, "%s{\"name\":", i ? "," : "");
      json_string (out, fxs_partition_name (p));
      g_string_append_printf (out, ",\"nodes\":%u,\"inputs\":%u,\"inputs_sha1\":\"%.16s\""
                              ",\"outputs\":%u}", fxs_partition_n_nodes (p),
                              fxs_partition_n_inputs (p), g_checksum_get_string (sha1),
                              fxs_partition_n_outputs (p));
    }
  g_checksum_free (sha1);
  g_string_append_c (out, ']');
  record_end (out);
}

static void
bench_split (const BenchConfig *cfg, FxsGraph *graph, gint64 file_bytes, SplitMode mode)
{
  guint n = fxs_graph_n_nodes (graph);
  gint64 *ids = make_ids (graph, mode, cfg->partitions);
  Samples s;
  samples_init (&s, cfg->repeat);
  gboolean peak_is_exact = reset_peak_rss ();
  gint64 rss_before = status_bytes ("VmRSS");
  gboolean structure_reported = FALSE;
  char *failure = NULL;
  FxsSplitOptions *options = fxs_split_options_new ();
  fxs_split_options_set_threads (options, cfg->threads);

  for (guint run = 0; run < cfg->repeat; run++)
    {
      GError *error = NULL;
      Times t0 = times_now ();
      CALLGRIND_START_INSTRUMENTATION;
      FxsSplitResult *result = fxs_split_with_ids (graph, ids, options, &error);
      CALLGRIND_STOP_INSTRUMENTATION;
      Times t = times_since (t0);
      samples_add (&s, t);
      GString *out = record_begin (cfg, n, file_bytes, "split");
      g_string_append_printf (out, ",\"mode\":\"%s\",\"partitions\":%u,\"run\":%u",
                              mode_names[mode], cfg->partitions, run);
      append_times (out, t);
      g_string_append (out, ",\"status\":");
      if (result)
        g_string_append (out, "\"ok\"");
      else
        {
          g_string_append (out, error->code == FXS_ERROR_CYCLE ? "\"cycle\"" : "\"error\"");
          g_string_append (out, ",\"error\":");
          json_string (out, error->message);
          if (!failure)
            failure = g_strdup (error->message);
        }
      record_end (out);
      if (result && !structure_reported)
        {
          report_structure (cfg, graph, file_bytes, mode, result);
          structure_reported = TRUE;
        }
      fxs_split_result_free (result);
      g_clear_error (&error);
    }

  /* VmHWM now holds the peak of the splits alone (graph + ids + one result);
   * without the reset it is the whole run's, loading included. */
  gint64 peak = status_bytes ("VmHWM");
  GString *out = record_begin (cfg, n, file_bytes, "split");
  g_string_append_printf (out, ",\"mode\":\"%s\",\"partitions\":%u", mode_names[mode],
                          cfg->partitions);
  append_stats (out, &s);
  g_string_append_printf (out, ",\"status\":\"%s\",\"rss_before_split_bytes\":%" G_GINT64_FORMAT
                          ",\"split_peak_rss_bytes\":%" G_GINT64_FORMAT
                          ",\"split_peak_is_exact\":%s,\"split_peak_bytes_per_node\":%.1f",
                          failure ? "failed" : "ok", rss_before, peak,
                          peak_is_exact ? "true" : "false", (double) peak / n);
  record_end (out);
  fxs_split_options_free (options);
  g_free (failure);
  samples_clear (&s);
  g_free (ids);
}

/* ---- command line ------------------------------------------------------------ */

static gboolean
parse_config (int *argc, char ***argv, BenchConfig *cfg, GError **error)
{
  gint partitions = 8, repeat = 5, load_repeat = 0, threads = 0;
  char *mode = NULL;
  GOptionEntry entries[] = {
    { "partitions", 'k', 0, G_OPTION_ARG_INT, &partitions, "Partitions (default 8)", "K" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Split runs per mode (default 5)", "R" },
    { "load-repeat", 'l', 0, G_OPTION_ARG_INT, &load_repeat,
      "Load runs (default: as --repeat)", "L" },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads,
      "Most threads for loading and for building the produced graphs (default 0: the "
      "processors)", "N" },
    { "mode", 'm', 0, G_OPTION_ARG_STRING, &mode,
      "contiguous, round-robin or both (default contiguous)", "MODE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionContext *ctx = g_option_context_new ("GRAPH.json");
  g_option_context_set_summary (ctx, "Times loading GRAPH.json and splitting it with "
                                     "fxs_split_with_ids(); prints JSON lines.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  gboolean ok = g_option_context_parse (ctx, argc, argv, error);
  g_option_context_free (ctx);
  if (!ok)
    goto out;
  ok = FALSE;
  if (*argc != 2)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "usage: bench-split [--partitions=K] [--repeat=R] [--load-repeat=L] [--threads=N] "
                   "[--mode=contiguous|round-robin|both] GRAPH.json");
      goto out;
    }
  if (partitions < 1 || repeat < 1 || load_repeat < 0 || threads < 0)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "--partitions and --repeat must be at least 1, --load-repeat and "
                   "--threads at least 0");
      goto out;
    }
  cfg->path = (*argv)[1];
  cfg->partitions = (guint) partitions;
  cfg->repeat = (guint) repeat;
  cfg->threads = (guint) threads;
  /* as fxsplit --threads: loading (the reader's yajl thread) too */
  fxs_set_max_threads (cfg->threads);
  cfg->load_repeat = load_repeat ? (guint) load_repeat : (guint) repeat;
  if (!mode || strcmp (mode, "contiguous") == 0)
    cfg->modes[MODE_CONTIGUOUS] = TRUE;
  else if (strcmp (mode, "round-robin") == 0)
    cfg->modes[MODE_ROUND_ROBIN] = TRUE;
  else if (strcmp (mode, "both") == 0)
    cfg->modes[MODE_CONTIGUOUS] = cfg->modes[MODE_ROUND_ROBIN] = TRUE;
  else
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "--mode: '%s' is not contiguous, round-robin or both", mode);
      goto out;
    }
  ok = TRUE;
out:
  g_free (mode);
  return ok;
}

int
main (int argc, char **argv)
{
  BenchConfig cfg = { 0 };
  GError *error = NULL;
  if (!parse_config (&argc, &argv, &cfg, &error))
    {
      fprintf (stderr, "bench-split: %s\n", error->message);
      g_error_free (error);
      return 1;
    }

  struct stat st;
  gint64 file_bytes = stat (cfg.path, &st) == 0 ? (gint64) st.st_size : -1;
  FxsGraph *graph = bench_load (&cfg, file_bytes, &error);
  if (!graph)
    {
      fprintf (stderr, "bench-split: %s\n", error->message);
      g_error_free (error);
      return 1;
    }
  for (guint m = 0; m < G_N_ELEMENTS (mode_names); m++)
    if (cfg.modes[m])
      bench_split (&cfg, graph, file_bytes, (SplitMode) m);
  fxs_graph_unref (graph);
  return 0;
}
