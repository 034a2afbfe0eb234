/*
 * tests/regression/lsd/test_pot_lsd.c — Pot+LSD: Lazy State Determination
 * under Pot's ordered commit (stm/pot.c, PL1-PL5).
 *
 *  determinism  a bank with a hot counter, written with futures,
 *               conditions and lazy writes (conditional decrements of the
 *               counter, refills from a reserve, conditional transfers
 *               cancelled when refused, 32-bit halves of one word, chained
 *               lazy writes of one word, lsd_value, concrete receipts):
 *               20 runs at 2 and at 8 threads (oversubscribed) give one
 *               commit-order hash and one final-state hash in every mode;
 *               the first run of each replays sequentially in its slot
 *               order to the same results and state; no balance, reserve
 *               or counter is ever below 0, and the total is exact.  With
 *               one slot per turn (POTM_TURN_BATCH=0) every mode gives the
 *               same order and the same state.
 *  semantics    (pot, step by step: thread 0 holds the first slot and
 *               commits in the middle of thread 1's speculative
 *               transaction) a change that keeps a condition true commits
 *               with no abort, where the same transaction with a standard
 *               read takes an order abort; a change that makes it false
 *               re-executes the transaction (cause condition), which takes
 *               the other branch; a cancel decided on a condition is
 *               validated in the turn; futures resolve at the turn, and
 *               chained lazy writes apply once, in program order; live
 *               promotion settles in place (the condition validated at the
 *               promotion point, the rest of the attempt eager).
 *  hot counter  (pot) transactions with no concrete read never take an
 *               order abort, whatever the timing; exact counters.
 *
 * The determinism tests run on every Pot backend (pot-rtm and pot-rot
 * resolve LSD calls eagerly and must be as deterministic); the step tests
 * need pot's speculative transactions.
 */
#define _GNU_SOURCE
#include <potm/lsd.h>
#include <potm/tm.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "test_pot_util.h"
#include "test_threads.h"

#define IS(b) (strcmp(POTM_BACKEND_NAME, b) == 0)

#define RUNS 20
#define PER_THREAD 40

static int64_t c(int64_t v)
{
	return v;
}
#define K(v) lsd_const(c(v))

/* ---- the program: a bank around a hot counter ------------------------------------ */

#define ACCTS 8
#define ACCT_INITIAL 50
#define MAX_THREADS 8

static struct {
	int64_t hot;                 /* the hot counter */
	int64_t pad0[7];
	int64_t reserve;             /* refills come from here */
	int64_t pad1[7];
	int64_t acct[ACCTS * 8];     /* one per cache line */
	int32_t halves[2];           /* one word, two 32-bit counters */
	int64_t receipt[MAX_THREADS * 8];   /* concrete writes, per thread */
	int64_t rates[16];           /* read, never written */
} bank;
#define ACCT(i) (&bank.acct[(i) * 8])
static int64_t total0;           /* hot + reserve + accounts at setup */

