/* fxsplit: what every plugin shares — the descriptor header, the option
 * table and the context the host hands to a plugin's hooks.
 *
 * Plugin authors include <fxsplit/partitioner.h> or <fxsplit/output.h>,
 * which include this header; docs/writing-plugins.md walks through one.
 *
 * Compatibility: a plugin records the ABI it was compiled against
 * (FXS_PLUGIN_ABI_MAJOR/MINOR) and the size of its descriptor.  The host
 * loads it only when the major numbers are equal and the plugin's minor is
 * not newer than the host's.  Minor versions only append fields at the end
 * of descriptors (the host reads no further than the recorded size) or give
 * meaning to reserved fields, which plugins leave zero.
 */
#ifndef FXSPLIT_PLUGIN_H
#define FXSPLIT_PLUGIN_H

#include <glib.h>
#include <fxsplit/api.h>
#include <fxsplit/error.h>

G_BEGIN_DECLS

#define FXS_PLUGIN_ABI_MAJOR 1
#define FXS_PLUGIN_ABI_MINOR 1

/* Marks the symbols a plugin exports to the host, so that plugins built
 * with -fvisibility=hidden still export them. */
#define FXS_PLUGIN_EXPORT __attribute__ ((visibility ("default")))

typedef enum {
  FXS_PLUGIN_PARTITIONER = 1, /* decides the partition of every node */
  FXS_PLUGIN_OUTPUT = 2,      /* writes the split result somewhere */
} FxsPluginKind;

/* ---- options -------------------------------------------------------------- */

typedef enum {
  FXS_OPTION_STRING = 1,
  FXS_OPTION_INT,         /* a 64-bit signed integer */
  FXS_OPTION_FLOAT,       /* a double */
  FXS_OPTION_BOOL,        /* true/false (also yes/no, on/off, 1/0) */
  FXS_OPTION_PATH,        /* a file to read; relative to the pipeline file */
  FXS_OPTION_OUTPUT_PATH, /* a file to write; relative to the pipeline file.
                             The host checks before anything runs that its
                             directory exists and is writable and that no two
                             outputs write the same file. */
} FxsOptionType;

/* Flags of an option. */
#define FXS_OPTION_REQUIRED (1u << 0) /* the pipeline must set it */

/* One entry of a plugin's option table.  The table is an array ended by an
 * entry whose key is NULL.  The host rejects unknown keys and values that do
 * not parse as @type, naming the valid keys, before the plugin's init runs. */
typedef struct {
  const char *key;           /* [a-z0-9_]+ */
  FxsOptionType type;
  const char *default_value; /* as it would be written in a pipeline file; NULL: unset */
  const char *help;          /* one line, shown by `fxsplit plugins` */
  guint flags;               /* FXS_OPTION_REQUIRED */
  gpointer reserved[3];      /* zero */
} FxsOptionSpec;

/* ---- the context of a plugin instance --------------------------------------- */

/* One configured instance of a plugin in a pipeline (the [partitioner] or
 * one [output NAME] group).  Owned by the host; valid during every hook
 * call of that instance. */
typedef struct FxsPluginContext FxsPluginContext;

/* "partitioner" or "output NAME": the pipeline group of this instance. */
FXS_API const char *fxs_plugin_context_label (const FxsPluginContext *ctx);

/* Whether @key was set by the pipeline or has a default. */
FXS_API gboolean    fxs_plugin_option_is_set (const FxsPluginContext *ctx, const char *key);
/* The value of @key, already validated against the option table.  Strings
 * and paths belong to the host (valid until fini); paths are absolute.
 * Unset options read as NULL, 0, 0.0 or FALSE. */
FXS_API const char *fxs_plugin_option_string (const FxsPluginContext *ctx, const char *key);
FXS_API gint64      fxs_plugin_option_int (const FxsPluginContext *ctx, const char *key);
FXS_API double      fxs_plugin_option_float (const FxsPluginContext *ctx, const char *key);
FXS_API gboolean    fxs_plugin_option_bool (const FxsPluginContext *ctx, const char *key);

/* The program that string option @key names, as a file to execute: a
 * name without '/' is looked up in PATH; one with '/' is relative to where
 * the value was set (the pipeline file's directory; the current directory
 * for --set and the command line), never to the current directory only.
 * Returns its absolute path, or NULL when @key is unset or names no
 * executable file.  Free with g_free(). */
FXS_API char       *fxs_plugin_option_program (const FxsPluginContext *ctx, const char *key);

typedef enum {
  FXS_LOG_WARNING,  /* always shown (except with --quiet) */
  FXS_LOG_INFO,     /* shown with --verbose */
  FXS_LOG_DEBUG,    /* shown with --verbose --verbose */
} FxsLogLevel;

/* Logs one line; the host prefixes it with the instance's label and plugin
 * name, so do not add them yourself. */
FXS_API void fxs_plugin_log (const FxsPluginContext *ctx, FxsLogLevel level,
                     const char *format, ...) G_GNUC_PRINTF (3, 4);

/* ---- the descriptor header --------------------------------------------------- */

/* Creates the instance's state from its options; runs once per instance,
 * before the graph is loaded.  Store the state in *@state (may be NULL) and
 * return TRUE, or set @error (domain FXS_ERROR, e.g. FXS_ERROR_OPTION for a
 * bad value) and return FALSE; fini is not called then.  The host prefixes
 * the message with the instance and plugin. */
typedef gboolean (*FxsPluginInitFunc) (FxsPluginContext *ctx, gpointer *state,
                                       GError **error);
/* Frees the state made by init. */
typedef void (*FxsPluginFiniFunc) (gpointer state);

/* The part every descriptor starts with.  Fill its first four fields with
 * FXS_PARTITIONER_ABI or FXS_OUTPUT_ABI. */
typedef struct {
  guint16 abi_major;          /* FXS_PLUGIN_ABI_MAJOR when compiled */
  guint16 abi_minor;          /* FXS_PLUGIN_ABI_MINOR when compiled */
  guint32 size;               /* sizeof the whole descriptor */
  FxsPluginKind kind;
  const char *name;           /* the module name, e.g. "modulo" */
  const char *version;        /* the plugin's own version, e.g. "1.0" */
  const char *description;    /* one line */
  const FxsOptionSpec *options; /* may be NULL: no options */
  FxsPluginInitFunc init;     /* optional */
  FxsPluginFiniFunc fini;     /* optional */
  gpointer reserved[4];       /* zero */
} FxsPluginInfo;

G_END_DECLS

#endif
