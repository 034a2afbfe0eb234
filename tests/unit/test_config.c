/*
 * tests/unit/test_config.c — the run-time configuration (potm/config.h):
 * every POTM_* setting, its bounds, its default, and the errors.
 *
 * The table below is the contract as potm/config.h documents it, written
 * out independently of lib/config.c's own table:
 *  - every variable accepts its bounds (and a value between them) and
 *    stores exactly that value in its field;
 *  - out-of-range, negative, non-numeric, overflowing and empty values are
 *    refused with a message that names the variable and its allowed
 *    values, and leave the configuration as it was;
 *  - an unknown POTM_ variable is refused with the list of the known ones,
 *    and that list is exactly this table (nothing undocumented, nothing
 *    missing); the build's and tooling's POTM_ variables are ignored;
 *  - tm_config_default gives the documented defaults, and tm_init(NULL)
 *    runs with them;
 *  - tm_init validates a programmatic configuration with the same rules,
 *    the environment wins over it, a failed tm_init starts nothing, and a
 *    second tm_init is refused without touching the first.
 */
#define _GNU_SOURCE
#include <potm/tm.h>

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

enum kind { UINT, BOOL, STRING };

typedef struct setting {
	const char *env, *field;
	size_t offset;
	enum kind kind;
	unsigned long min, max, def;   /* UINT, BOOL */
	const char *choices[6];        /* STRING, NULL-ended; the first is the default */
} setting_t;

