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
static inline lsd_val_t lsd_read(const int64_t *addr);
static inline lsd_val_t lsd_read_i32(const int32_t *addr);

/* A constant. */
static inline lsd_val_t lsd_const(int64_t v);

/* Operators: a + b, a - b, a * b (wrapping), min(a, b), max(a, b). */
static inline lsd_val_t lsd_add(lsd_val_t a, lsd_val_t b);
static inline lsd_val_t lsd_sub(lsd_val_t a, lsd_val_t b);
static inline lsd_val_t lsd_mul(lsd_val_t a, lsd_val_t b);
static inline lsd_val_t lsd_min(lsd_val_t a, lsd_val_t b);
static inline lsd_val_t lsd_max(lsd_val_t a, lsd_val_t b);

/* Resolve v now: its futures become standard reads (the transaction is
 * bound to their values, as after tm_read) and its value is returned.
 * For values that leave the transaction or pick what it reads next (a
 * future used as a key). */
static inline int64_t lsd_value(lsd_val_t v);

/* ---- conditions ----------------------------------------------------------- */

typedef enum lsd_cmp_op {
	LSD_EQ, LSD_NE, LSD_LT, LSD_LE, LSD_GT, LSD_GE
} lsd_cmp_op_t;

/* a op b. */
static inline lsd_cond_t lsd_cmp(lsd_val_t a, lsd_cmp_op_t op, lsd_val_t b);

/* a and b. */
static inline lsd_cond_t lsd_and(lsd_cond_t a, lsd_cond_t b);

/* Whether c holds on the current state; the answer joins the transaction's
 * condition set: the transaction commits only where c still gives it
 * (condition validation), and otherwise re-executes. */
static inline bool lsd_is_true(lsd_cond_t c);

/* ---- lazy writes -------------------------------------------------------------- */

/* Write v's value, evaluated at commit, to *addr. */
static inline void lsd_write(int64_t *addr, lsd_val_t v);
static inline void lsd_write_i32(int32_t *addr, lsd_val_t v);

/* ---- room ------------------------------------------------------------------ */

/* How many more futures, constants, operators and conditions the running
 * transaction may make before it reaches LSD_MAX_NODES (all of them before
 * its first LSD call; 0 outside a transaction).  For code that adds work
 * to a transaction it did not size (several requests in one). */
static inline uint32_t lsd_room(void);

/* ---- what the calls above expand to (engine internals) ---------------------
 *
 * A value or condition already known travels in its handle (k) under the
 * tag of its attempt and its depth: ref = lsd_tag | POTM_LSD_IVAL_ + depth
 * for a value, | POTM_LSD_ICOND_ + depth for a condition (lib/lsd.c, L1
 * and L8).  The calls on such handles run inline: one subtraction both
 * checks a handle (this attempt's, known, of the right sort) and gives its
 * depth.  So does a read or write of a known value in eager mode
 * (tm_txd_t.lsd_eager), as the standard access.  Anything else, the
 * attempt's first LSD call and every misuse go to the library
 * (potm_lsd_*_), which checks the handles and reports misuse. */
#define POTM_LSD_IVAL_ 0xff00u
#define POTM_LSD_ICOND_ 0xff80u
#define POTM_LSD_ADD_ 2u   /* lib/lsd.c's operator kinds */
#define POTM_LSD_SUB_ 3u
#define POTM_LSD_MUL_ 4u
#define POTM_LSD_MIN_ 5u
#define POTM_LSD_MAX_ 6u

lsd_val_t potm_lsd_read_(const void *addr, unsigned size);
lsd_val_t potm_lsd_const_(int64_t v);
lsd_val_t potm_lsd_binary_(lsd_val_t a, lsd_val_t b, unsigned kind);
int64_t potm_lsd_value_(lsd_val_t v);
lsd_cond_t potm_lsd_cmp_(lsd_val_t a, lsd_cmp_op_t op, lsd_val_t b);
lsd_cond_t potm_lsd_and_(lsd_cond_t a, lsd_cond_t b);
bool potm_lsd_is_true_(lsd_cond_t c);
void potm_lsd_write_(void *addr, unsigned size, lsd_val_t v);

