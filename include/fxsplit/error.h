/* fxsplit: errors.
 *
 * Every fallible call takes a `GError **error` as its last argument and
 * reports failures in the FXS_ERROR domain with one of the codes below.
 * Messages are one line and start with the location of the problem
 * (file:line:column, JSON path or node name) where one is known.
 */
#ifndef FXSPLIT_ERROR_H
#define FXSPLIT_ERROR_H

#include <glib.h>
#include <fxsplit/api.h>

G_BEGIN_DECLS

/* The error domain of every GError that fxsplit sets. */
#define FXS_ERROR (fxs_error_quark ())
FXS_API GQuark fxs_error_quark (void);

typedef enum {
  FXS_ERROR_IO,            /* a file could not be read or written */
  FXS_ERROR_PARSE,         /* not well-formed JSON, or truncated */
  FXS_ERROR_FORMAT,        /* well-formed JSON that is not a valid graph file */
  FXS_ERROR_VERSION,       /* a graph file format version this build does not know */
  FXS_ERROR_GRAPH,         /* an inconsistent graph (bad reference, unknown attribute, ...) */
  FXS_ERROR_CYCLE,         /* the partitions depend on each other in a cycle */
  FXS_ERROR_CALLBACK,      /* the partition callback reported an error */
  FXS_ERROR_GLOBAL_STATE,  /* grad/autocast regions with non-monotonic partition ids */
  FXS_ERROR_PLUGIN_NOT_FOUND, /* no plugin of that name or path */
  FXS_ERROR_PLUGIN_ABI,    /* a plugin built against an incompatible ABI */
  FXS_ERROR_PLUGIN_INVALID,/* a file that is not a usable fxsplit plugin */
  FXS_ERROR_PLUGIN_FAILED, /* a plugin hook reported an error */
  FXS_ERROR_CONFIG,        /* a bad pipeline file or command line */
  FXS_ERROR_OPTION,        /* an unknown plugin option or a value of the wrong type */
  FXS_ERROR_VERIFY,        /* a split that does not compute its original (fxsplit/verify.h) */
} FxsErrorCode;

/* Text from elsewhere (a plugin's message or descriptor, a pipeline value)
 * made safe to print on a terminal as part of one line: control characters
 * (C0 including ESC, CR, LF and TAB; DEL; C1), invisible format characters
 * (such as bidirectional overrides), line separators and bytes that are not
 * UTF-8 are written as visible escapes (\n, \r, \t, \x1b, \u202e); at most
 * @max_bytes bytes of it are kept (0: no limit), the rest replaced by
 * " ... (N bytes cut)".  Backslashes are left as they are, so escaping an
 * escaped text again adds no escapes.  NULL gives "(no text)".  Free the
 * result with g_free(). */
FXS_API char *fxs_text_escape (const char *text, gsize max_bytes);

/* The usual limit for one message of fxs_text_escape(). */
#define FXS_TEXT_MESSAGE_MAX 1000

G_END_DECLS

#endif
