/*
 * htm/pot_htm.h — Pot on hardware transactional memory (Vale's thesis,
 * §3.3.2 and Figure 3.4b/c; §3.4.2), the protocol shared by pot_rtm.c
 * (Intel RTM) and pot_rot.c (IBM POWER8).
 *
 * Every transaction has a slot in the order of the sequencer
 * (lib/sequencer.h, lib/pot_order.h) and takes effect only in its turn
 * ("ordered commit").  A transaction runs on one of three paths:
 *
 *  speculative (SPEC)  a hardware transaction begun before its turn.  Its
 *                      accesses are plain loads and stores; just before
 *                      the hardware commit it checks the turn.  In its
 *                      turn it commits; otherwise the backend's
 *                      pot_htm_commit_spec decides how to wait: RTM aborts
 *                      with an explicit code and waits outside (or spins
 *                      inside: POTM_POTRTM_WAIT), POWER8 waits in
 *                      suspended mode (tsuspend./tresume.) and then commits
 *                      (it also makes its check of the turn suspended).
 *  fast (rollback-only)  POWER8: the transaction whose turn it is runs
 *                      as a rollback-only transaction (tbegin. R=1): its
 *                      stores are undone by the hardware on
 *                      tm_restart/tm_cancel and become visible only at
 *                      tend.
 *  fast (SW)           the transaction whose turn it is runs in place,
 *                      non-transactionally, with an undo log only for
 *                      explicit aborts (TM_TXD_UNDO): the thesis's fast
 *                      mode, and the only software fallback there is.
 *
 * Why this is an ordered commit without a fallback lock:
 *  H1  Only the turn holder takes effect: a SPEC transaction commits only
 *      after reading "my turn" inside the hardware transaction, a fast one
 *      runs only in its turn, and the turn is passed only after the commit.
 *  H2  The holder sees exactly the state after all earlier slots: by H1 no
 *      later transaction has taken effect, and every earlier one has.
 *  H3  A SPEC transaction that reaches its turn alive has read only
 *      current values: any store to what it read since (by a hardware
 *      commit, or in place by a fast transaction: strong isolation) would
 *      have aborted it.  So its commit in the turn is serializable in slot
 *      order, and a tm_restart/tm_cancel decision it makes there is not
 *      needed either: those abort the hardware transaction and re-run it
 *      in its turn, in fast mode, where the decision is taken on H2's state.
 *  H4  A SPEC transaction may read a state half-written by the fast one
 *      (in place, SW path), but it cannot commit before the fast one
 *      passed the turn (H1), and the rest of the fast one's stores to
 *      what it read abort it: it never takes effect.  Faults and loops of
 *      such a doomed attempt are contained by the hardware.
 *
 * Aborts of a SPEC attempt (the thesis's policy): our explicit codes — not
 * our turn (counted under TM_ABORT_ORDER: an abort the order alone caused),
 * tm_restart, tm_cancel — wait for the turn and re-run fast; a persistent
 * abort (capacity, system call, ...) or htm_retries transient ones: wait for
 * the turn and fall back to fast mode; a transient abort (a conflict, most
 * likely with the fast transaction's stores): re-run fast if the turn has
 * come, else wait until the current fast transaction has finished
 * (seqr_wait_holder_idle), then retry in hardware.
 *
 * Modes (POTM_MODE, the flags of lib/pot_modes.h's policy table): with
 * fast mode (pot, pot-fast) the design above; live promotion has no
 * hardware counterpart (a SPEC transaction that finds its turn at commit
 * simply commits), so pot and pot-fast behave alike.  Without fast mode
 * (pot-ordered, destm) every transaction starts speculatively, even in its
 * turn (fast mode only after hardware failure); with rounds (destm) a
 * transaction starts only once the previous round finished and commits
 * only once all its round-mates have started (checked inside the hardware
 * transaction at commit).  With the global lock (pogl) every transaction
 * runs fast, in its turn.
 *
 * Reclamation: no read-side section, frees at commit (as htm_gl.h): the
 * transactions that read beside others run in hardware, and the fast one
 * runs alone in its turn.
 *
 * Statistics: htm_starts/htm_commits count hardware transactions (SPEC
 * and rollback-only), spec_commits the SPEC commits, fast_commits the
 * commits in fast mode (rollback-only or SW), htm_fallbacks the
 * transactions run in software (SW), htm_persistent the persistent
 * hardware aborts, aborts_by_cause[ORDER] the SPEC attempts aborted
 * because their turn had not come.
 *
 * The including backend defines first: HTM_NAME, the primitives of
 * rtm_prims.h or rot_prims.h (HTM_BEGIN, HTM_STATUS, HTM_END, HTM_ABORT,
 * htm_decide, HTM_CODE_TURN/RESTART/CANCEL, htm_hw_available),
 * POT_HTM_ENV (its own POTM_* variables: string literals, each followed by
 * a comma; possibly empty) and POT_HTM_BEFORE_BEGIN(h) (called just before
 * each SPEC HTM_BEGIN); after including it, it defines the hooks declared
 * below (pot_htm_commit_spec, pot_htm_run_fast, pot_htm_backend_init).
 */