#define U(env, f, lo, hi, d) \
	{ env, #f, offsetof(tm_config_t, f), UINT, lo, hi, d, { NULL } }
#define B(env, f, d) \
	{ env, #f, offsetof(tm_config_t, f), BOOL, 0, 1, d, { NULL } }
#define S(env, f, ...) \
	{ env, #f, offsetof(tm_config_t, f), STRING, 0, 0, 0, { __VA_ARGS__, NULL } }
static const setting_t settings[] = {
	U("POTM_MAX_THREADS", max_threads, 1, 4096, 256),
	B("POTM_PIN", pin, 0),
	U("POTM_LOCK_BITS", lock_bits, 8, 28, 20),
	U("POTM_STRIPE_SHIFT", stripe_shift, 3, 12, 5),
	U("POTM_BACKOFF_MAX", backoff_max, 0, 1ul << 24, 4096),
	B("POTM_EXTEND", extend, 1),
	U("POTM_HTM_RETRIES", htm_retries, 1, 1000, 10),
	B("POTM_HTM_FALLBACK_ONLY", htm_fallback_only, 0),
	B("POTM_HTM_FORCE", htm_force, 0),
	B("POTM_VERBOSE", verbose, 0),
	S("POTM_MODE", mode, "pot", "pot-fast", "pot-ordered", "pogl", "destm"),
	S("POTM_SEQUENCER", sequencer, "round-robin", "weighted", "explicit"),
	U("POTM_TURN_TIMEOUT_MS", turn_timeout_ms, 0, 3600000, 60000),
	U("POTM_TURN_BATCH", turn_batch, 0, 1ul << 24, 65536),
	U("POTM_DP_SPLIT_MS", dp_split_ms, 1, 10000, 20),
	U("POTM_DP_STASH_MAX", dp_stash_max, 1, 1000000, 1024),
	U("POTM_DP_CLASSIFY_MS", dp_classify_ms, 0, 600000, 200),
	U("POTM_DP_SPLIT_IMPACT", dp_split_impact, 1, 1000000, 100),
	U("POTM_DP_JOIN_IMPACT", dp_join_impact, 0, 1000000, 20),
	U("POTM_PROMOTE_WRITES", promote_writes, 0, 1ul << 24, 256),
	U("POTM_PROMOTE_READS", promote_reads, 0, 1ul << 24, 16384),
	B("POTM_SERIAL", serial, 0),
	U("POTM_SERIAL_WRITES", serial_writes, 0, 1ul << 24, 2048),
	B("POTM_SILO_GLOBAL_TID", silo_global_tid, 0),
	U("POTM_HTM_COALESCE", htm_coalesce, 1, 64, 4),
};
#undef U
#undef B
#undef S
#define NSETTINGS (sizeof settings / sizeof settings[0])

static unsigned long get_num(const tm_config_t *c, const setting_t *s)
{
	const char *p = (const char *)c + s->offset;
	return s->kind == BOOL ? (unsigned long)*(const int *)p : *(const unsigned *)p;
}

static void set_num(tm_config_t *c, const setting_t *s, unsigned long v)
{
	char *p = (char *)c + s->offset;
	if (s->kind == BOOL)
		*(int *)p = (int)v;
	else
		*(unsigned *)p = (unsigned)v;
}

static const char *get_str(const tm_config_t *c, const setting_t *s)
{
	return (const char *)c + s->offset;
}

/* ---- the environment --------------------------------------------------- */

extern char **environ;

/* The POTM_* variables the test was started with (the backend's test
 * environment, e.g. POTM_HTM_FALLBACK_ONLY=1): tm_init needs them back. */
static char *inherited[64];
static unsigned ninherited;

static void clear_potm_env(void)
{
	char names[64][64];
	unsigned n = 0;
	for (char **e = environ; *e && n < 64; e++)
		if (strncmp(*e, "POTM_", 5) == 0) {
			size_t len = strcspn(*e, "=");
			snprintf(names[n++], sizeof names[0], "%.*s", (int)len, *e);
		}
	for (unsigned i = 0; i < n; i++)
		unsetenv(names[i]);
}

static void restore_inherited_env(void)
{
	clear_potm_env();
	for (unsigned i = 0; i < ninherited; i++) {
		size_t len = strcspn(inherited[i], "=");
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)len, inherited[i]);
		setenv(name, inherited[i] + len + 1, 1);
	}
}

static bool inherited_sets(const char *var)
{
	size_t len = strlen(var);
	for (unsigned i = 0; i < ninherited; i++)
		if (strncmp(inherited[i], var, len) == 0 && inherited[i][len] == '=')
			return true;
	return false;
}

/* tm_config_default, then tm_config_from_env with only var=val set. */
static int from_env_with(const char *var, const char *val, tm_config_t *c)
{
	clear_potm_env();
	ck_assert_int_eq(setenv(var, val, 1), 0);
	tm_config_default(c);
	int rc = tm_config_from_env(c);
	unsetenv(var);
	return rc;
}

/* The words a message must contain for setting s's allowed values. */
static void assert_names_allowed(const setting_t *s, const char *msg, const char *what)
{
	ck_assert_msg(strstr(msg, s->env) != NULL, "%s: message lacks %s: '%s'", what,
	              s->env, msg);
	char allowed[64];
	switch (s->kind) {
	case UINT:
		snprintf(allowed, sizeof allowed, "from %lu to %lu", s->min, s->max);
		ck_assert_msg(strstr(msg, allowed) != NULL, "%s: message lacks '%s': '%s'",
		              what, allowed, msg);
		break;
	case BOOL:
		ck_assert_msg(strstr(msg, "0 or 1") != NULL, "%s: message lacks '0 or 1': "
		              "'%s'", what, msg);
		break;
	case STRING:
		for (unsigned i = 0; s->choices[i]; i++)
			ck_assert_msg(strstr(msg, s->choices[i]) != NULL, "%s: message lacks "
			              "'%s': '%s'", what, s->choices[i], msg);
		break;
	}
}

/* ---- accepted values --------------------------------------------------- */

START_TEST(test_bounds_accepted)
{
	const setting_t *s = &settings[_i];
	tm_config_t def, c;
	tm_config_default(&def);
	if (s->kind == STRING) {
		for (unsigned i = 0; s->choices[i]; i++) {
			ck_assert_msg(from_env_with(s->env, s->choices[i], &c) == 0, "%s=%s: %s",
			              s->env, s->choices[i], tm_last_error());
			ck_assert_str_eq(get_str(&c, s), s->choices[i]);
		}
		return;
	}
	unsigned long vals[] = { s->min, s->max, s->min + (s->max - s->min) / 3 };
	for (unsigned i = 0; i < 3; i++) {
		char buf[32];
		snprintf(buf, sizeof buf, "%lu", vals[i]);
		ck_assert_msg(from_env_with(s->env, buf, &c) == 0, "%s=%s refused: %s",
		              s->env, buf, tm_last_error());
		ck_assert_msg(get_num(&c, s) == vals[i], "%s=%s gave %s = %lu", s->env, buf,
		              s->field, get_num(&c, s));
		/* Nothing else moved. */
		set_num(&c, s, get_num(&def, s));
		ck_assert_msg(memcmp(&c, &def, sizeof c) == 0, "%s=%s changed another "
		              "field", s->env, buf);
	}
}
END_TEST

/* ---- refused values ---------------------------------------------------- */

static void expect_refused(const setting_t *s, const char *val)
{
	tm_config_t def, c;
	tm_config_default(&def);
	char what[96];
	snprintf(what, sizeof what, "%s=\"%s\"", s->env, val);
	ck_assert_msg(from_env_with(s->env, val, &c) == -1, "%s accepted", what);
	assert_names_allowed(s, tm_last_error(), what);
	ck_assert_msg(memcmp(&c, &def, sizeof c) == 0, "%s changed the configuration", what);
}

START_TEST(test_bad_values_refused)
{
	const setting_t *s = &settings[_i];
	static const char *const common[] = {
		"", " ", "abc", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.0",
	};
	for (unsigned i = 0; i < sizeof common / sizeof *common; i++)
		expect_refused(s, common[i]);
	if (s->kind == STRING) {
		static const char *const bad[] = { "bogus", "POT", "pot ", "po",
		                                   "pot-fastest", "round_robin" };
		for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++)
			expect_refused(s, bad[i]);
		return;
	}
	char buf[48];
	snprintf(buf, sizeof buf, "%lu", s->max + 1);
	expect_refused(s, buf);
	if (s->min > 0) {
		snprintf(buf, sizeof buf, "%lu", s->min - 1);
		expect_refused(s, buf);
	}
	/* Values that wrap to something in range if parsed into 32 bits, and
	 * one past every integer type. */
	snprintf(buf, sizeof buf, "%lu", (1ul << 32) + s->min);
	expect_refused(s, buf);
	expect_refused(s, "99999999999999999999999");
	snprintf(buf, sizeof buf, "%lu", s->max);
	strcat(buf, "x");
	expect_refused(s, buf);
	if (s->kind == BOOL) {
		expect_refused(s, "yes");
		expect_refused(s, "true");
	}
}
END_TEST

