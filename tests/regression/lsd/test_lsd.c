/*
 * Lazy State Determination (<potm/lsd.h>) on every backend: the same
 * results everywhere, whether the backend keeps futures unresolved until
 * the commit (tl2's and silo's LSD-aware OCC, pot's speculative transactions) or
 * resolves them at once (the others).
 *
 *  semantics   expressions and wrap-around, every comparison, "and"
 *              nesting, 32-bit words, read-your-writes through concrete
 *              and lazy writes, lazy writes applied once and in program
 *              order, lsd_value, cancel and restart discarding lazy
 *              writes, read-only transactions with conditions, and tl2's
 *              in-place modes (escalation, reader shares, serial mode)
 *              reached in the middle of an LSD transaction;
 *  misuse      outside a transaction, a handle of an earlier transaction
 *              or of another thread, too deep, too many nodes: SIGABRT;
 *  concurrency (not seq) a bank whose transfers check the balance with
 *              lsd_is_true and move money with lazy writes (no balance
 *              below 0, exact total, during and after the run), a hot
 *              counter decremented lazily while it stays >= 0 (exact),
 *              and on tl2 and silo, step by step: a concurrent change that keeps a
 *              condition true does not abort, one that makes it false
 *              re-executes the transaction, which takes the other branch.
 */
#include <potm/lsd.h>
#include <potm/tm.h>

#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "test_init.h"
#include "test_threads.h"

#if defined(__SANITIZE_ADDRESS__)
#define SCALE 4     /* under ASan: fewer operations, the same checks */
#else
#define SCALE 1
#endif

#define IS(b) (strcmp(POTM_BACKEND_NAME, b) == 0)
#define CAN_ROLL_BACK (!IS("seq"))   /* seq cannot cancel */

/* Start the library (a backend this machine cannot run is a skip). */
static void start_tm(void)
{
	test_tm_init(NULL);
}

static void start(void)
{
	start_tm();
	ck_assert_int_eq(tm_thread_enter(0), 0);
}

static void stop(void)
{
	tm_thread_exit();
	tm_shutdown();
}

static int64_t c(int64_t v)
{
	return v;
}
#define K(v) lsd_const(c(v))

/* ---- single thread: semantics ----------------------------------------------- */

static int64_t w[64];
static int32_t h[8];

START_TEST(expressions)
{
	start();
	w[0] = 7;
	w[1] = -3;
	volatile int64_t sum = 0, diff = 0, prod = 0, lo = 0, hi = 0, nested = 0;
	TM_BEGIN();
	lsd_val_t a = lsd_read(&w[0]), b = lsd_read(&w[1]);
	sum = lsd_value(lsd_add(a, b));
	diff = lsd_value(lsd_sub(a, b));
	prod = lsd_value(lsd_mul(a, b));
	lo = lsd_value(lsd_min(a, b));
	hi = lsd_value(lsd_max(a, b));
	/* (a + 1) * (b - a) + max(a, 100) */
	nested = lsd_value(lsd_add(lsd_mul(lsd_add(a, K(1)), lsd_sub(b, a)), lsd_max(a, K(100))));
	lsd_write(&w[2], lsd_add(lsd_mul(a, K(10)), b));
	TM_END();
	ck_assert_int_eq(sum, 4);
	ck_assert_int_eq(diff, 10);
	ck_assert_int_eq(prod, -21);
	ck_assert_int_eq(lo, -3);
	ck_assert_int_eq(hi, 7);
	ck_assert_int_eq(nested, 8 * -10 + 100);
	ck_assert_int_eq(w[2], 67);
	stop();
}
END_TEST

/* A known value on either side of an operator or comparison with a
 * future (the node holds it), known values folded first, and the result
 * used lazily (a lazy write) and concretely (lsd_value). */
START_TEST(known_operand_either_side)
{
	start();
	w[0] = 7;
	w[3] = 0;
	volatile int64_t left = 0, right = 0, lo = 0, folded = 0;
	volatile bool le = false, gt = true, both = false;
	TM_BEGIN();
	lsd_val_t a = lsd_read(&w[0]);
	lsd_write(&w[3], lsd_sub(K(100), a));
	le = lsd_is_true(lsd_cmp(K(5), LSD_LE, a));
	gt = lsd_is_true(lsd_cmp(K(7), LSD_GT, a));
	both = lsd_is_true(lsd_and(lsd_cmp(K(7), LSD_EQ, a), lsd_cmp(a, LSD_NE, K(8))));
	lo = lsd_value(lsd_min(K(3), a));
	folded = lsd_value(lsd_mul(lsd_add(lsd_mul(K(2), K(3)), K(1)), a));
	left = lsd_value(lsd_sub(K(100), a));
	right = lsd_value(lsd_sub(a, K(100)));
	TM_END();
	ck_assert(le);
	ck_assert(!gt);
	ck_assert(both);
	ck_assert_int_eq(lo, 3);
	ck_assert_int_eq(folded, 49);
	ck_assert_int_eq(left, 93);
	ck_assert_int_eq(right, -93);
	ck_assert_int_eq(w[3], 93);
	ck_assert_int_eq(w[0], 7);
	stop();
}
END_TEST

