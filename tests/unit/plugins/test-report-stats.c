/* Unit tests of what the report and dot outputs count and how they print
 * it: partition stats on a hand-made split with known answers, agreement
 * with the mincut partitioner's own cut on random DAGs, number formats,
 * DOT quoting and value shapes, and the CSV table. */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "../test-partitioners-graphs.h"
#include "../test-util.h"

#include "dot-text.h"
#include "partition-stats.h"
#include "report-formats.h"
#include "units.h"
#include "acyclic-cut.h"

/* x, w (a parameter read with get_attr) ->
 *   P0: a = relu(x)
 *   P1: b = matmul(a, w)
 *   P2: c = add(a, a) (float16), d = neg(c) (no meta), c2 = mul(d, d)
 *   P3: e = addcmul(c2, b, d)
 * -> output (e, b).  P3's costliest way in is through P2, not P1. */
typedef struct {
  FxsGraph *g;
  FxsSplitResult *result;
} Hand;

static Hand
hand_split (void)
{
  Hand h;
  FxsGraph *g = h.g = fxs_graph_new ();
  static const gint64 wdims[2] = { 8, 8 };
  tp_attr (g, "w", FXS_ATTR_PARAMETER, NULL, 2, wdims);
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  tp_tensor (g, x, "torch.float32", 2, (gint64) 2, (gint64) 8);
  FxsNode *w = tp_node (g, FXS_OP_GET_ATTR, "w", "w", NULL, 0);
  FxsNode *a = tp_call (g, FXS_OP_CALL_FUNCTION, "a", "torch.relu", x, NULL);
  tp_tensor (g, a, "torch.float32", 2, (gint64) 2, (gint64) 8);
  FxsNode *b = tp_call (g, FXS_OP_CALL_FUNCTION, "b", "torch.matmul", a, w, NULL);
  tp_tensor (g, b, "torch.float32", 2, (gint64) 2, (gint64) 8);
  FxsNode *c = tp_call (g, FXS_OP_CALL_FUNCTION, "c", "_operator.add", a, a, NULL);
  tp_tensor (g, c, "torch.float16", 2, (gint64) 2, (gint64) 8);
  FxsNode *d = tp_call (g, FXS_OP_CALL_FUNCTION, "d", "torch.neg", c, NULL);
  FxsNode *c2 = tp_call (g, FXS_OP_CALL_FUNCTION, "c2", "_operator.mul", d, d, NULL);
  tp_tensor (g, c2, "torch.float32", 2, (gint64) 2, (gint64) 8);
  FxsNode *e = tp_call (g, FXS_OP_CALL_FUNCTION, "e", "torch.addcmul", c2, b, d, NULL);
  tp_tensor (g, e, "torch.float32", 2, (gint64) 2, (gint64) 8);
  const FxsValue *outs[2] = { fxs_value_new_node (g, e), fxs_value_new_node (g, b) };
  const FxsValue *ret = fxs_value_new_sequence (g, FXS_VALUE_TUPLE, outs, 2);
  GError *error = NULL;
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &ret, 1), NULL, &error);
  g_assert_no_error (error);
  gint64 ids[10] = { 0 };
  ids[fxs_node_index (b)] = 1;
  ids[fxs_node_index (c)] = ids[fxs_node_index (d)] = ids[fxs_node_index (c2)] = 2;
  ids[fxs_node_index (e)] = 3;
  h.result = fxs_split_with_ids (g, ids, NULL, &error);
  g_assert_no_error (error);
  return h;
}

static void
hand_free (Hand *h)
{
  fxs_split_result_free (h->result);
  fxs_graph_unref (h->g);
}

/* The index of the partition with @id. */
static guint
index_of (const FxsSplitResult *r, gint64 id)
{
  for (guint i = 0; i < fxs_split_result_n_partitions (r); i++)
    if (fxs_partition_id (fxs_split_result_partition (r, i)) == id)
      return i;
  g_assert_not_reached ();
}

