/* Plugin option values: typed parsing and per-instance slots. */
#include "host-private.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <string.h>

static const char *const type_names[] = {
  NULL, "string", "int", "float", "bool", "path", "output-path",
};

gboolean
fxs_option_type_is_valid (FxsOptionType type)
{
  return type >= FXS_OPTION_STRING && type <= FXS_OPTION_OUTPUT_PATH;
}

const char *
fxs_option_type_to_string (FxsOptionType type)
{
  return fxs_option_type_is_valid (type) ? type_names[type] : "invalid";
}

/* Sets FXS_ERROR_OPTION; returns FALSE. */
static gboolean G_GNUC_PRINTF (2, 3)
option_error (GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (FXS_ERROR, FXS_ERROR_OPTION, format, args));
  va_end (args);
  return FALSE;
}

gboolean
fxs_option_parse (FxsOptionType type, const char *text, const char *base_dir,
                  FxsOptionValue *out, GError **error)
{
  static const char *const truthy[] = { "true", "yes", "on", "1" };
  static const char *const falsy[] = { "false", "no", "off", "0" };
  memset (out, 0, sizeof *out);
  char *end = NULL;
  /* a number is all of @text, with no blank before it */
  gboolean blank = *text == '\0' || g_ascii_isspace (*text);
  switch (type)
    {
    case FXS_OPTION_STRING:
      out->text = g_strdup (text);
      return TRUE;
    case FXS_OPTION_PATH:
    case FXS_OPTION_OUTPUT_PATH:
      if (*text == '\0')
        return option_error (error, "expected a path, got ''");
      out->text = g_canonicalize_filename (text, base_dir);
      return TRUE;
    case FXS_OPTION_INT:
      errno = 0;
      out->i = g_ascii_strtoll (text, &end, 10);
      if (blank || *end != '\0')
        return option_error (error, "expected an integer, got '%s'", text);
      return errno != ERANGE
             || option_error (error, "'%s' does not fit in a 64-bit integer", text);
    case FXS_OPTION_FLOAT:
      out->f = g_ascii_strtod (text, &end);
      return (!blank && *end == '\0' && !isnan (out->f))
             || option_error (error, "expected a number, got '%s'", text);
    case FXS_OPTION_BOOL:
      for (guint i = 0; i < G_N_ELEMENTS (truthy); i++)
        if (g_ascii_strcasecmp (text, truthy[i]) == 0 || g_ascii_strcasecmp (text, falsy[i]) == 0)
          {
            out->b = g_ascii_strcasecmp (text, truthy[i]) == 0;
            return TRUE;
          }
      return option_error (error, "expected true or false, got '%s'", text);
    }
  return option_error (error, "unknown option type %d", (int) type);
}

/* ---- per-instance slots ----------------------------------------------------- */

typedef struct {
  gboolean is_set;
  FxsOptionValue value;
  char *base_dir;     /* what a value set from text was relative to, or NULL */
} Slot;

struct FxsOptions {
  const FxsOptionSpec *table;
  guint n;
  Slot *slots;        /* one per entry of the table */
  char *base_dir;     /* the defaults' */
};

FxsOptions *
fxs_options_new (const FxsOptionSpec *table, guint n, const char *base_dir)
{
  FxsOptions *o = g_new0 (FxsOptions, 1);
  o->table = table;
  o->n = n;
  o->slots = g_new0 (Slot, n ? n : 1);
  o->base_dir = g_strdup (base_dir);
  for (guint i = 0; i < n; i++)
    o->slots[i].is_set = table[i].default_value
                         && fxs_option_parse (table[i].type, table[i].default_value, base_dir,
                                              &o->slots[i].value, NULL);
  return o;
}

void
fxs_options_free (FxsOptions *options)
{
  if (!options)
    return;
  for (guint i = 0; i < options->n; i++)
    {
      g_free (options->slots[i].value.text);
      g_free (options->slots[i].base_dir);
    }
  g_free (options->slots);
  g_free (options->base_dir);
  g_free (options);
}

/* The index of @key in the table, or -1. */
static int
find (const FxsOptions *options, const char *key)
{
  for (guint i = 0; i < options->n; i++)
    if (strcmp (options->table[i].key, key) == 0)
      return (int) i;
  return -1;
}

gboolean
fxs_options_set (FxsOptions *options, const char *key, const char *text, const char *base_dir,
                 GError **error)
{
  int i = find (options, key);
  if (i < 0)
    {
      GString *valid = g_string_new (options->n ? NULL : "none");
      for (guint k = 0; k < options->n; k++)
        g_string_append_printf (valid, "%s%s", k ? ", " : "", options->table[k].key);
      option_error (error, "unknown option '%s' (valid: %s)", key, valid->str);
      g_string_free (valid, TRUE);
      return FALSE;
    }
  FxsOptionValue value;
  if (!fxs_option_parse (options->table[i].type, text, base_dir, &value, error))
    {
      g_prefix_error (error, "%s: ", key);
      return FALSE;
    }
  Slot *slot = &options->slots[i];
  g_free (slot->value.text);
  slot->value = value;
  slot->is_set = TRUE;
  g_free (slot->base_dir);
  slot->base_dir = g_strdup (base_dir);
  return TRUE;
}

const FxsOptionSpec *
fxs_options_missing_required (const FxsOptions *options)
{
  for (guint i = 0; i < options->n; i++)
    if ((options->table[i].flags & FXS_OPTION_REQUIRED) && !options->slots[i].is_set)
      return &options->table[i];
  return NULL;
}

const FxsOptionValue *
fxs_options_get (const FxsOptions *options, const char *key, const FxsOptionSpec **spec)
{
  int i = find (options, key);
  if (spec)
    *spec = i < 0 ? NULL : &options->table[i];
  return i < 0 || !options->slots[i].is_set ? NULL : &options->slots[i].value;
}

const char *
fxs_options_base_dir (const FxsOptions *options, const char *key)
{
  int i = key ? find (options, key) : -1;
  return i >= 0 && options->slots[i].base_dir ? options->slots[i].base_dir : options->base_dir;
}
