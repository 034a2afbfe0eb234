/*
 * tests/regression/pot/test_pot_weighted.c — the weighted order
 * (POTM_SEQUENCER=weighted, tm_set_weight): round-robin generalized by
 * virtual finish time.
 *
 *  - the commit order is exactly the model's: thread i's k-th transaction
 *    ends at virtual time w(i,0) + ... + w(i,k) after the start barrier,
 *    slots go by (that time, id); a tm barrier in the middle levels every
 *    clock again; at 3 and 8 threads (oversubscribed), in every mode that
 *    takes the weighted order, with a cancelled transaction (an ordered
 *    no-op: it takes its slot) in the mix;
 *  - a transaction hinted serial (tm_hint_serial, POTM_SERIAL=1) runs
 *    alone, so on the pot backend in the modes with serial mode (pot,
 *    pot-fast) it declares the least weight (1) whatever tm_set_weight
 *    said; elsewhere the hint leaves its weight alone;
 *  - equal weights give the round-robin order;
 *  - the programs of the determinism test give one order and one final
 *    state over repeated runs, and replay sequentially to the same results;
 *  - misuse is an error: weight 0 or above TM_WEIGHT_MAX, an unregistered
 *    thread, inside a transaction, destm with the weighted sequencer;
 *    elsewhere (round-robin, tl2) a weight is accepted and has no effect.
 * Built for every Pot backend (pot-rtm on its software path unless the
 * CPU has RTM, pot-rot under qemu) and for tl2.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void use_weighted(const char *mode)
{
	pot_use_sequencer(mode, "weighted");
}

/* Weights with long transactions among short ones, different per thread. */
static unsigned weight_of(unsigned id, unsigned k)
{
	if ((id * 7 + k) % 11 == 5)
		return 40;
	return 1 + (id * 5 + k * 3) % 7;
}

/* ---- the exact order ---------------------------------------------------------- */

#define PHASE 30                 /* transactions per thread per phase */
#define MAXT 8
static long log_pos;
static long order_log[2 * PHASE * MAXT];
static tm_barrier_t mid;
#define CANCELLED 4

/* Hint the long transactions (weight 40) serial (test_serial_hint_weight). */
static bool hint_long;

static __attribute__((noinline)) void logged_tx(unsigned id, unsigned k)
{
	if (hint_long && weight_of(id, k) == 40)
		ck_assert_int_eq(tm_hint_serial(), 0);
	TM_BEGIN();
		long p = TM_LOAD(&log_pos);
		TM_STORE(&order_log[p], (long)(id << 16 | k));
		TM_STORE(&log_pos, p + 1);
		/* Transaction 4 of each thread cancels: an ordered no-op
		 * that takes its slot (and weight) and logs nothing. */
		if (k == CANCELLED)
			tm_cancel();
	TM_END();
}

static void two_phases(unsigned id, void *arg)
{
	(void)arg;
	for (unsigned k = 0; k < 2 * PHASE; k++) {
		if (k == PHASE)
			tm_barrier_wait(&mid);
		ck_assert_int_eq(tm_set_weight(weight_of(id, k)), 0);
		logged_tx(id, k);
	}
}

/* The model: within each phase, by (virtual finish time, id). */
struct model_tx { uint64_t finish; unsigned id, k; };

