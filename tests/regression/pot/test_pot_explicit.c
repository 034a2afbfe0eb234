/*
 * tests/regression/pot/test_pot_explicit.c — the explicit-order sequencer
 * (POTM_SEQUENCER=explicit, tm_set_next_order) and the Pot settings.
 *
 *  - slots handed to threads in an order unrelated to their ids commit in
 *    slot order, in every mode that supports it;
 *  - a restarted transaction keeps its slot, a cancelled one consumes it;
 *  - misuse is an error: a slot already consumed, a slot supplied twice,
 *    the call with another sequencer or inside a transaction, destm with
 *    the explicit sequencer, bad POTM_MODE / POTM_SEQUENCER values;
 *  - a gap in the supplied order is reported (SIGABRT), not waited on
 *    forever; so is a transaction begun without a supplied slot;
 *  - tm_order_reached: 0 before the slot's turn, 1 after, -1 outside.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void use_explicit(const char *mode)
{
	pot_use_sequencer(mode, "explicit");
}

/* ---- out of thread order ------------------------------------------------------ */

#define SLOTS 90
#define NTHREADS 3
static long log_pos, slot_log[SLOTS];
static unsigned long shared_sum;   /* order-sensitive: x * 3 + s, wrapping */
static volatile int restarts_left[SLOTS];

/* Which thread runs slot s: a scramble of s, unrelated to round-robin. */
static unsigned owner(unsigned s)
{
	return (s * 2654435761u >> 7) % NTHREADS;
}

static __attribute__((noinline)) void slot_tx(unsigned s)
{
	TM_BEGIN();
		long p = TM_LOAD(&log_pos);
		TM_STORE(&slot_log[p], (long)s);
		TM_STORE(&log_pos, p + 1);
		TM_STORE(&shared_sum, TM_LOAD(&shared_sum) * 3 + s);
		if (s % 10 == 3 && restarts_left[s] > 0) {
			restarts_left[s]--;
			tm_restart();   /* keeps slot s */
		}
		if (s % 10 == 7)
			tm_cancel();    /* consumes slot s as a no-op */
	TM_END();
}

static void slots_thread(unsigned id, void *arg)
{
	(void)arg;
	for (unsigned s = 0; s < SLOTS; s++) {
		if (owner(s) != id)
			continue;
		ck_assert_msg(tm_set_next_order(s) == 0, "tm_set_next_order(%u): %s", s,
		              tm_last_error());
		slot_tx(s);
		ck_assert_int_eq(tm_last_order(), s);
		ck_assert_int_eq(tm_was_cancelled(), s % 10 == 7);
	}
}

START_TEST(test_supplied_order_is_commit_order)
{
	use_explicit(pot_sequenced_modes[_i]);
	log_pos = shared_sum = 0;
	for (unsigned s = 0; s < SLOTS; s++)
		restarts_left[s] = 2;
	pot_init_or_fail();
	pot_run_threads(NTHREADS, slots_thread, NULL);
	tm_shutdown();
	unsigned long expect_sum = 0;
	long n = 0;
	for (unsigned s = 0; s < SLOTS; s++) {
		if (s % 10 == 7)
			continue;
		ck_assert_msg(slot_log[n] == (long)s, "%s: position %ld holds slot %ld, "
		              "expected %u", pot_sequenced_modes[_i], n, slot_log[n], s);
		n++;
		expect_sum = expect_sum * 3 + s;
	}
	ck_assert_int_eq(log_pos, n);
	ck_assert_uint_eq(shared_sum, expect_sum);
}
END_TEST

/* ---- errors ---------------------------------------------------------------------- */

static long scratch;

static __attribute__((noinline)) void plain_tx(void)
{
	TM_BEGIN();
		TM_STORE(&scratch, TM_LOAD(&scratch) + 1);
	TM_END();
}

static volatile int inner_rc;

static __attribute__((noinline)) void inner_supply_tx(void)
{
	TM_BEGIN();
		inner_rc = tm_set_next_order(2);
		TM_STORE(&scratch, TM_LOAD(&scratch) + 1);
	TM_END();
}

START_TEST(test_supply_errors)
{
	use_explicit("pot");
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_next_order(0), 0);
	plain_tx();
	ck_assert_int_eq(tm_last_order(), 0);
	/* Slot 0 is consumed. */
	ck_assert_int_eq(tm_set_next_order(0), -1);
	ck_assert_msg(strstr(tm_last_error(), "already consumed") != NULL, "%s",
	              tm_last_error());
	/* Not inside a transaction. */
	ck_assert_int_eq(tm_set_next_order(1), 0);
	inner_supply_tx();
	ck_assert_int_eq(inner_rc, -1);
	ck_assert_int_eq(tm_last_order(), 1);
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

struct dup_arg {
	tm_barrier_t *b;
	int rc[2];
};

static void dup_thread(unsigned id, void *p)
{
	struct dup_arg *a = p;
	/* Both ask for slot 1 (slot 0 goes to thread 0 first). */
	if (id == 0) {
		ck_assert_int_eq(tm_set_next_order(1), 0);
	}
	tm_barrier_wait(a->b);
	if (id == 1) {
		a->rc[1] = tm_set_next_order(1);
		ck_assert_msg(strstr(tm_last_error(), "already supplied") != NULL, "%s",
		              tm_last_error());
		ck_assert_int_eq(tm_set_next_order(0), 0);
		plain_tx();
	}
	tm_barrier_wait(a->b);
	if (id == 0)
		plain_tx();
}

