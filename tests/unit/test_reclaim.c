/*
 * tests/unit/test_reclaim.c — reclamation of tm_free'd blocks
 * (lib/reclaim.c): grace periods, the batch paths, aborted attempts.
 *
 *  - grace period: a block freed by a committed transaction stays with
 *    the program while another thread is still inside a transaction that
 *    began before the free and holds a pointer to it (the reader checks
 *    the block's contents after the free committed; tm_reclaim_barrier in
 *    the freeing thread does not return meanwhile); once the reader has
 *    left, the barrier returns and the block is back with the allocator
 *    (on tl2, and on pot in the modes where one transaction runs while
 *    another commits);
 *  - tm_shutdown returns what exited threads freed;
 *  - an aborted attempt's tm_malloc, and a cancelled transaction's, go
 *    back to the allocator at once;
 *  - the polled path: a thread alone that frees at least 192 blocks
 *    (POTM_RECLAIM_POLLED) in one transaction has them back at its commit
 *    (where membarrier is available); 191 go to call_rcu, and so do 192
 *    when another thread is registered: none of them is back before the
 *    freeing thread's tm_reclaim_barrier (call_rcu returns a batch to its
 *    owner, which frees it at its next flush);
 *  - tm_free outside a transaction is deferred the same way;
 *  - seq, which runs one thread at a time, frees at commit, and so do the
 *    hardware backends (rtm, pot-rtm, rot, pot-rot), with any number of
 *    threads: a hardware transaction that reached a block is aborted by
 *    the store that unlinks it.
 *
 * "Back with the allocator" is seen two ways: tm_stats().reclaimed, and
 * the allocator itself.  The big blocks are above the mmap threshold (set
 * in main), so glibc maps each for itself and unmaps it as soon as it is
 * freed: whether its first page is still mapped says whether it was
 * freed.  Under AddressSanitizer the allocator says whether a block is
 * live, and an early free would also be a reported use after free.
 */
#define _GNU_SOURCE
#include "test_pot_util.h"

#include <check.h>
#include <linux/membarrier.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define POTM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POTM_TEST_ASAN 1
#endif
#endif
#ifdef POTM_TEST_ASAN
/* The sanitizer runtime's (sanitizer/allocator_interface.h, which GCC
 * does not install): nonzero if p is a live block of its allocator. */
int __sanitizer_get_ownership(const volatile void *p);
#endif

#define IS(b) (strcmp(tm_backend_name(), b) == 0)

/* A committed free goes back to the allocator at once (frees_at_commit in
 * lib/potm_internal.h). */
static bool frees_at_commit(void)
{
	return IS("seq") || IS("rtm") || IS("pot-rtm") || IS("rot") || IS("pot-rot");
}

#define BIG ((size_t)4 << 20)         /* well above the mmap threshold */
#define MMAP_THRESHOLD (256 * 1024)
#define POLLED 192                    /* POTM_RECLAIM_POLLED */

/* Whether the BIG block at address a is still allocated (an address,
 * not a pointer: it is asked after the free too).  Ask before anything
 * else of BIG's size is allocated: glibc may map a new block where a
 * freed one was. */
static bool allocated_at(uintptr_t a)
{
#ifdef POTM_TEST_ASAN
	return __sanitizer_get_ownership((const void *)a) != 0;
#else
	unsigned char v;
	return mincore((void *)(a & ~(uintptr_t)4095), 4096, &v) == 0;
#endif
}
#define block_allocated(p) allocated_at((uintptr_t)(p))

static void start(void)
{
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
	ck_assert_int_eq(tm_thread_enter(0), 0);
}

static void stop(void)
{
	tm_thread_exit();
	tm_shutdown();
}

static uint64_t reclaimed(void)
{
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	return s.reclaimed;
}

static bool membarrier_available(void)
{
	long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	return q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}

/* A BIG block whose bytes say which it is. */
static unsigned char *big_block(unsigned char tag)
{
	unsigned char *p = tm_malloc(BIG);
	ck_assert_ptr_nonnull(p);
	memset(p, tag, BIG);
	return p;
}