static uint64_t mix(unsigned id, unsigned k)
{
	uint64_t z = ((uint64_t)id << 40) ^ ((uint64_t)k << 8) ^ 0x5bd1e995u;
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The counter runs out about midway and the reserve later, so that the
 * conditions on both flip during a run. */
static void bank_setup(unsigned n, unsigned per)
{
	memset(&bank, 0, sizeof bank);
	bank.hot = (int64_t)(n * per) / 4;
	bank.reserve = (int64_t)(n * per) / 5;
	for (int i = 0; i < ACCTS; i++)
		*ACCT(i) = ACCT_INITIAL;
	for (int i = 0; i < 16; i++)
		bank.rates[i] = i;
	total0 = bank.hot + bank.reserve + ACCTS * ACCT_INITIAL;
}

/* The kinds of transaction, by (id, k). */
enum { OP_AUDIT, OP_TAKE, OP_REFILL, OP_TRANSFER, OP_VALUE, OP_CHAIN };

static unsigned op_of(uint64_t r)
{
	unsigned x = (unsigned)(r % 16);
	return x == 0 ? OP_AUDIT : x <= 6 ? OP_TAKE : x == 7 ? OP_REFILL :
	       x <= 13 ? OP_TRANSFER : x == 14 ? OP_VALUE : OP_CHAIN;
}

/* With futures, conditions and lazy writes (inside the transaction). */
static int64_t bank_lsd(unsigned id, unsigned k)
{
	uint64_t r = mix(id, k);
	unsigned a = (unsigned)(r >> 8) % ACCTS, b = (unsigned)(r >> 16) % (ACCTS - 1);
	b += b >= a;
	int64_t q = 1 + (int64_t)((r >> 24) % 3), amount = 1 + (int64_t)((r >> 32) % 60);
	switch (op_of(r)) {
	case OP_AUDIT: {
		int64_t sum = TM_LOAD(&bank.hot) + TM_LOAD(&bank.reserve);
		for (int i = 0; i < ACCTS; i++)
			sum += TM_LOAD(ACCT(i));
		return sum;
	}
	case OP_TAKE: {
		lsd_val_t h = lsd_read(&bank.hot);
		if (!lsd_is_true(lsd_cmp(h, LSD_GE, K(q))))
			return -1;   /* read-only, with a condition */
		lsd_write(&bank.hot, lsd_sub(h, K(q)));
		lsd_write(ACCT(id % ACCTS), lsd_add(lsd_read(ACCT(id % ACCTS)), K(q)));
		/* Concrete reads after the LSD calls: where the turn comes
		 * meanwhile, live promotion settles the attempt in place. */
		int64_t sum = 0;
		for (int i = 0; i < 16; i++)
			sum += TM_LOAD(&bank.rates[i]);
		TM_STORE(&bank.receipt[id * 8], (int64_t)k + sum);
		return q;
	}
	case OP_REFILL: {
		lsd_val_t s = lsd_read(&bank.reserve);
		int32_t *half = &bank.halves[id % 2];
		lsd_write_i32(half, lsd_add(lsd_read_i32(half), K(1)));
		if (!lsd_is_true(lsd_cmp(s, LSD_GE, K(5))))
			return 0;
		lsd_write(&bank.reserve, lsd_sub(s, K(5)));
		lsd_write(&bank.hot, lsd_add(lsd_read(&bank.hot), K(5)));
		return 5;
	}
	case OP_TRANSFER: {
		lsd_val_t f = lsd_read(ACCT(a));
		if (!lsd_is_true(lsd_cmp(f, LSD_GE, K(amount)))) {
			if (r & (1u << 20))
				tm_cancel();   /* an ordered no-op, decided on a condition */
			return 0;
		}
		lsd_write(ACCT(a), lsd_sub(f, K(amount)));
		lsd_write(ACCT(b), lsd_add(lsd_read(ACCT(b)), K(amount)));
		return amount;
	}
	case OP_VALUE: {
		/* A future bound by lsd_value: a standard read. */
		int64_t v = lsd_value(lsd_read(ACCT(a)));
		if (v >= 2) {
			lsd_write(ACCT(a), lsd_sub(lsd_read(ACCT(a)), K(1)));
			lsd_write(ACCT(b), lsd_add(lsd_read(ACCT(b)), K(1)));
		}
		return v;
	}
	default: {
		/* Chained lazy writes of one word: the second reads the first's
		 * expression (L2), the last one wins (L3). */
		lsd_val_t x = lsd_read(ACCT(a));
		lsd_cond_t ok = lsd_and(lsd_cmp(x, LSD_GE, K(3)),
		                        lsd_cmp(lsd_read(&bank.hot), LSD_LT, K(1000000)));
		if (!lsd_is_true(ok))
			return -2;
		lsd_write(ACCT(a), lsd_sub(x, K(2)));
		lsd_write(ACCT(a), lsd_sub(lsd_read(ACCT(a)), K(1)));
		lsd_write(ACCT(b), lsd_add(lsd_read(ACCT(b)), K(3)));
		return 3;
	}
	}
}

/* The same transactions with plain reads and writes: the sequential
 * replay's meaning. */
static int64_t bank_plain(unsigned id, unsigned k)
{
	uint64_t r = mix(id, k);
	unsigned a = (unsigned)(r >> 8) % ACCTS, b = (unsigned)(r >> 16) % (ACCTS - 1);
	b += b >= a;
	int64_t q = 1 + (int64_t)((r >> 24) % 3), amount = 1 + (int64_t)((r >> 32) % 60);
	switch (op_of(r)) {
	case OP_AUDIT: {
		int64_t sum = bank.hot + bank.reserve;
		for (int i = 0; i < ACCTS; i++)
			sum += *ACCT(i);
		return sum;
	}
	case OP_TAKE:
		if (bank.hot < q)
			return -1;
		bank.hot -= q;
		*ACCT(id % ACCTS) += q;
		bank.receipt[id * 8] = k + 120;   /* 0 + 1 + ... + 15 */
		return q;
	case OP_REFILL:
		bank.halves[id % 2]++;
		if (bank.reserve < 5)
			return 0;
		bank.reserve -= 5;
		bank.hot += 5;
		return 5;
	case OP_TRANSFER:
		if (*ACCT(a) < amount)
			return (r & (1u << 20)) ? POT_CANCELLED : 0;
		*ACCT(a) -= amount;
		*ACCT(b) += amount;
		return amount;
	case OP_VALUE: {
		int64_t v = *ACCT(a);
		if (v >= 2) {
			*ACCT(a) -= 1;
			*ACCT(b) += 1;
		}
		return v;
	}
	default:
		if (*ACCT(a) < 3 || bank.hot >= 1000000)
			return -2;
		*ACCT(a) -= 3;
		*ACCT(b) += 3;
		return 3;
	}
}

static int64_t bank_body(unsigned id, unsigned k, bool tm)
{
	return tm ? bank_lsd(id, k) : bank_plain(id, k);
}

static uint64_t bank_hash(void)
{
	uint64_t h = pot_hash(POT_HASH_INIT, (uint64_t)bank.hot);
	h = pot_hash(h, (uint64_t)bank.reserve);
	for (int i = 0; i < ACCTS; i++)
		h = pot_hash(h, (uint64_t)*ACCT(i));
	h = pot_hash(h, (uint64_t)(uint32_t)bank.halves[0] << 32 | (uint32_t)bank.halves[1]);
	for (int i = 0; i < MAX_THREADS; i++)
		h = pot_hash(h, (uint64_t)bank.receipt[i * 8]);
	return h;
}

static void bank_teardown(void)
{
}

static const pot_prog_t prog_lsd_bank = {
	"lsd-bank", bank_setup, bank_body, bank_hash, bank_teardown,
};

/* After a run: nothing below 0, the total exact, every refill counted. */
static void bank_check_invariants(unsigned n)
{
	int64_t total = bank.hot + bank.reserve;
	ck_assert_int_ge(bank.hot, 0);
	ck_assert_int_ge(bank.reserve, 0);
	for (int i = 0; i < ACCTS; i++) {
		ck_assert_int_ge(*ACCT(i), 0);
		total += *ACCT(i);
	}
	ck_assert_int_eq(total, total0);
	int64_t refills = 0;
	for (unsigned id = 0; id < n; id++)
		for (unsigned k = 0; k < PER_THREAD; k++)
			refills += op_of(mix(id, k)) == OP_REFILL;
	ck_assert_int_eq((int64_t)bank.halves[0] + bank.halves[1], refills);
}

/* ---- determinism ------------------------------------------------------------------- */

static const unsigned thread_counts[] = { 2, 8 };
#define NCOUNTS (sizeof thread_counts / sizeof *thread_counts)

/* One loop iteration per mode: 20 runs, one outcome; the first replays. */
START_TEST(same_order_every_run)
{
	const char *mode = pot_modes[_i];
	pot_use_mode(mode);
	for (size_t ci = 0; ci < NCOUNTS; ci++) {
		unsigned n = thread_counts[ci];
		pot_run_t first, run;
		pot_run_prog(&prog_lsd_bank, n, PER_THREAD, &first);
		ck_assert_msg(first.order_hash != 0, "no commit order recorded");
		bank_check_invariants(n);
		pot_replay_check(&prog_lsd_bank, &first);
		for (int r = 1; r < RUNS; r++) {
			pot_run_prog(&prog_lsd_bank, n, PER_THREAD, &run);
			bank_check_invariants(n);
			ck_assert_msg(run.order_hash == first.order_hash &&
			              run.state_hash == first.state_hash,
			              "mode %s, %u threads: run %d differs from run 0 (order "
			              "%016llx vs %016llx, state %016llx vs %016llx)", mode, n, r,
			              (unsigned long long)run.order_hash,
			              (unsigned long long)first.order_hash,
			              (unsigned long long)run.state_hash,
			              (unsigned long long)first.state_hash);
			free(run.recs);
		}
		free(first.recs);
	}
}
END_TEST

/* One slot per turn: every mode commits in the round-robin order, so all
 * must agree on the order and on the final state, whether a transaction
 * kept its futures until the turn (speculative), resolved them at once
 * (fast mode, pogl) or settled them at a live promotion. */
START_TEST(same_outcome_in_every_mode)
{
	setenv("POTM_TURN_BATCH", "0", 1);
	for (size_t ci = 0; ci < NCOUNTS; ci++) {
		unsigned n = thread_counts[ci];
		uint64_t order = 0, state = 0;
		for (unsigned m = 0; m < POT_NMODES; m++) {
			pot_run_t run;
			pot_use_mode(pot_modes[m]);
			pot_run_prog(&prog_lsd_bank, n, PER_THREAD, &run);
			bank_check_invariants(n);
			if (m == 0) {
				order = run.order_hash;
				state = run.state_hash;
			}
			ck_assert_msg(run.order_hash == order && run.state_hash == state,
			              "%u threads: mode %s differs from mode %s", n,
			              pot_modes[m], pot_modes[0]);
			free(run.recs);
		}
	}
	unsetenv("POTM_TURN_BATCH");
}
END_TEST

/* ---- semantics, step by step --------------------------------------------------------
 * Two threads, one slot per turn: thread 0 holds the first slot.  Thread
 * 1 begins speculatively, makes its LSD calls, lets thread 0 commit (in
 * fast mode, or speculatively in its own turn) and waits for it; then
 * thread 1's commit (or, with live promotion, its next read) meets its
 * turn. */

/* Each on a cache line of its own: a stripe of its own. */
#define LINE __attribute__((aligned(64)))
static int64_t stock LINE, shipped LINE, after LINE, other[16] LINE;
static volatile int step;
static volatile int attempts, branch_then, branch_else;
static int64_t take;           /* thread 0 adds -take to stock */
static bool lazy_reader;       /* thread 1 uses a future, not TM_LOAD */
static bool promote;           /* thread 1 reads on after thread 0's commit */
static bool cancel_else;       /* thread 1 cancels when the condition fails */

static void wait_step(int s)
{
	while (__atomic_load_n(&step, __ATOMIC_ACQUIRE) < s)
		;
}

static void step_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		wait_step(1);
		TM_BEGIN();
		TM_STORE(&stock, TM_LOAD(&stock) - take);
		TM_END();
		__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
		return;
	}
	TM_BEGIN();
	attempts++;
	bool ok;
	lsd_val_t s = { 0 };
	int64_t v = 0;
	if (lazy_reader) {
		s = lsd_read(&stock);
		ok = lsd_is_true(lsd_cmp(s, LSD_GE, K(5)));
	} else {
		v = TM_LOAD(&stock);
		ok = v >= 5;
	}
	/* The decision is taken; now thread 0 commits before our turn. */
	if (attempts == 1) {
		__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
		wait_step(2);
	}
	if (ok) {
		branch_then++;
		if (lazy_reader) {
			lsd_write(&stock, lsd_sub(s, K(5)));
			lsd_write(&shipped, lsd_add(lsd_read(&shipped), K(5)));
		} else {
			TM_STORE(&stock, v - 5);
			TM_STORE(&shipped, TM_LOAD(&shipped) + 5);
		}
	} else {
		branch_else++;
		if (cancel_else)
			tm_cancel();
	}
	if (promote) {
		/* Thread 0 has passed the turn: a read finds it ours and
		 * promotes; what follows runs eagerly, and the future of the
		 * lazily written stock is its expression, now a value. */
		int64_t sum = 0;
		for (int i = 0; i < 16; i++)
			sum += TM_LOAD(&other[i]);
		lsd_write(&after, lsd_add(lsd_read(&stock), K(sum)));
	}
	TM_END();
}

