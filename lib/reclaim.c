/*
 * lib/reclaim.c — deferred reclamation of tm_free'd blocks.
 *
 * A block a transaction frees may still be read by a concurrent
 * transaction that loaded the pointer before the unlink committed (a
 * doomed speculative reader, a tl2 reader that will fail validation).  So
 * it goes back to the allocator only after an RCU grace period of the memb
 * flavour: rcu_read_lock is taken at begin and dropped at commit, so a
 * grace period ends only once every transaction running at the unlink has
 * left.
 *
 * The grace period is urcu's (call_rcu); the free() is the owner's.  The
 * call_rcu thread does not free a registered thread's blocks itself: it
 * pushes the batch onto the owner's inbox, and the owner frees it at its
 * next flush.  Freeing in the call_rcu thread made the allocator the
 * bottleneck of allocation-heavy transactions (STMBench7's OP11 copies
 * 4,000 text chunks: 545 us on seq against 240 us for the same code with
 * plain free, perf: the two threads fighting over the owner's arena lock,
 * and the owner growing its heap with fresh zeroed pages because its own
 * frees came back late and to another thread's cache).  In the owner, a
 * free goes to its own tcache and arena and the next malloc reuses it.
 *
 * Invariants:
 *  R1  A block reaches free() only after a grace period that started after
 *      its free committed (call_rcu is called at the flush, after commit).
 *  R2  An inbox is freed by whoever drops its last reference: the owner
 *      holds one until it exits, each batch in flight holds one.
 *  R3  Once the owner has closed its inbox (exit), callbacks free the
 *      batches they would have pushed: the exchange that closes it and the
 *      CAS that pushes are ordered on the inbox's head.
 */
#include "potm_internal.h"

#include <stdlib.h>
#include <urcu/urcu-memb.h>

struct reclaim_batch {
	struct rcu_head head;
	struct reclaim_batch *next;        /* in the owner's inbox */
	struct potm_reclaim_inbox *inbox;  /* NULL: no owner, free in the callback */
	size_t n;
	void *ptrs[];
};

struct potm_reclaim_inbox {
	struct reclaim_batch *ready;  /* atomic: batches past their grace period */
	unsigned long refs;           /* atomic: the owner + batches in flight (R2) */
} POTM_ALIGNED;

/* The head of a closed inbox (R3). */
#define INBOX_CLOSED ((struct reclaim_batch *)1)

void potm_count_reclaimed(size_t n);

static void batch_free(struct reclaim_batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->ptrs[i]);
	potm_count_reclaimed(b->n);
	free(b);
}

/* Free a chain of batches taken from an inbox. */
static void batch_free_chain(struct reclaim_batch *b)
{
	while (b != NULL && b != INBOX_CLOSED) {
		struct reclaim_batch *next = b->next;
		batch_free(b);
		b = next;
	}
}

static void inbox_put(struct potm_reclaim_inbox *in)
{
	if (__atomic_sub_fetch(&in->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(in);
}

/* call_rcu callback: the grace period is over (R1).  Hand the batch to its
 * owner, or free it if there is none any more. */
static void batch_grace_over(struct rcu_head *h)
{
	struct reclaim_batch *b = caa_container_of(h, struct reclaim_batch, head);
	struct potm_reclaim_inbox *in = b->inbox;
	if (in == NULL) {
		batch_free(b);
		return;
	}
	struct reclaim_batch *old = __atomic_load_n(&in->ready, __ATOMIC_RELAXED);
	for (;;) {
		if (old == INBOX_CLOSED) {
			batch_free(b);
			break;
		}
		b->next = old;
		/* Release: the owner that takes the batch sees b->next. */
		if (__atomic_compare_exchange_n(&in->ready, &old, b, true,
		                                __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			break;
	}
	inbox_put(in);
}

/* Hand n blocks to reclamation; their frees have committed (or happened
 * outside any transaction).  t: the owner (frees them when they come back),
 * or NULL. */
void potm_reclaim_defer(potm_thread_t *t, void **ptrs, size_t n)
{
	struct reclaim_batch *b = potm_xmalloc(sizeof *b + n * sizeof(void *));
	b->next = NULL;
	b->inbox = t ? t->inbox : NULL;
	b->n = n;
	memcpy(b->ptrs, ptrs, n * sizeof(void *));
	if (b->inbox)
		__atomic_add_fetch(&b->inbox->refs, 1, __ATOMIC_RELAXED);
	urcu_memb_call_rcu(&b->head, batch_grace_over);
}

/* Free the batches whose grace period has ended.  An empty inbox costs one
 * load. */
static void reclaim_drain(potm_thread_t *t)
{
	if (__atomic_load_n(&t->inbox->ready, __ATOMIC_RELAXED) == NULL)
		return;
	batch_free_chain(__atomic_exchange_n(&t->inbox->ready, NULL, __ATOMIC_ACQUIRE));
}

/* Hand the committed transactions' frees to reclamation, and free what came
 * back.  A thread gathers its frees over several transactions first
 * (POTM_RECLAIM_BATCH): one call_rcu and one batch per transaction cost
 * more than the transaction itself when it is a hash-set removal, and the
 * call_rcu thread's work grows with the number of callbacks.  Handing a
 * block over later than its commit is always safe: the grace period only
 * has to start after the unlink. */
void potm_reclaim_flush(potm_thread_t *t)
{
	/* Called outside a transaction or right after its commit: every
	 * entry is a committed one. */
	reclaim_drain(t);
	if (t->frees_committed == 0)
		return;
	potm_reclaim_defer(t, t->frees.v, t->frees_committed);
	t->frees.n = t->frees_committed = 0;
}

/* Free the committed transactions' frees at once: for a backend that runs
 * one thread at a time (seq), no transaction can still hold a pointer to
 * them, so they go back to the allocator at commit, as a sequential
 * program's free() would.  Deferred (a batch, call_rcu, the grace period,
 * the owner's next flush), they cost the backend that sets the limit for
 * the others: STMBench7 with structural modifications on (OP11 replaces
 * 252 text chunks, SM2 deletes whole composite parts), 1 thread, went
 * from 86,245 to 130,862 ops/s on rw. */
void potm_reclaim_now(potm_thread_t *t)
{
	reclaim_drain(t);
	for (size_t i = 0; i < t->frees_committed; i++)
		free(t->frees.v[i]);
	potm_count_reclaimed(t->frees_committed);
	t->frees.n = t->frees_committed = 0;
}

void potm_reclaim_thread_init(potm_thread_t *t)
{
	struct potm_reclaim_inbox *in;
	if (posix_memalign((void **)&in, POTM_CACHELINE, sizeof *in) != 0)
		potm_fatal("out of memory (reclamation inbox)");
	in->ready = NULL;
	in->refs = 1;
	t->inbox = in;
}

/* The owner leaves: its batches still in flight will be freed by their
 * callbacks (R3); what already came back is freed now. */
void potm_reclaim_thread_exit(potm_thread_t *t)
{
	potm_reclaim_flush(t);
	struct potm_reclaim_inbox *in = t->inbox;
	t->inbox = NULL;
	batch_free_chain(__atomic_exchange_n(&in->ready, INBOX_CLOSED, __ATOMIC_ACQ_REL));
	inbox_put(in);
}

void tm_reclaim_barrier(void)
{
	if (tm_in_tx())
		tm_misuse_("tm_reclaim_barrier inside a transaction");
	potm_thread_t *t = potm_self();
	if (t != NULL)
		potm_reclaim_flush(t);
	urcu_memb_barrier();   /* every callback queued so far has run */
	if (t != NULL)
		reclaim_drain(t);
}