#ifndef POTM_POT_HTM_H
#define POTM_POT_HTM_H

#include "pot_order.h"

#include <stdio.h>

enum pot_htm_path {
	POT_PATH_NONE,           /* between transactions */
	POT_PATH_SPEC,           /* hardware transaction, before its turn */
	POT_PATH_ROLLBACK_ONLY,  /* fast: rollback-only hardware transaction */
	POT_PATH_SW,             /* fast: in place, in software */
};

typedef struct pot_htm_thread {
	pot_thread_t pt;          /* first: order state (lib/pot_order.h) */
	potm_undo_t undo;         /* SW path: old values, for explicit aborts */
	enum pot_htm_path path;   /* written inside hardware transactions too:
	                             an abort restores it */
	char *begin_sp;           /* pot-rot: stack pointer at the SPEC tbegin. */
	uint64_t spec_wait;       /* pot-rtm: ticks a SPEC transaction lets pass
	                             at its commit before it reads the turn */
} pot_htm_thread_t;


static struct {
	unsigned retries;         /* POTM_HTM_RETRIES */
	bool fallback_only;       /* POTM_HTM_FALLBACK_ONLY */
} pot_htm;

/* ---- the backend's hooks ------------------------------------------------------ */

/* Commit a SPEC transaction in its turn: wait for it (the backend's way),
 * then end the hardware transaction; or abort it with HTM_CODE_TURN. */
static void pot_htm_commit_spec(pot_htm_thread_t *h);

/* Begin the fast path (we hold the turn): a rollback-only transaction, or
 * software in place (pot_htm_enter_sw). */
static void pot_htm_run_fast(pot_htm_thread_t *h);

/* A SPEC transaction committed (outside it now); or one was early
 * (aborted with HTM_CODE_TURN) and then waited `waited' ticks outside for
 * its turn.  What the backend learns of how long a turn takes to come. */
static void pot_htm_spec_committed(pot_htm_thread_t *h);
static void pot_htm_spec_early(pot_htm_thread_t *h, uint64_t waited);

/* ---- common pieces ------------------------------------------------------------------ */

/* Is the transaction allowed to commit now?  Its turn, and in destm mode
 * every round-mate has started.  Also called inside hardware
 * transactions: loads only (no pause, which aborts RTM). */
static inline bool pot_htm_may_commit(const pot_htm_thread_t *h)
{
	if (!pot_is_turn(&h->pt))
		return false;
	return !pot_order.mode.rounds || seqr_round_mates_started();
}

/* Fast mode in software: in place, undo-logged (the thesis's fast mode;
 * the only software fallback). */
static inline void pot_htm_enter_sw(pot_htm_thread_t *h)
{
	h->path = POT_PATH_SW;
	potm_undo_clear(&h->undo);
	h->pt.th.txd.flags |= TM_TXD_UNDO;
	POTM_STAT_INC(&h->pt.th, htm_fallbacks);
}

static void pot_htm_leave_sw(pot_htm_thread_t *h, bool rollback)
{
	if (rollback)
		potm_undo_rollback(&h->undo);
	potm_undo_clear(&h->undo);
	h->pt.th.txd.flags &= ~TM_TXD_UNDO;
}

/* tm_restart in the turn (fast mode), effects already undone: a
 * deterministic decision, so give the slot up as a no-op (round-robin),
 * letting the others change what we wait for; the explicit order keeps
 * it.  Then re-execute from TM_BEGIN. */
static void pot_htm_restart_in_turn(pot_htm_thread_t *h) __attribute__((noreturn));
static void pot_htm_restart_in_turn(pot_htm_thread_t *h)
{
	h->path = POT_PATH_NONE;
	if (!pot_order.explicit_order)
		pot_order_pass(&h->pt);
	h->pt.th.attempt = 0;     /* in turn or next in line: no backoff */
	potm_tx_aborted(&h->pt.th, TM_ABORT_EXPLICIT);
}

/* tm_cancel in the turn (fast mode), effects already undone: an ordered
 * no-op commit. */
