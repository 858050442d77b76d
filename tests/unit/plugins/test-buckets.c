/* DDPOptimizer's bucketing (plugins/common/buckets.c) on hand-made graphs:
 * where buckets close, parameters counted once, the first bucket's cap, a
 * bucket that grows past its cap until a node of it is used outside it,
 * the preamble without parameters, and graphs with no parameters or no
 * nodes.  tests/torch/buckets checks it against the rule applied by torch
 * to torchvision models. */
#include <string.h>

#include "buckets.h"
#include "units.h"
#include "../graph-builders.h"
#include "../test-partitioners-graphs.h"
#include "../test-util.h"

/* A Linear module @name with a [@rows, 4] float32 weight (16 x @rows bytes). */
static void
linear (FxsGraph *g, const char *name, gint64 rows)
{
  gint64 dims[2] = { rows, 4 };
  tp_attr (g, name, FXS_ATTR_MODULE, "torch.nn.modules.linear.Linear", 0, NULL);
  char *w = g_strconcat (name, ".weight", NULL);
  tp_attr (g, w, FXS_ATTR_PARAMETER, NULL, 2, dims);
  g_free (w);
  /* a buffer is not a parameter: never counted */
  char *b = g_strconcat (name, ".running", NULL);
  tp_attr (g, b, FXS_ATTR_BUFFER, NULL, 2, dims);
  g_free (b);
}

/* "name=id ..." of the call nodes, and the bytes per bucket as "a,b,..". */
static void
check (const FxsGraph *g, gint64 cap, gint64 first_cap, guint n_expected, const char *ids,
       const char *bytes)
{
  gint64 *got = g_new0 (gint64, fxs_graph_n_nodes (g) + 1);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint n = buckets_assign (g, cap, first_cap, got, sizes);
  GString *text = g_string_new (NULL), *btext = g_string_new (NULL);
  for (guint i = 0; i < fxs_graph_n_nodes (g); i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      FxsOp op = fxs_node_op (node);
      if (op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE)
        g_string_append_printf (text, "%s%s=%" G_GINT64_FORMAT, text->len ? " " : "",
                                fxs_node_name (node), got[i]);
    }
  for (guint b = 0; b < sizes->len; b++)
    g_string_append_printf (btext, "%s%" G_GINT64_FORMAT, b ? "," : "",
                            g_array_index (sizes, gint64, b));
  CU_ASSERT_EQUAL (n, n_expected);
  CU_ASSERT_EQUAL (sizes->len, n);
  CU_ASSERT_TRUE (fxs_test_text_equal (text->str, ids));
  CU_ASSERT_TRUE (fxs_test_text_equal (btext->str, bytes));
  g_string_free (text, TRUE);
  g_string_free (btext, TRUE);
  g_array_free (sizes, TRUE);
  g_free (got);
}

/* x [-> relu] -> l1 -> l2 -> l3, weights 64, 128, 256 bytes; the output
 * returns l3's value, or l2's when not @returns_last (l3's then has no
 * user). */
static FxsGraph *
chain (gboolean relu, gboolean returns_last)
{
  FxsGraph *g = fxs_graph_new ();
  linear (g, "l1", 4);
  linear (g, "l2", 8);
  linear (g, "l3", 16);
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  FxsNode *r = relu ? tp_call (g, FXS_OP_CALL_FUNCTION, "relu", "torch.relu", x, NULL) : x;
  FxsNode *a = tp_call (g, FXS_OP_CALL_MODULE, "l1", "l1", r, NULL);
  FxsNode *b = tp_call (g, FXS_OP_CALL_MODULE, "l2", "l2", a, NULL);
  FxsNode *c = tp_call (g, FXS_OP_CALL_MODULE, "l3", "l3", b, NULL);
  tp_output (g, returns_last ? c : b);
  return g;
}

static void
test_caps (void)
{
  FxsGraph *g = chain (TRUE, TRUE);
  /* Everything fits one bucket. */
  check (g, 1 << 20, 1 << 20, 1, "relu=0 l1=0 l2=0 l3=0", "448");
  /* The first bucket closes at 256 (l3), the next at 192 (l2 + l1). */
  check (g, 192, 192, 2, "relu=0 l1=0 l2=0 l3=1", "192,256");
  /* A cap smaller than any parameter: one bucket per parameter; the
   * preamble (relu, no parameters) joins l1's bucket. */
  check (g, 1, 1, 3, "relu=0 l1=0 l2=1 l3=2", "64,128,256");
  check (g, 0, 0, 3, "relu=0 l1=0 l2=1 l3=2", "64,128,256");
  /* The first cap closes l3's bucket, the others hold everything else. */
  check (g, 1 << 20, 100, 2, "relu=0 l1=0 l2=0 l3=1", "192,256");
  /* The cap is reached exactly: l2 + l3 = 384 closes there. */
  check (g, 384, 384, 2, "relu=0 l1=0 l2=1 l3=1", "64,384");
  fxs_graph_unref (g);
}