START_TEST(wrap_around)
{
	start();
	w[0] = INT64_MAX;
	w[1] = INT64_MIN;
	h[0] = INT32_MAX;
	TM_BEGIN();
	lsd_write(&w[2], lsd_add(lsd_read(&w[0]), K(1)));
	lsd_write(&w[3], lsd_sub(lsd_read(&w[1]), K(1)));
	lsd_write(&w[4], lsd_mul(lsd_read(&w[0]), K(2)));
	/* 32-bit words wrap at 32 bits, and read back sign-extended */
	lsd_write_i32(&h[1], lsd_add(lsd_read_i32(&h[0]), K(1)));
	lsd_write_i32(&h[2], K(((int64_t)1 << 40) + 5));
	TM_END();
	ck_assert(w[2] == INT64_MIN);
	ck_assert(w[3] == INT64_MAX);
	ck_assert_int_eq(w[4], -2);
	ck_assert(h[1] == INT32_MIN);
	ck_assert_int_eq(h[2], 5);
	ck_assert_int_eq(h[0], INT32_MAX);   /* the neighbours are untouched */
	volatile int64_t back = 0;
	TM_BEGIN();
	back = lsd_value(lsd_read_i32(&h[1]));
	TM_END();
	ck_assert(back == INT32_MIN);
	stop();
}
END_TEST

START_TEST(comparisons)
{
	start();
	w[0] = 5;
	static const struct {
		lsd_cmp_op_t op;
		int64_t rhs;
		bool want;
	} cases[] = {
		{ LSD_EQ, 5, true },  { LSD_EQ, 4, false }, { LSD_NE, 4, true },  { LSD_NE, 5, false },
		{ LSD_LT, 6, true },  { LSD_LT, 5, false }, { LSD_LE, 5, true },  { LSD_LE, 4, false },
		{ LSD_GT, 4, true },  { LSD_GT, 5, false }, { LSD_GE, 5, true },  { LSD_GE, 6, false },
	};
	volatile unsigned wrong = 0, checked = 0;
	TM_BEGIN();
	wrong = checked = 0;
	lsd_val_t x = lsd_read(&w[0]);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (lsd_is_true(lsd_cmp(x, cases[i].op, K(cases[i].rhs))) != cases[i].want)
			wrong++;
		checked++;
	}
	/* Signed comparison: -1 < 0. */
	if (!lsd_is_true(lsd_cmp(K(-1), LSD_LT, K(0))))
		wrong++;
	TM_END();
	ck_assert_uint_eq(checked, 12);
	ck_assert_uint_eq(wrong, 0);
	stop();
}
END_TEST

START_TEST(and_nesting)
{
	start();
	w[0] = 10;
	w[1] = 20;
	volatile int answers = 0;
	TM_BEGIN();
	answers = 0;
	lsd_val_t x = lsd_read(&w[0]), y = lsd_read(&w[1]);
	lsd_cond_t a = lsd_cmp(x, LSD_LT, y);              /* true */
	lsd_cond_t b = lsd_cmp(x, LSD_GE, K(10));           /* true */
	lsd_cond_t f = lsd_cmp(y, LSD_EQ, K(21));           /* false */
	answers |= lsd_is_true(lsd_and(a, b)) << 0;                     /* 1 */
	answers |= lsd_is_true(lsd_and(a, f)) << 1;                     /* 0 */
	answers |= lsd_is_true(lsd_and(f, a)) << 2;                     /* 0 */
	answers |= lsd_is_true(lsd_and(lsd_and(a, b), lsd_and(b, a))) << 3;   /* 1 */
	lsd_cond_t deep = a;
	for (int i = 0; i < 10; i++)
		deep = lsd_and(deep, b);
	answers |= lsd_is_true(deep) << 4;                               /* 1 */
	answers |= lsd_is_true(lsd_and(deep, f)) << 5;                   /* 0 */
	TM_END();
	ck_assert_int_eq(answers, 1 | 8 | 16);
	stop();
}
END_TEST

