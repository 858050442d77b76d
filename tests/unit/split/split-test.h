/* What the splitting engine's unit tests share (test-split*.c). */
#ifndef FXS_TEST_SPLIT_H
#define FXS_TEST_SPLIT_H

#include <fxsplit/fxsplit.h>
#include <string.h>

#include "../graph-builders.h"
#include "../test-util.h"

typedef struct {
  FxsGraph *graph;
  FxsSplitResult *result;
  GError *error;
} Split;

/* Splits @g (which the split takes over) by "name=id" @ids. */
static inline Split
split_graph (FxsGraph *g, const char *ids, const FxsSplitOptions *options)
{
  gint64 *id_array = fxs_test_ids (g, ids);
  Split s = { g, NULL, NULL };
  s.result = fxs_split_with_ids (g, id_array, options, &s.error);
  g_free (id_array);
  return s;
}

static inline Split
split_ids (const char *graph_text, const char *attrs, const char *ids,
           const FxsSplitOptions *options)
{
  FxsGraph *g = fxs_test_graph_new (graph_text);
  fxs_test_add_attrs (g, attrs);
  return split_graph (g, ids, options);
}

static inline void
split_clear (Split *s)
{
  fxs_split_result_free (s->result);
  fxs_graph_unref (s->graph);
  g_clear_error (&s->error);
}

static inline void
check_dump (const Split *s, const char *expected)
{
  if (s->error)
    fprintf (stderr, "\nsplit failed: %s\n", s->error->message);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s->result);
  char *dump = fxs_test_dump_split (s->result);
  CU_ASSERT_TRUE (fxs_test_text_equal (dump, expected));
  g_free (dump);
}

/* Splits, compares with the oracle's sections, frees. */
static inline void
check_split (const char *graph_text, const char *attrs, const char *ids,
             const FxsSplitOptions *options, const char *expected)
{
  Split s = split_ids (graph_text, attrs, ids, options);
  check_dump (&s, expected);
  split_clear (&s);
}

/* Original node names in a partition list, space separated. */
static inline char *
node_names (const FxsPartition *p, guint (*count) (const FxsPartition *),
            const FxsNode *(*item) (const FxsPartition *, guint))
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < count (p); i++)
    g_string_append_printf (s, "%s%s", i ? " " : "", fxs_node_name (item (p, i)));
  return g_string_free (s, FALSE);
}

static inline void
check_partition (const FxsPartition *p, const char *nodes, const char *inputs,
                 const char *outputs)
{
  char *n = node_names (p, fxs_partition_n_nodes, fxs_partition_node);
  char *i = node_names (p, fxs_partition_n_inputs, fxs_partition_input);
  char *o = node_names (p, fxs_partition_n_outputs, fxs_partition_output);
  CU_ASSERT_TRUE (fxs_test_text_equal (n, nodes));
  CU_ASSERT_TRUE (fxs_test_text_equal (i, inputs));
  CU_ASSERT_TRUE (fxs_test_text_equal (o, outputs));
  g_free (n);
  g_free (i);
  g_free (o);
}

/* The attribute table as "name:kind[:class]" entries. */
static inline char *
attr_table (const FxsGraph *g)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < fxs_graph_n_attrs (g); i++)
    {
      const FxsAttr *a = fxs_graph_attr (g, i);
      g_string_append_printf (s, "%s%s:%s", i ? " " : "", fxs_attr_name (a),
                              fxs_attr_kind_to_string (fxs_attr_kind (a)));
      if (fxs_attr_class (a))
        g_string_append_printf (s, ":%s", fxs_attr_class (a));
    }
  return g_string_free (s, FALSE);
}

static inline void
check_attrs (const FxsGraph *g, const char *expected)
{
  char *table = attr_table (g);
  CU_ASSERT_TRUE (fxs_test_text_equal (table, expected));
  g_free (table);
}

static inline void
check_error (const Split *s, int code, const char *message)
{
  CU_ASSERT_PTR_NULL (s->result);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s->error);
  CU_ASSERT_TRUE (g_error_matches (s->error, FXS_ERROR, code));
  CU_ASSERT_TRUE (fxs_test_text_equal (s->error->message, message));
}

static inline FxsNode *
node (FxsGraph *g, const char *name)
{
  return (FxsNode *) fxs_graph_lookup_node (g, name);
}

/* A chain of four calls, two per partition (used by several files). */
G_GNUC_UNUSED static const char chain_graph[] =
  "placeholder x x ()\n"
  "call_function relu torch.relu (x,)\n"
  "call_function neg torch.neg (relu,)\n"
  "call_function sin torch.sin (neg,)\n"
  "call_function cos torch.cos (sin,)\n"
  "output output output (cos,)\n";
G_GNUC_UNUSED static const char chain_ids[] = "relu=0 neg=0 sin=1 cos=1";

#endif
