/*
 * lib/doppel/doppel_internal.h — what the Doppel runtime (runtime.c), the
 * record operations (ops.c) and the classifier (classify.c) share.
 */
#ifndef POTM_DOPPEL_INTERNAL_H
#define POTM_DOPPEL_INTERNAL_H

#include "potm_internal.h"

#include <potm/doppel.h>
#include <pthread.h>

#define DP_MAX_SPLIT 256         /* records split at once (slice slots) */
#define DP_SAMPLE_SLOTS 1024     /* per-worker sample table, direct-mapped */
#define DP_SAMPLE_EVERY 4        /* one operation in this many is sampled */
#define DP_LOG_MAX 32            /* operations of an attempt kept for
                                    blaming its abort on records */

/* The phase word: generation << 2 | phase.  A new value is published only
 * once every online worker has acknowledged the previous one, so an online
 * worker never misses a phase. */
/* PREPARE, before SPLIT, is a barrier: no transaction runs in it, so no
 * split-phase transaction overlaps a joined one (runtime.c, D0). */
enum dp_phase {
	DP_PHASE_JOINED = 0, DP_PHASE_SPLIT = 1, DP_PHASE_RECONCILE = 2, DP_PHASE_PREPARE = 3
};
#define DP_OFFLINE UINT64_MAX    /* a worker's seen word while offline */

static inline unsigned dp_phase_of(uint64_t word)
{
	return (unsigned)(word & 3);
}

/* One thread's slice of a split record: the part of the selected
 * operation's effect that this thread committed during the split phase. */
typedef struct dp_slice {
	int64_t a, b, c;           /* add: a = sum; max, min: a; oput: a =
	                              order, c = value; */
	dp_topk_entry_t *topk;     /* topk: the thread's own top K, allocated
	                              at first use and kept */
	unsigned n;                /* topk: entries used */
	bool used;                 /* touched in this split phase */
} dp_slice_t;

/* A split operation of the running attempt, applied to the slice only if
 * the transaction commits. */
typedef struct dp_pending {
	uint32_t slot;
	uint32_t op;
	int64_t x, y;
} dp_pending_t;

/* Samples of one record: operations (one in DP_SAMPLE_EVERY) and
 * conflicts (every aborted attempt that operated on it).  Written by the
 * owning worker, read by the classifier: relaxed atomics. */
typedef struct dp_sample {
	dp_rec_t *rec;
	uint32_t hold;             /* hits minus misses of others: who stays */
	uint32_t n[DP_NOPS];
	uint32_t c[DP_NOPS];
} dp_sample_t;

typedef struct dp_stash_entry {
	void (*fn)(void *);
	void *arg;
	int *rc_out;               /* dp_exec_wait's result, or NULL */
} dp_stash_entry_t;

typedef struct dp_worker {
	uint64_t seen POTM_ALIGNED; /* phase word acknowledged, or DP_OFFLINE;
	                               read by the coordinator */
	uint64_t phase;            /* the phase this worker's transactions run in */
	unsigned id;               /* logical thread id */
	bool offline;
	/* the dp_exec in progress */
	bool in_exec;
	bool stash_req;            /* the attempt hit a split record: stash */
	void (*fn)(void *);
	void *arg;
	dp_pending_t *pending;
	unsigned npending, pending_cap;
	struct { dp_rec_t *rec; unsigned op; } log[DP_LOG_MAX];
	unsigned nlog;
	/* slices of the current split phase */
	uint16_t used[DP_MAX_SPLIT];
	unsigned nused;
	dp_slice_t slices[DP_MAX_SPLIT];
	/* transactions stashed until the next joined phase, in order */
	dp_stash_entry_t *stash;
	unsigned nstash, stash_cap;
	/* classifier samples of the current window */
	uint32_t tick;             /* xorshift state: which operations to sample */
	uint64_t calls, wait_calls; /* dp_exec + dp_exec_wait calls, and the latter
	                              (relaxed; the classifier's stash weight) */
	uint64_t sample_epoch;
	dp_sample_t samples[DP_SAMPLE_SLOTS];
	dp_stats_t stats;          /* written by this worker: relaxed atomics */
} dp_worker_t;

