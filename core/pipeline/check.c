/* Checking a pipeline's groups, keys and values, loading its plugins and
 * setting up their instances (everything before any plugin hook runs;
 * loading a plugin runs its ELF constructors). */
#include "pipeline-private.h"
#include "util/atomic-file.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static const char *const graph_keys[] = { "input", "plugin_dir", NULL };
static const char *const split_keys[] = {
  "keep_original_order", "keep_original_node_name", "keep_original_input_name",
  "partition_affix", "tuple_return", "threads", NULL,
};
static const struct {
  const char *key;
  void (*set) (FxsSplitOptions *, gboolean);
} split_bools[] = {
  { "keep_original_order", fxs_split_options_set_keep_original_order },
  { "keep_original_node_name", fxs_split_options_set_keep_original_node_name },
  { "keep_original_input_name", fxs_split_options_set_keep_original_input_name },
  { "tuple_return", fxs_split_options_set_tuple_return },
};

/* More threads than this is surely a mistake (the engine uses at most one
 * per graph it builds, and only as many as it has work for). */
#define MAX_SPLIT_THREADS 1024

/* "@kind NAME" with a non-blank NAME. */
static gboolean
is_named_group (const char *name, const char *kind)
{
  gsize len = strlen (kind);
  if (strncmp (name, kind, len) != 0 || name[len] != ' ')
    return FALSE;
  for (const char *c = name + len; *c; c++)
    if (!g_ascii_isspace (*c))
      return TRUE;
  return FALSE;
}

/* "ORIGIN: " or "" */
static char *
origin_prefix (const char *origin)
{
  return origin ? g_strconcat (origin, ": ", NULL) : g_strdup ("");
}

