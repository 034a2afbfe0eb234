/*
 * Concurrency invariants, each under 2 threads and under oversubscription
 * (8 threads): bank totals over 10^6 transfers,
 * exact shared counters, opacity (a doomed transaction never sees an
 * inconsistent snapshot), byte ranges read across stripes, partly
 * written by the reader itself (tm_read_bytes: opacity and exact values),
 * sub-word writes racing on one word,
 * allocation churn with deferred reclamation, bulk frees with polled
 * grace periods, and the progress of long transactions among short
 * conflicting ones, also when they restart and cancel themselves after
 * writing (tl2's irrevocable mode rolls back in place) and when their
 * write set is large enough for tl2 to escalate them, and with long
 * readers that share their snapshot (tl2's reader shares).
 *
 * Workers register, meet at a tm barrier and only then run, and the main
 * thread stays unregistered: the start is deterministic on every backend
 * (a requirement of the deterministic ones).
 */
#include <potm/tm.h>

#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "test_init.h"
#include "test_threads.h"

/* Under ASan or an emulator (POTM_TEST_EMULATED, tests/CMakeLists.txt):
 * fewer operations, the same checks. */
#if defined(__SANITIZE_ADDRESS__) || defined(POTM_TEST_EMULATED)
#define SCALE 4
#else
#define SCALE 1
#endif

typedef test_work_fn work_fn;

/* Start the library (a backend this machine cannot run is a skip), then
 * run fn on n registered threads; returns after all have exited. */
static void run_threads(unsigned n, work_fn fn)
{
	test_tm_init(NULL);
	test_run_threads(n, fn);
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The sum of a[0..n), read in one transaction. */
static long tx_sum(const long *a, int n)
{
	volatile long sum = 0;
	TM_BEGIN();
	sum = 0;
	for (int k = 0; k < n; k++)
		sum += TM_LOAD(&a[k]);
	TM_END();
	return sum;
}

/* ---- bank ---------------------------------------------------------------- */

#define ACCOUNTS 64
#define INITIAL 1000
#define TRANSFERS (1000000 / SCALE / test_handoff_divisor())
static long accounts[ACCOUNTS];
static long bad_totals;   /* only written through transactions' outcome */

static void bank_work(unsigned id, unsigned n)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull * (id + 1);
	long mine_bad = 0;
	for (long i = 0; i < TRANSFERS / (long)n; i++) {
		unsigned a = rng_next(&rng) % ACCOUNTS, b = rng_next(&rng) % ACCOUNTS;
		long amount = (long)(rng_next(&rng) % 50);
		TM_BEGIN();
		TM_STORE(&accounts[a], TM_LOAD(&accounts[a]) - amount);
		TM_STORE(&accounts[b], TM_LOAD(&accounts[b]) + amount);
		TM_END();
		if (i % 256 == 0 && tx_sum(accounts, ACCOUNTS) != (long)ACCOUNTS * INITIAL)
			mine_bad++;
	}
	__atomic_fetch_add(&bad_totals, mine_bad, __ATOMIC_RELAXED);
}

static void bank(unsigned n)
{
	for (int i = 0; i < ACCOUNTS; i++)
		accounts[i] = INITIAL;
	run_threads(n, bank_work);
	long total = 0;
	for (int i = 0; i < ACCOUNTS; i++)
		total += accounts[i];
	ck_assert_int_eq(total, (long)ACCOUNTS * INITIAL);
	ck_assert_int_eq(bad_totals, 0);
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_ge(s.commits, (uint64_t)TRANSFERS - n);
	tm_shutdown();
}

START_TEST(bank_2) { bank(2); }
END_TEST
START_TEST(bank_8) { bank(8); }
END_TEST

/* ---- exact counters ---------------------------------------------------- */

#define INCREMENTS (100000 / SCALE / test_handoff_divisor())
static long counter;
static long slots[16];

static void counter_work(unsigned id, unsigned n)
{
	(void)n;
	for (int i = 0; i < INCREMENTS; i++) {
		TM_BEGIN();
		TM_STORE(&counter, TM_LOAD(&counter) + 1);
		TM_STORE(&slots[id], TM_LOAD(&slots[id]) + 1);
		TM_END();
	}
}

static void counters(unsigned n)
{
	run_threads(n, counter_work);
	ck_assert_int_eq(counter, (long)n * INCREMENTS);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(slots[i], INCREMENTS);
	tm_shutdown();
}

START_TEST(counters_2) { counters(2); }
END_TEST
START_TEST(counters_8) { counters(8); }
END_TEST

/* ---- opacity -------------------------------------------------------------
 * x + y == K always holds in committed states.  Readers check it *inside*
 * the transaction, between other reads: an opaque TM never lets even a
 * doomed attempt see x and y from different snapshots. */

#define K 1000000L
static struct { long x; long pad[15]; long y; long filler[64]; } pair = { .x = K };
static long opacity_violations;

