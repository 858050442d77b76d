/* The names Python and torch.fx 1.13 keep for themselves, as
 * torch.fx.graph._Namespace._is_illegal_name sees them. */
#ifndef FXS_PY_NAMES_H
#define FXS_PY_NAMES_H

#include <glib.h>

/* keyword.kwlist of Python 3.11. */
gboolean fxs_py_is_keyword (const char *name);
/* A key of builtins.__dict__ (Debian's python3.11 with site loaded). */
gboolean fxs_py_is_builtin (const char *name);
/* A name of torch.fx's _custom_builtins: inf, nan, NoneType, torch,
 * device, fx_pytree, pytree. */
gboolean fxs_py_is_custom_builtin (const char *name);

/* torch.fx's custom builtins in registration order (the order in which
 * _gen_python_code adds them to every graph's globals), NULL-terminated. */
extern const char *const fxs_py_custom_builtins[];

#endif
