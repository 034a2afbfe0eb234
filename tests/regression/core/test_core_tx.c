/*
 * Single-thread semantics of every backend: configuration and API errors,
 * typed and sub-word accesses, nesting, restart, cancel, allocation and
 * reclamation.  Check forks each test, so each starts from a fresh library.
 */
#include <potm/tm.h>

#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check_run.h"
#include "test_init.h"

#define IS(b) (strcmp(POTM_BACKEND_NAME, b) == 0)
/* seq keeps no log: it cannot roll back. */
#define CAN_ROLL_BACK (!IS("seq"))
/* Hardware TM backends (on the hardware when POTM_TEST_HTM_HARDWARE is on):
 * an aborted hardware attempt rolls back the test's own variables too. */
#define IS_HTM (IS("rtm") || IS("pot-rtm") || IS("rot") || IS("pot-rot"))

static void start(void)
{
	test_tm_init(NULL);
	ck_assert_int_eq(tm_thread_enter(0), 0);
}

static void stop(void)
{
	tm_thread_exit();
	tm_shutdown();
}

/* ---- configuration and API errors -------------------------------------- */

START_TEST(config_defaults_and_env)
{
	tm_config_t c;
	tm_config_default(&c);
	ck_assert_uint_eq(c.lock_bits, 20);
	ck_assert_uint_eq(c.max_threads, 256);
	setenv("POTM_LOCK_BITS", "12", 1);
	start();
	ck_assert_uint_eq(tm_current_config()->lock_bits, 12);
	ck_assert_str_eq(tm_backend_name(), POTM_BACKEND_NAME);
	/* The pot family (pot, pot-rtm, pot-rot) and only it orders commits. */
	ck_assert_int_eq(tm_is_deterministic(), strncmp(POTM_BACKEND_NAME, "pot", 3) == 0);
	stop();
}
END_TEST

static void expect_init_error(const char *var, const char *val, const char *needle)
{
	setenv(var, val, 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_msg(strstr(tm_last_error(), needle) != NULL,
	              "error for %s=%s: '%s' lacks '%s'", var, val, tm_last_error(), needle);
	unsetenv(var);
}

START_TEST(config_bad_values_are_named)
{
	expect_init_error("POTM_LOCK_BITS", "abc", "POTM_LOCK_BITS");
	expect_init_error("POTM_LOCK_BITS", "99", "from 8 to 28");
	expect_init_error("POTM_PIN", "2", "0 or 1");
	expect_init_error("POTM_PIN", "", "POTM_PIN");
	expect_init_error("POTM_PINN", "1", "unknown environment variable POTM_PINN");
	tm_config_t c;
	tm_config_default(&c);
	c.stripe_shift = 40;
	ck_assert_int_eq(tm_init(&c), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "stripe_shift"));
	/* Nothing was half-started: a good init still works. */
	start();
	stop();
}
END_TEST

START_TEST(api_errors)
{
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), -1);
	ck_assert_int_eq(tm_thread_enter(0), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "tm_init"));
	start();
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "twice"));
	ck_assert_int_eq(tm_thread_enter(1), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "already registered"));
	stop();
	tm_config_t c;
	tm_config_default(&c);
	c.max_threads = 4;
	ck_assert_int_eq(tm_init(&c), 0);
	ck_assert_int_eq(tm_thread_enter(4), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "out of range"));
	tm_shutdown();
}
END_TEST

static char second_error[512];

static void *enter_second(void *arg)
{
	*(int *)arg = tm_thread_enter(1);
	if (*(int *)arg == 0)
		tm_thread_exit();
	else   /* tm_last_error() is per thread: keep it for the test */
		snprintf(second_error, sizeof second_error, "%s", tm_last_error());
	return NULL;
}

START_TEST(seq_refuses_second_thread)
{
	start();
	int rc = 0;
	pthread_t th;
	pthread_create(&th, NULL, enter_second, &rc);
	pthread_join(th, NULL);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(second_error, "seq backend runs at most 1") != NULL,
	              "message: %s", second_error);
	stop();
}
END_TEST

/* Misuse aborts the process with a message (the test expects SIGABRT).
 * Through a function pointer, so the compiler cannot drop the read. */
static tm_word_t (*volatile read_word)(const tm_word_t *) = tm_read;

#if !(defined(POTM_PLAIN_ACCESS) && defined(NDEBUG))
START_TEST(misuse_read_outside_tx)
{
	static tm_word_t w;
	start();
	(void)read_word(&w);
}
END_TEST
#endif

START_TEST(misuse_begin_unregistered)
{
	static long w;
	(void)tm_init(NULL);
	TM_BEGIN();
	TM_STORE(&w, 1);
	TM_END();
}
END_TEST

/* ---- read-only transactions ---------------------------------------------- */

START_TEST(read_only_declared)
{
	static long acct[4][8] = { { 1 }, { 2 }, { 3 }, { 4 } };
	start();
	volatile long sum = 0;
	TM_BEGIN_RO();
	sum = 0;
	for (int i = 0; i < 4; i++)
		sum += TM_LOAD(&acct[i][0]);
	TM_END();
	ck_assert_int_eq(sum, 10);
	/* Nested in a writer, it joins it: the writer's writes stand. */
	TM_BEGIN();
	TM_STORE(&acct[0][0], 5L);
	TM_BEGIN_RO();
	ck_assert_int_eq(TM_LOAD(&acct[0][0]), 5);
	TM_END();
	TM_STORE(&acct[1][0], 6L);
	TM_END();
	/* silo's snapshot is of a recent epoch: the writer's state or the
	 * one before it, never half of it, and the writer's within a few
	 * epoch periods. */
	for (int tries = 0;; tries++) {
		TM_BEGIN_RO();
		sum = TM_LOAD(&acct[0][0]) + TM_LOAD(&acct[1][0]);
		TM_END();
		if (sum == 11 || !IS("silo"))
			break;
		ck_assert_int_eq(sum, 3);
		ck_assert_int_lt(tries, 5000);
		usleep(1000);
	}
	ck_assert_int_eq(sum, 11);
	/* The declaration lasts one transaction: the next one writes. */
	TM_BEGIN();
	TM_STORE(&acct[2][0], 7L);
	TM_END();
	ck_assert_int_eq(acct[2][0], 7);
	if (!IS("silo"))
		ck_assert_uint_eq(tm_snapshot_versions(), 0);
	stop();
}
END_TEST

