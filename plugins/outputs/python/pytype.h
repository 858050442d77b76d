/* Type annotations as torch.fx 1.13's CodeGen.type_repr prints them. */
#ifndef FXS_PY_TYPE_H
#define FXS_PY_TYPE_H

#include <glib.h>
#include "pynamespace.h"

/* Registers torch.fx's custom builtins (inf, nan, NoneType, torch, device,
 * fx_pytree, pytree) as globals of @ns, as _gen_python_code does first. */
void fxs_py_add_custom_builtins (FxsPyNamespace *ns);

/* The name add_global gives the object whose qualified name is
 * @qualname ("torch.relu", "math.sqrt", "getattr", "typing.List"): the
 * qualified name itself for objects from torch, else a global of @ns
 * ("math_sqrt"; a builtin keeps its name).  The result belongs to @ns or
 * is @qualname. */
const char *fxs_py_global_name (FxsPyNamespace *ns, const char *qualname);

/* Appends type_repr(t) for the annotation @expr, which is
 * torch.fx.node._type_repr(t) as a graph file stores it ("torch.Tensor",
 * "typing.List[int]", "typing.Optional[torch.Tensor]"), adding the globals
 * it names to @ns in the order torch.fx does.  Text that is not a type
 * expression is one global named after it, as torch.fx does for any other
 * object. */
void fxs_py_type_repr (const char *expr, FxsPyNamespace *ns, GString *out);

#endif