/* ---- the names --------------------------------------------------------- */

START_TEST(test_unknown_variable_refused)
{
	static const char *const unknown[] = {
		"POTM_FOO", "POTM_", "POTM_mode", "POTM_MODES", "POTM_LOCKBITS",
	};
	for (unsigned i = 0; i < sizeof unknown / sizeof *unknown; i++) {
		tm_config_t def, c;
		tm_config_default(&def);
		ck_assert_int_eq(from_env_with(unknown[i], "1", &c), -1);
		const char *msg = tm_last_error();
		char want[64];
		snprintf(want, sizeof want, "unknown environment variable %s;", unknown[i]);
		ck_assert_msg(strstr(msg, want) != NULL, "%s: '%s'", unknown[i], msg);
		ck_assert(memcmp(&c, &def, sizeof c) == 0);
	}
}
END_TEST

/* The refusal lists the settings: exactly the documented ones, plus the
 * backend's own variables (named POTM_<something> too, listed last). */
START_TEST(test_known_list_is_the_table)
{
	tm_config_t c;
	ck_assert_int_eq(from_env_with("POTM_FOO", "1", &c), -1);
	const char *list = strstr(tm_last_error(), "settings are: ");
	ck_assert_msg(list != NULL, "%s", tm_last_error());
	list += strlen("settings are: ");
	bool seen[NSETTINGS] = { false };
	unsigned n = 0;
	for (const char *p = list; *p; n++) {
		size_t len = strcspn(p, ", ");
		bool found = false;
		for (unsigned i = 0; i < NSETTINGS; i++)
			if (strlen(settings[i].env) == len && strncmp(settings[i].env, p, len) == 0) {
				ck_assert_msg(!seen[i], "%s listed twice", settings[i].env);
				seen[i] = found = true;
			}
		ck_assert_msg(found || n >= NSETTINGS, "%.*s is a setting potm/config.h "
		              "does not document", (int)len, p);
		p += len;
		p += strspn(p, ", ");
	}
	for (unsigned i = 0; i < NSETTINGS; i++)
		ck_assert_msg(seen[i], "%s is documented but not a setting", settings[i].env);
}
END_TEST

START_TEST(test_build_variables_ignored)
{
	static const char *const build[] = {
		"POTM_BACKENDS", "POTM_SANITIZE", "POTM_BUILD_DIR", "POTM_JOBS",
	};
	tm_config_t def, c;
	tm_config_default(&def);
	for (unsigned i = 0; i < sizeof build / sizeof *build; i++) {
		ck_assert_msg(from_env_with(build[i], "anything", &c) == 0, "%s: %s",
		              build[i], tm_last_error());
		ck_assert(memcmp(&c, &def, sizeof c) == 0);
	}
}
END_TEST

/* ---- defaults ---------------------------------------------------------- */