#if !(defined(POTM_PLAIN_ACCESS) && defined(NDEBUG))
/* A write through the library inside TM_BEGIN_RO: a misuse (SIGABRT). */
static void (*volatile write_word)(tm_word_t *, tm_word_t) = tm_write;

START_TEST(read_only_write_refused)
{
	static tm_word_t w;
	start();
	TM_BEGIN_RO();
	write_word(&w, 1);
	TM_END();
}
END_TEST

/* tm_write_bytes is a write like any other: refused outside a transaction
 * and in one declared read-only (tl2 and silo take a range at once, past
 * the typed writes' checks). */
START_TEST(write_bytes_outside_tx_refused)
{
	static unsigned char buf[24];
	start();
	tm_write_bytes(buf + 3, "range", 5);
}
END_TEST

START_TEST(write_bytes_read_only_refused)
{
	static unsigned char buf[24];
	start();
	TM_BEGIN_RO();
	tm_write_bytes(buf + 3, "range", 5);
	TM_END();
}
END_TEST
#endif

/* ---- accesses ------------------------------------------------------------ */

START_TEST(typed_accesses)
{
	static struct {
		uint8_t u8; int8_t i8; uint16_t u16; int32_t i32; int64_t i64;
		float f; double d; void *p; char c; long l; unsigned long ul;
	} s;
	start();
	TM_BEGIN();
	TM_STORE(&s.u8, 250);
	TM_STORE(&s.i8, -5);
	TM_STORE(&s.u16, 65000);
	TM_STORE(&s.i32, -123456);
	TM_STORE(&s.i64, -(1LL << 40));
	TM_STORE(&s.f, 1.5f);
	TM_STORE(&s.d, -2.25);
	TM_STORE(&s.p, (void *)&s);
	TM_STORE(&s.c, 'x');
	TM_STORE(&s.l, -7L);
	TM_STORE(&s.ul, 7UL);
	/* Read after write, inside the transaction. */
	ck_assert_int_eq(TM_LOAD(&s.i8), -5);
	ck_assert(TM_LOAD(&s.d) == -2.25);
	TM_END();
	ck_assert_uint_eq(s.u8, 250);
	ck_assert_int_eq(s.i8, -5);
	ck_assert_uint_eq(s.u16, 65000);
	ck_assert_int_eq(s.i32, -123456);
	ck_assert_int_eq(s.i64, -(1LL << 40));
	ck_assert(s.f == 1.5f && s.d == -2.25);
	ck_assert_ptr_eq(s.p, &s);
	ck_assert_int_eq(s.c, 'x');
	ck_assert_int_eq(s.l, -7);
	ck_assert_uint_eq(s.ul, 7);
	stop();
}
END_TEST

START_TEST(subword_writes_keep_neighbours)
{
	static union { uint64_t w; uint8_t b[8]; uint16_t h[4]; uint32_t q[2]; } u;
	u.w = 0x0807060504030201ull;
	start();
	TM_BEGIN();
	TM_STORE(&u.b[2], 0xAA);
	/* Partial overlap inside the transaction: the u16 and u32 covering
	 * the written byte see it, and the untouched bytes from memory. */
	uint8_t b2 = 0, b3 = 0;
	uint16_t h = TM_LOAD(&u.h[1]);
	memcpy(&b2, &h, 1);
	memcpy(&b3, (char *)&h + 1, 1);
	ck_assert_uint_eq(b2, 0xAA);
	ck_assert_uint_eq(b3, 0x04);
	uint32_t q = TM_LOAD(&u.q[0]);
	ck_assert_uint_eq(((uint8_t *)&q)[0], 0x01);
	ck_assert_uint_eq(((uint8_t *)&q)[2], 0xAA);
	TM_STORE(&u.h[3], 0xBBCC);
	TM_END();
	uint8_t want[8] = { 1, 2, 0xAA, 4, 5, 6, 0, 0 };
	uint16_t bbcc = 0xBBCC;
	memcpy(&want[6], &bbcc, 2);
	ck_assert_mem_eq(u.b, want, 8);
	stop();
}
END_TEST

/* ---- nesting, restart, cancel ------------------------------------------- */

START_TEST(nesting_is_flattened)
{
	static long x;
	volatile int attempts = 0;
	start();
	TM_BEGIN();
	attempts++;
	TM_BEGIN();
	TM_STORE(&x, 1);
	TM_END();
	/* The inner end did not commit: still inside the outer one, and a
	 * restart here restarts the outermost transaction. */
	ck_assert(tm_in_tx());
	if (CAN_ROLL_BACK && attempts == 1)
		tm_restart();
	TM_END();
	ck_assert_int_eq(attempts, CAN_ROLL_BACK ? 2 : 1);
	ck_assert_int_eq(x, 1);
	ck_assert(!tm_in_tx());
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.commits, 1);
	stop();
}
END_TEST

