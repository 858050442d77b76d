/* Shared CUnit runner for the unit tests: runs every registered suite and
 * returns non-zero when any assertion failed (CUnit's own runner does not). */
#ifndef FXS_TEST_UTIL_H
#define FXS_TEST_UTIL_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  const char *name;
  CU_TestFunc func;
} FxsTestCase;

#define FXS_TEST(fn) { #fn, fn }

/* Adds a suite with @cases (terminated by { NULL, NULL }), @init and
 * @cleanup (may be NULL) run before and after it. */
static inline void
fxs_test_add_suite_with (const char *name, CU_InitializeFunc init, CU_CleanupFunc cleanup,
                         const FxsTestCase *cases)
{
  CU_pSuite suite = CU_add_suite (name, init, cleanup);
  if (!suite)
    {
      fprintf (stderr, "CUnit: %s\n", CU_get_error_msg ());
      exit (2);
    }
  for (const FxsTestCase *c = cases; c->name; c++)
    if (!CU_add_test (suite, c->name, c->func))
      {
        fprintf (stderr, "CUnit: %s\n", CU_get_error_msg ());
        exit (2);
      }
}

/* Adds a suite with @cases (terminated by { NULL, NULL }). */
static inline void
fxs_test_add_suite (const char *name, const FxsTestCase *cases)
{
  fxs_test_add_suite_with (name, NULL, NULL, cases);
}

/* Runs everything registered; exit status 0 only when all passed. */
static inline int
fxs_test_run_all (void)
{
  CU_basic_set_mode (CU_BRM_VERBOSE);
  CU_basic_run_tests ();
  unsigned failed = CU_get_number_of_failures () + CU_get_number_of_tests_failed ();
  unsigned run = CU_get_number_of_tests_run ();
  CU_cleanup_registry ();
  if (run == 0)
    {
      fprintf (stderr, "no tests ran\n");
      return 1;
    }
  return failed ? 1 : 0;
}

#define FXS_TEST_MAIN(register_fn)                                  \
  int main (void)                                                    \
  {                                                                  \
    if (CU_initialize_registry () != CUE_SUCCESS)                    \
      return 2;                                                      \
    register_fn ();                                                  \
    return fxs_test_run_all ();                                      \
  }

#endif