START_TEST(test_defaults_documented)
{
	/* The environment is not applied by tm_config_default. */
	clear_potm_env();
	setenv("POTM_LOCK_BITS", "12", 1);
	setenv("POTM_MODE", "pogl", 1);
	tm_config_t c;
	memset(&c, 0xa5, sizeof c);
	tm_config_default(&c);
	for (unsigned i = 0; i < NSETTINGS; i++) {
		const setting_t *s = &settings[i];
		if (s->kind == STRING)
			ck_assert_msg(strcmp(get_str(&c, s), s->choices[0]) == 0, "%s: default "
			              "'%s', documented '%s'", s->field, get_str(&c, s),
			              s->choices[0]);
		else
			ck_assert_msg(get_num(&c, s) == s->def, "%s: default %lu, documented "
			              "%lu", s->field, get_num(&c, s), s->def);
	}
	/* With no variable set, the environment changes nothing. */
	clear_potm_env();
	tm_config_t e = c;
	ck_assert_int_eq(tm_config_from_env(&e), 0);
	ck_assert(memcmp(&c, &e, sizeof c) == 0);
}
END_TEST

/* tm_init(NULL) runs with the defaults and the environment on top. */
START_TEST(test_init_null_is_defaults)
{
	restore_inherited_env();
	tm_config_t want;
	tm_config_default(&want);
	ck_assert_int_eq(tm_config_from_env(&want), 0);
	ck_assert_ptr_null(tm_current_config());
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
	const tm_config_t *cur = tm_current_config();
	ck_assert_ptr_nonnull(cur);
	for (unsigned i = 0; i < NSETTINGS; i++) {
		const setting_t *s = &settings[i];
		if (s->kind == STRING)
			ck_assert_str_eq(get_str(cur, s), get_str(&want, s));
		else
			ck_assert_msg(get_num(cur, s) == get_num(&want, s), "%s: %lu active, "
			              "%lu expected", s->field, get_num(cur, s), get_num(&want, s));
	}
	tm_shutdown();
}
END_TEST

/* ---- tm_init ----------------------------------------------------------- */

/* tm_init(&c) refuses c, naming field, variable and allowed values, and
 * starts nothing. */
static void expect_init_refused(const setting_t *s, const tm_config_t *c,
                                const char *what)
{
	ck_assert_msg(tm_init(c) == -1, "%s accepted", what);
	const char *msg = tm_last_error();
	char field[64];
	snprintf(field, sizeof field, "tm_config_t.%s", s->field);
	ck_assert_msg(strstr(msg, field) != NULL, "%s: message lacks %s: '%s'", what,
	              field, msg);
	assert_names_allowed(s, msg, what);
	ck_assert_ptr_null(tm_current_config());
	tm_stats_t st;
	ck_assert_int_eq(tm_stats(&st), -1);
}

/* Every field out of range in a programmatic configuration: refused by
 * tm_init with the same rules as the environment. */
START_TEST(test_init_validates_fields)
{
	const setting_t *s = &settings[_i];
	restore_inherited_env();
	unsetenv(s->env);   /* the environment would win */
	tm_config_t c;
	char what[96];
	if (s->kind == STRING) {
		static const char *const bad[] = { "bogus", "", "POT" };
		for (unsigned i = 0; i < 3; i++) {
			tm_config_default(&c);
			snprintf((char *)&c + s->offset, 8, "%s", bad[i]);
			snprintf(what, sizeof what, "tm_config_t.%s = \"%s\"", s->field, bad[i]);
			expect_init_refused(s, &c, what);
		}
		return;
	}
	/* A bool field is an int: -1 is out of range too. */
	unsigned long bad[2] = { s->max + 1, s->kind == BOOL ? (unsigned long)-1 : s->min - 1 };
	for (unsigned i = 0; i < 2; i++) {
		if (s->kind == UINT && i == 1 && s->min == 0)
			break;
		tm_config_default(&c);
		set_num(&c, s, bad[i]);
		snprintf(what, sizeof what, "tm_config_t.%s = %ld", s->field, (long)bad[i]);
		expect_init_refused(s, &c, what);
	}
	/* The lower bound is accepted, unless the backend's test environment
	 * sets this variable (POTM_HTM_FALLBACK_ONLY=1 where the CPU has no
	 * RTM: without it, tm_init would refuse to start). */
	if (inherited_sets(s->env))
		return;
	tm_config_default(&c);
	set_num(&c, s, s->min);
	ck_assert_msg(tm_init(&c) == 0, "tm_config_t.%s = %lu: %s", s->field, s->min,
	              tm_last_error());
	ck_assert_uint_eq(get_num(tm_current_config(), s), s->min);
	tm_shutdown();
}
END_TEST

