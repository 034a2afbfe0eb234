/*
 * htm/pot_rtm.c — Pot on Intel RTM (Vale's thesis §3.4.2 asks how Pot fares
 * on a best-effort HTM without suspend/resume): the protocol is pot_htm.h's,
 * the primitives rtm_prims.h's.  What is particular to RTM is how a
 * speculative transaction waits for its turn at commit.
 *
 * Intel has no suspended mode and no non-transactional loads inside a
 * transaction (XSUSLDTRK does not keep remote stores from aborting it), so
 * once a hardware transaction has read the turn, the turn's hand-over (a
 * store to the sequencer's state word) aborts it.  It can read the turn
 * once, when it expects it to be its own.  Three ways to wait, chosen with
 * POTM_POTRTM_WAIT:
 *
 *  outside (default)  check the turn at once; if it is not ours,
 *                     _xabort(RTM_CODE_TURN), wait for the turn outside
 *                     the transaction (spin, yield, futex), and re-run in
 *                     fast mode — in place, non-transactionally, which
 *                     cannot fail.  The cost of ordering is one
 *                     re-execution per speculative transaction that was
 *                     early (counted under TM_ABORT_ORDER).
 *  late               "late turn check": at its commit the transaction
 *                     lets spec_wait ticks pass without a load (it reads
 *                     the time stamp counter, which RDTSC does inside a
 *                     transaction without aborting it), then reads the
 *                     turn once: its own, it commits in hardware; not
 *                     yet, it aborts as in outside.  spec_wait is learnt
 *                     per thread: after an early abort it grows by what
 *                     the transaction would have needed (the ticks it
 *                     then waited outside), after a commit it shrinks by
 *                     a sixteenth, so that it tracks how long the turn
 *                     takes to come after the transaction's body.  Most
 *                     speculative transactions then commit in hardware,
 *                     but a wait that overshoots holds the turn while
 *                     nobody runs, and the waiting loop competes with the
 *                     holder for the core: outside, with runs of turns,
 *                     is faster (docs/DESIGN.md, Pot on RTM).
 *  inside             spin on the turn inside the transaction (no pause:
 *                     it aborts RTM) for up to POT_RTM_INSIDE_SPINS loads,
 *                     then abort as above.  The hand-over to us is a store
 *                     to the word we are reading, so this commits in
 *                     hardware only if the turn was already ours; the
 *                     hand-over aborts it as a data conflict (counted under
 *                     TM_ABORT_HTM_CONFLICT), after which the turn is ours
 *                     and it re-runs in fast mode.  The counterpart of
 *                     POWER8's suspended wait, kept to compare.
 *
 * Without RTM tm_init fails with TM_ERR_UNSUPPORTED; POTM_HTM_FALLBACK_ONLY=1
 * runs every transaction in fast mode in its turn (no hardware at all),
 * which exercises the ordering for real.
 */
#include "potm_internal.h"

#include <stdlib.h>

#define HTM_NAME "pot-rtm"
#include "rtm_prims.h"

#define POT_HTM_ENV "POTM_POTRTM_WAIT",
#define POT_HTM_BEFORE_BEGIN(h) ((void)(h))
#include "pot_htm.h"

/* Loads of the state word before a waiting-inside transaction gives up. */
#define POT_RTM_INSIDE_SPINS 4096

/* The late check's wait at most, in microseconds: a transaction that
 * waits longer in hardware risks the timer interrupt that aborts it, and
 * a turn that far away is better waited for outside. */
#define POT_RTM_LATE_MAX_US 20

enum pot_rtm_wait { POT_RTM_OUTSIDE, POT_RTM_LATE, POT_RTM_INSIDE };

static enum pot_rtm_wait pot_rtm_wait;
static uint64_t pot_rtm_late_max;   /* POT_RTM_LATE_MAX_US in ticks */

static void pot_htm_commit_spec(pot_htm_thread_t *h)
{
	if (pot_rtm_wait == POT_RTM_LATE && h->spec_wait != 0) {
		/* No load of shared memory while the time passes: what the
		 * transaction read is all the hand-over could abort it on. */
		uint64_t until = potm_ticks() + h->spec_wait;
		while (potm_ticks() < until)
			__asm__ __volatile__("");
	}
	if (unlikely(!pot_htm_may_commit(h))) {
		if (pot_rtm_wait == POT_RTM_INSIDE) {
			for (unsigned i = 0; i < POT_RTM_INSIDE_SPINS; i++) {
				__asm__ __volatile__("" ::: "memory");
				if (pot_htm_may_commit(h))
					goto commit;
			}
		}
		/* Early: an abort caused by the order alone. */
		HTM_ABORT(HTM_CODE_TURN);
	}
commit:
	HTM_END();
}

static void pot_htm_spec_committed(pot_htm_thread_t *h)
{
	h->spec_wait -= h->spec_wait / 16;
}

static void pot_htm_spec_early(pot_htm_thread_t *h, uint64_t waited)
{
	uint64_t w = h->spec_wait + waited;
	h->spec_wait = w < pot_rtm_late_max ? w : pot_rtm_late_max;
}

/* No rollback-only transactions on Intel: fast mode is software, in place;
 * strong isolation aborts every hardware transaction that touches what it
 * writes. */
static void pot_htm_run_fast(pot_htm_thread_t *h)
{
	pot_htm_enter_sw(h);
}

static int pot_htm_backend_init(const tm_config_t *cfg)
{
	(void)cfg;
	pot_rtm_late_max = POT_RTM_LATE_MAX_US * potm_ticks_per_us;
	const char *w = getenv("POTM_POTRTM_WAIT");
	if (w == NULL || strcmp(w, "outside") == 0)
		pot_rtm_wait = POT_RTM_OUTSIDE;
	else if (strcmp(w, "late") == 0)
		pot_rtm_wait = POT_RTM_LATE;
	else if (strcmp(w, "inside") == 0)
		pot_rtm_wait = POT_RTM_INSIDE;
	else
		return potm_error("invalid value POTM_POTRTM_WAIT=\"%s\"; allowed: "
		                  "outside, late, inside", w);
	return 0;
}
