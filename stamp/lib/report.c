/*
 * report.c — see report.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "report.h"
#include "tm.h"

static bool_t digestSet;
static unsigned long digestValue;

void report_set_digest(unsigned long digest)
{
	digestSet = TRUE;
	digestValue = digest;
}

unsigned long report_digest(unsigned long digest, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++) {
		digest ^= p[i];
		digest *= 0x100000001b3UL;
	}
	return digest;
}

static void print_digest(void)
{
	if (digestSet)
		printf(", \"digest\": \"%016lx\"", digestValue);
}

static void print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

void report_print(const char *app, int argc, char **argv, long numThread,
                  double seconds, bool_t checkPassed)
{
	fflush(stdout);
	printf("{\"app\": ");
	print_json_string(app);
	printf(", \"args\": \"");
	for (int i = 1; i < argc; i++) {
		/* Escape each argument's characters but not the separators. */
		char buf[2] = { 0, 0 };
		for (const char *c = argv[i]; *c; c++) {
			buf[0] = *c;
			if (*c == '"' || *c == '\\')
				printf("\\%c", *c);
			else
				fputs(buf, stdout);
		}
		if (i + 1 < argc)
			putchar(' ');
	}
	printf("\"");
#ifdef STM
	tm_stats_t s;
	if (tm_stats(&s) != 0) {
		fprintf(stderr, "%s: tm_stats failed: %s\n", app, tm_last_error());
		return;
	}
	printf(", \"backend\": ");
	print_json_string(tm_backend_name());
	printf(", \"threads\": %ld, \"time\": %.6f", numThread, seconds);
	/* Pot's runs of turns in force: the program's default
	 * (TM_DEFAULT_TURN_BATCH) or POTM_TURN_BATCH. */
	if (tm_is_deterministic())
		printf(", \"turn_batch\": %u", tm_current_config()->turn_batch);
	printf(", \"commits\": %llu, \"aborts\": %llu, \"aborts_by_cause\": {",
	       (unsigned long long)s.commits, (unsigned long long)s.aborts);
	int first = 1;
	for (int c = 0; c < TM_ABORT__COUNT; c++) {
		if (s.aborts_by_cause[c] == 0)
			continue;
		printf("%s\"%s\": %llu", first ? "" : ", ", tm_abort_cause_name(c),
		       (unsigned long long)s.aborts_by_cause[c]);
		first = 0;
	}
	printf("}, \"check\": \"%s\"", checkPassed ? "pass" : "fail");
	print_digest();
	printf(", \"stats\": ");
	tm_stats_print_json(stdout, &s);
	printf("}\n");
	stm_potm_stats_reported();
#else
	printf(", \"backend\": \"none\", \"threads\": %ld, \"time\": %.6f, "
	       "\"commits\": 0, \"aborts\": 0, \"aborts_by_cause\": {}, "
	       "\"check\": \"%s\"", numThread, seconds, checkPassed ? "pass" : "fail");
	print_digest();
	printf("}\n");
#endif
	fflush(stdout);
}

void report_check_failed(const char *app, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "%s: SELF-CHECK FAILED: ", app);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
