/*
 * htm/rot_decide.h — what a POWER8 transaction failure means for the retry
 * policy, decoded from TEXASR (Power ISA 2.07, book II, "Transaction
 * Exception and Status Register").
 *
 * TEXASR is a 64-bit SPR described in IBM bit order (bit 0 = most
 * significant).  We decode it by hand: htmxlintrin.h's __TM_is_* helpers
 * (as GCC ships them) read the wrong half on little-endian.  IBM bit i is value bit
 * 63 - i:
 *   0:7   failure code (tabort. operand; bit 7 = Failure Persistent)
 *   8     disallowed            9  nesting overflow    10 footprint overflow
 *   11    self-induced conflict 12 non-transactional conflict
 *   13    transaction conflict  14 translation invalidation conflict
 *   15    implementation-specific 16 instruction fetch conflict
 *   31    abort (tabort. issued) 32 suspended          36 failure summary
 *   38    rollback-only transaction
 * qemu-user fails every tbegin. with persistent + nesting overflow
 * (0x014000003c000000), which tests/htm/test_htm_decide.c decodes.
 */
#ifndef POTM_ROT_DECIDE_H
#define POTM_ROT_DECIDE_H

#include <potm/stats.h>
#include <stdbool.h>
#include <stdint.h>

#define TEXASR_BIT(ibm)            ((uint64_t)1 << (63 - (ibm)))
#define TEXASR_FAILURE_CODE(t)     ((unsigned)((t) >> 56) & 0xff)
#define TEXASR_PERSISTENT          TEXASR_BIT(7)
#define TEXASR_DISALLOWED          TEXASR_BIT(8)
#define TEXASR_NESTING_OVERFLOW    TEXASR_BIT(9)
#define TEXASR_FOOTPRINT_OVERFLOW  TEXASR_BIT(10)
#define TEXASR_SELF_CONFLICT       TEXASR_BIT(11)
#define TEXASR_NONTX_CONFLICT      TEXASR_BIT(12)
#define TEXASR_TX_CONFLICT         TEXASR_BIT(13)
#define TEXASR_TLB_CONFLICT        TEXASR_BIT(14)
#define TEXASR_IMPL_SPECIFIC       TEXASR_BIT(15)
#define TEXASR_IFETCH_CONFLICT     TEXASR_BIT(16)
#define TEXASR_ABORT               TEXASR_BIT(31)
#define TEXASR_SUSPENDED           TEXASR_BIT(32)
#define TEXASR_FAILURE_SUMMARY     TEXASR_BIT(36)
#define TEXASR_ROLLBACK_ONLY       TEXASR_BIT(38)

#define TEXASR_ANY_CONFLICT (TEXASR_SELF_CONFLICT | TEXASR_NONTX_CONFLICT | \
	TEXASR_TX_CONFLICT | TEXASR_TLB_CONFLICT | TEXASR_IFETCH_CONFLICT)

/* Our tabort. codes.  Even: an odd code would set the persistent bit; codes
 * from 0xd0 up are reserved for the system. */
#define ROT_CODE_LOCKED  0x02
#define ROT_CODE_RESTART 0x04
#define ROT_CODE_CANCEL  0x06
/* pot-rot: not our turn at commit after the suspended wait (ordered commit):
 * an abort caused by the order alone. */
#define ROT_CODE_TURN    0x08

struct rot_decision {
	int cause;          /* enum tm_abort_cause */
	bool persistent;    /* the hardware says retrying will not help */
	int explicit_code;  /* tabort. code, -1 if not a tabort. */
};

static inline struct rot_decision rot_decide(uint64_t texasr)
{
	struct rot_decision d = { TM_ABORT_HTM_OTHER, false, -1 };
	d.persistent = (texasr & TEXASR_PERSISTENT) != 0;
	if (texasr & TEXASR_ABORT) {
		d.explicit_code = (int)TEXASR_FAILURE_CODE(texasr);
		d.cause = d.explicit_code == ROT_CODE_RESTART ? TM_ABORT_EXPLICIT
		        : d.explicit_code == ROT_CODE_TURN    ? TM_ABORT_ORDER
		                                              : TM_ABORT_HTM_EXPLICIT;
	} else if (texasr & TEXASR_FOOTPRINT_OVERFLOW) {
		d.cause = TM_ABORT_HTM_CAPACITY;
	} else if (texasr & TEXASR_ANY_CONFLICT) {
		d.cause = TM_ABORT_HTM_CONFLICT;
	} else if (texasr & TEXASR_NESTING_OVERFLOW) {
		d.cause = TM_ABORT_HTM_NESTED;
	}
	return d;
}

#endif /* POTM_ROT_DECIDE_H */