static void
test_shared_parameter_counted_once (void)
{
  /* One module called twice and one parameter read by two get_attr nodes:
   * each counts at its last use in graph order, once. */
  FxsGraph *g = fxs_graph_new ();
  linear (g, "l1", 4);      /* 64 bytes */
  static const gint64 dims[2] = { 8, 4 };
  tp_attr (g, "w", FXS_ATTR_PARAMETER, NULL, 2, dims);   /* 128 bytes */
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  FxsNode *w1 = tp_node (g, FXS_OP_GET_ATTR, "w1", "w", NULL, 0);
  FxsNode *a = tp_call (g, FXS_OP_CALL_FUNCTION, "mm1", "torch.mm", x, w1, NULL);
  FxsNode *b = tp_call (g, FXS_OP_CALL_MODULE, "la", "l1", a, NULL);
  FxsNode *w2 = tp_node (g, FXS_OP_GET_ATTR, "w2", "w", NULL, 0);
  FxsNode *c = tp_call (g, FXS_OP_CALL_FUNCTION, "mm2", "torch.mm", b, w2, NULL);
  FxsNode *d = tp_call (g, FXS_OP_CALL_MODULE, "lb", "l1", c, NULL);
  tp_output (g, d);
  /* Reverse: lb (64) closes; mm2, w2 (128) closes; la and w1 add 0, so
   * the front bucket (mm1, la) has no bytes and joins w's. */
  check (g, 1, 1, 2, "mm1=0 la=0 mm2=0 lb=1", "128,64");
  check (g, 1 << 20, 1 << 20, 1, "mm1=0 la=0 mm2=0 lb=0", "192");
  fxs_graph_unref (g);
}

static void
test_grows_until_used_outside (void)
{
  /* l3's result is used by nobody (the output returns l2's): its bucket
   * is full after l3 but has no external output, so l2 joins it; then
   * the bucket is used by the output and closes. */
  FxsGraph *g = chain (FALSE, FALSE);
  check (g, 1, 1, 2, "l1=0 l2=1 l3=1", "64,384");
  fxs_graph_unref (g);
}

static void
test_no_parameters_and_empty (void)
{
  FxsGraph *g = fxs_graph_new ();
  check (g, 1, 1, 1, "", "0");
  FxsNode *x = tp_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, 0);
  FxsNode *a = tp_call (g, FXS_OP_CALL_FUNCTION, "relu", "torch.relu", x, NULL);
  FxsNode *b = tp_call (g, FXS_OP_CALL_METHOD, "add", "add", a, x, NULL);
  tp_output (g, b);
  check (g, 0, 0, 1, "relu=0 add=0", "0");
  fxs_graph_unref (g);
}

/* The sizes of the cap options (and of balanced's capacity). */
static void
test_sizes (void)
{
  static const struct { const char *text; gint64 bytes; } good[] = {
    { "0", 0 }, { "4096", 4096 }, { " 512 B ", 512 }, { "1.5kB", 1500 }, { "25MiB", 25 << 20 },
    { "16 GiB", G_GINT64_CONSTANT (16) << 30 }, { "2TB", G_GINT64_CONSTANT (2000000000000) },
    { "1TiB", G_GINT64_CONSTANT (1) << 40 }, { "0.5B", 0 }, { ".5KiB", 512 }, { "10MB", 10000000 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      gint64 bytes = -1;
      CU_ASSERT_TRUE (units_parse_bytes (good[i].text, &bytes));
      CU_ASSERT_EQUAL (bytes, good[i].bytes);
    }
  static const char *const bad[] = { "", " ", "-1", "+1", "1e3", "0x10", "inf", "nan", "1 XB",
                                     "1mib", "MiB", "1..5", "1,5", "1 MiB B", "4194305TiB" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      gint64 bytes = -1;
      CU_ASSERT_FALSE (units_parse_bytes (bad[i], &bytes));
    }
  gint64 bytes;
  CU_ASSERT_FALSE (units_parse_bytes (NULL, &bytes));
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_sizes),
    FXS_TEST (test_caps),
    FXS_TEST (test_shared_parameter_counted_once),
    FXS_TEST (test_grows_until_used_outside),
    FXS_TEST (test_no_parameters_and_empty),
    { NULL, NULL },
  };
  fxs_test_add_suite ("buckets", cases);
}

FXS_TEST_MAIN (register_tests)
