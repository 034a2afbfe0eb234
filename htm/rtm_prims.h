/*
 * htm/rtm_prims.h — the Intel RTM primitives and the runtime detection,
 * shared by rtm.c (with htm_gl.h's global-lock protocol) and pot_rtm.c
 * (with pot_htm.h's ordered protocol).  Compiled with -mrtm.
 */
#ifndef POTM_RTM_PRIMS_H
#define POTM_RTM_PRIMS_H

#include "rtm_decide.h"
#include "rtm_probe.h"

#include <immintrin.h>

/* Explicit abort codes (_xabort takes an 8-bit immediate). */
#define HTM_CODE_LOCKED  0xff   /* the fallback lock was held at begin */
#define HTM_CODE_RESTART RTM_CODE_RESTART
#define HTM_CODE_CANCEL  RTM_CODE_CANCEL
#define HTM_CODE_TURN    RTM_CODE_TURN

static __thread unsigned rtm_status;

/* The status is stored after an abort only: a store inside the
 * transaction would add a line to its write set. */
static inline __attribute__((always_inline)) bool rtm_begin(void)
{
	unsigned s = _xbegin();
	if (s == _XBEGIN_STARTED)
		return true;
	rtm_status = s;
	return false;
}

#define HTM_BEGIN()     rtm_begin()
#define HTM_RUNNING(h)  (_xtest() != 0)   /* inside a transaction */
#define HTM_STATUS()    rtm_status
#define HTM_END()       _xend()
#define HTM_ABORT(code) _xabort(code)
#define HTM_COALESCES   1                 /* htm_gl.h's coalescing */
#define htm_decision    rtm_decision
#define htm_decide      rtm_decide

/* CPUID says RTM and a transaction commits (rtm_probe.h). */
static bool htm_hw_available(const tm_config_t *cfg, const char **why)
{
	switch (rtm_probe()) {
	case RTM_PROBE_COMMITS:
		return true;
	case RTM_PROBE_NO_FLAG:
		*why = cfg->htm_force
		       ? "POTM_HTM_FORCE=1 cannot help: without RTM, _xbegin is an "
		         "illegal instruction; use POTM_HTM_FALLBACK_ONLY=1 to test "
		         "the fallback path"
		       : "this CPU has no Intel RTM (CPUID.(EAX=7,ECX=0):EBX bit 11 "
		         "is 0); use tl2, or POTM_HTM_FALLBACK_ONLY=1 to test the "
		         "fallback path";
		return false;
	case RTM_PROBE_NO_COMMIT:
		break;
	}
	*why = "the CPU reports RTM but no hardware transaction commits (TSX "
	       "disabled by microcode?)";
	return false;
}

#endif /* POTM_RTM_PRIMS_H */
