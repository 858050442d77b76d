/* A tiny library for the needs-lib test plugin.  It is linked under a
 * soname no file has, so that loading needs-lib finds it missing. */
int fxs_test_missing_dep_answer (void);

int
fxs_test_missing_dep_answer (void)
{
  return 42;
}
