/*
 * tests/regression/pot/test_pot_runs.c — transactions inside a run of
 * turns (lib/sequencer.h S4).  A thread that kept the turn at its last
 * commit begins its next transaction in fast mode at its run's slot
 * without looking at the sequencer (stm/pot.c pot_begin_in_run), and a
 * keyless fast transaction commits inline.  What that must keep:
 *  - each transaction of a run takes the next slot (tm_last_order);
 *  - a serial transaction (tm_hint_serial, or one whose undo log reaches
 *    POTM_SERIAL_WRITES, which restarts keeping its run) still runs
 *    alone (tm_serial), and the next one is ordinary again;
 *  - the statistics of the inline commit stay exact, and an abort or a
 *    cancel inside a run resumes at the outermost TM_BEGIN, undone;
 *  - at 2 threads and oversubscribed, no slot is taken twice and no
 *    increment is lost across the runs' hand-offs.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"
#include "test_threads.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static const char *const run_modes[] = { "pot", "pot-fast" };   /* the modes with runs */

static tm_word_t counter;
static tm_word_t words[32];

/* One short transaction: an increment. */
static void increment(void)
{
	TM_BEGIN();
	TM_STORE(&counter, TM_LOAD(&counter) + 1);
	TM_END();
}

static tm_stats_t thread_stats(void)
{
	tm_stats_t s;
	ck_assert_int_eq(tm_thread_stats(&s), 0);
	return s;
}

/* One thread: consecutive short transactions take consecutive slots,
 * all in fast mode. */