START_TEST(read_your_concrete_writes)
{
	start();
	w[0] = 1;
	w[1] = 2;
	volatile int64_t seen = 0;
	TM_BEGIN();
	/* A future read before a concrete write is the value before it ... */
	lsd_val_t before = lsd_read(&w[0]);
	TM_STORE(&w[0], 100);
	/* ... one read after it is the value written. */
	lsd_val_t after = lsd_read(&w[0]);
	lsd_write(&w[1], lsd_add(lsd_mul(before, K(1000)), after));
	seen = lsd_value(after);
	TM_END();
	ck_assert_int_eq(seen, 100);
	ck_assert_int_eq(w[0], 100);
	ck_assert_int_eq(w[1], 1100);
	stop();
}
END_TEST

START_TEST(read_your_lazy_writes)
{
	start();
	w[0] = 5;
	w[1] = 0;
	w[2] = 0;
	volatile int64_t seen = 0;
	TM_BEGIN();
	lsd_val_t x = lsd_read(&w[0]);
	lsd_write(&w[0], lsd_add(x, K(1)));
	/* The future of a lazily written word is the expression written. */
	lsd_val_t x1 = lsd_read(&w[0]);
	lsd_write(&w[1], lsd_mul(x1, K(2)));
	lsd_write(&w[0], lsd_add(x1, K(1)));
	if (lsd_is_true(lsd_cmp(lsd_read(&w[0]), LSD_EQ, K(7))))
		lsd_write(&w[2], K(1));
	seen = lsd_value(lsd_read(&w[0]));
	TM_END();
	ck_assert_int_eq(seen, 7);
	ck_assert_int_eq(w[0], 7);
	ck_assert_int_eq(w[1], 12);
	ck_assert_int_eq(w[2], 1);
	stop();
}
END_TEST

START_TEST(lazy_writes_once_in_order)
{
	start();
	w[0] = 0;
	w[1] = 50;
	for (int round = 0; round < 3; round++) {
		TM_BEGIN();
		/* the last of several lazy writes of a word wins */
		lsd_write(&w[0], K(1));
		lsd_write(&w[0], K(2));
		lsd_write(&w[0], K(3));
		/* each applied once: +1 per transaction */
		lsd_write(&w[1], lsd_add(lsd_read(&w[1]), K(1)));
		TM_END();
	}
	ck_assert_int_eq(w[0], 3);
	ck_assert_int_eq(w[1], 53);
	/* A lazy write after a concrete one of the same word wins; the
	 * concrete one's value is what its future saw. */
	TM_BEGIN();
	TM_STORE(&w[0], 40);
	lsd_write(&w[0], lsd_add(lsd_read(&w[0]), K(2)));
	TM_END();
	ck_assert_int_eq(w[0], 42);
	/* 32-bit halves of one word, lazily, one after the other. */
	h[0] = 1;
	h[1] = 2;
	TM_BEGIN();
	lsd_write_i32(&h[0], lsd_add(lsd_read_i32(&h[1]), K(10)));
	lsd_write_i32(&h[1], lsd_add(lsd_read_i32(&h[0]), K(100)));
	TM_END();
	ck_assert_int_eq(h[0], 12);
	ck_assert_int_eq(h[1], 112);
	stop();
}
END_TEST

START_TEST(value_binds)
{
	start();
	w[0] = 9;
	w[1] = 0;
	volatile int64_t v = 0;
	TM_BEGIN();
	lsd_val_t x = lsd_read(&w[0]);
	v = lsd_value(x);
	/* A bound future keeps its value: the condition and the write use it. */
	if (lsd_is_true(lsd_cmp(x, LSD_EQ, K(v))))
		lsd_write(&w[1], lsd_add(x, K(v)));
	TM_END();
	ck_assert_int_eq(v, 9);
	ck_assert_int_eq(w[1], 18);
	stop();
}
END_TEST

START_TEST(cancel_and_restart_discard_lazy_writes)
{
	start();
	w[0] = 10;
	w[1] = 0;
	TM_BEGIN();
	lsd_write(&w[0], lsd_add(lsd_read(&w[0]), K(5)));
	TM_STORE(&w[1], 1);
	tm_cancel();
	TM_END();
	ck_assert(tm_was_cancelled());
	ck_assert_int_eq(w[0], 10);
	ck_assert_int_eq(w[1], 0);
	volatile int attempts = 0;
	TM_BEGIN();
	attempts++;
	lsd_write(&w[0], lsd_add(lsd_read(&w[0]), K(attempts)));
	if (attempts == 1)
		tm_restart();
	TM_END();
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(w[0], 12);
	stop();
}
END_TEST