START_TEST(test_supply_duplicate)
{
	use_explicit("pot");
	tm_barrier_t b;
	struct dup_arg a = { &b, { 0, 0 } };
	scratch = 0;
	pot_init_or_fail();
	ck_assert(tm_barrier_init(&b, 2) == 0);
	pot_run_threads(2, dup_thread, &a);
	tm_barrier_destroy(&b);
	tm_shutdown();
	ck_assert_int_eq(a.rc[1], -1);
	ck_assert_int_eq(scratch, 2);
}
END_TEST

/* tm_order_reached: 0 in a transaction whose slot's turn has not come,
 * 1 once the slot before it committed; -1 outside a transaction.  Thread
 * 1 runs slot 1 speculatively (pot; pot-rtm without hardware begins it in
 * its turn instead) while thread 0 holds slot 0 back until it has looked
 * (bounded: a backend that waits at the begin never looks first). */
static volatile int reached_first, reached_after, looked;

static void reached_thread(unsigned id, void *p)
{
	(void)p;
	if (id == 1) {
		ck_assert_int_eq(tm_set_next_order(1), 0);
		TM_BEGIN();
			TM_STORE(&scratch, TM_LOAD(&scratch) + 1);
			if (!looked) {   /* the first attempt's view */
				reached_first = tm_order_reached();
				looked = 1;
			}
			for (long i = 0; i < 2000000000L && tm_order_reached() == 0; i++)
				;
			reached_after = tm_order_reached();
		TM_END();
	} else {
		for (long i = 0; i < 20000 && !looked; i++)
			usleep(100);
		ck_assert_int_eq(tm_set_next_order(0), 0);
		plain_tx();
	}
}

START_TEST(test_order_reached)
{
	use_explicit("pot");
	scratch = 0;
	looked = 0;
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_order_reached(), -1);
	ck_assert_msg(strstr(tm_last_error(), "outside a transaction") != NULL, "%s",
	              tm_last_error());
	tm_thread_exit();
	pot_run_threads(2, reached_thread, NULL);
	bool speculates = strcmp(tm_backend_name(), "pot") == 0;
	tm_shutdown();
	if (speculates)
		ck_assert_int_eq(reached_first, 0);
	ck_assert_int_eq(reached_after, 1);
	ck_assert_int_eq(scratch, 2);
}
END_TEST

START_TEST(test_round_robin_refuses_supply)
{
	pot_use_mode("pot");
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_next_order(0), -1);
	ck_assert_msg(strstr(tm_last_error(), "POTM_SEQUENCER=explicit") != NULL, "%s",
	              tm_last_error());
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

START_TEST(test_settings_are_checked)
{
	setenv("POTM_MODE", "pot-turbo", 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_msg(strstr(tm_last_error(), "POTM_MODE") != NULL &&
	              strstr(tm_last_error(), "pot, pot-fast, pot-ordered, pogl, destm") != NULL,
	              "%s", tm_last_error());
	setenv("POTM_MODE", "pot", 1);
	setenv("POTM_SEQUENCER", "random", 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_msg(strstr(tm_last_error(), "round-robin, weighted, explicit") != NULL, "%s",
	              tm_last_error());
	setenv("POTM_SEQUENCER", "explicit", 1);
	setenv("POTM_MODE", "destm", 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_msg(strstr(tm_last_error(), "destm") != NULL, "%s", tm_last_error());
	unsetenv("POTM_SEQUENCER");
	setenv("POTM_TURN_TIMEOUT_MS", "-5", 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_msg(strstr(tm_last_error(), "POTM_TURN_TIMEOUT_MS") != NULL, "%s",
	              tm_last_error());
	unsetenv("POTM_TURN_TIMEOUT_MS");
	/* A programmatic configuration is validated by the same table. */
	tm_config_t cfg;
	tm_config_default(&cfg);
	ck_assert_str_eq(cfg.mode, "pot");
	ck_assert_str_eq(cfg.sequencer, "round-robin");
	strcpy(cfg.mode, "fast");
	unsetenv("POTM_MODE");
	ck_assert_int_eq(tm_init(&cfg), -1);
	ck_assert_msg(strstr(tm_last_error(), "tm_config_t.mode") != NULL, "%s",
	              tm_last_error());
	strcpy(cfg.mode, "pogl");
	ck_assert_int_eq(tm_init(&cfg), 0);
	ck_assert_str_eq(tm_current_config()->mode, "pogl");
	tm_shutdown();
}
END_TEST

/* ---- reported, not hung on --------------------------------------------------------- */

/* Thread 0 supplies slots 0 and 2; nobody supplies 1. */
START_TEST(test_gap_is_reported)
{
	use_explicit(pot_sequenced_modes[_i]);
	setenv("POTM_TURN_TIMEOUT_MS", "200", 1);
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_next_order(0), 0);
	plain_tx();
	ck_assert_int_eq(tm_set_next_order(2), 0);
	plain_tx();   /* aborts the process after POTM_TURN_TIMEOUT_MS */
}
END_TEST

START_TEST(test_unsupplied_transaction_is_misuse)
{
	use_explicit("pot");
	pot_init_or_fail();
	ck_assert_int_eq(tm_thread_enter(0), 0);
	plain_tx();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-explicit");
	TCase *tc = tcase_create("explicit");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_supplied_order_is_commit_order, 0, POT_NSEQUENCED);
	tcase_add_test(tc, test_supply_errors);
	tcase_add_test(tc, test_supply_duplicate);
	tcase_add_test(tc, test_order_reached);
	tcase_add_test(tc, test_round_robin_refuses_supply);
	tcase_add_test(tc, test_settings_are_checked);
	tcase_add_loop_test_raise_signal(tc, test_gap_is_reported, SIGABRT, 0, POT_NSEQUENCED);
	tcase_add_test_raise_signal(tc, test_unsupplied_transaction_is_misuse, SIGABRT);
	suite_add_tcase(s, tc);
	return pot_run_suite(s);
}