static void
test_hand_counts (void)
{
  Hand h = hand_split ();
  PartitionStats *s = partition_stats_new (h.result, FXS_COST_NODES);
  CU_ASSERT_EQUAL (s->n, 4);
  const PartitionStat *p0 = &s->parts[index_of (h.result, 0)];
  const PartitionStat *p1 = &s->parts[index_of (h.result, 1)];
  const PartitionStat *p2 = &s->parts[index_of (h.result, 2)];
  const PartitionStat *p3 = &s->parts[index_of (h.result, 3)];
  /* Costs: one per call node. */
  CU_ASSERT_EQUAL (p0->cost, 1);
  CU_ASSERT_EQUAL (p1->cost, 1);
  CU_ASSERT_EQUAL (p2->cost, 3);
  CU_ASSERT_EQUAL (p3->cost, 1);
  CU_ASSERT_EQUAL (s->total_cost, 6);
  CU_ASSERT_EQUAL (s->max_cost, 3);
  CU_ASSERT_EQUAL (s->n_nodes, 6);
  /* a goes to P1 and P2 (64 bytes each, once per partition although P2
   * uses it twice); b to P3; c2 and the unknown-size d (1 byte) to P3. */
  CU_ASSERT_EQUAL (p0->received, 0);
  CU_ASSERT_EQUAL (p0->sent, 128);
  CU_ASSERT_EQUAL (p1->received, 64);
  CU_ASSERT_EQUAL (p1->sent, 64);
  CU_ASSERT_EQUAL (p2->received, 64);
  CU_ASSERT_EQUAL (p2->sent, 65);
  CU_ASSERT_EQUAL (p3->received, 129);
  CU_ASSERT_EQUAL (p3->sent, 0);
  CU_ASSERT_EQUAL (s->cut_bytes, 257);
  CU_ASSERT_EQUAL (s->n_unknown_bytes, 1);
  /* x (64) to P0; w's 8x8 float32 (256, from the attribute table) to P1. */
  CU_ASSERT_EQUAL (p0->graph_inputs, 64);
  CU_ASSERT_EQUAL (p1->graph_inputs, 256);
  CU_ASSERT_EQUAL (p2->graph_inputs, 0);
  CU_ASSERT_EQUAL (s->graph_input_bytes, 320);
  /* The graph returns e (P3) and b (P1). */
  CU_ASSERT_EQUAL (p1->to_output, 64);
  CU_ASSERT_EQUAL (p3->to_output, 64);
  CU_ASSERT_EQUAL (s->output_bytes, 128);
  /* Edges: P3 takes 65 bytes in 2 values from P2, 64 in 1 from P1. */
  gint64 from_p2 = -1, from_p1 = -1;
  for (guint e = 0; e < s->n_edges; e++)
    if (s->edges[e].to == index_of (h.result, 3))
      {
        if (s->edges[e].from == index_of (h.result, 2))
          {
            from_p2 = s->edges[e].bytes;
            CU_ASSERT_EQUAL (s->edges[e].n_values, 2);
          }
        else if (s->edges[e].from == index_of (h.result, 1))
          from_p1 = s->edges[e].bytes;
      }
  CU_ASSERT_EQUAL (from_p2, 65);
  CU_ASSERT_EQUAL (from_p1, 64);
  CU_ASSERT_EQUAL (s->n_edges, 4);
  /* The critical path: P0 -> P2 -> P3, cost 5; P1 is off it. */
  CU_ASSERT_EQUAL (s->n_critical, 3);
  if (s->n_critical == 3)
    {
      CU_ASSERT_EQUAL (s->critical[0], index_of (h.result, 0));
      CU_ASSERT_EQUAL (s->critical[1], index_of (h.result, 2));
      CU_ASSERT_EQUAL (s->critical[2], index_of (h.result, 3));
    }
  CU_ASSERT_EQUAL (s->critical_cost, 5);
  CU_ASSERT_FALSE (p1->critical);
  CU_ASSERT_TRUE (p2->critical);
  CU_ASSERT_DOUBLE_EQUAL (partition_stats_balance (s), 3.0 / 1.5, 1e-12);
  partition_stats_free (s);
  hand_free (&h);
}

/* The same split costed in flops: no node's flops are unknown... except
 * those the estimator does not know, which the stats report. */
static void
test_hand_unknown_costs (void)
{
  Hand h = hand_split ();
  PartitionStats *s = partition_stats_new (h.result, FXS_COST_FLOPS);
  FxsNodeCosts *costs = fxs_node_costs_new (fxs_split_result_original (h.result),
                                            FXS_COST_FLOPS);
  CU_ASSERT_EQUAL (s->n_unknown_costs, fxs_node_costs_n_unknown (costs));
  CU_ASSERT_EQUAL (s->total_cost, fxs_node_costs_total (costs));
  if (fxs_node_costs_first_unknown (costs))
    CU_ASSERT_STRING_EQUAL (s->first_unknown_cost,
                            fxs_node_name (fxs_node_costs_first_unknown (costs)));
  fxs_node_costs_free (costs);
  partition_stats_free (s);
  hand_free (&h);
}