/* Run the two threads in the current mode; the run's statistics. */
static tm_stats_t step_run(int64_t stock0, int64_t taken_by_0)
{
	setenv("POTM_TURN_BATCH", "0", 1);
	stock = stock0;
	shipped = after = 0;
	memset(other, 0, sizeof other);
	step = 0;
	attempts = branch_then = branch_else = 0;
	take = taken_by_0;
	pot_init_or_fail();
	test_run_threads(2, step_work);
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();
	return s;
}

/* The modes in which thread 1 runs beside thread 0 (all but pogl). */
static bool mode_speculates(unsigned m)
{
	return !potm_mode_policies[m].global_lock;
}

START_TEST(condition_still_true_commits)
{
	if (!mode_speculates(_i))
		return;
	pot_use_mode(pot_modes[_i]);
	lazy_reader = true;
	/* 10 - 3 = 7 >= 5: condition validation at the turn passes. */
	tm_stats_t s = step_run(10, 3);
	ck_assert_int_eq(attempts, 1);
	ck_assert_int_eq(branch_then, 1);
	ck_assert_int_eq(stock, 2);
	ck_assert_int_eq(shipped, 5);
	ck_assert_uint_eq(s.aborts, 0);
	ck_assert_uint_ge(s.spec_commits, 1);
}
END_TEST

