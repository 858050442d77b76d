/* Files that appear whole or not at all (core-private).
 *
 * Data is written to a temporary file in the destination's directory and
 * renamed over the destination on commit, so readers never see a partial
 * file and a failed run leaves nothing behind.
 */
#ifndef FXS_CORE_ATOMIC_FILE_H
#define FXS_CORE_ATOMIC_FILE_H

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct FxsAtomicFile FxsAtomicFile;

/* Creates the temporary file for @path.  Fails with FXS_ERROR_IO (naming
 * @path and the reason) when its directory does not exist or is not
 * writable.  Finish with _commit or _abort, which free it. */
FxsAtomicFile *fxs_atomic_file_open (const char *path, GError **error);

/* The stream to write to; owned by the atomic file, do not fclose it. */
FILE       *fxs_atomic_file_stream (FxsAtomicFile *file);
/* The destination path. */
const char *fxs_atomic_file_path (const FxsAtomicFile *file);

/* Flushes, closes and renames the temporary file over the destination.
 * On failure (a write error seen now or earlier, e.g. a full disk) the
 * temporary file is removed and FXS_ERROR_IO set.  Frees @file either way. */
gboolean fxs_atomic_file_commit (FxsAtomicFile *file, GError **error);

/* Removes the temporary file and frees @file.  NULL is ignored. */
void     fxs_atomic_file_abort (FxsAtomicFile *file);

G_END_DECLS

#endif
