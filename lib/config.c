/*
 * lib/config.c — tm_config_t defaults, validation and POTM_* overrides.
 *
 * One table describes every setting: its variable, its field, its range.
 * The same table validates a programmatic configuration and parses the
 * environment, so the two can never disagree about what is allowed.
 */
#include "potm_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

enum cfg_kind { CFG_BOOL, CFG_UINT, CFG_STRING };

struct cfg_field {
	const char *env;      /* POTM_... */
	const char *field;    /* tm_config_t member, for messages */
	size_t offset;
	enum cfg_kind kind;
	unsigned long min, max;
	/* CFG_STRING: the i-th allowed value, NULL past the last; the
	 * value's index is the setting's enum (potm_cfg_mode, ...) */
	const char *(*choice)(unsigned i);
	size_t size;                /* CFG_STRING: the char array's size */
};

/* Pot's modes, in enum potm_mode order (lib/pot_modes.h); a flag left out
 * is false.  The mode names exist here only: the messages and
 * tm_mode_name read them from this table. */
const potm_mode_policy_t potm_mode_policies[POTM_MODE_COUNT] = {
	[POTM_MODE_POT] = { .name = "pot", .thesis = "Pot", .speculative = true,
	                    .fast_mode = true, .live_promotion = true, .runs = true },
	[POTM_MODE_POT_FAST] = { .name = "pot-fast", .thesis = "Pot*", .speculative = true,
	                         .fast_mode = true, .runs = true },
	[POTM_MODE_POT_ORDERED] = { .name = "pot-ordered", .thesis = "Pot-",
	                            .speculative = true },
	[POTM_MODE_POGL] = { .name = "pogl", .thesis = "PoGL", .global_lock = true },
	[POTM_MODE_DESTM] = { .name = "destm", .thesis = "DeSTM", .speculative = true,
	                      .rounds = true },
};

const char *tm_mode_name(unsigned i)
{
	return i < POTM_MODE_COUNT ? potm_mode_policies[i].name : NULL;
}

/* POTM_SEQUENCER's values, in enum potm_sequencer order. */
static const char *const cfg_sequencers[POTM_SEQUENCER_COUNT] = {
	[POTM_SEQUENCER_ROUND_ROBIN] = "round-robin",
	[POTM_SEQUENCER_WEIGHTED] = "weighted",
	[POTM_SEQUENCER_EXPLICIT] = "explicit",
};

static const char *cfg_sequencer_name(unsigned i)
{
	return i < POTM_SEQUENCER_COUNT ? cfg_sequencers[i] : NULL;
}

enum potm_mode potm_cfg_mode;
enum potm_sequencer potm_cfg_sequencer;

