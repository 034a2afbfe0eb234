/*
 * htm/htm_gl.h — best-effort hardware transactions with a global-lock
 * fallback (the thesis's Figure 3.4a), shared by rtm.c and rot.c.
 *
 * The including backend defines its primitives first:
 *
 *   HTM_BEGIN()            start; true if running transactionally, false
 *                          after an abort (then HTM_STATUS() describes it)
 *   HTM_STATUS()           the abort status of the last failed HTM_BEGIN
 *   HTM_END()              commit
 *   HTM_ABORT(code)        abort with an 8-bit constant code
 *   htm_decide(status)     -> struct htm_decision (pure; unit-tested)
 *   HTM_CODE_LOCKED, HTM_CODE_RESTART, HTM_CODE_CANCEL
 *   HTM_NAME               "rtm" / "rot"
 *   htm_hw_available(why)  can this machine run it?  (why: message)
 *
 * The protocol:
 *  - Lock subscription: right after the transaction starts it reads the
 *    fallback lock and aborts itself if the lock is held.  The lock is then
 *    in its read set, so a thread that takes the lock later aborts every
 *    hardware transaction in flight: fallback and hardware transactions
 *    never overlap.
 *  - Retry policy (as GCC's libitm): up to htm_retries hardware attempts;
 *    straight to the fallback on an abort that will not succeed on retry
 *    (persistent), except that an unexplained one may be a page fault of
 *    fresh heap, which potm_prefault_retry maps before one more attempt;
 *    before retrying, wait until the lock is free, or the retry would only
 *    abort again on it.
 *  - The fallback runs alone under the lock, in place, with an undo log so
 *    that tm_restart and tm_cancel work on both paths.
 *
 * An abort resumes inside htm_attempt(), where HTM_BEGIN was issued, with
 * registers and memory restored by the hardware — the stack frames of
 * tm_tx_start_ (lib/tx_gen.h) and of its caller included — so the
 * hardware path needs no setjmp.
 *
 * Coalescing (HTM_COALESCES, rtm; POTM_HTM_COALESCE transactions per
 * hardware transaction): the commit of a transaction that may still be
 * joined leaves its hardware transaction open, and the thread's next
 * transaction runs inside it, the code between the two included.  Nothing
 * of the group is visible before its last commit, and an abort anywhere
 * in it rolls the whole group back to the first begin, every store and
 * register included, as if the thread had not got that far: the first
 * transaction then runs alone (an explicit abort, tm_cancel's, may have
 * come from any member), and the thread runs its next transactions alone
 * for a while, twice as long after each group that aborts (a system call
 * or a long stretch between transactions), a 64th less after each that
 * commits.  What that saves: xbegin and xend let no cache miss overlap
 * them, so a program whose transactions are one or two updates between
 * plain misses (ssca2) pays them once per group.  The group is closed
 * before the thread waits for others (tm_barrier_wait) or leaves
 * (potm_backend.flush).
 *
 * No reclamation read-side section and no grace period
 * (BACKEND_NO_READ_SECTION, frees_at_commit): a hardware transaction that
 * reached a block is aborted by the store that unlinks it, before the
 * block can be freed, and the fallback runs alone.
 */
#ifndef POTM_HTM_GL_H
#define POTM_HTM_GL_H

#include <stdio.h>

typedef struct htm_thread {
	potm_thread_t th;
	potm_undo_t undo;     /* fallback path only */
	bool in_hw;           /* the running attempt is a hardware transaction
	                         (unless htm_in_hw asks the CPU) */
	/* Coalescing.  Set before the group's xbegin: */
	unsigned group;       /* transactions that may join the group */
	unsigned alone_left;  /* transactions to run alone before the next group */
	unsigned backoff;     /* alone_left after the next group that aborts */
	/* Set inside the group (rolled back with it): */
	unsigned join_left;   /* commits that may still leave it open */
	bool open;            /* the last commit left it open */
} htm_thread_t;

static struct {
	uint32_t lock POTM_ALIGNED;   /* fallback lock: 0 free, 1 held */
	unsigned retries;
	bool fallback_only;           /* POTM_HTM_FALLBACK_ONLY */
	unsigned coalesce;            /* POTM_HTM_COALESCE; 1 without HTM_COALESCES */
} htm;

#define HTM_BACKOFF_MAX 4095   /* transactions alone after groups that abort */

