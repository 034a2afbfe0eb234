/*
 * potm/static/txd.h — the transaction descriptor behind <potm/tm.h>.
 *
 * Engine internals, installed because tm.h's macros and inline accesses
 * expand to them: the per-thread descriptor (tm_txd_t) with the parts of
 * it that inline code touches (the undo log of in-place writes, the
 * snapshot of TL2- and Silo-style reads), and the entry points behind TM_BEGIN and
 * TM_END, and the definitions of tm.h's inline tm_serial and tm_in_tx.
 * No interface: a program uses the names tm.h documents only.
 */
#ifndef POTM_STATIC_TXD_H
#define POTM_STATIC_TXD_H

#ifndef POTM_TM_H
#error "include <potm/tm.h>, not <potm/static/txd.h>"
#endif

#include <stddef.h>
#include <stdint.h>

/* ---- undo log of in-place writes -----------------------------------------
 * For backends that write in place (gl, pot's fast mode, tl2's irrevocable
 * mode, the HTM fallbacks); here because inline writes append to it.
 *
 * An entry is two words: the address with the access size in its top byte
 * (user addresses fit in 56 bits on x86-64 and ppc64 alike) and the old
 * bytes, so a logged write is two stores.  The cursor is a pointer with
 * one bound (plain_end): a single compare decides whether an inline write
 * may append. */
typedef struct tm_undo_entry_ {
	uintptr_t where;    /* address | size << TM_UNDO_SIZE_SHIFT */
	uint64_t old;       /* the old bytes, in the low addresses' order */
} tm_undo_entry_t;

#define TM_UNDO_SIZE_SHIFT 56

typedef struct tm_undo_ {
	tm_undo_entry_t *e;     /* the log; NULL until the first entry */
	tm_undo_entry_t *next;  /* the next free entry */
	tm_undo_entry_t *end;   /* e + capacity */
	tm_undo_entry_t *plain_end; /* end while inline writes may append
	                               (pot's fast mode), else NULL: one
	                               compare decides the inline path */
	/* pot's fast mode with speculative readers: an inline write first
	 * marks its stripe with this word (0: no marks, P5 in stm/pot.c). */
	uintptr_t mark;
	volatile uintptr_t *stripes; /* pot's stripe words */
	uintptr_t stripe_mask;
	unsigned stripe_shift;
	/* The entries logged so far, by hash of `where' (0: free slot),
	 * allocated with the log.  A write whose exact (address, size) is
	 * already logged needs no entry: rollback restores the newest entry
	 * first, so the oldest bytes, logged earlier, win.  A long
	 * transaction that rewrites the same words many times (STMBench7's
	 * update traversals) thus logs as many entries as it writes words,
	 * not as it makes writes.  Only entries from seen_from on are looked
	 * up and remembered: a short transaction (most of them) logs every
	 * write as it comes and has nothing to forget.  Emptied with the log
	 * (potm_undo_clear, potm_undo_rollback), entry by entry. */
	uintptr_t *seen;
	tm_undo_entry_t *seen_from;  /* e + TM_UNDO_SEEN_AFTER */
	/* The bound of the quickest inline write, which only appends (no
	 * mark, no lookup): min(plain_end, seen_from) while marks are off,
	 * else NULL (potm_undo_set_plain keeps it). */
	tm_undo_entry_t *quick_end;
	/* Inline appends stop at e + plain_max (0: at end), so that the
	 * library sees the log reach it (pot's serial mark). */
	size_t plain_max;
} tm_undo_t;

#define TM_UNDO_SEEN_BITS 12     /* 4,096 slots: 32 KB per thread */
#define TM_UNDO_SEEN_AFTER 64    /* entries logged before the table is used */

static inline uintptr_t tm_undo_where_(const void *a, unsigned size)
{
	return (uintptr_t)a | (uintptr_t)size << TM_UNDO_SIZE_SHIFT;
}

static inline size_t tm_undo_seen_slot_(uintptr_t where)
{
	return (size_t)(((uint64_t)where * 0x9e3779b97f4a7c15ull) >>
	                (64 - TM_UNDO_SEEN_BITS));
}

/* Fill e with the size bytes at a (before they are overwritten); returns
 * its `where'. */
