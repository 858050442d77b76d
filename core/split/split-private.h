/* Internals of the splitting engine, shared by split.c and uses.c
 * (analysis: which node goes where, partition order), build.c and
 * workers.c (the produced graphs) and result.c (accessors, qualnames).
 *
 * Partitions have two indices: the "dense" index, in order of first
 * appearance in the graph, used while analysing, and the position in call
 * order, FxsPartition.index.  Per-partition lists are CSR arrays indexed by
 * dense index: the items of partition p are items[offsets[p] ..
 * offsets[p + 1]). */
#ifndef FXS_SPLIT_PRIVATE_H
#define FXS_SPLIT_PRIVATE_H

#include <fxsplit/split.h>
#include "model/graph-private.h"

/* What a node does to the grad / autocast state (split_module re-enters
 * these regions in every partition they span; verify follows them). */
typedef enum {
  GLOBAL_STATE_NONE,
  GLOBAL_STATE_SET_GRAD,
  GLOBAL_STATE_ENTER_AUTOCAST,
  GLOBAL_STATE_EXIT_AUTOCAST,
} FxsGlobalState;

G_GNUC_INTERNAL FxsGlobalState fxs_global_state_of (const FxsNode *node);

/* part_of[] of nodes that are in no partition (placeholder, get_attr, output). */
#define FXS_NO_PARTITION G_MAXUINT32

typedef struct {
  guint32 *offsets;   /* n_groups + 1 entries */
  guint32 *items;
} FxsCsr;

/* A list of (group, item) pairs: a GArray of two guint32 per element. */
typedef GArray FxsPairs;

static inline FxsPairs *
fxs_pairs_new (void)
{
  return g_array_new (FALSE, FALSE, 2 * sizeof (guint32));
}

static inline void
fxs_pairs_add (FxsPairs *pairs, guint32 group, guint32 item)
{
  guint32 pair[2] = { group, item };
  g_array_append_vals (pairs, pair, 1);
}

/* Groups @item[i * @stride] (i itself when @item is NULL), i < @n, by
 * @group_of[i * @stride], in order, leaving out those whose group is
 * FXS_NO_PARTITION. */
void fxs_csr_init (FxsCsr *csr, guint n_groups, gsize n, const guint32 *group_of,
                   const guint32 *item, gsize stride);
void fxs_csr_clear (FxsCsr *csr);

/* Groups the pairs by group, keeping their order within each group. */
static inline void
fxs_csr_init_from_pairs (FxsCsr *csr, guint n_groups, const FxsPairs *pairs)
{
  const guint32 *pair = (const guint32 *) pairs->data;
  /* no pairs: no data either, and no arithmetic on NULL (found by tests/fuzz) */
  fxs_csr_init (csr, n_groups, pairs->len, pair, pairs->len ? pair + 1 : NULL, 2);
}

static inline guint
fxs_csr_count (const FxsCsr *csr, guint group)
{
  return csr->offsets[group + 1] - csr->offsets[group];
}

static inline const guint32 *
fxs_csr_items (const FxsCsr *csr, guint group)
{
  return csr->items + csr->offsets[group];
}

struct FxsPartition {
  FxsSplitResult *result;
  guint index;              /* position in call order */
  guint dense;              /* position in first-appearance order */
  gint64 id;
  const char *name;
  const char *submod_name;
  FxsGraph *graph;
  guint n_inputs;           /* inputs kept after module get_attrs are dropped */
  guint first_node;         /* graph's copy of the partition's first node: they follow in order */
  const char *label;        /* the partitioner's name for it (in strings), or NULL */
};

struct FxsSplitResult {
  FxsGraph *original;
  FxsGraph *top;
  guint n_partitions;
  FxsPartition *partitions;     /* in call order */
  FxsPartition **by_dense;
  guint32 *part_of;             /* original node index -> dense index */
  FxsCsr nodes;                 /* original node indices, graph order */
  FxsCsr inputs;                /* original node indices, first use first */
  FxsCsr outputs;
  FxsCsr dependencies;          /* dense partition indices */
  FxsCsr dependents;
  FxsItems qualnames[1];        /* new name, old name, new name, ... */
  GStringChunk *strings;        /* names, labels, the qualname map's keys */
};

struct FxsSplitOptions {
  gboolean keep_original_order;
  gboolean keep_original_node_name;
  gboolean keep_original_input_name;
  gboolean tuple_return;
  char *partition_affix;
  guint threads;
};

/* split_module()'s defaults (options.c). */
extern const FxsSplitOptions fxs_split_options_default;

/* What the analysis hands to the graph builder besides the result. */
typedef struct {
  const FxsSplitOptions *options;   /* the caller's, or the defaults */
  /* global-state nodes copied to the start of a partition (prelude) and
   * _exit_autocast nodes copied to its end (epilogue), in creation order,
   * by dense partition index */
  FxsCsr preludes;
  FxsCsr epilogues;
  /* per original node: the position of its target in the original's
   * attribute table (get_attr, call_module; fxs_graph_target_attrs, which
   * the analysis checked) */
  const guint32 *attr_of;
  /* the call_module nodes (original indices, graph order), for the
   * qualname map */
  guint32 *call_modules;
  gsize n_call_modules;
} FxsSplitPlan;

/* Sets the label of partition @index (call order): copied, NULL for none. */
void fxs_split_result_set_label (FxsSplitResult *r, guint index, const char *label);

/* Why partition use_part depends on def_part: the first use that said so. */
typedef struct {
  guint32 use_part, def_part;
  guint32 def_node, use_node;
  const char *symbol;   /* def_node binds this symbol of an input, or NULL */
} FxsDepEdge;

/* A result with nothing in it yet, keeping a reference to @graph. */
FxsSplitResult *fxs_split_result_new (FxsGraph *graph);
/* Its partitions, named after their @ids (gint64, first appearance first),
 * in that order until fxs_analysis_order(). */
void fxs_split_result_add_partitions (FxsSplitResult *r, const GArray *ids, const char *affix);

/* Fills @r's qualname map from @plan's call_module list (result.c). */
void fxs_split_make_qualname_map (FxsSplitResult *r, const FxsSplitPlan *plan);

/* Builds the graphs of @r, whose partitions, lists and order the analysis
 * has filled, and its qualname map (workers.c, on threads for big splits). */
void fxs_split_build (FxsSplitResult *r, const FxsSplitPlan *plan);

/* One builder per thread (build.c): it builds whole graphs of @r, one at a
 * time, and records the inputs each partition is passed in
 * @passed_inputs (at r->inputs' offsets). */
typedef struct FxsBuilder FxsBuilder;
FxsBuilder *fxs_builder_new (FxsSplitResult *r, const FxsSplitPlan *plan, guint32 *passed_inputs);
void        fxs_builder_free (FxsBuilder *b);
/* The graph of the partition at call-order position @k. */
void        fxs_builder_build_partition (FxsBuilder *b, guint k);
void        fxs_builder_build_top (FxsBuilder *b);

#endif
