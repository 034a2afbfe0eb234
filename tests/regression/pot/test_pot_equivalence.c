/*
 * tests/regression/pot/test_pot_equivalence.c — what a Pot run computes is
 * what the same transactions compute one after the other in the
 * sequencer's order.
 *
 *  - replay: every transaction's result and the final state equal those of
 *    a sequential replay in slot order (tm_last_order), for every mode;
 *  - opacity: speculative transactions never see a half-written state of
 *    the fast (in-place) transaction, not even in an attempt that aborts;
 *  - explicit aborts: tm_restart in the turn gives the slot up (a
 *    transaction waiting for another thread's write does not livelock),
 *    tm_cancel is an ordered no-op that undoes in-place writes.
 * Each test is a loop over the modes (POTM_MODE).
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- replay ---------------------------------------------------------------- */

static void replay_one(const pot_prog_t *prog, unsigned nthreads, unsigned per)
{
	pot_run_t run;
	pot_run_prog(prog, nthreads, per, &run);
	pot_replay_check(prog, &run);
	prog->teardown();
	free(run.recs);
}

START_TEST(test_replay_equivalence)
{
	pot_use_mode(pot_modes[_i]);
	replay_one(&pot_prog_bank, 4, 100);
	replay_one(&pot_prog_bank, 8, 50);
	replay_one(&pot_prog_intset, 4, 100);
	replay_one(&pot_prog_intset, 8, 50);
	replay_one(&pot_prog_counter, 3, 100);
}
END_TEST

/* ---- opacity ------------------------------------------------------------------
 * ROW words, each on its own stripe, always equal at commit.  Writers set
 * them all to the next value one by one (in place, in fast mode); readers
 * check inside the transaction that they are all equal.  A reader that
 * ever sees two different values has seen a state that never existed. */

#define ROW 8
static long row[ROW * 8];              /* one word per 64 bytes */
#define ROWW(i) (&row[(i) * 8])
static long inconsistent;              /* plain atomic: counted even by attempts that abort */
static long audits;

#define OPACITY_TXS 400

/* (The transactions live in functions of their own so that no local of
 * a caller's loop lives across TM_BEGIN's setjmp.) */
static __attribute__((noinline)) void opacity_write(void)
{
	TM_BEGIN();
		long v = TM_LOAD(ROWW(0)) + 1;
		for (int i = 0; i < ROW; i++)
			TM_STORE(ROWW(i), v);
	TM_END();
}

static __attribute__((noinline)) void opacity_audit(void)
{
	TM_BEGIN();
		long first = TM_LOAD(ROWW(0));
		for (int i = 1; i < ROW; i++)
			if (TM_LOAD(ROWW(i)) != first)
				__atomic_fetch_add(&inconsistent, 1, __ATOMIC_RELAXED);
	TM_END();
	__atomic_fetch_add(&audits, 1, __ATOMIC_RELAXED);
}

static void opacity_thread(unsigned id, void *arg)
{
	(void)arg;
	for (unsigned k = 0; k < OPACITY_TXS; k++) {
		if ((k + id) % 3 == 0)
			opacity_write();
		else
			opacity_audit();
	}
}

START_TEST(test_opacity_fast_vs_speculative)
{
	pot_use_mode(pot_modes[_i]);
	memset(row, 0, sizeof row);
	inconsistent = 0;
	audits = 0;
	pot_init_or_fail();
	pot_run_threads(4, opacity_thread, NULL);
	tm_stats_t s;
	ck_assert(tm_stats(&s) == 0);
	tm_shutdown();
	ck_assert_msg(inconsistent == 0, "%s: %ld reads saw a state that never "
	              "existed", pot_modes[_i], inconsistent);
	long writes = 0;
	for (unsigned id = 0; id < 4; id++)
		for (unsigned k = 0; k < OPACITY_TXS; k++)
			writes += (k + id) % 3 == 0;
	for (int i = 0; i < ROW; i++)
		ck_assert_int_eq(*ROWW(i), writes);
	ck_assert_int_eq(audits, 4 * OPACITY_TXS - writes);
	printf("opacity %-11s commits %llu aborts %llu fast %llu promotions %llu "
	       "spec %llu\n", pot_modes[_i], (unsigned long long)s.commits,
	       (unsigned long long)s.aborts, (unsigned long long)s.fast_commits,
	       (unsigned long long)s.promotions, (unsigned long long)s.spec_commits);
}
END_TEST

/* A thread alone writes in place without marking stripes (P5 in
 * stm/pot.c); readers that register while it runs must still never see
 * its half-written rows. */
static long writer_txs, stop_writer;

/* A long transaction, so that readers registering meanwhile are likely to
 * run into it half-written. */
static __attribute__((noinline)) void opacity_write_slowly(void)
{
	TM_BEGIN();
		long v = TM_LOAD(ROWW(0)) + 1;
		for (int i = 0; i < ROW; i++) {
			TM_STORE(ROWW(i), v);
			for (volatile int j = 0; j < 300; j++)
				;
		}
	TM_END();
}

static void *late_writer(void *arg)
{
	(void)arg;
	ck_assert(tm_thread_enter(0) == 0);
	while (!__atomic_load_n(&stop_writer, __ATOMIC_ACQUIRE)) {
		opacity_write_slowly();
		__atomic_fetch_add(&writer_txs, 1, __ATOMIC_RELEASE);
	}
	tm_thread_exit();
	return NULL;
}

static void *late_reader(void *arg)
{
	ck_assert(tm_thread_enter((unsigned)(uintptr_t)arg) == 0);
	for (int k = 0; k < 200; k++)
		opacity_audit();
	tm_thread_exit();
	return NULL;
}