static void opacity_work(unsigned id, unsigned n)
{
	uint64_t rng = id + 7;
	/* volatile: an increment made in a doomed attempt must survive its
	 * longjmp, or a violation would go uncounted. */
	volatile long seen_bad = 0;
	for (int i = 0; i < 40000 / SCALE / test_handoff_divisor(); i++) {
		if (id % 2 == 0) {
			long d = (long)(rng_next(&rng) % 100) - 50;
			TM_BEGIN();
			TM_STORE(&pair.x, TM_LOAD(&pair.x) - d);
			TM_STORE(&pair.filler[d & 63], d);
			TM_STORE(&pair.y, TM_LOAD(&pair.y) + d);
			TM_END();
		} else {
			TM_BEGIN();
			long x = TM_LOAD(&pair.x);
			long f = 0;
			for (int k = 0; k < 16; k++)
				f += TM_LOAD(&pair.filler[k * 4]);
			long y = TM_LOAD(&pair.y);
			(void)f;
			if (x + y != K)
				seen_bad++;   /* not rolled back: a plain local */
			TM_END();
		}
	}
	(void)n;
	__atomic_fetch_add(&opacity_violations, seen_bad, __ATOMIC_RELAXED);
}

/* Run opacity_work on n threads and check x + y, seen and final. */
static void opacity_run(unsigned n)
{
	run_threads(n, opacity_work);
	ck_assert_int_eq(opacity_violations, 0);
	ck_assert_int_eq(pair.x + pair.y, K);
}

static void opacity(unsigned n)
{
	opacity_run(n);
	tm_shutdown();
}

START_TEST(opacity_2) { opacity(2); }
END_TEST
START_TEST(opacity_8) { opacity(8); }
END_TEST

/* ---- byte ranges (tm_read_bytes) ----------------------------------------
 * Every committed state of rb_buf is one pattern: byte i is g + 13 i (mod
 * 256) for some g.  Writers rewrite it whole with a new g (bytes at the
 * ends, words between, the words from the top down).  Readers copy a
 * random range, crossing stripes at any alignment, and check that it is
 * one pattern; writers and readers use tm_write_bytes for every other
 * range.  Every third reader transaction first writes a new pattern
 * over part of the buffer and reads a range across it (its own bytes
 * there, the snapshot's elsewhere), then writes the rest.  Every check is
 * made inside the transaction: an opaque TM never lets even a doomed
 * attempt see two patterns. */

#define RB_LEN 300
static unsigned char rb_buf[RB_LEN + 5] __attribute__((aligned(64)));
#define RB (rb_buf + 3)   /* no word boundary where a stripe begins */
static long rb_violations;

static unsigned char rb_byte(unsigned g, size_t i)
{
	return (unsigned char)(g + 13 * i);
}

/* Write pattern g over [lo, hi) of RB. */
static void rb_write_pattern(unsigned g, size_t lo, size_t hi)
{
	size_t i = lo;
	for (; i < hi && ((uintptr_t)(RB + i) & 7); i++)
		TM_STORE(&RB[i], rb_byte(g, i));
	size_t words_end = i + (hi - i) / 8 * 8;
	for (size_t w = words_end; w > i; w -= 8) {
		uint64_t v;
		unsigned char b[8];
		for (unsigned k = 0; k < 8; k++)
			b[k] = rb_byte(g, w - 8 + k);
		memcpy(&v, b, 8);
		tm_write_u64((uint64_t *)(void *)(RB + w - 8), v);
	}
	for (i = words_end; i < hi; i++)
		TM_STORE(&RB[i], rb_byte(g, i));
}

/* The same through tm_write_bytes: one range (tl2 and silo buffer it a
 * word per entry, its partial first and last words under byte masks). */
static void rb_write_range(unsigned g, size_t lo, size_t hi)
{
	unsigned char b[RB_LEN];
	for (size_t i = lo; i < hi; i++)
		b[i - lo] = rb_byte(g, i);
	tm_write_bytes(RB + lo, b, hi - lo);
}

/* The pattern of the n bytes at got, which are RB[off, off + n): its g,
 * or -1 if they are not one pattern. */
static int rb_pattern_of(const unsigned char *got, size_t off, size_t n)
{
	unsigned g = (unsigned char)(got[0] - 13 * off);
	for (size_t j = 0; j < n; j++)
		if (got[j] != rb_byte(g, off + j))
			return -1;
	return (int)g;
}

static void read_bytes_work(unsigned id, unsigned n)
{
	uint64_t rng = id * 31 + 5;
	volatile long seen_bad = 0;   /* survives the longjmp of an abort */
	(void)n;
	for (int i = 0; i < 20000 / SCALE / test_handoff_divisor(); i++) {
		size_t off = rng_next(&rng) % RB_LEN;
		size_t len = 1 + rng_next(&rng) % (RB_LEN - off);
		unsigned g1 = (unsigned)rng_next(&rng) & 255;
		if (id % 2 == 0) {
			TM_BEGIN();
			if (i % 2)
				rb_write_range(g1, 0, RB_LEN);
			else
				rb_write_pattern(g1, 0, RB_LEN);
			TM_END();
		} else if (i % 3 != 0) {
			unsigned char got[RB_LEN];
			TM_BEGIN();
			tm_read_bytes(got, RB + off, len);
			if (rb_pattern_of(got, off, len) < 0)
				seen_bad++;
			TM_END();
		} else {
			/* Write g1 over [lo, hi), read [off, off + len) across it. */
			size_t lo = rng_next(&rng) % RB_LEN;
			size_t hi = lo + rng_next(&rng) % (RB_LEN - lo + 1);
			unsigned char got[RB_LEN];
			TM_BEGIN();
			unsigned char first;
			tm_read_bytes(&first, RB, 1);
			unsigned g0 = first;
			if (i % 2)
				rb_write_range(g1, lo, hi);
			else
				rb_write_pattern(g1, lo, hi);
			tm_read_bytes(got, RB + off, len);
			for (size_t j = 0; j < len; j++) {
				size_t at = off + j;
				unsigned g = at >= lo && at < hi ? g1 : g0;
				if (got[j] != rb_byte(g, at)) {
					seen_bad++;
					break;
				}
			}
			rb_write_pattern(g1, 0, lo);
			rb_write_pattern(g1, hi, RB_LEN);
			TM_END();
		}
	}
	__atomic_fetch_add(&rb_violations, seen_bad, __ATOMIC_RELAXED);
}

