/* Internal layout of graphs, nodes and values, shared by the core's
 * modules (loader, writer, engine).  Plugins never see it. */
#ifndef FXS_GRAPH_PRIVATE_H
#define FXS_GRAPH_PRIVATE_H

#include <fxsplit/graph.h>
#include <fxsplit/error.h>
#include "util/arena.h"
#include "util/getter.h"
#include "util/table.h"

#include <math.h>
#include <string.h>

/* The public functions between an enum's values and their @names (an
 * array in the enum's order): @to_string (value) and @from_string (name,
 * &value), which says whether @name (may be NULL) is one of them. */
#define FXS_ENUM_STRINGS(Enum, to_string, from_string, names)               \
  const char *                                                              \
  to_string (Enum value)                                                    \
  {                                                                         \
    g_return_val_if_fail ((guint) value < G_N_ELEMENTS (names), NULL);      \
    return names[value];                                                    \
  }                                                                         \
                                                                            \
  gboolean                                                                  \
  from_string (const char *name, Enum *value)                               \
  {                                                                         \
    for (guint i = 0; name && i < G_N_ELEMENTS (names); i++)                \
      if (strcmp (name, names[i]) == 0)                                     \
        {                                                                   \
          *value = (Enum) i;                                                \
          return TRUE;                                                      \
        }                                                                   \
    return FALSE;                                                           \
  }

struct FxsValue {
  guint8 kind;          /* FxsValueKind */
  guint32 n;            /* items (list, tuple, slice: 3, opaque: 2), entries (dict), length (string) */
  union {
    gboolean b;
    gint64 i;
    double f;
    const char *s;
    const FxsValue *items; /* dict: 2n values, key then value */
    const FxsNode *node;
  } u;
};

struct FxsTensorMeta {
  guint32 rank;
  const gint64 *dims;          /* -1 where symbolic */
  const char *const *symbols;  /* NULL, or rank entries (NULL where concrete) */
  const char *dtype;           /* NULL when unknown */
};

typedef struct {
  const FxsTensorMeta *const *tensors;
  guint32 n_tensors;
  gboolean is_tuple;
  const char *const *free_symbols;
  guint32 n_free_symbols;
  const char *symbol;
  const FxsValue *extra;       /* dict of free-form entries, or NULL */
} FxsNodeMeta;

struct FxsNode {
  FxsGraph *graph;
  const char *name;
  const char *target;
  const char *type_expr;
  const FxsNodeMeta *meta;     /* NULL when the node has none; immutable, may be shared */
  FxsValue args;               /* tuple */
  FxsValue kwargs;             /* dict */
  guint32 index;
  guint8 op;
};

struct FxsAttr {
  const char *name;
  const char *class_name;
  const FxsTensorMeta *tensor;
  FxsGraph *graph;
  guint8 kind;
};

/* A graph's nodes or attributes in order: pdata and len as in a GPtrArray,
 * with the growth inline. */
typedef struct {
  gpointer *pdata;
  guint len;
  guint cap;
} FxsItems;

/* Room for at least @cap items in all. */
void fxs_items_reserve (FxsItems *items, guint cap);
void fxs_items_clear (FxsItems *items);

static inline void
fxs_items_add (FxsItems *items, gpointer item)
{
  if (G_UNLIKELY (items->len == items->cap))
    fxs_items_reserve (items, items->len + 1);
  items->pdata[items->len++] = item;
}

/* Names -> positions in a graph's nodes or attrs: a table.h table of
 * FxsTableHead entries (hash, position + 1); the names stay in the items.
 * The loader fills it as it reads, others on their first lookup (split
 * results are rarely searched), under index.c's lock. */
typedef struct {
  FxsTable table;
  guint n_indexed;             /* atomic: items[0..n_indexed) are in the table */
} FxsNameIndex;

/* The position of the node (@nodes) or attribute named @name (@len bytes,
 * @hash = fxs_name_hash()) in @graph, or G_MAXUINT32; and, for a graph
 * being built by one thread, the entry of the item just appended, whose
 * name has @hash and was not found. */
G_GNUC_INTERNAL guint32 fxs_graph_name_position (FxsGraph *graph, gboolean nodes,
                                                 const char *name, gsize len, guint32 hash);
G_GNUC_INTERNAL void fxs_graph_name_added (FxsGraph *graph, gboolean nodes, guint32 hash);

struct FxsGraph {
  gint ref_count;
  FxsArena arena;
  GStringChunk *strings;       /* NULL until the first string */
  /* one-element arrays: graph->nodes->pdata[i] reads as with a pointer */
  FxsItems nodes[1];           /* FxsNode*, in graph order */
  FxsNameIndex node_index;
  FxsNode *output;
  FxsItems attrs[1];           /* FxsAttr* */
  FxsNameIndex attr_index;
  /* fxs_graph_target_attrs(), made on first use under index.c's lock */
  guint32 *target_attrs;       /* for nodes[0..len); NULL until needed */
  guint32 target_attrs_attrs;  /* attrs->len when it was made */
  gint target_attrs_ready;     /* atomic: nodes->len + 1 once published */
  FxsGraph *keepalive;         /* the graph whose memory this one points into */
  /* users, derived on first use (CSR over node indices); user_offsets is
   * published last, atomically, under the same lock as the name indexes */
  guint32 *user_offsets;
  const FxsNode **user_list;
};