START_TEST(read_only_with_conditions)
{
	start();
	w[0] = 3;
	volatile bool yes = false, no = true;
	TM_BEGIN();
	lsd_val_t x = lsd_read(&w[0]);
	yes = lsd_is_true(lsd_cmp(x, LSD_GT, K(2)));
	no = lsd_is_true(lsd_cmp(x, LSD_GT, K(3)));
	TM_END();
	ck_assert(yes);
	ck_assert(!no);
	/* Nothing changed under it: no software abort (a hardware backend
	 * under an emulator counts its failed hardware attempts). */
	tm_stats_t s;
	ck_assert_int_eq(tm_thread_stats(&s), 0);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 0);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_VALIDATE], 0);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_READ_VERSION], 0);
	stop();
}
END_TEST

/* A transaction of lazy writes, then n / 2 concrete ones, then LSD calls
 * again, the same on every backend; with a small POTM_PROMOTE_WRITES tl2
 * escalates it among the concrete writes (it settles its LSD state and
 * goes on in place, eagerly). */
static void many_writes(int n)
{
	for (int i = 0; i < n; i++)
		w[i] = i;
	volatile int64_t x0 = 0;
	TM_BEGIN();
	lsd_val_t x = lsd_read(&w[0]);
	if (lsd_is_true(lsd_cmp(x, LSD_GE, K(0))))
		lsd_write(&w[0], lsd_add(x, K(1000)));
	for (int i = 1; i < 4; i++)
		lsd_write(&w[i], lsd_add(lsd_read(&w[i]), K(1000)));
	for (int i = n / 2; i < n; i++)
		TM_STORE(&w[i], TM_LOAD(&w[i]) + 2000);
	/* after the escalation: eager, the same answers */
	lsd_val_t again = lsd_read(&w[0]);
	lsd_write(&w[1], lsd_add(again, lsd_read(&w[1])));
	x0 = lsd_value(x);
	TM_END();
	ck_assert_int_eq(x0, 0);
	ck_assert_int_eq(w[0], 1000);
	ck_assert_int_eq(w[1], 1000 + 1001);
	for (int i = 2; i < 4; i++)
		ck_assert_int_eq(w[i], i + 1000);
	for (int i = 4; i < n / 2; i++)
		ck_assert_int_eq(w[i], i);
	for (int i = n / 2; i < n; i++)
		ck_assert_int_eq(w[i], i + 2000);
}

START_TEST(escalation_settles)
{
	setenv("POTM_PROMOTE_WRITES", "8", 1);
	start();
	many_writes(40);
	tm_stats_t s;
	ck_assert_int_eq(tm_thread_stats(&s), 0);
	if (IS("tl2"))
		ck_assert_uint_ge(s.promotions, 1);
	stop();
}
END_TEST

/* The escalation reached from a reservation (lsd_write's new word). */
START_TEST(escalation_from_lazy_write)
{
	setenv("POTM_PROMOTE_WRITES", "8", 1);
	start();
	for (int i = 0; i < 32; i++)
		w[i] = i;
	TM_BEGIN();
	lsd_val_t first = lsd_read(&w[0]);
	for (int i = 0; i < 32; i++)
		lsd_write(&w[i], lsd_add(lsd_read(&w[i]), first));
	lsd_write(&w[0], lsd_add(lsd_read(&w[0]), K(1)));   /* 0 + 0 + 1 */
	TM_END();
	ck_assert_int_eq(w[0], 1);
	for (int i = 1; i < 32; i++)
		ck_assert_int_eq(w[i], i);
	stop();
}
END_TEST

/* A long reader with a condition: tl2 shares its snapshot (R1) and
 * settles its condition first. */
START_TEST(shared_reader_settles)
{
	setenv("POTM_PROMOTE_READS", "8", 1);
	start();
	for (int i = 0; i < 64; i++)
		w[i] = 1;
	volatile long sum = 0;
	volatile bool held = false;
	TM_BEGIN();
	held = lsd_is_true(lsd_cmp(lsd_read(&w[0]), LSD_EQ, K(1)));
	long s = 0;
	for (int i = 0; i < 64; i++)
		s += TM_LOAD(&w[i]);
	sum = s;
	held = held && lsd_is_true(lsd_cmp(lsd_read(&w[1]), LSD_EQ, K(1)));
	TM_END();
	ck_assert_int_eq(sum, 64);
	ck_assert(held);
	tm_stats_t st;
	ck_assert_int_eq(tm_thread_stats(&st), 0);
	if (IS("tl2"))
		ck_assert_uint_ge(st.shared_reads, 1);
	stop();
}
END_TEST

/* Serial mode, asked for: tl2 runs the whole transaction in place and
 * resolves every LSD call at once. */
START_TEST(serial_mode)
{
	setenv("POTM_SERIAL", "1", 1);
	start();
	ck_assert_int_eq(tm_hint_serial(), 0);
	many_writes(20);
	stop();
}
END_TEST

/* ---- misuse: SIGABRT ------------------------------------------------------------- */

