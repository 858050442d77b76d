/* libFuzzer harness of pipeline files: reading (fxs_pipeline_load_file),
 * checking against the built-in and test plugins (fxs_pipeline_prepare:
 * groups, keys, option values, plugin loading, output paths, plugin init)
 * and, when that succeeds, splitting a small fixed graph with the
 * configured partitioner.  Nothing is written.
 *
 * Any input either passes or fails with one clean error line; a split
 * that succeeds must pass fxs_split_result_verify(). */
#include <glib/gstdio.h>
#include <stdint.h>

#include "fuzz-util.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* libFuzzer's entry points take no user data: what every input shares is
 * set up once per process. */
typedef struct {
  char *dir;         /* the pipeline files' directory (outputs resolve there) */
  char *path;        /* DIR/fuzz.ini */
  FxsGraph *graph;   /* split instead of [graph] input */
} Fixture;

static Fixture *
fixture (void)
{
  static Fixture f;
  return &f;
}

static void
remove_dir (void)
{
  Fixture *f = fixture ();
  g_unlink (f->path);
  g_rmdir (f->dir);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  Fixture *f = fixture ();
  GError *error = NULL;
  f->dir = g_dir_make_tmp ("fxsplit-fuzz-XXXXXX", &error);
  f->graph = f->dir ? fxs_graph_load_file (FUZZ_GRAPH, &error) : NULL;
  if (!f->graph)
    fuzz_fail ("setting up", error->message);
  f->path = g_build_filename (f->dir, "fuzz.ini", NULL);
  atexit (remove_dir);
  return 0;
}

static void
ignore_log (FxsLogLevel level, const char *line, gpointer data)
{
  (void) level;
  (void) line;
  (void) data;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  Fixture *f = fixture ();
  GError *error = NULL;
  if (!g_file_set_contents (f->path, (const char *) data, size, &error))
    fuzz_fail ("writing the input", error->message);

  FxsPluginRegistry *registry = fxs_plugin_registry_new ();
  char **dirs = g_strsplit (FUZZ_PLUGIN_PATH, ":", -1);
  for (guint i = 0; dirs[i]; i++)
    fxs_plugin_registry_add_dir (registry, FXS_PLUGIN_DIR_COMMAND_LINE, dirs[i]);
  g_strfreev (dirs);

  FxsPipeline *pipeline = fxs_pipeline_load_file (registry, f->path, &error);
  fuzz_check_outcome (pipeline != NULL, error);
  if (pipeline)
    {
      fxs_pipeline_set_log_func (pipeline, ignore_log, NULL);
      fxs_pipeline_set_graph (pipeline, f->graph);
      gboolean ok = fxs_pipeline_prepare (pipeline, &error);
      fuzz_check_outcome (ok, error);
      if (ok)
        {
          ok = fxs_pipeline_load_graph (pipeline, &error) && fxs_pipeline_split (pipeline, &error);
          fuzz_check_outcome (ok, error);
        }
      if (ok && !fxs_split_result_verify (fxs_pipeline_result (pipeline), &error))
        fuzz_fail ("a split that fxs_split_result_verify() rejects", error->message);
      fxs_pipeline_free (pipeline);
    }
  g_clear_error (&error);
  fxs_plugin_registry_unref (registry);
  return 0;
}
