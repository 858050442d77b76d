/* Loading graph files: what graph-load.c (the file's structure),
 * graph-load-node.c (nodes, metadata, attributes) and graph-load-value.c
 * (values, scalars, messages) share.  Nothing here leaves the library. */
#ifndef FXS_GRAPH_LOAD_PRIVATE_H
#define FXS_GRAPH_LOAD_PRIVATE_H

#include <fxsplit/io.h>
#include <string.h>
#include "model/graph-private.h"
#include "model/loaded-split.h"
#include "json-reader.h"

/* The first reference to a node that is not (yet) defined.  Reported when
 * the node list ends, or earlier when a node of that name turns up, so the
 * message can say whether it is missing or merely later. */
typedef struct {
  gboolean active;
  char *name;               /* the node referred to */
  gint64 pos;
  GString *message;         /* "PATH: node "x": refers to "y"" */
} FxsForwardRef;

G_GNUC_INTERNAL void fxs_load_partition_free (gpointer partition);

/* Loads the file at @path (or @data when @path is NULL) into @out, whose
 * arrays the caller made; on failure they may hold part of the file. */
G_GNUC_INTERNAL gboolean fxs_load_split (const char *path, const char *data, gsize length,
                                         const char *display_name, FxsLoadSplit *out,
                                         GError **error);

/* A string of @graph in the loader's cache, interned or only shared
 * (fxs_load_share_hashed). */
typedef struct {
  const char *text;
  const FxsGraph *graph;
  guint32 len;
  gboolean interned;
} FxsLoadCached;

/* One load: where the file is and what is built. */
typedef struct {
  const char *want;         /* the submodule to load, or NULL for the top graph */
  FxsGraph *graph;          /* the graph being built (NULL until found) */
  gboolean have_format;
  gboolean have_version;
  gboolean have_nodes;
  /* submodules */
  GHashTable *submodule_names;
  GPtrArray *submodule_list;
  gboolean found;
  gboolean entry_named;     /* the submodule entry being read */
  gboolean entry_build;
  gboolean entry_has_nodes;
  FxsForwardRef forward;
  /* nodes added and strings shared lately, by a hash of their name or
   * text: most references are to recent nodes, texts repeat close
   * together, and these stay in cache where tables of all do not (entries
   * of another graph are told by their graph: a split result may have
   * millions of submodules, too many to clear the caches for each) */
  const FxsNode *recent[4096];
  FxsLoadCached strings[4096];
  guint32 attr_hash;        /* of the attribute being read (its key) */
  FxsMetaShare *share;          /* metadata stored once per distinct value */
  GString *quoted;              /* fxs_load_quoted() */
  /* a whole split result (fxs_load_split): every submodule is built */
  FxsLoadSplit *all;
} FxsLoader;

/* Converting one collected object: where errors go and which node they are
 * about. */
typedef struct {
  FxsLoader *loader;
  FxsJsonReader *reader;
  FxsGraph *graph;          /* NULL when only the shape is checked */
  const FxsJson *node_name; /* NULL until known */
} FxsLoadConv;

/* ---- strings of the file ------------------------------------------------ */

/* A string without NUL bytes (usable as a C string). */
static inline gboolean
is_text (const FxsJson *j)
{
  return j->type == FXS_JSON_STRING && !(j->flags & FXS_JSON_HAS_NUL);
}

/* Comparisons with names the format defines count the length: strings
 * from the file may hold NUL ("tuple\u0000x" is not "tuple"). */
static inline gboolean
is_name (const char *s, gsize len, const char *name)
{
  /* inlined, the length of a literal @name is a constant */
  return len == strlen (name) && memcmp (s, name, len) == 0;
}
#define is_key(key, name) is_name ((key)->u.s, (key)->n, (name))
#define item_is(item, name) is_name ((item)->key, (item)->key_len, (name))

/* ---- messages (graph-load-value.c) --------------------------------------- */

/* "a string", "an object", ... */
G_GNUC_INTERNAL const char *fxs_load_type_name (FxsJsonType type);
/* Record an error at @where (or @pos), naming the node when known, and
 * return FALSE.  Strings from the file go into messages through
 * fxs_load_quoted() or fxs_load_shown(). */
G_GNUC_INTERNAL gboolean fxs_load_fail_at (FxsLoadConv *c, FxsErrorCode code, gint64 pos,
                                           const FxsJsonPath *path, const char *format, ...)
  G_GNUC_PRINTF (5, 6);
