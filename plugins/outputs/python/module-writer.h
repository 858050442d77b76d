/* The Python module the python output writes for a split result. */
#ifndef FXS_PY_MODULE_WRITER_H
#define FXS_PY_MODULE_WRITER_H

#include <stdio.h>
#include <fxsplit/split.h>

/* Writes to @out a Python module (UTF-8) that defines
 *
 *   build(original_module) -> torch.fx.GraphModule   the split module
 *   CODE          {"": top-level code, "submod_0": ..., ...} as torch.fx
 *                 1.13 prints GraphModule.code
 *   QUALNAME_MAP  {"submod_0.linear": "linear", ...}
 *   check_code(split_module) -> names whose code differs from CODE
 *
 * Fails with FXS_ERROR_GRAPH (the graph and node named) when torch.fx
 * could not print one of the graphs.  Write errors are left to the caller
 * (ferror). */
gboolean fxs_py_write_module (const FxsSplitResult *result, FILE *out, GError **error);

#endif
