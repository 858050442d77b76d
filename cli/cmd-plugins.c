/* fxsplit plugins [NAME]: what plugins are found, and their options. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* A plugin's own text (description, help, default) as one short line. */
static char *
shown (const char *text)
{
  return fxs_text_escape (text, FXS_TEXT_MESSAGE_MAX);
}

static void
print_plugin (const FxsPlugin *plugin, gboolean verbose)
{
  char *path = cli_display_path (fxs_plugin_path (plugin));
  char *description = shown (fxs_plugin_description (plugin));
  /* the name and version were checked to need no escaping */
  printf ("%s %s (%s): %s\n", fxs_plugin_name (plugin), fxs_plugin_version (plugin),
          fxs_plugin_kind_to_string (fxs_plugin_kind (plugin)), description);
  g_free (description);
  char *file = shown (path);
  printf ("  file: %s\n", file);
  g_free (file);
  FxsPluginDirSource source, hidden_source;
  const char *hidden = fxs_plugin_shadowed_path (plugin, &source, &hidden_source);
  if (hidden)
    {
      char *hidden_shown = shown (hidden);
      printf ("  shadows: %s (%s), found before it in %s\n", hidden_shown,
              fxs_plugin_dir_source_to_string (hidden_source),
              fxs_plugin_dir_source_to_string (source));
      g_free (hidden_shown);
    }
  if (verbose)
    {
      guint major, minor;
      fxs_plugin_abi (plugin, &major, &minor);
      printf ("  built for plugin ABI %u.%u\n", major, minor);
    }
  g_free (path);
  guint n = fxs_plugin_n_options (plugin);
  if (n == 0)
    {
      printf ("  options: none\n");
      return;
    }
  printf ("  options:\n");
  for (guint i = 0; i < n; i++)
    {
      const FxsOptionSpec *o = fxs_plugin_option (plugin, i);
      char *default_value = shown (o->default_value), *help = shown (o->help);
      char *value = o->flags & FXS_OPTION_REQUIRED ? g_strdup ("required")
                    : o->default_value ? g_strdup_printf ("default %s", default_value)
                                       : g_strdup ("unset by default");
      printf ("    %s (%s, %s): %s\n", o->key, fxs_option_type_to_string (o->type), value,
              help);
      g_free (value);
      g_free (default_value);
      g_free (help);
    }
}

static void
print_search_path (const FxsPluginRegistry *registry)
{
  printf ("search path:%s\n", fxs_plugin_registry_n_dirs (registry) ? "" : " empty");
  for (guint i = 0; i < fxs_plugin_registry_n_dirs (registry); i++)
    {
      FxsPluginDirSource source;
      char *dir = shown (fxs_plugin_registry_dir (registry, i, &source));
      printf ("  %s (%s)\n", dir, fxs_plugin_dir_source_to_string (source));
      g_free (dir);
    }
}

static int
list_all (FxsPluginRegistry *registry, const CliCommon *common)
{
  GPtrArray *modules = fxs_plugin_registry_list_modules (registry);
  guint shown = 0;
  for (guint i = 0; i < modules->len; i++)
    {
      GError *error = NULL;
      /* By module name where it is one, so that what it shadows is known. */
      char *base = g_path_get_basename (modules->pdata[i]);
      base[strlen (base) - strlen (".so")] = '\0';
      gboolean by_name = *base && !g_str_has_suffix (base, ".so");
      const FxsPlugin *plugin = fxs_plugin_registry_load (registry,
                                                          by_name ? base : modules->pdata[i],
                                                          NULL, &error);
      g_free (base);
      if (!plugin)
        {
          /* One broken module does not hide the others. */
          if (!common->quiet)
            cli_fail (CLI_EXIT_PLUGIN, "warning: %s", error->message);
          g_error_free (error);
          continue;
        }
      if (shown++)
        putchar ('\n');
      print_plugin (plugin, common->verbose > 0);
    }
  if (shown == 0 && !common->quiet)
    cli_fail (CLI_EXIT_OK, "no plugins found (%u directories searched; see --verbose)",
              fxs_plugin_registry_n_dirs (registry));
  if (common->verbose)
    {
      putchar ('\n');
      print_search_path (registry);
    }
  g_ptr_array_unref (modules);
  return CLI_EXIT_OK;
}

int
cli_cmd_plugins (int argc, char **argv)
{
  CliCommon common = { 0 };
  GOptionContext *context = g_option_context_new ("[NAME] - list plugins and their options");
  g_option_context_set_summary (context,
    "Lists every plugin on the search path (--plugin-dir, FXSPLIT_PLUGIN_PATH, the\n"
    "installed plugin directory) with its kind, version, description and options,\n"
    "or only the plugin NAME (a module name or a path to a .so).");
  cli_add_common_options (context, &common);
  int code = CLI_EXIT_USAGE;
  if (!cli_parse (context, &argc, &argv))
    goto out;
  if (argc > 2)
    {
      cli_fail (CLI_EXIT_USAGE, "plugins: expected at most one plugin name (see --help)");
      goto out;
    }
  FxsPluginRegistry *registry = cli_registry_new (&common);
  if (argc == 2)
    {
      GError *error = NULL;
      const FxsPlugin *plugin = fxs_plugin_registry_load (registry, argv[1], NULL, &error);
      if (plugin)
        {
          print_plugin (plugin, TRUE);
          code = CLI_EXIT_OK;
        }
      else
        code = cli_fail_error (CLI_EXIT_PLUGIN, error);
    }
  else
    code = list_all (registry, &common);
  fxs_plugin_registry_unref (registry);
out:
  cli_common_clear (&common);
  g_option_context_free (context);
  return code;
}