static void read_bytes_opacity(unsigned n)
{
	for (size_t i = 0; i < RB_LEN; i++)
		RB[i] = rb_byte(0, i);
	run_threads(n, read_bytes_work);
	ck_assert_int_eq(rb_violations, 0);
	ck_assert_int_ge(rb_pattern_of(RB, 0, RB_LEN), 0);
	tm_shutdown();
}

START_TEST(read_bytes_opacity_2) { read_bytes_opacity(2); }
END_TEST
START_TEST(read_bytes_opacity_8) { read_bytes_opacity(8); }
END_TEST

/* ---- sub-word writes racing on one word ------------------------------- */

static union { uint64_t w; uint8_t b[8]; } shared_word;

static void bytes_work(unsigned id, unsigned n)
{
	(void)n;
	for (int i = 0; i < 20000 / SCALE; i++) {
		TM_BEGIN();
		TM_STORE(&shared_word.b[id], (uint8_t)(TM_LOAD(&shared_word.b[id]) + 1));
		TM_END();
	}
}

static void bytes(unsigned n)
{
	run_threads(n, bytes_work);
	for (unsigned i = 0; i < 8; i++)
		ck_assert_uint_eq(shared_word.b[i], i < n ? (uint8_t)(20000 / SCALE) : 0);
	tm_shutdown();
}

START_TEST(bytes_2) { bytes(2); }
END_TEST
START_TEST(bytes_8) { bytes(8); }
END_TEST

/* ---- allocation churn ---------------------------------------------------
 * A sorted linked list of keys 0..63: threads insert (tm_malloc) and
 * remove (tm_free) concurrently; removed nodes are reclaimed only after a
 * grace period, so concurrent readers never touch freed memory (ASan
 * would report it). */

struct node { long key; struct node *next; };
static struct node head = { -1, NULL };
static long net_inserts;

static void list_work(unsigned id, unsigned n)
{
	(void)n;
	uint64_t rng = id * 31 + 1;
	long mine = 0;
	for (int i = 0; i < 20000 / SCALE / test_handoff_divisor(); i++) {
		long key = (long)(rng_next(&rng) % 64);
		bool insert = rng_next(&rng) & 1;
		volatile int delta = 0;
		TM_BEGIN();
		delta = 0;
		struct node *prev = &head, *cur = TM_LOAD(&head.next);
		while (cur && TM_LOAD(&cur->key) < key) {
			prev = cur;
			cur = TM_LOAD(&cur->next);
		}
		bool found = cur && TM_LOAD(&cur->key) == key;
		if (insert && !found) {
			struct node *nn = tm_malloc(sizeof *nn);
			TM_STORE(&nn->key, key);
			TM_STORE(&nn->next, cur);
			TM_STORE(&prev->next, nn);
			delta = 1;
		} else if (!insert && found) {
			TM_STORE(&prev->next, TM_LOAD(&cur->next));
			tm_free(cur);
			delta = -1;
		}
		TM_END();
		mine += delta;
	}
	__atomic_fetch_add(&net_inserts, mine, __ATOMIC_RELAXED);
}

static void list_churn(unsigned n)
{
	run_threads(n, list_work);
	long count = 0, last = -1;
	for (struct node *c = head.next; c; c = c->next) {
		ck_assert_int_gt(c->key, last);
		last = c->key;
		count++;
	}
	ck_assert_int_eq(count, net_inserts);
	tm_reclaim_barrier();
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.reclaimed, s.frees);
	ck_assert_uint_eq(s.allocs - s.frees, (uint64_t)count);
	while (head.next) {
		struct node *c = head.next;
		head.next = c->next;
		free(c);
	}
	tm_shutdown();
}

START_TEST(list_2) { list_churn(2); }
END_TEST
START_TEST(list_8) { list_churn(8); }
END_TEST

/* ---- bulk frees -----------------------------------------------------------
 * A table of BULK blocks that some transactions replace all at once (a
 * batch big enough for a polled grace period of its own, lib/reclaim.c Q2)
 * while the others read every block's contents with plain loads, as
 * STMBench7 reads its text chunks.  A block is immutable once published.
 * glibc's free() overwrites a block's first words, so an attempt that
 * reached a freed block, even one that would have aborted, finds a broken
 * seal (and ASan reports it).  Every attempt must also see one generation
 * in all blocks (opacity). */

