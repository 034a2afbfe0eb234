/*
 * report.h — the line every STAMP application of this project prints last:
 * one JSON object with the run's parameters, time, transaction statistics
 * and self-check result, e.g.
 *
 *   {"app": "vacation", "args": "-c2 -n4", "backend": "tl2", "threads": 2,
 *    "time": 0.153, "commits": 4096, "aborts": 17,
 *    "aborts_by_cause": {"read_locked": 3, ...}, "check": "pass",
 *    "stats": {...every tm_stats_t counter...}}
 *
 * Print it after the timed region and before TM_SHUTDOWN.
 */
#ifndef REPORT_H
#define REPORT_H 1

#include <stddef.h>

#include "types.h"

void report_print(const char *app, int argc, char **argv, long numThread,
                  double seconds, bool_t checkPassed);

/* A digest of the run's final state, printed as "digest" in the JSON line
 * when set.  With a deterministic backend two runs with the same input and
 * thread count must print the same digest (tests compare them). */
void report_set_digest(unsigned long digest);

/* Fold n bytes into a digest (64-bit FNV-1a); start from REPORT_DIGEST_INIT. */
#define REPORT_DIGEST_INIT 0xcbf29ce484222325UL
unsigned long report_digest(unsigned long digest, const void *data, size_t n);

/* Fold one long into a digest. */
static inline unsigned long report_digest_long(unsigned long digest, long v)
{
	return report_digest(digest, &v, sizeof v);
}

/* Report a failed self-check on stderr (printf-style); the application
 * still prints its JSON line ("check": "fail") and exits with status 1. */
void report_check_failed(const char *app, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* REPORT_H */
