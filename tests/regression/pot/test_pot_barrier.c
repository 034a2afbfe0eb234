/*
 * tests/regression/pot/test_pot_barrier.c — tm barriers and membership
 * events in the deterministic order, and the report of a thread that
 * stalls the order.
 *
 *  - uneven work, non-transactional work between transactions, threads
 *    exiting early, barriers whose count shrinks as threads leave: no
 *    deadlock, and (pot) the same transaction log on every run;
 *  - a thread that holds the turn while blocked outside the API: after
 *    POTM_TURN_TIMEOUT_MS the waiting thread reports it and the process
 *    aborts (SIGABRT), with a message that names the culprit.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A deterministic backend: pot, pot-rtm, pot-rot. */
static bool is_pot(void)
{
	return strncmp(tm_backend_name(), "pot", 3) == 0;
}

/* ---- uneven phases --------------------------------------------------------- */

#define NTHREADS 6
#define PHASES 4
static tm_barrier_t phase_end[PHASES];
static long log_pos, tx_log[1024];

/* Thread 0 leaves after phase 0, thread 1 after phase 1, the others run
 * all phases. */
static int last_phase(unsigned id)
{
	return id == 0 ? 0 : id == 1 ? 1 : PHASES - 1;
}

static __attribute__((noinline)) void log_tx(long entry)
{
	TM_BEGIN();
		long p = TM_LOAD(&log_pos);
		TM_STORE(&tx_log[p], entry);
		TM_STORE(&log_pos, p + 1);
	TM_END();
}

static void short_pause(unsigned id, unsigned k)
{
	/* Non-transactional work of uneven length; a sleep sometimes, so
	 * that the holder of the turn is really off the CPU. */
	if ((id + k) % 4 == 0) {
		struct timespec ts = { 0, 20000L * (id + 1) };
		nanosleep(&ts, NULL);
	} else {
		for (volatile unsigned i = 0; i < 2000u * id; i++)
			;
	}
}

static void phases_thread(unsigned id, void *arg)
{
	(void)arg;
	for (int p = 0; p <= last_phase(id); p++) {
		unsigned n = (id + 1) * (unsigned)(p + 1);
		for (unsigned k = 0; k < n; k++) {
			log_tx((long)id << 16 | p << 8 | k);
			short_pause(id, k);
		}
		if (p < last_phase(id))
			tm_barrier_wait(&phase_end[p]);
	}
}

static uint64_t run_phases(void)
{
	log_pos = 0;
	memset(tx_log, 0, sizeof tx_log);
	pot_init_or_fail();
	for (int p = 0; p < PHASES; p++) {
		unsigned count = 0;
		for (unsigned i = 0; i < NTHREADS; i++)
			count += last_phase(i) > p;
		if (count)
			ck_assert(tm_barrier_init(&phase_end[p], count) == 0);
	}
	pot_run_threads(NTHREADS, phases_thread, NULL);
	for (int p = 0; p < PHASES - 1; p++)
		ck_assert(tm_barrier_destroy(&phase_end[p]) == 0);
	tm_shutdown();
	long expect = 0;
	for (unsigned i = 0; i < NTHREADS; i++)
		for (int p = 0; p <= last_phase(i); p++)
			expect += (i + 1) * (p + 1);
	ck_assert_int_eq(log_pos, expect);
	/* Each phase's transactions of a thread come after its previous
	 * phase's: barriers order them whatever the backend. */
	uint64_t h = POT_HASH_INIT;
	for (long i = 0; i < log_pos; i++)
		h = pot_hash(h, (uint64_t)tx_log[i]);
	return h;
}

START_TEST(test_uneven_phases_early_exit)
{
	pot_use_mode(pot_modes[_i]);
	uint64_t first = run_phases();
	if (!is_pot())
		return;   /* a normal barrier: no deadlock is all we ask */
	for (int r = 0; r < 3; r++)
		ck_assert_msg(run_phases() == first, "mode %s: the log differs between "
		              "runs", pot_modes[_i]);
}
END_TEST

/* Barrier arrival in the order: a barrier whose count is 1 completes at
 * each arrival, and a new round begins after it. */
