/* fxsplit compare's -p values: NAME[:KEY=VALUE,...], chained with '+'. */
#ifndef FXS_CLI_COMPARE_SPEC_H
#define FXS_CLI_COMPARE_SPEC_H

#include <fxsplit/pipeline.h>

typedef struct {
  char *text;        /* as given */
  GPtrArray *levels; /* char** per chain level: the plugin, then KEY, VALUE pairs */
} CompareSpec;

/* Parses @text.  A level is a plugin name (or path), then after the first
 * ':' options separated by ','; a piece without '=' continues the value
 * before it ("speed=1,1,0.5").  '+' starts the next level of a chain.
 * NULL with a usage message in @error (FXS_ERROR_CONFIG) naming @text: an
 * empty level or plugin name, an empty option, a piece that is not
 * KEY=VALUE where no option comes before it. */
CompareSpec *compare_spec_parse (const char *text, GError **error);
void         compare_spec_free (CompareSpec *spec);

/* Sets @spec's partitioners in @pipeline: [partitioner], then [partitioner
 * level-2], ... in chain order, each setting naming "-p TEXT". */
void compare_spec_apply (const CompareSpec *spec, FxsPipeline *pipeline);

/* The value of option @key in the last level that sets it, or NULL. */
const char *compare_spec_option (const CompareSpec *spec, const char *key);

#endif
