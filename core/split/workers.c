/* Building a split's graphs on several threads.
 *
 * Once the analysis is done the graphs are independent: each partition's
 * graph has its own namespace and attribute table, and the top-level graph
 * needs of the partitions only what the analysis knows (their inputs).  So
 * the graphs (and the qualname map) are tasks that workers, each with a
 * builder of its own, take one after the other; the result does not depend
 * on which worker builds what.  An error is the one of the first failing
 * task in the serial order (partitions in call order, then the top-level
 * graph), as a serial build would report.
 *
 * The workers start with the analysis (fxs_split_build_start): one of them
 * makes the top-level graph's placeholders and get_attrs meanwhile, which
 * need nothing of the analysis, then finishes that graph once the analysis
 * is done; the others wait for it. */
#include "builder.h"
#include "util/threads-private.h"

/* The blocks of a big split's nodes (fxs_graph_alloc_bulk) */
#define BULK_CHUNK ((gsize) 2 << 20)

/* Fewer nodes than this are built on the calling thread alone: starting a
 * thread costs more than it saves there. */
#define THREADS_MIN_NODES 16384

typedef enum {
  BUILD_ANALYSING,
  BUILD_BUILDING,
  BUILD_CANCELLED,
} BuildState;

struct FxsSplitBuild {
  FxsGraph *orig;
  const FxsSplitPlan *plan;
  guint threads;
  gboolean early_top;     /* a worker begins the top-level graph during the analysis */
  GThread **workers;      /* threads - 1 of them; the caller is the last worker */
  struct Worker *args;    /* per worker */
  gsize bulk_chunk;       /* 0: graphs in their own arenas */
  GMutex lock;            /* guards what follows */
  GCond analysed;         /* state left BUILD_ANALYSING */
  BuildState state;
  /* set when the analysis is done */
  FxsSplitResult *r;
  guint n_sched;          /* tasks handed out through next */
  gint next;              /* atomic: the next task to take, in scheduling order */
  /* the inputs each partition is passed, at r->inputs' offsets: the
   * top-level graph's builder finds them, the result keeps them */
  guint32 *passed_inputs;
  guint failed;           /* the first failing task (serial order), or G_MAXUINT */
  GError *error;          /* its error */
};

typedef struct Worker {
  FxsSplitBuild *job;
  gboolean makes_top;     /* the worker that begins the top-level graph early */
} Worker;

/* Task @task in serial order: partition @task in call order, then the
 * top-level graph, then the qualname map. */
static gboolean
run_task (FxsSplitBuild *job, FxsBuilder *b, guint task, GError **error)
{
  guint P = job->r->n_partitions;
  if (task < P)
    return fxs_builder_build_partition (b, task, error);
  if (task == P)
    return fxs_builder_build_top (b, error);
  fxs_split_make_qualname_map (job->r, job->plan);
  return TRUE;
}

static void
note_failure (FxsSplitBuild *job, guint task, GError *error)
{
  g_mutex_lock (&job->lock);
  if (task < job->failed)
    {
      g_clear_error (&job->error);
      job->error = error;
      g_atomic_int_set ((gint *) &job->failed, (gint) task);
    }
  else
    g_error_free (error);
  g_mutex_unlock (&job->lock);
}

/* FALSE when no task before @task has failed. */
static gboolean
superseded (FxsSplitBuild *job, guint task)
{
  return task > (guint) g_atomic_int_get ((gint *) &job->failed);
}

/* Waits for the analysis; TRUE when there is a result to build. */
static gboolean
wait_for_analysis (FxsSplitBuild *job)
{
  g_mutex_lock (&job->lock);
  while (job->state == BUILD_ANALYSING)
    g_cond_wait (&job->analysed, &job->lock);
  gboolean go = job->state == BUILD_BUILDING;
  g_mutex_unlock (&job->lock);
  return go;
}

