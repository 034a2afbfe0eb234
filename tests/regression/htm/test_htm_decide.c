/*
 * Abort-decision logic of the HTM backends, on injected status words: runs
 * on any CPU (the hardware need not be there to know what its words mean).
 */
#include <check.h>
#include <stdlib.h>

#include "rot_decide.h"
#include "rtm_decide.h"

#include "check_run.h"

/* ---- Intel RTM: _xbegin status ---------------------------------------- */

START_TEST(rtm_conflict_with_retry_bit_is_transient)
{
	struct rtm_decision d = rtm_decide(RTM_STATUS_CONFLICT | RTM_STATUS_RETRY);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_CONFLICT);
	ck_assert(!d.persistent);
	ck_assert_int_eq(d.explicit_code, -1);
}
END_TEST

START_TEST(rtm_capacity_is_persistent_even_with_retry_bit)
{
	struct rtm_decision d = rtm_decide(RTM_STATUS_CAPACITY | RTM_STATUS_RETRY);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_CAPACITY);
	ck_assert(d.persistent);
}
END_TEST

START_TEST(rtm_no_retry_bit_is_persistent)
{
	/* Status 0: e.g. a system call or an unfriendly instruction. */
	struct rtm_decision d = rtm_decide(0);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_OTHER);
	ck_assert(d.persistent);
	d = rtm_decide(RTM_STATUS_CONFLICT);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_CONFLICT);
	ck_assert(d.persistent);
}
END_TEST

START_TEST(rtm_retry_only_and_nested)
{
	struct rtm_decision d = rtm_decide(RTM_STATUS_RETRY);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_RETRY);
	ck_assert(!d.persistent);
	d = rtm_decide(RTM_STATUS_NESTED | RTM_STATUS_RETRY);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_NESTED);
}
END_TEST

START_TEST(rtm_explicit_codes)
{
	struct rtm_decision d = rtm_decide(RTM_STATUS_EXPLICIT | (0xffu << 24));
	ck_assert_int_eq(d.explicit_code, 0xff);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_EXPLICIT);
	d = rtm_decide(RTM_STATUS_EXPLICIT | ((unsigned)RTM_CODE_RESTART << 24));
	ck_assert_int_eq(d.explicit_code, RTM_CODE_RESTART);
	ck_assert_int_eq(d.cause, TM_ABORT_EXPLICIT);
}
END_TEST

/* ---- POWER8: TEXASR --------------------------------------------------- */

START_TEST(rot_qemu_failure_word)
{
	/* What tbegin. leaves in TEXASR under qemu 7.2. */
	uint64_t t = 0x014000003c000000ull;
	ck_assert(t & TEXASR_PERSISTENT);
	ck_assert(t & TEXASR_NESTING_OVERFLOW);
	ck_assert(t & TEXASR_FAILURE_SUMMARY);
	ck_assert(!(t & TEXASR_ABORT));
	struct rot_decision d = rot_decide(t);
	ck_assert(d.persistent);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_NESTED);
	ck_assert_int_eq(d.explicit_code, -1);
}
END_TEST

START_TEST(rot_conflicts_are_transient_unless_marked)
{
	struct rot_decision d = rot_decide(TEXASR_TX_CONFLICT | TEXASR_FAILURE_SUMMARY);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_CONFLICT);
	ck_assert(!d.persistent);
	d = rot_decide(TEXASR_NONTX_CONFLICT);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_CONFLICT);
	d = rot_decide(TEXASR_SELF_CONFLICT | TEXASR_PERSISTENT);
	ck_assert(d.persistent);
}
END_TEST

START_TEST(rot_footprint_overflow_is_capacity)
{
	struct rot_decision d = rot_decide(TEXASR_FOOTPRINT_OVERFLOW | TEXASR_PERSISTENT);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_CAPACITY);
	ck_assert(d.persistent);
}
END_TEST

