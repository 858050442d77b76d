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
 * error is reported (by rescanning the input), so the fast path never counts
 * lines.
 */
#ifndef FXS_JSON_READER_H
#define FXS_JSON_READER_H

#include <glib.h>
#include <fxsplit/error.h>

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

/* One value of a collected tree.  Lives until the consumer's callback
 * returns. */
/* FxsJson.flags, found while the reader copies the text */
enum {
  FXS_JSON_HAS_NUL = 1,     /* a string (or key) holds a NUL byte */
  FXS_JSON_INTEGER = 2,     /* a number without fraction or exponent */
};

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

/* The consumer.  Every callback returns FALSE (or FXS_JSON_FAIL) only after
 * calling fxs_json_reader_fail(). */
typedef struct {
  /* A value starts in a streamed container (or at the top).  For
   * FXS_JSON_STREAM, *@tag is what its members' parent_tag will be. */
  FxsJsonAction (*begin) (FxsJsonReader *reader, gpointer user_data,
                          const FxsJsonItem *item, int *tag);
  /* A collected value is complete. */
  gboolean (*value) (FxsJsonReader *reader, gpointer user_data,
                     const FxsJsonItem *item, const FxsJson *value);
  /* A streamed container with tag @tag ends at @pos after @n_members. */
  gboolean (*end) (FxsJsonReader *reader, gpointer user_data, int tag,
                   guint64 n_members, gint64 pos);
  /* Optional (may be NULL): a scalar member @value, with key @key, of an
   * object being collected right in a streamed container with tag
   * @parent_tag, as soon as it is read.  Only a look ahead (to start work
   * early, such as fetching memory): value() gets the whole object later. */
  void (*peek) (FxsJsonReader *reader, gpointer user_data, int parent_tag,
                const FxsJson *key, const FxsJson *value);
} FxsJsonHandler;

/* A path below the current item, for error messages; lives on the C stack
 * of a recursive walk.  Either @key (a member) or @index (an item). */
typedef struct FxsJsonPath FxsJsonPath;
struct FxsJsonPath {
  const FxsJsonPath *parent;
  const char *key;
  gsize key_len;
  guint64 index;
};

/* Copies of trees: the bytes a copy of @json takes, and @json copied into
 * @block (that many bytes, 8-byte aligned), items and texts after its
 * root, which is returned. */
gsize          fxs_json_tree_bytes (const FxsJson *json);
FxsJson       *fxs_json_tree_copy (const FxsJson *json, gpointer block);

/* @display_name names the input in messages (a path, or "<data>"). */
FxsJsonReader *fxs_json_reader_new (const char *display_name, const FxsJsonHandler *handler,
                                    gpointer user_data);
void           fxs_json_reader_free (FxsJsonReader *reader);
/* Member @key of the objects collected right in streamed containers tagged
 * @parent_tag mostly repeats, text for text, one of the last few (such as
 * node metadata): the fast path then gives it the tree it read from the
 * same text before, without reading it again.  The positions inside such
 * a tree are those of the earlier text (they only place messages, and the
 * fast path reports nothing: it gives up, see fxs_json_reader_parse_fast).
 * One member per reader; @key is copied. */
void           fxs_json_reader_set_repeating_member (FxsJsonReader *reader, int parent_tag,
                                                     const char *key);
/* The same for the values collected right in streamed containers tagged
 * @tag (such as attributes): the fast path gives a value the tree read from
 * the same text lately.  Not with a repeating member for the same tag. */
void           fxs_json_reader_set_repeating_items (FxsJsonReader *reader, int tag);
/* In value() of such an object or item: an identifier of the repeating
 * member's or item's text, the same for the same text and never given to
 * another in the reader's life; 0 when there is none (no such member, or
 * the general path, which gives none). */
guint64        fxs_json_reader_repeat_id (FxsJsonReader *reader);
/* For tests: a smaller string limit than FXS_JSON_MAX_STRING, and chunks
 * smaller than 1 MiB (to exercise tokens that span chunks). */
void           fxs_json_reader_set_max_string (FxsJsonReader *reader, gsize max);
void           fxs_json_reader_set_chunk_size (FxsJsonReader *reader, gsize size);
/* Whether yajl runs on a thread of its own (FALSE: on the calling one);
 * without this call, as fxs_json_reader_set_threading() says. */
void           fxs_json_reader_set_threaded (FxsJsonReader *reader, gboolean threaded);

