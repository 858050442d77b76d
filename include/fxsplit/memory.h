/* How the process's memory is taken: a tuning for programs that load big
 * graphs. */
#ifndef FXSPLIT_MEMORY_H
#define FXSPLIT_MEMORY_H

#include <glib.h>
#include <fxsplit/api.h>

G_BEGIN_DECLS

/* Tunes the whole process's memory for big graphs, for programs (fxsplit
 * calls it first thing in main()), not for libraries that embed fxsplit:
 * malloc then serves blocks up to 32 MiB from its heap, which grows in
 * 64 MiB steps that it keeps and that are advised for 2 MiB pages (the
 * heap's start, below its first 2 MiB boundary, is left unused), and the
 * library takes its blocks under 2 MiB from malloc instead of a 2 MiB page
 * of their own.  Each 4 KiB page's first touch is a page fault (~12 us on
 * the virtual machines measured); a 2 MiB page takes one, and packed
 * blocks touch fewer fresh pages.  Call it before other threads start.
 * Returns TRUE when the heap was advised; FALSE when malloc is not glibc's,
 * refused a setting, or keeps its blocks elsewhere than glibc's heap (under
 * valgrind or ASan, say): the library then keeps its own mappings for its
 * blocks, as without the call (malloc's settings may have been changed). */
FXS_API gboolean fxs_memory_tune_for_big_graphs (void);

G_END_DECLS

#endif
