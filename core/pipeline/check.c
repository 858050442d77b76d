/* Checking a pipeline's groups, keys and values, loading its plugins and
 * setting up their instances (everything before any plugin hook runs;
 * loading a plugin runs its ELF constructors). */
#include "pipeline-private.h"
#include "util/atomic-file.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const graph_keys[] = { "input", "plugin_dir", NULL };
static const char *const split_keys[] = {
  "keep_original_order", "keep_original_node_name", "keep_original_input_name",
  "partition_affix", "tuple_return", "threads", NULL,
};
/* The setters of the boolean keys, by their index in split_keys. */
static void (*const split_bools[]) (FxsSplitOptions *, gboolean) = {
  fxs_split_options_set_keep_original_order, fxs_split_options_set_keep_original_node_name,
  fxs_split_options_set_keep_original_input_name, NULL, fxs_split_options_set_tuple_return,
};

/* More threads than this is surely a mistake (the engine uses at most one
 * per graph it builds, and only as many as it has work for). */
#define MAX_SPLIT_THREADS 1024

/* "@kind NAME" with a non-blank NAME. */
static gboolean
is_named_group (const char *name, const char *kind)
{
  gsize len = strlen (kind);
  return strncmp (name, kind, len) == 0 && name[len] == ' '
         && name[len + strspn (name + len, " \t\n\v\f\r")] != '\0';
}

static gboolean
check_keys (const FxsPipelineGroup *group, const char *const *valid, GError **error)
{
  for (guint i = 0; i < group->settings->len; i++)
    {
      const FxsPipelineSetting *s = group->settings->pdata[i];
      if (g_strv_contains (valid, s->key))
        continue;
      char *list = g_strjoinv (", ", (char **) valid);
      fxs_pipeline_fail (error, FXS_ERROR_CONFIG, s->origin, group->name,
                         "unknown key '%s' (valid: %s)", s->key, list);
      g_free (list);
      return FALSE;
    }
  return TRUE;
}

/* Parses setting @s of @group as @type, as plugin options are parsed. */
static gboolean
parse_setting (const FxsPipelineGroup *group, const FxsPipelineSetting *s, FxsOptionType type,
               FxsOptionValue *value, GError **error)
{
  GError *local = NULL;
  if (fxs_option_parse (type, s->value, s->base_dir, value, &local))
    return TRUE;
  fxs_pipeline_fail (error, FXS_ERROR_CONFIG, s->origin, group->name, "%s: %s", s->key,
                     local->message);
  g_error_free (local);
  return FALSE;
}

static gboolean
read_graph_group (FxsPipeline *p, const FxsPipelineGroup *group, GError **error)
{
  if (!check_keys (group, graph_keys, error))
    return FALSE;
  const FxsPipelineSetting *input = g_hash_table_lookup (group->by_key, "input");
  const FxsPipelineSetting *dir = g_hash_table_lookup (group->by_key, "plugin_dir");
  FxsOptionValue v;
  if (input && !parse_setting (group, input, FXS_OPTION_PATH, &v, error))
    return FALSE;
  p->input = input ? v.text : NULL;
  if (!dir)
    return TRUE;
  char *path = g_canonicalize_filename (dir->value, dir->base_dir);
  gboolean ok = g_file_test (path, G_FILE_TEST_IS_DIR);
  if (ok)
    fxs_plugin_registry_add_dir (p->registry, FXS_PLUGIN_DIR_PIPELINE, path);
  else
    fxs_pipeline_fail (error, FXS_ERROR_CONFIG, dir->origin, group->name,
                       "plugin_dir: '%s' is not a directory", path);
  g_free (path);
  return ok;
}