/* A graph without call nodes: no partitions, nothing to count. */
static void
test_no_partitions (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  tp_output (g, x);
  GError *error = NULL;
  gint64 ids[2] = { 0 };
  FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
  g_assert_no_error (error);
  PartitionStats *s = partition_stats_new (r, FXS_COST_NODES);
  CU_ASSERT_EQUAL (s->n, 0);
  CU_ASSERT_EQUAL (s->n_critical, 0);
  CU_ASSERT_EQUAL (s->cut_bytes + s->graph_input_bytes + s->output_bytes, 0);
  CU_ASSERT_EQUAL (partition_stats_balance (s), 0.0);
  GString *out = g_string_new (NULL);
  report_append_text (out, r, s);
  CU_ASSERT_PTR_NOT_NULL (strstr (out->str, "critical path: none (no partitions)\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (out->str, "balance: - "));
  g_string_free (out, TRUE);
  partition_stats_free (s);
  fxs_split_result_free (r);
  fxs_graph_unref (g);
}

/* On random DAGs split by the mincut algorithm, the stats' cut is the cut
 * mincut minimizes, received and sent agree, and graph inputs are counted
 * once per (input, taking partition). */
static void
test_agrees_with_mincut (void)
{
  GRand *rng = g_rand_new_with_seed (7);
  for (guint round = 0; round < 20; round++)
    {
      FxsGraph *g = tp_random_dag (rng, 50 + round * 17);
      CallDag *dag = call_dag_new (g);
      gint64 *bytes = call_dag_value_bytes (dag, g);
      gint64 *cost = g_new (gint64, dag->n);
      for (guint v = 0; v < dag->n; v++)
        cost[v] = 1;
      AcyclicCutParams params = { .parts = 2 + round % 5, .tolerance = 0.1, .passes = 4,
                                  .seed = round };
      guint32 *part = g_new (guint32, dag->n);
      AcyclicCutStats cut;
      acyclic_cut (dag, cost, bytes, &params, part, &cut);
      gint64 *ids = g_new0 (gint64, fxs_graph_n_nodes (g));
      for (guint v = 0; v < dag->n; v++)
        ids[dag->node_index[v]] = part[v];
      GError *error = NULL;
      FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
      g_assert_no_error (error);

      PartitionStats *s = partition_stats_new (r, FXS_COST_NODES);
      CU_ASSERT_EQUAL (s->cut_bytes, cut.cut);
      CU_ASSERT_EQUAL (s->cut_bytes, call_dag_cut (dag, bytes, part, cut.parts));
      CU_ASSERT_EQUAL (s->max_cost, cut.max_load);
      gint64 received = 0, sent = 0, edges = 0;
      for (guint i = 0; i < s->n; i++)
        {
          received += s->parts[i].received;
          sent += s->parts[i].sent;
        }
      for (guint e = 0; e < s->n_edges; e++)
        edges += s->edges[e].bytes;
      CU_ASSERT_EQUAL (received, s->cut_bytes);
      CU_ASSERT_EQUAL (sent, s->cut_bytes);
      CU_ASSERT_EQUAL (edges, s->cut_bytes);
      /* Graph inputs, counted independently: each placeholder or get_attr
       * once per partition with a call node using it. */
      gint64 inputs = 0;
      for (guint i = 0; i < fxs_graph_n_nodes (g); i++)
        {
          const FxsNode *node = fxs_graph_node (g, i);
          if (fxs_node_op (node) != FXS_OP_PLACEHOLDER && fxs_node_op (node) != FXS_OP_GET_ATTR)
            continue;
          guint8 *taken = g_new0 (guint8, s->n);
          for (guint k = 0; k < fxs_node_n_users (node); k++)
            {
              const FxsPartition *p = fxs_split_result_partition_of (r, fxs_node_user (node, k));
              if (p && !taken[fxs_partition_index (p)]++)
                {
                  gboolean known;
                  inputs += partition_stats_value_bytes (g, node, &known);
                }
            }
          g_free (taken);
        }
      CU_ASSERT_EQUAL (s->graph_input_bytes, inputs);
      /* The critical path follows dependencies and costs what it says. */
      gint64 path = 0;
      for (guint k = 0; k < s->n_critical; k++)
        {
          path += s->parts[s->critical[k]].cost;
          if (k > 0)
            {
              const FxsPartition *p = fxs_split_result_partition (r, s->critical[k]);
              gboolean depends = FALSE;
              for (guint d = 0; d < fxs_partition_n_dependencies (p); d++)
                depends |= fxs_partition_index (fxs_partition_dependency (p, d))
                           == s->critical[k - 1];
              CU_ASSERT_TRUE (depends);
            }
        }
      CU_ASSERT_EQUAL (path, s->critical_cost);
      for (guint i = 0; i < s->n; i++)
        CU_ASSERT_TRUE (s->parts[i].path_cost <= s->critical_cost);

      partition_stats_free (s);
      fxs_split_result_free (r);
      g_free (ids);
      g_free (part);
      g_free (cost);
      g_free (bytes);
      call_dag_free (dag);
      fxs_graph_unref (g);
    }
  g_rand_free (rng);
}

static char *
fmt_bytes (gint64 v)
{
  GString *s = g_string_new (NULL);
  units_append_bytes (s, v);
  return g_string_free (s, FALSE);
}

static char *
fmt_count (gint64 v)
{
  GString *s = g_string_new (NULL);
  units_append_count (s, v);
  return g_string_free (s, FALSE);
}

static char *
fmt_cost (FxsCostKind kind, gint64 v)
{
  GString *s = g_string_new (NULL);
  units_append_cost (s, kind, v);
  return g_string_free (s, FALSE);
}

#define CHECK_FMT(call, expected)                                              \
  do                                                                           \
    {                                                                          \
      char *got_ = (call);                                                     \
      CU_ASSERT_STRING_EQUAL (got_, expected);                                 \
      g_free (got_);                                                           \
    }                                                                          \
  while (0)

static void
test_units (void)
{
  CHECK_FMT (fmt_bytes (0), "0 B");
  CHECK_FMT (fmt_bytes (1023), "1023 B");
  CHECK_FMT (fmt_bytes (1024), "1.0 KiB");
  CHECK_FMT (fmt_bytes (802816), "784.0 KiB");
  CHECK_FMT (fmt_bytes ((gint64) 3 << 29), "1.5 GiB");
  CHECK_FMT (fmt_bytes (G_MAXINT64), "8.0 EiB");
  CHECK_FMT (fmt_count (0), "0");
  CHECK_FMT (fmt_count (999), "999");
  CHECK_FMT (fmt_count (1000), "1,000");
  CHECK_FMT (fmt_count (1234567), "1,234,567");
  CHECK_FMT (fmt_count (-1234), "-1,234");
  CHECK_FMT (fmt_count (G_MININT64), "-9,223,372,036,854,775,808");
  CHECK_FMT (fmt_cost (FXS_COST_NODES, 12345), "12,345");
  CHECK_FMT (fmt_cost (FXS_COST_PARAM_BYTES, 2048), "2.0 KiB");
  CHECK_FMT (fmt_cost (FXS_COST_OUTPUT_BYTES, 10), "10 B");
  CHECK_FMT (fmt_cost (FXS_COST_FLOPS, 999), "999 FLOP");
  CHECK_FMT (fmt_cost (FXS_COST_FLOPS, 1000), "1.00 kFLOP");
  CHECK_FMT (fmt_cost (FXS_COST_FLOPS, 11700), "11.7 kFLOP");
  CHECK_FMT (fmt_cost (FXS_COST_FLOPS, 939000000), "939 MFLOP");
  CHECK_FMT (fmt_cost (FXS_COST_FLOPS, 999600000), "1.00 GFLOP");
  CHECK_FMT (fmt_cost (FXS_COST_FLOPS, 1818000000), "1.82 GFLOP");
  GString *s = g_string_new (NULL);
  units_append_share (s, 1, 3);
  g_string_append_c (s, ' ');
  units_append_share (s, 5, 0);
  CU_ASSERT_STRING_EQUAL (s->str, "33.3% -");
  g_string_free (s, TRUE);
}

static void
test_dot_quoting (void)
{
  GString *s = g_string_new (NULL);
  dot_append_quoted (s, "a \"b\" \\l\nc\td\x7f");
  CU_ASSERT_STRING_EQUAL (s->str, "\"a \\\"b\\\" \\\\l\\nc d \"");
  g_string_truncate (s, 0);
  /* Invalid UTF-8 is replaced, valid multibyte text kept. */
  dot_append_quoted (s, "\xc3\xa9\xff");
  CU_ASSERT_STRING_EQUAL (s->str, "\"\xc3\xa9\xef\xbf\xbd\"");
  g_string_truncate (s, 0);
  /* The palette: fixed, repeating, and backgrounds lighter than fills. */
  dot_append_colour (s, 0, DOT_COLOUR_BORDER);
  g_string_append_c (s, ' ');
  dot_append_colour (s, 10, DOT_COLOUR_BORDER);
  g_string_append_c (s, ' ');
  dot_append_colour (s, 0, DOT_COLOUR_FILL);
  g_string_append_c (s, ' ');
  dot_append_colour (s, 0, DOT_COLOUR_BACKGROUND);
  CU_ASSERT_STRING_EQUAL (s->str, "#4e79a7 #4e79a7 #a7bcd3 #dfe7ef");
  g_string_free (s, TRUE);
}

static void
test_value_shapes (void)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  gint64 dims[2] = { -1, 8 };
  const char *symbols[2] = { "s0", NULL };
  const FxsTensorMeta *t[5];
  for (guint i = 0; i < 5; i++)
    t[i] = fxs_tensor_meta_new (g, 2, dims, symbols, i == 1 ? "torch.int64" : "torch.float32");
  FxsNode *one = tp_call (g, FXS_OP_CALL_FUNCTION, "one", "torch.relu", x, NULL);
  fxs_node_set_tensors (one, t, 1, FALSE);
  FxsNode *pair = tp_call (g, FXS_OP_CALL_FUNCTION, "pair", "torch.split", x, NULL);
  fxs_node_set_tensors (pair, t, 2, TRUE);
  FxsNode *five = tp_call (g, FXS_OP_CALL_FUNCTION, "five", "torch.split", x, NULL);
  fxs_node_set_tensors (five, t, 5, TRUE);
  FxsNode *odd = tp_call (g, FXS_OP_CALL_FUNCTION, "odd", "torch.relu", x, NULL);
  const FxsTensorMeta *q = fxs_tensor_meta_new (g, 0, NULL, NULL, "torch.quint8");
  fxs_node_set_tensors (odd, &q, 1, FALSE);
  tp_output (g, one);

  GString *s = g_string_new (NULL);
  dot_append_value_shape (s, one);
  CU_ASSERT_STRING_EQUAL (s->str, "f32[s0, 8]");
  g_string_truncate (s, 0);
  dot_append_value_shape (s, pair);
  CU_ASSERT_STRING_EQUAL (s->str, "(f32[s0, 8], i64[s0, 8])");
  g_string_truncate (s, 0);
  dot_append_value_shape (s, five);
  CU_ASSERT_STRING_EQUAL (s->str, "(f32[s0, 8], i64[s0, 8], f32[s0, 8], ... 5 in all)");
  g_string_truncate (s, 0);
  dot_append_value_shape (s, odd);
  CU_ASSERT_STRING_EQUAL (s->str, "quint8[]");
  g_string_truncate (s, 0);
  dot_append_value_shape (s, x);
  CU_ASSERT_STRING_EQUAL (s->str, "?");
  g_string_free (s, TRUE);
  fxs_graph_unref (g);
}

/* CSV: raw numbers, the header naming the cost kind, names with commas or
 * quotes quoted, and a total row. */
static void
test_csv (void)
{
  Hand h = hand_split ();
  fxs_split_result_free (h.result);
  FxsSplitOptions *o = fxs_split_options_new ();
  fxs_split_options_set_partition_affix (o, "a,\"b\"");
  gint64 ids[10] = { 0 };
  GError *error = NULL;
  h.result = fxs_split_with_ids (h.g, ids, o, &error);
  g_assert_no_error (error);
  fxs_split_options_free (o);
  PartitionStats *s = partition_stats_new (h.result, FXS_COST_OUTPUT_BYTES);
  GString *out = g_string_new (NULL);
  report_append_csv (out, h.result, s);
  CU_ASSERT_STRING_EQUAL (out->str,
    "partition,submodule,nodes,inputs,outputs,cost_output_bytes,share,received_bytes,"
    "sent_bytes,graph_input_bytes,output_bytes,critical_path\r\n"
    "\"a,\"\"b\"\"_0\",\"submod_a,\"\"b\"\"_0\",6,2,2,288,1.000000,0,0,320,128,1\r\n"
    "total,,6,2,2,288,1.000000,0,0,320,128,\r\n");
  g_string_free (out, TRUE);
  partition_stats_free (s);
  hand_free (&h);
}

static void
register_tests (void)
{
  static const FxsTestCase stats[] = {
    FXS_TEST (test_hand_counts),
    FXS_TEST (test_hand_unknown_costs),
    FXS_TEST (test_no_partitions),
    FXS_TEST (test_agrees_with_mincut),
    { NULL, NULL },
  };
  static const FxsTestCase text[] = {
    FXS_TEST (test_units),
    FXS_TEST (test_dot_quoting),
    FXS_TEST (test_value_shapes),
    FXS_TEST (test_csv),
    { NULL, NULL },
  };
  fxs_test_add_suite ("partition stats", stats);
  fxs_test_add_suite ("formats", text);
}

FXS_TEST_MAIN (register_tests)
