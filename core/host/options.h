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

/* Parses @text as @type (booleans: true/false, yes/no, on/off, 1/0; paths
 * made absolute against @base_dir, else the current directory).  Errors:
 * FXS_ERROR_OPTION without location ("expected an integer, got 'x'"). */
gboolean fxs_option_parse (FxsOptionType type, const char *text, const char *base_dir,
                           FxsOptionValue *out, GError **error);

/* Whether @type is one of FxsOptionType's values. */
gboolean fxs_option_type_is_valid (FxsOptionType type);

/* The values of one plugin instance. */
typedef struct FxsOptions FxsOptions;

/* The defaults of @table (@n entries, outliving the result; paths relative
 * to @base_dir). */
FxsOptions *fxs_options_new (const FxsOptionSpec *table, guint n, const char *base_dir);
void        fxs_options_free (FxsOptions *options);

/* Sets @key from @text.  Errors: FXS_ERROR_OPTION, without location. */
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
