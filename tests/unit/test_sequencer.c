/*
 * tests/unit/test_sequencer.c — the sequencer's three orders, slot by slot,
 * through the public API (tm_config_t.sequencer, tm_last_order,
 * tm_set_weight, tm_set_next_order).
 *
 * A schedule gives each thread a script: transactions with a weight, tm
 * barrier arrivals, and the exit at its end.  A small model of each order
 * computes the slot every step takes; the run must match it exactly, and
 * the transactions' own log (appended in commit order) must list them by
 * slot.
 *  - round-robin: slots by logical id, round after round; a barrier
 *    arrival and an exit each take the thread's slot and leave the
 *    membership; the arrival that releases a barrier starts a new round
 *    from the lowest id; weights are kept and ignored.  With runs of
 *    turns (tm_config_t.turn_batch; pot and pot-fast on the pot backend)
 *    a thread keeps the turn after a transaction while its run's
 *    accesses (+1 each) stay under the budget, whatever its next step.
 *    The model itself is checked against slots worked out by hand.
 *  - weighted: the next slot goes to the member whose next step ends
 *    first in virtual time (its clock + the step's weight; a barrier
 *    arrival or an exit weighs 1), ties to the lowest id; a barrier
 *    release levels the clocks.  All weights 1 give the round-robin slots,
 *    and so do equal weights while no barrier or exit interleaves.
 *  - explicit: each transaction commits in the slot its thread supplied,
 *    whichever thread that is; barriers and exits take no slot; a slot
 *    already supplied by another thread, or already consumed, is refused.
 *  - a backend without an order (tl2, ...) reports TM_ORDER_NONE and
 *    refuses tm_set_next_order, and accepts a weight as a hint.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tm_init with mode, sequencer and runs of turns set in the
 * configuration, the environment not overriding them. */
static void init_order_batch(const char *mode, const char *sequencer, unsigned batch)
{
	unsetenv("POTM_MODE");
	unsetenv("POTM_SEQUENCER");
	unsetenv("POTM_TURN_BATCH");
	tm_config_t cfg;
	tm_config_default(&cfg);
	snprintf(cfg.mode, sizeof cfg.mode, "%s", mode);
	snprintf(cfg.sequencer, sizeof cfg.sequencer, "%s", sequencer);
	cfg.turn_batch = batch;
	ck_assert_msg(tm_init(&cfg) == 0, "tm_init(mode %s, sequencer %s): %s", mode,
	              sequencer, tm_last_error());
	ck_assert_str_eq(tm_current_config()->sequencer, sequencer);
}

static void init_order(const char *mode, const char *sequencer)
{
	init_order_batch(mode, sequencer, 0);
}

/* Whether a mode keeps the turn in runs on this backend: the modes with
 * fast mode, on pot and on Pot over HTM (which counts a hardware
 * transaction's accesses as pot counts its own). */
static bool runs_apply(const char *mode)
{
	return (strcmp(tm_backend_name(), "pot") == 0 ||
	        strcmp(tm_backend_name(), "pot-rtm") == 0 ||
	        strcmp(tm_backend_name(), "pot-rot") == 0) &&
	       (strcmp(mode, "pot") == 0 || strcmp(mode, "pot-fast") == 0);
}

/* ---- schedules --------------------------------------------------------- */

#define MAXT 6
#define MAXOPS 16
#define MAXB 2
#define NO_SLOT UINT64_MAX

/* A step of a script: 'T' a transaction of weight w, 'B' the next tm
 * barrier, 'X' the exit (implicit, after the last step). */
typedef struct step { char kind; unsigned w; } step_t;

typedef struct sched {
	const char *name;
	unsigned n;
	const char *script[MAXT];   /* "T2 T B T", a bare T weighs 1 */
} sched_t;

typedef struct parsed {
	unsigned n, nsteps[MAXT], count[MAXB];
	step_t step[MAXT][MAXOPS + 1];
} parsed_t;