/* The depth of a known value (base POTM_LSD_IVAL_) or condition (base
 * POTM_LSD_ICOND_) of the running attempt, or LSD_MAX_DEPTH + 1 or more
 * if ref is no such handle (outside an attempt lsd_tag is 0, and no
 * handle is below 1 << 16). */
static inline __attribute__((always_inline)) uint32_t
potm_lsd_known_depth_(const tm_txd_t *d, uint32_t ref, uint32_t base)
{
	return ref - (d->lsd_tag | base);
}

/* A known handle made by the running attempt: counted (LSD_MAX_NODES),
 * or 0 if no room is left (or no LSD call was made yet): the library
 * then makes it or reports. */
static inline __attribute__((always_inline)) int potm_lsd_take_room_(tm_txd_t *d)
{
	if (__builtin_expect(d == NULL || d->lsd_room == 0, 0))
		return 0;
	d->lsd_room--;
	return 1;
}

static inline __attribute__((always_inline)) int
potm_lsd_compare_(int64_t a, lsd_cmp_op_t op, int64_t b)
{
	switch (op) {
	case LSD_EQ: return a == b;
	case LSD_NE: return a != b;
	case LSD_LT: return a < b;
	case LSD_LE: return a <= b;
	case LSD_GT: return a > b;
	default:     return a >= b;
	}
}

static inline __attribute__((always_inline)) lsd_val_t
potm_lsd_fold_(lsd_val_t a, lsd_val_t b, unsigned kind)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL, 1)) {
		uint32_t da = potm_lsd_known_depth_(d, a.ref, POTM_LSD_IVAL_);
		uint32_t db = potm_lsd_known_depth_(d, b.ref, POTM_LSD_IVAL_);
		uint32_t m = da > db ? da : db;
		if (__builtin_expect(m < LSD_MAX_DEPTH, 1) && potm_lsd_take_room_(d)) {
			uint64_t x = (uint64_t)a.k, y = (uint64_t)b.k;
			int64_t v;
			switch (kind) {
			case POTM_LSD_ADD_: v = (int64_t)(x + y); break;
			case POTM_LSD_SUB_: v = (int64_t)(x - y); break;
			case POTM_LSD_MUL_: v = (int64_t)(x * y); break;
			case POTM_LSD_MIN_: v = a.k < b.k ? a.k : b.k; break;
			default:            v = a.k > b.k ? a.k : b.k; break;
			}
			return (lsd_val_t){ .k = v, .ref = (d->lsd_tag | POTM_LSD_IVAL_) + m + 1 };
		}
	}
	return potm_lsd_binary_(a, b, kind);
}

static inline uint32_t lsd_room(void)
{
	tm_txd_t *d = tm_self_;
	if (d == NULL || d->depth == 0)
		return 0;
	return d->lsd_tag != 0 ? d->lsd_room : LSD_MAX_NODES;
}

static inline lsd_val_t lsd_read(const int64_t *addr)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL && d->lsd_eager && ((uintptr_t)addr & 7) == 0, 1) &&
	    potm_lsd_take_room_(d))
		return (lsd_val_t){ .k = tm_read_i64(addr), .ref = d->lsd_tag | POTM_LSD_IVAL_ };
	return potm_lsd_read_(addr, 8);
}

static inline lsd_val_t lsd_read_i32(const int32_t *addr)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL && d->lsd_eager && ((uintptr_t)addr & 3) == 0, 1) &&
	    potm_lsd_take_room_(d))
		return (lsd_val_t){ .k = tm_read_i32(addr), .ref = d->lsd_tag | POTM_LSD_IVAL_ };
	return potm_lsd_read_(addr, 4);
}

static inline lsd_val_t lsd_const(int64_t v)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(potm_lsd_take_room_(d), 1))
		return (lsd_val_t){ .k = v, .ref = d->lsd_tag | POTM_LSD_IVAL_ };
	return potm_lsd_const_(v);
}

