/* lib/cpu.c — CPU feature detection. */
#include "potm_internal.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__powerpc64__)
#include <sys/auxv.h>
#ifndef PPC_FEATURE2_HTM
#define PPC_FEATURE2_HTM 0x40000000
#endif
#endif

bool potm_cpu_has_rtm(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (__get_cpuid_max(0, NULL) < 7)
		return false;
	__cpuid_count(7, 0, a, b, c, d);
	(void)a; (void)c; (void)d;
	return (b >> 11) & 1;   /* CPUID.(EAX=7,ECX=0):EBX bit 11 = RTM */
#else
	return false;
#endif
}

bool potm_cpu_has_ppc_htm(void)
{
#if defined(__powerpc64__)
	return (getauxval(AT_HWCAP2) & PPC_FEATURE2_HTM) != 0;
#else
	return false;
#endif
}
