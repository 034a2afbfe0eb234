/*
 * tests/regression/htm/test_rtm_coalesce.c — rtm's coalescing (htm_gl.h):
 * consecutive transactions of a thread share one hardware transaction,
 * the code between them included, and every program still sees each
 * transaction alone and atomic:
 *
 *  - the groups form (fewer hardware starts than hardware commits) and
 *    POTM_HTM_COALESCE=1 turns them off;
 *  - tm_cancel inside a joined transaction cancels that transaction, not
 *    the group's first one;
 *  - a system call between transactions aborts the group, which comes
 *    back without the call having happened twice in any visible way, and
 *    the back-off keeps such groups rare;
 *  - tm_barrier_wait closes the open group first: the barrier's code
 *    never runs inside a hardware transaction;
 *  - bank transfers and audits under 2 and 8 threads (oversubscribed on
 *    2 cores), with groups of 8: every audit sees the total, and so does
 *    the end.
 *
 * The counts that only the hardware makes (starts, aborts) are checked
 * where the transactions run on it; with POTM_HTM_FALLBACK_ONLY=1 (a CPU
 * without RTM: the test environment says so) the same programs run on
 * the software fallback and only their results are checked.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <potm/tm.h>

#include "check_run.h"
#include "test_init.h"
#include "test_threads.h"

static void start(void)
{
	test_tm_init(NULL);
	ck_assert_int_eq(tm_thread_enter(0), 0);
}

static tm_stats_t stop(void)
{
	tm_thread_exit();
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();
	return s;
}

static long counter;

static __attribute__((noinline)) void increment(void)
{
	TM_BEGIN();
		TM_STORE(&counter, TM_LOAD(&counter) + 1);
	TM_END();
}

/* ---- groups form, and the setting turns them off ----------------------------- */

#define N_SMALL 2000

START_TEST(groups_form)
{
	counter = 0;
	start();
	ck_assert_uint_eq(tm_current_config()->htm_coalesce, 4);
	for (int i = 0; i < N_SMALL; i++)
		increment();
	tm_stats_t s = stop();
	ck_assert_int_eq(counter, N_SMALL);
	ck_assert_uint_eq(s.commits, N_SMALL);
	printf("groups of 4: %llu hardware starts for %llu hardware commits\n",
	       (unsigned long long)s.htm_starts, (unsigned long long)s.htm_commits);
	if (test_htm_on_hardware()) {
		/* Groups of 4 by default: about a quarter as many starts as
		 * commits; one each would make them equal. */
		ck_assert_uint_gt(s.htm_commits, N_SMALL / 2);
		ck_assert_uint_lt(s.htm_starts, s.htm_commits / 2);
	}
}
END_TEST

START_TEST(setting_one_turns_them_off)
{
	counter = 0;
	setenv("POTM_HTM_COALESCE", "1", 1);
	start();
	ck_assert_uint_eq(tm_current_config()->htm_coalesce, 1);
	for (int i = 0; i < N_SMALL; i++)
		increment();
	tm_stats_t s = stop();
	ck_assert_int_eq(counter, N_SMALL);
	if (test_htm_on_hardware())
		ck_assert_uint_ge(s.htm_starts, s.htm_commits);
}
END_TEST

START_TEST(bad_setting_is_refused)
{
	setenv("POTM_HTM_COALESCE", "0", 1);
	ck_assert_int_ne(tm_init(NULL), 0);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "POTM_HTM_COALESCE"));
	setenv("POTM_HTM_COALESCE", "65", 1);
	ck_assert_int_ne(tm_init(NULL), 0);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "from 1 to 64"));
}
END_TEST

/* ---- tm_cancel inside a joined transaction -------------------------------------- */

#define N_CANCEL 600

static int was_cancelled[N_CANCEL];

/* Transaction k writes, then cancels itself when k % 3 == 1: in a group
 * of 4 the cancelling one is often not the first. */
static __attribute__((noinline)) void increment_or_cancel(int k)
{
	TM_BEGIN();
		TM_STORE(&counter, TM_LOAD(&counter) + 1);
		if (k % 3 == 1)
			tm_cancel();
	TM_END();
}

START_TEST(cancel_in_a_group)
{
	counter = 0;
	start();
	for (int k = 0; k < N_CANCEL; k++) {
		increment_or_cancel(k);
		was_cancelled[k] = tm_was_cancelled();
	}
	tm_stats_t s = stop();
	long expect = 0;
	for (int k = 0; k < N_CANCEL; k++) {
		ck_assert_int_eq(was_cancelled[k], k % 3 == 1);
		expect += k % 3 != 1;
	}
	ck_assert_int_eq(counter, expect);
	ck_assert_uint_eq(s.commits, (uint64_t)expect);
	ck_assert_uint_eq(s.cancels, (uint64_t)(N_CANCEL - expect));
}
END_TEST

/* ---- a system call between transactions ------------------------------------------ */

static long calls_seen;

