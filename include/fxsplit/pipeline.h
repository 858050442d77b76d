/* fxsplit: hosting plugins and running pipelines.
 *
 * This is the library side of the `fxsplit` command, for programs that embed
 * fxsplit.  A registry finds and loads plugins; a pipeline is a graph file,
 * split options, one partitioner and any number of outputs, read from an
 * INI file (docs/cli.md) or built with fxs_pipeline_set(), and run in four
 * steps: prepare (load plugins, check options, create instances), load the
 * graph, split, write.
 *
 * Errors are in the FXS_ERROR domain and are one line that starts with the
 * place of the problem: "FILE:LINE: [group] key: ..." for pipeline files,
 * the origin given to fxs_pipeline_set() otherwise.
 */
#ifndef FXSPLIT_PIPELINE_H
#define FXSPLIT_PIPELINE_H

#include <glib.h>
#include <fxsplit/api.h>
#include <fxsplit/plugin.h>
#include <fxsplit/graph.h>
#include <fxsplit/split.h>

G_BEGIN_DECLS

typedef struct FxsPluginRegistry FxsPluginRegistry;
typedef struct FxsPlugin FxsPlugin;
typedef struct FxsPipeline FxsPipeline;

/* ---- the plugin search path ------------------------------------------------ */

/* Where a search directory came from; directories are searched in this
 * order, and in the order they were added within one source. */
typedef enum {
  FXS_PLUGIN_DIR_COMMAND_LINE, /* --plugin-dir */
  FXS_PLUGIN_DIR_ENVIRONMENT,  /* FXSPLIT_PLUGIN_PATH */
  FXS_PLUGIN_DIR_PIPELINE,     /* [graph] plugin_dir of a pipeline */
  FXS_PLUGIN_DIR_INSTALLED,    /* the directory plugins are installed to */
  FXS_PLUGIN_DIR_BUILD_TREE,   /* instead of INSTALLED: ../plugins/ beside the executable, when
                                  the build's marker file is there (running uninstalled) */
} FxsPluginDirSource;

/* A registry with an empty search path.  Reference counted; pipelines keep
 * a reference.  Free with fxs_plugin_registry_unref(). */
FXS_API FxsPluginRegistry *fxs_plugin_registry_new (void);
FXS_API FxsPluginRegistry *fxs_plugin_registry_ref (FxsPluginRegistry *registry);
/* Drops a reference; the last one unloads every plugin it loaded. */
FXS_API void fxs_plugin_registry_unref (FxsPluginRegistry *registry);

/* Adds @dir (copied) to the search path; duplicates are ignored. */
FXS_API void fxs_plugin_registry_add_dir (FxsPluginRegistry *registry, FxsPluginDirSource source,
                                  const char *dir);
/* Adds the directories of the FXSPLIT_PLUGIN_PATH environment variable
 * (colon-separated) and the installed plugin directory, unless the
 * environment sets FXSPLIT_NO_DEFAULT_PLUGIN_DIR=1 (tests use it to keep
 * the system's plugins out). */
FXS_API void fxs_plugin_registry_add_default_dirs (FxsPluginRegistry *registry);

/* The search path, in search order. */
FXS_API guint       fxs_plugin_registry_n_dirs (const FxsPluginRegistry *registry);
FXS_API const char *fxs_plugin_registry_dir (const FxsPluginRegistry *registry, guint i,
                                     FxsPluginDirSource *source);
/* "--plugin-dir", "FXSPLIT_PLUGIN_PATH", "plugin_dir", "installed". */
FXS_API const char *fxs_plugin_dir_source_to_string (FxsPluginDirSource source);

/* Loads a plugin named by its module name ("modulo": the first
 * DIR/modulo.so on the search path) or by a path to a module file (any
 * name containing '/' or ending in ".so"; relative to @base_dir, or to the
 * current directory when @base_dir is NULL): exactly that file when it
 * exists, else that path + ".so".  That one file is opened once (its ELF
 * constructors run then) and its descriptor checked, every pointer in it
 * first; .la files are never read.  A plugin loaded twice is the
 * same FxsPlugin.  Errors: FXS_ERROR_PLUGIN_NOT_FOUND (listing the
 * directories searched), FXS_ERROR_PLUGIN_INVALID (not a shared object, an
 * unresolved dependency, no descriptor or callback, a malformed option
 * table, a descriptor pointer into no loaded memory), FXS_ERROR_PLUGIN_ABI; each names the file tried.  The plugin
 * belongs to the registry and lives as long as it does. */
