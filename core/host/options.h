/* Plugin options: parsing values by type and the validated set of values
 * one plugin instance gets. */
#ifndef FXS_OPTIONS_H
#define FXS_OPTIONS_H

#include <fxsplit/plugin.h>

/* A parsed value; which member is meaningful follows the option's type. */
typedef struct {
  char *text;      /* strings and paths (paths made absolute); owned */
  gint64 i;
  double f;
  gboolean b;
} FxsOptionValue;

/* Parses @text as @type (booleans: true/false, yes/no, on/off, 1/0).
 * Relative paths are made absolute against @base_dir (the current
 * directory when NULL).  On failure sets
 * FXS_ERROR_OPTION with a message like "expected an integer, got 'x'"
 * (no location: the caller adds it).  Free the result with
 * fxs_option_value_clear(). */
gboolean fxs_option_parse (FxsOptionType type, const char *text, const char *base_dir,
                           FxsOptionValue *out, GError **error);
void     fxs_option_value_clear (FxsOptionValue *value);

/* Whether @type is one of FxsOptionType's values. */
gboolean fxs_option_type_is_valid (FxsOptionType type);

/* The values of one plugin instance, one slot per entry of the table. */
typedef struct FxsOptions FxsOptions;

/* Slots holding the table's defaults (paths relative to @base_dir).
 * @table has @n entries and must outlive the result; its defaults must
 * parse (the loader checked them). */
FxsOptions *fxs_options_new (const FxsOptionSpec *table, guint n, const char *base_dir);
void        fxs_options_free (FxsOptions *options);

/* Sets @key from @text.  Errors (FXS_ERROR_OPTION, no location): an
 * unknown key, naming the valid ones, or a value of the wrong type. */
gboolean fxs_options_set (FxsOptions *options, const char *key, const char *text,
                          const char *base_dir, GError **error);

/* The first required option that is unset, or NULL. */
const FxsOptionSpec *fxs_options_missing_required (const FxsOptions *options);

/* The entry of @key, NULL when the table has none; its value, NULL also
 * when it is unset. */
const FxsOptionSpec  *fxs_options_spec (const FxsOptions *options, const char *key);
const FxsOptionValue *fxs_options_get (const FxsOptions *options, const char *key);
/* The directory @key's value was written relative to: the @base_dir it
 * was set with, else fxs_options_new()'s (may be NULL). */
const char           *fxs_options_base_dir (const FxsOptions *options, const char *key);

#endif