static gboolean G_GNUC_PRINTF (5, 6)
set_error_at (GError **error, FxsErrorCode code, const char *origin, const char *group,
              const char *format, ...)
{
  va_list args;
  va_start (args, format);
  char *message = g_strdup_vprintf (format, args);
  va_end (args);
  char *prefix = origin_prefix (origin);
  g_set_error (error, FXS_ERROR, code, "%s[%s] %s", prefix, group, message);
  g_free (prefix);
  g_free (message);
  return FALSE;
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
      set_error_at (error, FXS_ERROR_CONFIG, s->origin, group->name,
                    "unknown key '%s' (valid: %s)", s->key, list);
      g_free (list);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_graph_group (FxsPipeline *p, const FxsPipelineGroup *group, GError **error)
{
  if (!check_keys (group, graph_keys, error))
    return FALSE;
  const FxsPipelineSetting *input = fxs_pipeline_group_lookup (group, "input");
  const FxsPipelineSetting *dir = fxs_pipeline_group_lookup (group, "plugin_dir");
  if (input)
    {
      if (*input->value == '\0')
        return set_error_at (error, FXS_ERROR_CONFIG, input->origin, group->name,
                             "input: expected a path, got ''");
      p->input = g_canonicalize_filename (input->value, input->base_dir);
    }
  if (dir)
    {
      char *path = g_canonicalize_filename (dir->value, dir->base_dir);
      if (!g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          set_error_at (error, FXS_ERROR_CONFIG, dir->origin, group->name,
                        "plugin_dir: '%s' is not a directory", path);
          g_free (path);
          return FALSE;
        }
      fxs_plugin_registry_add_dir (p->registry, FXS_PLUGIN_DIR_PIPELINE, path);
      g_free (path);
    }
  return TRUE;
}

static gboolean
read_split_group (FxsPipeline *p, const FxsPipelineGroup *group, GError **error)
{
  if (!check_keys (group, split_keys, error))
    return FALSE;
  for (guint i = 0; i < group->settings->len; i++)
    {
      const FxsPipelineSetting *s = group->settings->pdata[i];
      if (strcmp (s->key, "partition_affix") == 0)
        {
          fxs_split_options_set_partition_affix (p->split_options, *s->value ? s->value : NULL);
          continue;
        }
      if (strcmp (s->key, "threads") == 0)
        {
          guint64 threads;
          if (!g_ascii_string_to_unsigned (s->value, 10, 0, MAX_SPLIT_THREADS, &threads, NULL))
            return set_error_at (error, FXS_ERROR_CONFIG, s->origin, group->name,
                                 "threads: expected a number from 0 (as many as the machine has "
                                 "processors) to %d, got '%s'", MAX_SPLIT_THREADS, s->value);
          fxs_split_options_set_threads (p->split_options, (guint) threads);
          continue;
        }
      gboolean v;
      if (!fxs_option_parse_bool (s->value, &v))
        return set_error_at (error, FXS_ERROR_CONFIG, s->origin, group->name,
                             "%s: expected true or false, got '%s'", s->key, s->value);
      for (guint k = 0; k < G_N_ELEMENTS (split_bools); k++)
        if (strcmp (s->key, split_bools[k].key) == 0)
          split_bools[k].set (p->split_options, v);
    }
  return TRUE;
}

/* The log sink of the pipeline's plugin instances: fxs_pipeline_log, so
 * that a log function set later still receives their lines. */
static void
pipeline_log_sink (FxsLogLevel level, const char *line, gpointer pipeline)
{
  fxs_pipeline_log (pipeline, level, line);
}

/* Which file the plugin of @group was loaded from (--verbose), and a
 * warning when it hides another module of its name. */

static void
log_plugin_file (const FxsPipeline *p, const FxsPipelineGroup *group, const FxsPlugin *plugin)
{
  char *line = g_strdup_printf ("[%s] %s: loaded from %s", group->name,
                                fxs_plugin_name (plugin), fxs_plugin_path (plugin));
  fxs_pipeline_log (p, FXS_LOG_INFO, line);
  g_free (line);
  FxsPluginDirSource source, hidden_source;
  const char *hidden = fxs_plugin_shadowed_path (plugin, &source, &hidden_source);
  if (!hidden)
    return;
  line = g_strdup_printf ("warning: [%s] %s: %s (%s) shadows %s (%s), which is not used",
                          group->name, fxs_plugin_name (plugin), fxs_plugin_path (plugin),
                          fxs_plugin_dir_source_to_string (source), hidden,
                          fxs_plugin_dir_source_to_string (hidden_source));
  fxs_pipeline_log (p, FXS_LOG_WARNING, line);
  g_free (line);
}

/* Loads the plugin of @group, checks its kind and options, and returns its
 * instance (not yet initialised). */
static FxsPluginContext *
make_instance (FxsPipeline *p, const FxsPipelineGroup *group, FxsPluginKind kind,
               GError **error)
{
  const FxsPipelineSetting *plugin_key = fxs_pipeline_group_lookup (group, "plugin");
  if (!plugin_key)
    {
      set_error_at (error, FXS_ERROR_CONFIG, group->origin, group->name,
                    "no 'plugin' key: name the %s plugin to use", fxs_plugin_kind_to_string (kind));
      return NULL;
    }
  GError *local = NULL;
  const FxsPlugin *plugin = fxs_plugin_registry_load (p->registry, plugin_key->value,
                                                      plugin_key->base_dir, &local);
  if (!plugin)
    {
      set_error_at (error, local->code, plugin_key->origin, group->name, "plugin: %s",
                    local->message);
      g_error_free (local);
      return NULL;
    }
  if (fxs_plugin_kind (plugin) != kind)
    {
      set_error_at (error, FXS_ERROR_CONFIG, plugin_key->origin, group->name,
                    "plugin '%s' is a%s %s, not a%s %s", fxs_plugin_name (plugin),
                    fxs_plugin_kind (plugin) == FXS_PLUGIN_OUTPUT ? "n" : "",
                    fxs_plugin_kind_to_string (fxs_plugin_kind (plugin)),
                    kind == FXS_PLUGIN_OUTPUT ? "n" : "", fxs_plugin_kind_to_string (kind));
      return NULL;
    }

  log_plugin_file (p, group, plugin);

  FxsOptions *options = fxs_options_new (plugin->info->options, plugin->n_options, p->base_dir);
  for (guint i = 0; i < group->settings->len; i++)
    {
      const FxsPipelineSetting *s = group->settings->pdata[i];
      if (s == plugin_key)
        continue;
      if (!fxs_options_set (options, s->key, s->value, s->base_dir, &local))
        {
          set_error_at (error, FXS_ERROR_OPTION, s->origin, group->name, "%s: %s",
                        fxs_plugin_name (plugin), local->message);
          g_error_free (local);
          fxs_options_free (options);
          return NULL;
        }
    }
  const FxsOptionSpec *missing = fxs_options_missing_required (options);
  if (missing)
    {
      set_error_at (error, FXS_ERROR_OPTION, group->origin, group->name,
                    "%s: option '%s' is required (%s)", fxs_plugin_name (plugin), missing->key,
                    missing->help);
      fxs_options_free (options);
      return NULL;
    }
  char *origin = origin_prefix (group->origin);
  char *prefix = g_strdup_printf ("%s[%s] %s: ", origin, group->name, fxs_plugin_name (plugin));
  FxsPluginContext *ctx = fxs_plugin_context_new (group->name, prefix, plugin, options, p->base_dir,
                                                  pipeline_log_sink, p);
  g_free (prefix);
  g_free (origin);
  return ctx;
}

/* Why files cannot be created in @dir, or NULL when they can.  Creating
 * one is the only reliable test (access() says yes to root everywhere,
 * also on read-only or virtual file systems). */
static char *
directory_problem (const char *dir)
{
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    return g_strdup ("does not exist");
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    return g_strdup ("is not a directory");
  char *probe = g_build_filename (dir, ".fxsplit-probe-XXXXXX", NULL);
  int fd = g_mkstemp (probe);
  char *problem = NULL;
  if (fd < 0)
    problem = g_strdup_printf ("is not writable (%s)", g_strerror (errno));
  else
    {
      close (fd);
      g_unlink (probe);
    }
  g_free (probe);
  return problem;
}

/* What the output check knows of one destination directory. */
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

/* The directory @dir, looked at once however many outputs write there: a
 * probe file per output would create and delete an inode per output (and
 * ext4 then searches its recently deleted inodes, which grows with their
 * number: 40,000 outputs took 2.5 s, 200,000 over a minute). */
static const Destination *
destination (GHashTable *seen, const char *dir)
{
  Destination *d = g_hash_table_lookup (seen, dir);
  if (!d)
    {
      d = g_new0 (Destination, 1);
      d->problem = directory_problem (dir);
      d->real = realpath (dir, NULL);
      g_hash_table_insert (seen, g_strdup (dir), d);
    }
  return d;
}

/* @path in its directory with symbolic links resolved, so that two names
 * of one file compare equal; NULL when the directory does not exist. */
static char *
real_destination (const Destination *d, const char *path)
{
  if (!d->real)
    return NULL;
  char *base = g_path_get_basename (path);
  char *result = g_build_filename (d->real, base, NULL);
  g_free (base);
  return result;
}

/* Every output path: a writable directory, and no file written twice. */
static gboolean
check_output_paths (FxsPipeline *p, GError **error)
{
  GHashTable *owner = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, destination_free);
  gboolean ok = TRUE;
  for (guint i = 0; i < p->outputs->len && ok; i++)
    {
      FxsPluginContext *ctx = p->outputs->pdata[i];
      FxsPipelineGroup *group = fxs_pipeline_group (p, ctx->label, NULL);
      for (guint k = 0; k < ctx->plugin->n_options && ok; k++)
        {
          const FxsOptionSpec *spec = &ctx->plugin->info->options[k];
          if (spec->type != FXS_OPTION_OUTPUT_PATH || !fxs_options_is_set (ctx->options, spec->key))
            continue;
          const char *path = fxs_options_get (ctx->options, spec->key)->text;
          const FxsPipelineSetting *s = fxs_pipeline_group_lookup (group, spec->key);
          const char *origin = s ? s->origin : group->origin;
          char *dir = g_path_get_dirname (path);
          const Destination *d = destination (seen, dir);
          const char *problem = d->problem;
          char *owned_problem;
          char *real = real_destination (d, path);
          if (problem)
            {
              set_error_at (error, FXS_ERROR_CONFIG, origin, ctx->label,
                            "%s: %s: cannot write '%s': '%s' %s",
                            fxs_plugin_name (ctx->plugin), spec->key, path, dir, problem);
              ok = FALSE;
            }
          else if ((owned_problem = fxs_atomic_file_destination_problem (path)))
            {
              set_error_at (error, FXS_ERROR_CONFIG, origin, ctx->label,
                            "%s: %s: '%s' %s", fxs_plugin_name (ctx->plugin), spec->key, path,
                            owned_problem);
              g_free (owned_problem);
              ok = FALSE;
            }
          else if (real && g_hash_table_contains (owner, real))
            {
              set_error_at (error, FXS_ERROR_CONFIG, origin, ctx->label,
                            "%s: %s: '%s' is also written by [%s]", fxs_plugin_name (ctx->plugin),
                            spec->key, path, (const char *) g_hash_table_lookup (owner, real));
              ok = FALSE;
            }
          else if (real)
            {
              g_hash_table_insert (owner, real, ctx->label);
              real = NULL;
            }
          g_free (real);
          g_free (dir);
        }
    }
  g_hash_table_unref (seen);
  g_hash_table_unref (owner);
  return ok;
}

