/* Whether a pointer a plugin's descriptor holds may be read: it must lie
 * in a segment the dynamic linker mapped for a loaded object (the plugin
 * or a library), since a descriptor is static data.  Checked before
 * anything in a descriptor is dereferenced, so that a bad pointer ((void
 * *) 1, a dangling address) is a refused plugin, not a crash. */
#ifndef FXS_PLUGIN_MEMORY_H
#define FXS_PLUGIN_MEMORY_H

#include <glib.h>

typedef struct FxsLoadedMemory FxsLoadedMemory;

/* The readable and the executable segments of every object loaded now. */
FxsLoadedMemory *fxs_loaded_memory_new (void);
void             fxs_loaded_memory_free (FxsLoadedMemory *memory);

/* Whether the @len bytes at @p lie in one readable segment. */
gboolean fxs_loaded_memory_readable (const FxsLoadedMemory *memory, gconstpointer p, gsize len);
/* Whether @s is a readable string: in a readable segment, with its NUL
 * before the segment ends and within @max_len bytes. */
gboolean fxs_loaded_memory_string (const FxsLoadedMemory *memory, const char *s, gsize max_len);
/* Whether @fn lies in an executable segment. */
gboolean fxs_loaded_memory_code (const FxsLoadedMemory *memory, gconstpointer fn);

#endif