#define BULK 256
#define BULK_SEAL 0x5ea15ea15ea15ea1ull
#define BULK_OPS (400 / SCALE)
struct bulk_block { uint64_t seal; uint64_t gen; uint64_t seal2; };
static struct bulk_block *bulk[BULK];
static long bulk_broken, bulk_mixed, bulk_replaced;

static void bulk_work(unsigned id, unsigned n)
{
	(void)n;
	uint64_t rng = 0x2545f4914f6cdd1dull * (id + 1);
	long broken = 0, mixed = 0, replaced = 0;
	for (int i = 0; i < BULK_OPS; i++) {
		if (rng_next(&rng) % 4 == 0) {
			TM_BEGIN();
			for (unsigned k = 0; k < BULK; k++) {
				struct bulk_block *old = TM_LOAD(&bulk[k]);
				struct bulk_block *nb = tm_malloc(sizeof *nb);
				/* Not yet published: plain stores. */
				nb->seal = nb->seal2 = BULK_SEAL;
				nb->gen = old->gen + 1;
				TM_STORE(&bulk[k], nb);
				tm_free(old);
			}
			TM_END();
			replaced++;
			continue;
		}
		/* The pointers first, then the contents, several times: a
		 * transaction keeps what it loaded for as long as it runs, and
		 * a writer may commit and free meanwhile. */
		const struct bulk_block *seen[BULK];
		volatile long seen_broken = 0, seen_mixed = 0;
		TM_BEGIN();
		for (unsigned k = 0; k < BULK; k++)
			seen[k] = TM_LOAD(&bulk[k]);
		for (int pass = 0; pass < 64; pass++) {
			uint64_t gen0 = seen[0]->gen;
			for (unsigned k = 0; k < BULK; k++) {
				const struct bulk_block *b = seen[k];
				if (b->seal != BULK_SEAL || b->seal2 != BULK_SEAL)
					seen_broken++;
				else if (b->gen != gen0)
					seen_mixed++;
			}
		}
		TM_END();
		broken += seen_broken;
		mixed += seen_mixed;
	}
	__atomic_fetch_add(&bulk_broken, broken, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bulk_mixed, mixed, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bulk_replaced, replaced, __ATOMIC_RELAXED);
}

static void bulk_frees(unsigned n)
{
	for (unsigned k = 0; k < BULK; k++) {
		bulk[k] = malloc(sizeof *bulk[k]);
		*bulk[k] = (struct bulk_block){ BULK_SEAL, 0, BULK_SEAL };
	}
	bulk_broken = bulk_mixed = bulk_replaced = 0;
	run_threads(n, bulk_work);
	ck_assert_int_eq(bulk_broken, 0);
	ck_assert_int_eq(bulk_mixed, 0);
	ck_assert_int_gt(bulk_replaced, 0);
	for (unsigned k = 0; k < BULK; k++) {
		ck_assert_uint_eq(bulk[k]->seal, BULK_SEAL);
		ck_assert_uint_eq(bulk[k]->gen, (uint64_t)bulk_replaced);
	}
	tm_reclaim_barrier();
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.frees, (uint64_t)bulk_replaced * BULK);
	ck_assert_uint_eq(s.reclaimed, s.frees);
	for (unsigned k = 0; k < BULK; k++)
		free(bulk[k]);
	tm_shutdown();
}

START_TEST(bulk_2) { bulk_frees(2); }
END_TEST
START_TEST(bulk_8) { bulk_frees(8); }
END_TEST

/* ---- progress of a long transaction ---------------------------------------
 * One thread runs long transactions (a scan of BIG words, then a transfer)
 * while the others keep committing short transfers between random words.
 * Every scan must see the constant total (opacity), and every long
 * transaction must commit.  On tl2 a long transaction that keeps losing
 * takes the commit token, so its attempts are bounded. */

#define BIG 8192
#define LONG_TXS (40 / SCALE)
static long big[BIG];
static int long_done;
static unsigned long_attempts, long_max_attempts;
static long long_bad_sums;

/* One short transfer between two random words of big[]. */
static void big_transfer(uint64_t *rng)
{
	unsigned a = rng_next(rng) % BIG, b = rng_next(rng) % BIG;
	TM_BEGIN();
	TM_STORE(&big[a], TM_LOAD(&big[a]) - 1);
	TM_STORE(&big[b], TM_LOAD(&big[b]) + 1);
	TM_END();
}

/* After the threads: every transfer kept big[]'s total at 0. */
static void assert_big_balanced(void)
{
	long total = 0;
	for (int k = 0; k < BIG; k++)
		total += big[k];
	ck_assert_int_eq(total, 0);
}

static void progress_work(unsigned id, unsigned n)
{
	if (id == 0) {
		for (int t = 0; t < LONG_TXS; t++) {
			long_attempts = 0;
			volatile long sum = 0;
			TM_BEGIN();
			long_attempts++;
			sum = 0;
			for (int k = 0; k < BIG; k++)
				sum += TM_LOAD(&big[k]);
			TM_STORE(&big[t % BIG], TM_LOAD(&big[t % BIG]) - 1);
			TM_STORE(&big[(t + 1) % BIG], TM_LOAD(&big[(t + 1) % BIG]) + 1);
			TM_END();
			if (sum != 0)
				long_bad_sums++;
			if (long_attempts > long_max_attempts)
				long_max_attempts = long_attempts;
		}
		__atomic_store_n(&long_done, 1, __ATOMIC_RELEASE);
		return;
	}
	(void)n;
	uint64_t rng = 0x51ed2701a3b4c5d7ull * (id + 1);
	while (!__atomic_load_n(&long_done, __ATOMIC_ACQUIRE))
		big_transfer(&rng);
}