/* The same transaction with a standard read of stock: the change is an
 * order abort (the statistic that Pot+LSD saves, deterministically). */
START_TEST(standard_read_takes_order_abort)
{
	if (!mode_speculates(_i))
		return;
	pot_use_mode(pot_modes[_i]);
	lazy_reader = false;
	tm_stats_t s = step_run(10, 3);
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(stock, 2);
	ck_assert_int_eq(shipped, 5);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_ORDER], 1);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 0);
}
END_TEST

START_TEST(condition_turned_false_reexecutes)
{
	if (!mode_speculates(_i))
		return;
	pot_use_mode(pot_modes[_i]);
	lazy_reader = true;
	/* 10 - 6 = 4 < 5: the answer changed; the retry takes the other
	 * branch, and the first attempt's lazy writes are gone. */
	tm_stats_t s = step_run(10, 6);
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(branch_then, 1);
	ck_assert_int_eq(branch_else, 1);
	ck_assert_int_eq(stock, 4);
	ck_assert_int_eq(shipped, 0);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 1);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_ORDER], 0);
	ck_assert_uint_eq(s.aborts, 1);
}
END_TEST

/* A cancel decided speculatively on a condition (3 < 5) is checked in
 * the turn: thread 0 added 5, so the retry ships. */
START_TEST(cancel_on_condition_validated)
{
	if (!mode_speculates(_i))
		return;
	pot_use_mode(pot_modes[_i]);
	lazy_reader = true;
	cancel_else = true;
	tm_stats_t s = step_run(3, -5);
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(branch_else, 1);
	ck_assert_int_eq(branch_then, 1);
	ck_assert_int_eq(stock, 3);
	ck_assert_int_eq(shipped, 5);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 1);
	ck_assert_uint_eq(s.cancels, 0);
}
END_TEST

