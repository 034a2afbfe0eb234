/*
 * tests/common/test_threads.c — see test_threads.h.
 */
#include "test_threads.h"

#include <potm/tm.h>

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* One run at a time: a test's threads all read this while it lasts. */
static struct {
	tm_barrier_t start_line;
	test_work_fn work;
	void (*enter)(void);
	void (*leave)(void);
	unsigned threads;
} run;

static void *test_thread_main(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	ck_assert_msg(tm_thread_enter(id) == 0, "tm_thread_enter(%u): %s", id, tm_last_error());
	if (run.enter)
		run.enter();
	tm_barrier_wait(&run.start_line);
	run.work(id, run.threads);
	if (run.leave)
		run.leave();
	tm_thread_exit();
	return NULL;
}

void test_run_threads_hooked(unsigned n, test_work_fn work, void (*enter)(void),
                             void (*leave)(void))
{
	ck_assert_int_eq(tm_barrier_init(&run.start_line, n), 0);
	run.work = work;
	run.enter = enter;
	run.leave = leave;
	run.threads = n;
	pthread_t *th = calloc(n, sizeof *th);
	ck_assert_ptr_nonnull(th);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, test_thread_main,
		                                (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	tm_barrier_destroy(&run.start_line);
}