static void long_progress(unsigned n)
{
	memset(big, 0, sizeof big);
	long_done = 0;
	long_max_attempts = 0;
	long_bad_sums = 0;
	run_threads(n, progress_work);
	assert_big_balanced();
	ck_assert_int_eq(long_bad_sums, 0);
	/* tl2 takes the token after at most 32 aborts (TL2_STARVING_ABORTS),
	 * and the holder runs irrevocably: it cannot lose that attempt. */
	if (strcmp(POTM_BACKEND_NAME, "tl2") == 0)
		ck_assert_msg(long_max_attempts <= 32 + 1,
		              "a long transaction took %u attempts (the commit token "
		              "should bound them by 33)", long_max_attempts);
	tm_shutdown();
}

START_TEST(long_progress_2) { long_progress(2); }
END_TEST
START_TEST(long_progress_8) { long_progress(8); }
END_TEST

/* ---- explicit aborts of a long transaction -------------------------------
 * As above, but the long transaction restarts itself twice after its
 * scan, the second time after scribbling on SCRIBBLES words, and every
 * fourth one scribbles again and cancels instead of committing.  On tl2
 * the first restart loses a long attempt, so the next ones run
 * irrevocably, in place: the scribbles must be rolled back before anyone
 * sees them (the other threads' scans check the total) and a cancel must
 * give the commit token back (or the others wait for ever). */

#define SCRIBBLES 8
#define SCRIBBLE 1000
static long scan_bad_sums;
static uint64_t long_commits;

static long big_sum_in_tx(void);
/* The long transactions are announced (tm_hint_serial). */
static bool long_hint;
/* Check the scans' totals inside the transaction, in every attempt, even
 * one that will abort (opacity), not only in the committed result. */
static bool scan_inside;

/* The other threads, until the long transactions are done: short
 * transfers, and a scan of big[] every eighth (which must see the total
 * constant). */
static void scan_and_transfer(unsigned id, uint64_t seed)
{
	uint64_t rng = seed * (id + 1);
	for (long i = 0; !__atomic_load_n(&long_done, __ATOMIC_ACQUIRE); i++) {
		if (i % 8 == 0 && scan_inside) {
			TM_BEGIN();
			if (big_sum_in_tx() != 0)
				__atomic_fetch_add(&scan_bad_sums, 1, __ATOMIC_RELAXED);
			TM_END();
		} else if (i % 8 == 0 && tx_sum(big, BIG) != 0) {
			__atomic_fetch_add(&scan_bad_sums, 1, __ATOMIC_RELAXED);
		}
		big_transfer(&rng);
	}
}


/* big[]'s total, read inside the running transaction. */
static long big_sum_in_tx(void)
{
	long sum = 0;
	for (int k = 0; k < BIG; k++)
		sum += TM_LOAD(&big[k]);
	return sum;
}

/* Thread 0's LONG_TXS long transactions: each scans big[], runs body
 * (which may restart the transaction: tries counts the attempts), then
 * cancels (every fourth) or ends with a transfer and commits. */
static void long_transactions(void (*body)(int t, unsigned tries, bool cancel))
{
	for (int t = 0; t < LONG_TXS; t++) {
		static volatile unsigned tries;
		bool cancel = t % 4 == 3;
		tries = 0;
		if (long_hint)
			ck_assert_int_eq(tm_hint_serial(), 0);
		TM_BEGIN();
		tries++;
		if (big_sum_in_tx() != 0)
			__atomic_fetch_add(&long_bad_sums, 1, __ATOMIC_RELAXED);
		body(t, tries, cancel);
		if (cancel)
			tm_cancel();
		TM_STORE(&big[t % BIG], TM_LOAD(&big[t % BIG]) - 1);
		TM_STORE(&big[(t + 1) % BIG], TM_LOAD(&big[(t + 1) % BIG]) + 1);
		TM_END();
		if (!cancel)
			long_commits++;
	}
	__atomic_store_n(&long_done, 1, __ATOMIC_RELEASE);
}

typedef void (*long_body_fn)(int t, unsigned tries, bool cancel);
static long_body_fn long_body;

static void long_among_short_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0)
		long_transactions(long_body);
	else
		scan_and_transfer(id, 0x2545f4914f6cdd1dull);
}

/* Run thread 0's long transactions (with body) among the others'
 * scan_and_transfer and check what every backend must hold, and on tl2
 * how they ended: alone, every committed one irrevocably (after a first
 * attempt that lost BIG reads, or, if the body's write set is large
 * (escalates), one escalated, whose retry keeps the token); among others,
 * at least one irrevocably.  (Not necessarily escalated: a first attempt
 * that loses its scan to the transfers, as under ASan, makes the next
 * one starving, and a starving transaction runs in place from its
 * start.) */
