/*
 * tests/common/test_threads.h — running a test's work on registered threads.
 */
#ifndef POTM_TEST_THREADS_H
#define POTM_TEST_THREADS_H

#include <string.h>

#include <potm/tm.h>

/* One thread's work: its logical id and the number of threads. */
typedef void (*test_work_fn)(unsigned id, unsigned nthreads);

/* Run work(id, n) on n new threads registered as logical ids 0..n-1, which
 * meet at a tm barrier before working, so that all are members of the
 * order before any takes a turn (the determinism contract's rule 2).
 * enter and leave (either may be NULL) run on each thread right after it
 * registers and right before it unregisters: a layer's own registration
 * (Doppel's dp_thread_enter/exit).  Returns once every thread has exited;
 * the calling thread is not registered.  Fails the test (Check) if a
 * thread cannot be created or registered. */
void test_run_threads_hooked(unsigned n, test_work_fn work, void (*enter)(void),
                             void (*leave)(void));

static inline void test_run_threads(unsigned n, test_work_fn work)
{
	test_run_threads_hooked(n, work, 0, 0);
}

/* What a stress test divides its operation count by on this backend: 4
 * where every commit is handed from thread to thread in a fixed order
 * (gl's FIFO lock, Pot's order), else 1.  There each handoff waits until
 * the next thread in line runs, a scheduling quantum whenever threads
 * outnumber the free cores (oversubscribed tests, or ctest -j beside
 * another test); the same checks hold on fewer operations. */
static inline long test_handoff_divisor(void)
{
	/* Asked in loop conditions: decided once, then a load. */
	static long divisor;
	long d = __atomic_load_n(&divisor, __ATOMIC_RELAXED);
	if (d == 0) {
		d = tm_is_deterministic() || strcmp(POTM_BACKEND_NAME, "gl") == 0 ? 4 : 1;
		__atomic_store_n(&divisor, d, __ATOMIC_RELAXED);
	}
	return d;
}

#endif /* POTM_TEST_THREADS_H */
