/*
 * htm/rot_prims.h — the IBM POWER8 HTM primitives (ISA 2.07: tbegin.,
 * tend., tabort., tsuspend., tresume.) and the runtime detection, shared by
 * rot.c (with htm_gl.h's global-lock protocol) and pot_rot.c (with
 * pot_htm.h's ordered protocol).  Compiled with -mcpu=power8 -mhtm; the
 * including file defines HTM_NAME first.
 *
 * Under qemu-user tbegin. always fails (persistent, nesting overflow) and
 * tsuspend./tresume./tend. are no-ops: the fallback and the abort decisions
 * run for real, the hardware commit path does not.
 */
#ifndef POTM_ROT_PRIMS_H
#define POTM_ROT_PRIMS_H

#include "rot_decide.h"

#include <htmintrin.h>
#include <stdio.h>

#define HTM_CODE_LOCKED  ROT_CODE_LOCKED
#define HTM_CODE_RESTART ROT_CODE_RESTART
#define HTM_CODE_CANCEL  ROT_CODE_CANCEL
#define HTM_CODE_TURN    ROT_CODE_TURN

#define HTM_BEGIN()     (__builtin_tbegin(0) != 0)
/* A rollback-only transaction (tbegin. with R=1): its stores are undone on
 * failure, its loads are not tracked. */
#define HTM_BEGIN_ROLLBACK_ONLY() (__builtin_tbegin(1) != 0)
#define HTM_STATUS()    __builtin_get_texasr()
#define HTM_END()       ((void)__builtin_tend(0))
#define HTM_ABORT(code) ((void)__builtin_tabort(code))
/* Suspended mode: loads and stores between the two are non-transactional;
 * a conflict meanwhile fails the transaction at tresume. */
#define HTM_SUSPEND()   ((void)__builtin_tsuspend())
#define HTM_RESUME()    ((void)__builtin_tresume())
#define htm_decision    rot_decision
#define htm_decide      rot_decide

static bool htm_hw_available(const tm_config_t *cfg, const char **why)
{
	if (potm_cpu_has_ppc_htm())
		return true;
	if (cfg->htm_force) {
		/* qemu-user runs tbegin. (it always fails) but reports no HTM. */
		fprintf(stderr, "potm: %s: the CPU does not report HTM (AT_HWCAP2); "
		        "POTM_HTM_FORCE=1: issuing tbegin. anyway — under an emulator "
		        "every transaction fails to the fallback\n", HTM_NAME);
		return true;
	}
	*why = "this CPU does not report POWER HTM (AT_HWCAP2 lacks "
	       "PPC_FEATURE2_HTM); use tl2, POTM_HTM_FORCE=1 under an emulator, or "
	       "POTM_HTM_FALLBACK_ONLY=1 to test the fallback path";
	return false;
}

#endif /* POTM_ROT_PRIMS_H */
