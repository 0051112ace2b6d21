/* ck_run.h - the one way a test program runs its Check suite: every test,
 * CK_NORMAL output, exit status 0 when all passed, 1 otherwise. */
#ifndef NASTWIN_TEST_CK_RUN_H
#define NASTWIN_TEST_CK_RUN_H

#include <check.h>

/* Run suite s (the runner frees it); 0 if every test passed, else 1. */
static inline int ck_run(Suite *s)
{
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
