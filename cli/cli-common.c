/* What the fxsplit subcommands share: common options, errors, paths. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static gboolean
count_verbose (const char *name, const char *value, gpointer data, GError **error)
{
  (void) name;
  (void) value;
  (void) error;
  ((CliCommon *) data)->verbose++;
  return TRUE;
}

/* --plugin-dir DIR: DIR must be a directory, as [graph] plugin_dir must. */
static gboolean
add_plugin_dir (const char *name, const char *value, gpointer data, GError **error)
{
  (void) name;
  CliCommon *common = data;
  if (!g_file_test (value, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--plugin-dir: '%s' is not a directory", value);
      return FALSE;
    }
  guint n = common->plugin_dirs ? g_strv_length (common->plugin_dirs) : 0;
  common->plugin_dirs = g_renew (char *, common->plugin_dirs, n + 2);
  common->plugin_dirs[n] = g_strdup (value);
  common->plugin_dirs[n + 1] = NULL;
  return TRUE;
}

void
cli_add_common_options (GOptionContext *context, CliCommon *common)
{
  const GOptionEntry entries[] = {
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &common->quiet,
      "Print nothing but errors", NULL },
    { "verbose", 'v', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) count_verbose,
      "Say more (twice: debugging output of plugins)", NULL },
    { "plugin-dir", 'P', G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK,
      (gpointer) add_plugin_dir, "Look for plugins in DIR first (repeatable)", "DIR" },
    { NULL },
  };
  /* The main group, so that --help shows these too; a command's own
   * entries are added to it afterwards with g_option_context_add_main_entries. */
  GOptionGroup *group = g_option_group_new (NULL, NULL, NULL, common, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (context, group);
}

void
cli_common_clear (CliCommon *common)
{
  g_strfreev (common->plugin_dirs);
  common->plugin_dirs = NULL;
}

gboolean
cli_parse (GOptionContext *context, int *argc, char ***argv)
{
  GError *error = NULL;
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      cli_fail (CLI_EXIT_USAGE, "%s (see --help)", error->message);
      g_error_free (error);
      return FALSE;
    }
  return TRUE;
}

FxsPluginRegistry *
cli_registry_new (const CliCommon *common)
{
  FxsPluginRegistry *registry = fxs_plugin_registry_new ();
  for (char **d = common->plugin_dirs; d && *d; d++)
    fxs_plugin_registry_add_dir (registry, FXS_PLUGIN_DIR_COMMAND_LINE, *d);
  fxs_plugin_registry_add_default_dirs (registry);
  return registry;
}

CliExit
cli_fail (CliExit code, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  char *message = g_strdup_vprintf (format, args);
  va_end (args);
  /* Errors are one short line, whatever a plugin, a pipeline value or a
   * library put in them. */
  char *line = fxs_text_escape (message, CLI_LINE_MAX);
  fprintf (stderr, "fxsplit: %s\n", line);
  g_free (line);
  g_free (message);
  return code;
}

CliExit
cli_fail_error (CliExit code, GError *error)
{
  cli_fail (code, "%s", error->message ? error->message : "(no message)");
  g_error_free (error);
  return code;
}

char *
cli_display_path (const char *path)
{
  char *cwd = g_get_current_dir ();
  gsize len = strlen (cwd);
  char *shown;
  if (strncmp (path, cwd, len) == 0 && path[len] == '/' && path[len + 1] != '\0')
    shown = g_strdup (path + len + 1);
  else
    shown = g_strdup (path);
  g_free (cwd);
  return shown;
}

char *
cli_format_bytes (gint64 bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
  if (bytes < 1024)
    return g_strdup_printf ("%" G_GINT64_FORMAT " B", bytes);
  double v = (double) bytes;
  guint u = 0;
  for (v /= 1024; v >= 1024 && u + 1 < G_N_ELEMENTS (units); v /= 1024)
    u++;
  return g_strdup_printf ("%.1f %s", v, units[u]);
}

void
cli_set_threads (FxsPipeline *pipeline, const char *threads)
{
  guint64 n;
  fxs_pipeline_set (pipeline, "split", "threads", threads, "--threads");
  if (g_ascii_string_to_unsigned (threads, 10, 0, G_MAXUINT, &n, NULL))
    fxs_set_max_threads ((guint) n);
}
