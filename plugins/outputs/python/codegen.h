/* The forward code of one graph, exactly as torch.fx 1.13 prints it as
 * GraphModule.code (CodeGen._gen_python_code with root_module "self"). */
#ifndef FXS_PY_CODEGEN_H
#define FXS_PY_CODEGEN_H

#include <glib.h>
#include <fxsplit/graph.h>

/* Appends the code text of @graph to @out.  Fails with FXS_ERROR_GRAPH,
 * naming the node, on graphs torch.fx could not print either: a
 * call_function target that is neither a qualified name nor a builtin, an
 * operator with fewer arguments than its syntax takes, a call_method
 * without its self argument, an output node without its value. */
gboolean fxs_py_codegen (const FxsGraph *graph, GString *out, GError **error);

/* Sets @out to the call_function target as torch.fx 1.13 names the
 * function: "builtins.getattr" is the builtin "getattr" and "operator.add"
 * is "_operator.add" (the operator module re-exports _operator's
 * functions). */
void fxs_py_canonical_function (const char *target, GString *out);

/* Whether @node calls a function registered with torch.fx.wrap (its meta
 * entry "is_wrapped" is true): torch.fx then prints a wrap() call for it
 * before the function. */
gboolean fxs_py_node_is_wrapped (const FxsNode *node);

#endif