static void long_among_short(unsigned n, long_body_fn body)
{
	memset(big, 0, sizeof big);
	long_done = 0;
	long_bad_sums = scan_bad_sums = 0;
	long_commits = 0;
	long_body = body;
	run_threads(n, long_among_short_work);
	assert_big_balanced();
	ck_assert_int_eq(long_bad_sums, 0);
	ck_assert_int_eq(scan_bad_sums, 0);
	ck_assert_uint_eq(long_commits, LONG_TXS - LONG_TXS / 4);
}

static void run_long_among_short(unsigned n, long_body_fn body, bool escalates)
{
	long_among_short(n, body);
	if (strcmp(POTM_BACKEND_NAME, "tl2") == 0) {
		tm_stats_t s;
		tm_stats(&s);
		if (n == 1) {
			ck_assert_uint_eq(s.irrevocable, long_commits);
			ck_assert_uint_eq(s.promotions, escalates ? LONG_TXS : 0);
		} else {
			ck_assert_uint_ge(s.irrevocable, 1);
		}
	}
	tm_shutdown();
}

static void scribble_body(int t, unsigned tries, bool cancel)
{
	if (tries == 2 || (cancel && tries >= 3)) {
		for (int j = 0; j < SCRIBBLES; j++) {
			long *w = &big[(t * 13 + j * 1021) % BIG];
			TM_STORE(w, TM_LOAD(w) + SCRIBBLE);
		}
		/* Our own writes, and long enough for the others' scans to
		 * meet them. */
		if (big_sum_in_tx() != SCRIBBLES * SCRIBBLE)
			__atomic_fetch_add(&long_bad_sums, 1, __ATOMIC_RELAXED);
	}
	if (tries < 3)
		tm_restart();
}

START_TEST(long_scribble_1) { run_long_among_short(1, scribble_body, false); }
END_TEST
START_TEST(long_scribble_2) { run_long_among_short(2, scribble_body, false); }
END_TEST
START_TEST(long_scribble_8) { run_long_among_short(8, scribble_body, false); }
END_TEST

/* ---- a long transaction with a large write set ----------------------------
 * The long transaction scans big[], then adds +1 and -1 to ESCALATED words
 * (a read-modify-write each, so a stale read would unbalance the total),
 * checks its own writes by scanning again, and then restarts (its first
 * attempt), cancels (every fourth transaction) or commits.  On tl2 the
 * write set passes POTM_PROMOTE_WRITES (256) half-way: the transaction
 * takes the commit token, drains, revalidates and continues in place
 * (escalation, stm/tl2.c I4).  The other threads' transfers and scans
 * check that the escalated writes stay invisible until the commit, that a
 * snapshot invalidated before the escalation is caught, and that restarts
 * and cancels roll the writes back. */

#define ESCALATED 512

static void escalate_body(int t, unsigned tries, bool cancel)
{
	(void)cancel;
	long *first = &big[(t * 7) % BIG];
	long before = TM_LOAD(first);
	for (int j = 0; j < ESCALATED; j++) {
		long *w = &big[(t * 7 + j * 13) % BIG];
		TM_STORE(w, TM_LOAD(w) + (j % 2 ? -1 : 1));
	}
	if (big_sum_in_tx() != 0 || TM_LOAD(first) != before + 1)
		__atomic_fetch_add(&long_bad_sums, 1, __ATOMIC_RELAXED);
	if (tries == 1)
		tm_restart();
}

START_TEST(long_escalate_1) { run_long_among_short(1, escalate_body, true); }
END_TEST
START_TEST(long_escalate_2) { run_long_among_short(2, escalate_body, true); }
END_TEST
START_TEST(long_escalate_8) { run_long_among_short(8, escalate_body, true); }
END_TEST

/* ---- shared snapshots --------------------------------------------------------
 * POTM_PROMOTE_READS lowered so that tl2's readers pass the mark
 * part-way: a transaction that has read that many stripes and written
 * nothing takes a reader share and goes on with plain loads, while the
 * other threads' commits wait (stm/tl2.c R1-R2); a shared reader that
 * writes upgrades to the commit token (R3).  Other backends ignore the
 * setting, and every invariant must hold on all of them. */

static void share_reads_at(const char *n)
{
	ck_assert_int_eq(setenv("POTM_PROMOTE_READS", n, 1), 0);
}

/* Opacity, the readers sharing after 8 of their 18 reads: the share must
 * revalidate what was read before it (x, and the filler words a writer
 * may have changed since) or x + y comes out wrong. */
static void opacity_shared(unsigned n)
{
	share_reads_at("8");
	/* A reader shares only when no committer waits and the token is
	 * free; on a loaded machine a whole run can miss that window, so
	 * run again (a few times at most) until one reader has shared. */
	bool tl2 = strcmp(POTM_BACKEND_NAME, "tl2") == 0;
	tm_stats_t s;
	for (int round = 0;; round++) {
		opacity_run(n);
		tm_stats(&s);
		if (!tl2 || s.shared_reads >= 1 || round == 7)
			break;
		tm_shutdown();   /* the next round starts the library afresh */
	}
	if (tl2)
		ck_assert_uint_ge(s.shared_reads, 1);
	tm_shutdown();
	unsetenv("POTM_PROMOTE_READS");
}

