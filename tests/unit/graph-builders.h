/* Test helpers: graphs written as the text tests/oracle/fxdump.py prints,
 * one node per line:
 *
 *   <op> <name> <target> <args>[ <kwargs>]
 *
 * e.g. "call_method clamp clamp (linear,) {'min': 0.0, 'max': 1.0}".
 * Values are Python reprs: None, True, False, ints, floats, 'strings',
 * tuples, lists, dicts; a bare name is the node of that name, a dotted
 * name not naming a node is an opaque constant ("torch.float64"). */
#ifndef FXS_TEST_GRAPH_BUILDERS_H
#define FXS_TEST_GRAPH_BUILDERS_H

#include <fxsplit/fxsplit.h>

/* A new graph from @text (lines as above; blank lines ignored).  Aborts
 * the test program on a malformed line: the test itself is wrong then. */
FxsGraph *fxs_test_graph_new (const char *text);

/* Adds attribute-table entries: "name:kind[:class]" separated by spaces,
 * e.g. "param:parameter linear:module:torch.nn.modules.linear.Linear". */
void fxs_test_add_attrs (FxsGraph *graph, const char *spec);

/* Partition ids for fxs_split_with_ids from "name=id name=id ...": one
 * entry per call node (others get 0).  Free with g_free. */
gint64 *fxs_test_ids (const FxsGraph *graph, const char *spec);

/* The graph's lines in the same format. */
void fxs_test_dump_graph (const FxsGraph *graph, GString *out);

/* A split result as the oracle prints it: "--- top", the top-level graph,
 * "--- <submodule>" and its graph for each partition in call order, then
 * "--- qualname_map" with "new -> old" lines when the map is not empty.
 * Free with g_free. */
char *fxs_test_dump_split (const FxsSplitResult *result);

/* Compares two texts; prints both to stderr when they differ. */
gboolean fxs_test_text_equal (const char *actual, const char *expected);

/* set_grad_enabled(False), then an autocast region around neg and sin:
 * the engine's and verify's tests of global state share it. */
extern const char fxs_test_global_state_graph[];

#endif