START_TEST(misuse_outside_transaction)
{
	start();
	(void)lsd_read(&w[0]);
}
END_TEST

static lsd_val_t kept;

START_TEST(misuse_previous_transaction)
{
	start();
	TM_BEGIN();
	kept = lsd_read(&w[0]);
	TM_END();
	TM_BEGIN();
	(void)lsd_value(kept);
	TM_END();
}
END_TEST

static lsd_val_t kept_known;

/* A known value (no node: its handle carries it) of an attempt that is
 * over, folded with a known value of the running one. */
START_TEST(misuse_previous_known)
{
	start();
	TM_BEGIN();
	kept_known = K(1);
	TM_END();
	TM_BEGIN();
	(void)lsd_add(K(2), kept_known);
	TM_END();
}
END_TEST

/* A known value's handle where a condition is expected. */
START_TEST(misuse_value_as_condition)
{
	start();
	TM_BEGIN();
	lsd_val_t v = K(1);
	lsd_cond_t c = { .k = v.k, .ref = v.ref };
	(void)lsd_is_true(c);
	TM_END();
}
END_TEST

/* Known values folded past LSD_MAX_DEPTH. */
START_TEST(misuse_known_too_deep)
{
	start();
	TM_BEGIN();
	lsd_val_t v = K(0);
	for (int i = 0; i <= LSD_MAX_DEPTH; i++)
		v = lsd_add(v, K(1));
	(void)lsd_value(v);
	TM_END();
}
END_TEST

START_TEST(misuse_uninitialized)
{
	start();
	TM_BEGIN();
	lsd_val_t none = { 0 };
	(void)lsd_add(lsd_read(&w[0]), none);
	TM_END();
}
END_TEST

START_TEST(misuse_too_deep)
{
	start();
	TM_BEGIN();
	lsd_val_t v = lsd_read(&w[0]);
	for (int i = 0; i <= LSD_MAX_DEPTH; i++)
		v = lsd_add(v, K(1));
	(void)lsd_value(v);
	TM_END();
}
END_TEST

START_TEST(max_depth_is_allowed)
{
	start();
	w[0] = 0;
	volatile int64_t v = 0;
	TM_BEGIN();
	lsd_val_t x = lsd_read(&w[0]);
	for (int i = 0; i < LSD_MAX_DEPTH; i++)
		x = lsd_add(x, K(1));
	v = lsd_value(x);
	TM_END();
	ck_assert_int_eq(v, LSD_MAX_DEPTH);
	stop();
}
END_TEST

START_TEST(misuse_too_many_nodes)
{
	start();
	TM_BEGIN();
	for (long i = 0; i <= LSD_MAX_NODES; i++)
		(void)lsd_const(i);
	TM_END();
}
END_TEST

static volatile int handed_over;

static void other_thread_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		TM_BEGIN();
		kept = lsd_read(&w[0]);
		TM_END();
		__atomic_store_n(&handed_over, 1, __ATOMIC_RELEASE);
	} else {
		while (!__atomic_load_n(&handed_over, __ATOMIC_ACQUIRE))
			;
		TM_BEGIN();
		(void)lsd_value(lsd_add(kept, lsd_read(&w[1])));
		TM_END();
	}
}

START_TEST(misuse_other_thread)
{
	start_tm();
	test_run_threads(2, other_thread_work);
}
END_TEST

/* ---- concurrency ------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define ACCOUNTS 32
#define INITIAL 100
#define TRANSFERS (100000 / SCALE)
static int64_t balance[ACCOUNTS];
static long bad_checks, refused;

/* In one read-only transaction: the total is exact and no balance is
 * negative. */
static bool bank_consistent(void)
{
	volatile bool ok = true;
	TM_BEGIN();
	int64_t sum = 0;
	bool neg = false;
	for (int i = 0; i < ACCOUNTS; i++) {
		int64_t b = TM_LOAD(&balance[i]);
		sum += b;
		neg |= b < 0;
	}
	ok = sum == (int64_t)ACCOUNTS * INITIAL && !neg;
	TM_END();
	return ok;
}

static void bank_work(unsigned id, unsigned n)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull * (id + 1);
	long mine_bad = 0, mine_refused = 0;
	for (long i = 0; i < TRANSFERS / (long)n; i++) {
		unsigned a = rng_next(&rng) % ACCOUNTS, b = rng_next(&rng) % (ACCOUNTS - 1);
		b += b >= a;
		int64_t amount = 1 + (int64_t)(rng_next(&rng) % 60);
		volatile bool moved = false;
		TM_BEGIN();
		lsd_val_t from = lsd_read(&balance[a]);
		moved = lsd_is_true(lsd_cmp(from, LSD_GE, K(amount)));
		if (moved) {
			lsd_write(&balance[a], lsd_sub(from, K(amount)));
			lsd_write(&balance[b], lsd_add(lsd_read(&balance[b]), K(amount)));
		}
		TM_END();
		mine_refused += !moved;
		if (i % 128 == 0 && !bank_consistent())
			mine_bad++;
	}
	__atomic_fetch_add(&bad_checks, mine_bad, __ATOMIC_RELAXED);
	__atomic_fetch_add(&refused, mine_refused, __ATOMIC_RELAXED);
}