START_TEST(opacity_shared_2) { opacity_shared(2); }
END_TEST
START_TEST(opacity_shared_8) { opacity_shared(8); }
END_TEST

/* The long transactions of long_scribble, every scan of big[] (8,192
 * reads) sharing after 1,024: the scribbles upgrade the share (R3), then
 * restart or cancel in place, and neither the others' scans (shared too)
 * nor the transfers may see them.  Alone, on tl2, the counts are exact:
 * each long transaction shares in its first two attempts (the first
 * restarts before writing; the share logged only 1,024 reads, too few
 * to make it starving), upgrades once, and commits irrevocably. */
static void long_shared(unsigned n)
{
	share_reads_at("1024");
	long_among_short(n, scribble_body);
	if (strcmp(POTM_BACKEND_NAME, "tl2") == 0) {
		tm_stats_t s;
		tm_stats(&s);
		if (n == 1) {
			ck_assert_uint_eq(s.shared_reads, 2 * LONG_TXS);
			ck_assert_uint_eq(s.promotions, LONG_TXS);
			ck_assert_uint_eq(s.irrevocable, long_commits);
		} else {
			ck_assert_uint_ge(s.shared_reads, 1);
		}
	}
	tm_shutdown();
	unsetenv("POTM_PROMOTE_READS");
}

START_TEST(long_shared_1) { long_shared(1); }
END_TEST
START_TEST(long_shared_2) { long_shared(2); }
END_TEST
START_TEST(long_shared_8) { long_shared(8); }
END_TEST

/* ---- serial mode --------------------------------------------------------
 * POTM_SERIAL=1: escalate_body's transaction restarts alone when its
 * write set (tl2, stm/tl2.c S1-S3) or, in its turn, its undo log (pot,
 * stm/pot.c P6) reaches POTM_SERIAL_WRITES (set to 256), and in serial
 * mode its read-modify-writes are plain loads and stores (the
 * uninstrumented clone a program may run there), except in a transaction
 * that will cancel, which must stay revocable (TM_STORE).  Nobody may run
 * beside it: the others' scans, which check the total inside every
 * attempt, would see its plain stores half done.
 * Alone, on tl2 and pot, the counts are exact: each long transaction
 * gives its first attempt up at the mark (cause serial) and runs its
 * second serially, committing or cancelling. */
static void serial_body(int t, unsigned tries, bool cancel)
{
	(void)tries;
	if (!tm_serial()) {
		escalate_body(t, 2, cancel);   /* instrumented, no restart */
		return;
	}
	long *first = &big[(t * 7) % BIG];
	long before = *first;
	for (int j = 0; j < ESCALATED; j++) {
		long *w = &big[(t * 7 + j * 13) % BIG];
		long v = (cancel ? TM_LOAD(w) : *w) + (j % 2 ? -1 : 1);
		if (cancel)
			TM_STORE(w, v);
		else
			*w = v;
	}
	if (big_sum_in_tx() != 0 || *first != before + 1)
		__atomic_fetch_add(&long_bad_sums, 1, __ATOMIC_RELAXED);
}

/* mark: POTM_SERIAL_WRITES, "256" (half-way through the ESCALATED writes)
 * or "0" (no mark: only hinted transactions go serial; tl2's read mark,
 * where a long reader that has written goes serial too, is off then). */
static void long_serial(unsigned n, bool hint, const char *mark)
{
	ck_assert_int_eq(setenv("POTM_SERIAL", "1", 1), 0);
	ck_assert_int_eq(setenv("POTM_SERIAL_WRITES", mark, 1), 0);
	bool marked = strcmp(mark, "0") != 0;
	if (!marked)
		ck_assert_int_eq(setenv("POTM_PROMOTE_READS", "0", 1), 0);
	scan_inside = true;
	long_hint = hint;
	long_among_short(n, serial_body);
	scan_inside = false;
	long_hint = false;
	bool tl2 = strcmp(POTM_BACKEND_NAME, "tl2") == 0;
	bool pot = strcmp(POTM_BACKEND_NAME, "pot") == 0;
	const char *mode = tm_current_config()->mode;
	tm_stats_t s;
	tm_stats(&s);
	if (pot && strcmp(mode, "pogl") == 0) {
		/* Every pogl transaction runs alone, hence serially. */
		ck_assert_uint_eq(s.serial, s.commits);
		ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_SERIAL], 0);
	} else if (pot && strcmp(mode, "pot") != 0 && strcmp(mode, "pot-fast") != 0) {
		ck_assert_uint_eq(s.serial, 0);   /* no fast mode, no serial mode */
	} else if (tl2 || pot) {
		if (n == 1) {
			/* Hinted, no attempt is given up; without the mark,
			 * only the hinted go serial. */
			ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_SERIAL],
			                  hint || !marked ? 0 : LONG_TXS);
			ck_assert_uint_eq(s.serial, hint || marked ? long_commits : 0);
			if (tl2) {
				ck_assert_uint_eq(s.irrevocable, s.serial);
				ck_assert_uint_eq(s.promotions, 0);
			}
		} else if (hint || marked) {
			ck_assert_uint_ge(s.serial, 1);
		}
	}
	tm_shutdown();
	unsetenv("POTM_SERIAL");
	unsetenv("POTM_SERIAL_WRITES");
	unsetenv("POTM_PROMOTE_READS");
}

