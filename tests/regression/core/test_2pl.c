/*
 * The 2pl backend's own rules (stm/2pl.c), each through a program whose
 * result tells whether the rule held:
 *
 *  deadlock      two threads lock two words in opposite orders, and
 *                threads that read then write one word (an upgrade each):
 *                wait-die lets every transaction finish, counts exact;
 *  readers       every thread holds one word's read lock at once (each
 *                waits inside its transaction for all the others: with
 *                exclusive reads none would ever get there); a writer
 *                started meanwhile cannot commit until they end, and they
 *                see the word unchanged;
 *  conditions    (LSD, condition locking) conditional decrements of a hot
 *                counter at 2 and 8 threads never take it below 0 and sum
 *                up exactly; two decrements hold condition and
 *                write-function locks on the counter at once (one commits
 *                while the other waits inside its transaction); a lazy
 *                writer whose value keeps another's held condition commits
 *                while that one holds it, and one whose value would break
 *                it does not commit until the holder ends (it is refused,
 *                cause "condition"); a concrete writer is refused too.
 */
#include <potm/lsd.h>
#include <potm/tm.h>

#include <check.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "test_init.h"
#include "test_threads.h"

#if defined(__SANITIZE_ADDRESS__)
#define SCALE 4
#else
#define SCALE 1
#endif

static void start_tm(void)
{
	test_tm_init(NULL);
	ck_assert_str_eq(tm_backend_name(), "2pl");
}

static int64_t k_(int64_t v)
{
	return v;
}
#define K(v) lsd_const(k_(v))

static void wait_at_least(const volatile long *w, long v)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < v)
		sched_yield();
}

/* Words a page apart: distinct stripes under any POTM_STRIPE_SHIFT. */
static long words[4 * 512];
#define A (&words[0])
#define B (&words[512])

/* ---- deadlock ------------------------------------------------------------------ */

#define ROUNDS (4000 / SCALE)

static void opposite_work(unsigned id, unsigned n)
{
	(void)n;
	long *first = id % 2 ? B : A, *second = id % 2 ? A : B;
	for (long i = 0; i < ROUNDS; i++) {
		TM_BEGIN();
		TM_STORE(first, TM_LOAD(first) + 1);
		for (int s = 0; s < 50; s++)   /* widen the window between the two */
			__asm__ __volatile__("" ::: "memory");
		TM_STORE(second, TM_LOAD(second) + 1);
		TM_END();
	}
}

static void opposite(unsigned n)
{
	*A = *B = 0;
	start_tm();
	test_run_threads(n, opposite_work);
	ck_assert_int_eq(*A, (long)n * ROUNDS);
	ck_assert_int_eq(*B, (long)n * ROUNDS);
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	ck_assert_uint_eq(s.commits, (uint64_t)n * ROUNDS);
	/* wait-die's aborts only: a lock that died, nothing else */
	ck_assert_uint_eq(s.aborts, s.aborts_by_cause[TM_ABORT_READ_LOCKED] +
	                                s.aborts_by_cause[TM_ABORT_WRITE_LOCKED]);
	tm_shutdown();
}

START_TEST(opposite_order_2) { opposite(2); }
END_TEST
START_TEST(opposite_order_8) { opposite(8); }
END_TEST

static void upgrade_work(unsigned id, unsigned n)
{
	(void)id;
	(void)n;
	for (long i = 0; i < ROUNDS; i++) {
		TM_BEGIN();
		long v = TM_LOAD(A);   /* R, then W: an upgrade */
		TM_STORE(A, v + 1);
		TM_END();
	}
}

START_TEST(upgrades_8)
{
	*A = 0;
	start_tm();
	test_run_threads(8, upgrade_work);
	ck_assert_int_eq(*A, 8L * ROUNDS);
	tm_shutdown();
}
END_TEST

/* ---- readers ------------------------------------------------------------------- */

#define READERS 4
static volatile long inside, writer_attempts, writer_done;
static volatile long seen_before[READERS], seen_after[READERS];