/* htm_in_hw(h): is h's attempt a hardware transaction?  The CPU's own
 * test (HTM_RUNNING) where the primitives have one, so that the
 * transaction stores nothing of its own, asked only when the hardware is
 * in use: under POTM_HTM_FALLBACK_ONLY the CPU may have no HTM, and then
 * the test is an illegal instruction.  Else a flag in the descriptor. */
#ifdef HTM_RUNNING
#define htm_in_hw(h) (!htm.fallback_only && HTM_RUNNING(h))
#define HTM_SET_RUNNING(h, v) ((void)(h))
#else
#define htm_in_hw(h) ((h)->in_hw)
#define HTM_SET_RUNNING(h, v) ((h)->in_hw = (v))
#endif

static inline bool htm_locked(void)
{
	return __atomic_load_n(&htm.lock, __ATOMIC_ACQUIRE) != 0;
}

static void htm_wait_unlocked(void)
{
	for (unsigned spins = 0; htm_locked(); spins++) {
		potm_cpu_relax();
		if (spins > 1024)
			sched_yield();
	}
}

static void htm_lock(void)
{
	for (unsigned spins = 0;; spins++) {
		if (!htm_locked() &&
		    __atomic_exchange_n(&htm.lock, 1, __ATOMIC_ACQUIRE) == 0)
			return;
		potm_cpu_relax();
		if (spins > 1024)
			sched_yield();
	}
}

static void htm_unlock(void)
{
	__atomic_store_n(&htm.lock, 0, __ATOMIC_RELEASE);
}

/* Serial, in place, undo-logged. */
static void htm_enter_fallback(htm_thread_t *h)
{
	htm_lock();
	HTM_SET_RUNNING(h, false);
	h->th.txd.flags |= TM_TXD_UNDO;
	POTM_STAT_INC(&h->th, htm_fallbacks);
}

/* The size of the next group: 1 while the thread backs off. */
static inline unsigned htm_group_size(htm_thread_t *h)
{
	if (htm.coalesce <= 1)
		return 1;
	if (h->alone_left > 0) {
		h->alone_left--;
		return 1;
	}
	return htm.coalesce;
}

/* A group aborted (rolled back to its first begin): run alone a while. */
static void htm_group_aborted(htm_thread_t *h)
{
	h->alone_left = h->backoff + 1;
	if (h->backoff < HTM_BACKOFF_MAX)
		h->backoff = h->backoff * 2 + 1;
}

/* A group committed whole: back off a 64th less.  Against the doubling
 * above, groups keep forming while at most about one in 45 aborts (a
 * halving would let every other one abort, each wasting the work of the
 * members it rolls back, and the code between them). */
static inline void htm_group_committed(htm_thread_t *h)
{
	h->backoff -= (h->backoff + 63) / 64;
}

/* Start the attempt: join the open group, else hardware first, then the
 * fallback.  (The allocation and free logs need no reset after a hardware
 * abort: their stores were undone with the rest.) */
static void htm_attempt(htm_thread_t *h)
{
	if (h->open) {
		h->open = false;   /* inside the group's hardware transaction */
		return;
	}
	if (htm.fallback_only) {
		htm_enter_fallback(h);
		return;
	}
	unsigned group = htm_group_size(h);
	bool prefaulted = false;
	for (unsigned attempt = 0; attempt < htm.retries; attempt++) {
		htm_wait_unlocked();
		h->group = group;
		POTM_STAT_INC(&h->th, htm_starts);
		if (HTM_BEGIN()) {
			if (htm_locked())
				HTM_ABORT(HTM_CODE_LOCKED);
			HTM_SET_RUNNING(h, true);
			h->join_left = h->group - 1;
			potm_prefault_started(&h->th, prefaulted);
			return;
		}
		struct htm_decision d = htm_decide(HTM_STATUS());
		if (group > 1 && d.explicit_code != HTM_CODE_LOCKED) {
			/* Any member may have aborted it: the first runs alone
			 * from here on, and this attempt does not count as its
			 * own (attempt wraps to 0). */
			POTM_STAT_INC(&h->th, aborts);
			POTM_STAT_INC(&h->th, aborts_by_cause[d.cause]);
			htm_group_aborted(h);
			group = 1;
			attempt--;
			continue;
		}
		if (d.explicit_code == HTM_CODE_CANCEL)
			potm_tx_cancelled(&h->th);   /* resumes at TM_BEGIN: skip */
		POTM_STAT_INC(&h->th, aborts);
		POTM_STAT_INC(&h->th, aborts_by_cause[d.cause]);
		if (d.explicit_code == HTM_CODE_LOCKED ||
		    d.explicit_code == HTM_CODE_RESTART)
			continue;      /* not a property of the transaction: retry */
		/* Perhaps a page fault of fresh heap: map the next stretch
		 * and try the hardware once more (H8). */
		if (d.persistent && potm_prefault_retry(&h->th, d.cause, &prefaulted))
			continue;
		if (d.persistent) {
			POTM_STAT_INC(&h->th, htm_persistent);
			break;
		}
	}
	htm_enter_fallback(h);
}