static bool big_block_intact(const unsigned char *p, unsigned char tag)
{
	for (size_t i = 0; i < BIG; i += 4096)
		if (p[i] != tag || p[i + 4095] != tag)
			return false;
	return true;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* ---- the grace period -------------------------------------------------- */

/* The Pot modes in which a transaction runs while another commits (PoGL's
 * wait for their turn at begin). */
static const char *const spec_modes[] = { "pot", "pot-fast", "pot-ordered", "destm" };
#define N_SPEC_MODES 4

static unsigned char *shared, *block;
static volatile int reader_inside, writer_committed, writer_barrier_done;
static volatile int reader_checked, reader_saw_barrier, reader_saw_block;
static volatile int writer_block_after;
static uint64_t writer_reclaimed_inside, writer_reclaimed_after;

#define TAG 0x5a
#define READER_PATIENCE_MS 300   /* how long the reader stays inside */

static void reader(void)
{
	volatile bool first = true;
	TM_BEGIN();
		unsigned char *p = TM_LOAD(&shared);
		/* Only the first attempt waits: a retry (the writer changed
		 * shared) finds NULL or must not wait again. */
		if (first && p != NULL) {
			first = false;
			reader_inside = 1;
			while (!writer_committed)
				sched_yield();
			/* Give a reclamation that ignored this transaction the
			 * time to happen: the barrier would return, the block
			 * would be freed. */
			for (int i = 0; i < READER_PATIENCE_MS && !writer_barrier_done; i++)
				sleep_ms(1);
			reader_saw_barrier = writer_barrier_done;
			/* A field written before publication, read through a
			 * pointer this transaction loaded: tm.h allows the
			 * plain read while the grace period lasts. */
			reader_saw_block = block_allocated(p) && big_block_intact(p, TAG);
			reader_checked = 1;
		}
		first = false;
	TM_END();
}

static void writer(void)
{
	while (!reader_inside)
		sched_yield();
	TM_BEGIN();
		unsigned char *p = TM_LOAD(&shared);
		TM_STORE(&shared, (unsigned char *)NULL);
		tm_free(p);
	TM_END();
	writer_committed = 1;
	writer_reclaimed_inside = reclaimed();
	tm_reclaim_barrier();   /* returns once the reader has left */
	writer_barrier_done = 1;
	writer_reclaimed_after = reclaimed();
	writer_block_after = block_allocated(block);
}

static void grace_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 0)
		writer();
	else
		reader();
}

START_TEST(test_grace_period_waits_for_reader)
{
	if (strncmp(tm_backend_name(), "pot", 3) == 0)
		pot_use_mode(spec_modes[_i]);
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
	/* Published before the threads start: plain stores. */
	shared = block = malloc(BIG);
	memset(shared, TAG, BIG);
	pot_run_threads(2, grace_thread, NULL);
	ck_assert_msg(reader_checked, "the reader never held the block");
	ck_assert_msg(!reader_saw_barrier, "tm_reclaim_barrier returned while a "
	              "transaction that read the block was still running");
	ck_assert_msg(reader_saw_block, "the block was freed or changed while a "
	              "transaction that read it was still running");
	ck_assert_uint_eq(writer_reclaimed_inside, 0);
	ck_assert_uint_eq(writer_reclaimed_after, 1);
	ck_assert_msg(!writer_block_after, "the block is still allocated after the "
	              "grace period and tm_reclaim_barrier");
	tm_shutdown();
}
END_TEST

/* ---- shutdown ---------------------------------------------------------- */

static unsigned char *kept;

START_TEST(test_shutdown_returns_exited_frees)
{
	start();
	TM_BEGIN();
		TM_STORE(&kept, big_block(TAG));
	TM_END();
	unsigned char *b = kept;
	TM_BEGIN();
		tm_free(TM_LOAD(&kept));
		TM_STORE(&kept, (unsigned char *)NULL);
	TM_END();
	/* Committed, not reclaimed: it waits in the thread's batch.  seq
	 * and the hardware backends, where no other transaction can hold
	 * it, free it at commit. */
	if (frees_at_commit()) {
		ck_assert(!block_allocated(b));
		stop();
		return;
	}
	ck_assert(block_allocated(b));
	tm_thread_exit();   /* hands the batch over */
	tm_shutdown();      /* waits for it */
	ck_assert_msg(!block_allocated(b), "a block freed by an exited thread is "
	              "still allocated after tm_shutdown");
}
END_TEST