static long single_counter;
static tm_barrier_t single;

static __attribute__((noinline)) void bump(void)
{
	TM_BEGIN();
		TM_STORE(&single_counter, TM_LOAD(&single_counter) + 1);
	TM_END();
}

static void single_thread(unsigned id, void *arg)
{
	(void)arg;
	for (int k = 0; k < 20; k++) {
		bump();
		if (id == 0)
			ck_assert_int_eq(tm_barrier_wait(&single), TM_BARRIER_SERIAL);
	}
}

START_TEST(test_barrier_of_one)
{
	pot_use_mode(pot_modes[_i]);
	single_counter = 0;
	pot_init_or_fail();
	ck_assert(tm_barrier_init(&single, 1) == 0);
	pot_run_threads(3, single_thread, NULL);
	ck_assert(tm_barrier_destroy(&single) == 0);
	tm_shutdown();
	ck_assert_int_eq(single_counter, 60);
}
END_TEST

START_TEST(test_barrier_errors)
{
	tm_barrier_t b;
	ck_assert_int_eq(tm_barrier_init(&b, 0), -1);
	ck_assert_msg(strstr(tm_last_error(), "count") != NULL, "%s", tm_last_error());
	ck_assert_int_eq(tm_barrier_init(&b, 2), 0);
	ck_assert_int_eq(tm_barrier_destroy(&b), 0);
}
END_TEST

/* ---- stall report ------------------------------------------------------------ */

static sem_t never;

static __attribute__((noinline)) void stall_tx(void)
{
	TM_BEGIN();
		TM_STORE(&single_counter, TM_LOAD(&single_counter) + 1);
	TM_END();
}

/* After the start barrier thread 0 has the first turn, then thread 1,
 * which blocks forever outside the API instead of taking it.  Thread 0
 * runs more transactions than one run of turns holds, so that it waits
 * for thread 1's turn whatever POTM_TURN_BATCH is. */
#define STALL_TXS 100000   /* more than the default run (65,536 accesses) holds */
static void stall_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 1) {
		sem_wait(&never);
		return;
	}
	for (int k = 0; k < STALL_TXS; k++)
		stall_tx();
}

static void run_stall(const char *mode)
{
	pot_use_mode(mode);
	setenv("POTM_TURN_TIMEOUT_MS", "200", 1);
	sem_init(&never, 0, 0);
	pot_init_or_fail();
	pot_run_threads(2, stall_thread, NULL);
}

/* Check's raise-signal test: the process must die of SIGABRT. */
START_TEST(test_stall_aborts)
{
	run_stall(pot_modes[_i]);
}
END_TEST

/* And the message must say who stalls the order and why. */
START_TEST(test_stall_message)
{
	int fds[2];
	ck_assert(pipe(fds) == 0);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		run_stall("pot");
		_exit(0);
	}
	close(fds[1]);
	char msg[4096] = "";
	size_t len = 0;
	ssize_t r;
	while (len < sizeof msg - 1 && (r = read(fds[0], msg + len, sizeof msg - 1 - len)) > 0)
		len += (size_t)r;
	msg[len] = '\0';
	close(fds[0]);
	int status;
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	              "child did not abort (status %d); stderr: %s", status, msg);
	ck_assert_msg(strstr(msg, "deterministic order stalled") != NULL &&
	              strstr(msg, "thread 1 has held the turn") != NULL &&
	              strstr(msg, "POTM_TURN_TIMEOUT_MS") != NULL,
	              "unexpected report: %s", msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-barrier");
	TCase *tc = tcase_create("barriers");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_uneven_phases_early_exit, 0, POT_NMODES);
	tcase_add_loop_test(tc, test_barrier_of_one, 0, POT_NMODES);
	tcase_add_test(tc, test_barrier_errors);
	suite_add_tcase(s, tc);
	if (is_pot()) {
		TCase *st = tcase_create("stall");
		tcase_set_timeout(st, 30);
		tcase_add_loop_test_raise_signal(st, test_stall_aborts, SIGABRT, 0, POT_NMODES);
		tcase_add_test(st, test_stall_message);
		suite_add_tcase(s, st);
	}
	return pot_run_suite(s);
}