START_TEST(restart_retries)
{
	static long x;
	volatile int attempts = 0;
	if (!CAN_ROLL_BACK)
		return;
	start();
	tm_stats_reset();
	TM_BEGIN();
	TM_STORE(&x, TM_LOAD(&x) + 1);
	if (++attempts == 1)
		tm_restart();
	TM_END();
	ck_assert_int_eq(attempts, 2);
	ck_assert_int_eq(x, 1);
	tm_stats_t s;
	tm_stats(&s);
	if (IS_HTM) {
		/* The hardware attempts forget attempts++, so each restarts
		 * again, until the retry in software (after htm_retries, or
		 * pot-rtm's fast mode) remembers it: one explicit abort per
		 * hardware attempt, plus the software one, plus rtm's first
		 * attempt as a coalesced group where POTM_HTM_COALESCE > 1
		 * (htm_gl.h). */
		tm_config_t cfg;
		tm_config_default(&cfg);
		ck_assert_uint_ge(s.aborts_by_cause[TM_ABORT_EXPLICIT], 1);
		ck_assert_uint_le(s.aborts_by_cause[TM_ABORT_EXPLICIT], cfg.htm_retries + 2);
	} else {
		ck_assert_uint_eq(s.aborts_by_cause[TM_ABORT_EXPLICIT], 1);
	}
	ck_assert_uint_eq(s.commits, 1);
	stop();
}
END_TEST

/* tm_thread_stats: this thread's own counters, which survive a hardware
 * abort; refused outside a registered thread and inside a transaction. */
static void *commit_three(void *arg)
{
	static long z;
	(void)arg;
	if (tm_thread_enter(1) != 0)
		return (void *)1;
	for (int i = 0; i < 3; i++) {
		TM_BEGIN();
		TM_STORE(&z, TM_LOAD(&z) + 1);
		TM_END();
	}
	tm_stats_t mine;
	void *bad = (void *)(uintptr_t)(tm_thread_stats(&mine) != 0 || mine.commits != 3);
	tm_thread_exit();
	return bad;
}

START_TEST(thread_stats_are_the_thread_own)
{
	static long x;
	tm_stats_t s, all;
	ck_assert_int_eq(tm_thread_stats(&s), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "not registered"));
	start();
	tm_stats_reset();
	volatile int attempts = 0, inside = 0;
	TM_BEGIN();
	inside = tm_thread_stats(&s);
	TM_STORE(&x, TM_LOAD(&x) + 1);
	if (CAN_ROLL_BACK && ++attempts == 1)
		tm_restart();
	TM_END();
	ck_assert_int_eq(inside, -1);
	ck_assert_int_eq(tm_thread_stats(&s), 0);
	ck_assert_uint_eq(s.commits, 1);
	/* Under HTM attempts++ is forgotten by each hardware attempt, so the
	 * program's count says less than the library's. */
	ck_assert_uint_ge(s.aborts, CAN_ROLL_BACK ? 1 : 0);
	if (!IS_HTM)
		ck_assert_uint_eq(s.aborts, CAN_ROLL_BACK ? 1 : 0);
	ck_assert_int_eq(tm_stats(&all), 0);
	ck_assert_uint_eq(s.aborts, all.aborts);
	if (!IS("seq")) {
		/* Another thread's commits are its own; this thread leaves
		 * while it runs (a registered thread blocked in pthread_join
		 * would hold up the deterministic order) and comes back with
		 * fresh counters, while tm_stats keeps every commit. */
		tm_thread_exit();
		pthread_t th;
		void *bad;
		pthread_create(&th, NULL, commit_three, NULL);
		pthread_join(th, &bad);
		ck_assert_ptr_null(bad);
		ck_assert_int_eq(tm_thread_enter(0), 0);
		ck_assert_int_eq(tm_thread_stats(&s), 0);
		ck_assert_uint_eq(s.commits, 0);
		ck_assert_int_eq(tm_stats(&all), 0);
		ck_assert_uint_eq(all.commits, 4);
	}
	stop();
}
END_TEST

START_TEST(cancel_rolls_back)
{
	static union { uint64_t w; uint8_t b[8]; } u = { .w = 0x1111111111111111ull };
	static long y = 5;
	volatile int after = 0;
	if (!CAN_ROLL_BACK)
		return;
	start();
	TM_BEGIN();
	TM_STORE(&y, 6);
	TM_STORE(&u.b[3], 0x99);
	tm_cancel();
	TM_END();
	after = 1;
	ck_assert_int_eq(after, 1);
	ck_assert(tm_was_cancelled());
	ck_assert_int_eq(y, 5);
	ck_assert_uint_eq(u.w, 0x1111111111111111ull);
	/* The next transaction is a normal one again. */
	TM_BEGIN();
	TM_STORE(&y, 7);
	TM_END();
	ck_assert(!tm_was_cancelled());
	ck_assert_int_eq(y, 7);
	stop();
}
END_TEST

/* Many in-place writes (pot alone: tm.h's inline path, the log growing
 * through the library's), the same bytes written again and again in
 * several widths, then a cancel: every byte is back. */
