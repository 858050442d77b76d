/* Python's repr() of argument values, as torch.fx 1.13 prints them in
 * generated code (node references by name, opaque constants by their
 * stored repr). */
#ifndef FXS_PY_REPR_H
#define FXS_PY_REPR_H

#include <glib.h>
#include <fxsplit/value.h>

/* How node references and opaque constants are printed. */
typedef struct {
  /* Appends the text of a reference to @node (required). */
  void (*node) (const FxsNode *node, gpointer data, GString *out);
  /* Appends the text of an opaque constant; NULL: its stored repr. */
  void (*opaque) (const FxsValue *value, gpointer data, GString *out);
  gpointer data;
} FxsPyReprHooks;

/* Appends repr(@value) to @out. */
void fxs_py_repr_value (const FxsValue *value, const FxsPyReprHooks *hooks, GString *out);

/* Appends repr() of the str whose UTF-8 bytes are @s[0..@len): quotes as
 * Python picks them, escapes for backslashes, quotes and unprintable
 * characters.  Bytes that are not UTF-8 are shown as the lone surrogates
 * Python's surrogateescape would make of them. */
void fxs_py_repr_string (const char *s, gsize len, GString *out);

/* Decodes the character at @p (before @end), as Python would see the str
 * these bytes encode: UTF-8, surrogates allowed (a graph file may hold
 * them); a byte that starts no valid sequence becomes U+DC00 + byte, as
 * surrogateescape makes it.  Returns the number of bytes read. */
gsize fxs_py_decode_char (const guchar *p, const guchar *end, gunichar *out);

/* str.isidentifier() (keywords are identifiers too).  Non-ASCII letters
 * are judged by GLib's Unicode tables, close to Python's XID rules. */
gboolean fxs_py_is_identifier (const char *s);

#endif
