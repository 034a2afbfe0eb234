/*
 * potm/dora.h — data-oriented transaction execution (DORA, Pandis et al.,
 * "Data-Oriented Transaction Execution") over the record store.
 *
 * Thread-to-data instead of thread-to-transaction:
 *  - Executors: E threads, each owning a part of every routed table.  A
 *    routing rule maps a routing field's value (TPC-C: the warehouse id)
 *    to an executor, by key range or by hash; rules change at run time
 *    (the resource manager: potm_dora_reroute) behind a quiescence
 *    protocol that loses no action.
 *  - A transaction is a flow graph: phases of actions separated by
 *    rendezvous points (RVPs).  An action is routed by one routing value
 *    to its executor's queue and runs there, after taking its locks in
 *    that executor's local lock table (thread-local: no atomic operation,
 *    no latch), inside one transaction of the backend that covers only
 *    its store operations (the physical structures the executors share:
 *    index nodes, hash buckets).  On `seq` that transaction is free.
 *  - The last action to reach an RVP runs the RVP's continuation, which
 *    adds the next phase's actions; a phase whose continuation adds none
 *    ends at the terminal RVP, which commits or aborts the whole
 *    transaction.  Local locks are held until then (strict two-phase
 *    locking per executor), so no other transaction sees an effect that
 *    may still be undone; an abort undoes every action's store effects
 *    from its undo log, each on the executor that made them.
 *
 * Lock identifiers are (space, key) pairs of the program's choosing (a
 * table's primary key, a key prefix standing for a range, a field group).
 * Every action that locks one identifier must be routed to the same
 * executor: compose the key from the routing field.  Reads of data no
 * transaction changes need no lock.
 *
 * Deadlock policy (no detection needed): a request that conflicts waits
 * only if its transaction is younger (a later start stamp) than every
 * other transaction queued on the identifier, holders and waiters; else
 * the transaction dies (aborts with POTM_DORA_CONFLICT) and the program
 * may submit it again (as a new, youngest transaction).  Every waits-for
 * edge thus goes from a younger to an older transaction: no cycle.  The
 * waiters of an identifier are granted in FIFO order.  A shared lock
 * wanted exclusive by the same transaction while others hold it dies, as
 * does a second action of one transaction queueing on an identifier
 * another of its actions waits for.  A lock the transaction holds in a
 * mode at least as strong is granted at once (a later phase may name it
 * again).
 *
 * Threads: the program runs the executors.  Executor e is served by one
 * registered TM thread (any thread with private tables) calling
 * potm_dora_serve(d, e) repeatedly; any thread (registered or not) may
 * submit.  Continuations and completion
 * callbacks run on executor threads, outside transactions.
 *
 *     potm_dora_t *d = potm_dora_create(2, 1);        // 2 executors, 1 rule
 *     potm_dora_rule_range(d, 0, 1, W);                // warehouses 1..W
 *     potm_dora_tx_t *tx = potm_dora_tx_new(d, done, ctx);
 *     potm_dora_lock_t lk = { .space = 1, .key = w, .mode = POTM_DORA_X };
 *     potm_dora_add(tx, 0, w, update_warehouse, arg, &lk, 1);
 *     potm_dora_then(tx, second_phase, ctx);
 *     while (potm_dora_submit(tx) == POTM_DORA_PAUSED)
 *             potm_dora_serve(d, me);
 *
 * Private tables (potm_dora_set_private): DORA's physical partitioning.
 * Each executor owns private tables (<potm/store_private.h>: the store with
 * plain accesses) holding its part of the data; an action touches only
 * the tables of the executor it is routed to, and runs with no backend
 * transaction at all: its body is plain C on plain memory.  Atomicity
 * across executors is the RVP protocol's and the undo logs' (the
 * potm_dora_update/save/insert/delete calls then use the private store);
 * isolation is the local locks'.  The executors then need not register
 * with the TM: the executor calls no TM function (on `seq`, whose one
 * registered thread is its limit, any number of executors run).  When a
 * routing change moves values between executors the program moves the
 * tables with them (per routing value: a warehouse's tables) or keeps
 * them per value, so that the new owner reads what the former one wrote
 * after the quiescence.
 *
 * Backends: every backend that runs its threads' transactions in any
 * order (seq with one executor, its limit of one thread; gl, tl2, 2pl,
 * the HTM backends).  Pot's backends order every registered thread's
 * transactions round-robin, which an idle executor would stall; they are
 * refused (potm_dora_create returns NULL).
 */
#ifndef POTM_DORA_H
#define POTM_DORA_H

#include <stdint.h>

#include <potm/store.h>
#include <potm/tm.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct potm_dora potm_dora_t;
typedef struct potm_dora_tx potm_dora_tx_t;
typedef struct potm_dora_act potm_dora_act_t;

#define POTM_DORA_MAX_EXECUTORS 256
#define POTM_DORA_MAX_RULES 64
#define POTM_DORA_MAX_DOMAIN (1u << 22)   /* values a routing rule maps */

