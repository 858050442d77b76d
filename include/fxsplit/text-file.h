/* fxsplit: reading small text files (pipelines, partition maps) whole,
 * with a size limit, reading a JSON object of integers from one, and
 * quoting their contents in error messages.
 *
 * These files are untrusted data: a path may name a device or a pipe that
 * never ends (/dev/zero), and a file's first line may be a secret (a map
 * file pointed at /etc/shadow).  Reading stops at the limit, and messages
 * quote at most FXS_TEXT_EXCERPT_MAX bytes of a file, escaped.
 */
#ifndef FXSPLIT_TEXT_FILE_H
#define FXSPLIT_TEXT_FILE_H

#include <glib.h>
#include <fxsplit/api.h>

G_BEGIN_DECLS

/* The most a pipeline file may hold (200,000 output groups take 10 MB). */
#define FXS_TEXT_FILE_MAX_PIPELINE ((gsize) 16 << 20)
/* The most a partition map file may hold: a map names each call node at
 * most once, and 10^7 nodes' "name id" lines take ~250 MB; the longest
 * node name a graph file may hold (64 MiB, docs/graph-format.md) fits. */
#define FXS_TEXT_FILE_MAX_MAP ((gsize) 512 << 20)

/* Bytes of a file's text that a message quotes, at most. */
#define FXS_TEXT_EXCERPT_MAX 40

/* Reads all of @path, a regular file or a pipe of at most @limit bytes
 * holding no NUL byte.  @what names the file's role in messages ("a
 * pipeline file").  On success *@contents (free with g_free) is
 * NUL-terminated and *@length its length.  Errors are FXS_ERROR_IO, one
 * line starting with @path: it cannot be opened or read; it is a
 * directory, a device or a socket (refused before it is opened); it holds
 * more than @limit bytes (found without reading more than @limit + 1); it
 * holds a NUL byte. */
FXS_API gboolean fxs_text_file_read (const char *path, const char *what, gsize limit,
                             char **contents, gsize *length, GError **error);

/* @text (@length bytes, or up to its NUL when @length is -1) as a quoted
 * excerpt for a one-line message: its first FXS_TEXT_EXCERPT_MAX bytes at
 * most, quotes, backslashes, bytes that are not UTF-8 and characters that
 * would not show as themselves (control characters, bidi overrides) escaped
 * as fxs_text_escape() does (\n, \x1b, \u202e), and "..." after the quote
 * when it was cut.
 * Free with g_free. */
FXS_API char *fxs_text_excerpt (const char *text, gssize length);

/* Called by fxs_json_read_int_map() for each member of the object, in file
 * order.  @key (@key_len bytes, NUL-terminated, may hold a NUL from \u0000)
 * lives until the call returns.  @value points to the member's value when it
 * is an integer (no fraction or exponent) that fits in 64 bits, and is NULL
 * for any other value.  Keys may repeat: reject a repeated one here if it
 * must not.  Return FALSE with @error set to stop reading. */
typedef gboolean (*FxsJsonIntMemberFunc) (const char *key, gsize key_len, const gint64 *value,
                                          gpointer user_data, GError **error);

/* Reads @data (@length bytes, e.g. from fxs_text_file_read(); @display_name
 * names it in messages), a JSON object {"key": 1, ...}, with libfxsplit's
 * graph file reader: valid UTF-8 (an unpaired surrogate escape is an
 * error), nesting and string limits as in docs/graph-format.md.  FALSE with
 * @error set when the data is not such JSON (FXS_ERROR_PARSE) or @each
 * failed (its error's code, its message after "NAME:LINE:COLUMN: " of the
 * member). */
FXS_API gboolean fxs_json_read_int_map (const char *data, gsize length, const char *display_name,
                                        FxsJsonIntMemberFunc each, gpointer user_data,
                                        GError **error);

G_END_DECLS

#endif
