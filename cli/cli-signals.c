/* What the command does when it is killed or a plugin ends it: remove the
 * temporaries of outputs being written, name the plugin hook that was
 * running, and end as it was asked to (the signal, or a failure status). */
#include "cli.h"
#include <fxsplit/io.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A node name in the crash line is cut after this many bytes. */
#define NODE_SHOWN 200

/* Signals that end the command, and those where a plugin hook crashed. */
static const int ending[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ, SIGQUIT };
static const struct { int sig; const char *text; } crashes[] = {
  { SIGSEGV, "Segmentation fault" }, { SIGBUS, "Bus error" },
  { SIGFPE, "Floating point exception" }, { SIGILL, "Illegal instruction" },
  { SIGABRT, "Aborted" },
};

/* Where crash handlers run, so that a stack overflow can be reported. */
static char alt_stack[64 * 1024];

/* Appends @text to @buf (of @size, used @len), control characters as '?',
 * at most @max bytes of it; async-signal-safe. */
static size_t
append (char *buf, size_t size, size_t len, const char *text, size_t max)
{
  for (size_t i = 0; text[i] && i < max && len < size; i++)
    buf[len++] = (unsigned char) text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
  return len;
}

/* "fxsplit: plugin 'NAME' (PATH) VERB in HOOK on node "NODE": WHY\n" on
 * stderr when a hook runs; async-signal-safe.  FALSE when none runs. */
static gboolean
say_running_hook (const char *verb, const char *why)
{
  const char *plugin, *hook, *node;
  if (!fxs_pipeline_running_hook (&plugin, &hook, &node))
    return FALSE;
  char line[1024];
  size_t n = 0, max = sizeof line - 1;
  n = append (line, max, n, "fxsplit: ", SIZE_MAX);
  n = append (line, max, n, plugin, 600);
  n = append (line, max, n, " ", SIZE_MAX);
  n = append (line, max, n, verb, SIZE_MAX);
  n = append (line, max, n, " in ", SIZE_MAX);
  n = append (line, max, n, hook, SIZE_MAX);
  if (node)
    {
      n = append (line, max, n, " on node \"", SIZE_MAX);
      n = append (line, max, n, node, NODE_SHOWN);
      n = append (line, max, n, "\"", SIZE_MAX);
    }
  n = append (line, max, n, ": ", SIZE_MAX);
  n = append (line, max, n, why, SIZE_MAX);
  line[n++] = '\n';
  ssize_t unused = write (STDERR_FILENO, line, n);
  (void) unused;
  return TRUE;
}

static void
on_ending_signal (int sig)
{
  fxs_io_remove_temporaries ();
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
on_crash (int sig)
{
  /* SA_RESETHAND: the default action is back, a fault in here ends it. */
  fxs_io_remove_temporaries ();
  const char *why = "crashed";
  for (guint i = 0; i < G_N_ELEMENTS (crashes); i++)
    if (crashes[i].sig == sig)
      why = crashes[i].text;
  say_running_hook ("crashed", why);
  raise (sig);
}

/* exit() while a plugin hook runs: the outputs were not committed, so the
 * command must not succeed. */
static void
check_exit (void)
{
  const char *plugin, *hook, *node;
  if (!fxs_pipeline_running_hook (&plugin, &hook, &node))
    return;
  /* only fini runs after the outputs were committed */
  say_running_hook ("called exit()", strcmp (hook, "fini") == 0
                                     ? "the command did not finish"
                                     : "the command did not finish and wrote no output");
  fxs_io_remove_temporaries ();
  _exit (CLI_EXIT_PLUGIN);
}

void
cli_signals_install (void)
{
  stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof alt_stack };
  sigaltstack (&ss, NULL);
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  for (guint i = 0; i < G_N_ELEMENTS (crashes); i++)
    sigaction (crashes[i].sig, &sa, NULL);
  sa.sa_handler = on_ending_signal;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (guint i = 0; i < G_N_ELEMENTS (ending); i++)
    {
      struct sigaction old;
      /* an ignored signal (nohup, a background job) stays ignored */
      if (sigaction (ending[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction (ending[i], &sa, NULL);
    }
  atexit (check_exit);
}
