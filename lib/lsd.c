/*
 * lib/lsd.c — Lazy State Determination (Vale's thesis, chapter 4): the
 * futures, conditions and lazy writes of <potm/lsd.h>, kept per thread,
 * for every backend.
 *
 * A transaction's LSD state is a node arena — futures (address, size),
 * constants, the operators add/sub/mul/min/max, comparisons and "and" —
 * and three lists over it: the future read set (the futures still
 * unresolved), the condition set (each condition lsd_is_true answered,
 * with its answer), and the lazy writes (address, size, expression), in
 * program order.  A handle (lsd_val_t, lsd_cond_t) is the node's index
 * under the transaction's generation.
 *
 * Two modes, chosen at the attempt's first LSD call:
 *
 *   eager  (potm_backend_t.lsd is NULL, or the backend says the attempt
 *          runs in place): lsd_read is a standard read (tm_read_i64 /
 *          tm_read_i32) and becomes a constant, lsd_is_true evaluates at
 *          once, lsd_write evaluates at once and writes through tm_write.
 *          Correct by construction: the transaction is an ordinary one.
 *   lazy   (LSD-aware concurrency control, tl2): lsd_read makes a future
 *          and joins it to the future read set; lsd_is_true evaluates the
 *          condition on the words' latest committed values (the backend's
 *          peek) and records the answer; lsd_write records the lazy write
 *          and has the backend reserve its word; lsd_value binds the
 *          futures it reaches through standard reads.  The backend settles
 *          the rest at its commit (potm_lsd_settle): condition validation,
 *          then the lazy writes evaluated and installed with its own.
 *
 * Invariants:
 *  L1 (generation) A handle is gen << 16 | index, gen the attempt's
 *     generation: never 0, taken in blocks from one global counter, so
 *     each differs from the last 65,534 handed out on any thread.  A
 *     handle of another attempt or thread, or one never made (0), is a
 *     misuse, caught unless 65,535 generations came between.  From the
 *     attempt's first call to its end tm_txd_t.lsd_tag is gen << 16, and
 *     0 outside (potm_lsd_end, potm_lsd_free clear it).
 *  L2 (futures mean the pre-state) A FUTURE node stands for its word's
 *     value before the transaction's own writes.  lsd_read never makes one
 *     for a word the transaction wrote before the read: a lazily written
 *     word's future is the expression written (the lazy writes' index),
 *     a concretely written word's is the value written (a constant, from
 *     the backend's write set).  So the commit may evaluate every future
 *     on the committed state, whatever the transaction wrote after.
 *  L3 (program order) Lazy writes are applied in the order they were
 *     made, after the concrete writes that precede them (a concrete write
 *     of a lazily written word later in the transaction is a misuse), so
 *     the last one of a word wins, byte by byte.
 *  L4 (bounds) An operator, comparison or "and" is one level; no node is
 *     deeper than LSD_MAX_DEPTH, so evaluation recurses at most that far,
 *     and memoizes by pass (epoch): each node is evaluated once per pass.
 *     An attempt makes at most LSD_MAX_NODES nodes and inline values in
 *     all: tm_txd_t.lsd_room counts down what is left, from LSD_MAX_NODES
 *     at the first call; 0 before it and outside an attempt.
 *  L5 (settled) After potm_lsd_settle the attempt is eager: the futures it
 *     reached are constants, and the lazy writes made so far were handed
 *     to the backend (they stay in the index, so that lsd_read still
 *     returns their expressions).
 *  L7 (answers stand) A future's first peek records its value; a later
 *     peek or binding that gives another sets recheck.  A condition's
 *     answer is a function of the values of the futures it reads, so at
 *     the commit, if every peeked future reads the value it was peeked
 *     with and recheck is clear, every answer stands without evaluating
 *     a condition again; otherwise all are evaluated on the commit's
 *     values.
 *  L8 (inline values) A value or condition already known — a constant,
 *     an eager read, an operator or comparison over known operands — is
 *     no node: its handle carries it (lsd_val_t.k, lsd_cond_t.k) under a
 *     tag of the attempt's generation and its depth, so L1 and L4 hold
 *     for it as for nodes, and it counts towards LSD_MAX_NODES with them.
 *     In eager mode every handle is such a value, so an eager transaction
 *     builds no node at all.  In a lazy one an operator or comparison of
 *     a future-bearing node and a known value holds the value in its node
 *     (known, LSD_A_KNOWN / LSD_B_KNOWN: two known operands fold, so at
 *     most one is); a constant node is made only for a lazy write of a
 *     known value.
 *  L6 (cost) A transaction that makes no LSD call costs nothing here: the
 *     state is allocated at a thread's first call, and lib/tx.c resets it
 *     only after an attempt that used it (potm_thread_t.lsd_used).
 *  L9 (inline and short paths) <potm/lsd.h> runs a call inline when its
 *     handles are known values or conditions of the running attempt: ref
 *     - (lsd_tag | LSD_INLINE_VAL) is the depth of a known value of this
 *     attempt, and no more than LSD_MAX_DEPTH only for one (a node's
 *     index is below LSD_INLINE_VAL, a handle of another generation is
 *     more than 0x10000 - LSD_INLINE_COND away, and lsd_tag is 0 outside,
 *     where no handle is below 1 << 16); the same with LSD_INLINE_COND
 *     for conditions.  It folds as lsd_binary and lsd_condition would,
 *     with the same depth and count (L4), and only while lsd_room is not
 *     0 (so an attempt's first call comes here and starts it).
 *     tm_txd_t.lsd_eager is
 *     set from the first call of an attempt that starts eagerly to its
 *     end (an eager attempt never makes a lazy write: every handle is
 *     known), and only then are a read and a write of a known value the
 *     standard accesses inline.  Everything else, and every misuse, comes
 *     here (potm_lsd_*_), which checks and reports.  Here the
 *     lazy common cases (a future of a word the attempt did not write, a
 *     node against a known value, lsd_is_true of a comparison of a future
 *     with a known value, its program for condition locking) take short
 *     paths that make what the generic code would, and fall back to it
 *     for anything they do not recognize.
 */
#include "potm_internal.h"

#include <potm/lsd.h>

#include <stdlib.h>

enum lsd_kind {
	LSD_K_CONST,
	LSD_K_FUTURE,
	LSD_K_ADD,
	LSD_K_SUB,
	LSD_K_MUL,
	LSD_K_MIN,
	LSD_K_MAX,
	LSD_K_CMP,
	LSD_K_AND,
};

