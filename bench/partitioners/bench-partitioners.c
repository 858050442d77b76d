/* bench-partitioners: the quality and speed of the K-way partitioners on
 * graph files: balanced (optimal contiguous stages), mincut's two
 * algorithms (refine: mincut 1.0's contiguous starts and neighbour moves;
 * multilevel, the default), METIS (undirected k-way, which may make
 * cycles) and, re-scored, dagP's part files.
 *
 *   bench-partitioners [--cost=KIND,...] [--tolerance=T] [--parts=2,4,8]
 *                      [--methods=M,...] [--dot=DIR] [--dagp=PARTFILE]... GRAPH.json...
 *   bench-partitioners --random-dag=N [--seed=S] OUTPUT.json   (writes a graph)
 *
 * --dot writes each graph as dagP's input, DIR/NAME.COST.dot (NAME: the
 * graph file's name without .json; vertices the call nodes in order,
 * weight the cost, edges producer -> user, weight the value's bytes, both
 * scaled down to keep dagP's 32-bit sums from overflowing).  A --dagp file
 * is what `rMLGP NAME.COST.dot K --write_parts 1` wrote,
 * NAME.COST.dot.partsfile.part_K.seed_S.txt: it is scored with the graph,
 * cost and K its name gives (one part number per call node, in order).
 * --methods picks among balanced, mincut-refine, mincut and metis (all by
 * default).
 *
 * Prints one JSON object per graph, K and method: the cut in bytes as the
 * split counts it (a value once per other partition that uses it), the
 * largest partition cost, the total and the mean, the partitions that lie
 * on a dependency cycle and the partitioning time in seconds (loading and
 * cost computation excluded; the same for every method). */
#include <fxsplit/fxsplit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contiguous.h"
#include "cost-option.h"
#include "call-dag.h"
#include "acyclic-cut.h"
#include "../../tests/unit/test-partitioners-graphs.h"

#ifdef HAVE_METIS
#include <metis.h>
#endif

typedef struct {
  const char *graph;
  const char *cost_name;
  guint parts;
  gint64 total;
  const CallDag *dag;
  const gint64 *cost;
  const gint64 *bytes;
} Case;

static void
report (const Case *c, const char *method, const guint32 *part, double seconds,
        const char *note)
{
  guint n = c->dag->n, m = MIN (c->parts, n);
  gint64 *load = g_new0 (gint64, m ? m : 1);
  gint64 top = 0;
  for (guint v = 0; v < n; v++)
    load[part[v]] += c->cost[v];
  for (guint p = 0; p < m; p++)
    top = MAX (top, load[p]);
  printf ("{\"graph\": \"%s\", \"cost\": \"%s\", \"nodes\": %u, \"parts\": %u, "
          "\"method\": \"%s\", "
          "\"cut\": %" G_GINT64_FORMAT ", \"max_load\": %" G_GINT64_FORMAT ", "
          "\"total\": %" G_GINT64_FORMAT ", \"mean_load\": %.1f, \"parts_on_cycles\": %u, \"seconds\": %.4f%s%s%s}\n",
          c->graph, c->cost_name, n, c->parts, method, call_dag_cut (c->dag, c->bytes, part, MAX (m, 1)), top,
          c->total, m ? (double) c->total / m : 0.0, call_dag_parts_on_cycles (c->dag, part, MAX (m, 1)),
          seconds, note ? ", \"note\": \"" : "", note ? note : "", note ? "\"" : "");
  fflush (stdout);
  g_free (load);
}

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

#ifdef HAVE_METIS
/* METIS k-way on the undirected call graph: vertex weights the costs, edge
 * weights the producer's value bytes, both scaled down to keep METIS's
 * 32-bit sums from overflowing. */