static void pot_htm_cancel_in_turn(pot_htm_thread_t *h) __attribute__((noreturn));
static void pot_htm_cancel_in_turn(pot_htm_thread_t *h)
{
	h->path = POT_PATH_NONE;
	h->pt.last_order = pot_order_clock(&h->pt);
	pot_order_pass(&h->pt);
	__atomic_store_n(h->pt.busy, 0, __ATOMIC_RELAXED);
	potm_tx_cancelled(&h->pt.th);
}

/* ---- begin ------------------------------------------------------------------------------ */

/* Start the transaction on the right path.  Not inlined: a SPEC abort
 * resumes at HTM_BEGIN below, in this frame, with registers and (RTM, and
 * POWER for everything written before tsuspend.) memory as they were. */
static __attribute__((noinline)) void pot_htm_begin(pot_htm_thread_t *h)
{
	pot_thread_t *p = &h->pt;
	/* This attempt's accesses, for its run of turns: a hardware abort
	 * restores the 0, and every path below starts from it. */
	p->th.txd.accesses = 0;
	if (pot_order.mode.global_lock) {   /* PoGL: the turn is the lock */
		pot_wait_outside_rcu(p, POT_WAIT_TURN);
		pot_htm_run_fast(h);
		return;
	}
	if (pot_order.mode.rounds)   /* "cannot start before the previous round finished" */
		pot_wait_outside_rcu(p, POT_WAIT_ROUND);
	if (pot_order.mode.fast_mode && pot_is_turn(p)) {
		pot_htm_run_fast(h);   /* fast mode: begun in its turn */
		return;
	}
	bool early = false;
	if (!pot_htm.fallback_only) {
		bool prefaulted = false;
		for (unsigned attempt = 0; attempt < pot_htm.retries; attempt++) {
			POT_HTM_BEFORE_BEGIN(h);
			POTM_STAT_INC(&p->th, htm_starts);
			if (HTM_BEGIN()) {
				h->path = POT_PATH_SPEC;
				potm_prefault_started(&p->th, prefaulted);
				return;
			}
			/* Aborted: everything the attempt did is undone. */
			struct htm_decision d = htm_decide(HTM_STATUS());
			POTM_STAT_INC(&p->th, aborts);
			POTM_STAT_INC(&p->th, aborts_by_cause[d.cause]);
			early = d.explicit_code == HTM_CODE_TURN;
			if (d.explicit_code == HTM_CODE_TURN ||
			    d.explicit_code == HTM_CODE_RESTART ||
			    d.explicit_code == HTM_CODE_CANCEL)
				break;   /* re-run in the turn, in fast mode */
			/* Perhaps a page fault of fresh heap (H8). */
			if (d.persistent && potm_prefault_retry(&p->th, d.cause, &prefaulted))
				continue;
			if (d.persistent) {
				POTM_STAT_INC(&p->th, htm_persistent);
				break;   /* fall back: fast mode in the turn */
			}
			if (pot_is_turn(p))
				break;   /* the turn came meanwhile */
			/* Most likely a conflict with the fast transaction's
			 * stores: retrying before it ends would only meet
			 * them again. */
			seqr_wait_holder_idle(p->th.id);
		}
	}
	uint64_t from = early ? potm_ticks() : 0;
	pot_wait_outside_rcu(p, POT_WAIT_COMMIT);
	if (early)
		pot_htm_spec_early(h, potm_ticks() - from);
	pot_htm_run_fast(h);
}

static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
	pot_htm_thread_t *h = (pot_htm_thread_t *)d;
	pot_order_check_supplied(&h->pt);
	__atomic_store_n(h->pt.busy, 1, __ATOMIC_RELAXED);
	pot_order_declare(&h->pt);
	pot_htm_begin(h);
}

/* ---- commit --------------------------------------------------------------------------- */

static inline bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	pot_htm_thread_t *h = (pot_htm_thread_t *)d;
	bool ro = false;
	switch (h->path) {
	case POT_PATH_SPEC:
		pot_htm_commit_spec(h);   /* returns committed, in our turn */
		pot_htm_spec_committed(h);
		POTM_STAT_INC(&h->pt.th, htm_commits);
		POTM_STAT_INC(&h->pt.th, spec_commits);
		break;
	case POT_PATH_ROLLBACK_ONLY:
		HTM_END();                /* a failure resumes in pot_htm_run_fast */
		POTM_STAT_INC(&h->pt.th, htm_commits);
		POTM_STAT_INC(&h->pt.th, fast_commits);
		break;
	case POT_PATH_SW:
		ro = potm_undo_count(&h->undo) == 0;
		POTM_STAT_ADD(&h->pt.th, writes, potm_undo_count(&h->undo));
		pot_htm_leave_sw(h, false);
		POTM_STAT_INC(&h->pt.th, fast_commits);
		break;
	case POT_PATH_NONE:
		potm_fatal("%s: commit of a transaction that never started", HTM_NAME);
	}
	h->path = POT_PATH_NONE;
	/* Committed in our turn (H1): the clock is our slot; passing the turn
	 * publishes the commit to the order, unless the run of turns goes on.
	 * The accesses are counted on every path (htm_access.h, the inline
	 * ones of tm.h) and are those of the execution that commits, made on
	 * the state of its slot (H2, H3): the same whichever path it took, so
	 * the order does not depend on timing. */
	h->pt.last_order = pot_order_clock(&h->pt);
	pot_order_pass_run(&h->pt, d->accesses);
	__atomic_store_n(h->pt.busy, 0, __ATOMIC_RELAXED);
	return ro;
}