static inline lsd_val_t lsd_add(lsd_val_t a, lsd_val_t b) { return potm_lsd_fold_(a, b, POTM_LSD_ADD_); }
static inline lsd_val_t lsd_sub(lsd_val_t a, lsd_val_t b) { return potm_lsd_fold_(a, b, POTM_LSD_SUB_); }
static inline lsd_val_t lsd_mul(lsd_val_t a, lsd_val_t b) { return potm_lsd_fold_(a, b, POTM_LSD_MUL_); }
static inline lsd_val_t lsd_min(lsd_val_t a, lsd_val_t b) { return potm_lsd_fold_(a, b, POTM_LSD_MIN_); }
static inline lsd_val_t lsd_max(lsd_val_t a, lsd_val_t b) { return potm_lsd_fold_(a, b, POTM_LSD_MAX_); }

static inline int64_t lsd_value(lsd_val_t v)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL &&
	                     potm_lsd_known_depth_(d, v.ref, POTM_LSD_IVAL_) <= LSD_MAX_DEPTH, 1))
		return v.k;
	return potm_lsd_value_(v);
}

static inline lsd_cond_t lsd_cmp(lsd_val_t a, lsd_cmp_op_t op, lsd_val_t b)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL && (unsigned)op <= LSD_GE, 1)) {
		uint32_t da = potm_lsd_known_depth_(d, a.ref, POTM_LSD_IVAL_);
		uint32_t db = potm_lsd_known_depth_(d, b.ref, POTM_LSD_IVAL_);
		uint32_t m = da > db ? da : db;
		if (__builtin_expect(m < LSD_MAX_DEPTH, 1) && potm_lsd_take_room_(d))
			return (lsd_cond_t){ .k = potm_lsd_compare_(a.k, op, b.k),
			                     .ref = (d->lsd_tag | POTM_LSD_ICOND_) + m + 1 };
	}
	return potm_lsd_cmp_(a, op, b);
}

static inline lsd_cond_t lsd_and(lsd_cond_t a, lsd_cond_t b)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL, 1)) {
		uint32_t da = potm_lsd_known_depth_(d, a.ref, POTM_LSD_ICOND_);
		uint32_t db = potm_lsd_known_depth_(d, b.ref, POTM_LSD_ICOND_);
		uint32_t m = da > db ? da : db;
		if (__builtin_expect(m < LSD_MAX_DEPTH, 1) && potm_lsd_take_room_(d))
			return (lsd_cond_t){ .k = a.k && b.k,
			                     .ref = (d->lsd_tag | POTM_LSD_ICOND_) + m + 1 };
	}
	return potm_lsd_and_(a, b);
}

static inline bool lsd_is_true(lsd_cond_t c)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL &&
	                     potm_lsd_known_depth_(d, c.ref, POTM_LSD_ICOND_) <= LSD_MAX_DEPTH, 1))
		return c.k != 0;   /* over known values only: it always gives it */
	return potm_lsd_is_true_(c);
}

static inline void lsd_write(int64_t *addr, lsd_val_t v)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL && d->lsd_eager && ((uintptr_t)addr & 7) == 0 &&
	                     potm_lsd_known_depth_(d, v.ref, POTM_LSD_IVAL_) <= LSD_MAX_DEPTH, 1)) {
		tm_write_i64(addr, v.k);
		return;
	}
	potm_lsd_write_(addr, 8, v);
}

static inline void lsd_write_i32(int32_t *addr, lsd_val_t v)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d != NULL && d->lsd_eager && ((uintptr_t)addr & 3) == 0 &&
	                     potm_lsd_known_depth_(d, v.ref, POTM_LSD_IVAL_) <= LSD_MAX_DEPTH, 1)) {
		tm_write_i32(addr, (int32_t)(uint32_t)(uint64_t)v.k);
		return;
	}
	potm_lsd_write_(addr, 4, v);
}

#ifdef __cplusplus
}
#endif

#endif /* POTM_LSD_H */
