/* Values as JSON text that can sit inside a Python raw string literal
 * r'''...''': the graph file format's encoding of values
 * (docs/graph-format.md), in pure ASCII and without a single quote (a "'"
 * in a string is written \u0027), so no "'''" can end the literal early. */
#ifndef FXS_PY_JSON_LITERAL_H
#define FXS_PY_JSON_LITERAL_H

#include <glib.h>
#include <fxsplit/value.h>

/* Appends the JSON string of the bytes @s[0..@len) (read as Python reads
 * them: see fxs_py_decode_char). */
void fxs_json_literal_string (const char *s, gsize len, GString *out);

/* Appends @value: null, true, false, numbers (floats as Python's repr,
 * {"float": "inf"} for the non-finite), strings, lists as arrays, and
 * {"tuple": [...]}, {"dict": [[key, value], ...]}, {"slice": [a, b, c]},
 * {"ellipsis": true}, {"node": "name"}, {"opaque": "type", "repr": "..."}. */
void fxs_json_literal_value (const FxsValue *value, GString *out);

#endif
