/*
 * cmake/rtm_probe.c — run at configure time (try_run) to choose how the
 * RTM backends are tested (POTM_TEST_HTM_HARDWARE=AUTO): exit status 0 if
 * this CPU commits RTM transactions.  The probe is the library's own.
 */
#include "rtm_probe.h"   /* htm/, on the include path */

int main(void)
{
	return (int)rtm_probe();
}
