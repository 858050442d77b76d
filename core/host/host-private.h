/* Internals of the plugin host, shared by core/host/'s files and used by
 * core/pipeline/: a loaded plugin, option values, the instances (contexts)
 * that the pipeline makes and runs, and the staging of the files outputs
 * write.  Nothing here calls back into the pipeline. */
#ifndef FXS_HOST_PRIVATE_H
#define FXS_HOST_PRIVATE_H

#include <stdio.h>
#include <fxsplit/pipeline.h>
#include <fxsplit/partitioner.h>
#include <fxsplit/output.h>

/* ---- a loaded plugin (descriptor.c) ---------------------------------------- */

/* Where a module found by name was found, and the file of its name that it
 * hides later on the search path (NULL when none). */
typedef struct {
  FxsPluginDirSource source;
  char *shadowed;
  FxsPluginDirSource shadowed_source;
} FxsPluginFound;

struct FxsPlugin {
  char *path;                 /* the module file */
  char *who;                  /* "plugin 'NAME' (PATH)" escaped, for a crash handler */
  void *module;               /* its dlopen() handle */
  const FxsPluginInfo *info;  /* inside the module */
  guint n_options;
  /* Hooks beyond the common header, read only as far as the descriptor's
   * recorded size reaches. */
  FxsPartitionerPrepareFunc prepare;
  FxsPartitionerLabelFunc label;  /* ABI 1.1; NULL for 1.0 plugins */
  FxsSplitCallback callback;  /* the module's split_callback */
  FxsOutputWriteFunc write;
  FxsPluginFound found;       /* set when found by module name, hiding another */
};

/* dlopen()s exactly the file @path (absolute), every symbol resolved now,
 * and checks its descriptor: ABI, kind, hooks, option table.  Errors name
 * @path: FXS_ERROR_PLUGIN_INVALID, _ABI. */
FxsPlugin *fxs_plugin_open (const char *path, GError **error);
void       fxs_plugin_close (FxsPlugin *plugin);

/* A plugin's error message as it may be shown: escaped and cut
 * (fxs_text_escape, FXS_TEXT_MESSAGE_MAX); a missing error or message is
 * "(plugin gave no message)".  Free with g_free(). */
char      *fxs_plugin_error_text (const GError *plugin_error);

/* ---- option values (options.c) ---------------------------------------------- */

/* A parsed value; which member is meaningful follows the option's type. */
typedef struct {
  char *text;      /* strings and paths (paths made absolute); owned */
  gint64 i;
  double f;
  gboolean b;
} FxsOptionValue;

/* Parses @text as @type (booleans: true/false, yes/no, on/off, 1/0; paths
 * made absolute against @base_dir, else the current directory).  Errors:
 * FXS_ERROR_OPTION without location ("expected an integer, got 'x'"). */
gboolean fxs_option_parse (FxsOptionType type, const char *text, const char *base_dir,
                           FxsOptionValue *out, GError **error);

/* Whether @type is one of FxsOptionType's values. */
gboolean fxs_option_type_is_valid (FxsOptionType type);

/* The values of one plugin instance. */
typedef struct FxsOptions FxsOptions;

/* The defaults of @table (@n entries, outliving the result; paths relative
 * to @base_dir). */
FxsOptions *fxs_options_new (const FxsOptionSpec *table, guint n, const char *base_dir);
void        fxs_options_free (FxsOptions *options);

/* Sets @key from @text.  Errors: FXS_ERROR_OPTION, without location. */
gboolean fxs_options_set (FxsOptions *options, const char *key, const char *text,
                          const char *base_dir, GError **error);

/* The first required option that is unset, or NULL. */
const FxsOptionSpec *fxs_options_missing_required (const FxsOptions *options);

/* The value of @key, NULL when it is unset or the table has no @key; sets
 * *@spec (may be NULL) to its entry, NULL when there is none. */
const FxsOptionValue *fxs_options_get (const FxsOptions *options, const char *key,
                                       const FxsOptionSpec **spec);