static void
run_metis (const Case *c, double tolerance)
{
  const CallDag *dag = c->dag;
  idx_t n = dag->n;
  guint m = dag->pred_off[n];
  gint64 max_bytes = 1, total_cost = MAX (c->total, 1);
  for (guint v = 0; v < dag->n; v++)
    max_bytes = MAX (max_bytes, c->bytes[v]);
  gint64 byte_scale = max_bytes / (1 << 20) + 1;
  gint64 cost_scale = total_cost / (1 << 29) + 1;
  idx_t *xadj = g_new0 (idx_t, n + 1), *adjncy = g_new (idx_t, 2 * m + 1);
  idx_t *adjwgt = g_new (idx_t, 2 * m + 1), *vwgt = g_new (idx_t, n + 1);
  idx_t *part = g_new (idx_t, n + 1);
  for (idx_t v = 0; v < n; v++)
    {
      xadj[v + 1] = xadj[v] + (dag->pred_off[v + 1] - dag->pred_off[v])
                    + (dag->succ_off[v + 1] - dag->succ_off[v]);
      vwgt[v] = (idx_t) (c->cost[v] / cost_scale);
      idx_t k = xadj[v];
      for (guint32 e = dag->pred_off[v]; e < dag->pred_off[v + 1]; e++, k++)
        {
          adjncy[k] = dag->preds[e];
          adjwgt[k] = (idx_t) MAX (1, c->bytes[dag->preds[e]] / byte_scale);
        }
      for (guint32 e = dag->succ_off[v]; e < dag->succ_off[v + 1]; e++, k++)
        {
          adjncy[k] = dag->succs[e];
          adjwgt[k] = (idx_t) MAX (1, c->bytes[v] / byte_scale);
        }
    }
  idx_t ncon = 1, nparts = c->parts, objval = 0;
  real_t ubvec = 1.0 + tolerance;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions (options);
  options[METIS_OPTION_SEED] = 1;
  double start = now ();
  int status = METIS_PartGraphKway (&n, &ncon, xadj, adjncy, vwgt, NULL, adjwgt, &nparts, NULL,
                                    &ubvec, options, &objval, part);
  double seconds = now () - start;
  if (status == METIS_OK)
    {
      guint32 *p32 = g_new (guint32, n + 1);
      /* METIS may leave parts empty: renumber the used ones densely. */
      gint64 *map = g_new (gint64, nparts);
      for (idx_t p = 0; p < nparts; p++)
        map[p] = -1;
      guint used = 0;
      for (idx_t v = 0; v < n; v++)
        if (map[part[v]] < 0)
          map[part[v]] = used++;
      for (idx_t v = 0; v < n; v++)
        p32[v] = (guint32) map[part[v]];
      report (c, "metis", p32, seconds, used < MIN (c->parts, dag->n) ? "empty parts" : NULL);
      g_free (map);
      g_free (p32);
    }
  else
    report (c, "metis", NULL, seconds, "METIS failed");
  g_free (xadj);
  g_free (adjncy);
  g_free (adjwgt);
  g_free (vwgt);
  g_free (part);
}
#endif

/* NAME of GRAPH_DIR/NAME.json. */
static char *
graph_name (const char *path)
{
  char *base = g_path_get_basename (path);
  if (g_str_has_suffix (base, ".json"))
    base[strlen (base) - 5] = '\0';
  return base;
}

/* dagP's weighted DOT input: vertex and edge weights scaled so that their
 * sums fit 31 bits. */
static void
write_dot (const Case *c, const char *dir)
{
  const CallDag *dag = c->dag;
  gint64 edge_total = 1;
  for (guint v = 0; v < dag->n; v++)
    edge_total += c->bytes[v] * (dag->succ_off[v + 1] - dag->succ_off[v]);
  gint64 cost_scale = MAX (c->total, 1) / (1 << 30) + 1, byte_scale = edge_total / (1 << 30) + 1;
  char *name = graph_name (c->graph);
  char *file = g_strdup_printf ("%s/%s.%s.dot", dir, name, c->cost_name);
  FILE *f = fopen (file, "w");
  if (!f)
    {
      fprintf (stderr, "bench-partitioners: cannot write %s\n", file);
      exit (1);
    }
  fprintf (f, "digraph G {\n");
  for (guint v = 0; v < dag->n; v++)
    fprintf (f, "%u [weight=%" G_GINT64_FORMAT "];\n", v, MAX (1, c->cost[v] / cost_scale));
  for (guint v = 0; v < dag->n; v++)
    for (guint32 e = dag->succ_off[v]; e < dag->succ_off[v + 1]; e++)
      fprintf (f, "%u -> %u [weight=%" G_GINT64_FORMAT "];\n", v, dag->succs[e],
               MAX (1, c->bytes[v] / byte_scale));
  fprintf (f, "}\n");
  if (fclose (f) != 0)
    {
      fprintf (stderr, "bench-partitioners: cannot write %s\n", file);
      exit (1);
    }
  g_free (file);
  g_free (name);
}