static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
	htm_attempt((htm_thread_t *)d);
}

static inline bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	htm_thread_t *h = (htm_thread_t *)d;
	if (htm_in_hw(h)) {
		POTM_STAT_INC(&h->th, htm_commits);
		if (h->join_left > 0) {
			h->join_left--;
			h->open = true;   /* the next transaction joins */
			return false;
		}
		HTM_END();
		HTM_SET_RUNNING(h, false);
		if (h->group > 1)
			htm_group_committed(h);
		return false;   /* the hardware does not say */
	}
	bool ro = potm_undo_count(&h->undo) == 0;
	potm_undo_clear(&h->undo);
	d->flags &= ~TM_TXD_UNDO;
	htm_unlock();
	return ro;
}

#define BACKEND_NO_READ_SECTION 1
#include "tx_gen.h"

/* Leave the fallback path after an explicit abort: undo, unlock. */
static potm_thread_t *htm_fallback_rollback(htm_thread_t *h)
{
	potm_undo_rollback(&h->undo);
	h->th.txd.flags &= ~TM_TXD_UNDO;
	htm_unlock();
	return &h->th;
}

void tm_restart(void)
{
	htm_thread_t *h = (htm_thread_t *)potm_self_in_tx("tm_restart");
	if (htm_in_hw(h))
		HTM_ABORT(HTM_CODE_RESTART);
	potm_tx_aborted(htm_fallback_rollback(h), TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	htm_thread_t *h = (htm_thread_t *)potm_self_in_tx("tm_cancel");
	if (htm_in_hw(h))
		HTM_ABORT(HTM_CODE_CANCEL);
	potm_tx_cancelled(htm_fallback_rollback(h));
}

/* ---- accesses: plain, undo-logged on the fallback (htm_access.h) ------ */

static inline potm_undo_t *htm_undo_of(potm_thread_t *t)
{
	return &((htm_thread_t *)t)->undo;
}

#include "htm_access.h"

/* ---- life cycle ------------------------------------------------------------ */

static int htm_init(const tm_config_t *cfg)
{
	htm.lock = 0;
	htm.retries = cfg->htm_retries;
	htm.fallback_only = cfg->htm_fallback_only;
#ifdef HTM_COALESCES
	htm.coalesce = cfg->htm_coalesce;
#else
	htm.coalesce = 1;
#endif
	if (htm.fallback_only) {
		fprintf(stderr, "potm: %s: POTM_HTM_FALLBACK_ONLY=1: every transaction "
		        "runs on the software fallback lock, none in hardware\n", HTM_NAME);
		return 0;
	}
	const char *why = NULL;
	if (!htm_hw_available(cfg, &why))
		return potm_unsupported("%s: %s", HTM_NAME, why);
	return 0;
}

/* Close the group the thread's last commit left open. */
static void htm_flush(potm_thread_t *t)
{
	htm_thread_t *h = (htm_thread_t *)t;
	if (h->open) {
		h->open = false;
		HTM_END();
		HTM_SET_RUNNING(h, false);
	}
}

static void htm_thread_fini(potm_thread_t *t)
{
	potm_undo_free(&((htm_thread_t *)t)->undo);
}

const potm_backend_t potm_backend = {
	.name = HTM_NAME,
	.thread_size = sizeof(htm_thread_t),
	.frees_at_commit = true,
	.init = htm_init,
	.thread_fini = htm_thread_fini,
	.flush = htm_flush,
};

#endif /* POTM_HTM_GL_H */
