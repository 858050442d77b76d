/* Verifying a split: what verify.c (value numbering, symbolic evaluation,
 * the checks, the entry points), values.c (argument values and messages)
 * and table.c (a split file's partitions table) share. */
#ifndef FXS_VERIFY_PRIVATE_H
#define FXS_VERIFY_PRIVATE_H

#include <fxsplit/verify.h>

#include "model/graph-private.h"
#include "split/split-private.h"
#include "util/table.h"

/* A node's entry in its scope's table: a value number, a structure
 * (STRUCT | index into structs), or nothing yet. */
#define VAL_NONE G_MAXUINT32
#define VAL_STRUCT 0x80000000u

/* One evaluation of a graph: the original, the top-level graph, or a
 * submodule inlined at its call. */
typedef struct Scope Scope;
struct Scope {
  const FxsGraph *graph;
  const char *name;          /* submodule name; NULL for the original and the top level */
  guint32 state;             /* grad/autocast state after the nodes evaluated so far */
  const FxsNode *call;       /* the top-level call_module inlining this submodule */
  guint32 val[];             /* per node */
};

/* A value with its scope after following node references to what they
 * stand for: either a value number (@vn, @value NULL) or a literal value
 * (a constant or container) read in @scope. */
typedef struct {
  guint32 vn;
  const FxsValue *value;
  Scope *scope;
} Resolved;

typedef struct {
  guint32 rep;               /* the original node with this number */
  guint32 n_orig;            /* original call nodes with this number */
  guint32 n_split;           /* split nodes found computing it */
  gsize key;                 /* where in Verifier.keys its key is (verify.c) */
  guint32 key_len;
  const FxsNode *first;      /* the first split node computing it, in its scope */
  const Scope *first_scope;
} Vn;

typedef struct {
  GHashTable *submodules;    /* the split's: name -> graph */
  GHashTable *qualnames;     /* new name -> old name, or NULL */
  Scope *orig;
  Scope *top;
  GArray *placeholders;      /* guint32: the original's placeholder nodes */
  GArray *vns;               /* Vn */
  FxsTable numbers;          /* vns by key: FxsTableHead (hash, vn + 1) */
  GString *keys;             /* the keys of the vns, one after the other */
  GArray *structs;           /* Resolved: values nodes stand for without computing
                              * them (a submodule's returned tuple, an item of it) */
  GPtrArray *scopes;         /* Scope*: orig, top, then each submodule called */
  GHashTable *called;        /* submodule graphs already inlined */
  /* grad/autocast states: a state is (last set_grad value number + 1,
   * autocast stack); stacks are (parent stack, entered value number).
   * Both are pairs numbered by one table: equal pairs, equal numbers;
   * pair 0, (0, 0), is the first state and the empty stack. */
  FxsIdMap pair_ids;
  GArray *pairs;             /* guint64 fxs_id_pair() per number */
  GPtrArray *texts;          /* char*: the texts of a message being made */
  GError *error;
} Verifier;

/* ---- values (values.c) ---------------------------------------------------- */

/* What @value stands for in @scope once node references are followed. */
G_GNUC_INTERNAL Resolved fxs_verify_resolve (const Verifier *v, const FxsValue *value, Scope *scope);
/* Appends to @out a text for what @value stands for in @scope: equal
 * texts for values that match (a reference is its value number; with
 * @as_is, as for dict keys, which torch.fx never maps, the node itself). */
G_GNUC_INTERNAL void     fxs_verify_encode (const Verifier *v, GString *out, const FxsValue *value,
                                            Scope *scope, gboolean as_is);
/* Appends @tag and @word to @out: one unit of such a text. */
G_GNUC_INTERNAL void     fxs_verify_encode_word (GString *out, guint8 tag, guint64 word);
/* Whether @a in @sa (the split's) and @b in @sb (the original's) stand
 * for different values: FALSE when they match.  Appends to @out where
 * they first differ and how ("[1] is 3 where the original has 2"). */
G_GNUC_INTERNAL gboolean fxs_verify_first_difference (const Verifier *v, const FxsValue *a, Scope *sa,
                                                      const FxsValue *b, Scope *sb, GString *out);
/* "the value of original node "x"", "3", "a tuple of 2", ... */
G_GNUC_INTERNAL void     fxs_verify_describe_resolved (const Verifier *v, GString *out, Resolved r);
/* "None", "an int", ... */
G_GNUC_INTERNAL const char *fxs_verify_kind_name (FxsValueKind kind);

/* ---- messages (values.c) ---------------------------------------------------------- */

/* Sets v->error (FXS_ERROR_VERIFY) unless it is set; FALSE. */
G_GNUC_INTERNAL gboolean fxs_verify_fail (Verifier *v, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Texts for a message, owned by @v until the check ends: @s's (freed),
 * @node's description in @scope ("submod_1: node "add_1" (call_function
 * "_operator.add")", "top-level node ...", "original node ..."), @text
 * quoted. */
G_GNUC_INTERNAL const char *fxs_verify_keep (Verifier *v, GString *s);
G_GNUC_INTERNAL const char *fxs_verify_node (Verifier *v, const Scope *scope, const FxsNode *node);
G_GNUC_INTERNAL const char *fxs_verify_quoted (Verifier *v, const char *text);

/* ---- a split result file's partitions table (table.c) --------------------- */

/* Checks the partitions table of @parts (a loaded split result file whose
 * submodules are @submodules: name -> graph) against its graphs; a file
 * without a table, or without submodules when @original has call nodes,
 * is no split of it.  FXS_ERROR_VERIFY. */
typedef struct FxsLoadSplit FxsLoadSplit;
G_GNUC_INTERNAL gboolean fxs_verify_partition_table (const FxsGraph *original,
                                                     const FxsLoadSplit *parts,
                                                     GHashTable *submodules, GError **error);

#endif
