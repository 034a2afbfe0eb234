/*
 * tests/common/test_init.h — starting the library in a Check test: a
 * backend this machine cannot run (TM_ERR_UNSUPPORTED: no RTM, no
 * POWER8) makes the whole test binary a skip (exit 77, which ctest
 * reports as skipped) with the library's reason; any other failure
 * fails the test with it.
 */
#ifndef POTM_TEST_INIT_H
#define POTM_TEST_INIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include <potm/tm.h>

/* tm_init(cfg), or skip the binary where the backend cannot run. */
static inline void test_tm_init(const tm_config_t *cfg)
{
	int rc = tm_init(cfg);
	if (rc == TM_ERR_UNSUPPORTED) {
		printf("skipped: %s\n", tm_last_error());
		exit(77);
	}
	ck_assert_msg(rc == 0, "tm_init: %s", tm_last_error());
}

#endif /* POTM_TEST_INIT_H */