/* Parse s; every weight replaced by w_all if it is not 0. */
static void parse(const sched_t *s, unsigned w_all, parsed_t *p)
{
	memset(p, 0, sizeof *p);
	p->n = s->n;
	for (unsigned id = 0; id < s->n; id++) {
		unsigned k = 0, b = 0;
		for (const char *c = s->script[id]; *c; c++) {
			if (*c == ' ')
				continue;
			ck_assert_msg(k < MAXOPS, "%s: script too long", s->name);
			if (*c == 'B') {
				ck_assert(b < MAXB);
				p->count[b++]++;
				p->step[id][k++] = (step_t){ 'B', 1 };
				continue;
			}
			ck_assert_msg(*c == 'T', "%s: bad step '%c'", s->name, *c);
			unsigned w = 0;
			while (c[1] >= '0' && c[1] <= '9')
				w = w * 10 + (unsigned)(*++c - '0');
			p->step[id][k++] = (step_t){ 'T', w_all ? w_all : w ? w : 1 };
		}
		p->nsteps[id] = k;
		p->step[id][k] = (step_t){ 'X', 1 };
	}
}

/* What a step's transaction (step_tx) costs a run of turns: its five
 * accesses + 1 (the model's hand-checked cost), on every backend with
 * runs. */
#define STEP_COST 6u
#define RUN_BUDGET 112  /* short: < 7; runs of up to 19 transactions */
#define NO_RUN_BUDGET 96 /* short: < 6, which step_tx is not */

/* The model: slot[id][k] for every step, the exit included.  The start
 * barrier (every thread, in pot_run_threads) takes slots 0..n-1 whatever
 * the arrival order, and its release begins the first round with every
 * thread a member and every clock level.  budget: runs of turns
 * (round-robin; 0 = none). */
static void model(const parsed_t *p, bool weighted, unsigned budget,
                  uint64_t slot[MAXT][MAXOPS + 1])
{
	unsigned run = 0, kept = MAXT;
	unsigned members = (1u << p->n) - 1, parked[MAXB] = { 0 }, arrived[MAXB] = { 0 };
	unsigned pos[MAXT] = { 0 }, barriers_passed[MAXT] = { 0 };
	uint64_t clock[MAXT] = { 0 }, next = p->n;
	unsigned done = 0, last = 0;
	bool new_round = true;
	for (unsigned i = 0; i < MAXT; i++)
		for (unsigned k = 0; k <= MAXOPS; k++)
			slot[i][k] = NO_SLOT;
	while (done < p->n) {
		ck_assert_msg(members != 0, "the schedule deadlocks at slot %llu",
		              (unsigned long long)next);
		unsigned h = kept;
		if (h != MAXT) {
			kept = MAXT;   /* the run goes on */
		} else if (weighted) {
			uint64_t best = UINT64_MAX;
			for (unsigned i = 0; i < p->n; i++) {
				uint64_t t = clock[i] + p->step[i][pos[i]].w;
				if ((members >> i & 1) && t < best) {
					best = t;
					h = i;
				}
			}
		} else {
			for (unsigned i = new_round ? 0 : last + 1; i < p->n && h == MAXT; i++)
				if (members >> i & 1)
					h = i;
			for (unsigned i = 0; i < p->n && h == MAXT; i++)
				if (members >> i & 1)
					h = i;
		}
		const step_t *st = &p->step[h][pos[h]];
		slot[h][pos[h]++] = next++;
		clock[h] += st->w;
		last = h;
		new_round = false;
		if (st->kind == 'T' && !weighted && STEP_COST < budget / 16 && STEP_COST < 64 &&
		    run + STEP_COST < budget) {
			run += STEP_COST;
			kept = h;
			continue;
		}
		run = 0;
		if (st->kind == 'X') {
			members &= ~(1u << h);
			done++;
		} else if (st->kind == 'B') {
			unsigned b = barriers_passed[h]++;
			if (++arrived[b] == p->count[b]) {
				for (unsigned i = 0; i < p->n; i++)
					if (parked[b] >> i & 1)
						clock[i] = clock[h];
				members |= parked[b];
				new_round = true;
			} else {
				members &= ~(1u << h);
				parked[b] |= 1u << h;
			}
		}
	}
}

/* ---- running a schedule ------------------------------------------------ */

static parsed_t run_p;
static tm_barrier_t run_bar[MAXB];
static uint64_t got[MAXT][MAXOPS + 1];
static long log_pos, tx_log[MAXT * MAXOPS];
static unsigned long mix;   /* order-sensitive: every transaction reads and writes it */

static __attribute__((noinline)) void step_tx(long entry)
{
	TM_BEGIN();
		long p = TM_LOAD(&log_pos);
		TM_STORE(&tx_log[p], entry);
		TM_STORE(&log_pos, p + 1);
		TM_STORE(&mix, TM_LOAD(&mix) * 31 + (unsigned long)entry);
	TM_END();
}