/* Lock modes. */
#define POTM_DORA_S 0
#define POTM_DORA_X 1

/* Outcomes (potm_dora_done_fn). */
#define POTM_DORA_COMMITTED 0
#define POTM_DORA_ABORTED 1    /* an action returned non-zero */
#define POTM_DORA_CONFLICT 2   /* a lock request died (the deadlock policy) */

/* potm_dora_submit: admitted, or the resource manager holds admissions. */
#define POTM_DORA_PAUSED 1

typedef struct potm_dora_lock {
	uint32_t space;   /* the program's namespace (a table, a field group) */
	uint32_t mode;    /* POTM_DORA_S or POTM_DORA_X */
	uint64_t key;
} potm_dora_lock_t;

/* An action's body: runs on its executor, under its locks, inside a
 * transaction of the backend (re-run from the start if the backend aborts
 * it).  Store changes that an abort must undo go through
 * potm_dora_update, potm_dora_insert and potm_dora_delete.  Returns 0, or
 * non-zero to abort the whole transaction. */
typedef int (*potm_dora_fn)(potm_dora_act_t *a, void *arg);

/* An RVP's continuation: adds the next phase (potm_dora_add, and
 * potm_dora_then for the RVP after it); adding nothing commits. */
typedef void (*potm_dora_next_fn)(potm_dora_tx_t *tx, void *ctx);

/* Called once when the terminal RVP decided (outcome above).  The
 * effects of a committed transaction are in the store; an aborted one's
 * are undone before any other transaction can lock what it locked.  The
 * transaction handle is invalid after the call. */
typedef void (*potm_dora_done_fn)(potm_dora_tx_t *tx, int outcome, void *ctx);

/* ---- the executors and routing (outside transactions) ---------------- */

/* executors 1..POTM_DORA_MAX_EXECUTORS, rules 0..POTM_DORA_MAX_RULES; NULL
 * with tm_last_error() on a bad argument, a backend that cannot run it or
 * out of memory.  Call after tm_init. */
potm_dora_t *potm_dora_create(unsigned executors, unsigned rules);

/* Free everything; no transaction may be in flight. */
void potm_dora_destroy(potm_dora_t *d);

unsigned potm_dora_executors(const potm_dora_t *d);

/* Rule r maps the values lo..hi: in equal contiguous ranges, executor 0
 * first (range), or by a hash of the value (hash).  0, or -1 with
 * tm_last_error().  Before any transaction. */
int potm_dora_rule_range(potm_dora_t *d, unsigned r, uint64_t lo, uint64_t hi);
int potm_dora_rule_hash(potm_dora_t *d, unsigned r, uint64_t lo, uint64_t hi);

/* The executor that owns value v under rule r (v within the rule). */
unsigned potm_dora_owner(const potm_dora_t *d, unsigned r, uint64_t v);

/* The resource manager: give the values lo..hi of rule r to executor e.
 * Closes admissions, waits until no transaction is in flight (every
 * queue empty, every local lock released: the quiescence that makes the
 * move safe), changes the rule and reopens.  Blocks: call it from a
 * thread that serves no executor.  0, or -1 with tm_last_error(). */
int potm_dora_reroute(potm_dora_t *d, unsigned r, uint64_t lo, uint64_t hi, unsigned e);

/* Private tables for every action (on != 0) or backend transactions over
 * shared tables (0, the default): see above.  Before the first
 * submission; 0, or -1 with tm_last_error(). */
int potm_dora_set_private(potm_dora_t *d, int on);
int potm_dora_is_private(const potm_dora_t *d);

/* Inline executors (on != 0): the executors are the terminals.  Every
 * submission comes from an executor's serving thread (potm_dora_submit_on);
 * a one-phase transaction whose actions all route to that executor runs
 * at once inside the call, with no queue, no atomic operation and no lock
 * that no other request names there; any other action of the
 * submitter's runs at once too, and what goes to another executor (an
 * action, a completion, the outcome returning to the submitter) travels
 * through a single-producer single-consumer ring per (from, to) pair,
 * published in a batch by the sender's next potm_dora_serve.  The done
 * callback runs on the submitting executor.  Executors never sleep:
 * potm_dora_idle yields the core, potm_dora_wake does nothing.  Every
 * executor must keep calling potm_dora_serve while a reroute is pending
 * (the resource manager waits for each one's acknowledgement).  At most
 * 64 executors; before the first submission; 0, or -1 with
 * tm_last_error(). */
int potm_dora_set_inline(potm_dora_t *d, int on);
int potm_dora_is_inline(const potm_dora_t *d);

/* ---- transactions ----------------------------------------------------- */

/* A new transaction (not yet submitted); NULL if out of memory. */
potm_dora_tx_t *potm_dora_tx_new(potm_dora_t *d, potm_dora_done_fn done, void *ctx);

