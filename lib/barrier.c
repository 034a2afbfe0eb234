/*
 * lib/barrier.c — tm_barrier_*, and the ordering calls of tm.h, for every
 * backend.
 *
 * A plain sense-reversing barrier: arrivals are counted under a small lock,
 * the arrival that completes the count bumps the generation and wakes the
 * others, which wait (spin, yield, then futex) for the generation to move.
 *
 * With a deterministic backend (potm_backend.order != NULL) a registered
 * thread's arrival is an event in the order.  It first waits for its turn
 * (order->arrive), so arrivals are counted in a deterministic sequence;
 * a thread that does not complete the barrier parks (order->park: it stops
 * holding turns, so nobody waits for it while it sleeps here); the arrival
 * that completes it hands the parked threads back (order->release).
 * Invariant: parked[0..nparked) are exactly the registered threads asleep
 * in the current generation.
 */
#include "potm_internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BARRIER_SPINS 256
#define BARRIER_YIELDS 16

static void barrier_lock(tm_barrier_t *b)
{
	unsigned spins = 0;
	while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE) != 0) {
		/* Held for a few instructions, unless its owner lost its CPU. */
		if (++spins < 64)
			potm_cpu_relax();
		else
			sched_yield();
	}
}

static void barrier_unlock(tm_barrier_t *b)
{
	__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
}

int tm_barrier_init(tm_barrier_t *b, unsigned count)
{
	if (b == NULL || count == 0)
		return potm_error("tm_barrier_init: need a barrier and count >= 1 "
		                  "(count = %u)", count);
	memset(b, 0, sizeof *b);
	b->count = count;
	b->parked = malloc(sizeof(unsigned) * count);
	if (b->parked == NULL)
		return potm_error("tm_barrier_init: out of memory");
	return 0;
}

int tm_barrier_destroy(tm_barrier_t *b)
{
	barrier_lock(b);
	unsigned waiting = b->arrived;
	barrier_unlock(b);
	if (waiting != 0)
		return potm_error("tm_barrier_destroy: %u thread(s) still wait on it",
		                  waiting);
	free(b->parked);
	b->parked = NULL;
	b->count = 0;
	return 0;
}

/* Sleep until the generation moves on from gen. */
static void barrier_wait_generation(tm_barrier_t *b, uint32_t gen)
{
	for (unsigned i = 0; __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) == gen; i++) {
		if (i < BARRIER_SPINS)
			potm_cpu_relax();
		else if (i < BARRIER_SPINS + BARRIER_YIELDS)
			sched_yield();
		else
			syscall(SYS_futex, &b->generation, FUTEX_WAIT_PRIVATE, gen,
			        NULL, NULL, 0);
	}
}

int tm_barrier_wait(tm_barrier_t *b)
{
	potm_thread_t *t = potm_self();
	if (t != NULL && t->txd.depth != 0)
		tm_misuse_("tm_barrier_wait inside a transaction");
	if (b->parked == NULL)
		tm_misuse_("tm_barrier_wait on a barrier that was not initialized "
		           "(tm_barrier_init) or was destroyed");
	if (t != NULL && potm_backend.flush)
		potm_backend.flush(t);
	const potm_order_ops_t *order = potm_backend.order;
	bool ordered = order != NULL && t != NULL;

	if (ordered)
		order->arrive(t);
	barrier_lock(b);
	uint32_t gen = b->generation;
	if (++b->arrived < b->count) {
		if (ordered) {
			b->parked[b->nparked++] = t->id;
			order->park(t);
		}
		barrier_unlock(b);
		barrier_wait_generation(b, gen);
		return 0;
	}
	/* This arrival completes the barrier. */
	if (order != NULL)
		order->release(t, b->parked, b->nparked);
	b->nparked = 0;
	b->arrived = 0;
	__atomic_store_n(&b->generation, gen + 1, __ATOMIC_RELEASE);
	barrier_unlock(b);
	syscall(SYS_futex, &b->generation, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	return TM_BARRIER_SERIAL;
}

/* ---- explicit order and order queries --------------------------------------- */

bool tm_is_deterministic(void)
{
	return potm_backend.order != NULL;
}

uint64_t tm_last_order(void)
{
	potm_thread_t *t = potm_self();
	const potm_order_ops_t *order = potm_backend.order;
	if (t == NULL || order == NULL || order->last_order == NULL)
		return TM_ORDER_NONE;
	return order->last_order(t);
}

int tm_order_reached(void)
{
	potm_thread_t *t = potm_self();
	if (t == NULL || !tm_in_tx())
		return potm_error("tm_order_reached: called outside a transaction");
	const potm_order_ops_t *order = potm_backend.order;
	if (order == NULL || order->turn_reached == NULL)
		return 1;
	return order->turn_reached(t) ? 1 : 0;
}

/* The caller of an order setting (fn): a registered thread outside any
 * transaction, or NULL after potm_error. */
int tm_set_next_order(uint64_t seqno)
{
	potm_thread_t *t = potm_caller_between_tx("tm_set_next_order");
	const potm_order_ops_t *order = potm_backend.order;
	if (t == NULL)
		return -1;
	if (order == NULL || order->set_next_order == NULL)
		return potm_error("tm_set_next_order: the %s backend has no "
		                  "deterministic order; use the pot backend with "
		                  "POTM_SEQUENCER=explicit", potm_backend.name);
	return order->set_next_order(t, seqno);
}

int tm_set_next_order_key(uint64_t seqno, uint64_t key)
{
	potm_thread_t *t = potm_caller_between_tx("tm_set_next_order_key");
	const potm_order_ops_t *order = potm_backend.order;
	if (t == NULL)
		return -1;
	if (order == NULL || order->set_next_order_key == NULL)
		return potm_error("tm_set_next_order_key: the %s backend has no "
		                  "deterministic order; use the pot backend with "
		                  "POTM_SEQUENCER=explicit", potm_backend.name);
	return order->set_next_order_key(t, seqno, key);
}

int tm_set_weight(unsigned weight)
{
	const potm_order_ops_t *order = potm_backend.order;
	if (weight < 1 || weight > TM_WEIGHT_MAX)
		return potm_error("tm_set_weight(%u): a weight is 1..%u", weight,
		                  TM_WEIGHT_MAX);
	potm_thread_t *t = potm_caller_between_tx("tm_set_weight");
	if (t == NULL)
		return -1;
	if (order == NULL || order->set_weight == NULL)
		return 0;   /* no order to weigh: a hint without effect */
	return order->set_weight(t, weight);
}
