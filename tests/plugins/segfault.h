/* A real segmentation fault for the crash tests: a store into a page
 * mapped without access.  Not a NULL store, which UBSan (halt_on_error in
 * the sanitizer build) reports and ends as a plain exit instead. */
#ifndef FXS_TEST_SEGFAULT_H
#define FXS_TEST_SEGFAULT_H

#include <sys/mman.h>

static inline void
test_segfault (void)
{
  void *page = mmap (NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *(volatile int *) page = 1;
}

#endif
