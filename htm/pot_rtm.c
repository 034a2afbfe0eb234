/*
 * htm/pot_rtm.c — Pot on Intel RTM (Vale's thesis §3.4.2 asks how Pot fares
 * on a best-effort HTM without suspend/resume): the protocol is pot_htm.h's,
 * the primitives rtm_prims.h's.  What is particular to RTM is how a
 * speculative transaction waits for its turn at commit.
 *
 * Intel has no suspended mode and no non-transactional loads inside a
 * transaction (XSUSLDTRK does not keep remote stores from aborting it), so
 * a hardware transaction cannot watch the turn without the turn's hand-over
 * (a store to the sequencer's state word) aborting it.  Two ways to wait,
 * chosen with POTM_POTRTM_WAIT:
 *
 *  outside (default)  check the turn just before _xend; if it is not ours,
 *                     _xabort(RTM_CODE_TURN), wait for the turn outside
 *                     the transaction (spin, yield, futex), and re-run in
 *                     fast mode — in place, non-transactionally, which
 *                     cannot fail.  The cost of ordering is one
 *                     re-execution per speculative transaction that was
 *                     early (counted under TM_ABORT_ORDER).
 *  inside             spin on the turn inside the transaction (no pause:
 *                     it aborts RTM) for up to POT_RTM_INSIDE_SPINS loads,
 *                     then abort as above.  The hand-over to us is a store
 *                     to the word we are reading, so this commits in
 *                     hardware only if the turn was already ours; the
 *                     hand-over aborts it as a data conflict (counted under
 *                     TM_ABORT_HTM_CONFLICT), after which the turn is ours
 *                     and it re-runs in fast mode.  The counterpart of
 *                     POWER8's suspended wait, kept to compare with
 *                     outside.
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

static void pot_htm_commit_spec(pot_htm_thread_t *h)
{
	if (unlikely(!pot_htm_may_commit(h))) {
		if (pot_htm.wait_inside) {
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
	const char *w = getenv("POTM_POTRTM_WAIT");
	if (w == NULL || strcmp(w, "outside") == 0)
		pot_htm.wait_inside = false;
	else if (strcmp(w, "inside") == 0)
		pot_htm.wait_inside = true;
	else
		return potm_error("invalid value POTM_POTRTM_WAIT=\"%s\"; allowed: "
		                  "outside, inside", w);
	return 0;
}
