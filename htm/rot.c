/*
 * htm/rot.c — IBM POWER8 HTM (ISA 2.07: tbegin./tend./tabort.) with the
 * global-lock fallback of the thesis's Figure 3.4a: the primitives and the
 * TEXASR decoding; the protocol is htm_gl.h's.
 *
 * Built with a powerpc64le cross GCC (-mcpu=power8 -mhtm) and tested under
 * qemu-user, where tbegin. always fails (persistent, nesting overflow): the
 * fallback and the abort decisions run for real, the hardware commit path
 * does not.
 */
#include "potm_internal.h"
#include "rot_decide.h"

#include <htmintrin.h>

#define HTM_NAME "rot"
#define HTM_CODE_LOCKED  ROT_CODE_LOCKED
#define HTM_CODE_RESTART ROT_CODE_RESTART
#define HTM_CODE_CANCEL  ROT_CODE_CANCEL

#define HTM_BEGIN()     (__builtin_tbegin(0) != 0)
#define HTM_STATUS()    __builtin_get_texasr()
#define HTM_END()       ((void)__builtin_tend(0))
#define HTM_ABORT(code) ((void)__builtin_tabort(code))
#define htm_decision    rot_decision
#define htm_decide      rot_decide

static bool htm_hw_available(const tm_config_t *cfg, const char **why)
{
	if (potm_cpu_has_ppc_htm())
		return true;
	if (cfg->htm_force) {
		/* qemu-user runs tbegin. (it always fails) but reports no HTM. */
		fprintf(stderr, "potm: rot: the CPU does not report HTM (AT_HWCAP2); "
		        "POTM_HTM_FORCE=1: issuing tbegin. anyway — under an emulator "
		        "every transaction fails to the fallback\n");
		return true;
	}
	*why = "this CPU does not report POWER HTM (AT_HWCAP2 lacks "
	       "PPC_FEATURE2_HTM); use tl2, POTM_HTM_FORCE=1 under an emulator, or "
	       "POTM_HTM_FALLBACK_ONLY=1 to test the fallback path";
	return false;
}

#include "htm_gl.h"
