/*
 * tests/common/check_run.h — the end of every Check test's main(): run
 * the suite (forking each test, Check's default), report, exit status for
 * ctest.
 */
#ifndef POTM_TESTS_CHECK_RUN_H
#define POTM_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/* EXIT_SUCCESS if every test of s passed, else EXIT_FAILURE. */
static inline int potm_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* POTM_TESTS_CHECK_RUN_H */
