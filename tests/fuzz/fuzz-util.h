/* What every fuzz harness checks about a failure: an error in the FXS_ERROR
 * domain with one non-empty line of message.  A violation aborts, which
 * libFuzzer reports as a crash with the input that caused it. */
#ifndef FXS_FUZZ_UTIL_H
#define FXS_FUZZ_UTIL_H

#include <fxsplit/fxsplit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void G_GNUC_NORETURN
fuzz_fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz check failed: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort ();
}

/* @ok is what the call returned; @error what it set. */
static inline void
fuzz_check_outcome (gboolean ok, const GError *error)
{
  if (ok)
    {
      if (error)
        fuzz_fail ("success with an error set", error->message);
      return;
    }
  if (!error)
    fuzz_fail ("failure without an error", NULL);
  if (error->domain != FXS_ERROR)
    fuzz_fail ("error outside the FXS_ERROR domain", error->message);
  if (error->message[0] == '\0')
    fuzz_fail ("empty error message", NULL);
  if (strchr (error->message, '\n'))
    fuzz_fail ("error message of more than one line", error->message);
}

#endif
