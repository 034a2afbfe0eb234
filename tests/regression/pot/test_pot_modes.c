/*
 * tests/test_pot_modes.c — Pot's modes: the names tm_mode_name lists, the
 * policy row of each mode (lib/pot_modes.h) as the thesis defines the
 * mode, and the refusal of a mode that does not exist.  Every backend
 * library has tm_mode_name and parses POTM_MODE, so this runs on each.
 */
#include <potm/tm.h>

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../lib/pot_modes.h"
#include "check_run.h"

/* The modes of the thesis, in the order the library lists them. */
static const struct {
	const char *name, *thesis;
} expected[] = {
	{ "pot", "Pot" }, { "pot-fast", "Pot*" }, { "pot-ordered", "Pot-" },
	{ "pogl", "PoGL" }, { "destm", "DeSTM" },
};
#define NEXPECTED (sizeof expected / sizeof expected[0])

static void clear_env(void)
{
	unsetenv("POTM_MODE");
	unsetenv("POTM_SEQUENCER");
}

/* "pot, pot-fast, ...": the allowed values as a message must list them. */
static void allowed_list(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; tm_mode_name(i) != NULL; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
		                         tm_mode_name(i));
	ck_assert_uint_lt(used, len);
}

START_TEST(test_names_are_the_thesis_modes)
{
	ck_assert_uint_eq(POTM_MODE_COUNT, NEXPECTED);
	for (unsigned i = 0; i < NEXPECTED; i++) {
		ck_assert_ptr_nonnull(tm_mode_name(i));
		ck_assert_str_eq(tm_mode_name(i), expected[i].name);
		ck_assert_str_eq(potm_mode_policies[i].name, expected[i].name);
		ck_assert_str_eq(potm_mode_policies[i].thesis, expected[i].thesis);
	}
	ck_assert_ptr_null(tm_mode_name(POTM_MODE_COUNT));
	ck_assert_ptr_null(tm_mode_name(UINT_MAX));
}
END_TEST

/* Each name goes through the environment into tm_config_t.mode, and
 * tm_init parses it back to its own row. */
START_TEST(test_names_round_trip)
{
	tm_config_t cfg;
	for (unsigned i = 0; tm_mode_name(i) != NULL; i++) {
		const char *name = tm_mode_name(i);
		ck_assert_uint_lt(strlen(name), sizeof cfg.mode);
		clear_env();
		tm_config_default(&cfg);
		ck_assert_int_eq(setenv("POTM_MODE", name, 1), 0);
		ck_assert_int_eq(tm_config_from_env(&cfg), 0);
		ck_assert_str_eq(cfg.mode, name);
		clear_env();
		int rc = tm_init(&cfg);
		if (rc == TM_ERR_UNSUPPORTED) {
			/* A backend this machine cannot run: the parse is the
			 * part under test, and it ran before the refusal. */
			fprintf(stderr, "%s: %s\n", name, tm_last_error());
			continue;
		}
		ck_assert_msg(rc == 0, "%s: %s", name, tm_last_error());
		ck_assert_str_eq(tm_current_config()->mode, name);
		ck_assert_int_eq(potm_cfg_mode, (int)i);
		tm_shutdown();
	}
}
END_TEST

/* What each mode does, as the thesis defines it. */
START_TEST(test_policies_are_the_thesis_modes)
{
	const potm_mode_policy_t *p = potm_mode_policies;
	/* Pot: speculation, fast mode in the turn, live promotion. */
	ck_assert(p[POTM_MODE_POT].speculative && p[POTM_MODE_POT].fast_mode &&
	          p[POTM_MODE_POT].live_promotion);
	/* Pot*: Pot without live promotion. */
	ck_assert(p[POTM_MODE_POT_FAST].speculative && p[POTM_MODE_POT_FAST].fast_mode &&
	          !p[POTM_MODE_POT_FAST].live_promotion);
	/* Pot-: speculation and ordered commit only. */
	ck_assert(p[POTM_MODE_POT_ORDERED].speculative && !p[POTM_MODE_POT_ORDERED].fast_mode &&
	          !p[POTM_MODE_POT_ORDERED].live_promotion);
	/* PoGL: no speculation; the turn is a global lock. */
	ck_assert(!p[POTM_MODE_POGL].speculative && p[POTM_MODE_POGL].global_lock &&
	          !p[POTM_MODE_POGL].fast_mode && !p[POTM_MODE_POGL].live_promotion);
	/* DeSTM: speculation in rounds, ordered commit, no fast mode. */
	ck_assert(p[POTM_MODE_DESTM].speculative && p[POTM_MODE_DESTM].rounds &&
	          !p[POTM_MODE_DESTM].fast_mode && !p[POTM_MODE_DESTM].live_promotion);
	unsigned rounds = 0, locks = 0;
	for (unsigned i = 0; i < POTM_MODE_COUNT; i++) {
		/* Live promotion ends in fast mode; a global lock leaves
		 * nobody to speculate; rounds are DeSTM's alone, the lock
		 * PoGL's alone. */
		ck_assert(!p[i].live_promotion || p[i].fast_mode);
		ck_assert(!(p[i].global_lock && p[i].speculative));
		rounds += p[i].rounds;
		locks += p[i].global_lock;
	}
	ck_assert_uint_eq(rounds, 1);
	ck_assert_uint_eq(locks, 1);
}
END_TEST

/* A mode that does not exist is refused, from the environment and from a
 * program, by a message naming the setting and every allowed value. */
START_TEST(test_bogus_mode_is_refused)
{
	char allowed[256];
	allowed_list(allowed, sizeof allowed);
	clear_env();
	tm_config_t cfg;
	tm_config_default(&cfg);
	ck_assert_int_eq(setenv("POTM_MODE", "bogus", 1), 0);
	ck_assert_int_eq(tm_config_from_env(&cfg), -1);
	const char *e = tm_last_error();
	ck_assert_msg(strstr(e, "POTM_MODE") && strstr(e, "bogus") && strstr(e, allowed),
	              "%s", e);
	ck_assert_int_eq(tm_init(NULL), -1);
	e = tm_last_error();
	ck_assert_msg(strstr(e, "POTM_MODE") && strstr(e, allowed), "%s", e);
	clear_env();
	tm_config_default(&cfg);
	strcpy(cfg.mode, "bogus");
	ck_assert_int_eq(tm_init(&cfg), -1);
	e = tm_last_error();
	ck_assert_msg(strstr(e, "tm_config_t.mode") && strstr(e, "POTM_MODE") &&
	              strstr(e, allowed), "%s", e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pot-modes");
	TCase *tc = tcase_create("modes");
	tcase_add_test(tc, test_names_are_the_thesis_modes);
	tcase_add_test(tc, test_names_round_trip);
	tcase_add_test(tc, test_policies_are_the_thesis_modes);
	tcase_add_test(tc, test_bogus_mode_is_refused);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
