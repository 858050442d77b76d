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
  char *name;               /* the node referred to, or NULL: none yet */
  gint64 pos;
  GString *message;         /* "PATH: node "x": refers to "y"" */
} FxsForwardRef;

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

/* One load: where the file is and what is built, and where errors go. */
typedef struct {
  FxsJsonReader *reader;
  const char *want;         /* the submodule to load, or NULL for the top graph */
  FxsGraph *graph;          /* the graph being built (NULL until found) */
  FxsGraph *top;            /* the top level's, when built */
  const FxsJson *root;      /* the collected value being read */
  const FxsJson *node_name; /* messages of the value being read name this node,
                             * when known (reset for each value) */
  gboolean have_format;
  gboolean have_version;
  gboolean have_nodes;
  /* submodules */
  GHashTable *submodule_names;
  GPtrArray *submodule_list;
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
/* Record an error at @where, a value of loader->root or NULL, located at
 * @pos (fxs_load_fail(): at @where), naming the node when known, and
 * return FALSE.  Strings from the file go into messages through
 * fxs_load_quoted() or fxs_load_shown(). */
G_GNUC_INTERNAL gboolean fxs_load_fail_at (FxsLoader *l, FxsErrorCode code, gint64 pos,
                                           const FxsJson *where, const char *format, ...)
  G_GNUC_PRINTF (5, 6);
#define fxs_load_fail(l, code, where, ...) \
  fxs_load_fail_at ((l), (code), (where)->pos, (where), __VA_ARGS__)
/* @s quoted and escaped for a message; lives until the next call (one
 * message has one such string). */
G_GNUC_INTERNAL const char *fxs_load_quoted (FxsLoader *l, const char *s, gsize len);
/* A number's text, cut short when very long; lives as fxs_load_quoted()'s. */
G_GNUC_INTERNAL const char *fxs_load_shown (FxsLoader *l, const FxsJson *number);
/* Whether @j has @type; else fails with "@must_be, not <its type>". */
static inline gboolean
fxs_load_expect (FxsLoader *l, const FxsJson *j, FxsJsonType type, const char *must_be)
{
  return j->type == type
         || fxs_load_fail (l, FXS_ERROR_FORMAT, j, "%s, not %s", must_be,
                           fxs_load_type_name (j->type));
}

/* ---- objects of known members (graph-load-value.c) ------------------------ */

/* What a member must be, checked by fxs_load_members(): anything (its
 * converter checks it), a text (fxs_load_check_text()), the text that names
 * the node the object is (its messages name it from then on), a 64-bit
 * integer, an array of texts, or an array (else the message is its what,
 * "..., not a string"); as the last entry of a schema, named "": any other
 * member (the object is free-form), its slot one of them. */
typedef enum {
  FXS_MEMBER_ANY,
  FXS_MEMBER_TEXT,
  FXS_MEMBER_NODE_NAME,
  FXS_MEMBER_INTEGER,
  FXS_MEMBER_NAMES,
  FXS_MEMBER_ARRAY,
  FXS_MEMBER_OTHERS,
} FxsMemberType;

/* A member an object may have.  The name is zero-padded to whole words, to
 * be compared with keys (zero-padded too) a word at a time. */
typedef struct {
  char name[16];
  guint8 len;
  guint8 type;              /* FxsMemberType */
  const char *missing;      /* the message when it is absent, or NULL: optional */
  const char *what;         /* names it in messages, or NULL: the quoted name */
} FxsMember;
/* FXS_MEMBER ("name", FXS_MEMBER_TEXT, .missing = "...") */
#define FXS_MEMBER(n, t, ...) { .name = n, .len = sizeof n - 1, .type = t, __VA_ARGS__ }

/* The messages of fxs_load_members(), out of line: @key is not in @schema;
 * @v (NULL: missing) is not what @m says, unless it is and FALSE is
 * returned only after an error.  */
G_GNUC_INTERNAL gboolean fxs_load_unknown_member (FxsLoader *l, const FxsJson *obj,
                                                  const FxsJson *key, const FxsMember *schema,
                                                  guint n);
G_GNUC_INTERNAL gboolean fxs_load_check_member (FxsLoader *l, const FxsJson *obj,
                                                const FxsMember *m, const FxsJson *v);

/* The entry of @schema that @key names, or @n. */
static inline guint
fxs_load_member_index (const FxsJson *key, const FxsMember *schema, guint n)
{
  /* keys are zero-padded to whole words, as the names of @schema */
  guint64 word, name;
  memcpy (&word, key->u.s, 8);
  for (guint m = 0; m < n; m++)
    {
      memcpy (&name, schema[m].name, 8);
      if (name == word && key->n == schema[m].len
          && (key->n <= 8 || memcmp (key->u.s + 8, schema[m].name + 8, key->n - 8) == 0))
        return m;
    }
  return n;
}

/* The members of object @obj into @slots (one for each of the @n entries
 * of @schema, NULL when absent), checked: FALSE, failed, at a member not in
 * @schema ("unknown member ... (expected <the names of @schema>)"), at the
 * first entry of @schema that is missing or of the wrong type.  Inlined:
 * a node is three objects, and a constant @schema folds into compares. */
static inline gboolean
fxs_load_members (FxsLoader *l, const FxsJson *obj, const FxsMember *schema, guint n,
                  const FxsJson **slots)
{
  for (guint m = 0; m < n; m++)
    slots[m] = NULL;
  for (guint i = 0; i < obj->n; i++)
    {
      const FxsJson *key = &obj->u.items[2 * i];
      guint m = fxs_load_member_index (key, schema, n);
      if (m == n && schema[n - 1].type == FXS_MEMBER_OTHERS)
        m = n - 1;
      else if (m == n)
        return fxs_load_unknown_member (l, obj, key, schema, n);
      slots[m] = key + 1;
    }
  for (guint m = 0; m < n; m++)
    {
      const FxsJson *v = slots[m];
      guint8 type = schema[m].type;
      gboolean text = type == FXS_MEMBER_TEXT || type == FXS_MEMBER_NODE_NAME;
      /* the common cases here, the rest and the errors out of line */
      gboolean ok = v ? type == FXS_MEMBER_ANY || type == FXS_MEMBER_OTHERS
                          || (text && v->n > 0 && is_text (v))
                          || (type == FXS_MEMBER_ARRAY && v->type == FXS_JSON_ARRAY)
                      : schema[m].missing == NULL;
      if (!ok && !fxs_load_check_member (l, obj, &schema[m], v))
        return FALSE;
      if (schema[m].type == FXS_MEMBER_NODE_NAME)
        l->node_name = v;
    }
  return TRUE;
}

/* ---- scalars and values (graph-load-value.c) ------------------------------ */

/* A string usable as a name: non-empty, no NUL; @what names it. */
G_GNUC_INTERNAL gboolean fxs_load_check_text (FxsLoader *l, const FxsJson *j, const char *what);
/* A JSON number without fraction or exponent. */
#define fxs_load_is_integer(j) (((j)->flags & FXS_JSON_INTEGER) != 0)
/* FALSE when the integer text does not fit in 64 bits. */
#define fxs_load_parse_integer(s, out) \
  g_ascii_string_to_signed ((s), 10, G_MININT64, G_MAXINT64, (out), NULL)
/* The value of @j, a number fxs_load_is_integer() (its text only digits
 * after an optional '-', as yajl checked): FALSE, failed, when it does not
 * fit in 64 bits. */
G_GNUC_INTERNAL gboolean fxs_load_integer (FxsLoader *l, const FxsJson *j, gint64 *out);
/* A copy of string @j (NULs and all) in the graph's memory. */
#define fxs_load_copy_text(g, j) fxs_arena_strndup (&(g)->arena, (j)->u.s, (j)->n)
/* A copy of a string without NUL in the graph being built, shared with an
 * equal one met lately, or (@intern) always: equal strings, equal pointers.
 * @hash: the text's fxs_name_hash(). */
G_GNUC_INTERNAL const char *fxs_load_share_hashed (FxsLoader *l, const FxsJson *j, guint32 hash,
                                                   gboolean intern);
#define fxs_load_share(l, j) fxs_load_share_hashed ((l), (j), fxs_name_hash ((j)->u.s, (j)->n), FALSE)
#define fxs_load_intern(l, j) fxs_load_share_hashed ((l), (j), fxs_name_hash ((j)->u.s, (j)->n), TRUE)
/* One value (docs/graph-format.md, "Values").  FALSE after an error, or when
 * it refers to a node not defined yet (then loader->forward.name is set). */
G_GNUC_INTERNAL gboolean fxs_load_value (FxsLoader *l, const FxsJson *j, FxsValue *out);

/* The items of JSON array @array as a list or tuple (@kind). */
G_GNUC_INTERNAL gboolean fxs_load_items (FxsLoader *l, const FxsJson *array, FxsValueKind kind,
                                         FxsValue *out);

/* ---- nodes and attributes (graph-load-node.c) ----------------------------- */

/* The node object @obj, item @item of the nodes array, into the graph
 * with @build, else (a graph that is not loaded) its members and head only
 * checked. */
G_GNUC_INTERNAL gboolean fxs_load_node (FxsLoader *l, const FxsJsonItem *item,
                                        const FxsJson *obj, gboolean build);
/* The nodes array ends at @pos: a dangling reference or no output node. */
G_GNUC_INTERNAL gboolean fxs_load_end_nodes (FxsLoader *l, gboolean build, gint64 pos);
/* Attribute @item (its key is the name): added to the graph with @build,
 * else only checked. */
G_GNUC_INTERNAL gboolean fxs_load_attr (FxsLoader *l, const FxsJsonItem *item,
                                        const FxsJson *obj, gboolean build);

#endif