typedef enum {
  FXS_JSON_THREADS_AUTO,    /* inputs from 4 MiB on, when fxs_get_max_threads() allows two */
  FXS_JSON_THREADS_NEVER,
  FXS_JSON_THREADS_ALWAYS,
} FxsJsonThreading;

/* For every reader of the process that is not told otherwise (tests run
 * their inputs both ways). */
void           fxs_json_reader_set_threading (FxsJsonThreading threading);

/* Parse a whole input once.  FALSE with @error set on the first problem:
 * FXS_ERROR_IO, FXS_ERROR_PARSE, or the consumer's error. */
gboolean fxs_json_reader_parse_file (FxsJsonReader *reader, const char *path, GError **error);
gboolean fxs_json_reader_parse_data (FxsJsonReader *reader, const char *data, gsize length,
                                     GError **error);

/* The fast path (json-reader-fast.c): reads the whole input @data at once,
 * straight into the handler, several times faster than the general path,
 * for the inputs it knows (valid JSON within the limits, without escaped
 * UTF-16 surrogates).  TRUE when it read all of @data and every callback accepted
 * its value.  FALSE when it gave up, at anything outside what it knows or
 * at any error (the consumer's too), recording nothing: the consumer's
 * state is then to be thrown away and the input read again by a new reader
 * with fxs_json_reader_parse_data(), which reports what is wrong as always.
 * Unlike the general path, it may call peek() again for members it has
 * already shown, when it reads an object again in a bigger window. */
gboolean fxs_json_reader_parse_fast (FxsJsonReader *reader, const char *data, gsize length);
/* The same over the regular file at @path, read through a window of 2 MiB
 * (as big as the biggest member of a streamed container needs, up to 128
 * MiB: a bigger one makes it give up), so memory stays small however big
 * the file is.  FALSE also for anything but a regular file and when it
 * cannot be read: read it again with fxs_json_reader_parse_file(), which
 * says why. */
gboolean fxs_json_reader_parse_fast_file (FxsJsonReader *reader, const char *path);
/* For tests and fuzzers: @data read through the window as if it were a
 * file's content. */
gboolean fxs_json_reader_parse_fast_windowed (FxsJsonReader *reader, const char *data,
                                              gsize length);
/* For tests: the window's first size (0: the default, 2 MiB); a member
 * starts where the window holds a sixteenth of it, and the window grows to
 * 64 times it at most.  Not thread-safe: set it before reading. */
void     fxs_json_reader_set_fast_window (gsize bytes);
/* How many inputs the fast path has read and given up on in this process
 * (for tests). */
void     fxs_json_reader_fast_counts (guint *read, guint *given_up);

typedef enum {
  FXS_JSON_FAST_AUTO,       /* loaders try the fast path first */
  FXS_JSON_FAST_NEVER,      /* loaders read only the general way (tests compare) */
  FXS_JSON_FAST_WINDOWED,   /* as AUTO, and data in memory is read through the
                             * window as a file is (tests and fuzzers) */
} FxsJsonFastPath;

void            fxs_json_reader_set_fast_path (FxsJsonFastPath mode);
FxsJsonFastPath fxs_json_reader_get_fast_path (void);

/* Records the error to report: "NAME:LINE:COLUMN: PATH: MESSAGE", where PATH
 * is the current item's path ("nodes[12]") followed by @inner (may be NULL),
 * and the location is that of the JSON token at or after @pos (a value's or
 * item's pos).  Only the first call counts. */
void fxs_json_reader_fail (FxsJsonReader *reader, FxsErrorCode code, gint64 pos,
                           const FxsJsonPath *inner, const char *format, ...)
  G_GNUC_PRINTF (5, 6);

/* The same with a message that already names its place: only the location
 * is prepended. */
void fxs_json_reader_fail_message (FxsJsonReader *reader, FxsErrorCode code, gint64 pos,
                                   const char *message);

/* Appends the current item's path followed by @inner ("nodes[3].args[0]"). */
void fxs_json_reader_append_path (FxsJsonReader *reader, GString *out,
                                  const FxsJsonPath *inner);

/* The value of member @key of object @obj, or NULL. */
const FxsJson *fxs_json_member (const FxsJson *obj, const char *key);

/* Appends @s (@len bytes) quoted for a one-line message: control characters
 * escaped, at most 80 characters kept. */
void fxs_json_append_quoted (GString *out, const char *s, gsize len);

#endif