#define BACKEND_NO_READ_SECTION 1
#include "tx_gen.h"

/* ---- explicit aborts ------------------------------------------------------------------- */

/* In hardware (SPEC or rollback-only): abort with code; the attempt
 * resumes at its HTM_BEGIN, which knows what to do with it. */
static void pot_htm_abort_hw(const pot_htm_thread_t *h, const char *which, bool restart)
	__attribute__((noreturn));
static void pot_htm_abort_hw(const pot_htm_thread_t *h, const char *which, bool restart)
{
	(void)h;
	if (restart)
		HTM_ABORT(HTM_CODE_RESTART);
	else
		HTM_ABORT(HTM_CODE_CANCEL);
	/* An abort outside a hardware transaction is a no-op. */
	potm_fatal("%s: %s: not inside the hardware transaction it expected",
	           HTM_NAME, which);
}

void tm_restart(void)
{
	pot_htm_thread_t *h = (pot_htm_thread_t *)potm_self_in_tx("tm_restart");
	if (h->path != POT_PATH_SW)
		pot_htm_abort_hw(h, "tm_restart", true);
	pot_htm_leave_sw(h, true);
	pot_htm_restart_in_turn(h);
}

void tm_cancel(void)
{
	pot_htm_thread_t *h = (pot_htm_thread_t *)potm_self_in_tx("tm_cancel");
	if (h->path != POT_PATH_SW)
		pot_htm_abort_hw(h, "tm_cancel", false);
	pot_htm_leave_sw(h, true);
	pot_htm_cancel_in_turn(h);
}

/* ---- accesses (htm_access.h) ------------------------------------------------------------ */

static inline potm_undo_t *htm_undo_of(potm_thread_t *t)
{
	return &((pot_htm_thread_t *)t)->undo;
}

#define POTM_GEN_COUNT_ACCESSES 1
#include "htm_access.h"

/* ---- life cycle --------------------------------------------------------------------------- */

/* The backend's own settings (pot-rtm: POTM_POTRTM_WAIT). */
static int pot_htm_backend_init(const tm_config_t *cfg);

static int pot_htm_init(const tm_config_t *cfg)
{
	pot_htm.retries = cfg->htm_retries;
	pot_htm.fallback_only = cfg->htm_fallback_only;
	if (pot_htm_backend_init(cfg) != 0)
		return -1;
	if (pot_htm.fallback_only) {
		fprintf(stderr, "potm: %s: POTM_HTM_FALLBACK_ONLY=1: no hardware "
		        "transactions; every transaction waits for its turn and runs "
		        "in fast mode, in place in software\n", HTM_NAME);
	} else {
		const char *why = NULL;
		if (!htm_hw_available(cfg, &why))
			return potm_unsupported("%s: %s", HTM_NAME, why);
	}
	return pot_order_init(HTM_NAME, cfg);
}

static void pot_htm_shutdown(void)
{
	seqr_shutdown();
}

static int pot_htm_thread_init(potm_thread_t *t)
{
	pot_htm_thread_t *h = (pot_htm_thread_t *)t;
	h->path = POT_PATH_NONE;
	h->spec_wait = 0;
	pot_order_thread_init(&h->pt);
	return 0;
}

static void pot_htm_thread_fini(potm_thread_t *t)
{
	pot_htm_thread_t *h = (pot_htm_thread_t *)t;
	pot_order_thread_fini(&h->pt);
	potm_undo_free(&h->undo);
}

static const char *const pot_htm_env[] = { POT_HTM_ENV NULL };

const potm_backend_t potm_backend = {
	.name = HTM_NAME,
	.thread_size = sizeof(pot_htm_thread_t),
	.frees_at_commit = true,
	.init = pot_htm_init,
	.shutdown = pot_htm_shutdown,
	.thread_init = pot_htm_thread_init,
	.thread_fini = pot_htm_thread_fini,
	.order = &pot_order_ops,
	.env = pot_htm_env,
};

#endif /* POTM_POT_HTM_H */