#define fxs_load_fail(c, code, where, path, ...) \
  fxs_load_fail_at ((c), (code), (where)->pos, (path), __VA_ARGS__)
/* @s quoted and escaped for a message; lives until the next call (one
 * message has one such string). */
G_GNUC_INTERNAL const char *fxs_load_quoted (FxsLoadConv *c, const char *s, gsize len);
/* A number's text, cut short when very long; lives in @buf. */
G_GNUC_INTERNAL const char *fxs_load_shown (const FxsJson *number, char buf[64]);
/* "unknown member "x" (expected @valid)" at @key. */
G_GNUC_INTERNAL gboolean fxs_load_unknown_member (FxsLoadConv *c, const FxsJson *key,
                                                  const FxsJsonPath *path, const char *valid);
/* Whether @j has @type; else fails with "@must_be, not <its type>". */
static inline gboolean
fxs_load_expect (FxsLoadConv *c, const FxsJson *j, FxsJsonType type, const FxsJsonPath *path,
                 const char *must_be)
{
  return j->type == type
         || fxs_load_fail (c, FXS_ERROR_FORMAT, j, path, "%s, not %s", must_be,
                           fxs_load_type_name (j->type));
}

/* ---- scalars and values (graph-load-value.c) ------------------------------ */

/* A string usable as a name: non-empty, no NUL; @what names it. */
G_GNUC_INTERNAL gboolean fxs_load_check_text (FxsLoadConv *c, const FxsJson *j,
                                              const FxsJsonPath *path, const char *what);
/* A JSON number without fraction or exponent. */
#define fxs_load_is_integer(j) (((j)->flags & FXS_JSON_INTEGER) != 0)
/* FALSE when the integer text does not fit in 64 bits. */
G_GNUC_INTERNAL gboolean fxs_load_parse_integer (const char *s, gint64 *out);
/* The value of @j, a number fxs_load_is_integer() (its text only digits
 * after an optional '-', as yajl checked): FALSE, failed, when it does not
 * fit in 64 bits. */
G_GNUC_INTERNAL gboolean fxs_load_integer (FxsLoadConv *c, const FxsJson *j,
                                           const FxsJsonPath *path, gint64 *out);
/* A copy of string @j (NULs and all) in the graph's memory. */
#define fxs_load_copy_text(g, j) fxs_arena_strndup (&(g)->arena, (j)->u.s, (j)->n)
/* A copy of a string without NUL in the graph being built, shared with an
 * equal one met lately, or (@intern) always: equal strings, equal pointers.
 * @hash: the text's fxs_name_hash(). */
G_GNUC_INTERNAL const char *fxs_load_share_hashed (FxsLoadConv *c, const FxsJson *j, guint32 hash,
                                                   gboolean intern);
#define fxs_load_share(c, j) fxs_load_share_hashed ((c), (j), fxs_name_hash ((j)->u.s, (j)->n), FALSE)
#define fxs_load_intern(c, j) fxs_load_share_hashed ((c), (j), fxs_name_hash ((j)->u.s, (j)->n), TRUE)
/* One value (docs/graph-format.md, "Values").  FALSE after an error, or when
 * it refers to a node not defined yet (then loader->forward is active). */
G_GNUC_INTERNAL gboolean fxs_load_value (FxsLoadConv *c, const FxsJson *j, FxsValue *out,
                                         const FxsJsonPath *path);

/* The items of JSON array @array as a list or tuple (@kind). */
G_GNUC_INTERNAL gboolean fxs_load_items (FxsLoadConv *c, const FxsJson *array, FxsValueKind kind,
                                         FxsValue *out, const FxsJsonPath *path);

/* ---- nodes and attributes (graph-load-node.c) ----------------------------- */

/* The node object @obj, item @item of the nodes array, into the graph
 * with @build, else (a graph that is not loaded) its members and head only
 * checked. */
G_GNUC_INTERNAL gboolean fxs_load_node (FxsLoader *l, FxsJsonReader *reader,
                                        const FxsJsonItem *item, const FxsJson *obj,
                                        gboolean build);
/* The nodes array ends at @pos: a dangling reference or no output node. */
G_GNUC_INTERNAL gboolean fxs_load_end_nodes (FxsLoader *l, FxsJsonReader *reader,
                                             gboolean build, gint64 pos);
/* Attribute @item (its key is the name): added to the graph with @build,
 * else only checked. */
G_GNUC_INTERNAL gboolean fxs_load_attr (FxsLoadConv *c, const FxsJsonItem *item,
                                        const FxsJson *obj, gboolean build);

#endif