/* Add an action to the phase being built: routed by value route of rule
 * r, taking locks[0..nlocks) (copied) in order before fn(a, arg) runs.
 * Before submission, or in a continuation. */
void potm_dora_add(potm_dora_tx_t *tx, unsigned r, uint64_t route, potm_dora_fn fn, void *arg,
                   const potm_dora_lock_t *locks, unsigned nlocks);

/* The RVP after the phase being built runs next(tx, ctx) when its last
 * action is done (unless the transaction is aborting). */
void potm_dora_then(potm_dora_tx_t *tx, potm_dora_next_fn next, void *ctx);

/* Submit: stamp the transaction and enqueue its first phase (at least one
 * action).  0, or POTM_DORA_PAUSED while the resource manager holds
 * admissions (nothing happened: serve and submit again). */
int potm_dora_submit(potm_dora_tx_t *tx);

/* Inline mode: run a transaction of one action here and now, on executor
 * e's serving thread, if its route belongs to e and no request in e's
 * lock table names its locks (then none are taken: nothing else runs on
 * e before it ends).  Returns its outcome (POTM_DORA_COMMITTED, or
 * POTM_DORA_ABORTED with its effects undone), or POTM_DORA_NOT_HERE
 * having done nothing: build it and potm_dora_submit_on.  No done
 * callback; potm_dora_act_tx inside it names a transaction that lives
 * only for the call. */
#define POTM_DORA_NOT_HERE (-1)
int potm_dora_run_here(potm_dora_t *d, unsigned e, unsigned r, uint64_t route, potm_dora_fn fn,
                       void *arg, const potm_dora_lock_t *locks, unsigned nlocks);

/* Inline mode's submit, from executor e's serving thread: as
 * potm_dora_submit (0, or POTM_DORA_PAUSED: serve and submit again); the
 * transaction may have finished (done called) when it returns. */
int potm_dora_submit_on(potm_dora_tx_t *tx, unsigned e);

/* ---- executors ------------------------------------------------------ */

/* Run what is ready on executor e: queued actions, completions, actions
 * whose locks were granted.  Returns how many items it handled.  One
 * registered thread per executor, outside transactions. */
unsigned potm_dora_serve(potm_dora_t *d, unsigned e);

/* Sleep (on a futex) until executor e has work: an action or completion
 * queued to it, or potm_dora_wake(d, e); at most a millisecond, so a
 * condition of the program's own that nobody wakes for is still seen.
 * Called by e's serving thread when potm_dora_serve found nothing. */
void potm_dora_idle(potm_dora_t *d, unsigned e);

/* Wake executor e from potm_dora_idle (a completion callback telling its
 * terminal that a transaction finished).  Any thread. */
void potm_dora_wake(potm_dora_t *d, unsigned e);

/* Transactions submitted and not yet fully released. */
uint64_t potm_dora_in_flight(const potm_dora_t *d);

/* ---- inside an action ------------------------------------------------ */

potm_dora_tx_t *potm_dora_act_tx(const potm_dora_act_t *a);
unsigned potm_dora_act_executor(const potm_dora_act_t *a);

/* store_get, after saving the record's bytes in the undo log; NULL if
 * absent.  An abort puts every byte back: use it when the action's locks
 * cover the whole record. */
void *potm_dora_update(potm_dora_act_t *a, store_table_t *t, uint64_t key);
/* Save n bytes at field, inside record rec of table t (from store_get),
 * in the undo log before changing them: an abort puts back these bytes
 * alone.  Use it when the locks cover some fields of a record and other
 * transactions may change its other fields meanwhile (TPC-C's district:
 * D_YTD under one lock, D_NEXT_O_ID under another). */
void potm_dora_save(potm_dora_act_t *a, store_table_t *t, const void *rec, const void *field,
                    size_t n);
/* store_insert, logging its inverse; NULL if the key is present. */
void *potm_dora_insert(potm_dora_act_t *a, store_table_t *t, uint64_t key, const void *rec);
/* store_delete, logging the record; 1 if it was there. */
int potm_dora_delete(potm_dora_act_t *a, store_table_t *t, uint64_t key);

/* ---- statistics (quiescent) ----------------------------------------- */

typedef struct potm_dora_stats {
	uint64_t actions;       /* actions run (bodies, skipped ones included) */
	uint64_t skipped;       /* bodies not run: their transaction was aborting */
	uint64_t lock_waits;    /* requests that waited */
	uint64_t lock_deaths;   /* requests that died */
	uint64_t committed, aborted, conflicts;   /* transactions, by outcome */
	uint64_t undone;        /* actions whose effects an abort undid */
	uint64_t reroutes;      /* routing changes */
	uint64_t inline_runs;   /* inline mode: transactions run whole at submission */
} potm_dora_stats_t;

void potm_dora_stats(const potm_dora_t *d, potm_dora_stats_t *out);

#ifdef __cplusplus
}
#endif

#endif /* POTM_DORA_H */