static void script_thread(unsigned id, void *arg)
{
	(void)arg;
	unsigned b = 0;
	for (unsigned k = 0; k < run_p.nsteps[id]; k++) {
		const step_t *st = &run_p.step[id][k];
		got[id][k] = NO_SLOT;
		if (st->kind == 'B') {
			tm_barrier_wait(&run_bar[b++]);
			continue;
		}
		ck_assert_int_eq(tm_set_weight(st->w), 0);
		step_tx((long)(id << 8 | k));
		got[id][k] = tm_last_order();
	}
}

/* Run s (weights replaced by w_all unless 0) on an initialized library in
 * the given order and check every transaction's slot against the model of
 * model_weighted. */
static void run_and_check_runs(const sched_t *s, unsigned w_all, bool model_weighted,
                               unsigned budget, const char *what)
{
	parse(s, w_all, &run_p);
	uint64_t want[MAXT][MAXOPS + 1];
	model(&run_p, model_weighted, budget, want);
	for (unsigned b = 0; b < MAXB; b++)
		if (run_p.count[b])
			ck_assert(tm_barrier_init(&run_bar[b], run_p.count[b]) == 0);
	log_pos = 0;
	mix = 0;
	pot_run_threads(s->n, script_thread, NULL);
	for (unsigned b = 0; b < MAXB; b++)
		if (run_p.count[b])
			ck_assert(tm_barrier_destroy(&run_bar[b]) == 0);
	tm_shutdown();

	/* Every transaction in its slot; the log, in commit order, lists them
	 * by slot (the slots also cover barriers and exits, so gaps are
	 * expected between consecutive transactions). */
	long ntx = 0;
	unsigned long want_mix = 0;
	for (uint64_t slot = 0; ntx < log_pos && slot < 256; slot++)
		for (unsigned id = 0; id < s->n; id++)
			for (unsigned k = 0; k < run_p.nsteps[id]; k++) {
				if (run_p.step[id][k].kind != 'T' || want[id][k] != slot)
					continue;
				ck_assert_msg(got[id][k] == want[id][k],
				              "%s, %s: thread %u's step %u took slot %llu, the "
				              "model says %llu", what, s->name, id, k,
				              (unsigned long long)got[id][k],
				              (unsigned long long)want[id][k]);
				ck_assert_msg(tx_log[ntx] == (long)(id << 8 | k),
				              "%s, %s: commit %ld is thread %ld's step %ld, "
				              "expected thread %u's step %u (slot %llu)", what,
				              s->name, ntx, tx_log[ntx] >> 8, tx_log[ntx] & 0xff,
				              id, k, (unsigned long long)slot);
				want_mix = want_mix * 31 + (unsigned long)(id << 8 | k);
				ntx++;
			}
	long total = 0;
	for (unsigned id = 0; id < s->n; id++)
		for (unsigned k = 0; k < run_p.nsteps[id]; k++)
			total += run_p.step[id][k].kind == 'T';
	ck_assert_int_eq(log_pos, total);
	ck_assert_int_eq(ntx, total);
	ck_assert_uint_eq(mix, want_mix);
}

static void run_and_check(const sched_t *s, unsigned w_all, bool model_weighted,
                          const char *what)
{
	run_and_check_runs(s, w_all, model_weighted, 0, what);
}

/* ---- round-robin ------------------------------------------------------- */

/* Thread 1 exits early; threads 0 and 2 meet at a barrier that thread 2's
 * arrival releases; the weights must change nothing. */
static const sched_t rr_exit_barrier = {
	"exit and barrier", 3, {
		"T5 T T3 T B T T",
		"T T9",
		"T T T2 T B T T",
	},
};

/* Thread 0's own arrival releases the first barrier, where thread 2
 * parked early; thread 1 leaves while the others are parked or running;
 * thread 2's arrival releases the second. */
static const sched_t rr_uneven = {
	"uneven phases", 4, {
		"T T T T T B T T B T",
		"T T T",
		"T B T T T T B",
		"T T B T B T T T",
	},
};

static const sched_t *const rr_scheds[] = { &rr_exit_barrier, &rr_uneven };
#define N_RR (sizeof rr_scheds / sizeof *rr_scheds)

