/* What the graph loading tests share: documents to build inputs from, and
 * checks of an error's code, location and message. */
#ifndef FXS_TEST_LOAD_CASES_H
#define FXS_TEST_LOAD_CASES_H

#include <fxsplit/fxsplit.h>
#include <string.h>
#include "../test-util.h"

#define HEAD "{\"format\": \"fxsplit-graph\", \"version\": 1,\n"
#define X "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"}"
#define OUT "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [null]}"
#define NODES(...) HEAD "\"nodes\": [\n" __VA_ARGS__ "\n]}"

/* ---- helpers ----------------------------------------------------------- */

/* @marked is JSON with one '@' right before the token the error must point
 * at: returns the JSON without it and the expected "t.json:LINE:COLUMN: ". */
static inline char *
unmark (const char *marked, char **location)
{
  const char *at = strchr (marked, '@');
  g_assert (at != NULL);
  guint line = 1, column = 1;
  for (const char *p = marked; p < at; p++)
    {
      if (*p == '\n')
        {
          line++;
          column = 1;
        }
      else if ((*p & 0xc0) != 0x80)
        column++;
    }
  *location = g_strdup_printf ("t.json:%u:%u: ", line, column);
  GString *json = g_string_new_len (marked, at - marked);
  g_string_append (json, at + 1);
  return g_string_free (json, FALSE);
}

typedef struct {
  const char *marked;       /* JSON with '@' at the expected location */
  FxsErrorCode code;
  const char *message;      /* a part of the message */
} ErrorCase;

static inline void
check_error_case (const ErrorCase *c, const char *json, gsize len, const char *location)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (json, len, "t.json", &error);
  CU_ASSERT_PTR_NULL (g);
  fxs_graph_unref (g);
  if (!error)
    {
      CU_FAIL ("no error");
      fprintf (stderr, "\n  expected an error for: %s\n", c->marked);
      return;
    }
  gboolean ok = error->domain == FXS_ERROR && (FxsErrorCode) error->code == c->code
                && g_str_has_prefix (error->message, location)
                && strstr (error->message, c->message) != NULL
                && strchr (error->message, '\n') == NULL;
  CU_ASSERT_TRUE (ok);
  if (!ok)
    fprintf (stderr, "\n  input:    %s\n  expected: [%d] %s...%s\n  got:      [%d] %s\n",
             c->marked, c->code, location, c->message, error->code, error->message);
  g_error_free (error);
}

static inline void
run_error_cases (const ErrorCase *cases, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      char *location;
      char *json = unmark (cases[i].marked, &location);
      check_error_case (&cases[i], json, strlen (json), location);
      g_free (json);
      g_free (location);
    }
}

static inline FxsGraph *
load_ok (const char *json)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (json, strlen (json), "t.json", &error);
  if (error)
    fprintf (stderr, "\n  unexpected error: %s\n", error->message);
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&error);
  return g;
}

static inline char *
data_path (const char *name)
{
  return g_build_filename (FXS_TEST_DATA_DIR, "load", name, NULL);
}

/* ---- errors ------------------------------------------------------------ */

#endif