static void bank(unsigned n)
{
	for (int i = 0; i < ACCOUNTS; i++)
		balance[i] = INITIAL;
	start_tm();
	test_run_threads(n, bank_work);
	int64_t total = 0;
	for (int i = 0; i < ACCOUNTS; i++) {
		ck_assert_int_ge(balance[i], 0);
		total += balance[i];
	}
	ck_assert_int_eq(total, (int64_t)ACCOUNTS * INITIAL);
	ck_assert_int_eq(bad_checks, 0);
	ck_assert_int_gt(refused, 0);   /* 60 against 100: some transfers must be refused */
	tm_shutdown();
}

START_TEST(bank_2) { bank(2); }
END_TEST
START_TEST(bank_8) { bank(8); }
END_TEST

#define HOT_INITIAL (30000 / SCALE)
#define HOT_TRIES (40000 / SCALE)   /* in all: more than the counter holds */
static int64_t hot;
static int64_t mine[8 * 8];         /* a word per thread, a line apart */
static long taken;

static void hot_work(unsigned id, unsigned n)
{
	long got = 0;
	for (long i = 0; i < HOT_TRIES / (long)n; i++) {
		volatile bool ok = false;
		TM_BEGIN();
		lsd_val_t v = lsd_read(&hot);
		ok = lsd_is_true(lsd_cmp(v, LSD_GE, K(1)));
		if (ok) {
			lsd_write(&hot, lsd_sub(v, K(1)));
			lsd_write(&mine[id * 8], lsd_add(lsd_read(&mine[id * 8]), K(1)));
		}
		TM_END();
		got += ok;
	}
	__atomic_fetch_add(&taken, got, __ATOMIC_RELAXED);
}

/* hot_work with the known value on the left of the condition and of the
 * lazy writes. */
static void hot_work_known_left(unsigned id, unsigned n)
{
	long got = 0;
	for (long i = 0; i < HOT_TRIES / (long)n; i++) {
		volatile bool ok = false;
		TM_BEGIN();
		lsd_val_t v = lsd_read(&hot);
		ok = lsd_is_true(lsd_cmp(K(1), LSD_LE, v));
		if (ok) {
			lsd_write(&hot, lsd_add(K(-1), v));
			lsd_write(&mine[id * 8], lsd_add(K(1), lsd_read(&mine[id * 8])));
		}
		TM_END();
		got += ok;
	}
	__atomic_fetch_add(&taken, got, __ATOMIC_RELAXED);
}

static bool known_left;

static void hot_counter(unsigned n)
{
	hot = HOT_INITIAL;
	taken = 0;
	memset(mine, 0, sizeof mine);
	start_tm();
	test_run_threads(n, known_left ? hot_work_known_left : hot_work);
	ck_assert_int_ge(hot, 0);
	ck_assert_int_eq(hot, HOT_INITIAL - taken);
	ck_assert_int_eq(hot, 0);   /* more tries than units */
	int64_t sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += mine[i * 8];
	ck_assert_int_eq(sum, taken);
	tm_shutdown();
}

START_TEST(hot_counter_2) { hot_counter(2); }
END_TEST
START_TEST(hot_counter_8) { hot_counter(8); }
END_TEST
/* Oversubscribed (8 threads on fewer cores), the known values on the
 * left: the short paths of lib/lsd.c for either side. */
START_TEST(hot_counter_known_left_8)
{
	known_left = true;
	hot_counter(8);
}
END_TEST

/* Conditions on two words that writers keep opposite (y == -x) and move
 * together: a committed transaction's answers come from one state, so
 * "x >= 2" and "y <= -2" agree, whatever its peeks met (tl2 reads a word
 * a committer holds without waiting, O6) and however many threads run
 * (8 here, more than the cores).  Half the threads write, half read. */
#define AGREE_ROUNDS (4000 / SCALE)
static int64_t ax[8], ay[8];   /* x at [0], y at [7]: different lines */
static long disagreed, agreed_true, agreed_false;