/* ... and one whose condition still holds at the turn is a cancel. */
START_TEST(cancel_on_condition_stands)
{
	if (!mode_speculates(_i))
		return;
	pot_use_mode(pot_modes[_i]);
	lazy_reader = true;
	cancel_else = true;
	tm_stats_t s = step_run(3, -1);
	ck_assert_int_eq(attempts, 1);
	ck_assert_int_eq(stock, 4);
	ck_assert_int_eq(shipped, 0);
	ck_assert_uint_eq(s.aborts, 0);
	ck_assert_uint_eq(s.cancels, 1);
}
END_TEST

/* Live promotion settles in place: the condition is validated at the
 * promotion point (7 >= 5 holds), the lazy writes go in place with the
 * write set, the rest of the attempt is eager. */
START_TEST(promotion_settles)
{
	pot_use_mode("pot");
	lazy_reader = true;
	promote = true;
	tm_stats_t s = step_run(10, 3);
	ck_assert_int_eq(attempts, 1);
	ck_assert_int_eq(stock, 2);
	ck_assert_int_eq(shipped, 5);
	ck_assert_int_eq(after, 2);
	ck_assert_uint_eq(s.promotions, 1);
	ck_assert_uint_eq(s.aborts, 0);
}
END_TEST

START_TEST(promotion_condition_turned_false)
{
	pot_use_mode("pot");
	lazy_reader = true;
	promote = true;
	tm_stats_t s = step_run(10, 6);
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(branch_else, 1);
	ck_assert_int_eq(stock, 4);
	ck_assert_int_eq(shipped, 0);
	ck_assert_int_eq(after, 4);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 1);
	ck_assert_uint_eq(s.aborts, 1);
}
END_TEST

