/*
 * tests/regression/htm/test_rtm_heap.c — transactions that allocate fresh
 * heap commit in hardware (htm_gl.h, potm_heap_prefault in lib/tx.c).
 *
 * A page fault aborts a hardware transaction without being served, so
 * every page the heap grows by would send one transaction to the fallback
 * lock.  After such an abort the backend maps the next stretch of the
 * heap and tries the hardware once more:
 *
 *  - one thread allocates and fills about a thousand fresh pages, each
 *    transaction its own block: nearly every transaction commits in
 *    hardware, and the fallbacks are a small fraction of the pages
 *    (without the stretch, about one per page);
 *  - every block holds what its transaction wrote, and all are freed.
 *
 * The counts are checked where the transactions run on the hardware and
 * malloc is the C library's (not under AddressSanitizer, whose allocator
 * keeps blocks of each size apart); elsewhere only the contents are.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <potm/tm.h>

#include "check_run.h"
#include "test_init.h"

#define N_BLOCKS 1500
#define BLOCK_BYTES 3000

static unsigned char *blocks[N_BLOCKS];

static bool counts_apply(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return false;
#else
	return test_htm_on_hardware();
#endif
}

static __attribute__((noinline)) void allocate_and_fill(int i)
{
	TM_BEGIN();
		/* No ck_assert in here: check marks its progress with a
		 * system call, which a hardware transaction cannot make. */
		unsigned char *b = tm_malloc(BLOCK_BYTES);
		if (b == NULL)
			abort();
		for (size_t k = 0; k < BLOCK_BYTES; k += sizeof(long))
			TM_STORE((long *)(b + k), (long)(i * 7 + k));
		TM_STORE(&blocks[i], b);
	TM_END();
}

START_TEST(fresh_heap_commits_in_hardware)
{
	setenv("POTM_HTM_COALESCE", "1", 1);   /* one transaction per attempt */
	test_tm_init(NULL);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	for (int i = 0; i < N_BLOCKS; i++)
		allocate_and_fill(i);
	for (int i = 0; i < N_BLOCKS; i++) {
		ck_assert_ptr_nonnull(blocks[i]);
		for (size_t k = 0; k < BLOCK_BYTES; k += sizeof(long))
			ck_assert_int_eq(*(long *)(blocks[i] + k), (long)(i * 7 + k));
		tm_free(blocks[i]);
	}
	tm_reclaim_barrier();
	tm_thread_exit();
	tm_stats_t s;
	ck_assert_int_eq(tm_stats(&s), 0);
	tm_shutdown();
	unsetenv("POTM_HTM_COALESCE");
	printf("fresh heap: %llu transactions, %llu in hardware, %llu fallbacks, "
	       "%llu other aborts\n", (unsigned long long)s.commits,
	       (unsigned long long)s.htm_commits, (unsigned long long)s.htm_fallbacks,
	       (unsigned long long)s.aborts_by_cause[TM_ABORT_HTM_OTHER]);
	ck_assert_uint_eq(s.commits, N_BLOCKS);
	ck_assert_uint_eq(s.allocs, N_BLOCKS);
	if (!counts_apply())
		return;
	/* N_BLOCKS * BLOCK_BYTES spans about 1,100 pages of 4 KiB. */
	ck_assert_uint_le(s.htm_fallbacks, N_BLOCKS / 15);
	ck_assert_uint_ge(s.htm_commits, N_BLOCKS - N_BLOCKS / 15);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rtm_heap");
	TCase *tc = tcase_create("heap");
	tcase_add_test(tc, fresh_heap_commits_in_hardware);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