FXS_API const FxsPlugin *fxs_plugin_registry_load (FxsPluginRegistry *registry, const char *name,
                                           const char *base_dir, GError **error);

/* The module files on the search path, one per module name (the one that
 * fxs_plugin_registry_load() would pick), sorted by module name.  Nothing
 * is loaded.  Free with g_ptr_array_unref(); the strings go with it. */
FXS_API GPtrArray *fxs_plugin_registry_list_modules (const FxsPluginRegistry *registry);

/* ---- loaded plugins ------------------------------------------------------- */

FXS_API const char   *fxs_plugin_kind_to_string (FxsPluginKind kind);   /* "partitioner" */
FXS_API const char   *fxs_option_type_to_string (FxsOptionType type);   /* "int", "path" */

FXS_API FxsPluginKind fxs_plugin_kind (const FxsPlugin *plugin);
FXS_API const char   *fxs_plugin_name (const FxsPlugin *plugin);
FXS_API const char   *fxs_plugin_version (const FxsPlugin *plugin);
FXS_API const char   *fxs_plugin_description (const FxsPlugin *plugin);
/* The module file it was loaded from. */
FXS_API const char   *fxs_plugin_path (const FxsPlugin *plugin);
/* When the plugin was loaded by its module name and another file of that
 * name comes later on the search path (a plugin_dir's json.so before the
 * built-in one): that file, which it hides; else NULL.  @source and
 * @shadowed_source (may be NULL) receive where each was found. */
FXS_API const char   *fxs_plugin_shadowed_path (const FxsPlugin *plugin, FxsPluginDirSource *source,
                                        FxsPluginDirSource *shadowed_source);
/* The ABI version the plugin was built against. */
FXS_API void          fxs_plugin_abi (const FxsPlugin *plugin, guint *major, guint *minor);
/* The option table, without its terminator. */
FXS_API guint                fxs_plugin_n_options (const FxsPlugin *plugin);
FXS_API const FxsOptionSpec *fxs_plugin_option (const FxsPlugin *plugin, guint i);

/* ---- pipelines ------------------------------------------------------------- */

/* An empty pipeline (relative paths are resolved against the current
 * directory).  Keeps a reference to @registry.  Free with
 * fxs_pipeline_free(). */
FXS_API FxsPipeline *fxs_pipeline_new (FxsPluginRegistry *registry);
FXS_API void         fxs_pipeline_free (FxsPipeline *pipeline);

/* Reads an INI pipeline file.  Only the file's syntax is checked here
 * (FXS_ERROR_IO, FXS_ERROR_CONFIG with FILE:LINE); groups, keys and values
 * are checked by fxs_pipeline_prepare(), after fxs_pipeline_set() had the
 * chance to override them.  Relative paths in it are relative to its
 * directory. */
FXS_API FxsPipeline *fxs_pipeline_load_file (FxsPluginRegistry *registry, const char *path,
                                     GError **error);

/* Sets @key in @group ("graph", "split", "partitioner", "output NAME") to
 * @value as a pipeline file would, replacing an earlier value.  @origin
 * names the setting in error messages ("--set split.tuple_return"; NULL
 * for "[group] key").  A relative path in @value is relative to the
 * current directory. */
FXS_API void fxs_pipeline_set (FxsPipeline *pipeline, const char *group, const char *key,
                       const char *value, const char *origin);

/* Uses @graph (a reference is taken) instead of loading [graph] input. */
FXS_API void fxs_pipeline_set_graph (FxsPipeline *pipeline, FxsGraph *graph);

/* Called with the name of each step as it starts ("loading", "splitting",
 * "writing"); while splitting, every few thousand nodes with the call nodes
 * done out of @total; while writing, before each output with the outputs
 * done out of @total.  @total is 0 when there is nothing to count. */
