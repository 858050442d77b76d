/* The library's version (fxsplit/version.h). */
#include <fxsplit/version.h>

const char *
fxs_version (void)
{
  return FXS_VERSION;
}
