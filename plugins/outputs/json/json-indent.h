/* Pretty-printing JSON text while writing it. */
#ifndef FXS_JSON_INDENT_H
#define FXS_JSON_INDENT_H

#include <stdio.h>
#include <glib.h>

/* Writes the JSON text @json (@length bytes, well-formed) to @out with
 * @indent spaces per level and one member or item per line.  Whitespace
 * outside strings is dropped and rewritten; strings are copied as they are. */
void fxs_json_write_indented (const char *json, gsize length, guint indent, FILE *out);

#endif