/* The model against slots worked out by hand from the rules. */
START_TEST(test_round_robin_model)
{
	static const uint64_t hand[3][MAXOPS + 1] = {
		/* start barrier: slots 0-2; rounds of 0, 1, 2 from slot 3 */
		{ 3, 6, 9, 12, 14, 16, 18, 20 },    /* B parks at 14 */
		{ 4, 7, 10 },                       /* exits at 10 */
		{ 5, 8, 11, 13, 15, 17, 19, 21 },   /* B at 15 releases */
	};
	parsed_t p;
	uint64_t slot[MAXT][MAXOPS + 1];
	parse(&rr_exit_barrier, 0, &p);
	model(&p, false, 0, slot);
	for (unsigned id = 0; id < 3; id++)
		for (unsigned k = 0; k <= p.nsteps[id]; k++)
			ck_assert_msg(slot[id][k] == hand[id][k], "thread %u step %u: model "
			              "%llu, by hand %llu", id, k, (unsigned long long)slot[id][k],
			              (unsigned long long)hand[id][k]);
	/* Weight 1 everywhere: the weighted model deals the same slots. */
	uint64_t wslot[MAXT][MAXOPS + 1];
	parse(&rr_exit_barrier, 1, &p);
	model(&p, true, 0, wslot);
	ck_assert(memcmp(slot, wslot, sizeof slot) == 0);

	/* Runs under a budget of RUN_BUDGET: every transaction is short and
	 * keeps the turn, so each thread's steps up to its next event form a
	 * run; the event, in the kept turn, ends it. */
	static const uint64_t hand_runs[3][MAXOPS + 1] = {
		{ 3, 4, 5, 6, 7, 16, 17, 18 },      /* B (7) in a kept turn parks */
		{ 8, 9, 10 },                       /* exits (10) in a kept turn */
		{ 11, 12, 13, 14, 15, 19, 20, 21 }, /* B at 15 releases */
	};
	parse(&rr_exit_barrier, 0, &p);
	model(&p, false, RUN_BUDGET, slot);
	for (unsigned id = 0; id < 3; id++)
		for (unsigned k = 0; k <= p.nsteps[id]; k++)
			ck_assert_msg(slot[id][k] == hand_runs[id][k], "runs: thread %u step "
			              "%u: model %llu, by hand %llu", id, k,
			              (unsigned long long)slot[id][k],
			              (unsigned long long)hand_runs[id][k]);
	/* A budget under which step_tx is not short: no runs. */
	uint64_t strict[MAXT][MAXOPS + 1];
	model(&p, false, NO_RUN_BUDGET, strict);
	model(&p, false, 0, slot);
	ck_assert(memcmp(slot, strict, sizeof slot) == 0);
}
END_TEST

START_TEST(test_round_robin)
{
	const char *mode = pot_modes[_i];
	for (unsigned s = 0; s < N_RR; s++) {
		init_order(mode, "round-robin");
		run_and_check(rr_scheds[s], 0, false, mode);
	}
}
END_TEST

/* The same schedules in runs of turns (RUN_BUDGET), under a budget for
 * which step_tx is not short (no runs), and under the default budget, in
 * which every thread's transactions up to its next event form one run. */
START_TEST(test_round_robin_runs)
{
	const char *mode = pot_modes[_i];
	tm_config_t dflt;
	tm_config_default(&dflt);
	const unsigned budgets[] = { RUN_BUDGET, NO_RUN_BUDGET, dflt.turn_batch };
	for (unsigned b = 0; b < 3; b++)
		for (unsigned s = 0; s < N_RR; s++) {
			init_order_batch(mode, "round-robin", budgets[b]);
			run_and_check_runs(rr_scheds[s], 0, false,
			                   runs_apply(mode) ? budgets[b] : 0, mode);
		}
}
END_TEST

/* ---- weighted ---------------------------------------------------------- */

/* Ties (2+2 = 1+3 = 4), a heavy transaction, an early exit, a barrier. */
static const sched_t w_ties = {
	"ties, exit and barrier", 3, {
		"T2 T2 T2 T2 B T1 T3",
		"T1 T3 T1 T5",
		"T3 T1 T2 T2 B T2 T1",
	},
};

/* A heavy transaction among light ones: the others commit about its
 * weight's worth meanwhile. */
static const sched_t w_heavy = {
	"one heavy transaction", 4, {
		"T10 T1 T1",
		"T1 T1 T1 T1 T1 T1 T1 T1 T1 T1 T1 T1",
		"T2 T2 T2 T2 T2 T2",
		"T4 T4 T4",
	},
};

