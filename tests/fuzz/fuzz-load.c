/* libFuzzer harness of the graph loader (fxs_graph_load_data) and of its
 * whole-split-result mode (fxs_split_file_load_data).
 *
 * Any input either loads or fails with one clean error line.  A graph that
 * loads is written back and must load again and write the same text
 * (load(save(g)) == g, docs/graph-format.md).  The whole-file mode checks
 * everything the top-level mode does and builds the submodules too, so a
 * file it accepts must load in the top-level mode.  Loading the input a
 * second time gives the same graph or the same error (no state of one load
 * leaks into the next). */
#include <stdint.h>
#include <string.h>

#include "fuzz-util.h"

/* Loading the input again gives what the first loading gave (@graph or
 * @error): the same graph or the same error.  @how names the way in a
 * failure. */
static void
check_same_load (const uint8_t *data, size_t size, const FxsGraph *graph, const GError *error,
                 const char *how)
{
  GError *again_error = NULL;
  FxsGraph *again = fxs_graph_load_data ((const char *) data, size, "fuzz.json", &again_error);
  char what[160];
  if (!again != !graph)
    {
      g_snprintf (what, sizeof what, "%s: whether the input loads is not the same", how);
      fuzz_fail (what, again_error ? again_error->message : error->message);
    }
  if (again)
    {
      GString *a = g_string_new (NULL), *b = g_string_new (NULL);
      fxs_graph_to_json (graph, a);
      fxs_graph_to_json (again, b);
      g_snprintf (what, sizeof what, "%s: another graph", how);
      if (!g_string_equal (a, b))
        fuzz_fail (what, NULL);
      g_string_free (a, TRUE);
      g_string_free (b, TRUE);
      fxs_graph_unref (again);
    }
  else if (strcmp (again_error->message, error->message) != 0 || again_error->code != error->code)
    {
      g_snprintf (what, sizeof what, "%s: another error", how);
      fuzz_fail (what, again_error->message);
    }
  g_clear_error (&again_error);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  FxsSplitFile *file = fxs_split_file_load_data ((const char *) data, size, "fuzz.json", &error);
  fuzz_check_outcome (file != NULL, error);
  g_clear_error (&error);
  FxsGraph *graph = fxs_graph_load_data ((const char *) data, size, "fuzz.json", &error);
  fuzz_check_outcome (graph != NULL, error);
  check_same_load (data, size, graph, error, "loaded again");
  if (file && !graph)
    fuzz_fail ("a whole split result loads, its top-level graph alone does not", error->message);
  fxs_split_file_free (file);
  g_clear_error (&error);
  if (!graph)
    return 0;

  GString *text = g_string_new (NULL);
  fxs_graph_to_json (graph, text);
  FxsGraph *again = fxs_graph_load_data (text->str, text->len, "saved.json", &error);
  if (!again)
    fuzz_fail ("a graph that loaded does not load again after saving", error->message);
  GString *text2 = g_string_new (NULL);
  fxs_graph_to_json (again, text2);
  if (!g_string_equal (text, text2))
    fuzz_fail ("saving a reloaded graph gives other text", NULL);
  g_string_free (text, TRUE);
  g_string_free (text2, TRUE);
  fxs_graph_unref (again);
  fxs_graph_unref (graph);
  return 0;
}
