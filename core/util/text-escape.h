/* Text quoted for messages, beside fxs_text_escape (fxsplit/error.h). */
#ifndef FXS_TEXT_ESCAPE_H
#define FXS_TEXT_ESCAPE_H

#include <glib.h>

/* Appends @s (@len bytes) quoted for a one-line message: control characters
 * escaped, at most 80 characters kept. */
void fxs_json_append_quoted (GString *out, const char *s, gsize len);

#endif