static gboolean
read_split_group (FxsPipeline *p, const FxsPipelineGroup *group, GError **error)
{
  if (!check_keys (group, split_keys, error))
    return FALSE;
  for (guint i = 0; i < group->settings->len; i++)
    {
      const FxsPipelineSetting *s = group->settings->pdata[i];
      guint64 threads;
      FxsOptionValue v;
      if (strcmp (s->key, "partition_affix") == 0)
        fxs_split_options_set_partition_affix (p->split_options, *s->value ? s->value : NULL);
      else if (strcmp (s->key, "threads") != 0)
        {
          if (!parse_setting (group, s, FXS_OPTION_BOOL, &v, error))
            return FALSE;
          for (guint k = 0; k < G_N_ELEMENTS (split_bools); k++)
            if (split_bools[k] && strcmp (s->key, split_keys[k]) == 0)
              split_bools[k] (p->split_options, v.b);
        }
      else if (g_ascii_string_to_unsigned (s->value, 10, 0, MAX_SPLIT_THREADS, &threads, NULL))
        fxs_split_options_set_threads (p->split_options, (guint) threads);
      else
        return fxs_pipeline_fail (error, FXS_ERROR_CONFIG, s->origin, group->name,
                                  "threads: expected a number from 0 (as many as the machine "
                                  "has processors) to %d, got '%s'", MAX_SPLIT_THREADS, s->value);
    }
  return TRUE;
}

/* Which file the plugin of @group was loaded from (--verbose), and a
 * warning when it hides another module of its name. */
static void
log_plugin_file (FxsPipeline *p, const FxsPipelineGroup *group, const FxsPlugin *plugin)
{
  char *line = g_strdup_printf ("[%s] %s: loaded from %s", group->name,
                                fxs_plugin_name (plugin), fxs_plugin_path (plugin));
  fxs_pipeline_log (FXS_LOG_INFO, line, p);
  g_free (line);
  FxsPluginDirSource source, hidden_source;
  const char *hidden = fxs_plugin_shadowed_path (plugin, &source, &hidden_source);
  if (!hidden)
    return;
  line = g_strdup_printf ("warning: [%s] %s: %s (%s) shadows %s (%s), which is not used",
                          group->name, fxs_plugin_name (plugin), fxs_plugin_path (plugin),
                          fxs_plugin_dir_source_to_string (source), hidden,
                          fxs_plugin_dir_source_to_string (hidden_source));
  fxs_pipeline_log (FXS_LOG_WARNING, line, p);
  g_free (line);
}

/* The options of @plugin set from @group but for its 'plugin' key, or NULL. */
static FxsOptions *
read_options (const FxsPipeline *p, const FxsPipelineGroup *group, const FxsPlugin *plugin,
              GError **error)
{
  FxsOptions *options = fxs_options_new (plugin->info->options, plugin->n_options, p->base_dir);
  const char *name = fxs_plugin_name (plugin);
  for (guint i = 0; i < group->settings->len; i++)
    {
      const FxsPipelineSetting *s = group->settings->pdata[i];
      if (strcmp (s->key, "plugin") == 0
          || fxs_options_set (options, s->key, s->value, s->base_dir, error))
        continue;
      char *where = fxs_pipeline_where (s->origin, group->name);
      g_prefix_error (error, "%s%s: ", where, name);
      g_free (where);
      fxs_options_free (options);
      return NULL;
    }
  const FxsOptionSpec *missing = fxs_options_missing_required (options);
  if (!missing)
    return options;
  fxs_pipeline_fail (error, FXS_ERROR_OPTION, group->origin, group->name,
                     "%s: option '%s' is required (%s)", name, missing->key, missing->help);
  fxs_options_free (options);
  return NULL;
}

/* Loads the plugin of @group, checks its kind and options, and appends its
 * instance (not yet initialised) to the partitioners or the outputs. */
static gboolean
add_instance (FxsPipeline *p, const FxsPipelineGroup *group, FxsPluginKind kind,
              GError **error)
{
  const FxsPipelineSetting *key = g_hash_table_lookup (group->by_key, "plugin");
  const char *kind_name = fxs_plugin_kind_to_string (kind);
  if (!key)
    return fxs_pipeline_fail (error, FXS_ERROR_CONFIG, group->origin, group->name,
                              "no 'plugin' key: name the %s plugin to use", kind_name);
  const FxsPlugin *plugin = fxs_plugin_registry_load (p->registry, key->value, key->base_dir,
                                                      error);
  if (!plugin)
    {
      char *key_where = fxs_pipeline_where (key->origin, group->name);
      g_prefix_error (error, "%splugin: ", key_where);
      g_free (key_where);
      return FALSE;
    }
  FxsPluginKind is = fxs_plugin_kind (plugin);
  if (is != kind)
    return fxs_pipeline_fail (error, FXS_ERROR_CONFIG, key->origin, group->name,
                              "plugin '%s' is a%s %s, not a%s %s", fxs_plugin_name (plugin),
                              is == FXS_PLUGIN_OUTPUT ? "n" : "", fxs_plugin_kind_to_string (is),
                              kind == FXS_PLUGIN_OUTPUT ? "n" : "", kind_name);
  log_plugin_file (p, group, plugin);
  FxsOptions *options = read_options (p, group, plugin, error);
  if (!options)
    return FALSE;
  char *where = fxs_pipeline_where (group->origin, group->name);
  FxsPluginContext *ctx = g_new (FxsPluginContext, 1);
  *ctx = (FxsPluginContext) {
    .label = g_strdup (group->name),
    .prefix = g_strdup_printf ("%s%s: ", where, fxs_plugin_name (plugin)),
    .plugin = plugin,
    .options = options,
    .log = fxs_pipeline_log,
    .log_data = p,
    .files = g_ptr_array_new_with_free_func (g_free),
  };
  g_free (where);
  g_ptr_array_add (kind == FXS_PLUGIN_OUTPUT ? p->outputs : p->partitioners, ctx);
  return TRUE;
}

