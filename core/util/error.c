#include <fxsplit/error.h>

G_DEFINE_QUARK (fxs-error-quark, fxs_error)