/* The directory @key's value was written relative to: the @base_dir it
 * was set with, else (and for a NULL @key) fxs_options_new()'s or NULL. */
const char           *fxs_options_base_dir (const FxsOptions *options, const char *key);

/* ---- plugin instances (context.c) ------------------------------------------- */

typedef struct FxsStaging FxsStaging;

/* A configured plugin instance: the [partitioner] or one [output NAME],
 * made by core/pipeline/check.c, freed with fxs_plugin_context_free(). */
struct FxsPluginContext {
  char *label;                /* "partitioner", "output main" */
  char *prefix;               /* "FILE:LINE: [output main] json: " for messages */
  const FxsPlugin *plugin;
  FxsOptions *options;        /* owned */
  gpointer state;
  gboolean initialized;       /* init succeeded: fini is due */
  FxsLogFunc log;             /* the log sink: where fxs_plugin_log's lines go */
  gpointer log_data;          /* outlives the instance */
  FxsStaging *staging;        /* set only while write runs */
  GPtrArray *files;           /* char*: the files it wrote in the last run */
};

/* Runs the plugin's init.  Errors carry the instance's prefix. */
gboolean fxs_plugin_context_init (FxsPluginContext *ctx, GError **error);
/* Runs fini when init succeeded, and frees @ctx. */
void     fxs_plugin_context_free (FxsPluginContext *ctx);
/* After the call of @hook that fxs_plugin_context_enter() began, which
 * returned @ok: when it failed, sets @error to its error as one line that
 * names the instance, keeping its code when in FXS_ERROR (else
 * FXS_ERROR_PLUGIN_FAILED).  Consumes @hook_error; returns @ok. */
gboolean fxs_plugin_context_done (const FxsPluginContext *ctx, gboolean ok, GError *hook_error,
                                  const char *hook, GError **error);

/* Sets *@label to the label hook's label of partition @id (the plugin's,
 * valid until fini), or NULL.  One that is empty, not UTF-8 text, longer than
 * FXS_PARTITION_LABEL_MAX or holds a control character is
 * FXS_ERROR_PLUGIN_FAILED. */
gboolean fxs_plugin_context_partition_label (const FxsPluginContext *ctx, gint64 id,
                                             const char **label, GError **error);

/* The hook running, for fxs_pipeline_running_hook(); volatile, as a
 * signal handler reads it.  Not thread-local: hooks run on the pipeline's
 * thread, and a thread-local in a shared library costs a call per access. */
G_GNUC_INTERNAL extern const char *volatile fxs_running_who;
G_GNUC_INTERNAL extern const char *volatile fxs_running_hook;
G_GNUC_INTERNAL extern const FxsNode *volatile fxs_running_node;

/* Around every call of a hook (@node: split_callback's, or NULL). */
static inline void
fxs_plugin_context_enter (const FxsPluginContext *ctx, const char *hook, const FxsNode *node)
{
  fxs_running_node = node;
  fxs_running_hook = hook;
  fxs_running_who = ctx->plugin->who;
}

static inline void
fxs_plugin_context_leave (void)
{
  fxs_running_who = NULL;
}

/* Staging (staging.c): the files of fxs_output_open_file() in one run;
 * they appear together on commit or not at all. */
FxsStaging *fxs_staging_new (void);
/* Opens @path (absolute) for @owner, which must outlive @staging.
 * Errors: FXS_ERROR_IO, FXS_ERROR_CONFIG when @path was opened before. */
FILE       *fxs_staging_open (FxsStaging *staging, const char *path, const char *owner,
                              GError **error);
/* Makes every staged file appear; when one fails, none that is still
 * staged does.  Frees @staging. */
gboolean    fxs_staging_commit (FxsStaging *staging, GError **error);
/* Removes every staged file and frees @staging.  NULL is ignored. */
void        fxs_staging_abort (FxsStaging *staging);

#endif