START_TEST(test_run_takes_consecutive_slots)
{
	enum { N = 2000 };
	pot_use_mode(run_modes[_i]);
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	counter = 0;
	increment();   /* the first one may run before the thread holds turns */
	tm_stats_t before = thread_stats();
	uint64_t prev = TM_ORDER_NONE;
	for (unsigned k = 0; k < N; k++) {
		increment();
		uint64_t o = tm_last_order();
		if (k > 0)
			ck_assert_msg(o == prev + 1, "%s: transaction %u took slot %llu after %llu",
			              run_modes[_i], k, (unsigned long long)o,
			              (unsigned long long)prev);
		prev = o;
	}
	tm_stats_t after = thread_stats();
	ck_assert_int_eq(counter, N + 1);
	ck_assert_uint_eq(after.fast_commits - before.fast_commits, N);
	ck_assert_uint_eq(after.spec_commits - before.spec_commits, 0);
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

/* Serial mode inside a run: the hinted transaction and the one sent
 * serial by its undo log both run alone; the others do not. */
START_TEST(test_serial_inside_a_run)
{
	pot_use_mode("pot");
	setenv("POTM_SERIAL", "1", 1);
	setenv("POTM_SERIAL_WRITES", "8", 1);
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	counter = 0;
	for (int k = 0; k < 5; k++)
		increment();
	tm_stats_t before = thread_stats();
	uint64_t prev = tm_last_order();

	volatile int serial = -1;
	ck_assert_int_eq(tm_hint_serial(), 0);
	TM_BEGIN();
	serial = tm_serial();
	TM_STORE(&counter, TM_LOAD(&counter) + 1);
	TM_END();
	ck_assert_msg(serial == 1, "a hinted transaction inside a run did not run serially");
	ck_assert_uint_eq(tm_last_order(), prev + 1);
	prev = tm_last_order();

	for (int k = 0; k < 3; k++) {
		TM_BEGIN();
		serial = tm_serial();
		TM_STORE(&counter, TM_LOAD(&counter) + 1);
		TM_END();
		ck_assert_msg(serial == 0, "the transaction after a serial one ran serially");
		ck_assert_uint_eq(tm_last_order(), prev + 1);
		prev = tm_last_order();
	}

	TM_BEGIN();
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		TM_STORE(&words[i], (tm_word_t)i + 1);
	serial = tm_serial();
	TM_END();
	ck_assert_msg(serial == 1, "a transaction past POTM_SERIAL_WRITES inside a run "
	              "did not go serial");
	ck_assert_uint_eq(tm_last_order(), prev + 1);
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		ck_assert_int_eq(words[i], (tm_word_t)i + 1);

	tm_stats_t after = thread_stats();
	ck_assert_uint_eq(after.serial - before.serial, 2);
	ck_assert_uint_eq(after.aborts_by_cause[TM_ABORT_SERIAL] -
	                  before.aborts_by_cause[TM_ABORT_SERIAL], 1);
	ck_assert_int_eq(counter, 5 + 1 + 3);
	tm_thread_exit();
	tm_shutdown();
	unsetenv("POTM_SERIAL");
	unsetenv("POTM_SERIAL_WRITES");
}
END_TEST

/* The inline commit of a transaction begun in its run keeps the
 * statistics exact (commits, read-only commits, fast commits, in-place
 * writes), and an abort or a cancel inside a run resumes at the outermost
 * TM_BEGIN (the resume point, potm/static/txd.h) with the transaction's
 * effects undone. */
static volatile int nested_attempts;

static void nested_increment_restarting_once(void)
{
	TM_BEGIN();   /* flat nesting: joins the caller's transaction */
	TM_STORE(&counter, TM_LOAD(&counter) + 1);
	if (nested_attempts++ == 0)
		tm_restart();
	TM_END();
}

START_TEST(test_stats_and_aborts_inside_a_run)
{
	enum { RO = 10, RW = 10 };
	pot_use_mode(run_modes[_i]);
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	counter = 0;
	for (int k = 0; k < 3; k++)
		increment();   /* the run is on from here */
	tm_stats_t before = thread_stats();
	uint64_t prev = tm_last_order();
	volatile tm_word_t seen = 0;
	for (int k = 0; k < RO; k++) {
		TM_BEGIN();
		seen = TM_LOAD(&counter);
		TM_END();
		ck_assert_uint_eq(tm_last_order(), prev + 1);
		prev = tm_last_order();
	}
	ck_assert_int_eq(seen, 3);
	for (int k = 0; k < RW; k++)
		increment();

	volatile int outer_entries = 0;
	nested_attempts = 0;
	prev = tm_last_order();
	TM_BEGIN();
	outer_entries++;
	nested_increment_restarting_once();
	TM_END();
	ck_assert_int_eq(outer_entries, 2);   /* resumed at the outer TM_BEGIN */
	ck_assert_int_eq(nested_attempts, 2);
	ck_assert_int_eq(counter, 3 + RW + 1);   /* the first attempt's store undone */
	ck_assert_uint_gt(tm_last_order(), prev);
	ck_assert(!tm_was_cancelled());

	TM_BEGIN();
	TM_STORE(&counter, TM_LOAD(&counter) + 100);
	tm_cancel();
	TM_END();
	ck_assert(tm_was_cancelled());
	ck_assert_int_eq(counter, 3 + RW + 1);
	increment();   /* and the next one commits as usual */
	ck_assert(!tm_was_cancelled());
	ck_assert_int_eq(counter, 3 + RW + 2);

	tm_stats_t after = thread_stats();
	ck_assert_uint_eq(after.commits - before.commits, RO + RW + 2);
	ck_assert_uint_eq(after.commits_ro - before.commits_ro, RO);
	ck_assert_uint_eq(after.fast_commits - before.fast_commits, RO + RW + 2);
	ck_assert_uint_eq(after.spec_commits - before.spec_commits, 0);
	ck_assert_uint_eq(after.writes - before.writes, RW + 2);
	ck_assert_uint_eq(after.cancels - before.cancels, 1);
	ck_assert_uint_eq(after.aborts_by_cause[TM_ABORT_EXPLICIT] -
	                  before.aborts_by_cause[TM_ABORT_EXPLICIT], 1);
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

/* Threads: runs of short increments handed between threads. */
#define MAX_THREADS 8
#define PER_THREAD 3000
static uint64_t orders[MAX_THREADS][PER_THREAD];
static unsigned per_thread;

static void increments(unsigned id, void *arg)
{
	(void)arg;
	for (unsigned k = 0; k < per_thread; k++) {
		increment();
		orders[id][k] = tm_last_order();
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static const unsigned thread_counts[] = { 2, 8 };

START_TEST(test_runs_between_threads)
{
	unsigned n = thread_counts[_i];
	per_thread = (unsigned)(PER_THREAD / test_handoff_divisor());
	pot_use_mode("pot");
	pot_init_or_fail();
	counter = 0;
	pot_run_threads(n, increments, NULL);
	tm_shutdown();
	ck_assert_int_eq(counter, (tm_word_t)n * per_thread);
	uint64_t *all = malloc((size_t)n * per_thread * sizeof *all);
	ck_assert_ptr_nonnull(all);
	for (unsigned id = 0; id < n; id++)
		memcpy(all + (size_t)id * per_thread, orders[id], per_thread * sizeof *all);
	qsort(all, (size_t)n * per_thread, sizeof *all, cmp_u64);
	for (size_t i = 1; i < (size_t)n * per_thread; i++)
		ck_assert_msg(all[i] > all[i - 1], "%u threads: slot %llu taken twice", n,
		              (unsigned long long)all[i]);
	free(all);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-runs");
	TCase *tc = tcase_create("runs");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_run_takes_consecutive_slots, 0,
	                    sizeof run_modes / sizeof *run_modes);
	tcase_add_test(tc, test_serial_inside_a_run);
	tcase_add_loop_test(tc, test_stats_and_aborts_inside_a_run, 0,
	                    sizeof run_modes / sizeof *run_modes);
	tcase_add_loop_test(tc, test_runs_between_threads, 0,
	                    sizeof thread_counts / sizeof *thread_counts);
	suite_add_tcase(s, tc);
	return pot_run_suite(s);
}
