/* fxsplit inspect GRAPH.json: a summary of a graph file. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const char *target;
  guint count;
} TargetCount;

static gint
by_count_then_name (gconstpointer a, gconstpointer b)
{
  const TargetCount *x = a, *y = b;
  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return strcmp (x->target, y->target);
}

static void
print_ops (const FxsGraph *graph)
{
  printf ("nodes by op:\n");
  for (FxsOp op = FXS_OP_PLACEHOLDER; op <= FXS_OP_OUTPUT; op++)
    {
      guint n = fxs_graph_count_op (graph, op);
      if (n)
        printf ("  %-14s %u\n", fxs_op_to_string (op), n);
    }
}

/* Call targets, most frequent first (ties by name). */
static void
print_targets (const FxsGraph *graph)
{
  GHashTable *index = g_hash_table_new (g_str_hash, g_str_equal);
  GArray *counts = g_array_new (FALSE, FALSE, sizeof (TargetCount));
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      FxsOp op = fxs_node_op (node);
      if (op != FXS_OP_CALL_FUNCTION && op != FXS_OP_CALL_METHOD && op != FXS_OP_CALL_MODULE)
        continue;
      gpointer slot;
      if (g_hash_table_lookup_extended (index, fxs_node_target (node), NULL, &slot))
        g_array_index (counts, TargetCount, GPOINTER_TO_UINT (slot)).count++;
      else
        {
          TargetCount tc = { fxs_node_target (node), 1 };
          g_hash_table_insert (index, (gpointer) tc.target, GUINT_TO_POINTER (counts->len));
          g_array_append_val (counts, tc);
        }
    }
  g_array_sort (counts, by_count_then_name);
  if (counts->len)
    printf ("call targets (%u distinct):\n", counts->len);
  for (guint i = 0; i < counts->len; i++)
    {
      const TargetCount *tc = &g_array_index (counts, TargetCount, i);
      printf ("  %-30s %u\n", tc->target, tc->count);
    }
  g_array_free (counts, TRUE);
  g_hash_table_unref (index);
}

static void
print_attributes (const FxsGraph *graph)
{
  guint n = fxs_graph_n_attrs (graph);
  guint by_kind[FXS_ATTR_OBJECT + 1] = { 0 };
  gint64 bytes[FXS_ATTR_OBJECT + 1] = { 0 };
  for (guint i = 0; i < n; i++)
    {
      const FxsAttr *a = fxs_graph_attr (graph, i);
      by_kind[fxs_attr_kind (a)]++;
      if (fxs_attr_kind (a) != FXS_ATTR_MODULE)
        bytes[fxs_attr_kind (a)] += fxs_attr_bytes (a);
    }
  printf ("attributes: %u\n", n);
  for (FxsAttrKind k = FXS_ATTR_PARAMETER; k <= FXS_ATTR_OBJECT; k++)
    {
      if (!by_kind[k])
        continue;
      if (k == FXS_ATTR_MODULE || k == FXS_ATTR_OBJECT)
        printf ("  %-10s %u\n", fxs_attr_kind_to_string (k), by_kind[k]);
      else
        {
          char *b = cli_format_bytes (bytes[k]);
          printf ("  %-10s %u, %s\n", fxs_attr_kind_to_string (k), by_kind[k], b);
          g_free (b);
        }
    }
}

/* "[2, s0] torch.float32" for the node's first tensor, or "". */
static char *
describe_value (const FxsNode *node)
{
  GString *s = g_string_new (NULL);
  if (fxs_node_type (node))
    g_string_append_printf (s, " %s", fxs_node_type (node));
  for (guint t = 0; t < fxs_node_n_tensors (node); t++)
    {
      const FxsTensorMeta *m = fxs_node_tensor (node, t);
      g_string_append (s, t ? ", [" : " [");
      for (guint d = 0; d < fxs_tensor_rank (m); d++)
        {
          if (d)
            g_string_append (s, ", ");
          if (fxs_tensor_dim_symbol (m, d))
            g_string_append (s, fxs_tensor_dim_symbol (m, d));
          else
            g_string_append_printf (s, "%" G_GINT64_FORMAT, fxs_tensor_dim (m, d));
        }
      g_string_append_printf (s, "] %s", fxs_tensor_dtype (m) ? fxs_tensor_dtype (m) : "");
    }
  return g_string_free (s, FALSE);
}

static void
print_output_ref (const FxsNode *node, gpointer data)
{
  (void) data;
  char *v = describe_value (node);
  printf ("  %s%s\n", fxs_node_name (node), v);
  g_free (v);
}

static void
print_inputs_outputs (const FxsGraph *graph)
{
  printf ("inputs:\n");
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      if (fxs_node_op (node) != FXS_OP_PLACEHOLDER)
        continue;
      char *v = describe_value (node);
      printf ("  %s%s\n", fxs_node_target (node), v);
      g_free (v);
    }
  const FxsNode *output = fxs_graph_output_node (graph);
  if (!output)
    return;
  printf ("outputs:\n");
  fxs_value_foreach_node (fxs_node_args (output), print_output_ref, NULL);
}

int
cli_cmd_inspect (int argc, char **argv)
{
  CliCommon common = { 0 };
  char *submodule = NULL;
  const GOptionEntry entries[] = {
    { "submodule", 0, 0, G_OPTION_ARG_STRING, &submodule,
      "Summarize submodule NAME of GRAPH.json (a split result) instead of its top level",
      "NAME" },
    { NULL },
  };
  GOptionContext *context = g_option_context_new ("GRAPH.json - summarize a graph file");
  g_option_context_set_summary (context,
    "Prints the nodes by op and by call target, the attributes and their bytes,\n"
    "and the graph's inputs and outputs.");
  cli_add_common_options (context, &common);
  g_option_context_add_main_entries (context, entries, NULL);
  int code = CLI_EXIT_USAGE;
  if (!cli_parse (context, &argc, &argv))
    goto out;
  if (argc != 2)
    {
      cli_fail (CLI_EXIT_USAGE, "inspect: expected one graph file, got %d arguments (see --help)",
                argc - 1);
      goto out;
    }
  GError *error = NULL;
  FxsGraph *graph = submodule ? fxs_graph_load_submodule_file (argv[1], submodule, &error)
                              : fxs_graph_load_file (argv[1], &error);
  if (!graph)
    {
      code = cli_fail_error (CLI_EXIT_GRAPH, error);
      goto out;
    }
  printf ("%s: %u nodes, %u inputs, %u attributes\n", argv[1], fxs_graph_n_nodes (graph),
          fxs_graph_count_op (graph, FXS_OP_PLACEHOLDER), fxs_graph_n_attrs (graph));
  print_ops (graph);
  print_targets (graph);
  print_attributes (graph);
  print_inputs_outputs (graph);
  fxs_graph_unref (graph);
  code = CLI_EXIT_OK;
out:
  g_free (submodule);
  cli_common_clear (&common);
  g_option_context_free (context);
  return code;
}
