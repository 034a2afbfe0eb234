/* lib/cpu.c — CPU and kernel features (Intel RTM's: htm/rtm_probe.h). */
#include "potm_internal.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

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

static uint64_t ticks_at_init, ns_at_init;

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t potm_ticks_per_us = 1;

/* The rate for the paces set in ticks (reclamation batches) is measured
 * over a short spin: a pace needs no more precision than that. */
void potm_ticks_init(void)
{
	ns_at_init = cpu_now_ns();
	ticks_at_init = potm_ticks();
	uint64_t ns;
	while ((ns = cpu_now_ns() - ns_at_init) < 200000u)
		potm_cpu_relax();
	uint64_t per_us = (potm_ticks() - ticks_at_init) * 1000u / ns;
	potm_ticks_per_us = per_us ? per_us : 1;
}

/* The rate is measured over the time since tm_init, at least a
 * millisecond of it (a reader that comes sooner waits for the rest), so
 * the clock's and the counter's granularity do not matter. */
uint64_t potm_ticks_to_ns(uint64_t ticks)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__powerpc64__)
	uint64_t ns, tk;
	do {
		ns = cpu_now_ns() - ns_at_init;
		tk = potm_ticks() - ticks_at_init;
	} while (ns < 1000000u || tk == 0);
	return (uint64_t)((double)ticks * ((double)ns / (double)tk));
#else
	return ticks;
#endif
}
