/* A streaming JSON reader on top of yajl.
 *
 * The input is fed to yajl in 1 MiB chunks, so parser memory stays
 * constant however large the file is.  The consumer decides, value by value,
 * whether a container is *streamed* (its members are reported one at a time)
 * or *collected* (built as a small FxsJson tree in a scratch arena, handed
 * over whole, then thrown away).  A graph file streams its top level and its
 * `nodes` array and collects one node object at a time.
 *
 * The reader enforces what holds for every JSON document it accepts: valid
 * UTF-8, no duplicate keys in any object, nesting at most
 * FXS_JSON_MAX_DEPTH deep, no string longer than the string limit.
 *
 * Errors carry a byte offset; it is turned into LINE:COLUMN only when an
 * error is reported (by rescanning the input), so reading never counts
 * lines.
 */
#ifndef FXS_JSON_READER_H
#define FXS_JSON_READER_H

#include <glib.h>
#include <fxsplit/error.h>
#include "util/text-escape.h"

/* Objects and arrays nested deeper than this are an error. */
#define FXS_JSON_MAX_DEPTH 512
/* Default limit on one string (and on any run of input without a token).
 * yajl holds a token that spans chunks in memory, so this bounds memory. */
#define FXS_JSON_MAX_STRING (64u << 20)

typedef enum {
  FXS_JSON_NULL,
  FXS_JSON_BOOL,
  FXS_JSON_NUMBER,
  FXS_JSON_STRING,
  FXS_JSON_ARRAY,
  FXS_JSON_OBJECT,
} FxsJsonType;

/* FxsJson.flags, found while the reader copies the text */
enum {
  FXS_JSON_HAS_NUL = 1,     /* a string (or key) holds a NUL byte */
  FXS_JSON_INTEGER = 2,     /* a number without fraction or exponent */
};

/* One value of a collected tree.  Lives until the consumer's callback
 * returns. */
typedef struct FxsJson FxsJson;
struct FxsJson {
  guint8 type;              /* FxsJsonType */
  guint8 flags;             /* FXS_JSON_HAS_NUL, FXS_JSON_INTEGER */
  guint32 n;                /* string / number: bytes; array: items; object: members */
  gint64 pos;               /* where the value is: see fxs_json_reader_fail() */
  union {
    gboolean b;
    const char *s;          /* string (may hold NULs) or number text: NUL-terminated
                             * and zero-padded to a whole number of 8-byte words */
    const FxsJson *items;   /* array: n items; object: 2n, key (a string) then value */
  } u;
};

/* Where a value starts, relative to the streamed container it is in. */
typedef struct {
  int parent_tag;           /* the tag the consumer gave the container; 0 at the top */
  const char *key;          /* the member's key (NUL-terminated) in an object, else NULL */
  gsize key_len;
  gint64 key_pos;           /* where the key is */
  guint64 index;            /* the item's index in an array */
  FxsJsonType type;
  gint64 pos;
} FxsJsonItem;

typedef enum {
  FXS_JSON_COLLECT,         /* build the value whole and pass it to value() */
  FXS_JSON_STREAM,          /* report a container's members one by one */
  FXS_JSON_STREAM_OWN_KEYS, /* the same, and the consumer rejects duplicate keys
                             * itself (it keeps them anyway, e.g. in a table) */
  FXS_JSON_FAIL,            /* stop: the consumer called fxs_json_reader_fail() */
} FxsJsonAction;

typedef struct FxsJsonReader FxsJsonReader;

/* The consumer (its user_data is the reader's).  Every callback returns
 * FALSE (or FXS_JSON_FAIL) only after calling fxs_json_reader_fail(). */
typedef struct {
  /* A value starts in a streamed container (or at the top).  For
   * FXS_JSON_STREAM, *@tag is what its members' parent_tag will be. */
  FxsJsonAction (*begin) (gpointer user_data, const FxsJsonItem *item, int *tag);
  /* A collected value is complete. */
  gboolean (*value) (gpointer user_data, const FxsJsonItem *item, const FxsJson *value);
  /* A streamed container with tag @tag ends at @pos (may be NULL). */
  gboolean (*end) (gpointer user_data, int tag, gint64 pos);
} FxsJsonHandler;

/* @display_name names the input in messages (a path, or "<data>"). */
FxsJsonReader *fxs_json_reader_new (const char *display_name, const FxsJsonHandler *handler,
                                    gpointer user_data);
void           fxs_json_reader_free (FxsJsonReader *reader);
/* For tests: a smaller string limit than FXS_JSON_MAX_STRING (0: that),
 * and chunks smaller than 1 MiB (to exercise tokens that span chunks). */
void           fxs_json_reader_set_limits (FxsJsonReader *reader, gsize max_string, gsize chunk);
/* Parse a whole input once: the file at @path, or else the @length bytes
 * at @data.  FALSE with @error set on the first problem: FXS_ERROR_IO,
 * FXS_ERROR_PARSE, or the consumer's error. */
gboolean fxs_json_reader_parse (FxsJsonReader *reader, const char *path, const char *data,
                                gsize length, GError **error);

/* Records the error to report: "NAME:LINE:COLUMN: PATH: MESSAGE", where PATH
 * is the current item's path ("nodes[12]"), and the location is that of the
 * JSON token at or after @pos (a value's or item's pos).  Only the first
 * call counts.  Returns FALSE, for a failing caller to return. */
gboolean fxs_json_reader_fail (FxsJsonReader *reader, FxsErrorCode code, gint64 pos,
                               const char *format, ...) G_GNUC_PRINTF (4, 5);
/* The same with a message that already names its place: only the location
 * is prepended. */
gboolean fxs_json_reader_fail_message (FxsJsonReader *reader, FxsErrorCode code, gint64 pos,
                                       const char *message);

/* A new message that starts with the current item's path ("nodes[12]") and
 * the path from @root, its collected value, down to @where in it ("args[0]";
 * for a key, the path of its object), then ": " unless the path is empty. */
GString *fxs_json_reader_start_message (FxsJsonReader *reader, const FxsJson *root,
                                        const FxsJson *where);

/* The value of member @key of object @obj, or NULL. */
const FxsJson *fxs_json_member (const FxsJson *obj, const char *key);

#endif
