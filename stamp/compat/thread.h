/*
 * thread.h — drop-in replacement for STAMP 0.9.10's lib/thread.h, for potm.
 *
 * A pool of numThread threads (the caller is thread 0) that runs one
 * function at a time: thread_start() runs fn(arg) on every thread and
 * returns when all have finished.  Unlike the original:
 *  - any thread count works (the original barrier needs a power of two);
 *  - with -DSTM each thread is registered with potm (tm_thread_enter, id =
 *    thread_getId()) before fn runs, all of them meet at a tm barrier, and
 *    each is unregistered after fn: a deterministic backend sees the same
 *    threads from the first transaction on;
 *  - thread_barrier_wait() is a tm barrier with -DSTM, so a deterministic
 *    backend's order does not stall on threads parked at it; a
 *    deterministic backend therefore refuses to start without this library
 *    (thread.c's potm_stamp_compat_threads, checked by STM_STARTUP).
 */
#ifndef THREAD_H
#define THREAD_H 1

#include <pthread.h>
#include <stdlib.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pthread wrappers of the original interface. */
#define THREAD_T                            pthread_t
#define THREAD_ATTR_T                       pthread_attr_t
#define THREAD_ATTR_INIT(attr)              pthread_attr_init(&(attr))
#define THREAD_JOIN(tid)                    pthread_join((tid), (void **)NULL)
#define THREAD_CREATE(tid, attr, fn, arg)   pthread_create(&(tid), &(attr), \
                                                (void *(*)(void *))(fn), (void *)(arg))

#define THREAD_LOCAL_T                      pthread_key_t
#define THREAD_LOCAL_INIT(key)              pthread_key_create(&(key), NULL)
#define THREAD_LOCAL_SET(key, val)          pthread_setspecific((key), (void *)(val))
#define THREAD_LOCAL_GET(key)               pthread_getspecific(key)

#define THREAD_MUTEX_T                      pthread_mutex_t
#define THREAD_MUTEX_INIT(lock)             pthread_mutex_init(&(lock), NULL)
#define THREAD_MUTEX_LOCK(lock)             pthread_mutex_lock(&(lock))
#define THREAD_MUTEX_UNLOCK(lock)           pthread_mutex_unlock(&(lock))

#define THREAD_COND_T                       pthread_cond_t
#define THREAD_COND_INIT(cond)              pthread_cond_init(&(cond), NULL)
#define THREAD_COND_SIGNAL(cond)            pthread_cond_signal(&(cond))
#define THREAD_COND_BROADCAST(cond)         pthread_cond_broadcast(&(cond))
#define THREAD_COND_WAIT(cond, lock)        pthread_cond_wait(&(cond), &(lock))

/* A barrier among a fixed number of threads (a tm barrier with -DSTM). */
typedef struct thread_barrier thread_barrier_t;

#define THREAD_BARRIER_T                    thread_barrier_t
#define THREAD_BARRIER_ALLOC(N)             thread_barrier_alloc(N)
#define THREAD_BARRIER_INIT(bar, N)         thread_barrier_init(bar)
#define THREAD_BARRIER(bar, tid)            thread_barrier((bar), (tid))
#define THREAD_BARRIER_FREE(bar)            thread_barrier_free(bar)

thread_barrier_t *thread_barrier_alloc(long numThread);
void thread_barrier_free(thread_barrier_t *barrierPtr);
void thread_barrier_init(thread_barrier_t *barrierPtr);
void thread_barrier(thread_barrier_t *barrierPtr, long threadId);

/* Create the pool: numThread >= 1 threads in all, the caller included. */
void thread_startup(long numThread);

/* Run funcPtr(argPtr) on every thread of the pool; the caller (thread 0)
 * takes part and returns when all have finished.  Main thread only. */
void thread_start(void (*funcPtr)(void *), void *argPtr);

/* Stop and join the pool. */
void thread_shutdown(void);

/* 0..numThread-1 inside a parallel region; 0 outside. */
long thread_getId(void);

/* numThread as given to thread_startup (1 before it). */
long thread_getNumThread(void);

/* Barrier among all threads of the pool, inside a parallel region. */
void thread_barrier_wait(void);

#ifdef __cplusplus
}
#endif
#endif /* THREAD_H */
