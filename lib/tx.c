/*
 * lib/tx.c — the parts of a transaction's life that every backend shares:
 * commit/abort/cancel bookkeeping, backoff, tm_malloc/tm_free, tm_atomic
 * (reclamation of the freed blocks: lib/reclaim.c).
 */
#include "potm_internal.h"

#include <stdlib.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif
/* The read-side section is entered and left at every transaction: take
 * liburcu's inline read_lock/read_unlock (its LGPL static API) rather
 * than a call into the library per transaction. */
#define _LGPL_SOURCE
/* Some liburcu versions' static headers declare or set variables they
 * never read. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-variable"
#include <urcu/urcu-memb.h>
#pragma GCC diagnostic pop

void potm_rcu_read_lock(potm_thread_t *t)
{
	urcu_memb_read_lock();
	/* Q1: odd from here on.  The compiler must not move the section's
	 * loads above the store; the CPU may, which is what the polling
	 * reclaimer's membarrier is for (Q2). */
	__atomic_store_n(t->reader, __atomic_load_n(t->reader, __ATOMIC_RELAXED) + 1,
	                 __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void potm_rcu_read_unlock(potm_thread_t *t)
{
	/* Q1: even again, after every load of the section (release). */
	__atomic_store_n(t->reader, __atomic_load_n(t->reader, __ATOMIC_RELAXED) + 1,
	                 __ATOMIC_RELEASE);
	urcu_memb_read_unlock();
}

/* Resume the outermost TM_BEGIN of t's transaction (its resume point,
 * tm_resume_t in potm/static/txd.h).  AddressSanitizer poisons the
 * frames an abort skips; its own longjmp interceptor clears them first,
 * which the builtin bypasses, so it is done here. */
static __attribute__((noreturn)) void tx_resume(potm_thread_t *t)
{
#if defined(__SANITIZE_ADDRESS__)
	__asan_handle_no_return();
#endif
	__builtin_longjmp(t->txd.env, 1);
}

/* potm_tx_committed's general case (lib/potm_internal.h). */
void potm_tx_committed_slow_(potm_thread_t *t, bool read_only)
{
	if (unlikely(t->lsd_used))
		potm_lsd_end(t);
	if (t->allocs.n) {
		POTM_STAT_ADD(t, allocs, t->allocs.n);
		t->allocs.n = 0;
	}
	if (t->polled != NULL)
		potm_reclaim_poll(t);
	if (t->frees.n > t->frees_committed) {
		size_t mine = t->frees.n - t->frees_committed;
		POTM_STAT_ADD(t, frees, mine);
		t->frees_committed = t->frees.n;
		/* frees_at_commit: nobody else can hold them (seq, the
		 * hardware backends).  Elsewhere a
		 * transaction that freed a big batch has it back at once
		 * (the polled grace period, lib/reclaim.c); the small ones
		 * gather for a while (POTM_RECLAIM_PERIOD_US). */
		if (potm_backend.frees_at_commit)
			potm_reclaim_now(t);
		else if (mine >= POTM_RECLAIM_POLLED || t->frees_committed >= POTM_RECLAIM_MAX ||
		         (t->frees_committed >= POTM_RECLAIM_BATCH &&
		          potm_ticks() >= t->flush_due))
			potm_reclaim_flush(t);
	}
	potm_tx_commit_close(t, read_only);
}

/* An aborted attempt's allocations were never published: free them now. */
static void tx_drop_attempt_memory(potm_thread_t *t)
{
	for (size_t i = 0; i < t->allocs.n; i++)
		free(t->allocs.v[i]);
	t->allocs.n = 0;
	t->frees.n = t->frees_committed;
}

void potm_tx_aborted(potm_thread_t *t, int cause)
{
	if (unlikely(t->txd.commit_hook != NULL))
		t->txd.commit_hook(&t->txd, TM_COMMIT_HOOK_ENDED, 0);
	if (unlikely(t->lsd_used))
		potm_lsd_end(t);
	tx_drop_attempt_memory(t);
	POTM_STAT_INC(t, aborts);
	POTM_STAT_INC(t, aborts_by_cause[cause]);
	t->txd.depth = 0;
	t->attempt++;
	potm_backoff(t);
	tx_resume(t);
}

void potm_tx_cancelled(potm_thread_t *t)
{
	if (unlikely(t->txd.commit_hook != NULL))
		t->txd.commit_hook(&t->txd, TM_COMMIT_HOOK_ENDED, 0);
	if (unlikely(t->lsd_used))
		potm_lsd_end(t);
	tx_drop_attempt_memory(t);
	POTM_STAT_INC(t, cancels);
	t->txd.depth = 0;
	t->attempt = 0;
	t->last_cancelled = true;
	t->hint_serial = false;
	t->txd.flags |= TM_TXD_CANCELLED;
	potm_tx_leave_rcu(t);
	tx_resume(t);
}

static inline uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

void potm_backoff(potm_thread_t *t)
{
	/* Randomized exponential backoff: the window doubles with each abort of
	 * the same transaction up to backoff_max pauses.  After many aborts we
	 * also yield: with more threads than cores, the conflicting thread may
	 * be waiting for our CPU. */
	unsigned shift = t->attempt < 20 ? t->attempt : 20;
	uint64_t window = (uint64_t)8 << shift;
	if (window > potm_cfg.backoff_max)
		window = potm_cfg.backoff_max;
	if (window > 0) {
		uint64_t spins = xorshift64(&t->rng) % window;
		for (uint64_t i = 0; i < spins; i++)
			potm_cpu_relax();
	}
	if (t->attempt >= 8)
		sched_yield();
}

potm_thread_t *potm_caller_between_tx(const char *fn)
{
	potm_thread_t *t = potm_self();
	if (t == NULL)
		potm_error("%s: the calling thread is not registered (tm_thread_enter)", fn);
	else if (t->txd.depth != 0)
		potm_error("%s inside a transaction: call it before TM_BEGIN()", fn);
	else
		return t;
	return NULL;
}

int tm_hint_serial(void)
{
	potm_thread_t *t = potm_caller_between_tx("tm_hint_serial");
	if (t == NULL)
		return -1;
	t->hint_serial = true;
	return 0;
}

int tm_was_cancelled(void)
{
	potm_thread_t *t = potm_self();
	return t != NULL && t->last_cancelled;
}

int tm_atomic(void (*fn)(void *), void *arg)
{
	TM_BEGIN();
	fn(arg);
	TM_END();
	return tm_was_cancelled() ? TM_CANCELLED : TM_COMMITTED;
}

/* The splitter out of line: a call per piece through put (potm_internal.h
 * says when that is the better choice). */
void potm_write_pieces(void *dst, const void *src, size_t n, tm_put_piece_fn_ put, void *ctx)
{
	tm_write_pieces_(dst, src, n, put, ctx);
}

void *tm_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL)
		return NULL;
	potm_thread_t *t = potm_self();
	if (t != NULL && t->txd.depth > 0)
		potm_ptrvec_push(&t->allocs, p);
	return p;
}