START_TEST(cancel_restores_many_writes)
{
	static union { uint64_t w[64]; uint32_t h[128]; uint16_t q[256]; uint8_t b[512]; } m;
	if (!CAN_ROLL_BACK)
		return;
	for (unsigned i = 0; i < 64; i++)
		m.w[i] = 0x0123456789abcdefull * (i + 1);
	uint64_t before[64];
	memcpy(before, m.w, sizeof before);
	start();
	/* pot: a thread's first transaction is speculative (P5's hand-shake);
	 * the ones after it, alone, run in fast mode with inline writes. */
	for (int i = 0; i < 2; i++) {
		TM_BEGIN();
		TM_END();
	}
	TM_BEGIN();
	for (unsigned round = 0; round < 40; round++) {
		for (unsigned i = 0; i < 64; i++)
			TM_STORE(&m.w[i], (uint64_t)round * 1000 + i);
		for (unsigned i = 0; i < 128; i += 3)
			TM_STORE(&m.h[i], (uint32_t)(round + i));
		for (unsigned i = 1; i < 256; i += 5)
			TM_STORE(&m.q[i], (uint16_t)(round * 7 + i));
		for (unsigned i = 2; i < 512; i += 7)
			TM_STORE(&m.b[i], (uint8_t)(round ^ i));
	}
	ck_assert_uint_eq(TM_LOAD(&m.b[2]), 39 ^ 2);   /* its own last write */
	tm_cancel();
	TM_END();
	ck_assert(tm_was_cancelled());
	ck_assert_msg(memcmp(before, m.w, sizeof before) == 0, "a cancelled write stayed");
	stop();
}
END_TEST

/* The undo log keeps one entry per (address, size) a transaction wrote
 * (tm_undo_t.seen).  What one transaction logged must not count for the
 * next: after a commit and after a cancel, a transaction that rewrites
 * the same words (more of them than the seen table has slots, some in
 * two widths) and cancels puts back exactly what was there before it. */
#define SEEN_WORDS 6000
static uint64_t seen_words[SEEN_WORDS];

static void seen_rewrite(uint64_t base, unsigned rounds)
{
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < SEEN_WORDS; i++) {
			TM_STORE(&seen_words[i], base + r * SEEN_WORDS + i);
			if (i % 3 == 0)
				TM_STORE((uint32_t *)&seen_words[i] + 1, (uint32_t)(base + r));
		}
}

static void seen_assert(uint64_t base, unsigned rounds, const char *when)
{
	for (unsigned i = 0; i < SEEN_WORDS; i++) {
		uint64_t want = base + (rounds - 1) * SEEN_WORDS + i;
		if (i % 3 == 0) {
			uint32_t hi = (uint32_t)(base + rounds - 1);
			memcpy((uint32_t *)&want + 1, &hi, sizeof hi);
		}
		ck_assert_msg(seen_words[i] == want, "%s: word %u is %#llx, want %#llx",
		              when, i, (unsigned long long)seen_words[i],
		              (unsigned long long)want);
	}
}

START_TEST(undo_log_forgets_between_transactions)
{
	if (!CAN_ROLL_BACK)
		return;
	start();
	for (int i = 0; i < 2; i++) {   /* pot: past the speculative start */
		TM_BEGIN();
		TM_END();
	}
	TM_BEGIN();
	seen_rewrite(1000, 3);
	TM_END();
	seen_assert(1000, 3, "after the commit");
	for (int c = 0; c < 2; c++) {   /* a cancel after a commit, then after a cancel */
		TM_BEGIN();
		seen_rewrite(50000 + c, 2);
		tm_cancel();
		TM_END();
		ck_assert(tm_was_cancelled());
		seen_assert(1000, 3, c == 0 ? "a cancel after a commit" : "a cancel after a cancel");
	}
	TM_BEGIN();
	seen_rewrite(7000, 1);
	TM_END();
	seen_assert(7000, 1, "the last commit");
	stop();
}
END_TEST

/* A write set large enough for tl2's hash index (32 words and more),
 * read back in a scattered order: right after each word's own write (the
 * index's last-entry hint), after a sub-word write into it (partly
 * covered reads), the word written one step before (a hint miss) and
 * its neighbouring word (same stripe: a hint that matched too much).
 * Every read sees the transaction's latest bytes; the commit stores them
 * all. */
#define RAW_WORDS 2048
static union { uint64_t w[RAW_WORDS]; uint32_t h[2 * RAW_WORDS]; } raw;
static bool raw_done[RAW_WORDS];   /* written so far */

static uint64_t raw_expected(unsigned j)
{
	uint32_t halves[2] = { j + 1000000u, 7u };
	uint64_t v;
	memcpy(&v, halves, sizeof v);
	return v;
}

START_TEST(read_after_write_large_set)
{
	for (unsigned i = 0; i < RAW_WORDS; i++) {
		raw.w[i] = i;
		raw_done[i] = false;
	}
	start();
	TM_BEGIN();
	for (unsigned i = 0; i < RAW_WORDS; i++) {
		unsigned j = (i * 769u) % RAW_WORDS;   /* 769 is odd: a permutation */
		uint64_t got = TM_LOAD(&raw.w[j]);
		TM_STORE(&raw.w[j], got + 1000000u);
		got = TM_LOAD(&raw.w[j]);
		ck_assert_uint_eq(got, j + 1000000u);
		TM_STORE(&raw.h[2 * j + 1], 7u);   /* the word's second half in memory order */
		uint32_t low = TM_LOAD(&raw.h[2 * j]), high = TM_LOAD(&raw.h[2 * j + 1]);
		ck_assert_uint_eq(low, j + 1000000u);
		ck_assert_uint_eq(high, 7u);
		got = TM_LOAD(&raw.w[j]);
		ck_assert_uint_eq(got, raw_expected(j));
		/* The neighbouring word (same stripe, same cache line), written
		 * earlier in the transaction or not at all. */
		raw_done[j] = true;
		unsigned nb = j ^ 1;
		got = TM_LOAD(&raw.w[nb]);
		ck_assert_uint_eq(got, raw_done[nb] ? raw_expected(nb) : nb);
		if (i > 0) {
			unsigned k = ((i - 1) * 769u) % RAW_WORDS;
			got = TM_LOAD(&raw.w[k]);
			ck_assert_uint_eq(got, raw_expected(k));
		}
	}
	TM_END();
	stop();
	for (unsigned i = 0; i < RAW_WORDS; i++)
		ck_assert_uint_eq(raw.w[i], raw_expected(i));
}
END_TEST

