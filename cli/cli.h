/* The fxsplit command: what its subcommands share. */
#ifndef FXS_CLI_H
#define FXS_CLI_H

#include <fxsplit/fxsplit.h>
#include <fxsplit/pipeline.h>

/* Exit codes (docs/cli.md). */
typedef enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_USAGE = 1,   /* command line or pipeline file */
  CLI_EXIT_GRAPH = 2,   /* the input graph */
  CLI_EXIT_PLUGIN = 3,  /* loading or running a plugin */
  CLI_EXIT_SPLIT = 4,   /* the split itself (a cycle, ...) */
  CLI_EXIT_IO = 5,      /* writing the outputs (a full disk, a permission) */
} CliExit;

/* Removes output temporaries on SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ
 * and SIGQUIT, names the plugin hook a crash happens in, and makes an
 * exit() from a plugin hook a failure (cli-signals.c). */
void cli_signals_install (void);

/* Options every subcommand takes. */
typedef struct {
  gboolean quiet;
  gint verbose;          /* how many --verbose */
  char **plugin_dirs;    /* --plugin-dir, NULL-terminated or NULL */
} CliCommon;

/* Adds --quiet, --verbose and --plugin-dir to @context, stored in @common.
 * Call it before adding the command's own main entries. */
void cli_add_common_options (GOptionContext *context, CliCommon *common);
void cli_common_clear (CliCommon *common);

/* Parses @argv with @context (owned by the caller).  On a usage error prints
 * it and returns FALSE. */
gboolean cli_parse (GOptionContext *context, int *argc, char ***argv);

/* A registry searching --plugin-dir, FXSPLIT_PLUGIN_PATH, then the
 * installed directory.  Free with fxs_plugin_registry_unref(). */
FxsPluginRegistry *cli_registry_new (const CliCommon *common);

/* The most bytes of one message line on stderr (fxs_text_escape). */
#define CLI_LINE_MAX 4096

/* Prints "fxsplit: MESSAGE" on stderr as one line, escaped and cut to
 * CLI_LINE_MAX bytes (fxs_text_escape), and returns @code. */
CliExit cli_fail (CliExit code, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* The same for @error, which is freed. */
CliExit cli_fail_error (CliExit code, GError *error);

/* @path relative to the current directory when it is under it. */
char *cli_display_path (const char *path);

/* Human-readable byte counts: "48 B", "1.5 MiB". */
char *cli_format_bytes (gint64 bytes);

/* --threads N: the pipeline's [split] threads (which checks it) and, when
 * it is a valid count, the process's limit for loading and writing too. */
void cli_set_threads (FxsPipeline *pipeline, const char *threads);

/* Runs a prepared pipeline's steps (the pipeline's graph, split and
 * write), with progress on a terminal, log lines by verbosity, and one
 * line per output on success.  Returns the exit code. */
CliExit cli_run_pipeline (FxsPipeline *pipeline, const CliCommon *common);
/* Only prepares, loads and splits (no outputs, no progress line), with log
 * lines by verbosity; CLI_EXIT_OK, or the step's exit code with @error set
 * (not printed). */
CliExit cli_split_pipeline (FxsPipeline *pipeline, const CliCommon *common, GError **error);

/* Subcommands: argv[0] is the subcommand's name. */
int cli_cmd_run (int argc, char **argv);
int cli_cmd_split (int argc, char **argv);
int cli_cmd_plugins (int argc, char **argv);
int cli_cmd_inspect (int argc, char **argv);
int cli_cmd_verify (int argc, char **argv);
int cli_cmd_compare (int argc, char **argv);

#endif