/* Forgets what an earlier, failed check set up. */
static void
reset (FxsPipeline *p)
{
  g_ptr_array_set_size (p->partitioners, 0);
  g_ptr_array_set_size (p->outputs, 0);
  g_clear_pointer (&p->input, g_free);
  if (p->split_options)
    fxs_split_options_free (p->split_options);
  p->split_options = fxs_split_options_new ();
}

/* Control characters in values (a file's tab or escape byte, an
 * embedder's "\n") would end up in paths, plugin names and error lines (a
 * message of several lines, found by tests/fuzz): values are one line of
 * text. */
static gboolean
check_control_characters (const FxsPipeline *p, GError **error)
{
  for (guint i = 0; i < p->groups->len; i++)
    {
      const FxsPipelineGroup *g = p->groups->pdata[i];
      for (guint k = 0; k < g->settings->len; k++)
        {
          const FxsPipelineSetting *s = g->settings->pdata[k];
          for (const guchar *c = (const guchar *) s->value; *c; c++)
            if (*c < 0x20 || *c == 0x7f)
              {
                char *group = g_strescape (g->name, NULL), *key = g_strescape (s->key, NULL);
                char *prefix = origin_prefix (s->origin);
                g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                             "%s[%s] %s: the value holds a control character (U+%04X); values "
                             "are one line", prefix, group, key, *c);
                g_free (prefix);
                g_free (group);
                g_free (key);
                return FALSE;
              }
        }
    }
  return TRUE;
}