/* Write sets of every size around the thresholds where tl2's and silo's
 * set changes shape (the filter alone up to 15 words, the hash index from
 * 16, each doubling of the index at a quarter full, the array's growth
 * from 64), one transaction after another in an order that makes a small
 * set follow a large one (the set keeps its memory, not its index).  In
 * each, every word is written whole, read back, written again, and read
 * back with its neighbours; the commit stores exactly the last values. */
START_TEST(write_set_sizes_in_sequence)
{
	static const unsigned sizes[] = { 2048, 20, 15, 16, 17, 14, 31, 32, 33,
	                                  63, 64, 65, 1, 129, 16, 0, 257, 3 };
	start();
	for (unsigned round = 0; round < sizeof sizes / sizeof sizes[0]; round++) {
		unsigned n = sizes[round];
		for (unsigned i = 0; i < RAW_WORDS; i++)
			raw.w[i] = i;
		TM_BEGIN();
		for (unsigned i = 0; i < n; i++) {
			unsigned j = (i * 769u) % RAW_WORDS;
			TM_STORE(&raw.w[j], (uint64_t)round << 32 | j);
			ck_assert_uint_eq(TM_LOAD(&raw.w[j]), (uint64_t)round << 32 | j);
		}
		for (unsigned i = 0; i < n; i++) {
			unsigned j = (i * 769u) % RAW_WORDS;
			TM_STORE(&raw.w[j], TM_LOAD(&raw.w[j]) + 1);
		}
		for (unsigned i = 0; i < n; i++) {
			unsigned j = (i * 769u) % RAW_WORDS;
			ck_assert_uint_eq(TM_LOAD(&raw.w[j]), ((uint64_t)round << 32 | j) + 1);
		}
		TM_END();
		for (unsigned i = 0; i < RAW_WORDS; i++)
			raw_done[i] = false;
		for (unsigned k = 0; k < n; k++)
			raw_done[(k * 769u) % RAW_WORDS] = true;
		for (unsigned i = 0; i < RAW_WORDS; i++)
			ck_assert_uint_eq(raw.w[i], raw_done[i] ? ((uint64_t)round << 32 | i) + 1 : i);
	}
	stop();
}
END_TEST

/* ---- byte ranges (tm_read_bytes) ----------------------------------------
 * Every (offset, length) of a block whose size is odd (a read past its
 * end would be an out-of-bounds load, which ASan reports), read in a
 * transaction that wrote bytes, halves and words of it before (tl2 lays
 * its write set over each stripe's copy), under small, default and large
 * stripes; and in a transaction large enough for tl2 to escalate (reads
 * in place). */

#define RB_SIZE 203
#define RB_BIG 4099

static unsigned char rb_model[RB_BIG];

/* The transaction's writes to buf, mirrored in rb_model: bytes, halves
 * and words, some of them twice, about one byte in three. */
static void rb_write_some(unsigned char *buf, size_t size, unsigned seed)
{
	for (size_t i = 0; i + 8 <= size; i += 8) {
		unsigned k = (unsigned)(i / 8 + seed) % 6;
		if (k == 0) {
			uint64_t v = 0x0102030405060708ull * (i + seed);
			tm_write_u64((uint64_t *)(void *)(buf + i), v);
			memcpy(rb_model + i, &v, 8);
		} else if (k == 2) {
			uint16_t v = (uint16_t)(0xbeef + i);
			tm_write_u16((uint16_t *)(void *)(buf + i + 2), v);
			memcpy(rb_model + i + 2, &v, 2);
		} else if (k == 4) {
			tm_write_u8(buf + i + 7, (uint8_t)(i ^ 0x5a));
			rb_model[i + 7] = (uint8_t)(i ^ 0x5a);
			tm_write_u8(buf + i + 1, (uint8_t)(i ^ 0xa5));
			rb_model[i + 1] = (uint8_t)(i ^ 0xa5);
		}
	}
	tm_write_u8(buf + size - 1, 0xee);   /* the block's last byte */
	rb_model[size - 1] = 0xee;
}

/* Every range of buf against rb_model (inside a transaction). */
static void rb_check_ranges(const unsigned char *buf, size_t size, size_t step)
{
	unsigned char got[RB_BIG];
	for (size_t off = 0; off < size; off += off < 24 ? 1 : step)
		for (size_t len = 0; off + len <= size; len += len < 40 ? 1 : step) {
			memset(got, 0xcc, len);
			tm_read_bytes(got, buf + off, len);
			ck_assert_msg(memcmp(got, rb_model + off, len) == 0,
			              "tm_read_bytes(%zu, %zu) of %zu", off, len, size);
		}
	for (size_t off = 0; off < size; off++) {   /* ranges that end the block */
		tm_read_bytes(got, buf + off, size - off);
		ck_assert_msg(memcmp(got, rb_model + off, size - off) == 0,
		              "tm_read_bytes(%zu, %zu) of %zu", off, size - off, size);
	}
}