/* Fetches the slot fxs_graph_name_position() will read for @hash. */
static inline void
fxs_graph_name_prefetch (const FxsGraph *graph, gboolean nodes, guint32 hash)
{
  fxs_table_prefetch (nodes ? &graph->node_index.table : &graph->attr_index.table, hash);
}

/* A float's bits as fxs_value_equal() compares floats, and hashes that
 * agree with it see them: bitwise (-0.0 is not 0.0), every nan alike. */
static inline guint64
fxs_float_bits (double f)
{
  guint64 bits = 0x7ff8000000000000u;
  if (!isnan (f))
    memcpy (&bits, &f, sizeof bits);
  return bits;
}

static inline gboolean
fxs_op_is_call (FxsOp op)
{
  return op == FXS_OP_CALL_FUNCTION || op == FXS_OP_CALL_METHOD || op == FXS_OP_CALL_MODULE;
}

/* Says that @graph is about to be read from a file of @bytes: a graph
 * takes about as much memory as its file, so a big one starts with big
 * arena blocks, and its node-name index is made for a node per 256 bytes
 * (graph files have 200-500 a node) instead of growing through every power
 * of two (4% of `fxsplit split` at 10^5 nodes). */
void fxs_graph_expect_file (FxsGraph *graph, gsize bytes);

/* A string that lives as long as @graph, shared with equal ones. */
const char *fxs_graph_intern (FxsGraph *graph, const char *s);

/* Metadata stored once per distinct value (meta.c): the nodes of a graph
 * mostly share a few tensor shapes and metadata values.  One share serves
 * one graph at a time (clear it for another); dtypes and symbols must be
 * interned (fxs_graph_intern), tensors in node metadata shared. */
typedef struct FxsMetaShare FxsMetaShare;
FxsMetaShare *fxs_meta_share_new (void);
void fxs_meta_share_clear (FxsMetaShare *share);
void fxs_meta_share_free (FxsMetaShare *share);
/* The graph's tensor metadata equal to @t, copied into @graph the first
 * time (@t and its arrays may be the caller's temporaries). */
const FxsTensorMeta *fxs_meta_share_tensor (FxsMetaShare *share, FxsGraph *graph,
                                            const FxsTensorMeta *t);
/* The same for node metadata: its tensors, free_symbols and extra's items
 * arrays may be temporaries, what they hold must be the graph's. */
const FxsNodeMeta *fxs_meta_share_node (FxsMetaShare *share, FxsGraph *graph,
                                        const FxsNodeMeta *meta);

/* Keep @other alive as long as @graph (its nodes or metadata are shared);
 * one such graph per graph. */
void fxs_graph_keep_alive (FxsGraph *graph, FxsGraph *other);

/* Appends a node without validation, for producers that guarantee the
 * invariants themselves (the loader, the engine).  @name must already be
 * unique and live as long as @graph; args/kwargs are copied by value.
 * @node is the node's memory, which must live as long as @graph (in a
 * graph it keeps alive, for instance), or NULL for memory of @graph's. */
FxsNode *fxs_graph_append_node_at (FxsGraph *graph, FxsNode *node, FxsOp op, const char *name,
                                   const char *target, const FxsValue *args,
                                   const FxsValue *kwargs);
/* The first node that @args or @kwargs (either may be NULL) refer to that
 * is not one of the first @limit nodes of @graph, or NULL: references must
 * be to earlier nodes of the same graph. */
const FxsNode *fxs_graph_bad_ref (const FxsGraph *graph, guint limit, const FxsValue *args,
                                  const FxsValue *kwargs);

/* Per node of @graph, the position of its target in the attribute table
 * for get_attr and call_module nodes, G_MAXUINT32 for other nodes and for
 * targets that are not in the table.  Made on first use and kept (every
 * split of the graph asks), brought up to date when nodes or attributes
 * were added since; safe to call from several threads on a finished graph. */
const guint32 *fxs_graph_target_attrs (FxsGraph *graph);

/* Appends an attribute without the duplicate check, for producers that
 * guarantee unique names (the loader, the engine).  @qualname and
 * @class_name must live as long as @graph (or a graph it keeps alive), as
 * must @attr, the attribute's memory, or NULL for memory of @graph's. */
FxsAttr *fxs_graph_append_attr_at (FxsGraph *graph, FxsAttr *attr, const char *qualname,
                                   FxsAttrKind kind, const char *class_name,
                                   const FxsTensorMeta *tensor);

#endif
