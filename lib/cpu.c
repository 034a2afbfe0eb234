/* lib/cpu.c — CPU feature detection (Intel RTM's: htm/rtm_probe.h). */
#include "potm_internal.h"

#if defined(__powerpc64__)
#include <sys/auxv.h>
#ifndef PPC_FEATURE2_HTM
#define PPC_FEATURE2_HTM 0x40000000
#endif
#endif

bool potm_cpu_has_ppc_htm(void)
{
#if defined(__powerpc64__)
	return (getauxval(AT_HWCAP2) & PPC_FEATURE2_HTM) != 0;
#else
	return false;
#endif
}