START_TEST(read_bytes_ranges)
{
	static const char *const shifts[] = { "3", "5", "12" };
	for (unsigned sh = 0; sh < 3; sh++) {
		setenv("POTM_STRIPE_SHIFT", shifts[sh], 1);
		start();
		unsigned char *buf = malloc(RB_SIZE);
		ck_assert_ptr_nonnull(buf);
		for (size_t i = 0; i < RB_SIZE; i++)
			buf[i] = rb_model[i] = (unsigned char)(i * 7 + 1);
		TM_BEGIN();
		rb_check_ranges(buf, RB_SIZE, 7);   /* nothing written yet */
		rb_write_some(buf, RB_SIZE, sh);
		rb_check_ranges(buf, RB_SIZE, 7);
		/* More than a small write set (tl2 indexes it, and its filter
		 * changes): every word written. */
		for (size_t i = 0; i + 8 <= RB_SIZE; i += 8) {
			tm_write_u32((uint32_t *)(void *)(buf + i + 4), (uint32_t)(i * 3));
			uint32_t v = (uint32_t)(i * 3);
			memcpy(rb_model + i + 4, &v, 4);
		}
		rb_check_ranges(buf, RB_SIZE, 5);
		TM_END();
		ck_assert(memcmp(buf, rb_model, RB_SIZE) == 0);
		TM_BEGIN();
		rb_check_ranges(buf, RB_SIZE, 11);   /* committed, read-only */
		TM_END();
		free(buf);
		stop();
	}
	unsetenv("POTM_STRIPE_SHIFT");
	/* A write set past tl2's escalation mark (POTM_PROMOTE_WRITES): the
	 * rest of the transaction reads in place. */
	start();
	unsigned char *big = malloc(RB_BIG);
	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < RB_BIG; i++)
		big[i] = rb_model[i] = (unsigned char)(i * 13 + 5);
	TM_BEGIN();
	rb_write_some(big, RB_BIG, 1);
	for (size_t i = 0; i + 8 <= RB_BIG; i += 8) {
		tm_write_u8(big + i + 3, (uint8_t)i);
		rb_model[i + 3] = (uint8_t)i;
	}
	rb_check_ranges(big, RB_BIG, 97);
	TM_END();
	ck_assert(memcmp(big, rb_model, RB_BIG) == 0);
	free(big);
	stop();
}
END_TEST

/* ---- byte ranges (tm_write_bytes) ---------------------------------------
 * Every (offset, length) written alone and committed: the bytes around
 * the range (the rest of its first and last words) keep their values.
 * Then ranges over a block the transaction already wrote in bytes, halves
 * and words (tl2 and silo merge a range's partial words into those
 * entries), read back before the commit; and a range long enough for tl2
 * to escalate, followed by ranges written in place. */

static void wb_fill(unsigned char *src, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		src[i] = (unsigned char)(seed * 29 + i * 11 + 3);
}

START_TEST(write_bytes_ranges)
{
	static const char *const shifts[] = { "3", "5", "12" };
	unsigned char src[RB_BIG];
	for (unsigned sh = 0; sh < 3; sh++) {
		setenv("POTM_STRIPE_SHIFT", shifts[sh], 1);
		start();
		unsigned char *buf = malloc(RB_SIZE);
		ck_assert_ptr_nonnull(buf);
		for (size_t i = 0; i < RB_SIZE; i++)
			buf[i] = rb_model[i] = (unsigned char)(i * 7 + 1);
		unsigned seed = 0;
		for (size_t off = 0; off < 24; off++)
			for (size_t len = 0; off + len <= RB_SIZE; len += len < 40 ? 1 : 37) {
				wb_fill(src, len, ++seed);
				TM_BEGIN();
				tm_write_bytes(buf + off, src, len);
				TM_END();
				memcpy(rb_model + off, src, len);
				ck_assert_msg(memcmp(buf, rb_model, RB_SIZE) == 0,
				              "tm_write_bytes(%zu, %zu) of %d", off, len, RB_SIZE);
			}
		TM_BEGIN();
		rb_write_some(buf, RB_SIZE, sh);
		for (size_t off = 1; off + 20 <= RB_SIZE; off += 23) {
			wb_fill(src, 13, (unsigned)off);
			tm_write_bytes(buf + off, src, 13);
			memcpy(rb_model + off, src, 13);
		}
		rb_check_ranges(buf, RB_SIZE, 7);
		TM_END();
		ck_assert(memcmp(buf, rb_model, RB_SIZE) == 0);
		free(buf);
		stop();
	}
	unsetenv("POTM_STRIPE_SHIFT");
	start();
	unsigned char *big = malloc(RB_BIG);
	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < RB_BIG; i++)
		big[i] = rb_model[i] = (unsigned char)(i * 13 + 5);
	TM_BEGIN();
	wb_fill(src, RB_BIG - 2, 7);
	tm_write_bytes(big + 1, src, RB_BIG - 2);   /* past the escalation mark */
	memcpy(rb_model + 1, src, RB_BIG - 2);
	for (size_t off = 3; off + 11 <= RB_BIG; off += 101) {
		wb_fill(src, 11, (unsigned)off);
		tm_write_bytes(big + off, src, 11);
		memcpy(rb_model + off, src, 11);
	}
	rb_check_ranges(big, RB_BIG, 97);
	TM_END();
	ck_assert(memcmp(big, rb_model, RB_BIG) == 0);
	free(big);
	stop();
}
END_TEST

/* Ranges written in place are undone piece by piece: a range long enough
 * for tl2 to escalate (in a block of its own, whose whole words its undo
 * entries would restore), then ranges at every offset of a word (pieces
 * of 1, 2, 4 and 8 bytes, through tl2's irrevocable writes, pot's inline
 * fast-mode ones, gl's and silo's library ones), then a cancel: every
 * byte is back.  On tl2 the attempt must have gone in place (a
 * promotion). */