static gpointer
build_worker (gpointer data)
{
  const Worker *w = data;
  FxsSplitBuild *job = w->job;
  FxsBuilder *b = fxs_builder_new (job->orig, job->plan, job->bulk_chunk);
  if (w->makes_top)
    fxs_builder_begin_top (b, 64 + job->orig->nodes->len / 16);
  if (!wait_for_analysis (job))
    {
      if (w->makes_top)
        fxs_builder_drop_top (b);
      fxs_builder_free (b);
      return NULL;
    }
  fxs_builder_set_result (b, job->r, job->passed_inputs);
  guint P = job->r->n_partitions;
  GError *error = NULL;
  if (w->makes_top && superseded (job, P))
    fxs_builder_drop_top (b);   /* a partition failed: the graph is not needed */
  else if (w->makes_top && !fxs_builder_finish_top (b, &error))
    note_failure (job, P, error);
  for (;;)
    {
      guint s = (guint) g_atomic_int_add (&job->next, 1);
      if (s >= job->n_sched)
        break;
      /* the top-level graph (often the biggest) and the qualname map
       * first, then the partitions in call order */
      guint task = job->early_top ? (s == 0 ? P + 1 : s - 1) : (s < 2 ? P + s : s - 2);
      if (superseded (job, task))
        continue;
      error = NULL;
      if (!run_task (job, b, task, &error))
        note_failure (job, task, error);
    }
  fxs_builder_free (b);
  return NULL;
}

/* At most one thread per this many nodes: more could only wait. */
#define NODES_PER_THREAD 2048

/* How many threads build a split of @n nodes. */
static guint
build_threads (guint requested, guint n)
{
  if (n < THREADS_MIN_NODES)
    return 1;
  guint threads = requested ? requested : fxs_threads_available ();
  return CLAMP (threads, 1, n / NODES_PER_THREAD);
}

FxsSplitBuild *
fxs_split_build_start (FxsGraph *graph, const FxsSplitPlan *plan)
{
  FxsSplitBuild *job = g_new0 (FxsSplitBuild, 1);
  job->orig = graph;
  job->plan = plan;
  job->state = BUILD_ANALYSING;
  job->failed = G_MAXUINT;
  g_mutex_init (&job->lock);
  g_cond_init (&job->analysed);
  guint n = graph->nodes->len;
  job->threads = build_threads (plan->threads, n);
  job->early_top = job->threads > 1 && !plan->keep_original_order;
  /* a node and its arguments take about 128 bytes; from 256 KiB on they
   * go to big blocks, a series per worker, instead of one arena per
   * partition graph */
  gsize estimate = (gsize) n * 128;
  if (estimate >= BULK_CHUNK / 8)
    job->bulk_chunk = BULK_CHUNK;
  job->workers = g_new0 (GThread *, job->threads);
  job->args = g_new0 (Worker, job->threads);
  for (guint t = 0; t < job->threads; t++)
    job->args[t] = (Worker) { job, job->early_top && t == 0 };
  for (guint t = 0; t + 1 < job->threads; t++)
    job->workers[t] = g_thread_new ("fxs-split", build_worker, &job->args[t]);
  return job;
}

gboolean
fxs_split_build_finish (FxsSplitBuild *job, FxsSplitResult *result, GError **error)
{
  g_mutex_lock (&job->lock);
  if (result)
    {
      guint P = result->n_partitions;
      guint n_inputs = result->inputs.offsets[P];
      job->r = result;
      job->passed_inputs = g_malloc ((n_inputs ? n_inputs : 1) * sizeof (guint32));
      job->n_sched = job->early_top ? P + 1 : P + 2;
      job->state = BUILD_BUILDING;
    }
  else
    job->state = BUILD_CANCELLED;
  g_cond_broadcast (&job->analysed);
  g_mutex_unlock (&job->lock);

  build_worker (&job->args[job->threads - 1]);
  for (guint t = 0; t + 1 < job->threads; t++)
    g_thread_join (job->workers[t]);
  gboolean ok = result && !job->error;
  if (job->error)
    g_propagate_error (error, job->error);
  if (ok)
    {
      g_free (result->inputs.items);
      result->inputs.items = job->passed_inputs;
    }
  else
    g_free (job->passed_inputs);
  g_free (job->args);
  g_free (job->workers);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->analysed);
  g_free (job);
  return ok;
}