static inline __attribute__((always_inline)) uintptr_t
tm_undo_fill_(tm_undo_entry_t *e, const void *a, unsigned size)
{
	uint64_t old = 0;
	__builtin_memcpy(&old, a, size);
	e->where = tm_undo_where_(a, size);
	e->old = old;
	return e->where;
}

/* Log the size bytes at a before they are overwritten, no questions
 * asked (below quick_end). */
static inline __attribute__((always_inline)) void
tm_undo_push_(tm_undo_t *u, const void *a, unsigned size)
{
	tm_undo_fill_(u->next++, a, size);
}

/* Log the size bytes at a before they are overwritten, unless this
 * (address, size) is logged already (tm_undo_t.seen).  The caller has
 * made room.  No branch on the lookup: the entry is written either way
 * and kept only if new, because whether a write repeats an earlier one
 * depends on the data, and a branch on it would mispredict where the
 * unconditional store costs nothing extra. */
static inline __attribute__((always_inline)) void
tm_undo_append_(tm_undo_t *u, const void *a, unsigned size)
{
	uintptr_t where = tm_undo_fill_(u->next, a, size);
	uintptr_t fresh = 1;
	if (__builtin_expect(u->next >= u->seen_from, 0)) {
		uintptr_t *slot = &u->seen[tm_undo_seen_slot_(where)];
		fresh = *slot != where;
		*slot = where;
	}
	u->next += fresh;
}

/* pot: mark stripe word s with word before the first in-place store under
 * it, with a release fence so that the mark is seen before the store
 * (stm/pot.c P2; its pot_mark and the inline writes both come here). */