gboolean
fxs_pipeline_check (FxsPipeline *p, GError **error)
{
  reset (p);
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
        {
          char *prefix = origin_prefix (g->origin);
          g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                       "%sunknown group [%s] (valid: [graph], [split], [partitioner], "
                       "[partitioner NAME], [output NAME])", prefix, g->name);
          g_free (prefix);
          ok = FALSE;
        }
    }
  if (ok && graph)
    ok = read_graph_group (p, graph, error);
  if (ok && split)
    ok = read_split_group (p, split, error);
  if (ok && !p->input && !p->graph)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG, "%s%s[graph] input is not set: name the graph file",
                   p->file ? p->file : "", p->file ? ": " : "");
      ok = FALSE;
    }
  if (ok && !plugins->len)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG,
                   "%s%sno [partitioner] group: a pipeline needs one (with plugin = NAME)",
                   p->file ? p->file : "", p->file ? ": " : "");
      ok = FALSE;
    }
  guint n_partitioners = plugins->len;
  g_ptr_array_extend_and_steal (plugins, outputs);
  for (guint i = 0; i < plugins->len && ok; i++)
    {
      gboolean output = i >= n_partitioners;
      FxsPluginContext *ctx = make_instance (p, plugins->pdata[i],
                                             output ? FXS_PLUGIN_OUTPUT : FXS_PLUGIN_PARTITIONER,
                                             error);
      if (ctx)
        g_ptr_array_add (output ? p->outputs : p->partitioners, ctx);
      ok = ctx != NULL;
    }
  g_ptr_array_unref (plugins);
  if (!ok || !check_output_paths (p, error))
    return FALSE;
  fxs_pipeline_warn_output_extensions (p);
  return TRUE;
}
