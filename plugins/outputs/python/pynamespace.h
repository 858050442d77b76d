/* torch.fx 1.13's _Namespace (torch/fx/graph.py) for one generated
 * function: node names and global names share it, and an object keeps the
 * name it got first.
 *
 * libfxsplit's core/split/names.h does create_name for the engine, but it is
 * internal to the library and has no objects: add_global needs both the
 * object association (one global per function) and the rule that a
 * builtin may take its own name.  This is that small part. */
#ifndef FXS_PY_NAMESPACE_H
#define FXS_PY_NAMESPACE_H

#include <glib.h>

typedef struct FxsPyNamespace FxsPyNamespace;

/* Free with fxs_py_namespace_free(). */
FxsPyNamespace *fxs_py_namespace_new (void);
void            fxs_py_namespace_free (FxsPyNamespace *ns);

/* create_name(@candidate, obj) for an object that is no builtin (a node):
 * illegal characters become "_", a leading digit gets a "_" prefix, a
 * "_<digits>" suffix is split off and the first free "<base>_<n>" from
 * there on is taken, skipping keywords, builtins and torch.fx's custom
 * builtins.  Callers keep the object's name themselves.  The result
 * belongs to @ns. */
const char *fxs_py_namespace_create_name (FxsPyNamespace *ns, const char *candidate);

/* add_global's create_name(@hint, obj) for the object identified by @key
 * (its qualified name): the name @key got before, or a new one.
 * @builtin_name is the name under which the object is a Python builtin or
 * a torch.fx custom builtin ("getattr", "device"), which it may take
 * although it is reserved; NULL for other objects.  The result belongs to
 * @ns. */
const char *fxs_py_namespace_global (FxsPyNamespace *ns, const char *key, const char *hint,
                                     const char *builtin_name);

#endif
