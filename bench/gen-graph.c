/* gen-graph: writes a synthetic, residual-network-like torch.fx graph of
 * exactly N nodes as a graph file (docs/graph-format.md, version 1).
 *
 * The structure is a pure function of (seed, N): every per-block decision
 * comes from a hash of the seed and the block number, so the attribute table
 * (written first) and the nodes (written second) agree without holding the
 * graph in memory.  Output is streamed; a 10^7-node graph is ~2 GB on disk
 * and a few KiB in memory.
 *
 * Shape of the graph:
 *   x, y, scale (placeholders; scale is a float with default 1.0)
 *   add = x + y
 *   blocks, grouped in stages of BLOCKS_PER_STAGE with one width each:
 *     [downsample_b = layers.b.downsample(h)]   at a width change
 *     fc_b = layers.b.fc(h); relu_b = torch.relu(fc_b)
 *     norm_b = layers.b.norm(relu_b)            LayerNorm or BatchNorm1d
 *     layers_b_scale = get_attr layers.b.scale; mul_b = norm_b * layers_b_scale
 *     view_b = mul_b.view(B, w/16, 16); clamp_b = view_b.clamp(min=0.0[, max=6.0])
 *     [chunk_b = clamp_b.chunk(2, dim=-1); getitem_b, getitem_b_1;
 *      cat_b = torch.cat([getitem_b, getitem_b_1], dim=-1)]   tuple blocks
 *     flatten_b = t.flatten(1); add_b = flatten_b + skip
 *     [skip_b = add_b + output of block b-4]    long residuals
 *   relu_tail_k (fill up to exactly N), head = head(h), mul = head * scale, output
 *
 * With --stages=K every call node also gets meta "stage": its contiguous
 * partition, so that `fxsplit split --partitioner map --option
 * meta_key=stage` cuts the graph as bench-split does.
 */
#include <fxsplit/fxsplit.h>
#include "util/atomic-file.h"
#include <glib/gstdio.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 32
#define BLOCKS_PER_STAGE 16
#define LONG_SKIP_DISTANCE 4
#define PROLOGUE_NODES 4      /* x, y, scale, add */
#define EPILOGUE_NODES 3      /* head, mul, output */
#define HEAD_FEATURES 10
#define MIN_BLOCK_NODES 9
#define NAME_MAX_LEN 48

static const guint stage_widths[] = { 64, 128, 256, 512 };

typedef struct {
  guint64 seed;
  guint64 n_nodes;
  guint64 stages;       /* > 0: tag call nodes with meta "stage" (contiguous) */
} GenParams;

/* Everything about one block, derived from (seed, block number) alone. */
typedef struct {
  guint64 index;
  guint width;
  guint in_width;
  gboolean downsample;  /* the width changes: project the skip path */
  gboolean batchnorm;   /* BatchNorm1d (with buffers) instead of LayerNorm */
  gboolean clamp_max;   /* clamp(min=0.0, max=6.0) instead of clamp(min=0.0) */
  gboolean tuple;       /* chunk -> getitem x2 -> cat */
  gboolean long_skip;   /* extra residual add from block index - LONG_SKIP_DISTANCE */
  guint n_nodes;
} BlockPlan;

typedef struct {
  FILE *out;
  const GenParams *params;
  guint64 written_nodes;
  guint64 written_attrs;
  gboolean node_is_call;  /* the node being written */
} Writer;

/* ---- deterministic structure ---------------------------------------------- */

