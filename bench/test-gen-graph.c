/* Tests of bench/gen-graph: the graphs it writes load, have exactly the
 * requested size and the promised structure, are deterministic per seed,
 * and split the way the benchmarks assume (contiguous stages work,
 * round-robin makes a cycle).  GEN_GRAPH names the program under test. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "../tests/unit/test-util.h"

typedef struct {
  char *dir;
  char *path;
} TempGraph;

/* Runs gen-graph with @args (a NULL-terminated list); its exit status. */
static int
run_gen_graph (const char *const *args, char **err_out)
{
  const char *exe = g_getenv ("GEN_GRAPH");
  CU_ASSERT_PTR_NOT_NULL_FATAL (exe);
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) exe);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  int status = -1;
  GError *error = NULL;
  gboolean ok = g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                              NULL, NULL, NULL, err_out, &status, &error);
  g_ptr_array_free (argv, TRUE);
  CU_ASSERT_TRUE_FATAL (ok);
  CU_ASSERT_TRUE_FATAL (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static FxsGraph *
generate (TempGraph *t, const char *nodes, const char *seed, const char *stages)
{
  t->dir = g_dir_make_tmp ("gen-graph-XXXXXX", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (t->dir);
  t->path = g_build_filename (t->dir, "g.json", NULL);
  char *n_arg = g_strdup_printf ("--nodes=%s", nodes);
  char *s_arg = g_strdup_printf ("--seed=%s", seed);
  char *k_arg = g_strdup_printf ("--stages=%s", stages ? stages : "");
  const char *args[] = { n_arg, s_arg, t->path, NULL, NULL };
  if (stages)
    args[3] = k_arg;
  CU_ASSERT_EQUAL (run_gen_graph (args, NULL), 0);
  g_free (n_arg);
  g_free (s_arg);
  g_free (k_arg);
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (t->path, &error);
  if (error)
    fprintf (stderr, "%s\n", error->message);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  return g;
}

static void
temp_graph_clear (TempGraph *t)
{
  g_unlink (t->path);
  g_rmdir (t->dir);
  g_free (t->path);
  g_free (t->dir);
}

static gboolean
is_call (const FxsNode *node)
{
  FxsOp op = fxs_node_op (node);
  return op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE;
}

static void
test_exact_sizes (void)
{
  static const char *const sizes[] = { "16", "17", "1000", "1e4", "12345" };
  static const guint expected[] = { 16, 17, 1000, 10000, 12345 };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      TempGraph t;
      FxsGraph *g = generate (&t, sizes[i], "3", NULL);
      CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), expected[i]);
      CU_ASSERT_PTR_NOT_NULL (fxs_graph_output_node (g));
      CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_OUTPUT), 1);
      fxs_graph_unref (g);
      temp_graph_clear (&t);
    }
}

static void
test_structure (void)
{
  TempGraph t;
  FxsGraph *g = generate (&t, "5000", "1", NULL);
  guint n = fxs_graph_n_nodes (g);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_PLACEHOLDER), 3);
  CU_ASSERT_TRUE (fxs_graph_count_op (g, FXS_OP_GET_ATTR) > 100);
  CU_ASSERT_TRUE (fxs_graph_count_op (g, FXS_OP_CALL_MODULE) > 100);
  CU_ASSERT_TRUE (fxs_graph_count_op (g, FXS_OP_CALL_METHOD) > 100);
  CU_ASSERT_TRUE (fxs_graph_count_op (g, FXS_OP_CALL_FUNCTION) > 100);

  guint tuples = 0, getitems = 0, residual_adds = 0, clamps = 0, buffers = 0;
  for (guint i = 0; i < n; i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      FxsOp op = fxs_node_op (node);
      const char *target = fxs_node_target (node);
      if (op == FXS_OP_GET_ATTR || op == FXS_OP_CALL_MODULE)
        {
          const FxsAttr *attr = fxs_graph_lookup_attr (g, target);
          CU_ASSERT_PTR_NOT_NULL_FATAL (attr);
          CU_ASSERT_EQUAL (fxs_attr_kind (attr),
                           op == FXS_OP_GET_ATTR ? FXS_ATTR_PARAMETER : FXS_ATTR_MODULE);
        }
      /* Tensor meta everywhere but on the float placeholder. */
      if (strcmp (fxs_node_name (node), "scale") != 0)
        CU_ASSERT_TRUE (fxs_node_n_tensors (node) >= 1);
      if (fxs_node_value_is_tuple (node))
        {
          tuples++;
          CU_ASSERT_EQUAL (fxs_node_n_users (node), 2);
          for (guint u = 0; u < fxs_node_n_users (node); u++)
            CU_ASSERT_STRING_EQUAL (fxs_node_target (fxs_node_user (node, u)),
                                    "_operator.getitem");
        }
      getitems += op == FXS_OP_CALL_FUNCTION && strcmp (target, "_operator.getitem") == 0;
      if (op == FXS_OP_CALL_FUNCTION && strcmp (target, "_operator.add") == 0)
        residual_adds++;
      if (op == FXS_OP_CALL_METHOD && strcmp (target, "clamp") == 0)
        {
          clamps++;
          const FxsValue *min = fxs_value_dict_lookup (fxs_node_kwargs (node), "min");
          CU_ASSERT_PTR_NOT_NULL_FATAL (min);
          CU_ASSERT_EQUAL (fxs_value_kind (min), FXS_VALUE_FLOAT);
        }
    }
  for (guint a = 0; a < fxs_graph_n_attrs (g); a++)
    buffers += fxs_attr_kind (fxs_graph_attr (g, a)) == FXS_ATTR_BUFFER;
  CU_ASSERT_TRUE (tuples > 10);
  CU_ASSERT_EQUAL (getitems, 2 * tuples);
  CU_ASSERT_TRUE (residual_adds > clamps);  /* block adds, long skips and the input add */
  CU_ASSERT_TRUE (buffers > 10);

  /* ~180-230 bytes per node is what the benchmarks document. */
  GStatBuf st;
  CU_ASSERT_EQUAL_FATAL (g_stat (t.path, &st), 0);
  double per_node = (double) st.st_size / n;
  CU_ASSERT_TRUE (per_node > 150 && per_node < 250);
  fxs_graph_unref (g);
  temp_graph_clear (&t);
}

