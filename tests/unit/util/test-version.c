/* fxs_version() and fxsplit/version.h agree with the project's version
 * (meson passes it as FXS_TEST_PROJECT_VERSION). */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "../test-util.h"

static void
test_version (void)
{
  CU_ASSERT_STRING_EQUAL (fxs_version (), FXS_TEST_PROJECT_VERSION);
  CU_ASSERT_STRING_EQUAL (FXS_VERSION, FXS_TEST_PROJECT_VERSION);
  char *parts = g_strdup_printf ("%d.%d.%d", FXS_VERSION_MAJOR, FXS_VERSION_MINOR,
                                 FXS_VERSION_MICRO);
  CU_ASSERT_STRING_EQUAL (parts, fxs_version ());
  g_free (parts);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_version),
    { NULL, NULL },
  };
  fxs_test_add_suite ("version", cases);
}

FXS_TEST_MAIN (register_tests)