static guint64
splitmix64 (guint64 x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static guint
stage_width (guint64 block)
{
  return stage_widths[(block / BLOCKS_PER_STAGE) % G_N_ELEMENTS (stage_widths)];
}

static void
plan_block (const GenParams *p, guint64 b, BlockPlan *plan)
{
  guint64 h = splitmix64 (splitmix64 (p->seed) ^ b);
  memset (plan, 0, sizeof *plan);
  plan->index = b;
  plan->width = stage_width (b);
  plan->in_width = b == 0 ? stage_widths[0] : stage_width (b - 1);
  plan->downsample = plan->width != plan->in_width;
  plan->batchnorm = (h & 3) == 0;
  plan->clamp_max = ((h >> 2) & 3) == 0;
  plan->tuple = ((h >> 4) & 3) == 0;
  plan->long_skip = ((h >> 6) & 7) == 0 && b % BLOCKS_PER_STAGE >= LONG_SKIP_DISTANCE;
  plan->n_nodes = MIN_BLOCK_NODES + (plan->downsample ? 1 : 0) + (plan->tuple ? 4 : 0)
                  + (plan->long_skip ? 1 : 0);
}

/* The name of the node that holds block @b's result. */
static const char *
block_output_name (const GenParams *p, guint64 b, char buf[NAME_MAX_LEN])
{
  BlockPlan plan;
  plan_block (p, b, &plan);
  g_snprintf (buf, NAME_MAX_LEN, "%s_%" G_GUINT64_FORMAT, plan.long_skip ? "skip" : "add", b);
  return buf;
}

/* How many whole blocks fit, and how many tail nodes fill the rest. */
static void
count_blocks (const GenParams *p, guint64 *n_blocks, guint64 *n_tail)
{
  guint64 budget = p->n_nodes - PROLOGUE_NODES - EPILOGUE_NODES;
  guint64 b = 0;
  for (;;)
    {
      BlockPlan plan;
      plan_block (p, b, &plan);
      if (plan.n_nodes > budget)
        break;
      budget -= plan.n_nodes;
      b++;
    }
  *n_blocks = b;
  *n_tail = budget;
}

/* ---- JSON pieces ------------------------------------------------------------ */

static void
write_shape (Writer *w, const guint *dims, guint rank)
{
  fputc ('[', w->out);
  for (guint d = 0; d < rank; d++)
    fprintf (w->out, d ? ",%u" : "%u", dims[d]);
  fputc (']', w->out);
}

/* Separates attribute table entries: no comma before the first. */
static void
attr_begin (Writer *w)
{
  fputs (w->written_attrs ? ",\n" : "\n", w->out);
  w->written_attrs++;
}

static void
write_tensor_attr (Writer *w, const char *kind, const char *qualname, const char *suffix,
                   const guint *dims, guint rank, const char *dtype)
{
  attr_begin (w);
  fprintf (w->out, "\"%s%s\":{\"kind\":\"%s\",\"shape\":", qualname, suffix, kind);
  write_shape (w, dims, rank);
  fprintf (w->out, ",\"dtype\":\"%s\"}", dtype);
}

static void
write_module_attr (Writer *w, const char *qualname, const char *class_name)
{
  attr_begin (w);
  fprintf (w->out, "\"%s\":{\"kind\":\"module\",\"class\":\"%s\"}", qualname, class_name);
}

/* Layers followed by a norm have no bias, as convolutions in residual
 * networks usually do. */
static void
write_linear_attrs (Writer *w, const char *qualname, guint in_features, guint out_features,
                    gboolean bias)
{
  write_module_attr (w, qualname, "torch.nn.modules.linear.Linear");
  guint weight[2] = { out_features, in_features };
  write_tensor_attr (w, "parameter", qualname, ".weight", weight, 2, "torch.float32");
  if (bias)
    write_tensor_attr (w, "parameter", qualname, ".bias", &out_features, 1, "torch.float32");
}

/* Starts a node: name, op and target. */
static void
node_begin_no_args (Writer *w, const char *name, const char *op, const char *target)
{
  fprintf (w->out, "%s{\"name\":\"%s\",\"op\":\"%s\",\"target\":\"%s\"",
           w->written_nodes ? ",\n" : "\n", name, op, target);
  w->written_nodes++;
  w->node_is_call = g_str_has_prefix (op, "call_");
}

/* The "stage" meta entry of a call node: node index * stages / nodes, the
 * contiguous assignment bench-split uses, for the map partitioner's
 * meta_key option. */
static void
write_stage (Writer *w)
{
  const GenParams *p = w->params;
  if (p->stages && w->node_is_call)
    fprintf (w->out, ",\"stage\":%" G_GUINT64_FORMAT,
             (w->written_nodes - 1) * p->stages / p->n_nodes);
}

/* Starts a node and opens its "args" (closed by node_end). */
static void
node_begin (Writer *w, const char *name, const char *op, const char *target)
{
  node_begin_no_args (w, name, op, target);
  fputs (",\"args\":[", w->out);
}

/* Writes the raw @kwargs object (NULL for none) and the meta of one tensor
 * of shape @dims (rank 0 for no tensor meta), and closes the node. */
static void
node_finish (Writer *w, const char *kwargs, const guint *dims, guint rank)
{
  if (kwargs)
    fprintf (w->out, ",\"kwargs\":%s", kwargs);
  if (rank)
    {
      fputs (",\"meta\":{\"tensor\":{\"shape\":", w->out);
      write_shape (w, dims, rank);
      fputs (",\"dtype\":\"torch.float32\"}", w->out);
      write_stage (w);
      fputc ('}', w->out);
    }
  fputc ('}', w->out);
}

/* Closes "args" and finishes the node. */
static void
node_end (Writer *w, const char *kwargs, const guint *dims, guint rank)
{
  fputc (']', w->out);
  node_finish (w, kwargs, dims, rank);
}

static void
write_ref (Writer *w, gboolean first, const char *name)
{
  fprintf (w->out, "%s{\"node\":\"%s\"}", first ? "" : ",", name);
}

/* A node whose args are exactly the references @a (and @b, unless NULL). */
static void
write_simple_node (Writer *w, const char *name, const char *op, const char *target,
                   const char *a, const char *b, const guint *dims, guint rank)
{
  node_begin (w, name, op, target);
  write_ref (w, TRUE, a);
  if (b)
    write_ref (w, FALSE, b);
  node_end (w, NULL, dims, rank);
}

/* ---- the graph ------------------------------------------------------------------ */

static void
write_block_attrs (Writer *w, const BlockPlan *plan)
{
  char q[NAME_MAX_LEN];
  guint64 b = plan->index;
  guint width = plan->width;
  if (plan->downsample)
    {
      g_snprintf (q, sizeof q, "layers.%" G_GUINT64_FORMAT ".downsample", b);
      write_linear_attrs (w, q, plan->in_width, width, FALSE);
    }
  g_snprintf (q, sizeof q, "layers.%" G_GUINT64_FORMAT ".fc", b);
  write_linear_attrs (w, q, plan->in_width, width, FALSE);
  g_snprintf (q, sizeof q, "layers.%" G_GUINT64_FORMAT ".norm", b);
  if (plan->batchnorm)
    {
      write_module_attr (w, q, "torch.nn.modules.batchnorm.BatchNorm1d");
      write_tensor_attr (w, "parameter", q, ".weight", &width, 1, "torch.float32");
      write_tensor_attr (w, "parameter", q, ".bias", &width, 1, "torch.float32");
      write_tensor_attr (w, "buffer", q, ".running_mean", &width, 1, "torch.float32");
      write_tensor_attr (w, "buffer", q, ".running_var", &width, 1, "torch.float32");
      write_tensor_attr (w, "buffer", q, ".num_batches_tracked", NULL, 0, "torch.int64");
    }
  else
    write_module_attr (w, q, "torch.nn.modules.normalization.LayerNorm");
  g_snprintf (q, sizeof q, "layers.%" G_GUINT64_FORMAT, b);
  write_tensor_attr (w, "parameter", q, ".scale", &width, 1, "torch.float32");
}

static void
write_block_nodes (Writer *w, const GenParams *p, const BlockPlan *plan, const char *input)
{
  char name[NAME_MAX_LEN], target[NAME_MAX_LEN], prev[NAME_MAX_LEN], skip[NAME_MAX_LEN];
  guint64 b = plan->index;
  guint flat[2] = { BATCH, plan->width };
  guint grid[3] = { BATCH, plan->width / 16, 16 };
  guint half[3] = { BATCH, plan->width / 16, 8 };

#define NAME(buf, fmt) g_snprintf (buf, sizeof buf, fmt, b)
  g_strlcpy (skip, input, sizeof skip);
  if (plan->downsample)
    {
      NAME (skip, "downsample_%" G_GUINT64_FORMAT);
      NAME (target, "layers.%" G_GUINT64_FORMAT ".downsample");
      write_simple_node (w, skip, "call_module", target, input, NULL, flat, 2);
    }

  NAME (name, "fc_%" G_GUINT64_FORMAT);
  NAME (target, "layers.%" G_GUINT64_FORMAT ".fc");
  write_simple_node (w, name, "call_module", target, input, NULL, flat, 2);
  g_strlcpy (prev, name, sizeof prev);

  NAME (name, "relu_%" G_GUINT64_FORMAT);
  write_simple_node (w, name, "call_function", "torch.relu", prev, NULL, flat, 2);
  g_strlcpy (prev, name, sizeof prev);

  NAME (name, "norm_%" G_GUINT64_FORMAT);
  NAME (target, "layers.%" G_GUINT64_FORMAT ".norm");
  write_simple_node (w, name, "call_module", target, prev, NULL, flat, 2);
  g_strlcpy (prev, name, sizeof prev);

  char param[NAME_MAX_LEN];
  NAME (param, "layers_%" G_GUINT64_FORMAT "_scale");
  NAME (target, "layers.%" G_GUINT64_FORMAT ".scale");
  node_begin_no_args (w, param, "get_attr", target);
  node_finish (w, NULL, &plan->width, 1);

  NAME (name, "mul_%" G_GUINT64_FORMAT);
  write_simple_node (w, name, "call_function", "_operator.mul", prev, param, flat, 2);
  g_strlcpy (prev, name, sizeof prev);

  NAME (name, "view_%" G_GUINT64_FORMAT);
  node_begin (w, name, "call_method", "view");
  write_ref (w, TRUE, prev);
  fprintf (w->out, ",%u,%u,16", BATCH, plan->width / 16);
  node_end (w, NULL, grid, 3);
  g_strlcpy (prev, name, sizeof prev);

  NAME (name, "clamp_%" G_GUINT64_FORMAT);
  node_begin (w, name, "call_method", "clamp");
  write_ref (w, TRUE, prev);
  node_end (w, plan->clamp_max ? "{\"min\":0.0,\"max\":6.0}" : "{\"min\":0.0}", grid, 3);
  g_strlcpy (prev, name, sizeof prev);

  if (plan->tuple)
    {
      char chunk[NAME_MAX_LEN], first[NAME_MAX_LEN], second[NAME_MAX_LEN];
      NAME (chunk, "chunk_%" G_GUINT64_FORMAT);
      node_begin (w, chunk, "call_method", "chunk");
      write_ref (w, TRUE, prev);
      fputs (",2]", w->out);
      fputs (",\"kwargs\":{\"dim\":-1},\"meta\":{\"tensors\":[", w->out);
      for (guint k = 0; k < 2; k++)
        {
          fputs (k ? ",{\"shape\":" : "{\"shape\":", w->out);
          write_shape (w, half, 3);
          fputs (",\"dtype\":\"torch.float32\"}", w->out);
        }
      fputc (']', w->out);
      write_stage (w);
      fputs ("}}", w->out);

      NAME (first, "getitem_%" G_GUINT64_FORMAT);
      NAME (second, "getitem_%" G_GUINT64_FORMAT "_1");
      for (guint k = 0; k < 2; k++)
        {
          node_begin (w, k ? second : first, "call_function", "_operator.getitem");
          write_ref (w, TRUE, chunk);
          fprintf (w->out, ",%u", k);
          node_end (w, NULL, half, 3);
        }

      NAME (name, "cat_%" G_GUINT64_FORMAT);
      node_begin (w, name, "call_function", "torch.cat");
      fputc ('[', w->out);
      write_ref (w, TRUE, first);
      write_ref (w, FALSE, second);
      fputc (']', w->out);
      node_end (w, "{\"dim\":-1}", grid, 3);
      g_strlcpy (prev, name, sizeof prev);
    }

  NAME (name, "flatten_%" G_GUINT64_FORMAT);
  node_begin (w, name, "call_method", "flatten");
  write_ref (w, TRUE, prev);
  fputs (",1", w->out);
  node_end (w, NULL, flat, 2);
  g_strlcpy (prev, name, sizeof prev);

  NAME (name, "add_%" G_GUINT64_FORMAT);
  write_simple_node (w, name, "call_function", "_operator.add", prev, skip, flat, 2);

  if (plan->long_skip)
    {
      char earlier[NAME_MAX_LEN];
      g_strlcpy (prev, name, sizeof prev);
      NAME (name, "skip_%" G_GUINT64_FORMAT);
      block_output_name (p, b - LONG_SKIP_DISTANCE, earlier);
      write_simple_node (w, name, "call_function", "_operator.add", prev, earlier, flat, 2);
    }
#undef NAME
}

static void
write_graph (Writer *w, const GenParams *p)
{
  guint64 n_blocks, n_tail;
  count_blocks (p, &n_blocks, &n_tail);
  guint last_width = n_blocks ? stage_width (n_blocks - 1) : stage_widths[0];

  fputs ("{\"format\":\"fxsplit-graph\",\"version\":1,\n\"attributes\":{", w->out);
  for (guint64 b = 0; b < n_blocks; b++)
    {
      BlockPlan plan;
      plan_block (p, b, &plan);
      write_block_attrs (w, &plan);
    }
  write_linear_attrs (w, "head", last_width, HEAD_FEATURES, TRUE);
  fputs ("},\n\"nodes\":[", w->out);

  guint in_dims[2] = { BATCH, stage_widths[0] };
  guint head_dims[2] = { BATCH, HEAD_FEATURES };
  for (guint k = 0; k < 2; k++)
    {
      const char *name = k ? "y" : "x";
      node_begin_no_args (w, name, "placeholder", name);
      node_finish (w, NULL, in_dims, 2);
    }
  node_begin (w, "scale", "placeholder", "scale");
  fputs ("1.0],\"type\":\"float\"}", w->out);
  write_simple_node (w, "add", "call_function", "_operator.add", "x", "y", in_dims, 2);

  char h[NAME_MAX_LEN] = "add";
  for (guint64 b = 0; b < n_blocks; b++)
    {
      BlockPlan plan;
      plan_block (p, b, &plan);
      write_block_nodes (w, p, &plan, h);
      block_output_name (p, b, h);
    }

  guint tail_dims[2] = { BATCH, last_width };
  for (guint64 k = 0; k < n_tail; k++)
    {
      char name[NAME_MAX_LEN];
      g_snprintf (name, sizeof name, "relu_tail_%" G_GUINT64_FORMAT, k);
      write_simple_node (w, name, "call_function", "torch.relu", h, NULL, tail_dims, 2);
      g_strlcpy (h, name, sizeof h);
    }

  write_simple_node (w, "head", "call_module", "head", h, NULL, head_dims, 2);
  write_simple_node (w, "mul", "call_function", "_operator.mul", "head", "scale", head_dims, 2);
  write_simple_node (w, "output", "output", "output", "mul", NULL, head_dims, 2);
  fprintf (w->out, "],\n\"x-generator\":{\"tool\":\"gen-graph\",\"seed\":%" G_GUINT64_FORMAT
           ",\"nodes\":%" G_GUINT64_FORMAT ",\"blocks\":%" G_GUINT64_FORMAT "}}\n",
           p->seed, p->n_nodes, n_blocks);
}

/* ---- command line ---------------------------------------------------------- */

/* Accepts "1000000" and "1e6". */
static gboolean
parse_count (const char *text, const char *what, guint64 min, guint64 max, guint64 *out,
             GError **error)
{
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (text, &end);
  /* Range first: casting an out-of-range double to an integer is undefined. */
  if (errno || end == text || *end || !(v >= (double) min && v <= (double) max)
      || v != (double) (guint64) v)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "%s: '%s' is not a whole number from %" G_GUINT64_FORMAT
                   " to %" G_GUINT64_FORMAT, what, text, min, max);
      return FALSE;
    }
  *out = (guint64) v;
  return TRUE;
}

