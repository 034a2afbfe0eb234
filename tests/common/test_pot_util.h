/*
 * tests/common/test_pot_util.h — what the Pot tests share: running a
 * program's transactions on n registered threads, recording each
 * transaction's place in the order, replaying them sequentially, hashing.
 *
 * A test program is a set of transactions named by (thread id, per-thread
 * index k).  What transaction (id, k) does depends only on (id, k) and on
 * the shared state it reads, so a run is fully described by the order in
 * which the transactions took effect: replaying them sequentially in that
 * order must give the same per-transaction results and the same final
 * state ("equivalence"), and a deterministic backend must give the same
 * order every run ("determinism").
 */
#ifndef TEST_POT_UTIL_H
#define TEST_POT_UTIL_H

#include <potm/tm.h>

#include <stdbool.h>
#include <stdint.h>

#include "../lib/pot_modes.h"

/* The deterministic modes of the pot backends, as POTM_MODE spells them:
 * the library's list (tm_mode_name), which tests/test_pot_modes.c holds
 * against the thesis's. */
extern const char *pot_modes[];
#define POT_NMODES POTM_MODE_COUNT

/* setenv POTM_MODE (and clear POTM_SEQUENCER) before tm_init. */
void pot_use_mode(const char *mode);

/* The modes that take a sequencer other than round-robin: all but the one
 * that works in rounds (destm), and setting one: POTM_MODE=mode,
 * POTM_SEQUENCER=sequencer. */
extern const char *pot_sequenced_modes[];
#define POT_NSEQUENCED (POTM_MODE_COUNT - 1)
void pot_use_sequencer(const char *mode, const char *sequencer);

/* Run every test of s (Check's normal output); the process's exit status. */
struct Suite;
int pot_run_suite(struct Suite *s);

/* tm_init(NULL) or fail the test with tm_last_error(). */
void pot_init_or_fail(void);

/* A result that the replay compares: what the transaction returned, or
 * POT_CANCELLED if it called tm_cancel(). */
#define POT_CANCELLED INT64_MIN

typedef struct pot_prog {
	const char *name;
	/* Build the initial state (plain memory, no thread registered). */
	void (*setup)(unsigned nthreads, unsigned per_thread);
	/* The body of transaction (id, k).  tm: inside TM_BEGIN/TM_END, use
	 * TM_LOAD/TM_STORE and tm_cancel(); otherwise plain accesses and
	 * return POT_CANCELLED instead of cancelling. */
	int64_t (*body)(unsigned id, unsigned k, bool tm);
	uint64_t (*state_hash)(void);
	void (*teardown)(void);     /* free what setup and the run allocated */
} pot_prog_t;

extern const pot_prog_t pot_prog_counter; /* every tx conflicts; a tx log */
extern const pot_prog_t pot_prog_bank;    /* conditional transfers, audits */
extern const pot_prog_t pot_prog_intset;  /* sorted linked list, tm_malloc/free */

/* One committed (or cancelled) transaction of a run. */
typedef struct pot_rec {
	uint64_t slot;      /* tm_last_order() after it */
	unsigned id, k;
	int64_t result;
} pot_rec_t;

typedef struct pot_run {
	unsigned nthreads, per_thread;
	pot_rec_t *recs;    /* nthreads * per_thread, thread-major */
	uint64_t order_hash;/* hash of (id, k) in slot order; 0 if no order */
	uint64_t state_hash;
	int64_t wall_us;
} pot_run_t;

/* tm_init, run prog on nthreads threads (register, meet at a tm barrier,
 * run per_thread transactions each, exit), hash, tm_shutdown.  The
 * program's state is left in place for pot_replay_check (call
 * prog->teardown when done).  run->recs is malloc'd. */
void pot_run_prog(const pot_prog_t *prog, unsigned nthreads, unsigned per_thread,
                  pot_run_t *run);

/* If set, pot_run_prog calls tm_set_weight(pot_weight_of(id, k)) before
 * transaction (id, k) (the weighted order's tests). */
extern unsigned (*pot_weight_of)(unsigned id, unsigned k);

/* Replay run's transactions sequentially in slot order on a fresh state;
 * fail the test unless every result and the final state match. */
void pot_replay_check(const pot_prog_t *prog, const pot_run_t *run);

uint64_t pot_hash(uint64_t h, uint64_t v);
#define POT_HASH_INIT 1469598103934665603ull

/* Run fn(id, arg) on n threads registered as 0..n-1 that first meet at a
 * tm barrier; joins them. */
void pot_run_threads(unsigned n, void (*fn)(unsigned id, void *arg), void *arg);

#endif
