/*
 * potm/lsd.h — Lazy State Determination: futures, conditions and lazy
 * writes inside potm transactions (Vale's thesis, chapter 4).
 *
 * A standard read hands the transaction a concrete value, and the TM must
 * then keep that value unchanged until the commit (OCC aborts if another
 * commit changed it, 2PL blocks the other writer).  With LSD a transaction
 * reads a *future* instead — a promise of the word's value at the commit —,
 * branches on *conditions* over futures (lsd_is_true: "is the stock >= 5?"
 * exposes an abstract state, not the number), and writes *functions* of
 * futures (lsd_write: "stock - 5"), which the TM evaluates at the commit,
 * once the futures resolve.  Two transactions that both decrement a hot
 * counter then no longer conflict, as long as each one's conditions still
 * hold when it commits.
 *
 *     TM_BEGIN();
 *         lsd_val_t stock = lsd_read(&item->stock);            // a future
 *         if (lsd_is_true(lsd_cmp(stock, LSD_GE, lsd_const(qty))))
 *             lsd_write(&item->stock, lsd_sub(stock, lsd_const(qty)));
 *         else
 *             ... out of stock ...
 *     TM_END();
 *
 * Semantics, on every backend: the transaction commits as if each future
 * had been read at its serialization point, every condition evaluated
 * there returned what lsd_is_true returned, and every lazy write was
 * evaluated there and applied, in program order, after the transaction's
 * concrete writes that precede it.  How much concurrency that buys depends
 * on the backend:
 *
 *   tl2       LSD-aware OCC: futures stay unresolved; at commit the lazy
 *             writes' words are locked with the write set, the conditions
 *             are validated on the current values (condition validation:
 *             still true is enough, unchanged is not required), the lazy
 *             writes evaluated and installed.  Concrete reads keep opacity.
 *             In tl2's in-place modes (irrevocable, escalated, serial,
 *             shared readers) an attempt resolves eagerly.
 *   silo      the same on Silo's commit protocol: the conditions and lazy
 *             writes are settled after the write set (lazy words included)
 *             is locked and the epoch read, and every word a condition
 *             read there must be unchanged once the read set is validated.
 *   pot       Pot+LSD: a speculative transaction keeps its futures
 *             unresolved until its turn; there, after its read set, its
 *             conditions are validated on the state after all earlier
 *             slots (an answer that changed re-executes it, cause
 *             condition), and its lazy writes evaluated and written back
 *             with its concrete ones.  A transaction that runs in its turn
 *             (fast mode, pogl, serial) resolves eagerly; live promotion
 *             settles at the promotion point.  Deterministic as every Pot
 *             run: the answers a transaction acts on are those of its slot.
 *   2pl       LSD-aware 2PL with condition locking: lsd_is_true reads its
 *             words under read locks, then holds condition locks, which
 *             let other conditions and lazy writers in; a lazy write holds
 *             a write-function lock (compatible with conditions and other
 *             lazy writes); at commit it becomes a write-value lock, which
 *             waits (or, the younger, aborts) only if the value would
 *             break a condition another transaction holds.
 *   others    futures resolve at once (a standard read): the same results,
 *             without the extra concurrency (pot-rtm and pot-rot included:
 *             their speculative transactions run in hardware).
 *
 * Values are 64-bit signed integers; lsd_read_i32/lsd_write_i32 convert.
 * Arithmetic wraps (two's complement), as on unsigned words.
 *
 * Rules (misuse is reported, naming the call, and the process aborts):
 *  - Every call is made inside a transaction; a future or condition lives
 *    until its transaction ends (commit, abort or cancel) and is used only
 *    by the thread and transaction that made it.
 *  - An expression holds at most LSD_MAX_DEPTH levels of operators, and a
 *    transaction makes at most LSD_MAX_NODES futures, constants, operators
 *    and conditions in all.
 *  - A word written lazily is not accessed through the typed accesses of
 *    <potm/tm.h> later in the same transaction (read it with lsd_read: the
 *    future of a lazily written word is the expression written).  The
 *    future of a word the transaction wrote concretely is the value it
 *    wrote.  Words read through futures may be accessed concretely too: a
 *    concrete read binds the transaction to the value as usual.
 *  - lsd_read takes a word the TM may read (aligned, shared memory); a
 *    word that only partly overlaps an earlier lazy write of another size
 *    is a misuse.
 */
#ifndef POTM_LSD_H
#define POTM_LSD_H

#include <stdbool.h>
#include <stdint.h>

#include <potm/tm.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A future value: a word's value at commit, a constant, or an operator
 * over futures.  A handle into the running transaction's LSD state (ref),
 * or a value already known, which it carries (k). */
typedef struct lsd_val {
	int64_t k;
	uint32_t ref;
} lsd_val_t;

/* A condition over futures (k: its answer, when already known). */
typedef struct lsd_cond {
	int64_t k;
	uint32_t ref;
} lsd_cond_t;

#define LSD_MAX_DEPTH 16      /* operator levels in one expression */
#define LSD_MAX_NODES 65280   /* futures, constants, operators, conditions per transaction */

/* ---- futures ------------------------------------------------------------ */

/* The future of *addr: its value at the transaction's commit (or, once the
 * transaction wrote it lazily, the expression it wrote). */
lsd_val_t lsd_read(const int64_t *addr);
lsd_val_t lsd_read_i32(const int32_t *addr);

/* A constant. */
lsd_val_t lsd_const(int64_t v);

/* Operators: a + b, a - b, a * b (wrapping), min(a, b), max(a, b). */
lsd_val_t lsd_add(lsd_val_t a, lsd_val_t b);
lsd_val_t lsd_sub(lsd_val_t a, lsd_val_t b);
lsd_val_t lsd_mul(lsd_val_t a, lsd_val_t b);
lsd_val_t lsd_min(lsd_val_t a, lsd_val_t b);
lsd_val_t lsd_max(lsd_val_t a, lsd_val_t b);

/* Resolve v now: its futures become standard reads (the transaction is
 * bound to their values, as after tm_read) and its value is returned.
 * For values that leave the transaction or pick what it reads next (a
 * future used as a key). */
int64_t lsd_value(lsd_val_t v);

/* ---- conditions ----------------------------------------------------------- */

typedef enum lsd_cmp_op {
	LSD_EQ, LSD_NE, LSD_LT, LSD_LE, LSD_GT, LSD_GE
} lsd_cmp_op_t;

/* a op b. */
lsd_cond_t lsd_cmp(lsd_val_t a, lsd_cmp_op_t op, lsd_val_t b);

/* a and b. */
lsd_cond_t lsd_and(lsd_cond_t a, lsd_cond_t b);

/* Whether c holds on the current state; the answer joins the transaction's
 * condition set: the transaction commits only where c still gives it
 * (condition validation), and otherwise re-executes. */
bool lsd_is_true(lsd_cond_t c);

/* ---- lazy writes -------------------------------------------------------------- */

/* Write v's value, evaluated at commit, to *addr. */
void lsd_write(int64_t *addr, lsd_val_t v);
void lsd_write_i32(int32_t *addr, lsd_val_t v);

#ifdef __cplusplus
}
#endif

#endif /* POTM_LSD_H */
