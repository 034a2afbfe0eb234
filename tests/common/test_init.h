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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Do the hardware backends' transactions run on the hardware?  Not where
 * the test environment sends them all to the software fallback
 * (POTM_HTM_FALLBACK_ONLY=1, a CPU without RTM): counts that only the
 * hardware makes (starts, aborts, hardware commits) are checked only
 * where this holds. */
static inline bool test_htm_on_hardware(void)
{
	const char *v = getenv("POTM_HTM_FALLBACK_ONLY");
	return v == NULL || strcmp(v, "1") != 0;
}

#endif /* POTM_TEST_INIT_H */