int
main (int argc, char **argv)
{
  char *nodes_text = NULL;
  char *seed_text = NULL;
  char *stages_text = NULL;
  GOptionEntry entries[] = {
    { "nodes", 'n', 0, G_OPTION_ARG_STRING, &nodes_text, "Number of nodes (e.g. 1000 or 1e6)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_STRING, &seed_text, "Seed of the structure (default 1)", "S" },
    { "stages", 0, 0, G_OPTION_ARG_STRING, &stages_text,
      "Tag call node i with meta \"stage\": i*K/N (default: no tag)", "K" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  GOptionContext *ctx = g_option_context_new ("OUTPUT.json");
  g_option_context_set_summary (ctx, "Writes a synthetic residual-network-like torch.fx graph "
                                     "of exactly N nodes as an fxsplit graph file.\n"
                                     "Prints one JSON line with what it wrote.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  GError *error = NULL;
  GenParams params = { .seed = 1, .n_nodes = 0 };
  int status = 1;

  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    goto out;
  if (argc != 2 || !nodes_text)
    {
      g_set_error (&error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "usage: gen-graph --nodes=N [--seed=S] [--stages=K] OUTPUT.json");
      goto out;
    }
  guint64 min_nodes = PROLOGUE_NODES + EPILOGUE_NODES + MIN_BLOCK_NODES;
  if (!parse_count (nodes_text, "--nodes", min_nodes, G_MAXUINT32, &params.n_nodes, &error))
    goto out;
  if (seed_text && !parse_count (seed_text, "--seed", 0, G_MAXUINT32, &params.seed, &error))
    goto out;
  if (stages_text
      && !parse_count (stages_text, "--stages", 1, params.n_nodes, &params.stages, &error))
    goto out;

  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  FxsAtomicFile *file = fxs_atomic_file_open (argv[1], &error);
  if (!file)
    goto out;
  Writer w = { .out = fxs_atomic_file_stream (file), .params = &params };
  write_graph (&w, &params);
  if (!fxs_atomic_file_commit (file, &error))
    goto out;
  clock_gettime (CLOCK_MONOTONIC, &t1);
  GStatBuf st;  /* the stream cannot tell its position (util/atomic-file.c) */
  long bytes = g_stat (argv[1], &st) == 0 ? (long) st.st_size : -1;
  g_assert (w.written_nodes == params.n_nodes);

  double seconds = (double) (t1.tv_sec - t0.tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0.tv_nsec);
  printf ("{\"tool\":\"gen-graph\",\"seed\":%" G_GUINT64_FORMAT
          ",\"nodes\":%" G_GUINT64_FORMAT ",\"attributes\":%" G_GUINT64_FORMAT
          ",\"bytes\":%ld,\"bytes_per_node\":%.1f,\"seconds\":%.3f}\n",
          params.seed, w.written_nodes, w.written_attrs, bytes,
          (double) bytes / (double) w.written_nodes, seconds);
  status = 0;

out:
  if (error)
    fprintf (stderr, "gen-graph: %s\n", error->message);
  g_clear_error (&error);
  g_free (nodes_text);
  g_free (seed_text);
  g_free (stages_text);
  g_option_context_free (ctx);
  return status;
}