typedef void (*FxsProgressFunc) (const char *step, guint64 done, guint64 total,
                                 gpointer user_data);
FXS_API void fxs_pipeline_set_progress_func (FxsPipeline *pipeline, FxsProgressFunc func,
                                     gpointer user_data);

/* Receives the log lines of plugins (already prefixed with the instance)
 * and of the host.  Without one, lines go to g_log() in the "fxsplit"
 * domain (warnings as G_LOG_LEVEL_MESSAGE). */
typedef void (*FxsLogFunc) (FxsLogLevel level, const char *line, gpointer user_data);
FXS_API void fxs_pipeline_set_log_func (FxsPipeline *pipeline, FxsLogFunc func, gpointer user_data);

/* Step 1: checks every group, key and value, loads the plugins (adding
 * [graph] plugin_dir to the registry's search path), checks output paths
 * and creates the plugin instances.  Errors: FXS_ERROR_CONFIG,
 * FXS_ERROR_OPTION, FXS_ERROR_PLUGIN_* (init failures are
 * FXS_ERROR_PLUGIN_FAILED). */
FXS_API gboolean fxs_pipeline_prepare (FxsPipeline *pipeline, GError **error);
/* Step 2: loads [graph] input (nothing to do after fxs_pipeline_set_graph).
 * Errors are those of fxs_graph_load_file().  For a file of 4 MiB or more,
 * when two threads are allowed (fxs_set_max_threads), a thread of the
 * library's faults in memory for the load and the split meanwhile (about
 * twice the file's size, in huge pages); it ends with the next
 * fxs_pipeline_split() (or fxs_pipeline_free()). */
FXS_API gboolean fxs_pipeline_load_graph (FxsPipeline *pipeline, GError **error);
/* Step 3: runs the partitioner's prepare hook and the split.  Errors are
 * those of fxs_split() and FXS_ERROR_PLUGIN_FAILED from prepare. */
FXS_API gboolean fxs_pipeline_split (FxsPipeline *pipeline, GError **error);
/* Step 4: runs every output and then makes their files appear, or none of
 * them.  Errors: FXS_ERROR_PLUGIN_FAILED, FXS_ERROR_IO, FXS_ERROR_CONFIG. */
FXS_API gboolean fxs_pipeline_write (FxsPipeline *pipeline, GError **error);
/* All four steps. */
FXS_API gboolean fxs_pipeline_run (FxsPipeline *pipeline, GError **error);

/* The graph and the split result, once the steps made them (else NULL).
 * They belong to the pipeline. */
FXS_API const FxsGraph       *fxs_pipeline_graph (const FxsPipeline *pipeline);
FXS_API const FxsSplitResult *fxs_pipeline_result (const FxsPipeline *pipeline);

/* The outputs, in pipeline order, after a successful fxs_pipeline_write():
 * the group name ("output main"), the plugin name and the files it wrote. */
FXS_API guint       fxs_pipeline_n_outputs (const FxsPipeline *pipeline);
FXS_API const char *fxs_pipeline_output_label (const FxsPipeline *pipeline, guint i);
FXS_API const char *fxs_pipeline_output_plugin (const FxsPipeline *pipeline, guint i);
FXS_API guint       fxs_pipeline_output_n_files (const FxsPipeline *pipeline, guint i);
FXS_API const char *fxs_pipeline_output_file (const FxsPipeline *pipeline, guint i, guint j);

/* Which plugin hook a pipeline of this process is running (the last one
 * entered, when pipelines run on several threads), for a crash or exit
 * handler: sets @plugin to "plugin 'NAME' (PATH)" (escaped as
 * fxs_text_escape() does, at most 600 bytes), @hook to "init", "prepare", "split_callback", "label", "write" or
 * "fini", and @node to the name of the node split_callback was called for
 * (raw text from the graph) or NULL.  FALSE when no hook runs.
 * Async-signal-safe. */
FXS_API gboolean fxs_pipeline_running_hook (const char **plugin, const char **hook, const char **node);

G_END_DECLS

#endif
