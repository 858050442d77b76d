/* Loading graph files: the strings interned in the graph being built.
 *
 * Node and attribute names are found in the graph's own name index
 * (fxs_graph_name_position(), filled as the loader reads); texts shared by
 * many nodes (dtypes, symbols: few) are interned here, behind the
 * loader's cache of recent ones (fxs_load_intern()). */
#include "graph-load-private.h"

#include <string.h>

void
fxs_load_strings_clear (FxsLoadStrings *t)
{
  if (t->table)
    g_hash_table_unref (t->table);
  memset (t, 0, sizeof *t);
}

const char *
fxs_load_strings_intern (FxsLoadStrings *t, FxsGraph *graph, const char *s, gsize len)
{
  if (t->graph != graph)
    {
      fxs_load_strings_clear (t);
      t->table = g_hash_table_new (g_str_hash, g_str_equal);
      t->graph = graph;
    }
  char *text = g_hash_table_lookup (t->table, s);
  if (!text)
    {
      /* padded: fxs_load_intern() compares its recent ones a word at a time */
      text = (char *) fxs_load_padded_copy (&graph->arena, s, len);
      g_hash_table_add (t->table, text);
    }
  return text;
}
