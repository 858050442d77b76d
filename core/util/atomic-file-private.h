/* Internal layout of atomic files, shared by opening (atomic-file.c) and
 * committing (atomic-commit.c). */
#ifndef FXS_ATOMIC_FILE_PRIVATE_H
#define FXS_ATOMIC_FILE_PRIVATE_H

#include "atomic-file.h"

struct FxsAtomicFile {
  char *path;      /* the destination */
  char *tmp_path;  /* ".NAME.XXXXXX" beside it */
  char *old_path;  /* during a commit: where the file replaced is kept */
  gboolean move_aside;  /* old_path cannot be a hard link: move the old file there */
  FILE *stream;    /* NULL once finished writing */
  int fd;          /* the temporary's descriptor, -1 once closed */
  int err;         /* the first write error (errno), 0 if none */
  int slot;        /* where a signal handler finds tmp_path, -1 if not tracked */
  gboolean renamed;
};

/* Flushes, fsyncs and closes the stream; FALSE (file->err set) on a write
 * error now or earlier. */
gboolean fxs_atomic_file_finish_writing (FxsAtomicFile *file);
/* Stops a signal handler from removing the temporary (it is renamed or
 * about to be freed). */
void     fxs_atomic_file_untrack (FxsAtomicFile *file);
/* Marks the renames of a commit (signals blocked on this thread). */
void     fxs_atomic_file_set_committing (gboolean on);
/* Frees @file without touching the disk. */
void     fxs_atomic_file_free (FxsAtomicFile *file);

#endif