static char *
file_contents (const char *path)
{
  char *text = NULL;
  CU_ASSERT_TRUE (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
test_deterministic (void)
{
  TempGraph a, b, c;
  fxs_graph_unref (generate (&a, "3000", "5", NULL));
  fxs_graph_unref (generate (&b, "3000", "5", NULL));
  fxs_graph_unref (generate (&c, "3000", "6", NULL));
  char *ta = file_contents (a.path), *tb = file_contents (b.path), *tc = file_contents (c.path);
  CU_ASSERT_STRING_EQUAL (ta, tb);
  CU_ASSERT_STRING_NOT_EQUAL (ta, tc);
  g_free (ta);
  g_free (tb);
  g_free (tc);
  temp_graph_clear (&a);
  temp_graph_clear (&b);
  temp_graph_clear (&c);
}

static void
test_stages_and_splits (void)
{
  TempGraph t;
  FxsGraph *g = generate (&t, "4000", "2", "8");
  guint n = fxs_graph_n_nodes (g);
  gint64 *contiguous = g_new0 (gint64, n);
  gint64 *round_robin = g_new0 (gint64, n);
  guint calls = 0;
  for (guint i = 0; i < n; i++)
    {
      const FxsNode *node = fxs_graph_node (g, i);
      const FxsValue *stage = fxs_node_meta_lookup (node, "stage");
      contiguous[i] = (gint64) i * 8 / n;
      if (!is_call (node))
        {
          CU_ASSERT_PTR_NULL (stage);
          continue;
        }
      round_robin[i] = calls++ % 8;
      CU_ASSERT_PTR_NOT_NULL_FATAL (stage);
      CU_ASSERT_EQUAL (fxs_value_get_int (stage), contiguous[i]);
    }

  GError *error = NULL;
  FxsSplitResult *r = fxs_split_with_ids (g, contiguous, NULL, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  CU_ASSERT_EQUAL (fxs_split_result_n_partitions (r), 8);
  for (guint i = 0; i < 8; i++)
    CU_ASSERT_EQUAL (fxs_partition_id (fxs_split_result_partition (r, i)), i);
  fxs_split_result_free (r);

  CU_ASSERT_PTR_NULL (fxs_split_with_ids (g, round_robin, NULL, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_CYCLE));
  g_clear_error (&error);
  g_free (contiguous);
  g_free (round_robin);
  fxs_graph_unref (g);
  temp_graph_clear (&t);
}

static void
test_bad_arguments (void)
{
  char *dir = g_dir_make_tmp ("gen-graph-XXXXXX", NULL);
  char *out = g_build_filename (dir, "g.json", NULL);
  const char *const cases[][4] = {
    { "--nodes=15", out, NULL },
    { "--nodes=1.5", out, NULL },
    { "--nodes=abc", out, NULL },
    { "--nodes=100", "--seed=-1", out, NULL },
    { "--nodes=100", "--stages=0", out, NULL },
    { "--nodes=100", NULL },
    { "--nodes=100", "/nonexistent-dir/g.json", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *err = NULL;
      CU_ASSERT_EQUAL (run_gen_graph (cases[i], &err), 1);
      /* One line that says what is wrong. */
      CU_ASSERT_TRUE (g_str_has_prefix (err, "gen-graph: "));
      CU_ASSERT_PTR_NOT_NULL (strchr (err, '\n'));
      CU_ASSERT_EQUAL (strchr (err, '\n')[1], '\0');
      g_free (err);
    }
  /* Nothing written, not even a temporary file. */
  GDir *d = g_dir_open (dir, 0, NULL);
  CU_ASSERT_PTR_NULL (g_dir_read_name (d));
  g_dir_close (d);
  g_rmdir (dir);
  g_free (out);
  g_free (dir);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_exact_sizes),
    FXS_TEST (test_structure),
    FXS_TEST (test_deterministic),
    FXS_TEST (test_stages_and_splits),
    FXS_TEST (test_bad_arguments),
    { NULL, NULL },
  };
  fxs_test_add_suite ("gen-graph", cases);
}

FXS_TEST_MAIN (register_tests)