/* A string field filling its array with no terminator is refused, not
 * read past. */
START_TEST(test_init_unterminated_string)
{
	restore_inherited_env();
	unsetenv("POTM_MODE");
	tm_config_t c;
	tm_config_default(&c);
	memset(c.mode, 'p', sizeof c.mode);
	ck_assert_int_eq(tm_init(&c), -1);
	ck_assert_msg(strstr(tm_last_error(), "tm_config_t.mode") != NULL, "%s",
	              tm_last_error());
}
END_TEST

START_TEST(test_init_env_wins)
{
	restore_inherited_env();
	setenv("POTM_LOCK_BITS", "12", 1);
	unsetenv("POTM_STRIPE_SHIFT");
	tm_config_t c;
	tm_config_default(&c);
	c.lock_bits = 14;
	c.stripe_shift = 7;
	ck_assert_msg(tm_init(&c) == 0, "tm_init: %s", tm_last_error());
	ck_assert_uint_eq(tm_current_config()->lock_bits, 12);
	ck_assert_uint_eq(tm_current_config()->stripe_shift, 7);
	tm_shutdown();
}
END_TEST

START_TEST(test_init_bad_env_starts_nothing)
{
	restore_inherited_env();
	setenv("POTM_MAX_THREADS", "abc", 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	assert_names_allowed(&settings[0], tm_last_error(), "POTM_MAX_THREADS=abc");
	ck_assert_ptr_null(tm_current_config());
	ck_assert_int_eq(tm_thread_enter(0), -1);
	/* Corrected, it starts. */
	unsetenv("POTM_MAX_THREADS");
	ck_assert_msg(tm_init(NULL) == 0, "tm_init: %s", tm_last_error());
	tm_shutdown();
}
END_TEST

START_TEST(test_init_twice_refused)
{
	restore_inherited_env();
	unsetenv("POTM_LOCK_BITS");
	tm_config_t c;
	tm_config_default(&c);
	c.lock_bits = 13;
	ck_assert_msg(tm_init(&c) == 0, "tm_init: %s", tm_last_error());
	const tm_config_t *first = tm_current_config();
	c.lock_bits = 15;
	ck_assert_int_eq(tm_init(&c), -1);
	ck_assert_msg(strstr(tm_last_error(), "twice") != NULL, "%s", tm_last_error());
	ck_assert_int_eq(tm_init(NULL), -1);
	/* The first configuration is still the one in force, and works. */
	ck_assert_ptr_eq(tm_current_config(), first);
	ck_assert_uint_eq(tm_current_config()->lock_bits, 13);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	tm_thread_exit();
	tm_shutdown();
	/* After tm_shutdown, tm_init starts again with a new configuration. */
	ck_assert_msg(tm_init(&c) == 0, "tm_init: %s", tm_last_error());
	ck_assert_uint_eq(tm_current_config()->lock_bits, 15);
	tm_shutdown();
}
END_TEST

int main(void)
{
	for (char **e = environ; *e && ninherited < 64; e++)
		if (strncmp(*e, "POTM_", 5) == 0)
			inherited[ninherited++] = strdup(*e);
	/* A backend this machine cannot run still parses its configuration;
	 * only the cases that start the library are left out. */
	int rc = tm_init(NULL);
	bool can_init = rc == 0;
	if (rc == 0)
		tm_shutdown();
	else
		printf("tm_init(NULL): %s; the cases that start the library are not "
		       "run\n", tm_last_error());

	Suite *s = suite_create("config");
	TCase *env = tcase_create("environment");
	tcase_add_loop_test(env, test_bounds_accepted, 0, NSETTINGS);
	tcase_add_loop_test(env, test_bad_values_refused, 0, NSETTINGS);
	tcase_add_test(env, test_unknown_variable_refused);
	tcase_add_test(env, test_known_list_is_the_table);
	tcase_add_test(env, test_build_variables_ignored);
	tcase_add_test(env, test_defaults_documented);
	suite_add_tcase(s, env);
	if (can_init) {
		TCase *init = tcase_create("tm_init");
		tcase_add_test(init, test_init_null_is_defaults);
		tcase_add_loop_test(init, test_init_validates_fields, 0, NSETTINGS);
		tcase_add_test(init, test_init_unterminated_string);
		tcase_add_test(init, test_init_env_wins);
		tcase_add_test(init, test_init_bad_env_starts_nothing);
		tcase_add_test(init, test_init_twice_refused);
		suite_add_tcase(s, init);
	}
	return potm_check_run(s);
}
