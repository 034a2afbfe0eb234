/*
 * htm/pot_rot.c — Pot on IBM POWER8 HTM (Vale's thesis §3.3.2, Figure
 * 3.4b/c): the protocol is pot_htm.h's, the primitives rot_prims.h's.  What
 * POWER8 adds over RTM:
 *
 *  - suspended wait (Figure 3.4b): a speculative transaction at its commit
 *    suspends (tsuspend.), watches the turn with non-transactional loads —
 *    the hand-over of the turn does not abort it — resumes (tresume.) and
 *    commits (tend.) in its turn.  If the turn does
 *    not come within POT_ROT_SUSPEND_SPINS checks (its predecessors are
 *    long, or descheduled), it aborts with ROT_CODE_TURN and waits outside,
 *    where the sequencer can sleep and report stalls (no system call is
 *    made while suspended: a context switch would doom the transaction
 *    anyway);
 *  - the fast transaction as a rollback-only transaction (Figure 3.4c,
 *    tbegin. with R=1): its stores stay invisible until tend. (no
 *    speculative transaction reads a half-written state) and are undone by
 *    the hardware on tm_restart/tm_cancel, so it keeps no undo log; its
 *    loads are not tracked, so it is not aborted by readers.  If it fails
 *    persistently, or htm_retries times, it runs in software in place (the
 *    only software fallback; strong isolation aborts the hardware
 *    transactions it conflicts with).
 *
 * Abort handling is the thesis's: persistent — wait for the turn and fall
 * back; otherwise wait for the current fast transaction to finish, then
 * retry.
 *
 * Under qemu-user tbegin. always fails (persistent): every transaction waits
 * for its turn, its rollback-only attempt fails too, and it runs in
 * software; that runs the ordering, the abort decisions and the fallback
 * for real, but neither hardware commit path.  POTM_HTM_FORCE=1 issues
 * tbegin. although the emulated CPU reports no HTM.
 */
#include "potm_internal.h"

#include <alloca.h>

#define HTM_NAME "pot-rot"
#include "rot_prims.h"

/* The stack problem of suspended mode.  A failed transaction resumes at
 * its tbegin. with the registers of that moment, and memory as it was —
 * except what was stored while suspended, which is not rolled back.  The
 * frames live at the SPEC tbegin. (tm_tx_start_ and pot_htm_begin: saved
 * registers, return addresses) lie where the commit path's frames now are.
 * So before suspending, the commit path moves its stack below the lowest
 * of them, recorded at each tbegin. (begin_sp, with a margin for the
 * callee's parameter area and the ABI's protected zone below the stack
 * pointer), and every store made while suspended lands below it. */
#define POT_ROT_STACK_MARGIN 2048
#define POT_HTM_BEFORE_BEGIN(h) ((h)->begin_sp = (char *)__builtin_frame_address(0))

#define POT_HTM_ENV
#include "pot_htm.h"

/* Turn checks while suspended before giving up and waiting outside. */
#define POT_ROT_SUSPEND_SPINS (1u << 16)

/* Suspend, watch the turn non-transactionally, resume.  Not inlined: its
 * frame is where the caller's stack was moved (see above). */
static __attribute__((noinline)) bool pot_rot_wait_suspended(const pot_htm_thread_t *h)
{
	bool ours = false;
	HTM_SUSPEND();
	for (unsigned i = 0; i < POT_ROT_SUSPEND_SPINS; i++) {
		if (pot_htm_may_commit(h)) {
			ours = true;
			break;
		}
		potm_cpu_relax();
	}
	HTM_RESUME();   /* a conflict meanwhile fails the transaction here */
	return ours;
}

/* Even the first look at the turn is made suspended: a transactional load
 * of the sequencer's state word would put it in the footprint, and the
 * hand-over of the turn (a store to it) would then fail the transaction
 * that waits for exactly that store. */
static __attribute__((noinline)) void pot_htm_commit_spec(pot_htm_thread_t *h)
{
	char *here = (char *)__builtin_frame_address(0);
	char *lowest = h->begin_sp - POT_ROT_STACK_MARGIN;
	if (here > lowest) {
		char *pad = alloca((size_t)(here - lowest));
		__asm__ __volatile__("" : : "r"(pad) : "memory");
	}
	if (!pot_rot_wait_suspended(h))
		HTM_ABORT(HTM_CODE_TURN);
	HTM_END();   /* a failure resumes in pot_htm_begin */
}

/* The fast transaction: rollback-only first. */
static __attribute__((noinline)) void pot_htm_run_fast(pot_htm_thread_t *h)
{
	potm_thread_t *t = &h->pt.th;
	if (!pot_htm.fallback_only) {
		for (unsigned attempt = 0; attempt < pot_htm.retries; attempt++) {
			POTM_STAT_INC(t, htm_starts);
			if (HTM_BEGIN_ROLLBACK_ONLY()) {
				h->path = POT_PATH_ROLLBACK_ONLY;
				return;
			}
			/* Undone by the hardware, allocation log included. */
			struct htm_decision d = htm_decide(HTM_STATUS());
			if (d.explicit_code == HTM_CODE_RESTART)
				pot_htm_restart_in_turn(h);   /* counts the abort */
			if (d.explicit_code == HTM_CODE_CANCEL)
				pot_htm_cancel_in_turn(h);
			POTM_STAT_INC(t, aborts);
			POTM_STAT_INC(t, aborts_by_cause[d.cause]);
			if (d.persistent) {
				POTM_STAT_INC(t, htm_persistent);
				break;
			}
		}
	}
	pot_htm_enter_sw(h);
}

/* The suspended wait needs no estimate of when the turn comes. */
static void pot_htm_spec_committed(pot_htm_thread_t *h)
{
	(void)h;
}

static void pot_htm_spec_early(pot_htm_thread_t *h, uint64_t waited)
{
	(void)h;
	(void)waited;
}

static int pot_htm_backend_init(const tm_config_t *cfg)
{
	(void)cfg;
	return 0;
}
