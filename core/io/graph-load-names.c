/* Loading graph files: the strings interned in the graph being built.
 *
 * Node and attribute names are found in the graph's own name index
 * (fxs_graph_name_position(), filled as the loader reads); texts shared by
 * many nodes (dtypes, symbols) are interned here, in a table.h table. */
#include "graph-load-private.h"

#include <string.h>

typedef struct {
  FxsTableHead head;   /* tag: the text's length + 1 */
  const char *text;
} Interned;

void
fxs_load_strings_clear (FxsLoadStrings *t)
{
  if (t->table.slots)
    fxs_table_clear (&t->table);
  memset (t, 0, sizeof *t);
}

const char *
fxs_load_strings_intern (FxsLoadStrings *t, FxsGraph *graph, const char *s, gsize len,
                         guint32 hash)
{
  if (t->graph != graph)
    {
      fxs_load_strings_clear (t);
      fxs_table_init (&t->table, sizeof (Interned));
      t->graph = graph;
    }
  fxs_table_room (&t->table);
  for (gsize i = fxs_table_start (&t->table, hash);; i = fxs_table_step (&t->table, i))
    {
      Interned *e = fxs_table_at (&t->table, i);
      if (!e->head.tag)
        {
          /* padded: fxs_load_intern() compares its recent ones a word at a time */
          *e = (Interned) { { hash, (guint32) len + 1 }, fxs_load_padded_copy (&graph->arena, s, len) };
          fxs_table_added (&t->table);
          return e->text;
        }
      if (e->head.hash == hash && e->head.tag == len + 1 && memcmp (e->text, s, len) == 0)
        return e->text;
    }
}