#define WB_SHORT (16 * 65)
START_TEST(write_bytes_cancelled)
{
	static unsigned char esc[RB_BIG], mem[WB_SHORT], before[RB_BIG];
	unsigned char src[RB_BIG];
	if (!CAN_ROLL_BACK)
		return;
	for (size_t i = 0; i < RB_BIG; i++)
		esc[i] = before[i] = (unsigned char)(i * 17 + 9);
	memcpy(mem, before, WB_SHORT);
	start();
	/* pot: the first transaction is speculative, the next ones (alone)
	 * run in fast mode with inline writes. */
	for (int i = 0; i < 2; i++) {
		TM_BEGIN();
		TM_END();
	}
	tm_stats_reset();
	TM_BEGIN();
	wb_fill(src, RB_BIG - 2, 3);
	tm_write_bytes(esc + 1, src, RB_BIG - 2);
	for (size_t off = 0; off < 16; off++) {
		wb_fill(src, 15, (unsigned)off + 40);
		tm_write_bytes(mem + 65 * off, src, 15);
	}
	ck_assert_uint_eq(TM_LOAD(&mem[65 * 15]), (unsigned char)((15 + 40) * 29 + 3));
	tm_cancel();
	TM_END();
	ck_assert(tm_was_cancelled());
	ck_assert_msg(memcmp(esc, before, RB_BIG) == 0, "a cancelled long range stayed");
	ck_assert_msg(memcmp(mem, before, WB_SHORT) == 0, "a cancelled short range stayed");
	if (IS("tl2")) {
		tm_stats_t s;
		tm_stats(&s);
		ck_assert_uint_ge(s.promotions, 1);
	}
	stop();
}
END_TEST

static void atomic_body(void *arg)
{
	long *p = arg;
	TM_STORE(p, TM_LOAD(p) + 10);
	if (*p < 0)   /* never: arg starts at 0 */
		tm_cancel();
}

static void atomic_cancel(void *arg)
{
	TM_STORE((long *)arg, 99L);
	tm_cancel();
}

START_TEST(atomic_results)
{
	static long v;
	start();
	ck_assert_int_eq(tm_atomic(atomic_body, &v), TM_COMMITTED);
	ck_assert_int_eq(v, 10);
	if (CAN_ROLL_BACK) {
		ck_assert_int_eq(tm_atomic(atomic_cancel, &v), TM_CANCELLED);
		ck_assert_int_eq(v, 10);
	}
	stop();
}
END_TEST

START_TEST(seq_cancel_is_fatal)
{
	start();
	TM_BEGIN();
	tm_cancel();
	TM_END();
}
END_TEST

/* ---- memory ------------------------------------------------------------ */

#define POTM_TEST_SEQ_FREES 80   /* more than a reclamation batch (64) */

START_TEST(malloc_undone_on_abort_free_deferred)
{
	static long *slot;
	volatile int attempts = 0;
	start();
	tm_stats_reset();
	TM_BEGIN();
	long *p = tm_malloc(sizeof *p);
	TM_STORE(p, 42L);
	TM_STORE(&slot, p);
	/* The first attempt's block is freed by the abort (LeakSanitizer
	 * would report it otherwise). */
	if (CAN_ROLL_BACK && ++attempts == 1)
		tm_restart();
	TM_END();
	ck_assert_int_eq(*slot, 42);
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.allocs, 1);
	if (CAN_ROLL_BACK) {
		/* A free in a cancelled transaction never happens. */
		TM_BEGIN();
		tm_free(TM_LOAD(&slot));
		tm_cancel();
		TM_END();
		*slot = 43;   /* still ours */
		tm_reclaim_barrier();
		tm_stats(&s);
		ck_assert_uint_eq(s.reclaimed, 0);
	}
	TM_BEGIN();
	tm_free(TM_LOAD(&slot));
	TM_STORE(&slot, (long *)NULL);
	TM_END();
	tm_reclaim_barrier();
	tm_stats(&s);
	ck_assert_uint_eq(s.frees, 1);
	ck_assert_uint_eq(s.reclaimed, 1);
	stop();
}
END_TEST

/* Committed frees wait in the thread's batch (POTM_RECLAIM_BATCH) across
 * transactions: a cancelled transaction in between drops only its own
 * free, and tm_reclaim_barrier hands the batch over. */
START_TEST(frees_batched_across_transactions)
{
	static long *blocks[10];
	static long *kept, *extra;
	start();
	tm_stats_reset();
	for (unsigned i = 0; i < 10; i++) {
		TM_BEGIN();
		blocks[i] = tm_malloc(sizeof(long));
		TM_END();
	}
	TM_BEGIN();
	kept = tm_malloc(sizeof(long));
	extra = tm_malloc(sizeof(long));
	TM_END();
	for (unsigned i = 0; i < 10; i++) {
		TM_BEGIN();
		tm_free(blocks[i]);
		TM_END();
	}
	if (CAN_ROLL_BACK) {
		TM_BEGIN();
		tm_free(kept);
		tm_cancel();
		TM_END();
	}
	*kept = 1;   /* still ours */
	TM_BEGIN();   /* a free committed after the cancel joins the batch */
	tm_free(extra);
	TM_END();
	tm_reclaim_barrier();
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.frees, 11);
	ck_assert_uint_eq(s.reclaimed, 11);
	TM_BEGIN();
	tm_free(kept);
	TM_END();
	tm_reclaim_barrier();
	tm_stats(&s);
	ck_assert_uint_eq(s.reclaimed, 12);
	stop();
}
END_TEST