/* A hardware transaction aborts at a page fault and the kernel never sees
 * the fault, so a retry meets it again, and a program whose transactions
 * allocate meets one at every page its heap grows by: the first store to
 * memory malloc hands out fresh (the top of the thread's arena) or to the
 * chunk header behind it.  After an abort that may be one, the hardware
 * backends call this outside the transaction: a block taken from the top
 * of the same arena, stored to once per page and given back, leaves the
 * next stretch mapped for the allocations that follow.  The block stays
 * under malloc's mmap threshold (128 KiB unless tuned), or it would come
 * from a mapping of its own and touch nothing the next allocations use. */
void potm_heap_prefault(void)
{
	enum { PREFAULT_BYTES = 96 * 1024 };
	long page = sysconf(_SC_PAGESIZE);   /* from the auxiliary vector */
	if (page <= 0)
		page = 4096;
	volatile char *p = malloc(PREFAULT_BYTES);
	if (p == NULL)
		return;
	for (size_t i = 0; i < PREFAULT_BYTES; i += (size_t)page)
		p[i] = 0;
	p[PREFAULT_BYTES - 1] = 0;   /* the block is not page-aligned */
	free((void *)p);
}

void tm_free(void *ptr)
{
	if (ptr == NULL)
		return;
	potm_thread_t *t = potm_self();
	if (t != NULL && t->txd.depth > 0) {
		potm_ptrvec_push(&t->frees, ptr);   /* at commit */
		return;
	}
	potm_reclaim_defer(t, &ptr, 1);
	/* What came back meanwhile: a thread that frees only outside
	 * transactions never flushes, the only other drain before its exit. */
	if (t != NULL)
		potm_reclaim_drain(t);
}

