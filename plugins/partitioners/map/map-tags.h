/* String tags as partitions (PyTorch's split_by_tags): each tag is one
 * partition, numbered in the order of the `tags` option or, without it,
 * in the order tags first appear in the graph, and labelled with the tag.
 * A meta entry holds integer ids or string tags, never both. */
#ifndef FXS_MAP_TAGS_H
#define FXS_MAP_TAGS_H

#include <fxsplit/plugin.h>
#include <fxsplit/graph.h>

typedef struct MapTags MapTags;

/* @tags: the `tags` option (NULL: order of first appearance).  Errors
 * (FXS_ERROR_OPTION): an empty list, a tag listed twice, a tag too long to
 * be a label.  Free with map_tags_free(). */
MapTags *map_tags_new (const char *tags, GError **error);
void     map_tags_free (MapTags *tags);

/* Forgets what the last graph showed (before each prepare). */
void map_tags_reset (MapTags *tags);

/* The partition id of @node, whose meta entry @key holds @value: the
 * integer itself, or the string tag's number.  Errors
 * (FXS_ERROR_PLUGIN_FAILED) name the node: a value neither integer nor
 * string, an integer with `tags` set, integers and strings mixed (naming
 * the first node of the other kind), a tag that `tags` does not list, an
 * empty tag, one longer than FXS_PARTITION_LABEL_MAX bytes or holding a
 * control character. */
gboolean map_tags_id (MapTags *tags, const FxsNode *node, const char *key,
                      const FxsValue *value, gint64 *id, GError **error);

/* After the last node: `default` with string tags is an error; tags listed
 * in `tags` that no node has get no partition, with one warning naming
 * them (split_by_tags would make empty submodules of them). */
gboolean map_tags_check (MapTags *tags, FxsPluginContext *ctx, gboolean has_default,
                         GError **error);

/* Whether the partitions are string tags (`tags` set, or a node had one). */
gboolean map_tags_are_strings (const MapTags *tags);

/* The tag of @partition, or NULL (integer ids are not labelled). */
const char *map_tags_label (const MapTags *tags, gint64 partition);

#endif
