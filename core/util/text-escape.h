/* Text escaped and quoted for messages, beside fxs_text_escape
 * (fxsplit/error.h). */
#ifndef FXS_TEXT_ESCAPE_H
#define FXS_TEXT_ESCAPE_H

#include <glib.h>

/* Appends the text from @p to @end with the characters that would not show
 * as themselves escaped as fxs_text_escape() does, and the ASCII
 * characters in @also after a backslash; stops at the first character
 * once @out holds @max_bytes (0: no limit).  Returns where it stopped. */
const char *fxs_text_append_escaped (GString *out, const char *p, const char *end,
                                     const char *also, gsize max_bytes);

/* Appends @s (@len bytes) quoted for a one-line message: control characters
 * escaped, at most 80 characters kept. */
void fxs_json_append_quoted (GString *out, const char *s, gsize len);

#endif