static void agree_work(unsigned id, unsigned n)
{
	(void)n;
	long dis = 0, yes = 0, no = 0;
	for (long i = 0; i < AGREE_ROUNDS; i++) {
		if (id % 2 == 0) {
			TM_BEGIN();
			int64_t v = (TM_LOAD(&ax[0]) + 1) % 4;
			TM_STORE(&ax[0], v);
			TM_STORE(&ay[7], -v);
			TM_END();
			continue;
		}
		volatile bool a = false, b = false;
		TM_BEGIN();
		a = lsd_is_true(lsd_cmp(lsd_read(&ax[0]), LSD_GE, K(2)));
		b = lsd_is_true(lsd_cmp(K(-2), LSD_GE, lsd_read(&ay[7])));
		TM_END();
		dis += a != b;
		yes += a && b;
		no += !a && !b;
	}
	__atomic_fetch_add(&disagreed, dis, __ATOMIC_RELAXED);
	__atomic_fetch_add(&agreed_true, yes, __ATOMIC_RELAXED);
	__atomic_fetch_add(&agreed_false, no, __ATOMIC_RELAXED);
}

START_TEST(conditions_agree_at_commit_8)
{
	start_tm();
	test_run_threads(8, agree_work);
	ck_assert_int_eq(disagreed, 0);
	ck_assert_int_eq(agreed_true + agreed_false, 4 * AGREE_ROUNDS);
	ck_assert_int_eq(ax[0], -ay[7]);
	tm_shutdown();
}
END_TEST

/* tl2 and silo, step by step (thread 0 commits in the middle of thread
 * 1's transaction; they run side by side, holding no lock before the
 * commit).  stock starts at 10; thread 1 asks for 5 while thread 0 takes
 * `take'. */
static int64_t stock, shipped;
static volatile int step;
static volatile int attempts, branch_then, branch_else;
static int64_t take;
static bool writer_lazy;

static void wait_step(int s)
{
	while (__atomic_load_n(&step, __ATOMIC_ACQUIRE) < s)
		;
}

static void interleave_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		wait_step(1);
		TM_BEGIN();
		if (writer_lazy)
			lsd_write(&stock, lsd_sub(lsd_read(&stock), K(take)));
		else
			TM_STORE(&stock, TM_LOAD(&stock) - take);
		TM_END();
		__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
		return;
	}
	TM_BEGIN();
	attempts++;
	lsd_val_t s = lsd_read(&stock);
	if (lsd_is_true(lsd_cmp(s, LSD_GE, K(5)))) {
		branch_then++;
		lsd_write(&stock, lsd_sub(s, K(5)));
		lsd_write(&shipped, lsd_add(lsd_read(&shipped), K(5)));
	} else {
		branch_else++;
	}
	if (attempts == 1) {
		__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
		wait_step(2);
	}
	TM_END();
}

static tm_stats_t interleave(int64_t taken_by_other, bool lazy)
{
	stock = 10;
	shipped = 0;
	take = taken_by_other;
	writer_lazy = lazy;
	start_tm();
	test_run_threads(2, interleave_work);
	tm_stats_t s;
	tm_stats(&s);
	tm_shutdown();
	return s;
}

START_TEST(condition_still_true_commits)
{
	/* 10 - 3 = 7 >= 5: condition validation passes, no re-execution */
	tm_stats_t s = interleave(3, false);
	ck_assert_int_eq(attempts, 1);
	ck_assert_int_eq(branch_then, 1);
	ck_assert_int_eq(stock, 2);
	ck_assert_int_eq(shipped, 5);
	ck_assert_uint_eq(s.aborts, 0);
}
END_TEST

START_TEST(condition_turned_false_reexecutes)
{
	/* 10 - 6 = 4 < 5: the first attempt's answer changed; the second
	 * takes the other branch */
	tm_stats_t s = interleave(6, true);
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(branch_then, 1);
	ck_assert_int_eq(branch_else, 1);
	ck_assert_int_eq(stock, 4);
	ck_assert_int_eq(shipped, 0);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 1);
	ck_assert_str_eq(tm_abort_cause_name(TM_ABORT_CONDITION), "condition");
}
END_TEST

/* A read-only transaction validates its conditions too. */
static void ro_interleave_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		wait_step(1);
		TM_BEGIN();
		TM_STORE(&stock, 0);
		TM_END();
		__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
		return;
	}
	TM_BEGIN();
	attempts++;
	if (lsd_is_true(lsd_cmp(lsd_read(&stock), LSD_GT, K(0))))
		branch_then++;
	else
		branch_else++;
	if (attempts == 1) {
		__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
		wait_step(2);
	}
	TM_END();
}

START_TEST(read_only_condition_turned_false)
{
	stock = 10;
	start_tm();
	test_run_threads(2, ro_interleave_work);
	tm_stats_t s;
	tm_stats(&s);
	tm_shutdown();
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(branch_then, 1);
	ck_assert_int_eq(branch_else, 1);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 1);
}
END_TEST

