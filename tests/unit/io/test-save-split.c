/* Unit tests of split result writing: a torch export saved and split,
 * each submodule loads as its partition's graph, the text written to a
 * string and to a file is the same, and shared metadata is written again. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <string.h>

#include "save-cases.h"

/* A file PyTorch's exporter wrote survives load, save, load unchanged, and
 * its second writing is byte for byte the first. */
static void
test_torch_export_round_trip (void)
{
  char *path = g_build_filename (FXS_TEST_DATA_DIR, "load", "torch-export.json", NULL);
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  g_free (path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (g, text);
  FxsGraph *back = reload (text);
  CU_ASSERT_PTR_NOT_NULL_FATAL (back);
  assert_graphs_equal (g, back);
  GString *again = g_string_new (NULL);
  fxs_graph_to_json (back, again);
  CU_ASSERT_STRING_EQUAL (again->str, text->str);
  g_string_free (again, TRUE);
  g_string_free (text, TRUE);
  fxs_graph_unref (back);
  fxs_graph_unref (g);
}

/* A split result written out: its top level loads as the top-level graph,
 * each submodule as its partition's graph, and the partition table and
 * qualname map say what the accessors say. */
static void
test_split_result (void)
{
  char *path = g_build_filename (FXS_TEST_DATA_DIR, "load", "torch-export.json", NULL);
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  g_free (path);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  /* the two blocks in partitions 0 and 1, the rest in 2 */
  guint n = fxs_graph_n_nodes (g);
  gint64 *ids = g_new0 (gint64, n);
  for (guint i = 0; i < n; i++)
    ids[i] = i < 6 ? 0 : i < 10 ? 1 : 2;
  FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
  g_free (ids);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  CU_ASSERT_EQUAL_FATAL (fxs_split_result_n_partitions (r), 3);

  char *dir = g_dir_make_tmp ("fxs-save-XXXXXX", NULL);
  char *file = g_build_filename (dir, "split.json", NULL);
  CU_ASSERT_TRUE (fxs_split_result_save_file (r, file, &error));
  GString *text = g_string_new (NULL);
  fxs_split_result_to_json (r, text);
  char *contents = NULL;
  CU_ASSERT_TRUE (g_file_get_contents (file, &contents, NULL, NULL));
  CU_ASSERT_STRING_EQUAL (contents, text->str);
  g_free (contents);

  FxsGraph *top = fxs_graph_load_file (file, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (top);
  assert_graphs_equal (fxs_split_result_top (r), top);
  fxs_graph_unref (top);
  for (guint i = 0; i < fxs_split_result_n_partitions (r); i++)
    {
      const FxsPartition *p = fxs_split_result_partition (r, i);
      FxsGraph *sub = fxs_graph_load_submodule_file (file, fxs_partition_submod_name (p), &error);
      CU_ASSERT_PTR_NOT_NULL_FATAL (sub);
      assert_graphs_equal (fxs_partition_graph (p), sub);
      fxs_graph_unref (sub);

      /* the partition table entry, as the format spells it */
      GString *entry = g_string_new (NULL);
      g_string_append_printf (entry, "{\"name\": \"%s\", \"id\": %" G_GINT64_FORMAT ", \"submodule\": \"%s\", "
                              "\"nodes\": [", fxs_partition_name (p), fxs_partition_id (p),
                              fxs_partition_submod_name (p));
      for (guint k = 0; k < fxs_partition_n_nodes (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "", fxs_node_name (fxs_partition_node (p, k)));
      g_string_append (entry, "], \"inputs\": [");
      for (guint k = 0; k < fxs_partition_n_inputs (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "", fxs_node_name (fxs_partition_input (p, k)));
      g_string_append (entry, "], \"outputs\": [");
      for (guint k = 0; k < fxs_partition_n_outputs (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "", fxs_node_name (fxs_partition_output (p, k)));
      g_string_append (entry, "], \"dependencies\": [");
      for (guint k = 0; k < fxs_partition_n_dependencies (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "",
                                fxs_partition_name (fxs_partition_dependency (p, k)));
      g_string_append (entry, "], \"dependents\": [");
      for (guint k = 0; k < fxs_partition_n_dependents (p); k++)
        g_string_append_printf (entry, "%s\"%s\"", k ? ", " : "",
                                fxs_partition_name (fxs_partition_dependent (p, k)));
      g_string_append (entry, "]}");
      CU_ASSERT_PTR_NOT_NULL (strstr (text->str, entry->str));
      g_string_free (entry, TRUE);
    }
  /* partition 1 takes block 0's output and gives block 1's to partition 2 */
  const FxsPartition *p1 = fxs_split_result_partition (r, 1);
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (fxs_partition_dependency (p1, 0)), "0");
  CU_ASSERT_STRING_EQUAL (fxs_partition_name (fxs_partition_dependent (p1, 0)), "2");
  CU_ASSERT_PTR_NOT_NULL (strstr (text->str, "\"nodes\": [\"blocks_1_linear\", \"relu_1\", \"add_1\", \"blocks_1_norm\"]"));

  for (guint i = 0; i < fxs_split_result_n_qualnames (r); i++)
    {
      const char *new_name, *old_name;
      fxs_split_result_qualname (r, i, &new_name, &old_name);
      char *member = g_strdup_printf ("\n    \"%s\": \"%s\"", new_name, old_name);
      CU_ASSERT_PTR_NOT_NULL (strstr (text->str, member));
      g_free (member);
    }
  CU_ASSERT_TRUE (fxs_split_result_n_qualnames (r) > 0);
  CU_ASSERT_PTR_NULL (error);

  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
  g_string_free (text, TRUE);
  fxs_split_result_free (r);
  fxs_graph_unref (g);
}

/* A chain of additions of a parameter each, in @n_parts contiguous
 * partitions; one node carries a string longer than the writer's buffer. */
static FxsSplitResult *
split_chain (FxsGraph **graph, guint n, guint n_parts, gsize long_string)
{
  FxsGraph *g = fxs_graph_new ();
  GError *error = NULL;
  const FxsNode *prev = fxs_graph_add_node (g, FXS_OP_PLACEHOLDER, "x", "x", NULL, NULL, &error);
  char *big = g_malloc (long_string + 1);
  memset (big, 'y', long_string);
  big[long_string] = '\0';
  if (long_string)
    big[long_string / 2] = '"';
  for (guint i = 0; i < n; i++)
    {
      char *attr = g_strdup_printf ("layers.%u.weight", i);
      char *get = g_strdup_printf ("w%u", i);
      char *name = g_strdup_printf ("add_%u", i);
      gint64 dims[] = { 4, (gint64) i + 1 };
      fxs_graph_add_attr (g, attr, FXS_ATTR_PARAMETER, NULL,
                          fxs_tensor_meta_new (g, 2, dims, NULL, "torch.float32"), &error);
      const FxsNode *w = fxs_graph_add_node (g, FXS_OP_GET_ATTR, get, attr, NULL, NULL, &error);
      const FxsValue *args[] = { fxs_value_new_node (g, prev), fxs_value_new_node (g, w),
                                 fxs_value_new_string (g, i == n / 3 ? big : "s\xc3\xa9") };
      prev = fxs_graph_add_node (g, FXS_OP_CALL_FUNCTION, name, "operator.add",
                                 fxs_value_new_sequence (g, FXS_VALUE_TUPLE, args, 3), NULL,
                                 &error);
      g_free (attr);
      g_free (get);
      g_free (name);
    }
  const FxsValue *out = fxs_value_new_node (g, prev);
  fxs_graph_add_node (g, FXS_OP_OUTPUT, "output", "output",
                      fxs_value_new_sequence (g, FXS_VALUE_TUPLE, &out, 1), NULL, &error);
  g_assert_no_error (error);
  g_free (big);
  guint total = fxs_graph_n_nodes (g);
  gint64 *ids = g_new0 (gint64, total);
  for (guint i = 0; i < total; i++)
    ids[i] = (gint64) (i * n_parts / total);
  FxsSplitResult *r = fxs_split_with_ids (g, ids, NULL, &error);
  g_assert_no_error (error);
  g_free (ids);
  *graph = g;
  return r;
}

/* A split result written to a string and to a file is the same text,
 * also with a string longer than the writer's buffer (written straight
 * through), and reads back as the same result. */
static void
test_split_result_string_and_file (void)
{
  static const struct { guint n, parts; gsize long_string; } graphs[] = {
    { 1, 1, 0 }, { 40, 3, 0 }, { 300, 7, 0 }, { 60, 4, 5 << 20 },
  };
  for (guint gi = 0; gi < G_N_ELEMENTS (graphs); gi++)
    {
      FxsGraph *g;
      FxsSplitResult *r = split_chain (&g, graphs[gi].n, graphs[gi].parts, graphs[gi].long_string);
      GString *text = g_string_new (NULL);
      fxs_split_result_to_json (r, text);
      FILE *f = tmpfile ();
      CU_ASSERT_PTR_NOT_NULL_FATAL (f);
      fxs_split_result_write_json (r, f);
      long size = ftell (f);
      CU_ASSERT_EQUAL (size, (long) text->len);
      char *bytes = g_malloc (size > 0 ? (gsize) size : 1);
      rewind (f);
      CU_ASSERT_EQUAL (fread (bytes, 1, (gsize) size, f), (gsize) size);
      CU_ASSERT_TRUE (size == (long) text->len && memcmp (bytes, text->str, text->len) == 0);
      fclose (f);
      g_free (bytes);
      GError *error = NULL;
      FxsGraph *back = fxs_graph_load_data (text->str, text->len, "result.json", &error);
      CU_ASSERT_PTR_NOT_NULL (back);
      g_clear_error (&error);
      if (back)
        fxs_graph_unref (back);
      g_string_free (text, TRUE);
      fxs_split_result_free (r);
      fxs_graph_unref (g);
    }
}

/* A graph whose nodes have metas[order[i]] (@rounds times over @order),
 * read and written again: the same text. */
static void
check_written_again (char **metas, const guint *order, guint n, guint rounds)
{
  GString *text = g_string_new ("{\n  \"format\": \"fxsplit-graph\",\n  \"version\": 1,\n"
                                "  \"attributes\": {},\n  \"nodes\": [");
  for (guint i = 0; i < n * rounds; i++)
    g_string_append_printf (text, "%s{\"name\": \"p%u\", \"op\": \"placeholder\", "
                            "\"target\": \"p%u\", \"meta\": %s}", i ? ",\n    " : "\n    ",
                            i, i, metas[order[i % n]]);
  g_string_append (text, ",\n    {\"name\": \"output\", \"op\": \"output\", "
                   "\"target\": \"output\", \"args\": [null]}\n  ]\n}\n");
  FxsGraph *g = reload (text);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  /* the loader shares equal metadata: the writer has copies to make */
  CU_ASSERT_PTR_EQUAL (fxs_node_meta (fxs_graph_lookup_node (g, "p0")),
                       fxs_node_meta (fxs_graph_lookup_node (g, "p2")));
  GString *again = g_string_new (NULL);
  fxs_graph_to_json (g, again);
  CU_ASSERT_TRUE (g_string_equal (again, text));
  g_string_free (again, TRUE);
  g_string_free (text, TRUE);
  fxs_graph_unref (g);
}

static void
test_shared_meta_written_again (void)
{
  /* metadata shared by nodes is written once and then copied: in an order
   * that evicts copies and brings them back, with one too long to keep and
   * one that refers to a node; the text read back and written again is the
   * same */
  char *long_tag = g_strnfill (300, 'm');
  char *metas[] = { g_strdup ("{\"stage\": 1}"), g_strdup ("{\"stage\": 2}"),
                    g_strdup ("{\"tensor\": {\"shape\": [2, 3], \"dtype\": \"torch.float32\"}}"),
                    g_strdup ("{\"stage\": 3}"), g_strdup ("{\"stage\": 4}"),
                    g_strdup_printf ("{\"tag\": \"%s\"}", long_tag),
                    g_strdup ("{\"from\": {\"node\": \"p0\"}}") };
  static const guint order[] = { 0, 1, 0, 2, 3, 4, 5, 0, 5, 6, 1, 6, 2, 2, 0 };
  check_written_again (metas, order, G_N_ELEMENTS (order), 1);
  /* 20,000 nodes with metas of ~200 bytes: the writer's 256 KiB buffer is
   * written out in the middle of some, which are then not kept */
  char *tag = g_strnfill (180, 't');
  for (guint i = 0; i < G_N_ELEMENTS (metas); i++)
    {
      g_free (metas[i]);
      metas[i] = g_strdup_printf ("{\"tag\": \"%s\", \"i\": %u}", tag, i);
    }
  check_written_again (metas, order, G_N_ELEMENTS (order), 20000 / G_N_ELEMENTS (order));
  for (guint i = 0; i < G_N_ELEMENTS (metas); i++)
    g_free (metas[i]);
  g_free (tag);
  g_free (long_tag);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_torch_export_round_trip),
    FXS_TEST (test_split_result),
    FXS_TEST (test_split_result_string_and_file),
    FXS_TEST (test_shared_meta_written_again),
    { NULL, NULL },
  };
  fxs_test_add_suite ("saving split results", cases);
}

FXS_TEST_MAIN (register_tests)
