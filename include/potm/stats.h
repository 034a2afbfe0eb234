/*
 * potm/stats.h — transaction statistics.
 *
 * Every thread counts into its own descriptor (no shared cache line is
 * written on the fast path); tm_stats() adds up the live threads and the
 * totals that exited threads left behind.
 */
#ifndef POTM_STATS_H
#define POTM_STATS_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Why an attempt aborted.  The names (tm_abort_cause_name) are stable JSON
 * keys: append new causes, never renumber. */
enum tm_abort_cause {
	TM_ABORT_READ_LOCKED = 0, /* read found the stripe locked by a committer
	                             (2pl: a read lock died, wait-die) */
	TM_ABORT_READ_VERSION,    /* read found a version newer than the snapshot */
	TM_ABORT_WRITE_LOCKED,    /* commit could not lock a written stripe
	                             (2pl: a write lock died, wait-die) */
	TM_ABORT_VALIDATE,        /* commit-time read-set validation failed */
	TM_ABORT_EXPLICIT,        /* tm_restart() */
	TM_ABORT_ORDER,           /* deterministic backends: lost the turn */
	TM_ABORT_HTM_CONFLICT,    /* hardware: data conflict */
	TM_ABORT_HTM_CAPACITY,    /* hardware: footprint too large */
	TM_ABORT_HTM_EXPLICIT,    /* hardware: xabort/tabort */
	TM_ABORT_HTM_RETRY,       /* hardware: transient, retry hinted */
	TM_ABORT_HTM_NESTED,      /* hardware: nesting */
	TM_ABORT_HTM_OTHER,       /* hardware: anything else */
	TM_ABORT_SERIAL,          /* tl2, pot: given up to restart in serial
	                             mode; pot: or to make way for one */
	TM_ABORT_CONDITION,       /* tl2, silo: LSD condition validation
	                             failed (an answer of lsd_is_true
	                             changed, or a condition's word could not
	                             be read at the commit's version; silo:
	                             or changed before the commit's end);
	                             2pl: a lazy
	                             write's value would break a condition
	                             an older transaction holds */
	TM_ABORT__COUNT
};

typedef struct tm_stats {
	uint64_t commits;         /* top-level transactions committed */
	uint64_t commits_ro;      /* ... of which wrote nothing */
	uint64_t cancels;         /* tm_cancel(): rolled back, not retried */
	uint64_t aborts;          /* attempts aborted and retried (all causes) */
	uint64_t aborts_by_cause[TM_ABORT__COUNT];
	uint64_t reads;           /* instrumented reads (STM backends) */
	uint64_t writes;          /* instrumented writes (STM backends) */
	uint64_t extensions;      /* successful snapshot extensions */
	uint64_t fast_commits;    /* Pot: commits in fast (in-turn) mode */
	uint64_t promotions;      /* pot: live promotions (a speculative
	                             transaction whose turn came goes on in
	                             fast mode); tl2: escalations (a big write
	                             set, or a shared reader that writes, takes
	                             the commit token and goes on in place) */
	uint64_t spec_commits;    /* Pot: speculative commits (ordered commit
	                             of a transaction begun before its turn) */
	uint64_t wait_turn_ns;    /* Pot: time spent waiting for the turn */
	uint64_t irrevocable;     /* tl2: transactions committed irrevocably
	                             (in place, holding the commit token:
	                             starving, escalated or serial) */
	uint64_t shared_reads;    /* tl2: long readers that shared their
	                             snapshot and read in place (R1) */
	uint64_t serial;          /* tl2, pot: transactions committed in
	                             serial mode (tm_serial; tl2 counts them
	                             in irrevocable too) */
	uint64_t htm_starts;      /* HTM: hardware transactions started */
	uint64_t htm_commits;     /* HTM: ... committed in hardware */
	uint64_t htm_fallbacks;   /* HTM: transactions run on the fallback path */
	uint64_t htm_persistent;  /* HTM: aborts the hardware marked persistent */
	uint64_t allocs;          /* tm_malloc in committed transactions */
	uint64_t frees;           /* tm_free in committed transactions */
	uint64_t reclaimed;       /* blocks returned to the allocator after a
	                             grace period */
	uint64_t early_fast;      /* pot: fast commits of keyed transactions
	                             begun before their turn, in place beside
	                             the earlier ones (tm_set_next_order_key) */
} tm_stats_t;

/* Sum of all threads, live and exited, since tm_init or tm_stats_reset.
 * Returns 0, or -1 if the library is not initialized. */
int tm_stats(tm_stats_t *out);

/* The calling thread's own counters, since it entered (tm_thread_enter)
 * or since the last tm_stats_reset: e.g. the aborts of one operation, as
 * the difference around it.  Unlike a counter kept by the program inside
 * a transaction, these survive a hardware abort (which rolls back every
 * store the attempt made).  Not inside a transaction (its counts are not
 * final).  Returns 0, or -1 (tm_last_error) if the thread is not
 * registered or is inside a transaction.  reclaimed stays 0: no thread
 * owns the reclamation. */
int tm_thread_stats(tm_stats_t *out);

/* Zero every counter (live threads and the exited-thread totals).  Call it
 * while no transaction runs, e.g. between a warm-up and a measurement. */
void tm_stats_reset(void);

/* "read_locked", "validate", ...; NULL for an unknown cause. */
const char *tm_abort_cause_name(int cause);

/* Print *s as one JSON object (no newline), keys as the field names above
 * and "aborts_by_cause": {name: count}. */
void tm_stats_print_json(FILE *f, const tm_stats_t *s);

#ifdef __cplusplus
}
#endif
#endif /* POTM_STATS_H */