static inline void tm_stripe_mark_(volatile uintptr_t *s, uintptr_t word)
{
	if (__atomic_load_n(s, __ATOMIC_RELAXED) != word) {
		__atomic_store_n(s, word, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
	}
}

static inline void tm_undo_mark_(tm_undo_t *u, const void *a)
{
	tm_stripe_mark_(&u->stripes[((uintptr_t)a >> u->stripe_shift) & u->stripe_mask],
	                u->mark);
}

/* ---- snapshot reads (tl2) --------------------------------------------------
 * A read set: the stripe lock words a TL2-style transaction read, to be
 * revalidated at commit.  e[-1] is a NULL sentinel, so the library's test
 * "the same stripe as the last read" (fields of one object: logged once)
 * needs no emptiness test; the inline reads log every read. */
typedef struct tm_rset_ {
	const volatile uintptr_t **next; /* the next free slot */
	const volatile uintptr_t **end;  /* e + cap while inline reads may log
	                                    (inside a tl2 transaction), else
	                                    NULL: one compare decides */
	const volatile uintptr_t **e;    /* the first slot */
	size_t cap;
} tm_rset_t;

/* Which words a transaction wrote: a Bloom filter, one bit per word,
 * tested by the inline reads (a hit takes the library's read-after-write
 * path).  Small write sets use the 1,024 bits of `small', few enough
 * words that false hits stay rare (with the 32 words a small set holds at
 * most, about one read in 32 hits falsely: a call into the library and a
 * scan of the set); a large set's filter is its hash index's, 8 bits per
 * index slot, so that its density stays bounded however many
 * words are written (a fixed-size filter would fill up and send every
 * read to the library).  A word's bit is ((address >> 3) *
 * TM_WFILTER_MUL) >> shift, i.e. the top bits of a multiplicative hash,
 * as many as the filter has. */
#define TM_WFILTER_MUL 0xc2b2ae3d27d4eb4full
#define TM_WFILTER_SMALL_WORDS 16
#define TM_WFILTER_SMALL_SHIFT (64 - 10)  /* 1,024 bits */

typedef struct tm_wfilter_ {
	uint64_t *bits;                  /* small, or the index's filter */
	unsigned shift;
	unsigned used;                   /* 0 while no bit is set: nothing
	                                    written (a range's reads skip
	                                    their tests) */
	uint64_t small[TM_WFILTER_SMALL_WORDS];
} tm_wfilter_t;

static inline uint64_t tm_wfilter_hash_(uintptr_t a, unsigned shift)
{
	return ((uint64_t)(a >> 3) * TM_WFILTER_MUL) >> shift;
}

static inline int tm_wfilter_test_(const tm_wfilter_t *f, uintptr_t a)
{
	uint64_t h = tm_wfilter_hash_(a, f->shift);
	return (int)((f->bits[h >> 6] >> (h & 63)) & 1);
}

/* Load size (1, 2, 4 or 8) naturally aligned bytes at a with one relaxed
 * atomic load; the bytes come back in memcpy order (the first size bytes
 * of the result).  Shared by the inline reads and the STM backends. */
static inline __attribute__((always_inline)) uint64_t tm_load_bytes_(const void *a, unsigned size)
{
	uint64_t v = 0;
	switch (size) {
	case 1: { uint8_t x = __atomic_load_n((const uint8_t *)a, __ATOMIC_RELAXED); __builtin_memcpy(&v, &x, 1); } break;
	case 2: { uint16_t x = __atomic_load_n((const uint16_t *)a, __ATOMIC_RELAXED); __builtin_memcpy(&v, &x, 2); } break;
	case 4: { uint32_t x = __atomic_load_n((const uint32_t *)a, __ATOMIC_RELAXED); __builtin_memcpy(&v, &x, 4); } break;
	default: v = __atomic_load_n((const uint64_t *)a, __ATOMIC_RELAXED); break;
	}
	return v;
}

/* tl2's lock of an address: the index of its stripe (address >> shift)
 * in a table of mask + 1 locks, plus a skew that grows by one every
 * 2^(bits/2) stripes (address >> skew_shift, skew_shift = shift + bits -
 * bits/2, for a table of 2^bits locks).  Neighbouring stripes keep
 * neighbouring locks but at the skew's steps, so an object's stripes
 * share the lock table's cache lines; and memory a multiple of the
 * table's coverage (2^(shift + bits) bytes) apart no longer maps to the
 * same locks one for one, but k * 2^(bits/2) locks apart: malloc's arenas
 * are aligned to a power of two, and two threads that allocate alike
 * (TPC-C's loaders, one warehouse each) place their records at the same
 * offsets in theirs, which under a plain mask made every record share
 * its locks with its twin, a false conflict on every pair of updates.
 * The skew is constant within a stripe (skew_shift >= shift), and one add
 * where a multiplicative hash would cost a multiply on every read. */
static inline uintptr_t tm_lock_index_(uintptr_t a, unsigned shift, unsigned skew_shift,
                                       uintptr_t mask)
{
	return ((a >> shift) + (a >> skew_shift)) & mask;
}

/* What the inline snapshot reads need (tl2): the lock table, the
 * snapshot, the read set, and which words the transaction wrote. */
typedef struct tm_snap_ {
	tm_rset_t rs;
	const volatile uintptr_t *locks; /* a lock word: version << 1, or odd
	                                    while a committer holds it */
	uintptr_t lock_mask;
	unsigned shift;                  /* stripe: address >> shift */
	unsigned skew_shift;             /* tm_lock_index_ */
	uint64_t rv;                     /* the snapshot's clock value */
	tm_wfilter_t written;            /* words written */
	const uint64_t *tids;            /* silo: the snapshot, one TID word
	                                    per writer's logical id */
} tm_snap_t;

/* silo's stripe word: the lock bit, the writer's logical id in the next
 * TM_SILO_ID_BITS bits (POTM_MAX_THREADS <= 2048 on silo), a bit set by a
 * commit that kept versions for a snapshot (stm/silo.c), the TID (epoch
 * and sequence) above.  A word is accepted by a snapshot when it is
 * unlocked and no newer than the snapshot's word for its writer. */
#define TM_SILO_ID_BITS 11

static inline unsigned tm_silo_writer_(uintptr_t word)
{
	return (unsigned)(word >> 1) & ((1u << TM_SILO_ID_BITS) - 1);
}

/* The snapshot's word for word's writer: tids[tm_silo_writer_(word)],
 * with the id bits (already id * 2) scaled to a byte offset, no shift. */
static inline uint64_t tm_silo_snap_of_(const uint64_t *tids, uintptr_t word)
{
	uintptr_t off = (word & (((uintptr_t)1 << TM_SILO_ID_BITS) - 1) << 1) * 4;
	return *(const uint64_t *)(const void *)((const char *)tids + off);
}

/* ---- the redo log's view of a write set -------------------------------------
 * The record store's redo log (lib/store/log.c) asks silo and tl2 for the
 * bytes an attempt wrote inside the records it logs, one range per record
 * (lib/log_written.h fills them from the write set; two ranges are
 * disjoint or equal).  Each range gets its pieces: uint32_t offset in the
 * record, uint32_t length, the bytes; at most one per byte, so out needs
 * TM_LOG_WRITTEN_MAX(hi - lo) bytes.  The caller lends an index of the
 * ranges' blocks of 1 << TM_LOG_BLOCK_SHIFT bytes: TM_LOG_BLOCKS(lo, hi)
 * slots per range, twice that in all, rounded up to a power of two
 * (slots, mask), and a generation above every one its slots hold (a slot
 * of an older one is empty: nothing to clear between calls). */
typedef struct tm_log_range {
	uintptr_t lo, hi;        /* the record's bytes [lo, hi) */
	unsigned char *out;      /* where its pieces go */
	size_t len;              /* filled: the pieces' length */
	size_t covered;          /* filled: how many bytes they hold */
	uintptr_t piece_end_;    /* the helper's: where the last piece ends, */
	size_t piece_hdr_;       /* and where its header is in out */
} tm_log_range_t;

typedef struct tm_log_slot {
	uintptr_t block;         /* address >> TM_LOG_BLOCK_SHIFT */
	size_t range;
	uint64_t gen;            /* the call that set it */
} tm_log_slot_t;

typedef struct tm_log_index {
	tm_log_slot_t *slots;
	size_t mask;
	uint64_t gen;
} tm_log_index_t;

#define TM_LOG_PIECE_HDR 8u
#define TM_LOG_WRITTEN_MAX(n) ((n) * (TM_LOG_PIECE_HDR + 1) + 8)
#define TM_LOG_BLOCK_SHIFT 8
#define TM_LOG_BLOCKS(lo, hi) ((((hi) - 1) >> TM_LOG_BLOCK_SHIFT) - ((lo) >> TM_LOG_BLOCK_SHIFT) + 1)

/* ---- the descriptor ---------------------------------------------------------
 * The part of a thread's transaction descriptor that TM_BEGIN/TM_END and
 * the inline accesses touch; each backend's descriptor starts with it. */
/* Where an aborted attempt resumes: the buffer of GCC's (and clang's)
 * __builtin_setjmp, five words (the frame, the resume label, the stack
 * pointer, two for the target's use).  Not sigsetjmp: a resume point is
 * set at every outermost TM_BEGIN and taken only by an abort, and
 * sigsetjmp stores every callee-saved register, mangles the pointers and
 * calls into libc for the signal mask it is told not to save; the
 * builtin stores three words inline and leaves the registers to the
 * compiler, which treats the function as one that calls setjmp (its
 * locals live across the resume point exactly as with sigsetjmp).  The
 * library resumes with __builtin_longjmp (lib/tx.c), from a function
 * other than the one that set the point, as the builtin requires. */
typedef void *tm_resume_t[5];

typedef struct tm_txd {
	tm_resume_t env;    /* where an aborted attempt resumes */
	unsigned depth;     /* flat nesting depth; 0 = not in a transaction */
	unsigned flags;     /* TM_TXD_* */
	unsigned accesses;  /* pot: reads and writes of this attempt, which
	                       decide its runs of turns (lib/sequencer.h) */
	/* LSD (<potm/lsd.h>'s inline calls, lib/lsd.c): from the attempt's
	 * first LSD call to its end, lsd_tag is its handles' tag (generation
	 * << 16, never 0) and lsd_room how many more handles it may make
	 * (LSD_MAX_NODES in all); lsd_eager is set while its reads and
	 * writes of known values are standard accesses (eager mode, no lazy
	 * write).  All 0 outside. */
	uint32_t lsd_tag;
	uint32_t lsd_room;
	uint32_t lsd_eager;
	tm_undo_t undo;     /* pot: the attempt's in-place writes */
	tm_snap_t snap;     /* tl2: the attempt's snapshot reads */
	uint64_t attempt_id; /* the running (or last) attempt's number, one
	                        never used before in the process (set at each
	                        outermost start, before the backend's begin):
	                        the record store keeps what an attempt
	                        learned under it */
	/* Called by TM_END's commit (lib/tx_gen.h) when not NULL: with
	 * TM_COMMIT_HOOK_BEFORE just before the backend commits (still inside
	 * the transaction: it may read transactionally, and may abort), and
	 * with TM_COMMIT_HOOK_AFTER once the commit took effect (read_only:
	 * the backend's verdict), or with TM_COMMIT_HOOK_ENDED when the
	 * attempt aborts or is cancelled instead (lib/tx.c).  The record
	 * store's redo log
	 * (lib/store/log.c) sets it for an attempt that changed logged
	 * tables; it stays set until a call clears it. */
	void (*commit_hook)(struct tm_txd *d, int phase, int read_only);
} tm_txd_t;

#define TM_COMMIT_HOOK_BEFORE 0
#define TM_COMMIT_HOOK_AFTER  1
#define TM_COMMIT_HOOK_ENDED  2

#define TM_TXD_CANCELLED 1u /* the attempt was cancelled: skip the body */
#define TM_TXD_UNDO      2u /* in-place writes must be undo-logged (rtm's
                               fallback path) */
