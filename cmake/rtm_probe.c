/*
 * cmake/rtm_probe.c — does this CPU run Intel RTM transactions?  Run at
 * configure time (try_run) to choose how the RTM backends are tested
 * (POTM_TEST_HTM_HARDWARE=AUTO).  CPUID first: _xbegin on a CPU without
 * RTM is an invalid instruction.  Then some transactions must commit: a
 * CPU whose microcode disabled TSX may still list the flag and abort
 * every transaction.  Exit status 0: yes.
 */
#include <cpuid.h>
#include <immintrin.h>

int main(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 11)))
		return 1;
	volatile int x = 0;
	for (int i = 0; i < 1000; i++)
		if (_xbegin() == _XBEGIN_STARTED) {
			x++;
			_xend();
			return 0;
		}
	return 2;
}