/* Scores the dagP part files of this graph, cost and K (see the top). */
static void
score_dagp (const Case *c, char **files)
{
  char *name = graph_name (c->graph);
  char *prefix = g_strdup_printf ("%s.%s.dot.partsfile.part_%u.seed_", name, c->cost_name,
                                  c->parts);
  for (char **f = files; f && *f; f++)
    {
      char *base = g_path_get_basename (*f);
      if (g_str_has_prefix (base, prefix))
        {
          char *text = NULL;
          GError *error = NULL;
          if (!g_file_get_contents (*f, &text, NULL, &error))
            {
              fprintf (stderr, "bench-partitioners: %s\n", error->message);
              exit (1);
            }
          char **lines = g_strsplit (g_strstrip (text), "\n", -1);
          guint n = c->dag->n;
          if (g_strv_length (lines) != n)
            {
              fprintf (stderr, "bench-partitioners: %s: %u lines for %u call nodes\n", *f,
                       g_strv_length (lines), n);
              exit (1);
            }
          guint32 *part = g_new (guint32, n ? n : 1);
          for (guint v = 0; v < n; v++)
            {
              guint64 p = g_ascii_strtoull (lines[v], NULL, 10);
              if (p >= c->parts)
                {
                  fprintf (stderr, "bench-partitioners: %s:%u: part %s of %u\n", *f, v + 1,
                           lines[v], c->parts);
                  exit (1);
                }
              part[v] = (guint32) p;
            }
          char *seed = g_strndup (base + strlen (prefix), strcspn (base + strlen (prefix), "."));
          char *note = g_strdup_printf ("seed %s", seed);
          report (c, "dagp", part, 0.0, note);
          g_free (note);
          g_free (seed);
          g_free (part);
          g_strfreev (lines);
          g_free (text);
        }
      g_free (base);
    }
  g_free (prefix);
  g_free (name);
}

typedef struct {
  double tolerance;
  char **parts;
  const char *dot_dir;
  char **dagp;
  char **methods;   /* NULL: all */
  guint64 seed;
} Options;

static gboolean
wanted (const Options *o, const char *method)
{
  return !o->methods || g_strv_contains ((const char *const *) o->methods, method);
}

static void
bench_cost (const char *path, const FxsGraph *g, const char *cost_name, const Options *o)
{
  GError *error = NULL;
  FxsCostKind kind;
  if (!cost_option_parse (cost_name, &kind, &error))
    {
      fprintf (stderr, "bench-partitioners: %s\n", error->message);
      exit (2);
    }
  guint n;
  guint32 *index;
  gint64 *cost = cost_option_call_costs (NULL, g, kind, &n, &index);
  CallDag *dag = call_dag_new (g);
  gint64 *bytes = call_dag_value_bytes (dag, g);
  Case c = { .graph = path, .cost_name = cost_name, .dag = dag, .cost = cost, .bytes = bytes };
  for (guint v = 0; v < n; v++)
    c.total += cost[v];
  if (o->dot_dir)
    write_dot (&c, o->dot_dir);
  guint32 *part = g_new (guint32, n ? n : 1);
  static const struct { const char *name; AcyclicAlgorithm algorithm; } methods[] = {
    { "mincut-refine", ACYCLIC_REFINE }, { "mincut", ACYCLIC_MULTILEVEL },
  };
  for (char **k = o->parts; *k; k++)
    {
      c.parts = (guint) g_ascii_strtoull (*k, NULL, 10);
      double start = now ();
      contiguous_split (cost, n, c.parts, part);
      if (wanted (o, "balanced"))
        report (&c, "balanced", part, now () - start, NULL);
      for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
        {
          if (!wanted (o, methods[i].name))
            continue;
          /* The plugin's defaults (plugins/partitioners/mincut). */
          AcyclicCutParams params = { .parts = c.parts, .tolerance = o->tolerance, .passes = 8,
                                      .seed = o->seed, .algorithm = methods[i].algorithm,
                                      .coarsest = 64, .tries = 8 };
          AcyclicCutStats stats;
          start = now ();
          acyclic_cut (dag, cost, bytes, &params, part, &stats);
          report (&c, methods[i].name, part, now () - start,
                  stats.relaxed ? "tolerance relaxed" : NULL);
        }
#ifdef HAVE_METIS
      if (c.parts > 1 && wanted (o, "metis"))
        run_metis (&c, o->tolerance);
#endif
      score_dagp (&c, o->dagp);
    }
  g_free (part);
  g_free (bytes);
  call_dag_free (dag);
  g_free (cost);
  g_free (index);
}