#define TM_TXD_PLAIN_READS 4u /* a read is a plain load: pot's fast mode
                               (in its turn), tl2's irrevocable mode (the
                               read set is closed, so the inline TL2 read
                               fails at once and this is tested next) */
#define TM_TXD_SERIAL    8u /* the attempt runs in serial mode (tm_serial) */
#define TM_TXD_READ_ONLY 16u /* declared read-only (tm_declare_read_only):
                               a write through the library is a misuse;
                               cleared at each outermost start */

/* The calling thread's descriptor; NULL if it is not registered.
 * initial-exec: one instruction to reach it on every access, and a single
 * pointer fits the static TLS surplus that a dlopen()ed library may use. */
extern __thread tm_txd_t *tm_self_ __attribute__((tls_model("initial-exec")));

/* Report misuse of the API (which: what was done) and abort the process. */
void tm_misuse_(const char *which) __attribute__((noreturn, cold));

static inline tm_txd_t *tm_txd_(void)
{
	tm_txd_t *d = tm_self_;
	if (__builtin_expect(d == NULL, 0))
		tm_misuse_("TM_BEGIN on a thread that did not call tm_thread_enter()");
	return d;
}

/* The backend's entry points behind TM_BEGIN/TM_END (lib/tx_gen.h).
 * tm_tx_start_ returns 0 when the body must be skipped (the transaction
 * was cancelled). */