typedef struct lsd_node {
	int64_t val;          /* CONST: the value; else the memo of pass epoch */
	union {
		const void *addr;    /* FUTURE: the word */
		int64_t known;       /* operators: the known operand's value (L8) */
	};
	union {
		struct {
			uint32_t a, b;   /* operators: the operands (indices) */
		};
		int64_t peeked;      /* FUTURE: the value its first peek gave (L7) */
	};
	uint32_t epoch;       /* the pass val was computed in */
	uint8_t kind;
	uint8_t op;           /* CMP: lsd_cmp_op_t; FUTURE: LSD_PEEKED */
	uint8_t size;         /* FUTURE: 4 or 8; operators: LSD_A_KNOWN, LSD_B_KNOWN */
	uint8_t depth;        /* operator levels below and including this one */
} lsd_node_t;

/* A future some condition was evaluated on (L7). */
#define LSD_PEEKED 1
/* An operator whose operand a (b) is a known value, held in the node
 * (known) instead of a constant node (L8). */
#define LSD_A_KNOWN 1
#define LSD_B_KNOWN 2

typedef struct lsd_cond_rec {
	uint32_t node;
	bool answer;
} lsd_cond_rec_t;

typedef struct lsd_lazy_write {
	void *addr;
	uint32_t value;       /* the expression's node */
	uint32_t prev;        /* the previous lazy write of the same word + 1 */
	uint32_t cookie;      /* the backend's reservation (potm_lsd_ops_t) */
	int64_t result;       /* the value, at settling */
	uint8_t size;
} lsd_lazy_write_t;

#define LSD_INDEX_MIN_BITS 6
/* Below this many lazy writes a scan finds a word's faster than the index
 * (most transactions write a few words): the index is built at the mark. */
#define LSD_INDEX_FROM 8

struct potm_lsd {
	potm_thread_t *owner;
	lsd_node_t *nodes;
	uint32_t n, cap;
	uint32_t gen;                 /* L1: this attempt's */
	uint32_t gen_next, gen_end;   /* the thread's block of generations */
	uint32_t epoch;               /* L4: evaluation passes of this attempt */
	bool touched;                 /* the pass read a future */
	bool recheck;                 /* L7: a peeked future gave two values */
	/* the future read set */
	uint32_t *frs;
	uint32_t n_frs, cap_frs;
	/* the condition set */
	lsd_cond_rec_t *conds;
	uint32_t n_conds, cap_conds;
	/* the lazy writes, in program order; [0, applied) were handed over */
	lsd_lazy_write_t *lw;
	uint32_t n_lw, cap_lw, applied;
	/* From LSD_INDEX_FROM lazy writes on: open addressing over words
	 * (addr & ~7), the newest lazy write of the word + 1; 1 << index_bits
	 * slots in use (a quarter full at most). */
	uint32_t *index;
	unsigned index_bits, index_alloc_bits;
	bool indexed;
};

/* L1: generations come in blocks of this many from one global counter
 * (one atomic add per block; 256 blocks cover the 16 bits). */
#define LSD_GEN_BLOCK 256
static uint32_t lsd_gen_blocks;

/* ---- state ------------------------------------------------------------------ */

static uint32_t lsd_take_generation(struct potm_lsd *s)
{
	if (s->gen_next == s->gen_end) {
		uint32_t block = __atomic_fetch_add(&lsd_gen_blocks, 1, __ATOMIC_RELAXED) %
		                 (65536 / LSD_GEN_BLOCK);
		s->gen_next = block * LSD_GEN_BLOCK;
		s->gen_end = s->gen_next + LSD_GEN_BLOCK;
		if (s->gen_next == 0)
			s->gen_next = 1;   /* generation 0 is never given: handle 0 is no handle */
	}
	return s->gen_next++;
}

/* The attempt's first LSD call: the state (allocated at the thread's
 * first), a generation, the mode. */
static struct potm_lsd *lsd_start(potm_thread_t *t) __attribute__((noinline));
static struct potm_lsd *lsd_start(potm_thread_t *t)
{
	struct potm_lsd *s = t->lsd;
	if (unlikely(s == NULL)) {
		s = t->lsd = potm_xcalloc(1, sizeof *s);
		s->owner = t;
	}
	s->gen = lsd_take_generation(s);
	t->lsd_used = true;
	t->lsd_lazy = potm_backend.lsd != NULL && potm_backend.lsd->lazy(t);
	t->txd.lsd_tag = s->gen << 16;
	t->txd.lsd_room = LSD_MAX_NODES;
	t->txd.lsd_eager = !t->lsd_lazy;
	return s;
}

/* The calling thread's state, in a transaction (the call named which). */
static inline __attribute__((always_inline)) struct potm_lsd *lsd_enter(const char *which)
{
	potm_thread_t *t = potm_self_in_tx(which);
	if (likely(t->lsd_used))
		return t->lsd;
	return lsd_start(t);
}

void potm_lsd_end(potm_thread_t *t)
{
	struct potm_lsd *s = t->lsd;
	if (s->indexed) {
		memset(s->index, 0, sizeof(uint32_t) << s->index_bits);
		s->index_bits = LSD_INDEX_MIN_BITS;
		s->indexed = false;
	}
	s->n = s->n_frs = s->n_conds = s->n_lw = s->applied = 0;
	s->epoch = 0;
	s->recheck = false;
	t->lsd_used = false;
	t->lsd_lazy = false;
	t->txd.lsd_tag = t->txd.lsd_room = t->txd.lsd_eager = 0;
}

void potm_lsd_free(potm_thread_t *t)
{
	struct potm_lsd *s = t->lsd;
	if (s == NULL)
		return;
	free(s->nodes);
	free(s->frs);
	free(s->conds);
	free(s->lw);
	free(s->index);
	free(s);
	t->lsd = NULL;
	t->lsd_used = false;
	t->txd.lsd_tag = t->txd.lsd_room = t->txd.lsd_eager = 0;
}

/* Grow an array of *cap elements of size each, to at least n + 1. */
static void *lsd_grow(void *v, uint32_t *cap, size_t size)
{
	*cap = *cap ? 2 * *cap : 64;
	return potm_xrealloc(v, (size_t)*cap * size);
}

/* ---- handles (L1, L8) ------------------------------------------------------- */

/* The low 16 bits of a handle: a node index below LSD_MAX_NODES, or an
 * inline value (a constant: lsd_val_t.k) or inline condition (its answer)
 * of depth d, LSD_INLINE_VAL + d or LSD_INLINE_COND + d. */
#define LSD_INLINE_VAL POTM_LSD_IVAL_
#define LSD_INLINE_COND POTM_LSD_ICOND_
_Static_assert(POTM_LSD_ADD_ == LSD_K_ADD && POTM_LSD_SUB_ == LSD_K_SUB &&
               POTM_LSD_MUL_ == LSD_K_MUL && POTM_LSD_MIN_ == LSD_K_MIN &&
               POTM_LSD_MAX_ == LSD_K_MAX, "<potm/lsd.h>'s operator kinds");
_Static_assert(LSD_MAX_NODES <= LSD_INLINE_VAL, "node indices stay below the inline tags");
_Static_assert(LSD_MAX_DEPTH < 0x80, "an inline depth fits its tag's range");

