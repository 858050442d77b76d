/* Node selectors: which nodes an option names, as a list of
 * "KIND:GLOB" items ('*' and '?' wildcards) separated by commas or spaces.
 * Shared by splitpoints and capability.
 *
 *   name:GLOB      node names (a bare GLOB means the same)
 *   function:GLOB  call_function targets, qualified ("torch.conv2d",
 *                  "_operator.add") or by their last component ("add")
 *   method:GLOB    call_method names ("relu", "view")
 *   class:GLOB     call_module classes, qualified
 *                  ("torch.nn.modules.conv.Conv2d") or short ("Conv2d")
 *   module:GLOB    module paths: call_module targets, and for splitpoints
 *                  the whole region of nodes that run inside the module
 *
 * Lists parsed with selector_list_parse_dtypes() (capability's) may end an
 * item with a dtype condition, "@DTYPE|DTYPE...": the item then matches
 * only nodes whose every output tensor has one of those dtypes (named as
 * torch prints them, with or without "torch."); a node without tensor
 * metadata, or with an unknown dtype, does not match it.
 */
#ifndef FXS_PARTS_NODE_SELECTOR_H
#define FXS_PARTS_NODE_SELECTOR_H

#include <fxsplit/graph.h>
#include <fxsplit/error.h>

typedef enum {
  SELECT_NAME,
  SELECT_FUNCTION,
  SELECT_METHOD,
  SELECT_CLASS,
  SELECT_MODULE,
} SelectorKind;

typedef struct {
  SelectorKind kind;
  char *text;            /* the item as written, for messages */
  GPatternSpec *pattern;
  char **dtypes;         /* "torch.float32", ...; NULL: any dtype */
  guint64 matches;       /* nodes it matched so far */
} Selector;

typedef struct {
  char *option;          /* the option it came from, for messages */
  GPtrArray *items;      /* Selector* */
} SelectorList;

/* Parses @text (may be NULL or empty: no items).  Errors are
 * FXS_ERROR_OPTION: "OPTION: unknown selector kind 'x' in 'x:y' (valid: ...)"
 * or an empty pattern.  Free with selector_list_free(). */
SelectorList *selector_list_parse (const char *option, const char *text, GError **error);
/* The same with "@DTYPE|..." conditions allowed; an unknown dtype or an
 * empty condition is FXS_ERROR_OPTION naming the item. */
SelectorList *selector_list_parse_dtypes (const char *option, const char *text, GError **error);
void          selector_list_free (SelectorList *list);

/* Whether @node matches @sel; module selectors match call_module targets
 * here.  Counts the match. */
gboolean selector_match (Selector *sel, const FxsNode *node);
/* Whether @node matches any item of @list (every matching item counts). */
gboolean selector_list_match (SelectorList *list, const FxsNode *node);

/* For a module selector: the length of the shortest prefix of the module
 * path @path, ending at a '.' or at its end, that @sel matches; 0 if none. */
gsize selector_module_prefix (const Selector *sel, const char *path);

/* The first item that matched nothing, or NULL. */
const Selector *selector_list_first_unmatched (const SelectorList *list);

#endif
