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
 * next drain (potm_reclaim_drain: a flush, a tm_free outside a
 * transaction, silo's commit once it holds frees; exit at the latest).
 * Freed in the call_rcu thread, the blocks would go to that
 * thread's cache while the owner fights it for its arena's lock and grows
 * its heap with fresh pages; freed by the owner, a block goes to the
 * owner's own tcache and arena and its next malloc reuses it.
 *
 * Invariants:
 *  R1  A block reaches free() only after a grace period that started after
 *      its free committed (call_rcu is called at the flush, after commit).
 *  R2  An inbox is freed by whoever drops its last reference: the owner
 *      holds one until it exits, each batch in flight holds one.
 *  R3  Once the owner has closed its inbox (exit), callbacks free the
 *      batches they would have pushed: the exchange that closes it and the
 *      CAS that pushes are ordered on the inbox's head.
 *
 * Polled grace periods, for big batches.  call_rcu's grace periods are
 * batched in its own thread and take a while; meanwhile the allocator
 * hands out fresh memory.  For a transaction that frees a lot at once
 * (one that replaces a large document) the old and the new copies then
 * keep cycling through several megabytes, out of the nearer caches.  So
 * a batch of at least POTM_RECLAIM_POLLED blocks takes a grace period of
 * its own, which the owner polls, in the manner of Linux's
 * poll_state_synchronize_rcu (liburcu's memb flavour has no polling API):
 *  Q1  Each registered thread has a reader word that only it writes: odd
 *      while it is inside a read-side section (potm_rcu_read_lock, held
 *      from a transaction's first attempt to its commit or cancel, left
 *      while pot waits for its turn), even outside.  It only grows.
 *  Q2  After the batch's frees committed, the owner runs
 *      membarrier(PRIVATE_EXPEDITED): every other thread executes a full
 *      barrier at some point M during the call.  A reader word read after
 *      it is at least the value its thread had at M.  Even: the thread was
 *      outside at M, and any section it entered later reads only what M
 *      follows, in which the blocks are unlinked.  Odd (v): wait until the
 *      word differs from v (acquire): that section has ended, and any later
 *      one began after M.
 *  Q3  The owner polls at its commits and frees the batch once every word
 *      it waits on has moved (oldest batch first); at exit and in
 *      tm_reclaim_barrier what is still waiting goes to call_rcu, whose
 *      grace period starts later still (R1).
 * Where membarrier is unavailable (an old kernel, an emulator), every
 * batch goes to call_rcu.  A membarrier interrupts every CPU that runs
 * one of our threads, which costs more than a small batch's frees, so
 * small batches do not take this path.
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

/* A big batch waiting for its polled grace period (Q2, Q3). */
struct potm_polled {
	struct potm_polled *next;
	size_t n;
	unsigned nwait;            /* readers still in the section they were in */
	struct polled_wait {
		unsigned id;
		uint64_t word;     /* odd: the section to wait out */
	} *wait;
	void *ptrs[];
};

/* Reader words (Q1), one cache line each, by logical id; never freed while
 * a thread is registered. */
static struct {
	char *words;
	unsigned hwm;              /* atomic: ids below it have been used */
} rd;

static inline uint64_t *reader_word(unsigned id)
{
	return (uint64_t *)(rd.words + (size_t)id * POTM_CACHELINE);
}

/* The head of a closed inbox (R3). */
#define INBOX_CLOSED ((struct reclaim_batch *)1)

void potm_count_reclaimed(size_t n);

static void free_blocks(void **ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ptrs[i]);
	potm_count_reclaimed(n);
}

static void batch_free(struct reclaim_batch *b)
{
	free_blocks(b->ptrs, b->n);
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
void potm_reclaim_drain(potm_thread_t *t)
{
	if (__atomic_load_n(&t->inbox->ready, __ATOMIC_RELAXED) == NULL)
		return;
	batch_free_chain(__atomic_exchange_n(&t->inbox->ready, NULL, __ATOMIC_ACQUIRE));
}

/* Q2: start a polled grace period for the committed frees; false if
 * membarrier is unavailable or other threads are registered (the caller
 * uses call_rcu).  Frees them at once when no other thread was inside a
 * section.
 * Only alone: beside other threads the polled batches queue up behind
 * their long read-side sections, and the blocks stay out of the
 * allocator longer than through call_rcu.  A thread that registers after
 * the test is still covered: the membarrier and the scan below see its
 * section. */
static bool reclaim_polled_start(potm_thread_t *t)
{
	if (!potm_membarrier_ok || potm_live_threads() > 1 || potm_membarrier() != 0)
		return false;
	unsigned hwm = __atomic_load_n(&rd.hwm, __ATOMIC_ACQUIRE);
	unsigned inside = 0;
	for (unsigned id = 0; id < hwm; id++)
		if (id != t->id && (__atomic_load_n(reader_word(id), __ATOMIC_ACQUIRE) & 1))
			inside++;
	size_t n = t->frees_committed;
	if (inside == 0) {
		free_blocks(t->frees.v, n);
		return true;
	}
	/* Any word read after the membarrier will do (Q2): a second look may
	 * find fewer threads inside, never a section that began before M. */
	struct potm_polled *b = potm_xmalloc(sizeof *b + n * sizeof(void *) +
	                                     inside * sizeof(struct polled_wait));
	b->next = NULL;
	b->n = n;
	memcpy(b->ptrs, t->frees.v, n * sizeof(void *));
	b->wait = (struct polled_wait *)(b->ptrs + n);
	b->nwait = 0;
	for (unsigned id = 0; id < hwm && b->nwait < inside; id++) {
		uint64_t w = __atomic_load_n(reader_word(id), __ATOMIC_ACQUIRE);
		if (id != t->id && (w & 1))
			b->wait[b->nwait++] = (struct polled_wait){ id, w };
	}
	struct potm_polled **tail = &t->polled;
	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = b;
	return true;
}

/* Q3: free the oldest batches whose readers have all left the sections
 * they were in. */
void potm_reclaim_poll(potm_thread_t *t)
{
	struct potm_polled *b;
	while ((b = t->polled) != NULL) {
		for (; b->nwait > 0; b->nwait--) {
			const struct polled_wait *w = &b->wait[b->nwait - 1];
			if (__atomic_load_n(reader_word(w->id), __ATOMIC_ACQUIRE) == w->word)
				return;
		}
		t->polled = b->next;
		free_blocks(b->ptrs, b->n);
		free(b);
	}
}

/* Q3: what still waits goes to call_rcu (owner: t, or NULL at exit). */
static void reclaim_polled_hand_over(potm_thread_t *t, potm_thread_t *owner)
{
	potm_reclaim_poll(t);
	struct potm_polled *b = t->polled;
	t->polled = NULL;
	while (b != NULL) {
		struct potm_polled *next = b->next;
		potm_reclaim_defer(owner, b->ptrs, b->n);
		free(b);
		b = next;
	}
}

/* Hand the committed transactions' frees to reclamation, and free what came
 * back.  A thread gathers its frees over several transactions first
 * (POTM_RECLAIM_BATCH, POTM_RECLAIM_PERIOD_US): one call_rcu and one batch
 * per transaction cost more than the transaction itself when it is a
 * hash-set removal, and every grace period, polled or call_rcu's,
 * interrupts the CPUs that run our threads.  Handing a block over later
 * than its commit is always safe: the grace period only has to start
 * after the unlink. */
void potm_reclaim_flush(potm_thread_t *t)
{
	/* Called outside a transaction or right after its commit: every
	 * entry is a committed one. */
	potm_reclaim_drain(t);
	if (t->frees_committed == 0)
		return;
	if (t->frees_committed < POTM_RECLAIM_POLLED || !reclaim_polled_start(t))
		potm_reclaim_defer(t, t->frees.v, t->frees_committed);
	t->frees.n = t->frees_committed = 0;
	t->flush_due = potm_ticks() + POTM_RECLAIM_PERIOD_US * potm_ticks_per_us;
}

/* Free the committed transactions' frees at once: for a backend that runs
 * one thread at a time (seq), no transaction can still hold a pointer to
 * them, so they go back to the allocator at commit, as a sequential
 * program's free() would.  Deferred (a batch, call_rcu, the grace period,
 * the owner's next flush), they would slow down the backend that sets
 * the limit for the others, in allocation-heavy programs most. */
void potm_reclaim_now(potm_thread_t *t)
{
	potm_reclaim_drain(t);
	free_blocks(t->frees.v, t->frees_committed);
	t->frees.n = t->frees_committed = 0;
}

void potm_reclaim_init(unsigned max_threads)
{
	rd.words = potm_xcalloc(max_threads, POTM_CACHELINE);
	rd.hwm = 0;
}

void potm_reclaim_shutdown(void)
{
	free(rd.words);
	rd.words = NULL;
}

/* Under the registry's lock. */
void potm_reclaim_thread_init(potm_thread_t *t)
{
	/* The word keeps its value from a previous owner of the id: it only
	 * grows (Q1), so a poller waiting on it never sees an old value again. */
	t->reader = reader_word(t->id);
	t->polled = NULL;
	if (t->id >= rd.hwm)
		__atomic_store_n(&rd.hwm, t->id + 1, __ATOMIC_RELEASE);

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
	reclaim_polled_hand_over(t, NULL);
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
	/* A thread that kept the turn would stall the speculative
	 * transactions this barrier waits for: they wait for that turn. */
	if (t != NULL && potm_backend.order && potm_backend.order->end_run)
		potm_backend.order->end_run(t);
	if (t != NULL) {
		potm_reclaim_flush(t);
		reclaim_polled_hand_over(t, t);
	}
	urcu_memb_barrier();   /* every callback queued so far has run */
	if (t != NULL)
		potm_reclaim_drain(t);
}
