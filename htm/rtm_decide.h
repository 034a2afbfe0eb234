/*
 * htm/rtm_decide.h — what an RTM abort status means for the retry policy.
 *
 * A pure function of the status word that _xbegin returns, so it can be
 * tested on injected values on any CPU.  Bit layout (Intel SDM, vol. 1,
 * "RTM abort status definition"): 0 explicit (xabort), 1 retry may succeed,
 * 2 data conflict, 3 capacity, 4 debug breakpoint, 5 nested transaction,
 * 31:24 the xabort code.
 */
#ifndef POTM_RTM_DECIDE_H
#define POTM_RTM_DECIDE_H

#include <potm/stats.h>
#include <stdbool.h>

#define RTM_STATUS_EXPLICIT (1u << 0)
#define RTM_STATUS_RETRY    (1u << 1)
#define RTM_STATUS_CONFLICT (1u << 2)
#define RTM_STATUS_CAPACITY (1u << 3)
#define RTM_STATUS_DEBUG    (1u << 4)
#define RTM_STATUS_NESTED   (1u << 5)
#define RTM_STATUS_CODE(s)  (((s) >> 24) & 0xff)

/* tm_restart inside hardware: a user-requested retry, never persistent. */
#define RTM_CODE_RESTART 0x01
/* tm_cancel inside hardware. */
#define RTM_CODE_CANCEL  0x02
/* pot-rtm: the transaction reached its commit before its turn and aborted
 * itself (ordered commit): an abort caused by the order alone. */
#define RTM_CODE_TURN    0x03

struct rtm_decision {
	int cause;          /* enum tm_abort_cause */
	bool persistent;    /* retrying in hardware will not help: fall back */
	int explicit_code;  /* the xabort code, -1 if not an explicit abort */
};

static inline struct rtm_decision rtm_decide(unsigned status)
{
	struct rtm_decision d = { TM_ABORT_HTM_OTHER, false, -1 };
	if (status & RTM_STATUS_EXPLICIT) {
		d.explicit_code = (int)RTM_STATUS_CODE(status);
		d.cause = d.explicit_code == RTM_CODE_RESTART ? TM_ABORT_EXPLICIT
		        : d.explicit_code == RTM_CODE_TURN    ? TM_ABORT_ORDER
		                                              : TM_ABORT_HTM_EXPLICIT;
		/* Our own codes decide for themselves; the caller looks at them. */
		return d;
	}
	if (status & RTM_STATUS_CAPACITY)
		d.cause = TM_ABORT_HTM_CAPACITY;
	else if (status & RTM_STATUS_CONFLICT)
		d.cause = TM_ABORT_HTM_CONFLICT;
	else if (status & RTM_STATUS_NESTED)
		d.cause = TM_ABORT_HTM_NESTED;
	else if (status & RTM_STATUS_RETRY)
		d.cause = TM_ABORT_HTM_RETRY;
	/* Capacity never fits on retry; without the retry bit the hardware
	 * itself says a retry is pointless (e.g. a system call, a page fault
	 * or an unfriendly instruction inside the transaction). */
	d.persistent = (status & RTM_STATUS_CAPACITY) || !(status & RTM_STATUS_RETRY);
	return d;
}

#endif /* POTM_RTM_DECIDE_H */