START_TEST(long_serial_1) { long_serial(1, false, "256"); }
END_TEST
START_TEST(long_serial_2) { long_serial(2, false, "256"); }
END_TEST
START_TEST(long_serial_8) { long_serial(8, false, "256"); }
END_TEST
START_TEST(long_serial_hinted_1) { long_serial(1, true, "256"); }
END_TEST
START_TEST(long_serial_hinted_2) { long_serial(2, true, "256"); }
END_TEST
START_TEST(long_serial_hinted_8) { long_serial(8, true, "256"); }
END_TEST
/* POTM_SERIAL_WRITES=0: no mark, the hint still holds. */
START_TEST(long_serial_hinted_no_mark_1) { long_serial(1, true, "0"); }
END_TEST
START_TEST(long_serial_no_mark_1) { long_serial(1, false, "0"); }
END_TEST

/* Below POTM_SERIAL_WRITES (2,048 by default) the ESCALATED writes send
 * nobody serial: the mark is serial mode's own, not POTM_PROMOTE_WRITES
 * (256), which they pass.  (tl2's read mark is off: a long reader that
 * has written goes serial there too.) */
START_TEST(long_serial_below_mark)
{
	ck_assert_int_eq(setenv("POTM_SERIAL", "1", 1), 0);
	ck_assert_int_eq(setenv("POTM_PROMOTE_READS", "0", 1), 0);
	unsetenv("POTM_SERIAL_WRITES");
	scan_inside = true;
	long_among_short(1, serial_body);
	scan_inside = false;
	const char *mode = tm_current_config()->mode;
	bool pogl = strcmp(POTM_BACKEND_NAME, "pot") == 0 && strcmp(mode, "pogl") == 0;
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_SERIAL], 0);
	if (!pogl)
		ck_assert_uint_eq(s.serial, 0);
	tm_shutdown();
	unsetenv("POTM_SERIAL");
	unsetenv("POTM_PROMOTE_READS");
}
END_TEST

/* tm_hint_serial is for a registered thread between transactions. */
START_TEST(hint_serial_misuse)
{
	ck_assert_int_eq(tm_init(NULL), 0);
	ck_assert_int_eq(tm_hint_serial(), -1);
	ck_assert_msg(strstr(tm_last_error(), "not registered") != NULL, "%s", tm_last_error());
	ck_assert_int_eq(tm_thread_enter(0), 0);
	volatile int in_tx = 0;
	TM_BEGIN();
	in_tx = tm_hint_serial();
	TM_END();
	ck_assert_int_eq(in_tx, -1);
	ck_assert_msg(strstr(tm_last_error(), "inside a transaction") != NULL, "%s",
	              tm_last_error());
	ck_assert_int_eq(tm_hint_serial(), 0);
	TM_BEGIN();
	TM_END();
	tm_thread_exit();
	tm_shutdown();
}
END_TEST

int main(void)
{
	if (strcmp(POTM_BACKEND_NAME, "seq") == 0) {
		printf("skipped: the seq backend runs one thread only\n");
		return 77;
	}
	Suite *s = suite_create("core_conc_" POTM_BACKEND_NAME);
	TCase *tc = tcase_create("invariants");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, bank_2);
	tcase_add_test(tc, bank_8);
	tcase_add_test(tc, counters_2);
	tcase_add_test(tc, counters_8);
	tcase_add_test(tc, opacity_2);
	tcase_add_test(tc, opacity_8);
	tcase_add_test(tc, read_bytes_opacity_2);
	tcase_add_test(tc, read_bytes_opacity_8);
	tcase_add_test(tc, bytes_2);
	tcase_add_test(tc, bytes_8);
	tcase_add_test(tc, list_2);
	tcase_add_test(tc, list_8);
	tcase_add_test(tc, bulk_2);
	tcase_add_test(tc, bulk_8);
	tcase_add_test(tc, long_progress_2);
	tcase_add_test(tc, long_progress_8);
	tcase_add_test(tc, long_scribble_1);
	tcase_add_test(tc, long_scribble_2);
	tcase_add_test(tc, long_scribble_8);
	tcase_add_test(tc, long_escalate_1);
	tcase_add_test(tc, long_escalate_2);
	tcase_add_test(tc, long_escalate_8);
	tcase_add_test(tc, opacity_shared_2);
	tcase_add_test(tc, opacity_shared_8);
	tcase_add_test(tc, long_shared_1);
	tcase_add_test(tc, long_shared_2);
	tcase_add_test(tc, long_shared_8);
	tcase_add_test(tc, long_serial_1);
	tcase_add_test(tc, long_serial_2);
	tcase_add_test(tc, long_serial_8);
	tcase_add_test(tc, long_serial_hinted_1);
	tcase_add_test(tc, long_serial_hinted_2);
	tcase_add_test(tc, long_serial_hinted_8);
	tcase_add_test(tc, long_serial_below_mark);
	tcase_add_test(tc, long_serial_hinted_no_mark_1);
	tcase_add_test(tc, long_serial_no_mark_1);
	tcase_add_test(tc, hint_serial_misuse);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