/* Two conditions on one future, peeked on two states, and a commit on a
 * third that gives the first peek's value again: the second answer no
 * longer holds, and the commit must see it (L7: a future peeked with two
 * values makes the commit evaluate every condition). */
static void two_peeks_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		wait_step(1);
		TM_BEGIN();
		TM_STORE(&stock, 3);
		TM_END();
		__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
		wait_step(3);
		TM_BEGIN();
		TM_STORE(&stock, 10);
		TM_END();
		__atomic_store_n(&step, 4, __ATOMIC_RELEASE);
		return;
	}
	TM_BEGIN();
	attempts++;
	lsd_val_t s = lsd_read(&stock);
	bool at_least_5 = lsd_is_true(lsd_cmp(s, LSD_GE, K(5)));
	if (attempts == 1) {
		__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
		wait_step(2);
	}
	bool at_most_8 = lsd_is_true(lsd_cmp(s, LSD_LE, K(8)));
	if (at_least_5 && !at_most_8)
		branch_then++;
	else
		branch_else++;
	if (attempts == 1) {
		__atomic_store_n(&step, 3, __ATOMIC_RELEASE);
		wait_step(4);
	}
	TM_END();
}

START_TEST(two_peeks_two_values)
{
	stock = 10;
	start_tm();
	test_run_threads(2, two_peeks_work);
	tm_stats_t s;
	tm_stats(&s);
	tm_shutdown();
	/* the first attempt answered true (10 >= 5) and true (3 <= 8): at 10
	 * the second is false, so it re-executes and sees 10 twice */
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(branch_else, 1);
	ck_assert_int_eq(branch_then, 1);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_CONDITION], 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lsd_" POTM_BACKEND_NAME);
	TCase *sem = tcase_create("semantics");
	tcase_add_test(sem, expressions);
	tcase_add_test(sem, known_operand_either_side);
	tcase_add_test(sem, wrap_around);
	tcase_add_test(sem, comparisons);
	tcase_add_test(sem, and_nesting);
	tcase_add_test(sem, read_your_concrete_writes);
	tcase_add_test(sem, read_your_lazy_writes);
	tcase_add_test(sem, lazy_writes_once_in_order);
	tcase_add_test(sem, value_binds);
	if (CAN_ROLL_BACK)
		tcase_add_test(sem, cancel_and_restart_discard_lazy_writes);
	tcase_add_test(sem, read_only_with_conditions);
	tcase_add_test(sem, escalation_settles);
	tcase_add_test(sem, escalation_from_lazy_write);
	tcase_add_test(sem, shared_reader_settles);
	tcase_add_test(sem, serial_mode);
	tcase_add_test(sem, max_depth_is_allowed);
	suite_add_tcase(s, sem);

	TCase *mis = tcase_create("misuse");
	tcase_add_test_raise_signal(mis, misuse_outside_transaction, SIGABRT);
	tcase_add_test_raise_signal(mis, misuse_previous_transaction, SIGABRT);
	tcase_add_test_raise_signal(mis, misuse_uninitialized, SIGABRT);
	tcase_add_test_raise_signal(mis, misuse_previous_known, SIGABRT);
	tcase_add_test_raise_signal(mis, misuse_value_as_condition, SIGABRT);
	tcase_add_test_raise_signal(mis, misuse_known_too_deep, SIGABRT);
	tcase_add_test_raise_signal(mis, misuse_too_deep, SIGABRT);
	tcase_add_test_raise_signal(mis, misuse_too_many_nodes, SIGABRT);
	/* Two threads; pot's order would make the second wait for a turn
	 * the first never passes while it spins. */
	if (!IS("seq") && strncmp(POTM_BACKEND_NAME, "pot", 3) != 0)
		tcase_add_test_raise_signal(mis, misuse_other_thread, SIGABRT);
	suite_add_tcase(s, mis);

	if (!IS("seq")) {
		TCase *conc = tcase_create("concurrency");
		tcase_set_timeout(conc, 300);
		tcase_add_test(conc, bank_2);
		tcase_add_test(conc, bank_8);
		tcase_add_test(conc, hot_counter_2);
		tcase_add_test(conc, hot_counter_8);
		tcase_add_test(conc, hot_counter_known_left_8);
		tcase_add_test(conc, conditions_agree_at_commit_8);
		if (IS("tl2") || IS("silo")) {
			tcase_add_test(conc, condition_still_true_commits);
			tcase_add_test(conc, condition_turned_false_reexecutes);
			tcase_add_test(conc, read_only_condition_turned_false);
			tcase_add_test(conc, two_peeks_two_values);
		}
		suite_add_tcase(s, conc);
	}
	return potm_check_run(s);
}
