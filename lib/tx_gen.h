/*
 * lib/tx_gen.h — tm_tx_start_ and tm_tx_end_, the entry points behind
 * TM_BEGIN and TM_END, generated around a backend's begin and commit.
 *
 * Nesting is flat (tm.h): an inner TM_BEGIN joins the running transaction
 * and an inner TM_END only leaves it, so a backend sees outermost
 * transactions only.  A backend defines two functions and includes this
 * file once:
 *
 *   static inline void BACKEND_TX_BEGIN(tm_txd_t *d);
 *       start an attempt of an outermost transaction: depth is 1 and the
 *       thread is inside its reclamation read-side section;
 *   static inline bool BACKEND_TX_COMMIT(tm_txd_t *d);
 *       commit it and return whether it was read-only.  depth is still 1
 *       while it runs, so that an abort from the commit restarts the
 *       transaction as a whole.
 *
 * The descriptor's commit_hook, when set, runs just before the backend's
 * commit and just after it (txd.h).
 *
 * What every backend does around them (cancel handling, the read-side
 * section, potm_tx_committed's bookkeeping) is here once.  Every attempt
 * runs in the reclamation's read-side section (potm_enter_read_section),
 * unless the backend defines BACKEND_OWN_READ_SECTION and enters it
 * itself where its transactions read beside others (pot: speculative
 * attempts; one that runs in its turn reads only what no one else may
 * change or free), or BACKEND_NO_READ_SECTION (seq: one thread, which
 * reclaims what it frees at its commit).
 */
#ifndef POTM_TX_GEN_H
#define POTM_TX_GEN_H

/* TM_END's commit with the descriptor's commit_hook set: the hook runs
 * around the backend's commit.  Out of line, so that the common commit
 * tests the hook once. */
static void tm_tx_end_hooked_(tm_txd_t *d) __attribute__((noinline));
static void tm_tx_end_hooked_(tm_txd_t *d)
{
	d->commit_hook(d, TM_COMMIT_HOOK_BEFORE, 0);
	bool ro = BACKEND_TX_COMMIT(d);
	if (d->commit_hook != NULL)   /* the hook may clear itself */
		d->commit_hook(d, TM_COMMIT_HOOK_AFTER, ro);
	potm_tx_committed((potm_thread_t *)d, ro);
}

int tm_tx_start_(tm_txd_t *d)
{
	potm_thread_t *t = (potm_thread_t *)d;
	if (unlikely(d->depth > 0)) {
		d->depth++;   /* nested: joins the running transaction */
		return 1;
	}
	if (unlikely(d->flags & TM_TXD_CANCELLED)) {
		/* Resumed here by tm_cancel: skip the body. */
		d->flags &= ~TM_TXD_CANCELLED;
		return 0;
	}
	d->depth = 1;
	d->flags &= ~TM_TXD_READ_ONLY;   /* each attempt declares it again */
	d->attempt_id++;
#if !defined(BACKEND_NO_READ_SECTION) && !defined(BACKEND_OWN_READ_SECTION)
	potm_enter_read_section(t);
#else
	(void)t;
#endif
	BACKEND_TX_BEGIN(d);
	return 1;
}

void tm_tx_end_(tm_txd_t *d)
{
	if (unlikely(--d->depth > 0))
		return;       /* nested: the outermost TM_END commits */
	d->depth = 1;     /* still inside: an abort in the commit restarts it */
	if (unlikely(d->commit_hook != NULL)) {
		tm_tx_end_hooked_(d);
		return;
	}
	potm_tx_committed((potm_thread_t *)d, BACKEND_TX_COMMIT(d));
}

#endif /* POTM_TX_GEN_H */