static void readers_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == READERS) {   /* the writer, younger than every reader */
		wait_at_least(&inside, READERS);
		TM_BEGIN();
		__atomic_fetch_add(&writer_attempts, 1, __ATOMIC_RELEASE);
		TM_STORE(A, TM_LOAD(A) + 1);
		TM_END();
		__atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
		return;
	}
	volatile bool counted = false;
	TM_BEGIN();
	seen_before[id] = TM_LOAD(A);
	if (!counted) {
		counted = true;
		__atomic_fetch_add(&inside, 1, __ATOMIC_RELEASE);
	}
	/* Every reader holds A's read lock at once; the writer has tried and
	 * been refused at least once meanwhile. */
	wait_at_least(&inside, READERS);
	wait_at_least(&writer_attempts, 2);
	ck_assert_int_eq(__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE), 0);
	seen_after[id] = TM_LOAD(A);
	TM_END();
}

START_TEST(readers_share_writer_waits)
{
	*A = 0;
	start_tm();
	test_run_threads(READERS + 1, readers_work);
	for (int i = 0; i < READERS; i++) {
		ck_assert_int_eq(seen_before[i], 0);
		ck_assert_int_eq(seen_after[i], 0);
	}
	ck_assert_int_eq(*A, 1);
	ck_assert_int_ge(writer_attempts, 2);
	tm_shutdown();
}
END_TEST

/* ---- condition locking ---------------------------------------------------------- */

#define HOT (20000 / SCALE)
#define TRIES (30000 / SCALE)
static int64_t hot;
static int64_t got[8 * 8];
static volatile long low_seen;

static void hot_work(unsigned id, unsigned n)
{
	for (long i = 0; i < TRIES / (long)n; i++) {
		TM_BEGIN();
		lsd_val_t v = lsd_read(&hot);
		if (lsd_is_true(lsd_cmp(v, LSD_GE, K(1)))) {
			lsd_write(&hot, lsd_sub(v, K(1)));
			lsd_write(&got[id * 8], lsd_add(lsd_read(&got[id * 8]), K(1)));
		}
		TM_END();
		if (i % 64 == 0) {
			long now;
			TM_BEGIN();
			now = TM_LOAD(&hot);
			TM_END();
			if (now < 0)
				__atomic_store_n(&low_seen, 1, __ATOMIC_RELAXED);
		}
	}
}

static void hot_counter(unsigned n)
{
	hot = HOT;
	memset(got, 0, sizeof got);
	low_seen = 0;
	start_tm();
	test_run_threads(n, hot_work);
	ck_assert_int_eq(low_seen, 0);
	ck_assert_int_eq(hot, 0);   /* more tries than units */
	int64_t sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += got[i * 8];
	ck_assert_int_eq(sum, HOT);
	tm_shutdown();
}

START_TEST(hot_counter_2) { hot_counter(2); }
END_TEST
START_TEST(hot_counter_8) { hot_counter(8); }
END_TEST

/* Thread 0 takes a condition (and, with lazy, a write-function lock) on
 * stock, then waits inside its transaction; thread 1, once the condition
 * is held, writes stock with `second', a lazy or concrete write of stock
 * - take, and commits or is refused.  Thread 0 goes on once thread 1
 * committed or tried twice. */
static int64_t stock;
static volatile long holder_attempts, holder_holds, writer_tries, writer_committed,
	holder_saw_commit;
static int64_t take;
static bool lazy_writer, holder_writes;

static void hold_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 1) {
		wait_at_least(&holder_holds, 1);
		TM_BEGIN();
		__atomic_fetch_add(&writer_tries, 1, __ATOMIC_RELEASE);
		if (lazy_writer)
			lsd_write(&stock, lsd_sub(lsd_read(&stock), K(take)));
		else
			TM_STORE(&stock, TM_LOAD(&stock) - take);
		TM_END();
		__atomic_store_n(&writer_committed, 1, __ATOMIC_RELEASE);
		return;
	}
	TM_BEGIN();
	__atomic_fetch_add(&holder_attempts, 1, __ATOMIC_RELEASE);
	lsd_val_t s = lsd_read(&stock);
	if (lsd_is_true(lsd_cmp(s, LSD_GE, K(5)))) {
		if (holder_writes)
			lsd_write(&stock, lsd_sub(s, K(5)));
		__atomic_store_n(&holder_holds, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&writer_committed, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&writer_tries, __ATOMIC_ACQUIRE) < 2)
			sched_yield();
		holder_saw_commit = __atomic_load_n(&writer_committed, __ATOMIC_ACQUIRE);
	}
	TM_END();
}