static inline uint32_t lsd_ref(const struct potm_lsd *s, uint32_t i)
{
	return s->gen << 16 | i;
}

static inline bool lsd_is_inline(uint32_t ref)
{
	return (ref & 0xffff) >= LSD_INLINE_VAL;
}

static inline unsigned lsd_inline_depth(uint32_t ref)
{
	return (ref & 0xffff) - ((ref & 0xffff) >= LSD_INLINE_COND ? LSD_INLINE_COND : LSD_INLINE_VAL);
}

/* L4, L8: inline values count towards LSD_MAX_NODES with the nodes, so
 * the limits are the same on every backend. */
static void lsd_too_many(const char *which) __attribute__((noreturn, cold));
static void lsd_too_many(const char *which)
{
	potm_fatal("%s: the transaction made more than LSD_MAX_NODES (%d) futures, "
	           "constants, operators and conditions", which, LSD_MAX_NODES);
}

static inline void lsd_count(struct potm_lsd *s, const char *which)
{
	if (unlikely(s->owner->txd.lsd_room == 0))
		lsd_too_many(which);
	s->owner->txd.lsd_room--;
}

static void lsd_too_deep(const char *which, unsigned depth) __attribute__((noreturn, cold));
static void lsd_too_deep(const char *which, unsigned depth)
{
	potm_fatal("%s: the expression would hold %u levels of operators "
	           "(LSD_MAX_DEPTH is %d)", which, depth, LSD_MAX_DEPTH);
}

static inline lsd_val_t lsd_inline_val(struct potm_lsd *s, int64_t k, unsigned depth,
                                       const char *which)
{
	lsd_count(s, which);
	return (lsd_val_t){ .k = k, .ref = lsd_ref(s, LSD_INLINE_VAL + depth) };
}

static inline lsd_cond_t lsd_inline_cond(struct potm_lsd *s, bool answer, unsigned depth,
                                         const char *which)
{
	lsd_count(s, which);
	return (lsd_cond_t){ .k = answer, .ref = lsd_ref(s, LSD_INLINE_COND + depth) };
}

static void lsd_bad_ref(const char *which, uint32_t ref) __attribute__((noreturn, cold));
static void lsd_bad_ref(const char *which, uint32_t ref)
{
	if (ref == 0)
		potm_fatal("%s: a future or condition that no LSD call made "
		           "(an uninitialized lsd_val_t or lsd_cond_t?)", which);
	potm_fatal("%s: a future or condition of another transaction or thread "
	           "(handle %#x): it lives until its transaction ends and is used "
	           "only by the thread and transaction that made it", which, ref);
}

static void lsd_bad_kind(const char *which, uint32_t ref, bool value) __attribute__((noreturn, cold));
static void lsd_bad_kind(const char *which, uint32_t ref, bool value)
{
	potm_fatal("%s: a %s where a %s is expected (handle %#x)", which,
	           value ? "condition" : "value", value ? "value" : "condition", ref);
}

/* Check a handle of this attempt; value says whether the call takes a
 * value (lsd_val_t) or a condition (lsd_cond_t). */
static inline void lsd_check(const struct potm_lsd *s, uint32_t ref, bool value,
                             const char *which)
{
	uint32_t i = ref & 0xffff;
	if (unlikely(ref >> 16 != s->gen || (i >= s->n && i < LSD_INLINE_VAL)))
		lsd_bad_ref(which, ref);
	bool is_cond = i < LSD_INLINE_VAL ? s->nodes[i].kind >= LSD_K_CMP : i >= LSD_INLINE_COND;
	if (unlikely(is_cond == value))
		lsd_bad_kind(which, ref, value);
}

/* ---- the node arena ---------------------------------------------------------- */

static void lsd_grow_nodes(struct potm_lsd *s, const char *which)
	__attribute__((noinline, cold));
static void lsd_grow_nodes(struct potm_lsd *s, const char *which)
{
	if (s->owner->txd.lsd_room == 0)
		lsd_too_many(which);
	if (s->n == s->cap)
		s->nodes = lsd_grow(s->nodes, &s->cap, sizeof *s->nodes);
}

static inline uint32_t lsd_node_new(struct potm_lsd *s, uint8_t kind, const char *which)
{
	if (unlikely(s->n == s->cap || s->owner->txd.lsd_room == 0))
		lsd_grow_nodes(s, which);
	s->owner->txd.lsd_room--;
	uint32_t i = s->n++;
	lsd_node_t *n = &s->nodes[i];
	n->kind = kind;
	n->op = 0;
	n->epoch = 0;
	n->depth = 0;
	return i;
}

/* A constant node for an inline value or condition of depth d (L8). */
static uint32_t lsd_materialize(struct potm_lsd *s, uint32_t ref, int64_t k, const char *which)
{
	uint32_t i = lsd_node_new(s, LSD_K_CONST, which);
	s->nodes[i].val = k;
	s->nodes[i].depth = (uint8_t)lsd_inline_depth(ref);
	return i;
}

/* The node of a handle checked by lsd_check. */
static inline __attribute__((always_inline)) uint32_t
lsd_node_of(struct potm_lsd *s, uint32_t ref, int64_t k, const char *which)
{
	if (likely(!lsd_is_inline(ref)))
		return ref & 0xffff;
	return lsd_materialize(s, ref, k, which);
}

static inline unsigned lsd_depth_of(const struct potm_lsd *s, uint32_t ref)
{
	return lsd_is_inline(ref) ? lsd_inline_depth(ref) : s->nodes[ref & 0xffff].depth;
}

/* L4: an operator, comparison or "and" over handles a and b is one level
 * more than the deeper of them. */
static inline unsigned lsd_op_depth(const struct potm_lsd *s, uint32_t a, uint32_t b,
                                    const char *which)
{
	unsigned da = lsd_depth_of(s, a), db = lsd_depth_of(s, b);
	unsigned depth = 1 + (da > db ? da : db);
	if (unlikely(depth > LSD_MAX_DEPTH))
		lsd_too_deep(which, depth);
	return depth;
}

/* An operator, comparison or "and" node over handles a and b (values k),
 * at most one of them known (two known operands fold, L8): the known one
 * is held in the node. */
static uint32_t lsd_op_node(struct potm_lsd *s, uint8_t kind, uint8_t op, uint32_t a,
                            int64_t ka, uint32_t b, int64_t kb, unsigned depth,
                            const char *which)
{
	uint32_t i = lsd_node_new(s, kind, which);
	lsd_node_t *n = &s->nodes[i];
	n->op = op;
	n->a = a & 0xffff;
	n->b = b & 0xffff;
	n->size = 0;
	if (lsd_is_inline(a)) {
		n->size = LSD_A_KNOWN;
		n->known = ka;
	} else if (lsd_is_inline(b)) {
		n->size = LSD_B_KNOWN;
		n->known = kb;
	}
	n->depth = (uint8_t)depth;
	return i;
}

