/*
 * potm/doppel.h — the Doppel split-slice layer (phase reconciliation,
 * Narula's thesis "Parallel Execution for Conflicting Transactions").
 *
 * Records live in TM memory and are read and written through dp_* calls
 * inside transactions run by dp_exec().  When many transactions update a
 * few hot records with commutative operations, the runtime splits those
 * records: in a "split phase" each thread applies the selected operation
 * to its own slice of the record, outside concurrency control, so the
 * conflicting updates run in parallel; at the end of the phase the slices
 * are merged into the record ("reconciliation") and a "joined phase" runs
 * everything else as ordinary transactions of the backend.  Every
 * transaction stays serializable:
 *
 *  - joined phase: every dp_* call is an ordinary transactional access;
 *  - split phase: the selected operation on a split record goes to the
 *    thread's slice; any other operation on a split record (a read, a put,
 *    another kind of update) aborts the transaction and stashes it: it is
 *    re-run in the next joined phase and dp_exec() returns DP_STASHED;
 *    operations on records that are not split run as usual;
 *  - no transaction spans two phases; a split phase begins only once every
 *    joined-phase transaction has ended (so no joined reader sees half of
 *    a split-phase transaction), and a joined phase only once every slice
 *    of the split phase before it has been reconciled (so no read ever
 *    sees part of a reconciliation).
 *
 * Phases change only while every worker is between transactions; workers
 * report it at each dp_exec() (quiescent-state tracking in the style of
 * liburcu's QSBR flavour).  A worker that will not call dp_exec() for a
 * while (waiting for input, blocking elsewhere) must say so with
 * dp_thread_offline(), or phase changes wait for it.
 *
 * Which records are split: by hand (dp_split/dp_join), or by the
 * classifier, which samples each record's operations and the aborts they
 * were part of (see lib/doppel/classify.c and POTM_DP_* in potm/config.h).
 *
 * Use:
 *     tm_init(NULL); dp_init();
 *     per worker: tm_thread_enter(id); dp_thread_enter();
 *                 ... dp_exec(fn, arg) ... ;
 *                 dp_thread_exit(); tm_thread_exit();
 *     dp_shutdown(); tm_shutdown();
 *
 * Deterministic backends (pot): phases are timed, so which transactions
 * are stashed, and where their re-runs land in the commit order, depends on
 * timing.  What stays deterministic: the final value of every record that
 * is only changed by splittable operations (add, max, min, oput, top-K
 * commute, and their ties are broken by value and thread id), and, while no
 * record is split, the whole order as pot defines it.  The protocol is
 * described in lib/doppel/runtime.c.
 */
#ifndef POTM_DOPPEL_H
#define POTM_DOPPEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The operations on a record.  DP_GET and DP_PUT are never split. */
typedef enum dp_op {
	DP_GET = 0,
	DP_PUT,
	DP_ADD,          /* integer += v */
	DP_MAX,          /* integer = max(integer, v) */
	DP_MIN,          /* integer = min(integer, v) */
	DP_OPUT,         /* tuple: keep the value with the largest order */
	DP_TOPK,         /* top-K set: keep the K largest (order, value) */
	DP_NOPS
} dp_op_t;

/* What a record holds; fixed at dp_rec_init. */
typedef enum dp_kind {
	DP_INT = 0,      /* an int64_t: get, put, add, max, min */
	DP_TUPLE,        /* (order, thread id, value): get_tuple, oput */
	DP_TOPKSET       /* up to K (order, value) pairs: topk_get, topk_insert */
} dp_kind_t;

typedef struct dp_topk_entry {
	int64_t order;
	int64_t value;
} dp_topk_entry_t;

#define DP_TOPK_MAX 64   /* largest K of a top-K record */

/* A record.  Its fields are private to the runtime: value, order and tid
 * are TM memory, read and written by transactions; the rest is set while
 * no transaction can use the record as split (phase changes).  Records may
 * be embedded in arrays and other structures; dp_rec_init() before use. */
typedef struct dp_rec {
	int64_t value;            /* DP_INT: the integer; DP_TUPLE: the value */
	int64_t order;            /* DP_TUPLE: its order; DP_TOPKSET: entries used */
	int64_t tid;              /* DP_TUPLE: writer's thread id, -1 if none */
	dp_topk_entry_t *topk;    /* DP_TOPKSET: k entries, largest first */
	uint8_t kind;             /* dp_kind_t */
	uint8_t split_op;         /* dp_op_t while split, DP_GET when joined */
	uint8_t by_hand;          /* split by dp_split: the classifier keeps off */
	uint8_t k;                /* DP_TOPKSET: K */
	uint32_t slot;            /* while split: its slice index */
	uint32_t lock;            /* reconciliation lock */
	uint32_t pending;         /* dp_split/dp_join request not yet applied */
} dp_rec_t;

/* ---- records (outside transactions) ---------------------------------- */

/* An integer record holding v. */
void dp_rec_init_int(dp_rec_t *r, int64_t v);
/* An ordered tuple, empty (dp_get_tuple reports nothing yet). */
void dp_rec_init_tuple(dp_rec_t *r);
/* A top-K set for 1 <= k <= DP_TOPK_MAX.  Returns 0, or -1 with
 * tm_last_error() (k out of range, no memory). */
int dp_rec_init_topk(dp_rec_t *r, unsigned k);
/* Release what dp_rec_init_topk allocated; nothing for other kinds.  The
 * record must not be split (dp_join it and let a phase pass, or call it
 * after dp_shutdown). */
