/*
 * own_threads.c — a program built the way STAMP's "minimal" recipe builds
 * one: STAMP's own thread library kept (here a stand-in for it), only
 * STM=<tl2-compat/<b>> given to Makefile.stm.  Its threads register through
 * STM_INIT_THREAD and meet at a mutex/condition-variable barrier that the
 * TM cannot see.
 *
 * A backend that is not deterministic runs it: exit 0 and "own-threads:
 * ok".  A deterministic backend must refuse it in STM_STARTUP (exit 1 and
 * a message naming the compat thread library), since its order would wait
 * for a registered thread parked at that barrier.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <stm.h>

#define NTHREADS 2
#define PHASES   2
#define TXS      100

static long counter;

/* The barrier of STAMP's lib/thread.c, in short: a mutex, a condition
 * variable and a generation count. */
static pthread_mutex_t barrier_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t barrier_cond = PTHREAD_COND_INITIALIZER;
static unsigned barrier_arrived;
static unsigned barrier_generation;

static void own_barrier(void)
{
	pthread_mutex_lock(&barrier_lock);
	unsigned gen = barrier_generation;
	if (++barrier_arrived == NTHREADS) {
		barrier_arrived = 0;
		barrier_generation++;
		pthread_cond_broadcast(&barrier_cond);
	} else {
		while (gen == barrier_generation)
			pthread_cond_wait(&barrier_cond, &barrier_lock);
	}
	pthread_mutex_unlock(&barrier_lock);
}

/* One transaction, in a function of its own: no local of the caller lives
 * across its setjmp. */
static void increment(void)
{
	STM_BEGIN_WR();
	STM_WRITE(counter, STM_READ(counter) + 1);
	STM_END();
}

static void *worker(void *arg)
{
	long id = (long)(intptr_t)arg;
	STM_THREAD_T *STM_SELF = STM_NEW_THREAD();
	STM_INIT_THREAD(STM_SELF, id);
	for (int phase = 0; phase < PHASES; phase++) {
		for (int i = 0; i < TXS; i++)
			increment();
		own_barrier();
	}
	STM_FREE_THREAD(STM_SELF);
	return NULL;
}

int main(void)
{
	pthread_t threads[NTHREADS];
	STM_STARTUP();
	for (long i = 1; i < NTHREADS; i++) {
		if (pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i) != 0) {
			fprintf(stderr, "own-threads: pthread_create failed\n");
			return 1;
		}
	}
	worker((void *)(intptr_t)0);
	for (long i = 1; i < NTHREADS; i++)
		pthread_join(threads[i], NULL);
	STM_SHUTDOWN();
	if (counter != (long)NTHREADS * PHASES * TXS) {
		fprintf(stderr, "own-threads: counter %ld, expected %ld\n", counter,
		        (long)NTHREADS * PHASES * TXS);
		return 1;
	}
	printf("own-threads: ok\n");
	return 0;
}
