/* Files that appear whole or not at all (core-private).
 *
 * Data is written to a hidden temporary file (".NAME.XXXXXX") in the
 * destination's directory, synced, and renamed over the destination on
 * commit, so readers never see a partial file and a failed run leaves
 * nothing behind.  A destination that exists must be a regular file with
 * one link (not a symbolic link, device, FIFO or directory); its mode, and
 * its owner where the process may set it, carry over to the new file.
 */
#ifndef FXS_CORE_ATOMIC_FILE_H
#define FXS_CORE_ATOMIC_FILE_H

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct FxsAtomicFile FxsAtomicFile;

/* Why @path may not be replaced by an atomic file ("is a symbolic link
 * ...", "is a character device, not a regular file", "has 2 hard links
 * ..."), newly allocated; NULL when it does not exist or is a regular file
 * with one link. */
char *fxs_atomic_file_destination_problem (const char *path);

/* Creates the temporary file for @path.  Fails with FXS_ERROR_IO (naming
 * @path and the reason) when its directory does not exist or is not
 * writable, or when @path has a destination problem.  Finish with _commit,
 * _commit_all or _abort, which free it. */
FxsAtomicFile *fxs_atomic_file_open (const char *path, GError **error);

/* The stream to write to (it cannot seek); owned by the atomic file, do
 * not fclose it.  Write errors are kept with their cause and reported on
 * commit. */
FILE       *fxs_atomic_file_stream (FxsAtomicFile *file);
/* The destination path. */
const char *fxs_atomic_file_path (const FxsAtomicFile *file);

/* Flushes, syncs and closes the temporary file and renames it over the
 * destination, then syncs the directory.  On failure (a write error seen
 * now or earlier, e.g. a full disk: FXS_ERROR_IO with strerror's text)
 * the temporary file is removed.  Frees @file either way. */
gboolean fxs_atomic_file_commit (FxsAtomicFile *file, GError **error);

/* Commits @n files together: each is flushed and synced first; then the
 * existing destinations are kept aside (a hidden hard link
 * ".NAME.XXXXXX.old") and every temporary file is renamed into place; when
 * any step fails, the destinations already replaced get their old file
 * back, new ones are removed, and FXS_ERROR_IO names the file that failed.
 * Signals that remove temporaries are blocked while the renames run.
 * Frees every file either way. */
gboolean fxs_atomic_file_commit_all (FxsAtomicFile **files, guint n, GError **error);

/* Removes the temporary file and frees @file.  NULL is ignored. */
void     fxs_atomic_file_abort (FxsAtomicFile *file);

/* fxs_io_remove_temporaries() (fxsplit/io.h) unlinks the temporaries of
 * every file opened here and not yet committed or aborted. */

G_END_DECLS

#endif
