/* libFuzzer harness of the graph loader (fxs_graph_load_data) and of its
 * whole-split-result mode (fxs_split_file_load_data).
 *
 * Any input either loads or fails with one clean error line.  A graph that
 * loads is written back and must load again and write the same text
 * (load(save(g)) == g, docs/graph-format.md).  The whole-file mode checks
 * everything the top-level mode does and builds the submodules too, so a
 * file it accepts must load in the top-level mode.  Loading goes the fast
 * way first (core/json-reader-fast.c); the general path alone must give
 * the same graph or the same error, and so must the fast path reading the
 * input through a small window, as it reads files. */
#include <stdint.h>
#include <string.h>

#include "fuzz-util.h"
#include "json-reader.h"

/* The general path alone agrees with what the fast path first gave. */
static void
check_general_path (const uint8_t *data, size_t size, const FxsGraph *graph, const GError *error)
{
  fxs_json_reader_set_fast_path (FXS_JSON_FAST_NEVER);
  GError *general_error = NULL;
  FxsGraph *general = fxs_graph_load_data ((const char *) data, size, "fuzz.json",
                                           &general_error);
  fxs_json_reader_set_fast_path (FXS_JSON_FAST_AUTO);
  if (!general != !graph)
    fuzz_fail ("the fast path and the general path disagree on whether the input loads",
               general_error ? general_error->message : error->message);
  if (general)
    {
      GString *a = g_string_new (NULL), *b = g_string_new (NULL);
      fxs_graph_to_json (graph, a);
      fxs_graph_to_json (general, b);
      if (!g_string_equal (a, b))
        fuzz_fail ("the fast path and the general path load different graphs", NULL);
      g_string_free (a, TRUE);
      g_string_free (b, TRUE);
      fxs_graph_unref (general);
    }
  else if (strcmp (general_error->message, error->message) != 0
           || general_error->code != error->code)
    fuzz_fail ("the fast path first gives another error than the general path",
               general_error->message);
  g_clear_error (&general_error);
}

/* Read through a small window, as a file is (its size from the input, so
 * the window's edges fall everywhere), the input gives the same graph or
 * the same error. */
static void
check_windowed (const uint8_t *data, size_t size, const FxsGraph *graph, const GError *error)
{
  fxs_json_reader_set_fast_path (FXS_JSON_FAST_WINDOWED);
  fxs_json_reader_set_fast_window (1 + (size ? data[size / 2] % 64 : 0));
  GError *windowed_error = NULL;
  FxsGraph *windowed = fxs_graph_load_data ((const char *) data, size, "fuzz.json",
                                            &windowed_error);
  fxs_json_reader_set_fast_window (0);
  fxs_json_reader_set_fast_path (FXS_JSON_FAST_AUTO);
  if (!windowed != !graph)
    fuzz_fail ("reading through the window and in memory disagree on whether the input loads",
               windowed_error ? windowed_error->message : error->message);
  if (windowed)
    {
      GString *a = g_string_new (NULL), *b = g_string_new (NULL);
      fxs_graph_to_json (graph, a);
      fxs_graph_to_json (windowed, b);
      if (!g_string_equal (a, b))
        fuzz_fail ("reading through the window and in memory load different graphs", NULL);
      g_string_free (a, TRUE);
      g_string_free (b, TRUE);
      fxs_graph_unref (windowed);
    }
  else if (strcmp (windowed_error->message, error->message) != 0
           || windowed_error->code != error->code)
    fuzz_fail ("reading through the window gives another error", windowed_error->message);
  g_clear_error (&windowed_error);
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
  check_general_path (data, size, graph, error);
  check_windowed (data, size, graph, error);
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
