/* Pieces of DOT text shared by both views of the dot output and by the
 * report's picture: quoting, the partition colours and value shapes. */
#ifndef FXS_OUT_DOT_TEXT_H
#define FXS_OUT_DOT_TEXT_H

#include <fxsplit/graph.h>

/* Appends @text as a DOT string: in double quotes, '"' and '\' escaped,
 * a newline as a centred line break, other control characters and
 * invalid UTF-8 replaced, so that any name makes valid DOT. */
void dot_append_quoted (GString *out, const char *text);

/* The colours of partition @index ("#rrggbb"): a fixed palette repeated,
 * so the same partition always gets the same colour.  The cluster's or
 * box's background, its nodes' fill and its border (the full colour). */
typedef enum {
  DOT_COLOUR_BACKGROUND,
  DOT_COLOUR_FILL,
  DOT_COLOUR_BORDER,
} DotColourRole;
void dot_append_colour (GString *out, guint index, DotColourRole role);

/* The shape of @node's value as torch prints it short: "f32[1, 64, 56, 56]",
 * "(f32[2, 8], i64[2])" for a tuple (the first three, then "..."), "s0"
 * sizes for symbols, "?" when meta does not say. */
void dot_append_value_shape (GString *out, const FxsNode *node);

#endif