START_TEST(test_opacity_late_joiners)
{
	pot_use_mode(pot_modes[_i]);
	memset(row, 0, sizeof row);
	inconsistent = audits = writer_txs = stop_writer = 0;
	pot_init_or_fail();
	pthread_t w, r[3];
	ck_assert(pthread_create(&w, NULL, late_writer, NULL) == 0);
	while (__atomic_load_n(&writer_txs, __ATOMIC_ACQUIRE) < 200)
		sched_yield();
	for (uintptr_t i = 0; i < 3; i++)
		ck_assert(pthread_create(&r[i], NULL, late_reader, (void *)(i + 1)) == 0);
	for (int i = 0; i < 3; i++)
		pthread_join(r[i], NULL);
	__atomic_store_n(&stop_writer, 1, __ATOMIC_RELEASE);
	pthread_join(w, NULL);
	tm_shutdown();
	ck_assert_msg(inconsistent == 0, "%s: %ld reads saw a state that never "
	              "existed", pot_modes[_i], inconsistent);
	ck_assert_int_eq(audits, 600);
	for (int i = 0; i < ROW; i++)
		ck_assert_int_eq(*ROWW(i), writer_txs);
}
END_TEST

/* ---- explicit aborts ---------------------------------------------------------- */

static long flag, done_before_flag, log_pos, tx_log[64];

static __attribute__((noinline)) void restart_log_tx(int k)
{
	TM_BEGIN();
		long p = TM_LOAD(&log_pos);
		TM_STORE(&tx_log[p], k);
		TM_STORE(&log_pos, p + 1);
		if (k == 4)
			TM_STORE(&flag, 1);
		else
			TM_STORE(&done_before_flag, TM_LOAD(&done_before_flag) + 1);
	TM_END();
}

/* Thread 1 waits, with tm_restart, for a flag that thread 0 sets only
 * after a few transactions of its own.  If a restart in the turn kept the
 * turn, thread 0 could never commit: a livelock. */
static void restart_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 1) {
		TM_BEGIN();
			if (TM_LOAD(&flag) == 0)
				tm_restart();
			long p = TM_LOAD(&log_pos);
			TM_STORE(&tx_log[p], 100);
			TM_STORE(&log_pos, p + 1);
		TM_END();
		return;
	}
	for (int k = 0; k < 5; k++)
		restart_log_tx(k);
}

START_TEST(test_restart_gives_the_turn_up)
{
	pot_use_mode(pot_modes[_i]);
	uint64_t first_hash = 0;
	for (int run = 0; run < 5; run++) {
		flag = done_before_flag = log_pos = 0;
		memset(tx_log, 0, sizeof tx_log);
		pot_init_or_fail();
		pot_run_threads(2, restart_thread, NULL);
		tm_shutdown();
		ck_assert_int_eq(log_pos, 6);
		ck_assert_int_eq(tx_log[5], 100);   /* after the flag, whenever */
		uint64_t h = POT_HASH_INIT;
		for (int i = 0; i < 6; i++)
			h = pot_hash(h, (uint64_t)tx_log[i]);
		if (run == 0)
			first_hash = h;
		ck_assert_msg(h == first_hash, "%s: different outcomes", pot_modes[_i]);
	}
}
END_TEST

static long cancel_word, cancel_other;
static uint64_t cancel_slots[2][4];

/* Each thread writes, then cancels: the writes vanish, the transaction
 * takes its slot anyway (an ordered no-op), and the order goes on. */
static __attribute__((noinline)) void cancel_tx(int k)
{
	TM_BEGIN();
		TM_STORE(&cancel_word, TM_LOAD(&cancel_word) + 1000);
		if (k % 2 == 0)
			tm_cancel();
		TM_STORE(&cancel_other, TM_LOAD(&cancel_other) + 1);
	TM_END();
}

static void cancel_thread(unsigned id, void *arg)
{
	(void)arg;
	for (int k = 0; k < 4; k++) {
		cancel_tx(k);
		ck_assert_int_eq(tm_was_cancelled(), k % 2 == 0);
		cancel_slots[id][k] = tm_last_order();
	}
}

START_TEST(test_cancel_is_an_ordered_noop)
{
	pot_use_mode(pot_modes[_i]);
	setenv("POTM_TURN_BATCH", "0", 1);   /* one transaction per turn */
	cancel_word = cancel_other = 0;
	pot_init_or_fail();
	unsetenv("POTM_TURN_BATCH");
	pot_run_threads(2, cancel_thread, NULL);
	tm_stats_t s;
	tm_stats(&s);
	tm_shutdown();
	ck_assert_int_eq(cancel_word, 4 * 1000);
	ck_assert_int_eq(cancel_other, 4);
	ck_assert_int_eq(s.cancels, 4);
	/* Round-robin: thread 0 and 1 alternate, cancelled or not. */
	for (int k = 0; k < 4; k++) {
		ck_assert(cancel_slots[0][k] != TM_ORDER_NONE);
		ck_assert(cancel_slots[0][k] < cancel_slots[1][k]);
		if (k > 0)
			ck_assert(cancel_slots[1][k - 1] < cancel_slots[0][k]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-equivalence");
	TCase *tc = tcase_create("modes");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_replay_equivalence, 0, POT_NMODES);
	tcase_add_loop_test(tc, test_opacity_fast_vs_speculative, 0, POT_NMODES);
	tcase_add_loop_test(tc, test_opacity_late_joiners, 0, POT_NMODES);
	tcase_add_loop_test(tc, test_restart_gives_the_turn_up, 0, POT_NMODES);
	tcase_add_loop_test(tc, test_cancel_is_an_ordered_noop, 0, POT_NMODES);
	suite_add_tcase(s, tc);
	return pot_run_suite(s);
}