/* Futures resolve at the turn, on the state thread 0 left: with no
 * condition nothing can fail, and the chained lazy writes apply once, in
 * program order: (20 + 1) * 2 = 42, the log sees the last. */
static int64_t chain_log LINE;

static void chain_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		wait_step(1);
		TM_BEGIN();
		TM_STORE(&stock, 20);
		TM_END();
		__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
		return;
	}
	TM_BEGIN();
	attempts++;
	lsd_val_t x = lsd_read(&stock);
	lsd_write(&stock, lsd_add(x, K(1)));
	lsd_write(&stock, lsd_mul(lsd_read(&stock), K(2)));
	lsd_write(&chain_log, lsd_read(&stock));
	if (attempts == 1) {
		__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
		wait_step(2);
	}
	TM_END();
}

START_TEST(lazy_writes_at_the_turn_in_order)
{
	if (!mode_speculates(_i))
		return;
	pot_use_mode(pot_modes[_i]);
	setenv("POTM_TURN_BATCH", "0", 1);
	stock = 10;
	chain_log = 0;
	pot_init_or_fail();
	test_run_threads(2, chain_work);
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();
	ck_assert_int_eq(attempts, 1);
	ck_assert_int_eq(stock, 42);
	ck_assert_int_eq(chain_log, 42);
	ck_assert_uint_eq(s.aborts, 0);
}
END_TEST

/* ---- a hot counter ------------------------------------------------------------------ */

#define HOT_TRIES 4000
static int64_t hot, mine[MAX_THREADS * 8];
static long taken;
static bool hot_lsd;