START_TEST(rot_tabort_codes)
{
	/* tabort. puts its operand in the failure-code byte; an odd code sets
	 * the persistent bit (bit 7 of the byte), which is why ours are even. */
	uint64_t t = ((uint64_t)ROT_CODE_LOCKED << 56) | TEXASR_ABORT;
	struct rot_decision d = rot_decide(t);
	ck_assert_int_eq(d.explicit_code, ROT_CODE_LOCKED);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_EXPLICIT);
	ck_assert(!d.persistent);
	ck_assert_int_eq(ROT_CODE_LOCKED & 1, 0);
	ck_assert_int_eq(ROT_CODE_RESTART & 1, 0);
	ck_assert_int_eq(ROT_CODE_CANCEL & 1, 0);
	ck_assert_int_lt(ROT_CODE_CANCEL, 0xd0);
	t = ((uint64_t)ROT_CODE_RESTART << 56) | TEXASR_ABORT;
	ck_assert_int_eq(rot_decide(t).cause, TM_ABORT_EXPLICIT);
	t = ((uint64_t)0x07 << 56) | TEXASR_ABORT;
	ck_assert(rot_decide(t).persistent);
}
END_TEST

/* ---- Pot on HTM: the turn code ------------------------------------------ */

/* pot-rtm / pot-rot abort a transaction that reached its commit before its
 * turn with a code of their own: an abort the order alone caused, counted
 * apart from the user's tm_restart and from other explicit aborts, and
 * never persistent (the transaction re-runs in its turn). */
START_TEST(rtm_turn_code_is_an_ordering_abort)
{
	struct rtm_decision d = rtm_decide(RTM_STATUS_EXPLICIT |
	                                   ((unsigned)RTM_CODE_TURN << 24));
	ck_assert_int_eq(d.explicit_code, RTM_CODE_TURN);
	ck_assert_int_eq(d.cause, TM_ABORT_ORDER);
	ck_assert(!d.persistent);
	d = rtm_decide(RTM_STATUS_EXPLICIT | ((unsigned)RTM_CODE_CANCEL << 24));
	ck_assert_int_eq(d.explicit_code, RTM_CODE_CANCEL);
	ck_assert_int_eq(d.cause, TM_ABORT_HTM_EXPLICIT);
	/* The codes are distinct. */
	ck_assert_int_ne(RTM_CODE_TURN, RTM_CODE_RESTART);
	ck_assert_int_ne(RTM_CODE_TURN, RTM_CODE_CANCEL);
	ck_assert_int_ne(RTM_CODE_CANCEL, RTM_CODE_RESTART);
}
END_TEST

START_TEST(rot_turn_code_is_an_ordering_abort)
{
	uint64_t t = ((uint64_t)ROT_CODE_TURN << 56) | TEXASR_ABORT;
	struct rot_decision d = rot_decide(t);
	ck_assert_int_eq(d.explicit_code, ROT_CODE_TURN);
	ck_assert_int_eq(d.cause, TM_ABORT_ORDER);
	ck_assert(!d.persistent);
	/* Even (an odd code sets the persistent bit) and below the reserved
	 * range. */
	ck_assert_int_eq(ROT_CODE_TURN & 1, 0);
	ck_assert_int_lt(ROT_CODE_TURN, 0xd0);
	ck_assert_int_ne(ROT_CODE_TURN, ROT_CODE_RESTART);
	ck_assert_int_ne(ROT_CODE_TURN, ROT_CODE_CANCEL);
	ck_assert_int_ne(ROT_CODE_TURN, ROT_CODE_LOCKED);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("htm_decide");
	TCase *rtm = tcase_create("rtm");
	tcase_add_test(rtm, rtm_conflict_with_retry_bit_is_transient);
	tcase_add_test(rtm, rtm_capacity_is_persistent_even_with_retry_bit);
	tcase_add_test(rtm, rtm_no_retry_bit_is_persistent);
	tcase_add_test(rtm, rtm_retry_only_and_nested);
	tcase_add_test(rtm, rtm_explicit_codes);
	tcase_add_test(rtm, rtm_turn_code_is_an_ordering_abort);
	suite_add_tcase(s, rtm);
	TCase *rot = tcase_create("rot");
	tcase_add_test(rot, rot_qemu_failure_word);
	tcase_add_test(rot, rot_conflicts_are_transient_unless_marked);
	tcase_add_test(rot, rot_footprint_overflow_is_capacity);
	tcase_add_test(rot, rot_tabort_codes);
	tcase_add_test(rot, rot_turn_code_is_an_ordering_abort);
	suite_add_tcase(s, rot);
	return potm_check_run(s);
}