/* ---- aborted and cancelled attempts ------------------------------------ */

#define ATTEMPTS 3
static unsigned char *volatile attempt_block[ATTEMPTS];
static volatile int attempt_prev_allocated[ATTEMPTS];
static volatile int attempts;

/* A backend whose aborts include hardware ones (their count is the
 * hardware's business). */
static bool is_htm(void)
{
	return IS("rtm") || IS("pot-rtm") || IS("rot") || IS("pot-rot");
}

START_TEST(test_aborted_attempt_memory_freed)
{
	start();
	attempts = 0;
	TM_BEGIN();
		int a = attempts;
		/* Before allocating anything: the previous attempt's block. */
		if (a > 0)
			attempt_prev_allocated[a] = block_allocated(attempt_block[a - 1]);
		unsigned char *p = big_block((unsigned char)(1 + a));
		attempt_block[a] = p;
		attempts = a + 1;
		if (a + 1 < ATTEMPTS)
			tm_restart();
		TM_STORE(&kept, p);
	TM_END();
	ck_assert_int_eq(attempts, ATTEMPTS);
	for (int a = 1; a < ATTEMPTS; a++)
		ck_assert_msg(!attempt_prev_allocated[a], "attempt %d's block was still "
		              "allocated when attempt %d began", a - 1, a);
	ck_assert(kept == attempt_block[ATTEMPTS - 1]);
	ck_assert(block_allocated(kept) && big_block_intact(kept, ATTEMPTS));

	/* A cancelled transaction's allocation is freed too. */
	static unsigned char *volatile cancelled;
	TM_BEGIN();
		unsigned char *q = big_block(9);
		cancelled = q;
		TM_STORE(&q[0], (unsigned char)3);
		tm_cancel();
	TM_END();
	ck_assert(tm_was_cancelled());
	ck_assert_msg(!block_allocated(cancelled), "a cancelled transaction's block "
	              "is still allocated");
	tm_stats_t s;
	tm_stats(&s);
	ck_assert_uint_eq(s.allocs, 1);   /* only the committed one counts */
	if (is_htm())
		ck_assert_uint_ge(s.aborts, ATTEMPTS - 1);
	else
		ck_assert_uint_eq(s.aborts, ATTEMPTS - 1);
	ck_assert_uint_eq(s.cancels, 1);
	stop();
}
END_TEST

/* The detector itself: a BIG block is allocated until freed. */
START_TEST(test_detector)
{
	void *p = malloc(BIG);
	uintptr_t a = (uintptr_t)p;
	ck_assert(allocated_at(a));
	free(p);
	ck_assert(!allocated_at(a));
}
END_TEST

/* ---- the batch paths --------------------------------------------------- */

static void *blocks[POLLED + 8];

static __attribute__((noinline)) void alloc_blocks(unsigned n)
{
	TM_BEGIN();
		for (unsigned i = 0; i < n; i++)
			TM_STORE(&blocks[i], tm_malloc(64));
	TM_END();
}

static __attribute__((noinline)) void free_blocks(unsigned n)
{
	TM_BEGIN();
		for (unsigned i = 0; i < n; i++) {
			tm_free(TM_LOAD(&blocks[i]));
			TM_STORE(&blocks[i], NULL);
		}
	TM_END();
}

/* Frees n blocks in one transaction; returns how many were back with the
 * allocator when TM_END returned.  After tm_reclaim_barrier all are. */
static uint64_t free_and_count(unsigned n)
{
	tm_stats_reset();
	alloc_blocks(n);
	free_blocks(n);
	uint64_t at_commit = reclaimed();
	tm_reclaim_barrier();
	ck_assert_uint_eq(reclaimed(), n);
	return at_commit;
}

