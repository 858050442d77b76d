/* fxsplit: argument values.
 *
 * An FxsValue is one Python value as it appears in a node's args, kwargs or
 * meta: None, bool, int, float, str, list, tuple, dict, slice, Ellipsis, a
 * reference to another node of the same graph, or an opaque typed constant
 * (a torch.dtype, a device, a memory format, ...) kept as its Python repr.
 *
 * Ownership: values belong to the graph they were made for and live exactly
 * as long as it does.  Nothing here is ever freed on its own.
 */
#ifndef FXSPLIT_VALUE_H
#define FXSPLIT_VALUE_H

#include <glib.h>
#include <fxsplit/api.h>

G_BEGIN_DECLS

typedef struct FxsValue FxsValue;
typedef struct FxsNode FxsNode;
typedef struct FxsGraph FxsGraph;

typedef enum {
  FXS_VALUE_NONE,
  FXS_VALUE_BOOL,
  FXS_VALUE_INT,
  FXS_VALUE_FLOAT,
  FXS_VALUE_STRING,
  FXS_VALUE_LIST,
  FXS_VALUE_TUPLE,
  FXS_VALUE_DICT,
  FXS_VALUE_SLICE,
  FXS_VALUE_ELLIPSIS,
  FXS_VALUE_NODE,
  FXS_VALUE_OPAQUE,
} FxsValueKind;

/* Reading values. */
FXS_API FxsValueKind fxs_value_kind (const FxsValue *value);
FXS_API gboolean     fxs_value_get_bool (const FxsValue *value);
FXS_API gint64       fxs_value_get_int (const FxsValue *value);
FXS_API double       fxs_value_get_float (const FxsValue *value);
/* The string's bytes (NUL-terminated; may hold NULs, see _get_string_length). */
FXS_API const char  *fxs_value_get_string (const FxsValue *value);
FXS_API gsize        fxs_value_get_string_length (const FxsValue *value);
/* The node a FXS_VALUE_NODE refers to. */
FXS_API const FxsNode *fxs_value_get_node (const FxsValue *value);
/* Opaque constants: the Python type ("torch.dtype") and repr ("torch.float32"). */
FXS_API const char  *fxs_value_get_opaque_type (const FxsValue *value);
FXS_API const char  *fxs_value_get_opaque_repr (const FxsValue *value);

/* Containers.  For lists and tuples: the items.  For dicts: the number of
 * entries, read with _dict_key/_dict_value.  For slices: 3 items (start,
 * stop, step).  0 for every other kind. */
FXS_API guint           fxs_value_n_items (const FxsValue *value);
FXS_API const FxsValue *fxs_value_item (const FxsValue *value, guint i);
FXS_API const FxsValue *fxs_value_dict_key (const FxsValue *value, guint i);
FXS_API const FxsValue *fxs_value_dict_value (const FxsValue *value, guint i);
/* The value stored under the string key @key of a dict, or NULL. */
FXS_API const FxsValue *fxs_value_dict_lookup (const FxsValue *value, const char *key);

/* Calls @func on every node reference inside @value, depth first, in the
 * order torch.fx's map_arg visits them. */
typedef void (*FxsNodeRefFunc) (const FxsNode *node, gpointer user_data);
FXS_API void fxs_value_foreach_node (const FxsValue *value, FxsNodeRefFunc func, gpointer user_data);

/* Deep equality (node references compare by identity). */
FXS_API gboolean fxs_value_equal (const FxsValue *a, const FxsValue *b);

/* Making values.  Each lives in @graph's memory and may only be used in a
 * node of @graph.  Containers take their items by copy of the pointers'
 * contents; the items passed in may be reused. */
FXS_API FxsValue *fxs_value_new_none (FxsGraph *graph);
FXS_API FxsValue *fxs_value_new_bool (FxsGraph *graph, gboolean v);
FXS_API FxsValue *fxs_value_new_int (FxsGraph *graph, gint64 v);
FXS_API FxsValue *fxs_value_new_float (FxsGraph *graph, double v);
FXS_API FxsValue *fxs_value_new_string (FxsGraph *graph, const char *s);
FXS_API FxsValue *fxs_value_new_string_len (FxsGraph *graph, const char *s, gsize len);
FXS_API FxsValue *fxs_value_new_ellipsis (FxsGraph *graph);
FXS_API FxsValue *fxs_value_new_node (FxsGraph *graph, const FxsNode *node);
FXS_API FxsValue *fxs_value_new_opaque (FxsGraph *graph, const char *type, const char *repr);
/* @kind is FXS_VALUE_LIST or FXS_VALUE_TUPLE. */
FXS_API FxsValue *fxs_value_new_sequence (FxsGraph *graph, FxsValueKind kind,
                                  const FxsValue *const *items, guint n_items);
/* @keys and @values have @n_entries entries each. */
FXS_API FxsValue *fxs_value_new_dict (FxsGraph *graph, const FxsValue *const *keys,
                              const FxsValue *const *values, guint n_entries);
FXS_API FxsValue *fxs_value_new_slice (FxsGraph *graph, const FxsValue *start,
                               const FxsValue *stop, const FxsValue *step);

/* Python's repr() of a float: the shortest text that reads back as @v
 * ("1.0", "0.1", "1e-05", "inf", "nan").  @buf must hold 32 bytes. */
FXS_API const char *fxs_format_float (double v, char buf[32]);

G_END_DECLS

#endif