#define F(env, member, kind, lo, hi) \
	{ env, #member, offsetof(tm_config_t, member), kind, lo, hi, NULL, 0 }
#define S(env, member, choice)                                                   \
	{ env, #member, offsetof(tm_config_t, member), CFG_STRING, 0, 0, choice, \
	  sizeof(((tm_config_t *)0)->member) }
static const struct cfg_field cfg_fields[] = {
	F("POTM_MAX_THREADS", max_threads, CFG_UINT, 1, 4096),
	F("POTM_PIN", pin, CFG_BOOL, 0, 1),
	F("POTM_LOCK_BITS", lock_bits, CFG_UINT, 8, 28),
	F("POTM_STRIPE_SHIFT", stripe_shift, CFG_UINT, 3, 12),
	F("POTM_BACKOFF_MAX", backoff_max, CFG_UINT, 0, 1u << 24),
	F("POTM_EXTEND", extend, CFG_BOOL, 0, 1),
	F("POTM_HTM_RETRIES", htm_retries, CFG_UINT, 1, 1000),
	F("POTM_HTM_FALLBACK_ONLY", htm_fallback_only, CFG_BOOL, 0, 1),
	F("POTM_HTM_FORCE", htm_force, CFG_BOOL, 0, 1),
	F("POTM_VERBOSE", verbose, CFG_BOOL, 0, 1),
	S("POTM_MODE", mode, tm_mode_name),
	S("POTM_SEQUENCER", sequencer, cfg_sequencer_name),
	F("POTM_TURN_TIMEOUT_MS", turn_timeout_ms, CFG_UINT, 0, 3600000),
	F("POTM_TURN_BATCH", turn_batch, CFG_UINT, 0, 1u << 24),
	F("POTM_DP_SPLIT_MS", dp_split_ms, CFG_UINT, 1, 10000),
	F("POTM_DP_STASH_MAX", dp_stash_max, CFG_UINT, 1, 1000000),
	F("POTM_DP_CLASSIFY_MS", dp_classify_ms, CFG_UINT, 0, 600000),
	F("POTM_DP_SPLIT_IMPACT", dp_split_impact, CFG_UINT, 1, 1000000),
	F("POTM_DP_JOIN_IMPACT", dp_join_impact, CFG_UINT, 0, 1000000),
	F("POTM_PROMOTE_WRITES", promote_writes, CFG_UINT, 0, 1u << 24),
	F("POTM_PROMOTE_READS", promote_reads, CFG_UINT, 0, 1u << 24),
	F("POTM_SERIAL", serial, CFG_BOOL, 0, 1),
	F("POTM_SERIAL_WRITES", serial_writes, CFG_UINT, 0, 1u << 24),
	F("POTM_SILO_GLOBAL_TID", silo_global_tid, CFG_BOOL, 0, 1),
	F("POTM_HTM_COALESCE", htm_coalesce, CFG_UINT, 1, 64),
};
#undef F
#undef S
#define NFIELDS (sizeof cfg_fields / sizeof cfg_fields[0])

/* Variables of the POTM_ namespace that belong to the build and the
 * Python tooling, not to the run-time configuration. */
static const char *const cfg_not_runtime[] = {
	"POTM_BACKENDS", "POTM_SANITIZE", "POTM_BUILD_DIR", "POTM_JOBS",
};

void tm_config_default(tm_config_t *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->max_threads = 256;
	cfg->pin = 0;
	cfg->lock_bits = 20;
	cfg->stripe_shift = 5;
	cfg->backoff_max = 4096;
	cfg->extend = 1;
	cfg->htm_retries = 10;
	cfg->verbose = 0;
	strcpy(cfg->mode, tm_mode_name(POTM_MODE_POT));
	strcpy(cfg->sequencer, cfg_sequencer_name(POTM_SEQUENCER_ROUND_ROBIN));
	cfg->turn_timeout_ms = 60000;
	cfg->turn_batch = 65536;
	cfg->dp_split_ms = 20;
	cfg->dp_stash_max = 1024;
	cfg->dp_classify_ms = 200;
	cfg->dp_split_impact = 100;
	cfg->dp_join_impact = 20;
	cfg->promote_writes = 256;
	cfg->promote_reads = 16384;
	cfg->serial_writes = 2048;
	cfg->htm_coalesce = 4;
}

static unsigned long cfg_get(const tm_config_t *cfg, const struct cfg_field *f)
{
	const char *p = (const char *)cfg + f->offset;
	if (f->kind == CFG_BOOL)
		return (unsigned long)*(const int *)p;
	return *(const unsigned *)p;
}

static void cfg_set(tm_config_t *cfg, const struct cfg_field *f, unsigned long v)
{
	char *p = (char *)cfg + f->offset;
	if (f->kind == CFG_BOOL)
		*(int *)p = (int)v;
	else
		*(unsigned *)p = (unsigned)v;
}

static int cfg_allowed(const struct cfg_field *f, char *buf, size_t len)
{
	if (f->kind == CFG_STRING) {
		size_t used = 0;
		buf[0] = '\0';
		for (unsigned i = 0; f->choice(i) && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
			                         i ? ", " : "", f->choice(i));
		return (int)used;
	}
	if (f->kind == CFG_BOOL)
		return snprintf(buf, len, "0 or 1");
	return snprintf(buf, len, "an integer from %lu to %lu", f->min, f->max);
}

/* Index of s (at most n bytes, maybe not NUL-terminated) among f's
 * choices, or -1. */
static int cfg_choice(const struct cfg_field *f, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	const char *c;
	for (unsigned i = 0; (c = f->choice(i)) != NULL; i++)
		if (strlen(c) == len && strncmp(c, s, len) == 0)
			return (int)i;
	return -1;
}

/* Returns 0 and sets potm_cfg_mode and potm_cfg_sequencer, or -1 with the
 * error naming the first out-of-range field. */
int potm_config_validate(const tm_config_t *cfg)
{
	int mode = -1, sequencer = -1;
	for (size_t i = 0; i < NFIELDS; i++) {
		const struct cfg_field *f = &cfg_fields[i];
		if (f->kind == CFG_STRING) {
			const char *str = (const char *)cfg + f->offset;
			int c = cfg_choice(f, str, f->size);
			if (f->offset == offsetof(tm_config_t, mode))
				mode = c;
			else if (f->offset == offsetof(tm_config_t, sequencer))
				sequencer = c;
			if (c >= 0)
				continue;
			char allowed[128];
			cfg_allowed(f, allowed, sizeof allowed);
			return potm_error("invalid configuration: tm_config_t.%s = \"%.*s\" "
			                  "(%s); allowed: %s", f->field, (int)strnlen(str, f->size),
			                  str, f->env, allowed);
		}
		unsigned long v = cfg_get(cfg, f);
		if (v < f->min || v > f->max) {
			char allowed[64];
			cfg_allowed(f, allowed, sizeof allowed);
			return potm_error("invalid configuration: tm_config_t.%s = %lu "
			                  "(%s); allowed: %s", f->field, v, f->env, allowed);
		}
	}
	potm_cfg_mode = (enum potm_mode)mode;
	potm_cfg_sequencer = (enum potm_sequencer)sequencer;
	return 0;
}

static int cfg_parse(const struct cfg_field *f, const char *s, unsigned long *out)
{
	char *end;
	if (s[0] == '\0' || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < f->min || v > f->max)
		return -1;
	*out = v;
	return 0;
}

int tm_config_from_env(tm_config_t *cfg)
{
	/* Every POTM_ variable must be one we know: a misspelt setting that
	 * silently did nothing would invalidate a whole experiment. */
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "POTM_", 5) != 0)
			continue;
		size_t nlen = strcspn(*e, "=");
		const char *val = (*e)[nlen] == '=' ? *e + nlen + 1 : "";
		const struct cfg_field *f = NULL;
		for (size_t i = 0; i < NFIELDS; i++)
			if (strlen(cfg_fields[i].env) == nlen &&
			    strncmp(cfg_fields[i].env, *e, nlen) == 0)
				f = &cfg_fields[i];
		if (f == NULL) {
			bool ignored = false;
			for (size_t i = 0; i < sizeof cfg_not_runtime / sizeof *cfg_not_runtime; i++)
				if (strlen(cfg_not_runtime[i]) == nlen &&
				    strncmp(cfg_not_runtime[i], *e, nlen) == 0)
					ignored = true;
			for (const char *const *b = potm_backend.env; b && *b; b++)
				if (strlen(*b) == nlen && strncmp(*b, *e, nlen) == 0)
					ignored = true;   /* the backend reads it */
			if (ignored)
				continue;
			char known[1024] = "";
			for (size_t i = 0; i < NFIELDS; i++) {
				strncat(known, cfg_fields[i].env, sizeof known - strlen(known) - 1);
				if (i + 1 < NFIELDS)
					strncat(known, ", ", sizeof known - strlen(known) - 1);
			}
			for (const char *const *b = potm_backend.env; b && *b; b++) {
				strncat(known, ", ", sizeof known - strlen(known) - 1);
				strncat(known, *b, sizeof known - strlen(known) - 1);
			}
			return potm_error("unknown environment variable %.*s; the "
			                  "POTM_* settings are: %s", (int)nlen, *e, known);
		}
		if (f->kind == CFG_STRING) {
			int c = cfg_choice(f, val, strlen(val) + 1);
			if (c < 0) {
				char allowed[128];
				cfg_allowed(f, allowed, sizeof allowed);
				return potm_error("invalid value %s=\"%s\"; allowed: %s",
				                  f->env, val, allowed);
			}
			char *dst = (char *)cfg + f->offset;
			memset(dst, 0, f->size);
			strcpy(dst, f->choice((unsigned)c));   /* every choice is shorter than its field */
			continue;
		}
		unsigned long v;
		if (cfg_parse(f, val, &v) != 0) {
			char allowed[64];
			cfg_allowed(f, allowed, sizeof allowed);
			return potm_error("invalid value %s=\"%s\"; allowed: %s",
			                  f->env, val, allowed);
		}
		cfg_set(cfg, f, v);
	}
	return 0;
}