/* No barrier or exit between the transactions: with equal weights the
 * order is round-robin whatever the weight. */
static const sched_t w_plain = {
	"transactions only", 3, {
		"T T T T T",
		"T T T T T",
		"T T T T T",
	},
};

START_TEST(test_weighted)
{
	const char *mode = pot_sequenced_modes[_i];
	const sched_t *const scheds[] = { &w_ties, &w_heavy };
	for (unsigned s = 0; s < 2; s++) {
		init_order(mode, "weighted");
		run_and_check(scheds[s], 0, true, mode);
	}
}
END_TEST

START_TEST(test_weighted_model_differs)
{
	/* The weighted schedules are not round-robin ones in disguise: the
	 * two models disagree on them, so test_weighted tests the weights. */
	const sched_t *const scheds[] = { &w_ties, &w_heavy };
	for (unsigned s = 0; s < 2; s++) {
		parsed_t p;
		uint64_t rr[MAXT][MAXOPS + 1], w[MAXT][MAXOPS + 1];
		parse(scheds[s], 0, &p);
		model(&p, false, 0, rr);
		model(&p, true, 0, w);
		bool differ = false;
		for (unsigned id = 0; id < p.n; id++)
			for (unsigned k = 0; k <= p.nsteps[id]; k++)
				differ |= rr[id][k] != w[id][k];
		ck_assert_msg(differ, "%s: same slots in both orders", scheds[s]->name);
	}
}
END_TEST

START_TEST(test_equal_weights_round_robin)
{
	const char *mode = pot_sequenced_modes[_i];
	/* Weight 1 everywhere, barriers and exits included: round-robin. */
	for (unsigned s = 0; s < N_RR; s++) {
		init_order(mode, "weighted");
		run_and_check(rr_scheds[s], 1, false, mode);
	}
	/* Equal weights other than 1 without events in between: still. */
	init_order(mode, "weighted");
	run_and_check(&w_plain, 7, false, mode);
}
END_TEST

/* ---- explicit ---------------------------------------------------------- */

#define XSLOTS 60
#define XTHREADS 3
#define X_BARRIER_AT 30   /* every thread meets the others before slot 30 */
#define X_EXIT_AT 45      /* thread 2 runs no slot from here on and exits */
static tm_barrier_t x_mid;
static long x_log_pos, x_log[XSLOTS];
static uint64_t x_got[XSLOTS];

/* The thread that runs slot s: a scramble of s, unrelated to the ids. */
static unsigned x_owner(unsigned s)
{
	unsigned o = (s * 2654435761u >> 9) % XTHREADS;
	return s >= X_EXIT_AT && o == 2 ? s % 2 : o;
}

static __attribute__((noinline)) void x_tx(unsigned s)
{
	TM_BEGIN();
		long p = TM_LOAD(&x_log_pos);
		TM_STORE(&x_log[p], (long)s);
		TM_STORE(&x_log_pos, p + 1);
		TM_STORE(&mix, TM_LOAD(&mix) * 31 + s);
	TM_END();
}

static void x_thread(unsigned id, void *arg)
{
	(void)arg;
	bool met = false;
	for (unsigned s = 0; s < XSLOTS; s++) {
		if (x_owner(s) != id)
			continue;
		if (s >= X_BARRIER_AT && !met) {
			tm_barrier_wait(&x_mid);
			met = true;
		}
		ck_assert_msg(tm_set_next_order(s) == 0, "tm_set_next_order(%u): %s", s,
		              tm_last_error());
		x_tx(s);
		x_got[s] = tm_last_order();
	}
	if (!met)
		tm_barrier_wait(&x_mid);
}

