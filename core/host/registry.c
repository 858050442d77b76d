/* The plugin search path and the plugins loaded from it. */
#include "host-private.h"
#include "host-config.h"
#include "util/getter.h"

#include <glib/gstdio.h>
#include <string.h>

/* Plugins are ELF shared objects on every platform fxsplit supports. */
#define MODULE_SUFFIX ".so"

typedef struct {
  char *dir;
  FxsPluginDirSource source;
} SearchDir;

struct FxsPluginRegistry {
  gint ref_count;
  GArray *dirs;          /* SearchDir, in search order */
  GHashTable *by_path;   /* module file -> FxsPlugin*, owned */
};

static void
search_dir_clear (gpointer data)
{
  g_free (((SearchDir *) data)->dir);
}

FxsPluginRegistry *
fxs_plugin_registry_new (void)
{
  FxsPluginRegistry *r = g_new0 (FxsPluginRegistry, 1);
  r->ref_count = 1;
  r->dirs = g_array_new (FALSE, FALSE, sizeof (SearchDir));
  g_array_set_clear_func (r->dirs, search_dir_clear);
  r->by_path = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                      (GDestroyNotify) fxs_plugin_close);
  return r;
}

FxsPluginRegistry *
fxs_plugin_registry_ref (FxsPluginRegistry *registry)
{
  g_return_val_if_fail (registry != NULL, NULL);
  g_atomic_int_inc (&registry->ref_count);
  return registry;
}

void
fxs_plugin_registry_unref (FxsPluginRegistry *registry)
{
  if (!registry || !g_atomic_int_dec_and_test (&registry->ref_count))
    return;
  g_hash_table_unref (registry->by_path);
  g_array_unref (registry->dirs);
  g_free (registry);
}

const char *
fxs_plugin_dir_source_to_string (FxsPluginDirSource source)
{
  static const char *const names[] = {
    "--plugin-dir", "FXSPLIT_PLUGIN_PATH", "plugin_dir", "installed", "build tree",
  };
  return (guint) source < G_N_ELEMENTS (names) ? names[source] : "unknown";
}

void
fxs_plugin_registry_add_dir (FxsPluginRegistry *registry, FxsPluginDirSource source,
                             const char *dir)
{
  g_return_if_fail (registry != NULL && dir != NULL && *dir != '\0');
  char *path = g_canonicalize_filename (dir, NULL);
  guint pos = registry->dirs->len;
  for (guint i = 0; i < registry->dirs->len; i++)
    {
      const SearchDir *d = &g_array_index (registry->dirs, SearchDir, i);
      if (strcmp (d->dir, path) == 0)
        {
          g_free (path);
          return;
        }
      if (d->source > source && pos == registry->dirs->len)
        pos = i;
    }
  SearchDir entry = { path, source };
  g_array_insert_val (registry->dirs, pos, entry);
}

/* build/plugins beside an uninstalled build/cli/fxsplit, or NULL: only the
 * build writes FXS_BUILD_TREE_MARKER there, nothing installs it. */
static char *
build_tree_plugin_dir (void)
{
  char *exe = g_file_read_link ("/proc/self/exe", NULL);
  if (!exe)
    return NULL;
  char *bin = g_path_get_dirname (exe);
  char *dir = g_build_filename (bin, "..", "plugins", NULL);
  char *marker = g_build_filename (dir, FXS_BUILD_TREE_MARKER, NULL);
  if (!g_file_test (marker, G_FILE_TEST_IS_REGULAR))
    g_clear_pointer (&dir, g_free);
  g_free (marker);
  g_free (bin);
  g_free (exe);
  return dir;
}

void
fxs_plugin_registry_add_default_dirs (FxsPluginRegistry *registry)
{
  const char *env = g_getenv ("FXSPLIT_PLUGIN_PATH");
  if (env)
    {
      char **dirs = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
      for (char **d = dirs; *d; d++)
        if (**d)
          fxs_plugin_registry_add_dir (registry, FXS_PLUGIN_DIR_ENVIRONMENT, *d);
      g_strfreev (dirs);
    }
  if (g_strcmp0 (g_getenv ("FXSPLIT_NO_DEFAULT_PLUGIN_DIR"), "1") == 0)
    return;
  char *built = build_tree_plugin_dir ();
  if (built)
    fxs_plugin_registry_add_dir (registry, FXS_PLUGIN_DIR_BUILD_TREE, built);
  else
    fxs_plugin_registry_add_dir (registry, FXS_PLUGIN_DIR_INSTALLED, FXS_INSTALLED_PLUGIN_DIR);
  g_free (built);
}

FXS_GETTER (guint, fxs_plugin_registry_n_dirs, FxsPluginRegistry, r, r->dirs->len, 0)

const char *
fxs_plugin_registry_dir (const FxsPluginRegistry *registry, guint i, FxsPluginDirSource *source)
{
  g_return_val_if_fail (i < registry->dirs->len, NULL);
  const SearchDir *d = &g_array_index (registry->dirs, SearchDir, i);
  if (source)
    *source = d->source;
  return d->dir;
}

