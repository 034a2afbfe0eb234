/*
 * tests/regression/htm/test_pot_htm.c — what is particular to Pot on
 * hardware TM (pot-rtm, pot-rot), beyond the Pot tests
 * (tests/regression/pot) that they pass like pot:
 *
 *  - the statistics add up: every commit is either fast (in its turn: a
 *    rollback-only transaction or software in place) or speculative (a
 *    hardware transaction committed in its turn); with
 *    POTM_HTM_FALLBACK_ONLY no hardware transaction is even started;
 *  - tm_last_order gives every committed or cancelled transaction its own
 *    slot, increasing per thread, and a sequential replay in slot order
 *    reproduces every result and the final state;
 *  - pot-rtm's POTM_POTRTM_WAIT is checked (a bad value names the variable
 *    and the allowed values; other backends do not know it), and its
 *    alternatives, the late turn check and waiting inside the
 *    transaction, are deterministic too;
 *  - on a machine without the hardware, and without the variables that
 *    make the tests run anyway (POTM_HTM_FALLBACK_ONLY, POTM_HTM_FORCE),
 *    tm_init fails with TM_ERR_UNSUPPORTED and says why.
 *
 * Without the hardware (an x86-64 CPU without RTM, qemu-ppc64le) the tests
 * run the software fast path and the ordering for real; the hardware
 * paths run only where the CPU has them (POTM_TEST_HTM_HARDWARE for
 * pot-rtm, a POWER8 CPU for pot-rot).
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "test_init.h"

#define NTHREADS 4
#define PER_THREAD 60

static bool is_backend(const char *name)
{
	return strcmp(tm_backend_name(), name) == 0;
}

/* ---- statistics and slots ------------------------------------------------------ */

static long counter;
static uint64_t slots[NTHREADS][PER_THREAD];
static int cancelled[NTHREADS][PER_THREAD];

/* Every fifth transaction of a thread cancels after its write: an ordered
 * no-op whose write must vanish. */
static __attribute__((noinline)) void count_tx(unsigned id, unsigned k)
{
	TM_BEGIN();
		TM_STORE(&counter, TM_LOAD(&counter) + 1);
		if ((id + k) % 5 == 0)
			tm_cancel();
	TM_END();
}

static void count_thread(unsigned id, void *arg)
{
	(void)arg;
	for (unsigned k = 0; k < PER_THREAD; k++) {
		count_tx(id, k);
		slots[id][k] = tm_last_order();
		cancelled[id][k] = tm_was_cancelled();
	}
}

START_TEST(test_stats_add_up)
{
	pot_use_mode(pot_modes[_i]);
	counter = 0;
	pot_init_or_fail();
	pot_run_threads(NTHREADS, count_thread, NULL);
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();

	long expect = 0;
	for (unsigned id = 0; id < NTHREADS; id++)
		for (unsigned k = 0; k < PER_THREAD; k++) {
			ck_assert_int_eq(cancelled[id][k], (id + k) % 5 == 0);
			expect += (id + k) % 5 != 0;
			ck_assert(slots[id][k] != TM_ORDER_NONE);
			if (k > 0)
				ck_assert(slots[id][k] > slots[id][k - 1]);
			for (unsigned j = 0; j < id; j++)
				for (unsigned m = 0; m < PER_THREAD; m++)
					ck_assert(slots[j][m] != slots[id][k]);
		}
	ck_assert_int_eq(counter, expect);
	ck_assert_uint_eq(s.commits, (uint64_t)expect);
	ck_assert_uint_eq(s.cancels, (uint64_t)(NTHREADS * PER_THREAD) - (uint64_t)expect);
	ck_assert_uint_eq(s.fast_commits + s.spec_commits, s.commits);
	ck_assert(s.spec_commits <= s.htm_commits);
	ck_assert(s.htm_commits <= s.htm_starts);
	ck_assert(s.aborts_by_cause[TM_ABORT_ORDER] <= s.aborts);
	if (!test_htm_on_hardware()) {
		ck_assert_uint_eq(s.htm_starts, 0);
		ck_assert_uint_eq(s.fast_commits, s.commits);
		ck_assert(s.htm_fallbacks >= s.commits + s.cancels);
	}
	printf("%s %-11s commits %llu fast %llu spec %llu htm starts %llu commits "
	       "%llu persistent %llu software %llu ordering aborts %llu\n",
	       tm_backend_name(), pot_modes[_i], (unsigned long long)s.commits,
	       (unsigned long long)s.fast_commits, (unsigned long long)s.spec_commits,
	       (unsigned long long)s.htm_starts, (unsigned long long)s.htm_commits,
	       (unsigned long long)s.htm_persistent, (unsigned long long)s.htm_fallbacks,
	       (unsigned long long)s.aborts_by_cause[TM_ABORT_ORDER]);
}
END_TEST

