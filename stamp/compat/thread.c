/*
 * thread.c — drop-in replacement for STAMP 0.9.10's lib/thread.c, for potm
 * (see thread.h).
 *
 * The pool threads park at a pthread barrier between parallel regions:
 * there they are not registered with the TM, so no transactional order has
 * to know about them.  Inside a region every thread is registered, and the
 * barriers it may meet there (the entry barrier, thread_barrier_wait) are
 * tm barriers, which a deterministic backend orders like transactions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>

#include "thread.h"

#ifdef STM
#include <potm/tm.h>

/* Tells stm_potm.c that this thread library is linked: a deterministic
 * backend refuses to start with any other (stm_potm_startup). */
extern const int potm_stamp_compat_threads;
const int potm_stamp_compat_threads = 1;
#endif

struct thread_barrier {
	long numThread;
#ifdef STM
	tm_barrier_t barrier;
#else
	pthread_barrier_t barrier;
#endif
};

static long pool_numThread = 1;
static pthread_t *pool_threads;        /* [1..numThread-1]; 0 is the caller */
static long *pool_threadIds;
static pthread_barrier_t pool_barrier; /* start and end of each region */
static void (*pool_funcPtr)(void *);
static void *pool_argPtr;
static int pool_doShutdown;
static thread_barrier_t *pool_regionBarrier;  /* thread_barrier_wait */
#ifdef STM
static tm_barrier_t pool_enterBarrier;        /* all registered: go */
#endif

static __thread long thread_selfId;           /* 0 for the main thread */

static void thread_fatal(const char *what)
{
	fprintf(stderr, "thread: %s\n", what);
	exit(1);
}

/* ---- barriers ---------------------------------------------------------- */

thread_barrier_t *thread_barrier_alloc(long numThread)
{
	if (numThread < 1)
		thread_fatal("thread_barrier_alloc: need at least one thread");
	thread_barrier_t *b = malloc(sizeof *b);
	if (b == NULL)
		thread_fatal("thread_barrier_alloc: out of memory");
	b->numThread = numThread;
	return b;
}

void thread_barrier_init(thread_barrier_t *b)
{
#ifdef STM
	if (tm_barrier_init(&b->barrier, (unsigned)b->numThread) != 0)
		thread_fatal(tm_last_error());
#else
	if (pthread_barrier_init(&b->barrier, NULL, (unsigned)b->numThread) != 0)
		thread_fatal("thread_barrier_init: pthread_barrier_init failed");
#endif
}

void thread_barrier_free(thread_barrier_t *b)
{
	if (b == NULL)
		return;
#ifdef STM
	tm_barrier_destroy(&b->barrier);
#else
	pthread_barrier_destroy(&b->barrier);
#endif
	free(b);
}

void thread_barrier(thread_barrier_t *b, long threadId)
{
	(void)threadId;   /* the original's tree barrier needed it */
#ifdef STM
	tm_barrier_wait(&b->barrier);
#else
	pthread_barrier_wait(&b->barrier);
#endif
}

/* ---- the pool ------------------------------------------------------------ */

static void run_region(long id)
{
#ifdef STM
	/* Registered before the region's first transaction and all together
	 * (the entry barrier), so a deterministic backend starts every region
	 * with the same threads in the same order.  A program that runs a
	 * region before TM_STARTUP (no TM yet) leaves registration to its
	 * TM_THREAD_ENTER. */
	int registered = 0;
	if (tm_current_config() != NULL) {
		if (tm_thread_enter((unsigned)id) != 0)
			thread_fatal(tm_last_error());
		registered = 1;
		tm_barrier_wait(&pool_enterBarrier);
	}
#endif
	pool_funcPtr(pool_argPtr);
#ifdef STM
	if (registered)
		tm_thread_exit();
#endif
}

static void *pool_main(void *argPtr)
{
	long id = *(long *)argPtr;
	thread_selfId = id;
	for (;;) {
		pthread_barrier_wait(&pool_barrier);   /* region start */
		if (pool_doShutdown)
			break;
		run_region(id);
		pthread_barrier_wait(&pool_barrier);   /* region end */
	}
	return NULL;
}

void thread_startup(long numThread)
{
	if (numThread < 1)
		thread_fatal("thread_startup: need at least one thread");
	pool_numThread = numThread;
	pool_doShutdown = 0;
	if (pthread_barrier_init(&pool_barrier, NULL, (unsigned)numThread) != 0)
		thread_fatal("thread_startup: pthread_barrier_init failed");
	pool_regionBarrier = thread_barrier_alloc(numThread);
	thread_barrier_init(pool_regionBarrier);
#ifdef STM
	if (tm_barrier_init(&pool_enterBarrier, (unsigned)numThread) != 0)
		thread_fatal(tm_last_error());
#endif
	pool_threadIds = malloc(numThread * sizeof *pool_threadIds);
	pool_threads = malloc(numThread * sizeof *pool_threads);
	if (pool_threadIds == NULL || pool_threads == NULL)
		thread_fatal("thread_startup: out of memory");
	thread_selfId = 0;
	pool_threadIds[0] = 0;
	for (long i = 1; i < numThread; i++) {
		pool_threadIds[i] = i;
		if (pthread_create(&pool_threads[i], NULL, pool_main, &pool_threadIds[i]) != 0)
			thread_fatal("thread_startup: pthread_create failed");
	}
}

void thread_start(void (*funcPtr)(void *), void *argPtr)
{
	pool_funcPtr = funcPtr;
	pool_argPtr = argPtr;
	pthread_barrier_wait(&pool_barrier);   /* release the pool */
	run_region(0);
	pthread_barrier_wait(&pool_barrier);   /* wait for everyone */
}

void thread_shutdown(void)
{
	pool_doShutdown = 1;
	pthread_barrier_wait(&pool_barrier);
	for (long i = 1; i < pool_numThread; i++)
		pthread_join(pool_threads[i], NULL);
	pthread_barrier_destroy(&pool_barrier);
	thread_barrier_free(pool_regionBarrier);
	pool_regionBarrier = NULL;
#ifdef STM
	tm_barrier_destroy(&pool_enterBarrier);
#endif
	free(pool_threads);
	free(pool_threadIds);
	pool_threads = NULL;
	pool_threadIds = NULL;
	pool_numThread = 1;
}

long thread_getId(void)
{
	return thread_selfId;
}

long thread_getNumThread(void)
{
	return pool_numThread;
}

void thread_barrier_wait(void)
{
	thread_barrier(pool_regionBarrier, thread_getId());
}