/* seq runs one thread at a time: a committed free goes back to the
 * allocator at commit, with no batch and no grace period to wait for
 * (tm_reclaim_barrier not called).  Once the batch would have filled on
 * the other backends, still nothing waits. */
START_TEST(seq_frees_at_commit)
{
	static long *blocks[POTM_TEST_SEQ_FREES];
	start();
	tm_stats_reset();
	for (unsigned i = 0; i < POTM_TEST_SEQ_FREES; i++) {
		TM_BEGIN();
		blocks[i] = tm_malloc(sizeof(long));
		TM_END();
	}
	tm_stats_t s;
	for (unsigned i = 0; i < POTM_TEST_SEQ_FREES; i++) {
		TM_BEGIN();
		tm_free(blocks[i]);
		TM_END();
		tm_stats(&s);
		ck_assert_uint_eq(s.frees, i + 1);
		ck_assert_uint_eq(s.reclaimed, i + 1);
	}
	stop();
}
END_TEST

/* A thread that frees only outside transactions gets its blocks back
 * from reclamation while it runs, not only at its exit: each tm_free
 * also frees what came back meanwhile. */
START_TEST(frees_outside_reclaimed_while_running)
{
	start();
	tm_stats_reset();
	tm_stats_t s = { 0 };
	unsigned long n = 0;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		tm_free(malloc(64));
		n++;
		if (n % 64 == 0) {
			struct timespec pause = { 0, 100000 };
			nanosleep(&pause, NULL);   /* the grace periods run meanwhile */
		}
		tm_stats(&s);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (s.reclaimed == 0 && now.tv_sec - t0.tv_sec < 10);
	ck_assert_msg(s.reclaimed > 0, "%lu blocks freed outside transactions, none reclaimed", n);
	stop();
}
END_TEST

/* A transaction that frees a big batch (256 blocks, over
 * POTM_RECLAIM_POLLED) takes a polled grace period of its own
 * (lib/reclaim.c, Q2): with no other thread inside a transaction it ends
 * at once, so the blocks are back with the allocator when TM_END returns,
 * with no tm_reclaim_barrier.  Where membarrier is unavailable (the
 * library then uses call_rcu) only the barrier frees them. */
START_TEST(big_batch_freed_at_commit)
{
	static long *blocks[256];
	start();
	tm_stats_reset();
	TM_BEGIN();
	for (unsigned i = 0; i < 256; i++)
		blocks[i] = tm_malloc(sizeof(long));
	TM_END();
	TM_BEGIN();
	for (unsigned i = 0; i < 256; i++)
		tm_free(blocks[i]);
	TM_END();
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.frees, 256);
	long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		ck_assert_uint_eq(s.reclaimed, 256);
	tm_reclaim_barrier();
	tm_stats(&s);
	ck_assert_uint_eq(s.reclaimed, 256);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("core_tx_" POTM_BACKEND_NAME);
	TCase *api = tcase_create("api");
	tcase_add_test(api, config_defaults_and_env);
	tcase_add_test(api, config_bad_values_are_named);
	tcase_add_test(api, api_errors);
	if (IS("seq"))
		tcase_add_test(api, seq_refuses_second_thread);
#if !(defined(POTM_PLAIN_ACCESS) && defined(NDEBUG))
	/* Inlined plain accesses (seq, rtm) check only in debug builds. */
	tcase_add_test_raise_signal(api, misuse_read_outside_tx, SIGABRT);
#endif
	tcase_add_test_raise_signal(api, misuse_begin_unregistered, SIGABRT);
	tcase_add_test(api, read_only_declared);
#if !(defined(POTM_PLAIN_ACCESS) && defined(NDEBUG))
	/* pot's fast-mode writes are inline stores, unchecked. */
	if (!IS("pot")) {
		tcase_add_test_raise_signal(api, read_only_write_refused, SIGABRT);
		tcase_add_test_raise_signal(api, write_bytes_outside_tx_refused, SIGABRT);
		tcase_add_test_raise_signal(api, write_bytes_read_only_refused, SIGABRT);
	}
#endif
	suite_add_tcase(s, api);
	TCase *tx = tcase_create("tx");
	tcase_add_test(tx, typed_accesses);
	tcase_add_test(tx, subword_writes_keep_neighbours);
	tcase_add_test(tx, nesting_is_flattened);
	tcase_add_test(tx, restart_retries);
	tcase_add_test(tx, thread_stats_are_the_thread_own);
	tcase_add_test(tx, cancel_rolls_back);
	tcase_add_test(tx, cancel_restores_many_writes);
	tcase_add_test(tx, undo_log_forgets_between_transactions);
	tcase_add_test(tx, read_after_write_large_set);
	tcase_add_test(tx, write_set_sizes_in_sequence);
	tcase_add_test(tx, read_bytes_ranges);
	tcase_add_test(tx, write_bytes_ranges);
	tcase_add_test(tx, write_bytes_cancelled);
	tcase_add_test(tx, atomic_results);
	if (IS("seq"))
		tcase_add_test_raise_signal(tx, seq_cancel_is_fatal, SIGABRT);
	tcase_add_test(tx, malloc_undone_on_abort_free_deferred);
	tcase_add_test(tx, frees_batched_across_transactions);
	tcase_add_test(tx, big_batch_freed_at_commit);
	tcase_add_test(tx, frees_outside_reclaimed_while_running);
	if (IS("seq"))
		tcase_add_test(tx, seq_frees_at_commit);
	suite_add_tcase(s, tx);
	return potm_check_run(s);
}