int tm_tx_start_(tm_txd_t *d);
void tm_tx_end_(tm_txd_t *d);

/* TM_BEGIN() and TM_END().  No local variable lives across the resume
 * point (so none can be clobbered by the longjmp of an abort): the
 * descriptor is re-read from tm_self_, one thread-local load each time.
 * Only the outermost TM_BEGIN sets the resume point: nesting is flat. */
#if defined(POTM_BACKEND_SEQ) && !defined(POTM_BUILDING_LIBRARY)
/* seq never resumes an attempt (it cannot roll back: tm_restart and
 * tm_cancel are fatal there), so it sets no resume point. */
#define POTM_TX_BEGIN_()                                                \
	do {                                                            \
		if (tm_tx_start_(tm_txd_())) {
#else
#define POTM_TX_BEGIN_()                                                \
	do {                                                            \
		if (tm_txd_()->depth == 0)                              \
			(void)__builtin_setjmp(tm_self_->env);          \
		if (tm_tx_start_(tm_self_)) {
#endif

#define POTM_TX_END_()                                                  \
			tm_tx_end_(tm_self_);                           \
		}                                                       \
	} while (0)

static inline int tm_serial(void)
{
	tm_txd_t *d = tm_self_;
	return d != NULL && d->depth > 0 && (d->flags & TM_TXD_SERIAL) != 0;
}

static inline int tm_in_tx(void)
{
	return tm_self_ != NULL && tm_self_->depth > 0;
}

#endif /* POTM_STATIC_TXD_H */