START_TEST(system_call_between)
{
	counter = 0;
	calls_seen = 0;
	start();
	for (int i = 0; i < N_SMALL; i++) {
		increment();
		/* Aborts an open group: what the thread did since the group's
		 * first begin is undone, the stores below included, and done
		 * again with that transaction alone. */
		if (syscall(SYS_getppid) == getppid())
			calls_seen++;
	}
	tm_stats_t s = stop();
	ck_assert_int_eq(counter, N_SMALL);
	ck_assert_int_eq(calls_seen, N_SMALL);
	ck_assert_uint_eq(s.commits, N_SMALL);
	printf("a system call after each of %d transactions: %llu aborts\n",
	       N_SMALL, (unsigned long long)s.aborts);
	if (test_htm_on_hardware())
		/* Each aborted group doubles the run alone that follows: about
		 * log2(N_SMALL) of them, not one per transaction. */
		ck_assert_uint_le(s.aborts, 64);
}
END_TEST

/* ---- a barrier closes the group ---------------------------------------------------- */

/* Whether the thread is inside a hardware transaction: a group left open
 * by the last TM_END.  XTEST faults where the CPU has no RTM, so it is
 * only asked on hardware. */
__attribute__((target("rtm"), noinline)) static bool in_hardware_tx(void)
{
	return __builtin_ia32_xtest() != 0;
}

START_TEST(barrier_closes_the_group)
{
	/* Before each barrier the group of the transaction just ended is open
	 * (on hardware); after it, closed.  A barrier that ran inside the
	 * group would either return with the group still open or abort it
	 * at its system call, rolling back the count of that iteration: only
	 * iterations whose group the barrier closed are counted as open
	 * before it.  Interrupts abort a few groups and the back-off then
	 * runs some transactions alone, so "most", not "all". */
	static volatile int open_before, open_after;
	open_before = open_after = 0;
	counter = 0;
	start();
	tm_barrier_t b;
	ck_assert_int_eq(tm_barrier_init(&b, 1), 0);
	for (int i = 0; i < 200; i++) {
		increment();
		if (test_htm_on_hardware() && in_hardware_tx())
			open_before = open_before + 1;
		ck_assert_int_eq(tm_barrier_wait(&b), TM_BARRIER_SERIAL);
		if (test_htm_on_hardware() && in_hardware_tx())
			open_after = open_after + 1;
	}
	ck_assert_int_eq(tm_barrier_destroy(&b), 0);
	tm_stats_t s = stop();
	ck_assert_int_eq(counter, 200);
	ck_assert_uint_eq(s.commits, 200);
	printf("200 transactions and barriers: open before %d, after %d, "
	       "%llu aborts\n", open_before, open_after,
	       (unsigned long long)s.aborts);
	ck_assert_int_eq(open_after, 0);
	if (test_htm_on_hardware())
		ck_assert_int_ge(open_before, 100);
}
END_TEST

/* ---- bank transfers and audits across groups ----------------------------------------- */

#define ACCOUNTS 64
#define INITIAL 1000
#define OPS 20000

static long accounts[ACCOUNTS];
static long bad_audits;

static void bank_work(unsigned id, unsigned nthreads)
{
	(void)nthreads;
	unsigned seed = 12345u + id;
	long ops = OPS / test_handoff_divisor();
	for (long i = 0; i < ops; i++) {
		int a = rand_r(&seed) % ACCOUNTS, b = rand_r(&seed) % ACCOUNTS;
		long amount = rand_r(&seed) % 50;
		if (i % 16 == 0) {
			long sum = 0;
			TM_BEGIN();
				sum = 0;
				for (int k = 0; k < ACCOUNTS; k++)
					sum += TM_LOAD(&accounts[k]);
			TM_END();
			if (sum != (long)ACCOUNTS * INITIAL)
				__atomic_fetch_add(&bad_audits, 1, __ATOMIC_RELAXED);
			continue;
		}
		TM_BEGIN();
			TM_STORE(&accounts[a], TM_LOAD(&accounts[a]) - amount);
			TM_STORE(&accounts[b], TM_LOAD(&accounts[b]) + amount);
		TM_END();
	}
}

static void bank(unsigned nthreads)
{
	for (int k = 0; k < ACCOUNTS; k++)
		accounts[k] = INITIAL;
	bad_audits = 0;
	setenv("POTM_HTM_COALESCE", "8", 1);
	test_tm_init(NULL);
	test_run_threads(nthreads, bank_work);
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();
	long sum = 0;
	for (int k = 0; k < ACCOUNTS; k++)
		sum += accounts[k];
	ck_assert_int_eq(bad_audits, 0);
	ck_assert_int_eq(sum, (long)ACCOUNTS * INITIAL);
	ck_assert_uint_eq(s.commits, (uint64_t)nthreads * (OPS / test_handoff_divisor()));
	printf("bank, %u threads, groups of 8: %llu hardware starts, %llu hardware "
	       "commits, %llu fallbacks\n", nthreads, (unsigned long long)s.htm_starts,
	       (unsigned long long)s.htm_commits, (unsigned long long)s.htm_fallbacks);
}

START_TEST(bank_two_threads) { bank(2); }
END_TEST

START_TEST(bank_oversubscribed) { bank(8); }
END_TEST

int main(void)
{
	Suite *s = suite_create("rtm_coalesce");
	TCase *tc = tcase_create("coalesce");
	tcase_add_test(tc, groups_form);
	tcase_add_test(tc, setting_one_turns_them_off);
	tcase_add_test(tc, bad_setting_is_refused);
	tcase_add_test(tc, cancel_in_a_group);
	tcase_add_test(tc, system_call_between);
	tcase_add_test(tc, barrier_closes_the_group);
	tcase_add_test(tc, bank_two_threads);
	tcase_add_test(tc, bank_oversubscribed);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