START_TEST(test_explicit)
{
	const char *mode = pot_sequenced_modes[_i];
	/* The schedule is what it says: every thread owns slots on both
	 * sides of the barrier. */
	unsigned owned[XTHREADS][2] = { { 0 } };
	for (unsigned s = 0; s < XSLOTS; s++)
		owned[x_owner(s)][s >= X_BARRIER_AT]++;
	for (unsigned t = 0; t < XTHREADS; t++)
		ck_assert(owned[t][0] > 0 && owned[t][1] > 0);
	init_order(mode, "explicit");
	ck_assert(tm_barrier_init(&x_mid, XTHREADS) == 0);
	x_log_pos = 0;
	mix = 0;
	pot_run_threads(XTHREADS, x_thread, NULL);
	ck_assert(tm_barrier_destroy(&x_mid) == 0);
	tm_shutdown();
	ck_assert_int_eq(x_log_pos, XSLOTS);
	unsigned long want_mix = 0;
	for (unsigned s = 0; s < XSLOTS; s++) {
		ck_assert_msg(x_got[s] == s, "%s: the transaction given slot %u reports "
		              "slot %llu", mode, s, (unsigned long long)x_got[s]);
		ck_assert_msg(x_log[s] == (long)s, "%s: commit %u is slot %ld", mode, s,
		              x_log[s]);
		want_mix = want_mix * 31 + s;
	}
	ck_assert_uint_eq(mix, want_mix);
}
END_TEST

/* Slot 0 supplied by thread 0, then asked for by thread 1: refused while
 * thread 0 holds it, and by either thread once it is consumed. */
static tm_barrier_t dup_bar;
static int dup_rc[4];
static char dup_msg[4][256];

static void keep_error(unsigned i, int rc)
{
	dup_rc[i] = rc;
	snprintf(dup_msg[i], sizeof dup_msg[i], "%s", tm_last_error());
}

static void dup_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 0)
		ck_assert_int_eq(tm_set_next_order(0), 0);
	tm_barrier_wait(&dup_bar);
	if (id == 1) {
		keep_error(0, tm_set_next_order(0));
		ck_assert_int_eq(tm_set_next_order(1), 0);
	}
	tm_barrier_wait(&dup_bar);
	x_tx(id);   /* thread 0 in slot 0, thread 1 in slot 1 */
	x_got[id] = tm_last_order();
	tm_barrier_wait(&dup_bar);
	keep_error(1 + id, tm_set_next_order(id == 0 ? 1 : 0));
	if (id == 0)
		keep_error(3, tm_set_next_order(0));
}

START_TEST(test_explicit_supplied_once)
{
	const char *mode = pot_sequenced_modes[_i];
	init_order(mode, "explicit");
	ck_assert(tm_barrier_init(&dup_bar, 2) == 0);
	x_log_pos = 0;
	pot_run_threads(2, dup_thread, NULL);
	ck_assert(tm_barrier_destroy(&dup_bar) == 0);
	tm_shutdown();
	ck_assert_int_eq(x_got[0], 0);
	ck_assert_int_eq(x_got[1], 1);
	ck_assert(x_log[0] == 0 && x_log[1] == 1);
	ck_assert_int_eq(dup_rc[0], -1);
	ck_assert_msg(strstr(dup_msg[0], "already supplied") != NULL, "%s", dup_msg[0]);
	for (unsigned i = 1; i < 4; i++) {
		ck_assert_int_eq(dup_rc[i], -1);
		ck_assert_msg(strstr(dup_msg[i], "already consumed") != NULL, "%s", dup_msg[i]);
	}
}
END_TEST

/* ---- no order ---------------------------------------------------------- */

static long plain;

START_TEST(test_no_order)
{
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
	ck_assert(!tm_is_deterministic());
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(tm_set_weight(9), 0);
	TM_BEGIN();
		TM_STORE(&plain, TM_LOAD(&plain) + 1);
	TM_END();
	ck_assert(tm_last_order() == TM_ORDER_NONE);
	ck_assert_int_eq(tm_set_next_order(0), -1);
	ck_assert_msg(strstr(tm_last_error(), "POTM_SEQUENCER=explicit") != NULL, "%s",
	              tm_last_error());
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sequencer");
	TCase *tc = tcase_create("orders");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_round_robin_model);
	tcase_add_test(tc, test_weighted_model_differs);
	if (tm_is_deterministic()) {
		tcase_add_loop_test(tc, test_round_robin, 0, POT_NMODES);
		tcase_add_loop_test(tc, test_round_robin_runs, 0, POT_NMODES);
		tcase_add_loop_test(tc, test_weighted, 0, POT_NSEQUENCED);
		tcase_add_loop_test(tc, test_equal_weights_round_robin, 0, POT_NSEQUENCED);
		tcase_add_loop_test(tc, test_explicit, 0, POT_NSEQUENCED);
		tcase_add_loop_test(tc, test_explicit_supplied_once, 0, POT_NSEQUENCED);
	} else {
		tcase_add_test(tc, test_no_order);
	}
	suite_add_tcase(s, tc);
	return pot_run_suite(s);
}