/* What the output check knows of one destination directory, looked at
 * once however many outputs write there: a probe file per output would
 * create and delete an inode per output (and ext4 then searches its
 * recently deleted inodes: 200,000 outputs took over a minute). */
typedef struct {
  char *problem;  /* why files cannot be created in it, or NULL */
  char *real;     /* its path with symbolic links resolved, or NULL */
} Destination;

static void
destination_free (gpointer data)
{
  Destination *d = data;
  g_free (d->problem);
  free (d->real);
  g_free (d);
}

static const Destination *
destination (GHashTable *seen, const char *dir)
{
  Destination *d = g_hash_table_lookup (seen, dir);
  if (d)
    return d;
  d = g_new0 (Destination, 1);
  g_hash_table_insert (seen, g_strdup (dir), d);
  d->real = realpath (dir, NULL);
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    d->problem = g_strdup ("does not exist");
  else if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    d->problem = g_strdup ("is not a directory");
  else
    {
      /* Creating a file is the only reliable test (access() says yes to
       * root, also on read-only file systems). */
      char *probe = g_build_filename (dir, ".fxsplit-probe-XXXXXX", NULL);
      int fd = g_mkstemp (probe);
      if (fd < 0)
        d->problem = g_strdup_printf ("is not writable (%s)", g_strerror (errno));
      else
        close (fd), g_unlink (probe);
      g_free (probe);
    }
  return d;
}

/* Why output path @path cannot be written, or NULL; a path that can is
 * recorded in @owner as @label's, by its name with symbolic links resolved
 * in its directory, so that two names of one file compare equal. */
static char *
output_path_problem (GHashTable *seen, GHashTable *owner, const char *path, const char *label)
{
  char *dir = g_path_get_dirname (path);
  const Destination *d = destination (seen, dir);
  char *problem = NULL, *base = g_path_get_basename (path);
  char *real = d->real ? g_build_filename (d->real, base, NULL) : NULL;
  if (d->problem)
    problem = g_strdup_printf ("cannot write '%s': '%s' %s", path, dir, d->problem);
  else if ((problem = fxs_atomic_file_destination_problem (path)))
    {
      char *what = problem;
      problem = g_strdup_printf ("'%s' %s", path, what);
      g_free (what);
    }
  else if (real && g_hash_table_contains (owner, real))
    problem = g_strdup_printf ("'%s' is also written by [%s]", path,
                               (const char *) g_hash_table_lookup (owner, real));
  else if (real)
    g_hash_table_insert (owner, g_steal_pointer (&real), (gpointer) label);
  g_free (real);
  g_free (base);
  g_free (dir);
  return problem;
}

