/* lib/cpu.c — CPU and kernel features (Intel RTM's: htm/rtm_probe.h). */
#include "potm_internal.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

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

bool potm_membarrier_ok;

void potm_membarrier_register(void)
{
	potm_membarrier_ok = syscall(__NR_membarrier,
	                             MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

int potm_membarrier(void)
{
	return (int)syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

/* ---- ticks (potm_ticks) ------------------------------------------------------ */

uint64_t potm_ticks_per_us = 1;

/* The rate is measured over a short spin: the waits it converts and the
 * paces it sets (reclamation batches) need no more precision than that. */
void potm_ticks_init(void)
{
	uint64_t ns0 = potm_now_ns(), ticks0 = potm_ticks(), ns;
	while ((ns = potm_now_ns() - ns0) < 200000u)
		potm_cpu_relax();
	uint64_t per_us = (potm_ticks() - ticks0) * 1000u / ns;
	potm_ticks_per_us = per_us ? per_us : 1;
}
