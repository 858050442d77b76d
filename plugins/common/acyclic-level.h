/* One level of mincut's multilevel scheme: a DAG whose nodes are clusters
 * of call nodes, with the values between them as nets, and the acyclic
 * coarsening that builds the next level (acyclic-level.c). */
#ifndef FXS_PARTS_ACYCLIC_LEVEL_H
#define FXS_PARTS_ACYCLIC_LEVEL_H

#include "call-dag.h"

#define LEVEL_NONE G_MAXUINT32

/* Nodes are numbered in a topological order: every edge u -> v has u < v.
 * A net is one value: its producer (src, or LEVEL_NONE when the producer
 * lies outside this graph) and the distinct nodes that hold it (pins: the
 * producer's node and its users' nodes, at least two).  The cut of a
 * partition is the sum over nets of w * (parts the net touches - 1), which
 * is call_dag_cut on level 0: a value's bytes once for every other part
 * that uses it. */
typedef struct {
  guint n;
  gint64 *cost;
  guint n_nets;
  guint32 *net_off;     /* n_nets + 1 offsets into pins */
  guint32 *pins;
  guint32 *net_src;
  gint64 *net_w;
  guint32 *node_off;    /* n + 1 offsets into node_nets */
  guint32 *node_nets;   /* the nets each node is a pin of */
  guint32 *pred_off, *preds;   /* distinct DAG neighbours, from the nets */
  guint32 *succ_off, *succs;
} Level;

/* The call DAG as a level: one net per call node with users. */
Level *level_from_dag (const CallDag *dag, const gint64 *cost, const gint64 *bytes);

/* The subgraph induced by the @n_keep nodes @keep (increasing): nets keep
 * their pins inside (a net leaving one is dropped); a net whose producer
 * is outside keeps no src.  This splits nets the way recursive bisection
 * needs: the cut of the whole is the cut between the halves plus the
 * halves' cuts. */
Level *level_induced (const Level *level, const guint32 *keep, guint n_keep);

/* A topological order of @level (n entries into @order), depth first so a
 * node tends to follow one of its producers; @seed orders the nodes that
 * become ready together (the same seed, the same order). */
void   level_dfs_order (const Level *level, guint64 seed, guint32 *order);

/* The next coarser level: pairs of nodes adjacent in a topological order
 * that share nets, chosen by a maximum-weight matching on that path
 * (weight: the nets they share, w / (pins - 1) each), a pair's cost at
 * most @cap.  The order is the level's numbering (which keeps what graph
 * order keeps together), or a depth-first one from @seed when the
 * numbering would not remove @min_shrink of the nodes.  @map (n entries)
 * receives each node's coarse node.  NULL when neither order would. */
Level *level_coarsen (const Level *level, gint64 cap, guint64 seed, double min_shrink,
                      guint32 *map);

/* The cut of the 0/1 assignment @side (sum of w over nets with pins on
 * both sides). */
gint64 level_cut2 (const Level *level, const guint8 *side);

void   level_free (Level *level);

#endif