static void
bench_graph (const char *path, char **costs, const Options *o)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  if (!g)
    {
      fprintf (stderr, "bench-partitioners: %s\n", error->message);
      exit (1);
    }
  for (char **k = costs; *k; k++)
    bench_cost (path, g, *k, o);
  fxs_graph_unref (g);
}

int
main (int argc, char **argv)
{
  char *cost_text = NULL, *parts_text = NULL, *dot_dir = NULL, *methods_text = NULL;
  char **dagp = NULL;
  double tolerance = 0.05;
  gint random_dag = 0, seed = 1, mincut_seed = 0;
  GOptionEntry entries[] = {
    { "cost", 0, 0, G_OPTION_ARG_STRING, &cost_text, "Node costs (default flops)", "KIND,..." },
    { "tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &tolerance, "Balance tolerance (0.05)", "T" },
    { "parts", 0, 0, G_OPTION_ARG_STRING, &parts_text, "K values (2,4,8)", "LIST" },
    { "methods", 0, 0, G_OPTION_ARG_STRING, &methods_text, "Methods to run (all)", "M,..." },
    { "mincut-seed", 0, 0, G_OPTION_ARG_INT, &mincut_seed, "mincut's seed (0)", "S" },
    { "dot", 0, 0, G_OPTION_ARG_FILENAME, &dot_dir, "Write dagP's .dot inputs here", "DIR" },
    { "dagp", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &dagp, "Score a dagP part file", "FILE" },
    { "random-dag", 0, 0, G_OPTION_ARG_INT, &random_dag, "Write a random DAG of N call nodes", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Seed of the random DAG (1)", "S" },
    { NULL },
  };
  GError *error = NULL;
  GOptionContext *ctx = g_option_context_new ("GRAPH.json... - partitioner quality");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc < 2)
    {
      fprintf (stderr, "bench-partitioners: %s\n", error ? error->message : "no graph given");
      return 2;
    }
  g_option_context_free (ctx);
  if (random_dag > 0)
    {
      GRand *rng = g_rand_new_with_seed (seed);
      FxsGraph *g = tp_random_dag (rng, random_dag);
      gboolean ok = fxs_graph_save_file (g, argv[1], &error);
      fxs_graph_unref (g);
      g_rand_free (rng);
      if (!ok)
        fprintf (stderr, "bench-partitioners: %s\n", error->message);
      return ok ? 0 : 1;
    }
  char **costs = g_strsplit (cost_text ? cost_text : "flops", ",", -1);
  char **parts_list = g_strsplit (parts_text ? parts_text : "2,4,8", ",", -1);
  char **methods = methods_text ? g_strsplit (methods_text, ",", -1) : NULL;
  Options o = { tolerance, parts_list, dot_dir, dagp, methods, (guint64) mincut_seed };
  for (int i = 1; i < argc; i++)
    bench_graph (argv[i], costs, &o);
  g_strfreev (costs);
  g_strfreev (parts_list);
  g_strfreev (dagp);
  g_strfreev (methods);
  g_free (methods_text);
  g_free (dot_dir);
  g_free (cost_text);
  g_free (parts_text);
  return 0;
}
