/* libFuzzer harness of the splitting engine: the input is decoded into a
 * graph and a partition id per node (fuzz-graph.c).  The engine either
 * fails cleanly (a cycle, a global-state region, an inconsistent graph:
 * one line) or makes a split that fxs_split_result_verify() accepts, in
 * memory and again after both are written to graph files and read back. */
#include "fuzz-graph.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_files (const FxsGraph *graph, const FxsSplitResult *result)
{
  GError *error = NULL;
  GString *text = g_string_new (NULL);
  fxs_graph_to_json (graph, text);
  FxsGraph *original = fxs_graph_load_data (text->str, text->len, "original.json", &error);
  if (!original)
    fuzz_fail ("the original graph does not load after saving", error->message);
  g_string_truncate (text, 0);
  fxs_split_result_to_json (result, text);
  FxsSplitFile *file = fxs_split_file_load_data (text->str, text->len, "split.json", &error);
  if (!file)
    fuzz_fail ("the split result does not load after saving", error->message);
  if (!fxs_split_file_verify (original, file, &error))
    fuzz_fail ("verify rejects the split read back from files", error->message);
  fxs_split_file_free (file);
  fxs_graph_unref (original);
  g_string_free (text, TRUE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  FuzzGraph fg;
  fuzz_graph_decode (data, size, &fg);
  GError *error = NULL;
  FxsSplitResult *result = fxs_split_with_ids (fg.graph, fg.ids, fg.options, &error);
  fuzz_check_outcome (result != NULL, error);
  if (!result && error->code != FXS_ERROR_CYCLE && error->code != FXS_ERROR_GLOBAL_STATE
      && error->code != FXS_ERROR_GRAPH)
    fuzz_fail ("an engine error of an unexpected kind", error->message);
  g_clear_error (&error);
  if (result)
    {
      if (!fxs_split_result_verify (result, &error))
        fuzz_fail ("verify rejects the engine's split", error->message);
      check_files (fg.graph, result);
      fxs_split_result_free (result);
    }
  fuzz_graph_clear (&fg);
  return 0;
}