/* ---- evaluation -------------------------------------------------------------- */

static inline int64_t lsd_from_bytes(uint64_t b, unsigned size)
{
	if (size == 4) {
		int32_t x;
		memcpy(&x, &b, 4);
		return x;
	}
	int64_t x;
	memcpy(&x, &b, 8);
	return x;
}

static inline uint64_t lsd_to_bytes(int64_t v, unsigned size)
{
	uint64_t b = 0;
	if (size == 4) {
		int32_t x = (int32_t)(uint32_t)(uint64_t)v;   /* wraps */
		memcpy(&b, &x, 4);
	} else {
		memcpy(&b, &v, 8);
	}
	return b;
}

/* a op b, op an lsd_cmp_op_t: the header's comparison, which the inline
 * path of known operands uses too. */
static inline bool lsd_compare(int64_t a, unsigned op, int64_t b)
{
	return potm_lsd_compare_(a, (lsd_cmp_op_t)op, b);
}

/* An operator or comparison on two values.  Arithmetic wraps, as on
 * unsigned words. */
static inline int64_t lsd_apply(unsigned kind, unsigned op, int64_t a, int64_t b)
{
	uint64_t x = (uint64_t)a, y = (uint64_t)b;
	switch (kind) {
	case LSD_K_ADD: return (int64_t)(x + y);
	case LSD_K_SUB: return (int64_t)(x - y);
	case LSD_K_MUL: return (int64_t)(x * y);
	case LSD_K_MIN: return a < b ? a : b;
	case LSD_K_MAX: return a > b ? a : b;
	default:        return lsd_compare(a, op, b);
	}
}

/* A future's value in the current pass, read by rd; with bind it becomes
 * a constant (its value is now the transaction's), without it the pass is
 * a peek (lsd_is_true), which L7 records. */
static inline __attribute__((always_inline)) int64_t
lsd_eval_future(struct potm_lsd *s, lsd_node_t *n, potm_lsd_read_fn rd, bool bind)
{
	int64_t v = lsd_from_bytes(rd(s->owner, n->addr, n->size), n->size);
	s->touched = true;
	if (n->op & LSD_PEEKED) {
		if (v != n->peeked)
			s->recheck = true;
	} else if (!bind) {
		n->op = LSD_PEEKED;
		n->peeked = v;
	}
	if (bind)
		n->kind = LSD_K_CONST;
	n->val = v;
	n->epoch = s->epoch;
	return v;
}

static int64_t lsd_eval(struct potm_lsd *s, uint32_t i, potm_lsd_read_fn rd, bool bind);

/* The value of node i in the current pass (s->epoch): leaves here, the
 * operators in lsd_eval (most expressions are an operator over a future
 * and a constant: one call, not three). */
static inline __attribute__((always_inline)) int64_t
lsd_value_of(struct potm_lsd *s, uint32_t i, potm_lsd_read_fn rd, bool bind)
{
	lsd_node_t *n = &s->nodes[i];
	if (n->kind == LSD_K_CONST || n->epoch == s->epoch)
		return n->val;
	if (n->kind == LSD_K_FUTURE)
		return lsd_eval_future(s, n, rd, bind);
	return lsd_eval(s, i, rd, bind);
}

/* An operator, comparison or "and" node, not yet evaluated in this pass.
 * Arithmetic wraps, as on unsigned words. */
static int64_t lsd_eval(struct potm_lsd *s, uint32_t i, potm_lsd_read_fn rd, bool bind)
{
	lsd_node_t *n = &s->nodes[i];
	int64_t v;
	if (n->kind == LSD_K_AND) {
		/* The second operand only if the first holds: a commit reads no
		 * word it does not need. */
		v = (n->size & LSD_A_KNOWN ? n->known : lsd_value_of(s, n->a, rd, bind)) &&
		    (n->size & LSD_B_KNOWN ? n->known : lsd_value_of(s, n->b, rd, bind));
	} else {
		int64_t x = n->size & LSD_A_KNOWN ? n->known : lsd_value_of(s, n->a, rd, bind);
		int64_t y = n->size & LSD_B_KNOWN ? n->known : lsd_value_of(s, n->b, rd, bind);
		v = lsd_apply(n->kind, n->op, x, y);
	}
	n->val = v;
	n->epoch = s->epoch;
	return v;
}

/* A new evaluation pass: every memo is stale. */
static inline void lsd_new_pass(struct potm_lsd *s)
{
	s->epoch++;
	s->touched = false;
}

/* Eager mode reads nothing during evaluation: every leaf is a constant. */
static uint64_t lsd_no_read(potm_thread_t *t, const void *a, unsigned size)
{
	(void)t;
	potm_fatal("lsd: internal error: an unresolved future (%p, %u bytes) in eager mode",
	           a, size);
}

/* ---- the lazy writes' index (L2) ------------------------------------------------ */