static int by_finish(const void *x, const void *y)
{
	const struct model_tx *a = x, *b = y;
	if (a->finish != b->finish)
		return a->finish < b->finish ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The weight the model counts: hinted serial transactions weigh 1 where
 * serial mode runs them alone. */
static bool hint_counts;

static unsigned model_weight(unsigned id, unsigned k)
{
	unsigned w = weight_of(id, k);
	return hint_counts && w == 40 ? 1 : w;
}

static void check_model(unsigned n)
{
	struct model_tx m[PHASE * MAXT];
	for (unsigned phase = 0; phase < 2; phase++) {
		unsigned c = 0;
		for (unsigned id = 0; id < n; id++) {
			uint64_t clock = 0;
			for (unsigned k = phase * PHASE; k < (phase + 1) * PHASE; k++) {
				clock += model_weight(id, k);
				if (k != CANCELLED)
					m[c++] = (struct model_tx){ clock, id, k };
			}
		}
		qsort(m, c, sizeof *m, by_finish);
		for (unsigned i = 0; i < c; i++) {
			long got = order_log[phase * (PHASE - 1) * n + i];
			ck_assert_msg(got == (long)(m[i].id << 16 | m[i].k),
			              "%u threads, phase %u, position %u: thread %ld's "
			              "transaction %ld committed, the model says thread "
			              "%u's %u", n, phase, i, got >> 16, got & 0xffff,
			              m[i].id, m[i].k);
		}
	}
}

static void run_model(const char *mode)
{
	static const unsigned counts[] = { 3, 8 };
	for (unsigned c = 0; c < 2; c++) {
		unsigned n = counts[c];
		use_weighted(mode);
		pot_init_or_fail();
		log_pos = 0;
		memset(order_log, 0, sizeof order_log);
		ck_assert(tm_barrier_init(&mid, n) == 0);
		pot_run_threads(n, two_phases, NULL);
		ck_assert(tm_barrier_destroy(&mid) == 0);
		tm_shutdown();
		ck_assert_int_eq(log_pos, (long)((2 * PHASE - 1) * n));
		check_model(n);
	}
}

START_TEST(test_order_is_the_model)
{
	run_model(pot_sequenced_modes[_i]);
}
END_TEST

/* A weight buys a slot that finishes later so that the others commit that
 * much meanwhile; nothing runs beside a serial transaction, whose thread
 * would only wait idle for its turn. */
START_TEST(test_serial_hint_weight)
{
	const char *mode = pot_sequenced_modes[_i];
	setenv("POTM_SERIAL", "1", 1);
	hint_long = true;
	hint_counts = strcmp(tm_backend_name(), "pot") == 0 &&
	              (strcmp(mode, "pot") == 0 || strcmp(mode, "pot-fast") == 0);
	run_model(mode);
	hint_long = hint_counts = false;
	unsetenv("POTM_SERIAL");
}
END_TEST

/* ---- equal weights are round-robin ------------------------------------------------- */

static unsigned weight_five(unsigned id, unsigned k)
{
	(void)id;
	(void)k;
	return 5;
}

START_TEST(test_equal_weights_round_robin)
{
	pot_run_t rr, w1, w5;
	pot_use_mode("pot");
	setenv("POTM_TURN_BATCH", "0", 1);   /* round-robin as the thesis has it */
	pot_run_prog(&pot_prog_bank, 4, 40, &rr);
	unsetenv("POTM_TURN_BATCH");
	pot_prog_bank.teardown();
	use_weighted("pot");
	pot_run_prog(&pot_prog_bank, 4, 40, &w1);
	pot_prog_bank.teardown();
	pot_weight_of = weight_five;
	pot_run_prog(&pot_prog_bank, 4, 40, &w5);
	pot_weight_of = NULL;
	pot_prog_bank.teardown();
	ck_assert_msg(rr.order_hash != 0 && rr.order_hash == w1.order_hash &&
	              rr.order_hash == w5.order_hash,
	              "round-robin %llx, weighted with weights 1 %llx, 5 %llx",
	              (unsigned long long)rr.order_hash, (unsigned long long)w1.order_hash,
	              (unsigned long long)w5.order_hash);
	free(rr.recs);
	free(w1.recs);
	free(w5.recs);
}
END_TEST

/* ---- determinism and sequential equivalence ----------------------------------------- */

#define RUNS 8

START_TEST(test_same_outcome_every_run)
{
	static const pot_prog_t *const progs[] = { &pot_prog_intset, &pot_prog_bank };
	static const unsigned counts[] = { 2, 8 };
	const char *mode = pot_sequenced_modes[_i];
	use_weighted(mode);
	pot_weight_of = weight_of;
	for (unsigned p = 0; p < 2; p++)
		for (unsigned c = 0; c < 2; c++) {
			pot_run_t first, run;
			pot_run_prog(progs[p], counts[c], 40, &first);
			pot_replay_check(progs[p], &first);
			progs[p]->teardown();
			for (int r = 1; r < RUNS; r++) {
				pot_run_prog(progs[p], counts[c], 40, &run);
				progs[p]->teardown();
				ck_assert_msg(run.order_hash == first.order_hash &&
				              run.state_hash == first.state_hash,
				              "mode %s, %s, %u threads: run %d differs from "
				              "run 0", mode, progs[p]->name, counts[c], r);
				free(run.recs);
			}
			free(first.recs);
		}
	pot_weight_of = NULL;
}
END_TEST

/* ---- misuse --------------------------------------------------------------------------- */

START_TEST(test_misuse)
{
	use_weighted("pot");
	pot_init_or_fail();
	ck_assert_int_eq(tm_set_weight(3), -1);   /* not registered */
	ck_assert_msg(strstr(tm_last_error(), "not registered") != NULL, "%s",
	              tm_last_error());
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_weight(0), -1);
	ck_assert_msg(strstr(tm_last_error(), "1..") != NULL, "%s", tm_last_error());
	ck_assert_int_eq(tm_set_weight(TM_WEIGHT_MAX + 1), -1);
	ck_assert_int_eq(tm_set_weight(TM_WEIGHT_MAX), 0);
	volatile int inside = 0;
	TM_BEGIN();
		inside = tm_set_weight(2);
	TM_END();
	ck_assert_int_eq(inside, -1);
	ck_assert_msg(strstr(tm_last_error(), "inside a transaction") != NULL, "%s",
	              tm_last_error());
	tm_thread_exit();
	tm_shutdown();

	/* destm orders rounds, not weights. */
	pot_use_mode("destm");
	setenv("POTM_SEQUENCER", "weighted", 1);
	ck_assert_int_ne(tm_init(NULL), 0);
	ck_assert_msg(strstr(tm_last_error(), "round-robin") != NULL, "%s", tm_last_error());

	/* Round-robin keeps the weight and ignores it. */
	pot_use_mode("pot");
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_weight(7), 0);
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

/* tl2 (no order): a weight is a hint without effect, bad values still fail. */
START_TEST(test_tl2_accepts_weights)
{
	unsetenv("POTM_SEQUENCER");
	ck_assert_int_eq(tm_init(NULL), 0);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_weight(12), 0);
	ck_assert_int_eq(tm_set_weight(0), -1);
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-weighted");
	TCase *tc = tcase_create("weighted");
	tcase_set_timeout(tc, 120);
	if (strcmp(tm_backend_name(), "tl2") == 0) {
		tcase_add_test(tc, test_tl2_accepts_weights);
	} else {
		tcase_add_loop_test(tc, test_order_is_the_model, 0, POT_NSEQUENCED);
		tcase_add_loop_test(tc, test_serial_hint_weight, 0, POT_NSEQUENCED);
		tcase_add_test(tc, test_equal_weights_round_robin);
		tcase_add_loop_test(tc, test_same_outcome_every_run, 0, POT_NSEQUENCED);
		tcase_add_test(tc, test_misuse);
	}
	suite_add_tcase(s, tc);
	return pot_run_suite(s);
}