struct dp_runtime {
	bool up;
	bool deterministic;        /* the backend orders commits (pot) */
	bool htm;                  /* the backend runs hardware transactions */
	unsigned max_workers;
	dp_worker_t **workers;     /* by logical id; NULL if not a worker */
	pthread_mutex_t reg_lock;  /* workers[] changes and the coordinator's
	                              scans of it */
	uint64_t phase;            /* the phase word */
	uint64_t sample_epoch;     /* bumped by each classifier pass */
	long stashed;              /* transactions waiting in stashes */
	long blocked;              /* online workers that can only wait for the
	                              joined phase (dp_exec_wait, exit) */
	dp_rec_t *split[DP_MAX_SPLIT]; /* by slot; changed in joined phases only */
	unsigned nsplit;
	pthread_mutex_t req_lock;  /* guards the hand requests */
	struct dp_request { dp_rec_t *rec; dp_op_t op; } *req; /* op DP_GET: join */
	unsigned nreq, req_cap;
	pthread_t coordinator;
	bool stop;
	uint64_t cycles;
	dp_stats_t stats;          /* coordinator's counters and exited workers' */
	/* configuration */
	unsigned split_ms, stash_max, classify_ms, split_impact, join_impact;
};

extern struct dp_runtime dp;
extern __thread dp_worker_t *dp_me;

/* Relaxed counters with one writer. */
#define DP_STAT_ADD(s, field, v) \
	__atomic_store_n(&(s)->field, (s)->field + (v), __ATOMIC_RELAXED)

/* ops.c */
void dp_apply_pending(dp_worker_t *w);      /* after commit */
void dp_reconcile_slices(dp_worker_t *w);   /* reconcile phase */
void dp_slices_free(dp_worker_t *w);

/* classify.c */
void dp_sample_conflicts(dp_worker_t *w);   /* the previous attempt aborted */
void dp_sample_reset_if_stale(dp_worker_t *w);
void dp_classify(void);                     /* coordinator, joined phase */
void dp_apply_requests(void);               /* coordinator, joined phase */
/* Make r split for op / joined; coordinator, joined phase. */
bool dp_mark_split(dp_rec_t *r, dp_op_t op, bool by_hand);
void dp_mark_joined(dp_rec_t *r);

static inline void dp_sample_op(dp_worker_t *w, dp_rec_t *r, dp_op_t op)
{
	if (w->nlog < DP_LOG_MAX) {
		w->log[w->nlog].rec = r;
		w->log[w->nlog].op = op;
		w->nlog++;
	}
	/* Random, not every n-th: a counter would lock onto one position of
	 * transactions that make a multiple of DP_SAMPLE_EVERY operations. */
	uint32_t x = w->tick;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	w->tick = x;
	if (x % DP_SAMPLE_EVERY != 0)
		return;
	dp_sample_t *s = &w->samples[((uintptr_t)r >> 4) * 0x9E3779B97F4A7C15ull >> 54];
	if (__atomic_load_n(&s->rec, __ATOMIC_RELAXED) != r) {
		/* Direct-mapped, and a record keeps its slot while it is hit more
		 * often than the others that map there (one Misra-Gries counter
		 * a slot): a hot record is not wiped by a stream of cold ones. */
		if (s->hold > 0) {
			s->hold--;
			return;
		}
		for (unsigned i = 0; i < DP_NOPS; i++) {
			__atomic_store_n(&s->n[i], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->c[i], 0, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&s->rec, r, __ATOMIC_RELAXED);
	}
	if (s->hold < 64)
		s->hold++;
	__atomic_store_n(&s->n[op], s->n[op] + 1, __ATOMIC_RELAXED);
}

_Static_assert(DP_SAMPLE_SLOTS == 1u << 10, "dp_sample_op hashes to 10 bits");

#endif /* POTM_DOPPEL_INTERNAL_H */