static inline uint32_t lsd_word_hash(uintptr_t word, unsigned bits)
{
	return (uint32_t)(((word >> 3) * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* The slot of word: its own, or the empty one where it would go. */
static uint32_t *lsd_index_slot(struct potm_lsd *s, uintptr_t word)
{
	uint32_t m = (1u << s->index_bits) - 1;
	for (uint32_t h = lsd_word_hash(word, s->index_bits);; h = (h + 1) & m) {
		uint32_t *slot = &s->index[h];
		if (*slot == 0 || ((uintptr_t)s->lw[*slot - 1].addr & ~(uintptr_t)7) == word)
			return slot;
	}
}

/* Room for one more lazy write in the index (built at LSD_INDEX_FROM):
 * keep it a quarter full at most. */
static void lsd_index_reserve(struct potm_lsd *s)
{
	if (s->index == NULL) {
		s->index_bits = s->index_alloc_bits = LSD_INDEX_MIN_BITS;
		s->index = potm_xcalloc((size_t)1 << LSD_INDEX_MIN_BITS, sizeof(uint32_t));
	}
	if (!s->indexed) {
		/* (index_bits is the minimum, the slots are clear) */
		s->indexed = true;
		for (uint32_t k = 0; k < s->n_lw; k++)
			*lsd_index_slot(s, (uintptr_t)s->lw[k].addr & ~(uintptr_t)7) = k + 1;
	}
	if (4 * (s->n_lw + 1) <= (1u << s->index_bits))
		return;
	unsigned bits = s->index_bits + 1;
	if (bits > s->index_alloc_bits) {
		free(s->index);
		s->index = potm_xmalloc(sizeof(uint32_t) << bits);
		s->index_alloc_bits = bits;
	}
	s->index_bits = bits;
	memset(s->index, 0, sizeof(uint32_t) << bits);
	/* In program order, so each word's slot ends at its newest write. */
	for (uint32_t k = 0; k < s->n_lw; k++)
		*lsd_index_slot(s, (uintptr_t)s->lw[k].addr & ~(uintptr_t)7) = k + 1;
}

/* lsd_read of [a, a + size): the node of the newest lazy write of exactly
 * those bytes, or UINT32_MAX if the transaction wrote none of them lazily. */
static uint32_t lsd_lazily_written(struct potm_lsd *s, const void *a, unsigned size,
                                   const char *which)
{
	uintptr_t word = (uintptr_t)a & ~(uintptr_t)7;
	uint32_t k = 0;
	if (s->indexed) {
		k = *lsd_index_slot(s, word);
	} else {
		/* the newest lazy write of the word, by a scan */
		for (uint32_t j = s->n_lw; j-- > 0;)
			if (((uintptr_t)s->lw[j].addr & ~(uintptr_t)7) == word) {
				k = j + 1;
				break;
			}
	}
	for (; k; k = s->lw[k - 1].prev) {
		const lsd_lazy_write_t *w = &s->lw[k - 1];
		if (w->addr == a && w->size == size)
			return w->value;
		uintptr_t wa = (uintptr_t)w->addr, ra = (uintptr_t)a;
		if (wa < ra + size && ra < wa + w->size)
			potm_fatal("%s: %p (%u bytes) overlaps a lazy write of %u bytes at %p: "
			           "read a lazily written word with the size it was written with",
			           which, a, size, w->size, w->addr);
	}
	return UINT32_MAX;
}

static void lsd_record_lazy_write(struct potm_lsd *s, void *a, unsigned size, uint32_t value)
{
	uintptr_t word = (uintptr_t)a & ~(uintptr_t)7;
	if (s->n_lw == s->cap_lw)
		s->lw = lsd_grow(s->lw, &s->cap_lw, sizeof *s->lw);
	lsd_lazy_write_t *w = &s->lw[s->n_lw];
	w->addr = a;
	w->size = (uint8_t)size;
	w->value = value;
	w->prev = 0;
	w->cookie = POTM_LSD_NO_COOKIE;
	if (s->n_lw + 1 >= LSD_INDEX_FROM) {
		lsd_index_reserve(s);
		uint32_t *slot = lsd_index_slot(s, word);
		w->prev = *slot;
		*slot = s->n_lw + 1;
	} else {
		for (uint32_t j = s->n_lw; j-- > 0;)
			if (((uintptr_t)s->lw[j].addr & ~(uintptr_t)7) == word) {
				w->prev = j + 1;
				break;
			}
	}
	s->n_lw++;
}

/* ---- futures ----------------------------------------------------------------- */

static inline __attribute__((always_inline)) lsd_val_t
lsd_read_bytes(const void *a, unsigned size, const char *which)
{
	struct potm_lsd *s = lsd_enter(which);
	potm_check_aligned(a, size, which);
	potm_thread_t *t = s->owner;
	uint32_t i;
	if (unlikely(s->n_lw != 0)) {
		i = lsd_lazily_written(s, a, size, which);
		if (i != UINT32_MAX)
			return (lsd_val_t){ .ref = lsd_ref(s, i) };   /* L2: the expression written */
	}
	if (t->lsd_lazy) {
		uint64_t b;
		int w = potm_backend.lsd->written(t, a, size, &b);
		if (w == 0) {
			i = lsd_node_new(s, LSD_K_FUTURE, which);
			s->nodes[i].addr = a;
			s->nodes[i].size = (uint8_t)size;
			if (s->n_frs == s->cap_frs)
				s->frs = lsd_grow(s->frs, &s->cap_frs, sizeof *s->frs);
			s->frs[s->n_frs++] = i;
			return (lsd_val_t){ .ref = lsd_ref(s, i) };
		}
		if (w > 0)   /* L2: the value written */
			return lsd_inline_val(s, lsd_from_bytes(b, size), 0, which);
		/* Written in part: a standard read merges the rest. */
	}
	/* Eager (L8): a standard read, a value. */
	int64_t v = size == 4 ? tm_read_i32((const int32_t *)a) : tm_read_i64((const int64_t *)a);
	return lsd_inline_val(s, v, 0, which);
}

static lsd_val_t lsd_read_generic(const void *addr, unsigned size) __attribute__((noinline));
static lsd_val_t lsd_read_generic(const void *addr, unsigned size)
{
	if (size == 4)
		return lsd_read_bytes(addr, 4, "lsd_read_i32");
	return lsd_read_bytes(addr, 8, "lsd_read");
}

lsd_val_t potm_lsd_read_(const void *addr, unsigned size)
{
	/* The common lazy case: a word the attempt did not write, a new
	 * future (as lsd_read_bytes, without its checks' detours). */
	potm_thread_t *t = potm_self();
	if (likely(t != NULL && t->lsd_lazy && t->lsd_used && t->txd.lsd_room != 0 &&
	           ((uintptr_t)addr & (size - 1)) == 0)) {
		struct potm_lsd *s = t->lsd;
		uint64_t b;
		if (s->n_lw == 0 && s->n < s->cap && s->n_frs < s->cap_frs) {
			/* (written is asked once: pot counts the access there) */
			int w = potm_backend.lsd->written(t, addr, size, &b);
			t->txd.lsd_room--;
			if (likely(w == 0)) {
				uint32_t i = s->n++;
				lsd_node_t *n = &s->nodes[i];
				n->kind = LSD_K_FUTURE;
				n->op = 0;
				n->epoch = 0;
				n->depth = 0;
				n->addr = addr;
				n->size = (uint8_t)size;
				s->frs[s->n_frs++] = i;
				return (lsd_val_t){ .ref = t->txd.lsd_tag | i };
			}
			/* L2: the value written; in part, a standard read merges
			 * the rest. */
			int64_t v = w > 0 ? lsd_from_bytes(b, size)
			            : size == 4 ? tm_read_i32((const int32_t *)addr)
			                        : tm_read_i64((const int64_t *)addr);
			return (lsd_val_t){ .k = v, .ref = t->txd.lsd_tag | LSD_INLINE_VAL };
		}
	}
	return lsd_read_generic(addr, size);
}

lsd_val_t potm_lsd_const_(int64_t v)
{
	struct potm_lsd *s = lsd_enter("lsd_const");
	return lsd_inline_val(s, v, 0, "lsd_const");
}

/* The common lazy case of an operator or comparison: a value node of
 * this attempt against a known value, on either side (L8: the node holds
 * it).  UINT32_MAX, with nothing made, for anything else (the generic
 * path then checks the handles and reports misuse). */
static inline __attribute__((always_inline)) uint32_t
lsd_node_vs_known(potm_thread_t *t, lsd_val_t a, lsd_val_t b, uint8_t kind, uint8_t op)
{
	if (unlikely(t == NULL || !t->lsd_used || t->txd.lsd_room == 0))
		return UINT32_MAX;
	struct potm_lsd *s = t->lsd;
	uint32_t tag = t->txd.lsd_tag;
	uint32_t node, known_depth;
	uint8_t side;
	int64_t k;
	if (a.ref - tag < s->n && b.ref - (tag | LSD_INLINE_VAL) <= LSD_MAX_DEPTH) {
		node = a.ref - tag;
		known_depth = b.ref - (tag | LSD_INLINE_VAL);
		side = LSD_B_KNOWN;
		k = b.k;
	} else if (b.ref - tag < s->n && a.ref - (tag | LSD_INLINE_VAL) <= LSD_MAX_DEPTH) {
		node = b.ref - tag;
		known_depth = a.ref - (tag | LSD_INLINE_VAL);
		side = LSD_A_KNOWN;
		k = a.k;
	} else {
		return UINT32_MAX;
	}
	const lsd_node_t *x = &s->nodes[node];
	unsigned depth = 1 + (x->depth > known_depth ? x->depth : known_depth);
	if (unlikely(x->kind >= LSD_K_CMP || depth > LSD_MAX_DEPTH || s->n == s->cap))
		return UINT32_MAX;
	t->txd.lsd_room--;
	uint32_t i = s->n++;
	lsd_node_t *n = &s->nodes[i];
	n->kind = kind;
	n->op = op;
	n->epoch = 0;
	n->depth = (uint8_t)depth;
	n->size = side;
	n->known = k;
	n->a = n->b = node;
	return i;
}

/* An operator: on two inline values, folded at once (L8). */
static lsd_val_t lsd_binary(lsd_val_t a, lsd_val_t b, uint8_t kind, const char *which)
	__attribute__((noinline));
static lsd_val_t lsd_binary(lsd_val_t a, lsd_val_t b, uint8_t kind, const char *which)
{
	struct potm_lsd *s = lsd_enter(which);
	lsd_check(s, a.ref, true, which);
	lsd_check(s, b.ref, true, which);
	unsigned depth = lsd_op_depth(s, a.ref, b.ref, which);
	if (lsd_is_inline(a.ref) && lsd_is_inline(b.ref))
		return lsd_inline_val(s, lsd_apply(kind, 0, a.k, b.k), depth, which);
	uint32_t i = lsd_op_node(s, kind, 0, a.ref, a.k, b.ref, b.k, depth, which);
	return (lsd_val_t){ .ref = lsd_ref(s, i) };
}

static lsd_val_t lsd_binary_generic(lsd_val_t a, lsd_val_t b, unsigned kind)
	__attribute__((noinline));

lsd_val_t potm_lsd_binary_(lsd_val_t a, lsd_val_t b, unsigned kind)
{
	potm_thread_t *t = potm_self();
	if (kind >= LSD_K_ADD && kind <= LSD_K_MAX) {
		uint32_t i = lsd_node_vs_known(t, a, b, (uint8_t)kind, 0);
		if (i != UINT32_MAX)
			return (lsd_val_t){ .ref = t->txd.lsd_tag | i };
	}
	return lsd_binary_generic(a, b, kind);
}

static lsd_val_t lsd_binary_generic(lsd_val_t a, lsd_val_t b, unsigned kind)
{
	switch (kind) {
	case LSD_K_ADD: return lsd_binary(a, b, LSD_K_ADD, "lsd_add");
	case LSD_K_SUB: return lsd_binary(a, b, LSD_K_SUB, "lsd_sub");
	case LSD_K_MUL: return lsd_binary(a, b, LSD_K_MUL, "lsd_mul");
	case LSD_K_MIN: return lsd_binary(a, b, LSD_K_MIN, "lsd_min");
	default:        return lsd_binary(a, b, LSD_K_MAX, "lsd_max");
	}
}

int64_t potm_lsd_value_(lsd_val_t v)
{
	struct potm_lsd *s = lsd_enter("lsd_value");
	lsd_check(s, v.ref, true, "lsd_value");
	if (lsd_is_inline(v.ref))
		return v.k;
	uint32_t i = v.ref & 0xffff;
	lsd_new_pass(s);
	/* Lazy: the futures reached become standard reads, bound (L2: the
	 * backend reads memory, not the transaction's own writes). */
	if (s->owner->lsd_lazy)
		return lsd_value_of(s, i, potm_backend.lsd->resolve, true);
	return lsd_value_of(s, i, lsd_no_read, false);
}

/* ---- conditions ------------------------------------------------------------------ */

/* A comparison or "and": on two inline operands, answered at once (L8). */
static lsd_cond_t lsd_condition(uint32_t a, int64_t ka, uint32_t b, int64_t kb, bool value,
                                uint8_t kind, uint8_t op, const char *which)
	__attribute__((noinline));
static lsd_cond_t lsd_condition(uint32_t a, int64_t ka, uint32_t b, int64_t kb, bool value,
                                uint8_t kind, uint8_t op, const char *which)
{
	struct potm_lsd *s = lsd_enter(which);
	lsd_check(s, a, value, which);
	lsd_check(s, b, value, which);
	unsigned depth = lsd_op_depth(s, a, b, which);
	if (lsd_is_inline(a) && lsd_is_inline(b))
		return lsd_inline_cond(s, kind == LSD_K_AND ? ka && kb : lsd_apply(kind, op, ka, kb),
		                       depth, which);
	return (lsd_cond_t){ .ref = lsd_ref(s, lsd_op_node(s, kind, op, a, ka, b, kb, depth,
	                                                   which)) };
}

static lsd_cond_t lsd_cmp_generic(lsd_val_t a, lsd_cmp_op_t op, lsd_val_t b)
	__attribute__((noinline));
static lsd_cond_t lsd_cmp_generic(lsd_val_t a, lsd_cmp_op_t op, lsd_val_t b)
{
	if ((unsigned)op > LSD_GE)
		potm_fatal("lsd_cmp: %d is no comparison (LSD_EQ ... LSD_GE)", (int)op);
	return lsd_condition(a.ref, a.k, b.ref, b.k, true, LSD_K_CMP, (uint8_t)op, "lsd_cmp");
}

lsd_cond_t potm_lsd_cmp_(lsd_val_t a, lsd_cmp_op_t op, lsd_val_t b)
{
	potm_thread_t *t = potm_self();
	if (likely((unsigned)op <= LSD_GE)) {
		uint32_t i = lsd_node_vs_known(t, a, b, LSD_K_CMP, (uint8_t)op);
		if (i != UINT32_MAX)
			return (lsd_cond_t){ .ref = t->txd.lsd_tag | i };
	}
	return lsd_cmp_generic(a, op, b);   /* (a tail call) */
}

lsd_cond_t potm_lsd_and_(lsd_cond_t a, lsd_cond_t b)
{
	return lsd_condition(a.ref, a.k, b.ref, b.k, false, LSD_K_AND, 0, "lsd_and");
}

static bool lsd_is_true_generic(lsd_cond_t c) __attribute__((noinline));

bool potm_lsd_is_true_(lsd_cond_t c)
{
	/* The common lazy case: a comparison of a future against a known
	 * value, evaluated here (a new pass: the future has no memo in it). */
	potm_thread_t *t = potm_self();
	if (likely(t != NULL && t->lsd_lazy && t->lsd_used)) {
		struct potm_lsd *s = t->lsd;
		uint32_t i = c.ref - t->txd.lsd_tag;
		lsd_node_t *n = &s->nodes[i < s->n ? i : 0];
		lsd_node_t *f;
		if (i < s->n && n->kind == LSD_K_CMP && n->size != 0 &&
		    (f = &s->nodes[n->size & LSD_B_KNOWN ? n->a : n->b])->kind == LSD_K_FUTURE &&
		    s->n_conds < s->cap_conds) {
			lsd_new_pass(s);
			int64_t v = lsd_eval_future(s, f, potm_backend.lsd->peek, false);
			bool answer = n->size & LSD_B_KNOWN ? lsd_compare(v, n->op, n->known)
			                                    : lsd_compare(n->known, n->op, v);
			n->val = answer;
			n->epoch = s->epoch;
			s->conds[s->n_conds++] = (lsd_cond_rec_t){ .node = i, .answer = answer };
			if (potm_backend.lsd->held != NULL)
				potm_backend.lsd->held(t, s->n_conds - 1);
			return answer;
		}
	}
	return lsd_is_true_generic(c);
}

static bool lsd_is_true_generic(lsd_cond_t c)
{
	struct potm_lsd *s = lsd_enter("lsd_is_true");
	lsd_check(s, c.ref, false, "lsd_is_true");
	if (lsd_is_inline(c.ref))
		return c.k != 0;   /* over constants only: it always gives it */
	uint32_t i = c.ref & 0xffff;
	lsd_new_pass(s);
	if (!s->owner->lsd_lazy)
		return lsd_value_of(s, i, lsd_no_read, false) != 0;
	/* Lazy: the condition on the words' latest committed values, and the
	 * answer joins the condition set, for condition validation at the
	 * commit.  The most common one, a future against a known value, is
	 * evaluated here (the pass is new: the future has no memo in it). */
	lsd_node_t *n = &s->nodes[i];
	bool answer;
	lsd_node_t *f = NULL;
	if (n->kind == LSD_K_CMP && n->size != 0)
		f = &s->nodes[n->size & LSD_B_KNOWN ? n->a : n->b];
	if (f != NULL && f->kind == LSD_K_FUTURE) {
		int64_t v = lsd_eval_future(s, f, potm_backend.lsd->peek, false);
		answer = n->size & LSD_B_KNOWN ? lsd_compare(v, n->op, n->known)
		                               : lsd_compare(n->known, n->op, v);
		n->val = answer;
		n->epoch = s->epoch;
	} else {
		answer = lsd_value_of(s, i, potm_backend.lsd->peek, false) != 0;
	}
	if (s->touched) {
		if (s->n_conds == s->cap_conds)
			s->conds = lsd_grow(s->conds, &s->cap_conds, sizeof *s->conds);
		s->conds[s->n_conds++] = (lsd_cond_rec_t){ .node = i, .answer = answer };
		if (potm_backend.lsd->held != NULL)
			potm_backend.lsd->held(s->owner, s->n_conds - 1);
	}
	return answer;
}

/* ---- lazy writes -------------------------------------------------------------------- */

static void lsd_write_bytes(void *a, unsigned size, lsd_val_t v, const char *which)
{
	struct potm_lsd *s = lsd_enter(which);
	potm_check_aligned(a, size, which);
	lsd_check(s, v.ref, true, which);
	potm_thread_t *t = s->owner;
	int64_t x = v.k;
	if (!t->lsd_lazy && s->n_lw == 0 && lsd_is_inline(v.ref))
		goto standard_write;   /* L8: eager, a value */
	uint32_t i = lsd_node_of(s, v.ref, v.k, which);
	lsd_record_lazy_write(s, a, size, i);
	if (t->lsd_lazy) {
		/* Recorded first: a reservation that settles the attempt (tl2's
		 * escalation) hands this write over with the others. */
		uint32_t k = s->n_lw - 1;
		uint32_t cookie = potm_backend.lsd->reserve(t, a, size);
		if (k >= s->applied)
			s->lw[k].cookie = cookie;
		return;
	}
	lsd_new_pass(s);
	x = lsd_value_of(s, i, lsd_no_read, false);
	s->applied = s->n_lw;
standard_write:
	if (size == 4)
		tm_write_i32((int32_t *)a, (int32_t)(uint32_t)(uint64_t)x);
	else
		tm_write_i64((int64_t *)a, x);
}

void potm_lsd_write_(void *addr, unsigned size, lsd_val_t v)
{
	lsd_write_bytes(addr, size, v, size == 4 ? "lsd_write_i32" : "lsd_write");
}

/* ---- settling (the backend's commit) ------------------------------------------------ */

bool potm_lsd_settle(potm_thread_t *t, potm_lsd_read_fn rd, potm_lsd_put_fn put, bool all)
{
	struct potm_lsd *s = t->lsd;
	lsd_new_pass(s);
	/* Condition validation: still the answer given is enough, the values
	 * need not be unchanged.  L7: when every future the conditions read
	 * still has the value they were evaluated on, every answer stands;
	 * only otherwise are the conditions evaluated again. */
	if (s->n_conds) {
		for (uint32_t k = 0; k < s->n_frs; k++) {
			lsd_node_t *n = &s->nodes[s->frs[k]];
			if (n->kind == LSD_K_FUTURE && (n->op & LSD_PEEKED))
				(void)lsd_eval_future(s, n, rd, true);
		}
		if (s->recheck)
			for (uint32_t k = 0; k < s->n_conds; k++)
				if ((lsd_value_of(s, s->conds[k].node, rd, true) != 0) != s->conds[k].answer)
					return false;
	}
	/* The lazy writes' values, on the same state (L2: the futures are
	 * the words' values before this transaction's writes). */
	for (uint32_t k = s->applied; k < s->n_lw; k++)
		s->lw[k].result = lsd_value_of(s, s->lw[k].value, rd, true);
	/* L5: the attempt goes on eagerly (in place), so every future it may
	 * still use must hold its value now. */
	if (all)
		for (uint32_t k = 0; k < s->n_frs; k++)
			(void)lsd_value_of(s, s->frs[k], rd, true);
	/* L3: in program order. */
	for (uint32_t k = s->applied; k < s->n_lw; k++)
		put(t, s->lw[k].addr, s->lw[k].size, lsd_to_bytes(s->lw[k].result, s->lw[k].size),
		    s->lw[k].cookie);
	s->applied = s->n_lw;
	s->n_conds = 0;
	s->n_frs = 0;
	t->lsd_lazy = false;
	return true;
}

/* ---- condition locking: a condition outside its transaction (2pl) ---------------- */

_Static_assert(LSD_K_FUTURE == POTM_LSD_INSN_FUTURE, "potm_lsd_insn_t's future kind");
_Static_assert(POTM_LSD_PROGRAM_MAX <= UINT16_MAX, "operand indices are 16 bits");

/* Emit a known operand held in its user's node (L8), as a constant. */
static int lsd_compile_known(int64_t k, potm_lsd_insn_t *out, uint32_t *nodes, size_t cap,
                             size_t *n)
{
	if (*n == cap)
		return -1;
	potm_lsd_insn_t *p = &out[*n];
	memset(p, 0, sizeof *p);
	p->kind = LSD_K_CONST;
	p->val = k;
	nodes[*n] = UINT32_MAX;   /* no arena node: never shared */
	return (int)(*n)++;
}

/* Emit node i (and what it needs) after out[0, *n); nodes[j] is the arena
 * index of out[j], so that shared subexpressions are emitted once.
 * Returns its instruction's index, or -1 if cap is reached. */
static int lsd_compile_node(const struct potm_lsd *s, uint32_t i, potm_lsd_insn_t *out,
                            uint32_t *nodes, size_t cap, size_t *n)
{
	for (size_t j = 0; j < *n; j++)
		if (nodes[j] == i)
			return (int)j;
	const lsd_node_t *nd = &s->nodes[i];
	int a = 0, b = 0;
	if (nd->kind != LSD_K_CONST && nd->kind != LSD_K_FUTURE) {
		a = nd->size & LSD_A_KNOWN ? lsd_compile_known(nd->known, out, nodes, cap, n)
		                           : lsd_compile_node(s, nd->a, out, nodes, cap, n);
		b = a < 0 ? -1
		    : nd->size & LSD_B_KNOWN ? lsd_compile_known(nd->known, out, nodes, cap, n)
		                             : lsd_compile_node(s, nd->b, out, nodes, cap, n);
		if (b < 0)
			return -1;
	}
	if (*n == cap)
		return -1;
	potm_lsd_insn_t *p = &out[*n];
	memset(p, 0, sizeof *p);
	p->kind = nd->kind;
	p->op = nd->op;
	p->a = (uint16_t)a;
	p->b = (uint16_t)b;
	if (nd->kind == LSD_K_CONST) {
		p->val = nd->val;
	} else if (nd->kind == LSD_K_FUTURE) {
		p->addr = nd->addr;
		p->size = nd->size;
		p->held = nd->epoch == s->epoch;   /* read in lsd_is_true's pass */
	}
	nodes[*n] = i;
	return (int)(*n)++;
}

size_t potm_lsd_cond_compile(potm_thread_t *t, uint32_t k, potm_lsd_insn_t *out, size_t cap,
                             bool *answer)
{
	const struct potm_lsd *s = t->lsd;
	uint32_t nodes[POTM_LSD_PROGRAM_MAX];
	size_t n = 0;
	if (cap > POTM_LSD_PROGRAM_MAX)
		cap = POTM_LSD_PROGRAM_MAX;
	*answer = s->conds[k].answer;
	/* The common condition, a future against a known value: three
	 * instructions, emitted as lsd_compile_node would. */
	const lsd_node_t *c = &s->nodes[s->conds[k].node];
	if (c->kind == LSD_K_CMP && c->size != 0 && cap >= 3) {
		const lsd_node_t *f = &s->nodes[c->size & LSD_B_KNOWN ? c->a : c->b];
		if (f->kind == LSD_K_FUTURE) {
			unsigned fi = c->size & LSD_B_KNOWN ? 0 : 1;
			memset(out, 0, 3 * sizeof *out);
			out[fi].kind = LSD_K_FUTURE;
			out[fi].addr = f->addr;
			out[fi].size = f->size;
			out[fi].held = f->epoch == s->epoch;
			out[1 - fi].kind = LSD_K_CONST;
			out[1 - fi].val = c->known;
			out[2].kind = LSD_K_CMP;
			out[2].op = c->op;
			out[2].a = 0;
			out[2].b = 1;
			return 3;
		}
	}
	return lsd_compile_node(s, s->conds[k].node, out, nodes, cap, &n) < 0 ? 0 : n;
}

/* Instruction i's value; *bad on a future not held or a malformed
 * program (an operand not below its user, a depth beyond L4's). */
static int64_t lsd_program_node(const potm_lsd_insn_t *p, size_t i, potm_lsd_peer_read_fn rd,
                                void *ctx, unsigned depth, bool *bad)
{
	const potm_lsd_insn_t *x = &p[i];
	if (*bad || depth > LSD_MAX_DEPTH + 1 ||
	    (x->kind > LSD_K_FUTURE && (x->a >= i || x->b >= i))) {
		*bad = true;
		return 0;
	}
	switch (x->kind) {
	case LSD_K_CONST:
		return x->val;
	case LSD_K_FUTURE:
		if (!x->held || (x->size != 4 && x->size != 8)) {
			*bad = true;
			return 0;
		}
		return lsd_from_bytes(rd(ctx, x->addr, x->size), x->size);
	case LSD_K_AND:
		/* As lsd_eval: the second operand only if the first holds (the
		 * owner read it only then). */
		return lsd_program_node(p, x->a, rd, ctx, depth + 1, bad) &&
		       lsd_program_node(p, x->b, rd, ctx, depth + 1, bad);
	default:
		break;
	}
	uint64_t a = (uint64_t)lsd_program_node(p, x->a, rd, ctx, depth + 1, bad);
	uint64_t b = (uint64_t)lsd_program_node(p, x->b, rd, ctx, depth + 1, bad);
	switch (x->kind) {
	case LSD_K_ADD: return (int64_t)(a + b);
	case LSD_K_SUB: return (int64_t)(a - b);
	case LSD_K_MUL: return (int64_t)(a * b);
	case LSD_K_MIN: return (int64_t)a < (int64_t)b ? (int64_t)a : (int64_t)b;
	case LSD_K_MAX: return (int64_t)a > (int64_t)b ? (int64_t)a : (int64_t)b;
	case LSD_K_CMP: return x->op <= LSD_GE && lsd_compare((int64_t)a, x->op, (int64_t)b);
	default:
		*bad = true;
		return 0;
	}
}

int potm_lsd_program_eval(const potm_lsd_insn_t *p, size_t n, potm_lsd_peer_read_fn rd,
                          void *ctx)
{
	bool bad = n == 0;
	int64_t v = bad ? 0 : lsd_program_node(p, n - 1, rd, ctx, 0, &bad);
	return bad ? -1 : v != 0;
}