void dp_rec_destroy(dp_rec_t *r);

/* ---- runtime ------------------------------------------------------------ */

/* Start the runtime (after tm_init): its phase coordinator thread and the
 * classifier, configured by tm_current_config()'s dp_* fields.  Returns 0,
 * or -1 with tm_last_error(). */
int dp_init(void);
/* Stop it: reconciles the last split phase and stops the coordinator.
 * Every worker must have called dp_thread_exit() (-1 otherwise). */
int dp_shutdown(void);

/* Make the calling thread (registered with tm_thread_enter) a worker.
 * Returns 0, or -1 with tm_last_error(). */
int dp_thread_enter(void);
/* Run every transaction this worker has stashed (waiting for the joined
 * phase if need be), reconcile its slices and stop being a worker. */
void dp_thread_exit(void);
/* Stop taking part in phase changes while idle: like dp_thread_exit, but
 * the thread stays a worker; dp_thread_online() to resume (dp_exec does it
 * too). */
void dp_thread_offline(void);
void dp_thread_online(void);
/* A quiescent point without a transaction: phase changes may proceed, and
 * stashed transactions run if a joined phase has begun. */
void dp_quiescent(void);

/* ---- transactions -------------------------------------------------------- */

#define DP_COMMITTED 0   /* = TM_COMMITTED */
#define DP_CANCELLED 1   /* = TM_CANCELLED: fn called tm_cancel() */
#define DP_STASHED   2   /* will run in the next joined phase */

/* Run fn(arg) as one transaction (fn may re-run after aborts, as with
 * tm_atomic).  DP_STASHED: it touched a split record in a way the split
 * phase cannot take; the same worker re-runs it in the next joined phase,
 * at one of its later dp_exec/dp_quiescent/dp_thread_offline/exit calls,
 * so arg must stay valid until then.  Not inside a transaction. */
int dp_exec(void (*fn)(void *), void *arg);
/* The same, but a stashed transaction is waited for: it returns only once
 * fn has committed (DP_COMMITTED) or cancelled (DP_CANCELLED). */
int dp_exec_wait(void (*fn)(void *), void *arg);

/* Inside dp_exec's fn only. */
int64_t dp_get(dp_rec_t *r);                           /* DP_INT */
void dp_put(dp_rec_t *r, int64_t v);                   /* DP_INT */
void dp_add(dp_rec_t *r, int64_t v);                   /* DP_INT */
void dp_max(dp_rec_t *r, int64_t v);                   /* DP_INT */
void dp_min(dp_rec_t *r, int64_t v);                   /* DP_INT */
/* Ordered put: the tuple takes (order, value) if order is larger than
 * its order, or equal and the calling thread's id is larger than the
 * writer's. */
void dp_oput(dp_rec_t *r, int64_t order, int64_t value);
/* false if the tuple was never written; otherwise its order, value and
 * the writer's logical thread id (any pointer may be NULL). */
bool dp_get_tuple(dp_rec_t *r, int64_t *order, int64_t *value, int64_t *tid);
/* Insert (order, value) into the set, which keeps the K largest pairs
 * (by order, then value); inserting a pair already present does nothing. */
void dp_topk_insert(dp_rec_t *r, int64_t order, int64_t value);
/* Copy the set, largest first, into out[0..max); returns the number of
 * entries it holds (which may exceed max). */
unsigned dp_topk_get(dp_rec_t *r, dp_topk_entry_t *out, unsigned max);

/* ---- splitting by hand ----------------------------------------------------
 * Takes effect at the next phase change (the next split phase for
 * dp_split, the next joined phase for dp_join); a record split by hand
 * stays split until dp_join.  op must be a splittable operation of the
 * record's kind (add/max/min on DP_INT, oput on DP_TUPLE, topk on
 * DP_TOPKSET).  Return 0, or -1 with tm_last_error(). */
int dp_split(dp_rec_t *r, dp_op_t op);
int dp_join(dp_rec_t *r);
/* dp_op_t the record is split for now, or DP_GET if it is joined. */
dp_op_t dp_split_op(const dp_rec_t *r);
/* Wait until the coordinator has gone n times through its cycle (apply
 * hand splits and joins and the classifier's decisions, then, if any
 * record is split, a split phase, its reconciliation and a joined phase)
 * after the one in progress.  So dp_split(); dp_wait_phases(1) returns
 * once a split phase with that record split has been reconciled.  For
 * tests and benchmarks; not on an online worker (dp_thread_offline
 * first), not inside a transaction. */
void dp_wait_phases(unsigned n);

/* ---- statistics ---------------------------------------------------------- */

typedef struct dp_stats {
	uint64_t split_phases;    /* split phases begun */
	uint64_t joined_phases;   /* joined phases begun */
	uint64_t split_ops;       /* operations applied to slices (committed) */
	uint64_t split_txs;       /* committed transactions that used a slice */
	uint64_t stashed;         /* transactions stashed */
	uint64_t stash_runs;      /* stashed transactions re-run */
	uint64_t reconciled;      /* slices merged into records */
	uint64_t classified;      /* classifier passes */
	uint64_t splits;          /* records split (classifier and by hand) */
	uint64_t joins;           /* records joined again */
	uint64_t split_records;   /* records split now */
	uint64_t cycles;          /* coordinator cycles (dp_wait_phases) */
} dp_stats_t;

/* Totals since dp_init (workers that exited included). */
void dp_stats(dp_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif /* POTM_DOPPEL_H */