START_TEST(test_polled_threshold_alone)
{
	start();
	if (frees_at_commit()) {
		/* Every free at its commit. */
		ck_assert_uint_eq(free_and_count(POLLED - 1), POLLED - 1);
		ck_assert_uint_eq(free_and_count(POLLED), POLLED);
		ck_assert_uint_eq(free_and_count(3), 3);
	} else {
		/* Below the mark: call_rcu, back with the owner at its next
		 * flush (the barrier). */
		ck_assert_uint_eq(free_and_count(POLLED - 1), 0);
		/* At the mark, alone: a polled grace period with nobody
		 * inside ends at once. */
		ck_assert_uint_eq(free_and_count(POLLED),
		                  membarrier_available() ? POLLED : 0);
		ck_assert_uint_eq(free_and_count(POLLED + 8),
		                  membarrier_available() ? POLLED + 8 : 0);
		/* A small batch waits in the thread's list, not even handed
		 * over. */
		ck_assert_uint_eq(free_and_count(3), 0);
	}
	stop();
}
END_TEST

static tm_barrier_t pair_bar;
static uint64_t pair_at_commit, pair_after;

static void pair_thread(unsigned id, void *arg)
{
	(void)arg;
	if (id == 0) {
		tm_stats_reset();
		alloc_blocks(POLLED + 8);
		free_blocks(POLLED + 8);
		pair_at_commit = reclaimed();
		tm_reclaim_barrier();
		pair_after = reclaimed();
	}
	/* Thread 1 waits here, registered (parked, with pot). */
	tm_barrier_wait(&pair_bar);
}

START_TEST(test_call_rcu_with_two_threads)
{
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
	ck_assert(tm_barrier_init(&pair_bar, 2) == 0);
	pot_run_threads(2, pair_thread, NULL);
	ck_assert(tm_barrier_destroy(&pair_bar) == 0);
	tm_shutdown();
	/* Another thread is registered: no polled grace period, even for a
	 * big batch; the hardware backends free at commit all the same. */
	ck_assert_uint_eq(pair_at_commit, frees_at_commit() ? POLLED + 8 : 0);
	ck_assert_uint_eq(pair_after, POLLED + 8);
}
END_TEST

/* ---- outside a transaction --------------------------------------------- */

static void *free_unregistered(void *p)
{
	tm_free(p);   /* no owner: the call_rcu callback frees it */
	return NULL;
}

START_TEST(test_free_outside_transaction)
{
	start();
	tm_stats_reset();
	void *p = tm_malloc(64);
	tm_free(p);
	/* Not asserted unreclaimed here: with no reader anywhere the
	 * callback's grace period may end at once (the readers' case is the
	 * grace period tests' above). */
	ck_assert_uint_le(reclaimed(), 1);
	tm_reclaim_barrier();
	ck_assert_uint_eq(reclaimed(), 1);
	pthread_t th;
	ck_assert(pthread_create(&th, NULL, free_unregistered, tm_malloc(64)) == 0);
	pthread_join(th, NULL);
	tm_reclaim_barrier();
	ck_assert_uint_eq(reclaimed(), 2);
	stop();
}
END_TEST

int main(void)
{
	/* Blocks of BIG's size are mapped for themselves and unmapped when
	 * freed (a fixed threshold: glibc would otherwise raise it after the
	 * first such free). */
#ifndef POTM_TEST_ASAN
	if (mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) != 1) {
		fprintf(stderr, "mallopt(M_MMAP_THRESHOLD) failed\n");
		return EXIT_FAILURE;
	}
#endif

	Suite *s = suite_create("reclaim");
	TCase *tc = tcase_create("reclaim");
	tcase_set_timeout(tc, 60);
	bool seq = IS("seq");
	if (IS("tl2"))
		tcase_add_test(tc, test_grace_period_waits_for_reader);
	else if (IS("pot"))
		tcase_add_loop_test(tc, test_grace_period_waits_for_reader, 0, N_SPEC_MODES);
	else
		printf("%s runs no transaction beside a committing one: the grace "
		       "period's reader case is not run\n", tm_backend_name());
	tcase_add_test(tc, test_detector);
	tcase_add_test(tc, test_shutdown_returns_exited_frees);
	if (!seq)   /* seq cannot roll back */
		tcase_add_test(tc, test_aborted_attempt_memory_freed);
	tcase_add_test(tc, test_polled_threshold_alone);
	if (!seq)   /* one thread at a time */
		tcase_add_test(tc, test_call_rcu_with_two_threads);
	tcase_add_test(tc, test_free_outside_transaction);
	suite_add_tcase(s, tc);
	return pot_run_suite(s);
}