/* ---- pot-rtm's waiting policy ------------------------------------------------------ */

START_TEST(test_wait_setting_is_checked)
{
	pot_use_mode("pot");
	setenv("POTM_POTRTM_WAIT", "sideways", 1);
	int rc = tm_init(NULL);
	unsetenv("POTM_POTRTM_WAIT");
	ck_assert_int_eq(rc, -1);
	if (is_backend("pot-rtm"))
		ck_assert_msg(strstr(tm_last_error(), "POTM_POTRTM_WAIT=\"sideways\"") != NULL &&
		              strstr(tm_last_error(), "outside, late, inside") != NULL,
		              "%s", tm_last_error());
	else   /* only pot-rtm knows it */
		ck_assert_msg(strstr(tm_last_error(), "unknown environment variable "
		                     "POTM_POTRTM_WAIT") != NULL, "%s", tm_last_error());
}
END_TEST

static const char *const waits[] = { "outside", "late", "inside" };

START_TEST(test_wait_policies_are_deterministic)
{
	if (!is_backend("pot-rtm"))
		return;
	pot_use_mode("pot");
	setenv("POTM_POTRTM_WAIT", waits[_i], 1);
	pot_run_t first, run;
	pot_run_prog(&pot_prog_bank, NTHREADS, PER_THREAD, &first);
	pot_replay_check(&pot_prog_bank, &first);
	pot_prog_bank.teardown();
	for (int r = 0; r < 3; r++) {
		pot_run_prog(&pot_prog_bank, NTHREADS, PER_THREAD, &run);
		pot_prog_bank.teardown();
		ck_assert_msg(run.order_hash == first.order_hash &&
		              run.state_hash == first.state_hash,
		              "POTM_POTRTM_WAIT=%s: run %d differs", waits[_i], r + 1);
		free(run.recs);
	}
	free(first.recs);
	unsetenv("POTM_POTRTM_WAIT");
}
END_TEST

/* ---- no hardware ---------------------------------------------------------------------- */

START_TEST(test_without_hardware_init_says_why)
{
	char *fallback = getenv("POTM_HTM_FALLBACK_ONLY");
	char *force = getenv("POTM_HTM_FORCE");
	fallback = fallback ? strdup(fallback) : NULL;
	force = force ? strdup(force) : NULL;
	unsetenv("POTM_HTM_FALLBACK_ONLY");
	unsetenv("POTM_HTM_FORCE");
	pot_use_mode("pot");
	int rc = tm_init(NULL);
	if (rc == 0) {
		printf("%s: the CPU has the hardware; nothing to check\n", tm_backend_name());
		tm_shutdown();
	} else {
		ck_assert_int_eq(rc, TM_ERR_UNSUPPORTED);
		const char *what = is_backend("pot-rtm") ? "Intel RTM" : "POWER HTM";
		ck_assert_msg(strstr(tm_last_error(), tm_backend_name()) != NULL &&
		              strstr(tm_last_error(), what) != NULL &&
		              strstr(tm_last_error(), "POTM_HTM_FALLBACK_ONLY=1") != NULL,
		              "%s", tm_last_error());
	}
	if (fallback)
		setenv("POTM_HTM_FALLBACK_ONLY", fallback, 1);
	if (force)
		setenv("POTM_HTM_FORCE", force, 1);
	free(fallback);
	free(force);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-htm");
	TCase *tc = tcase_create("pot-htm");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_stats_add_up, 0, POT_NMODES);
	tcase_add_test(tc, test_wait_setting_is_checked);
	tcase_add_loop_test(tc, test_wait_policies_are_deterministic, 0, 2);
	tcase_add_test(tc, test_without_hardware_init_says_why);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