/* Every output path: a writable directory, and no file written twice. */
static gboolean
check_output_paths (FxsPipeline *p, GError **error)
{
  GHashTable *owner = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, destination_free);
  char *problem = NULL;
  for (guint i = 0; i < p->outputs->len && !problem; i++)
    {
      FxsPluginContext *ctx = p->outputs->pdata[i];
      for (guint k = 0; k < ctx->plugin->n_options && !problem; k++)
        {
          const char *key = ctx->plugin->info->options[k].key;
          const FxsOptionValue *v = fxs_options_get (ctx->options, key, NULL);
          if (ctx->plugin->info->options[k].type != FXS_OPTION_OUTPUT_PATH || !v)
            continue;
          problem = output_path_problem (seen, owner, v->text, ctx->label);
          if (!problem)
            continue;
          FxsPipelineGroup *group = fxs_pipeline_group (p, ctx->label, NULL);
          const FxsPipelineSetting *s = g_hash_table_lookup (group->by_key, key);
          fxs_pipeline_fail (error, FXS_ERROR_CONFIG, s ? s->origin : group->origin, ctx->label,
                             "%s: %s: %s", fxs_plugin_name (ctx->plugin), key, problem);
        }
    }
  gboolean ok = !problem;
  g_hash_table_unref (seen);
  g_hash_table_unref (owner);
  g_free (problem);
  return ok;
}

/* Values are one line of text: a control character (a file's tab, an
 * embedder's "\n") would end up in paths, plugin names and error lines. */
static gboolean
check_control_characters (const FxsPipeline *p, GError **error)
{
  for (guint i = 0; i < p->groups->len; i++)
    {
      const FxsPipelineGroup *g = p->groups->pdata[i];
      for (guint k = 0; k < g->settings->len; k++)
        {
          const FxsPipelineSetting *s = g->settings->pdata[k];
          const guchar *c = (const guchar *) s->value;
          while (*c >= 0x20 && *c != 0x7f)
            c++;
          if (!*c)
            continue;
          char *group = g_strescape (g->name, NULL), *key = g_strescape (s->key, NULL);
          fxs_pipeline_fail (error, FXS_ERROR_CONFIG, s->origin, group, "%s: the value holds a "
                             "control character (U+%04X); values are one line", key, *c);
          g_free (group);
          g_free (key);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
fxs_pipeline_check (FxsPipeline *p, GError **error)
{
  /* forget what an earlier, failed check set up */
  g_ptr_array_set_size (p->partitioners, 0);
  g_ptr_array_set_size (p->outputs, 0);
  g_clear_pointer (&p->input, g_free);
  fxs_split_options_free (p->split_options);
  p->split_options = fxs_split_options_new ();
  if (!check_control_characters (p, error))
    return FALSE;
  const FxsPipelineGroup *graph = NULL, *split = NULL;
  /* the partitioner groups (the chain, in file order), then the outputs */
  GPtrArray *plugins = g_ptr_array_new (), *outputs = g_ptr_array_new ();
  gboolean ok = TRUE;
  for (guint i = 0; i < p->groups->len && ok; i++)
    {
      const FxsPipelineGroup *g = p->groups->pdata[i];
      if (strcmp (g->name, "graph") == 0)
        graph = g;
      else if (strcmp (g->name, "split") == 0)
        split = g;
      else if (strcmp (g->name, "partitioner") == 0 || is_named_group (g->name, "partitioner"))
        g_ptr_array_add (plugins, (gpointer) g);
      else if (is_named_group (g->name, "output"))
        g_ptr_array_add (outputs, (gpointer) g);
      else
        ok = fxs_pipeline_fail (error, FXS_ERROR_CONFIG, g->origin, NULL,
                                "unknown group [%s] (valid: [graph], [split], [partitioner], "
                                "[partitioner NAME], [output NAME])", g->name);
    }
  ok = ok && (!graph || read_graph_group (p, graph, error))
       && (!split || read_split_group (p, split, error));
  if (ok && !p->input && !p->graph)
    ok = fxs_pipeline_fail (error, FXS_ERROR_CONFIG, p->file, "graph",
                            "input is not set: name the graph file");
  if (ok && !plugins->len)
    ok = fxs_pipeline_fail (error, FXS_ERROR_CONFIG, p->file, NULL,
                            "no [partitioner] group: a pipeline needs one (with plugin = NAME)");
  guint n_partitioners = plugins->len;
  g_ptr_array_extend_and_steal (plugins, outputs);
  for (guint i = 0; i < plugins->len && ok; i++)
    ok = add_instance (p, plugins->pdata[i],
                       i < n_partitioners ? FXS_PLUGIN_PARTITIONER : FXS_PLUGIN_OUTPUT, error);
  g_ptr_array_unref (plugins);
  if (!ok || !check_output_paths (p, error))
    return FALSE;
  fxs_pipeline_warn_output_extensions (p);
  return TRUE;
}