static tm_stats_t hold(int64_t t, bool lazy, bool holder_lazy)
{
	stock = 10;
	take = t;
	lazy_writer = lazy;
	holder_writes = holder_lazy;
	holder_attempts = holder_holds = writer_tries = writer_committed = holder_saw_commit = 0;
	start_tm();
	tm_stats_reset();
	test_run_threads(2, hold_work);
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();
	return s;
}

/* Two conditional decrements at once: 10 - 3 keeps stock >= 5. */
START_TEST(decrements_share_the_counter)
{
	tm_stats_t s = hold(3, true, true);
	ck_assert_int_eq(holder_saw_commit, 1);   /* committed beside the holder */
	ck_assert_int_eq(holder_attempts, 1);
	ck_assert_int_eq(writer_tries, 1);
	ck_assert_int_eq(stock, 10 - 3 - 5);
	ck_assert_uint_eq(s.aborts, 0);
}
END_TEST

/* 10 - 6 would break the holder's stock >= 5: refused until it ends. */
START_TEST(breaking_writer_waits_for_holder)
{
	tm_stats_t s = hold(6, true, false);
	ck_assert_int_eq(holder_saw_commit, 0);
	ck_assert_int_eq(holder_attempts, 1);
	ck_assert_int_ge(writer_tries, 2);
	ck_assert_int_eq(stock, 4);
	ck_assert_uint_ge(s.aborts_by_cause[TM_ABORT_CONDITION], 1);
	ck_assert_str_eq(tm_abort_cause_name(TM_ABORT_CONDITION), "condition");
}
END_TEST

/* The same with a holder that decrements too: the writer commits after
 * it, on 5, and takes stock to -1 (its write is unconditional). */
START_TEST(breaking_writer_after_decrement)
{
	tm_stats_t s = hold(6, true, true);
	ck_assert_int_eq(holder_saw_commit, 0);
	ck_assert_int_eq(holder_attempts, 1);
	ck_assert_int_eq(stock, 10 - 5 - 6);
	ck_assert_uint_ge(s.aborts, 1);
}
END_TEST

/* A concrete write needs W, which a condition lock keeps out. */
START_TEST(concrete_writer_waits_for_holder)
{
	tm_stats_t s = hold(1, false, false);
	ck_assert_int_eq(holder_saw_commit, 0);
	ck_assert_int_eq(holder_attempts, 1);
	ck_assert_int_eq(stock, 9);
	ck_assert_uint_ge(s.aborts_by_cause[TM_ABORT_WRITE_LOCKED], 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("2pl");
	TCase *dl = tcase_create("deadlock");
	tcase_set_timeout(dl, 300);
	tcase_add_test(dl, opposite_order_2);
	tcase_add_test(dl, opposite_order_8);
	tcase_add_test(dl, upgrades_8);
	suite_add_tcase(s, dl);
	TCase *rd = tcase_create("readers");
	tcase_add_test(rd, readers_share_writer_waits);
	suite_add_tcase(s, rd);
	TCase *cl = tcase_create("conditions");
	tcase_set_timeout(cl, 300);
	tcase_add_test(cl, hot_counter_2);
	tcase_add_test(cl, hot_counter_8);
	tcase_add_test(cl, decrements_share_the_counter);
	tcase_add_test(cl, breaking_writer_waits_for_holder);
	tcase_add_test(cl, breaking_writer_after_decrement);
	tcase_add_test(cl, concrete_writer_waits_for_holder);
	suite_add_tcase(s, cl);
	return potm_check_run(s);
}
