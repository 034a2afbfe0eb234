/*
 * tests/regression/pot/test_pot_determinism.c — same program, same input,
 * same thread count: same commit order and same final state, run after
 * run.
 *
 * Built twice (this directory's CMakeLists.txt): against pot, where every
 * deterministic mode must give one commit-order hash and one final-state
 * hash over RUNS runs (20; fewer under ASan or an emulator) of each
 * program at 2, 4 and 8 threads; and against tl2, where the same runs must
 * differ at least once — evidence that the test can see a difference at
 * all.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under ASan every run is several times slower, and under an emulator
 * (POTM_TEST_EMULATED, tests/CMakeLists.txt) tens of times: 6 runs per
 * configuration still compare five runs with the first in every mode,
 * program and thread count (the native Release build keeps 20). */
#if defined(__SANITIZE_ADDRESS__) || defined(POTM_TEST_EMULATED)
#define RUNS 6
#else
#define RUNS 20
#endif
#define PER_THREAD 40

static const pot_prog_t *const progs[] = {
	&pot_prog_intset, &pot_prog_bank, &pot_prog_counter,
};
static const unsigned thread_counts[] = { 2, 4, 8 };

#define NPROGS (sizeof progs / sizeof *progs)
#define NCOUNTS (sizeof thread_counts / sizeof *thread_counts)

/* Runs of one (program, thread count): how many distinct outcomes. */
static unsigned distinct_outcomes(const pot_prog_t *prog, unsigned n, bool require_order)
{
	pot_run_t first, run;
	unsigned distinct = 1;
	pot_run_prog(prog, n, PER_THREAD, &first);
	prog->teardown();
	if (require_order)
		ck_assert_msg(first.order_hash != 0, "no commit order recorded");
	for (int r = 1; r < RUNS; r++) {
		pot_run_prog(prog, n, PER_THREAD, &run);
		prog->teardown();
		if (run.order_hash != first.order_hash || run.state_hash != first.state_hash)
			distinct++;
		free(run.recs);
	}
	free(first.recs);
	return distinct;
}

/* One loop iteration per deterministic mode. */
START_TEST(test_same_order_every_run)
{
	const char *mode = pot_modes[_i];
	pot_use_mode(mode);
	for (size_t p = 0; p < NPROGS; p++)
		for (size_t c = 0; c < NCOUNTS; c++) {
			unsigned d = distinct_outcomes(progs[p], thread_counts[c], true);
			ck_assert_msg(d == 1, "mode %s, %s with %u threads: %u different "
			              "outcomes in %d runs", mode, progs[p]->name,
			              thread_counts[c], d, RUNS);
		}
}
END_TEST

/* Runs of turns (the default for pot and pot-fast) are part of what the
 * test above holds: with them the order differs from one transaction per
 * turn, and a budget under which the runs are short and uneven (each ends
 * within a few of the programs' transactions) is as deterministic. */
START_TEST(test_runs_of_turns)
{
	pot_use_mode("pot");
	pot_run_t runs, single;
	pot_run_prog(&pot_prog_bank, 4, PER_THREAD, &runs);
	pot_prog_bank.teardown();
	setenv("POTM_TURN_BATCH", "0", 1);
	pot_run_prog(&pot_prog_bank, 4, PER_THREAD, &single);
	pot_prog_bank.teardown();
	ck_assert_msg(runs.order_hash != single.order_hash, "runs of turns changed "
	              "nothing: the determinism test does not exercise them");
	free(runs.recs);
	free(single.recs);
	setenv("POTM_TURN_BATCH", "160", 1);
	for (size_t p = 0; p < NPROGS; p++)
		for (size_t c = 0; c < NCOUNTS; c++) {
			unsigned d = distinct_outcomes(progs[p], thread_counts[c], true);
			ck_assert_msg(d == 1, "POTM_TURN_BATCH=160, %s with %u threads: %u "
			              "different outcomes in %d runs", progs[p]->name,
			              thread_counts[c], d, RUNS);
		}
	unsetenv("POTM_TURN_BATCH");
}
END_TEST

/* tl2: the same runs, and at least one configuration must vary. */
START_TEST(test_tl2_varies)
{
	unsigned varying = 0;
	for (size_t p = 0; p < NPROGS; p++)
		for (size_t c = 0; c < NCOUNTS; c++) {
			unsigned d = distinct_outcomes(progs[p], thread_counts[c], false);
			if (d > 1)
				varying++;
			printf("tl2 %s %u threads: %u distinct outcome(s) in %d runs\n",
			       progs[p]->name, thread_counts[c], d, RUNS);
		}
	ck_assert_msg(varying > 0, "tl2 gave one outcome in every configuration: "
	              "the determinism test could not tell Pot from TL2");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-determinism");
	TCase *tc = tcase_create("runs");
	tcase_set_timeout(tc, 120);
	if (strcmp(tm_backend_name(), "tl2") == 0)
		tcase_add_test(tc, test_tl2_varies);
	else
		tcase_add_loop_test(tc, test_same_order_every_run, 0, POT_NMODES);
	if (strcmp(tm_backend_name(), "pot") == 0)   /* runs need counted accesses */
		tcase_add_test(tc, test_runs_of_turns);
	suite_add_tcase(s, tc);
	return pot_run_suite(s);
}
