/* Parsing fxsplit compare's -p values (see compare-spec.h). */
#include "compare-spec.h"

#include <fxsplit/error.h>

#include <string.h>

static gboolean
fail (GError **error, const char *text, const char *what, const char *piece)
{
  if (piece)
    g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG, "-p '%s': %s: '%s' (expected "
                 "NAME[:KEY=VALUE,...][+NAME...])", text, what, piece);
  else
    g_set_error (error, FXS_ERROR, FXS_ERROR_CONFIG, "-p '%s': %s (expected "
                 "NAME[:KEY=VALUE,...][+NAME...])", text, what);
  return FALSE;
}

/* One level "NAME[:KEY=VALUE,...]" into @out (plugin, then key/value pairs). */
static gboolean
parse_level (const char *text, const char *level, GPtrArray *out, GError **error)
{
  const char *colon = strchr (level, ':');
  char *name = g_strstrip (colon ? g_strndup (level, colon - level) : g_strdup (level));
  g_ptr_array_add (out, name);
  if (*name == '\0')
    return fail (error, text, "a partitioner name is missing", NULL);
  if (!colon)
    return TRUE;
  char **pieces = g_strsplit (colon + 1, ",", -1);
  gboolean ok = TRUE;
  for (char **p = pieces; ok && *p; p++)
    {
      const char *eq = strchr (*p, '=');
      char *key = eq ? g_strstrip (g_strndup (*p, eq - *p)) : NULL;
      if (key && *key)
        {
          g_ptr_array_add (out, key);
          g_ptr_array_add (out, g_strdup (eq + 1));
          continue;
        }
      g_free (key);
      if ((*p)[strspn (*p, " \t")] == '\0')
        ok = fail (error, text, "an empty option", NULL);
      else if (eq || out->len < 3)
        ok = fail (error, text, "not KEY=VALUE", *p);
      else
        {
          /* a comma inside the value before */
          char **value = (char **) &out->pdata[out->len - 1];
          char *joined = g_strconcat (*value, ",", *p, NULL);
          g_free (*value);
          *value = joined;
        }
    }
  g_strfreev (pieces);
  return ok;
}

CompareSpec *
compare_spec_parse (const char *text, GError **error)
{
  CompareSpec *spec = g_new0 (CompareSpec, 1);
  spec->text = g_strdup (text);
  spec->levels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  char **levels = g_strsplit (text, "+", -1);
  gboolean ok = levels[0] != NULL || fail (error, text, "a partitioner name is missing", NULL);
  for (char **l = levels; ok && *l; l++)
    {
      GPtrArray *level = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (spec->levels, level);
      ok = parse_level (text, *l, level, error);
    }
  g_strfreev (levels);
  if (!ok)
    {
      compare_spec_free (spec);
      return NULL;
    }
  return spec;
}

void
compare_spec_free (CompareSpec *spec)
{
  if (!spec)
    return;
  g_ptr_array_unref (spec->levels);
  g_free (spec->text);
  g_free (spec);
}

void
compare_spec_apply (const CompareSpec *spec, FxsPipeline *pipeline)
{
  char *origin = g_strdup_printf ("-p %s", spec->text);
  for (guint k = 0; k < spec->levels->len; k++)
    {
      const GPtrArray *level = spec->levels->pdata[k];
      char *group = k ? g_strdup_printf ("partitioner level-%u", k + 1) : g_strdup ("partitioner");
      fxs_pipeline_set (pipeline, group, "plugin", level->pdata[0], origin);
      for (guint i = 1; i + 1 < level->len; i += 2)
        fxs_pipeline_set (pipeline, group, level->pdata[i], level->pdata[i + 1], origin);
      g_free (group);
    }
  g_free (origin);
}

const char *
compare_spec_option (const CompareSpec *spec, const char *key)
{
  const char *found = NULL;
  for (guint k = 0; k < spec->levels->len; k++)
    {
      const GPtrArray *level = spec->levels->pdata[k];
      for (guint i = 1; i + 1 < level->len; i += 2)
        if (strcmp (level->pdata[i], key) == 0)
          found = level->pdata[i + 1];
    }
  return found;
}
