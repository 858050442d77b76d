/* Progress on stderr for runs that take more than a second, when stderr is
 * a terminal: one line, redrawn by a timer thread. */
#ifndef FXS_CLI_PROGRESS_H
#define FXS_CLI_PROGRESS_H

#include <glib.h>

typedef struct CliProgress CliProgress;

/* Starts the timer; with @enabled FALSE nothing is ever drawn. */
CliProgress *cli_progress_new (gboolean enabled);
/* An FxsProgressFunc: records the current step for the next redraw. */
void cli_progress_update (const char *step, guint64 done, guint64 total, gpointer progress);
/* Prints @line on stderr without mixing it into the progress line. */
void cli_progress_print (CliProgress *progress, const char *line);
/* Erases the progress line and stops the timer. */
void cli_progress_free (CliProgress *progress);

#endif