static void hot_work(unsigned id, unsigned n)
{
	long got = 0;
	for (long i = 0; i < HOT_TRIES / (long)n; i++) {
		volatile bool ok = false;
		TM_BEGIN();
		if (hot_lsd) {
			lsd_val_t v = lsd_read(&hot);
			ok = lsd_is_true(lsd_cmp(v, LSD_GE, K(1)));
			if (ok) {
				lsd_write(&hot, lsd_sub(v, K(1)));
				lsd_write(&mine[id * 8], lsd_add(lsd_read(&mine[id * 8]), K(1)));
			}
		} else {
			int64_t v = TM_LOAD(&hot);
			ok = v >= 1;
			if (ok) {
				TM_STORE(&hot, v - 1);
				TM_STORE(&mine[id * 8], TM_LOAD(&mine[id * 8]) + 1);
			}
		}
		TM_END();
		got += ok;
	}
	__atomic_fetch_add(&taken, got, __ATOMIC_RELAXED);
}

static tm_stats_t hot_run(unsigned n, bool lsd)
{
	setenv("POTM_TURN_BATCH", "0", 1);   /* more speculative transactions */
	hot = 3 * HOT_TRIES / 4;
	memset(mine, 0, sizeof mine);
	taken = 0;
	hot_lsd = lsd;
	pot_init_or_fail();
	test_run_threads(n, hot_work);
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();
	ck_assert_int_eq(hot, 0);
	ck_assert_int_eq(taken, 3 * HOT_TRIES / 4);
	int64_t sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += mine[i * 8];
	ck_assert_int_eq(sum, taken);
	return s;
}

/* Decrements through futures have no read set: an earlier slot's commit
 * can only change a condition's answer (once the counter runs out), never
 * invalidate the transaction, so there are no order aborts at all, in any
 * timing.  The standard version's count depends on the timing: printed. */
START_TEST(hot_counter_no_order_aborts)
{
	static const unsigned ns[] = { 2, 4 };
	for (size_t i = 0; i < 2; i++) {
		pot_use_mode("pot");
		tm_stats_t l = hot_run(ns[i], true);
		tm_stats_t s = hot_run(ns[i], false);
		printf("pot, hot counter, %u threads: order aborts %llu with LSD "
		       "(%llu speculative commits, %llu condition aborts), %llu standard\n",
		       ns[i], (unsigned long long)l.aborts_by_cause[TM_ABORT_ORDER],
		       (unsigned long long)l.spec_commits,
		       (unsigned long long)l.aborts_by_cause[TM_ABORT_CONDITION],
		       (unsigned long long)s.aborts_by_cause[TM_ABORT_ORDER]);
		ck_assert_uint_eq(l.aborts_by_cause[TM_ABORT_ORDER], 0);
		ck_assert_uint_eq(l.aborts_by_cause[TM_ABORT_READ_VERSION], 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-lsd_" POTM_BACKEND_NAME);
	TCase *det = tcase_create("determinism");
	tcase_set_timeout(det, 120);
	tcase_add_loop_test(det, same_order_every_run, 0, POT_NMODES);
	tcase_add_test(det, same_outcome_in_every_mode);
	suite_add_tcase(s, det);
	if (IS("pot")) {
		TCase *sem = tcase_create("semantics");
		tcase_set_timeout(sem, 60);
		tcase_add_loop_test(sem, condition_still_true_commits, 0, POT_NMODES);
		tcase_add_loop_test(sem, standard_read_takes_order_abort, 0, POT_NMODES);
		tcase_add_loop_test(sem, condition_turned_false_reexecutes, 0, POT_NMODES);
		tcase_add_loop_test(sem, cancel_on_condition_validated, 0, POT_NMODES);
		tcase_add_loop_test(sem, cancel_on_condition_stands, 0, POT_NMODES);
		tcase_add_loop_test(sem, lazy_writes_at_the_turn_in_order, 0, POT_NMODES);
		tcase_add_test(sem, promotion_settles);
		tcase_add_test(sem, promotion_condition_turned_false);
		tcase_add_test(sem, hot_counter_no_order_aborts);
		suite_add_tcase(s, sem);
	}
	return pot_run_suite(s);
}
