/* A split result file as loaded: its graphs, partitions table and
 * qualname map (filled by io/, checked by verify/). */
#ifndef FXS_LOADED_SPLIT_H
#define FXS_LOADED_SPLIT_H

#include <fxsplit/graph.h>

/* One entry of a split result's partitions table, what verify/ reads of it. */
typedef struct {
  char *name;
  char *submodule;
  GPtrArray *dependencies;  /* char*: partition names */
  GPtrArray *dependents;    /* char* */
} FxsLoadPartition;

/* What fxs_load_split() returns: the top-level graph, every submodule's
 * graph with its name (in file order), the partitions table and the
 * qualname map. */
typedef struct FxsLoadSplit {
  FxsGraph *top;
  GPtrArray *names;        /* char* */
  GPtrArray *submodules;   /* FxsGraph*, one reference each */
  GHashTable *qualname_map; /* new name -> old name (char*, owned) */
  GPtrArray *partitions;   /* FxsLoadPartition*, in file order */
  gboolean has_partitions; /* the file has a "partitions" member */
} FxsLoadSplit;

#endif