static char *
searched_dirs (const FxsPluginRegistry *registry)
{
  if (registry->dirs->len == 0)
    return g_strdup ("the plugin search path is empty: use --plugin-dir or FXSPLIT_PLUGIN_PATH");
  GString *s = g_string_new ("searched: ");
  for (guint i = 0; i < registry->dirs->len; i++)
    {
      const SearchDir *d = &g_array_index (registry->dirs, SearchDir, i);
      g_string_append_printf (s, "%s%s (%s)", i ? ", " : "", d->dir,
                              fxs_plugin_dir_source_to_string (d->source));
    }
  return g_string_free (s, FALSE);
}

/* The module file that @name designates, or NULL with @error set.  A name
 * with '/' or ending in ".so" is a path: exactly that file when it exists,
 * else that path + ".so".  Any other name is NAME.so in the first search
 * directory that has one (@found says which, and what it hides). */
static char *
resolve_module (const FxsPluginRegistry *registry, const char *name, const char *base_dir,
                FxsPluginFound *found, GError **error)
{
  if (strchr (name, '/') || g_str_has_suffix (name, MODULE_SUFFIX))
    {
      char *path = g_canonicalize_filename (name, base_dir);
      char *with_suffix = g_strconcat (path, MODULE_SUFFIX, NULL), *found = NULL;
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        found = g_steal_pointer (&path);
      else if (!g_str_has_suffix (path, MODULE_SUFFIX)
               && g_file_test (with_suffix, G_FILE_TEST_EXISTS))
        found = g_steal_pointer (&with_suffix);
      else
        g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_NOT_FOUND,
                     "plugin file '%s' does not exist", path);
      g_free (path);
      g_free (with_suffix);
      return found;
    }
  if (*name == '\0')
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_NOT_FOUND, "empty plugin name");
      return NULL;
    }
  /* the first NAME.so, and the first after it that is another file (not
   * the same one through a link) */
  char *file = g_strconcat (name, MODULE_SUFFIX, NULL), *path = NULL;
  GStatBuf first, other;
  gboolean have_first = FALSE;
  for (guint i = 0; i < registry->dirs->len && !found->shadowed; i++)
    {
      const SearchDir *d = &g_array_index (registry->dirs, SearchDir, i);
      char *candidate = g_build_filename (d->dir, file, NULL);
      gboolean exists = g_file_test (candidate, G_FILE_TEST_EXISTS);
      if (exists && !path)
        {
          have_first = g_stat (candidate, &first) == 0;
          path = g_steal_pointer (&candidate);
          found->source = d->source;
        }
      else if (exists
               && (!have_first || g_stat (candidate, &other) != 0
                   || other.st_dev != first.st_dev || other.st_ino != first.st_ino))
        {
          found->shadowed = g_steal_pointer (&candidate);
          found->shadowed_source = d->source;
        }
      g_free (candidate);
    }
  if (!path)
    {
      char *dirs = searched_dirs (registry);
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_NOT_FOUND,
                   "unknown plugin '%s': no %s (%s)", name, file, dirs);
      g_free (dirs);
    }
  g_free (file);
  return path;
}

const FxsPlugin *
fxs_plugin_registry_load (FxsPluginRegistry *registry, const char *name, const char *base_dir,
                          GError **error)
{
  g_return_val_if_fail (registry != NULL && name != NULL, NULL);
  FxsPluginFound found = { 0 };
  char *path = resolve_module (registry, name, base_dir, &found, error);
  if (!path)
    return NULL;
  FxsPlugin *plugin = g_hash_table_lookup (registry->by_path, path);
  if (!plugin)
    {
      plugin = fxs_plugin_open (path, error);
      if (plugin)
        g_hash_table_insert (registry->by_path, plugin->path, plugin);
    }
  if (plugin && found.shadowed && !plugin->found.shadowed)
    {
      plugin->found = found;
      found.shadowed = NULL;
    }
  g_free (found.shadowed);
  g_free (path);
  return plugin;
}

static gint
compare_basenames (gconstpointer a, gconstpointer b)
{
  const char *pa = *(const char *const *) a, *pb = *(const char *const *) b;
  return strcmp (strrchr (pa, '/') + 1, strrchr (pb, '/') + 1);
}

GPtrArray *
fxs_plugin_registry_list_modules (const FxsPluginRegistry *registry)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < registry->dirs->len; i++)
    {
      const SearchDir *d = &g_array_index (registry->dirs, SearchDir, i);
      GDir *dir = g_dir_open (d->dir, 0, NULL);
      if (!dir)
        continue;
      const char *entry;
      while ((entry = g_dir_read_name (dir)))
        {
          if (!g_str_has_suffix (entry, MODULE_SUFFIX) || entry[0] == '.'
              || g_hash_table_contains (seen, entry))
            continue;
          char *path = g_build_filename (d->dir, entry, NULL);
          if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
            {
              g_hash_table_add (seen, g_strdup (entry));
              g_ptr_array_add (paths, path);
            }
          else
            g_free (path);
        }
      g_dir_close (dir);
    }
  g_hash_table_unref (seen);
  g_ptr_array_sort (paths, compare_basenames);
  return paths;
}
