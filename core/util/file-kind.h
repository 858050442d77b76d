/* What kind of file a stat() mode is, for messages (core-private). */
#ifndef FXS_CORE_FILE_KIND_H
#define FXS_CORE_FILE_KIND_H

#include <sys/stat.h>

/* "a directory", "a character device", "a FIFO", ...; "a special file" for
 * anything else.  Callers have ruled out regular files and links. */
static inline const char *
fxs_file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISSOCK (mode))
    return "a socket";
  return "a special file";
}

#endif
