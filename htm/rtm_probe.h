/*
 * htm/rtm_probe.h — does this CPU commit Intel RTM transactions?
 *
 * Self-contained (no potm header): the library's runtime check
 * (rtm_prims.h) and the configure-time probe (cmake/rtm_probe.c, which
 * picks how the RTM backends are tested) are this one function.  Compile
 * with -mrtm.  CPUID first: _xbegin on a CPU without RTM is an illegal
 * instruction.  Then some transaction must commit: microcode that disables
 * TSX may leave the flag set and abort every transaction.
 */
#ifndef POTM_RTM_PROBE_H
#define POTM_RTM_PROBE_H

#include <cpuid.h>
#include <immintrin.h>
#include <x86intrin.h>

enum rtm_probe_result {
	RTM_PROBE_COMMITS = 0,   /* transactions commit */
	RTM_PROBE_NO_FLAG = 1,   /* CPUID.(EAX=7,ECX=0):EBX bit 11 is 0 */
	RTM_PROBE_NO_COMMIT = 2, /* the flag is set, but every transaction of
	                            RTM_PROBE_ROUNDS rounds aborted */
};

/* Rounds of 64 attempts, about a millisecond apart: on a loaded machine every
 * transaction of a round can abort (interrupts, the hypervisor), so one
 * round that fails proves nothing; eight cost a CPU without working TSX
 * about 8 ms. */
#define RTM_PROBE_ROUNDS 8

static inline enum rtm_probe_result rtm_probe(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !((b >> 11) & 1))
		return RTM_PROBE_NO_FLAG;
	for (int round = 0; round < RTM_PROBE_ROUNDS; round++) {
		for (int i = 0; i < 64; i++)
			if (_xbegin() == _XBEGIN_STARTED) {
				_xend();
				return RTM_PROBE_COMMITS;
			}
		/* About a millisecond at the TSC's rate; spinning needs no
		 * feature macros of the includer. */
		for (unsigned long long t0 = __rdtsc(); __rdtsc() - t0 < 3000000ULL;)
			_mm_pause();
	}
	return RTM_PROBE_NO_COMMIT;
}

#endif /* POTM_RTM_PROBE_H */
