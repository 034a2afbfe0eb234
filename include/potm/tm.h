/*
 * potm/tm.h — transactions.
 *
 * One API, many backends: the program is linked with one libpotm-<backend>
 * library (seq, gl, tl2, ...), chosen at build time.  Compiling with
 * -DPOTM_BACKEND_<NAME> (the CMake targets and pkg-config files set it) lets
 * backends whose accesses are plain loads and stores (seq) inline them; any
 * program also works without it, through function calls.
 *
 *     tm_config_t cfg;
 *     tm_config_default(&cfg);
 *     tm_init(&cfg);                      // once per process
 *     tm_thread_enter(id);                // once per thread, id = logical id
 *     TM_BEGIN();
 *         long v = TM_LOAD(&acct[a]);
 *         TM_STORE(&acct[a], v - 1);
 *     TM_END();
 *     tm_thread_exit();
 *     tm_shutdown();
 *
 * Rules of the transaction block:
 *  - An aborted attempt resumes at TM_BEGIN() with siglongjmp.  A local
 *    variable assigned inside the block and read after an abort must be
 *    volatile (as with any sigsetjmp).
 *  - Leave the block only through TM_END(): no return, break or goto out of
 *    it.  tm_cancel() is the way to give up.
 *  - Nesting is flattened: a TM_BEGIN() inside a transaction joins the
 *    enclosing one, an abort or cancel anywhere restarts or cancels the
 *    outermost, and only the outermost TM_END() commits.
 *  - Shared memory is touched only through tm_read_x and tm_write_x (or TM_LOAD /
 *    TM_STORE); memory the transaction allocated itself and has not yet
 *    published may also be written directly.
 *  - One exception for reads: a field written only before its object was
 *    published (by a transactional store of a pointer to it) and never
 *    after may be read directly once this transaction has read a pointer
 *    to the object, provided objects are freed with tm_free (its grace
 *    period keeps them readable).  The backends publish a transaction's
 *    stores after its earlier plain ones, so such a field holds its one
 *    value in every snapshot that reaches the object (STMBench7's map keys
 *    and ids, sb7_tm.h).
 */
#ifndef POTM_TM_H
#define POTM_TM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <potm/config.h>
#include <potm/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uintptr_t tm_word_t;
typedef void *tm_ptr_t;

/* ---- life cycle ------------------------------------------------------- */

/* Start the library.  cfg may be NULL (defaults); the POTM_* environment is
 * applied on top of it.  Returns 0; TM_ERR_UNSUPPORTED if this machine
 * cannot run the backend (e.g. no RTM); -1 for any other error (bad
 * configuration, already initialized).  tm_last_error() says why. */
int tm_init(const tm_config_t *cfg);

#define TM_ERR_UNSUPPORTED (-2)

/* Stop the library: waits for deferred frees.  Every thread must have
 * exited (tm_thread_exit) first. */
void tm_shutdown(void);

/* Register the calling thread under logical id (0 <= id < max_threads).  The
 * id names the thread in statistics and fixes its place in a deterministic
 * backend's order.  Returns 0, or -1 with tm_last_error() (id out of range
 * or taken, thread already registered, backend refuses more threads). */
int tm_thread_enter(unsigned id);

/* Unregister the calling thread; its statistics are kept. */
void tm_thread_exit(void);

/* The message of the last failed call on this thread ("" if none). */
const char *tm_last_error(void);

/* "tl2", "seq", ... : the backend this program is linked with. */
const char *tm_backend_name(void);

/* The active configuration (after environment overrides); NULL before
 * tm_init. */
const tm_config_t *tm_current_config(void);

/* ---- transactions ----------------------------------------------------- */

/* The part of a thread's transaction descriptor that the TM_BEGIN/TM_END
 * macros touch; each backend's descriptor starts with it. */
/* An undo log of in-place writes (old contents), for backends that write
 * in place; here so that tm.h's inline writes can append to it.
 *
 * An entry is two words: the address with the access size in its top byte
 * (user addresses fit in 56 bits on x86-64 and ppc64 alike) and the old
 * bytes, so a logged write costs two stores (GCC writes them as one
 * 16-byte store).  The cursor is a pointer with one bound (plain_end): a
 * single compare decides whether an inline write may append. */
typedef struct tm_undo_entry_ {
	uintptr_t where;    /* address | size << TM_UNDO_SIZE_SHIFT */
	uint64_t old;       /* the old bytes, in the low addresses' order */
} tm_undo_entry_t;

#define TM_UNDO_SIZE_SHIFT 56

typedef struct tm_undo_ {
	tm_undo_entry_t *e;     /* the log; NULL until the first entry */
	tm_undo_entry_t *next;  /* the next free entry */
	tm_undo_entry_t *end;   /* e + capacity */
	tm_undo_entry_t *plain_end; /* end while tm.h's inline writes may
	                               append (pot's fast mode), else NULL:
	                               one compare decides the inline path */
	/* pot's fast mode with speculative readers: an inline write first
	 * marks its stripe with this word (0: no marks, P5 in stm/pot.c). */
	uintptr_t mark;
	volatile uintptr_t *stripes; /* pot's stripe words */
	uintptr_t stripe_mask;
	unsigned stripe_shift;
	/* The entries logged so far, by hash of `where' (0: free slot),
	 * allocated with the log.  A write whose exact (address, size) is
	 * already logged needs no entry: rollback restores the newest entry
	 * first, so the oldest bytes, logged earlier, win.  STMBench7's long
	 * update traversals rewrite a few thousand words hundreds of times
	 * (T2c: 350,000 writes to 2,000 words), and an entry per write made
	 * their log megabytes.  Only entries from seen_from on are
	 * looked up and remembered: a short transaction (most of them)
	 * logs every write as it comes and has nothing to forget.
	 * Emptied with the log (potm_undo_clear, potm_undo_rollback), entry
	 * by entry. */
	uintptr_t *seen;
	tm_undo_entry_t *seen_from;  /* e + TM_UNDO_SEEN_AFTER */
	/* The bound of tm.h's quickest inline write, which only appends
	 * (no mark, no lookup): min(plain_end, seen_from) while marks are
	 * off, else NULL (potm_undo_set_plain keeps it). */
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
 * and kept only if new (whether a write repeats one is unpredictable, and
 * a mispredicted branch per write cost more than the entries it saved). */
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
 * (stm/pot.c P2; its pot_mark and tm.h's inline writes both come here). */
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

/* A read set: the stripe lock words a TL2-style transaction read, to be
 * revalidated at commit.  e[-1] is a NULL sentinel, so the library's test
 * "the same stripe as the last read" (fields of one object: logged once)
 * needs no emptiness test; the inline reads log every read. */
typedef struct tm_rset_ {
	const volatile uintptr_t **next; /* the next free slot */
	const volatile uintptr_t **end;  /* e + cap while tm.h's inline reads
	                                    may log (inside a tl2 transaction),
	                                    else NULL: one compare decides */
	const volatile uintptr_t **e;    /* the first slot */
	size_t cap;
} tm_rset_t;

/* Which words a transaction wrote: a Bloom filter, one bit per word,
 * tested by tm.h's inline reads (a hit takes the library's read-after-write
 * path).  Small write sets use the 256 bits of `small' (64 were mostly
 * ones once 20 words were written: yada, vacation); a large set's filter is
 * its hash index's, 8 bits per index slot (STMBench7's T3c writes 3,500
 * words: 256 bits would send every read to the library).  A word's bit is
 * ((address >> 3) * TM_WFILTER_MUL) >> shift, i.e. the top bits of a
 * multiplicative hash, as many as the filter has. */
#define TM_WFILTER_MUL 0xc2b2ae3d27d4eb4full
#define TM_WFILTER_SMALL_WORDS 4
#define TM_WFILTER_SMALL_SHIFT (64 - 8)   /* 256 bits */

typedef struct tm_wfilter_ {
	uint64_t *bits;                  /* small, or the index's filter */
	unsigned shift;
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
 * of the result).  Shared by tm.h's inline reads and the STM backends. */
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

/* What tm.h's inline snapshot reads need (tl2): the lock table, the
 * snapshot, the read set, and which words the transaction wrote. */
typedef struct tm_snap_ {
	tm_rset_t rs;
	const volatile uintptr_t *locks; /* a lock word: version << 1, or odd
	                                    while a committer holds it */
	uintptr_t lock_mask;
	unsigned shift;                  /* stripe: address >> shift */
	uint64_t rv;                     /* the snapshot's clock value */
	tm_wfilter_t written;            /* words written */
} tm_snap_t;

typedef struct tm_txd {
	sigjmp_buf env;     /* where an aborted attempt resumes */
	unsigned depth;     /* flat nesting depth; 0 = not in a transaction */
	unsigned flags;     /* TM_TXD_* */
	tm_undo_t undo;     /* pot: the attempt's in-place writes */
	tm_snap_t snap;     /* tl2: the attempt's snapshot reads */
} tm_txd_t;

#define TM_TXD_CANCELLED 1u /* the attempt was cancelled: skip the body */
#define TM_TXD_UNDO      2u /* in-place writes must be undo-logged (rtm's
                               fallback path) */
#define TM_TXD_PLAIN_READS 4u /* a read is a plain load: pot's fast mode
                               (in its turn), tl2's irrevocable mode (the
                               read set is closed, so the inline TL2 read
                               fails at once and this is tested next) */
#define TM_TXD_SERIAL    8u /* the attempt runs in serial mode (tm_serial) */

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

/* Backend entry points behind the macros.  tm_tx_start_ returns 0 when the
 * body must be skipped (the transaction was cancelled). */
int tm_tx_start_(tm_txd_t *d);
void tm_tx_end_(tm_txd_t *d);

/* No local variable lives across the sigsetjmp (so none can be clobbered
 * by the siglongjmp of an abort): the descriptor is re-read from tm_self_,
 * one thread-local load each time. */
#define TM_BEGIN()                                                      \
	do {                                                            \
		if (tm_txd_()->depth == 0)                              \
			(void)sigsetjmp(tm_self_->env, 0);              \
		if (tm_tx_start_(tm_self_)) {

#define TM_END()                                                        \
			tm_tx_end_(tm_self_);                           \
		}                                                       \
	} while (0)

/* Abort the running transaction and re-execute it (after backoff). */
void tm_restart(void) __attribute__((noreturn));

/* Abort the running transaction and do not retry: its effects are undone
 * and execution continues after TM_END().  Deterministic backends commit a
 * cancelled transaction as an ordered no-op. */
void tm_cancel(void) __attribute__((noreturn));

/* 1 if this thread's last top-level transaction was cancelled. */
int tm_was_cancelled(void);

/* 1 if the running transaction is in serial mode: no other transaction
 * runs until it ends, so its body may take an uninstrumented clone of its
 * code, with plain loads and stores (as GCC's libitm runs uninstrumented
 * code in serial-irrevocable mode).  Test it right after TM_BEGIN: every
 * attempt starts at TM_BEGIN again, and whether it is serial is decided
 * there.  A plain store is not logged, so after one the body must not call
 * tm_restart or tm_cancel (they could not undo it); TM_STORE stays
 * revocable.  tl2 and pot run transactions serially, only when asked
 * (tm_config_t.serial: long transactions restart in serial mode; pogl's
 * are all serial). */
static inline int tm_serial(void)
{
	tm_txd_t *d = tm_self_;
	return d != NULL && d->depth > 0 && (d->flags & TM_TXD_SERIAL) != 0;
}

/* Say that the calling thread's next transaction is long: with
 * tm_config_t.serial set, a backend with serial mode starts it serially
 * (tl2 at once, pot in its turn) instead of at the promotion mark, saving
 * the attempt it would give up there; no effect otherwise.  For a
 * transaction known to write much (libitm's "does go irrevocable").
 * Returns 0, or -1 with tm_last_error(): calling thread not registered,
 * called inside a transaction. */
int tm_hint_serial(void);

/* 1 if the calling thread is inside a transaction. */
static inline int tm_in_tx(void)
{
	return tm_self_ != NULL && tm_self_->depth > 0;
}

#define TM_COMMITTED 0
#define TM_CANCELLED 1

/* Run fn(arg) as one transaction; returns TM_COMMITTED or TM_CANCELLED.
 * For bindings and executors that cannot use the macros. */
int tm_atomic(void (*fn)(void *), void *arg);

/* ---- memory ------------------------------------------------------------ */

/* Allocate inside a transaction; the block is freed again if the attempt
 * aborts.  Outside a transaction it is plain malloc. */
void *tm_malloc(size_t size);

/* Free inside a transaction: takes effect at commit, and the memory goes
 * back to the allocator only after a grace period, once no transaction that
 * could still hold a pointer to it is running.  Outside a transaction the
 * same deferred reclamation applies. */
void tm_free(void *ptr);

/* Wait until every block freed so far by the calling thread, and by
 * threads that have exited, has been reclaimed (for tests and shutdown;
 * a registered thread hands its committed frees over in batches, and
 * when it exits).  Must not be called inside a transaction. */
void tm_reclaim_barrier(void);

/* ---- accesses ------------------------------------------------------------
 * Natural alignment is required.  Sub-word writes never touch the bytes
 * around them. */

#if (defined(POTM_BACKEND_SEQ) || defined(POTM_BACKEND_RTM) || \
     defined(POTM_BACKEND_POT_RTM)) && !defined(POTM_BUILDING_LIBRARY)
#define POTM_PLAIN_ACCESS 1
#endif

/* An inline read whose slow path is the library's read (under the _spec_
 * name): FAST(d, a, out) loads *a into *out and returns 1 when the common
 * case holds, else 0.  In place (TM_TXD_PLAIN_READS: tl2's irrevocable
 * mode) a read is a plain load, tested first: behind a failed FAST it was
 * out of line, three taken branches and a spilled register per load, and
 * an irrevocable T3c spent 2.8x seq's time in its skip-list searches (the
 * test costs the snapshot reads nothing measurable: T1, kmeans within
 * 0.5 %).  The test carries no expectation either way: marked unlikely,
 * the compiler kept the snapshot read's registers and spilled the
 * caller's loop state on the plain path (a reload per skip-list step), and
 * an irrevocable T3c ran its searches at twice seq's time (17.2 -> 14.4 ms
 * without the hint; T1's snapshot reads 2,380 -> 2,340 us, kmeans-high
 * one thread 0.48 -> 0.46 s).  Writes stay calls into the library. */
#define POTM_INLINE_READ_(T, sfx, FAST)                                  \
	T tm_read##sfx##_spec_(const T *a);                              \
	void tm_write##sfx(T *a, T v);                                   \
	static inline T tm_read##sfx(const T *a)                         \
	{                                                                \
		tm_txd_t *d = tm_self_;                                  \
		T v;                                                     \
		if (__builtin_expect(d != NULL, 1)) {                    \
			if (d->flags & TM_TXD_PLAIN_READS)                      \
				return *a;                               \
			if (__builtin_expect(FAST(d, a, &v), 1))         \
				return v;                                \
		}                                                        \
		return tm_read##sfx##_spec_(a);                          \
	}

#ifdef POTM_PLAIN_ACCESS
/* Instrumentation compiles away; in debug builds an access outside a
 * transaction is still reported. */
#ifndef NDEBUG
#define POTM_CHECK_IN_TX_()                                              \
	do {                                                             \
		if (__builtin_expect(!tm_in_tx(), 0))                    \
			tm_misuse_("shared access outside a transaction"); \
	} while (0)
#else
#define POTM_CHECK_IN_TX_() ((void)0)
#endif
#if defined(POTM_BACKEND_RTM) || defined(POTM_BACKEND_POT_RTM)
/* rtm, pot-rtm: a hardware transaction needs no log, the software paths
 * (rtm's fallback, pot-rtm's fast mode) do (for tm_restart/tm_cancel); one
 * flag test tells them apart. */
void tm_undo_log_(void *a, unsigned size);
#define POTM_LOG_WRITE_(a, size)                                         \
	do {                                                             \
		if (__builtin_expect(tm_self_->flags & TM_TXD_UNDO, 0))  \
			tm_undo_log_((a), (size));                       \
	} while (0)
#else
#define POTM_LOG_WRITE_(a, size) ((void)0)
#endif
#define POTM_ACCESS_(T, sfx)                                             \
	static inline T tm_read##sfx(const T *a)                         \
	{ POTM_CHECK_IN_TX_(); return *a; }                              \
	static inline void tm_write##sfx(T *a, T v)                      \
	{ POTM_CHECK_IN_TX_(); POTM_LOG_WRITE_(a, sizeof(T)); *a = v; }
#elif defined(POTM_BACKEND_GL) && !defined(POTM_BUILDING_LIBRARY)
/* gl: inside a transaction this thread holds the lock, so a read is a
 * plain load, inline.  Anything else (outside a transaction, unaligned)
 * goes to the library's read, which reports the misuse.  Writes go to the
 * library: they are undo-logged there. */
static inline __attribute__((always_inline)) int
tm_gl_load_(const tm_txd_t *d, const void *a, unsigned size, void *out)
{
	if (__builtin_expect(d->depth == 0 || ((uintptr_t)a & (size - 1)), 0))
		return 0;
	__builtin_memcpy(out, a, size);
	return 1;
}
#define POTM_GL_FAST_(d, a, out) tm_gl_load_((d), (a), sizeof *(a), (out))
#define POTM_ACCESS_(T, sfx) POTM_INLINE_READ_(T, sfx, POTM_GL_FAST_)
#elif defined(POTM_BACKEND_POT) && !defined(POTM_BUILDING_LIBRARY)
/* pot: the transaction whose turn it is runs in fast mode, where nobody
 * can commit before it and a read is a plain load; one flag test inline
 * saves it a call per read.  Alone (no stripes to mark), a fast write is
 * inline too: an undo-log entry (for tm_restart/tm_cancel) and a store.
 * Speculative accesses, marked writes and a full log go to the library. */
#define POTM_ACCESS_(T, sfx)                                             \
	T tm_read##sfx##_spec_(const T *a);                              \
	void tm_write##sfx##_slow_(T *a, T v);                           \
	static inline T tm_read##sfx(const T *a)                         \
	{                                                                \
		tm_txd_t *d = tm_self_;                                  \
		if (__builtin_expect(d != NULL &&                        \
		                     (d->flags & TM_TXD_PLAIN_READS), 1))\
			return *a;                                       \
		return tm_read##sfx##_spec_(a);                          \
	}                                                                \
	static inline void tm_write##sfx(T *a, T v)                      \
	{                                                                \
		tm_txd_t *d = tm_self_;                                  \
		if (__builtin_expect(d == NULL, 0))                      \
			goto slow;                                       \
		if (__builtin_expect((uintptr_t)d->undo.next <            \
		                     (uintptr_t)d->undo.quick_end, 1)) {  \
			tm_undo_push_(&d->undo, a, sizeof(T));           \
			*a = v;                                          \
			return;                                          \
		}                                                        \
		if ((uintptr_t)d->undo.next < (uintptr_t)d->undo.plain_end) { \
			if (d->undo.mark)                                \
				tm_undo_mark_(&d->undo, a);              \
			tm_undo_append_(&d->undo, a, sizeof(T));         \
			*a = v;                                          \
			return;                                          \
		}                                                        \
	slow:                                                            \
		tm_write##sfx##_slow_(a, v);                             \
	}
#elif defined(POTM_BACKEND_TL2) && !defined(POTM_BUILDING_LIBRARY)
/* tl2: a read whose stripe is free, no newer than the snapshot and not
 * written by this transaction is the TL2 read (lock, load, lock again)
 * inline; anything else (a locked or newer stripe: extension or abort;
 * read-after-write; a full read set; misuse) goes to the library, which
 * starts over.  Writes go to the library.  In irrevocable mode (a starving
 * transaction holding the commit token, stm/tl2.c I1-I3) reads are plain
 * loads and writes in place, like pot's fast mode; the writes stay calls
 * (an inline test in front of every write cost kmeans 1.7 %, for 13 % of an
 * irrevocable T3c; measured again on AMD: kmeans 2.5 % for 3 % of
 * STMBench7 at two threads, structural modifications off). */
static inline __attribute__((always_inline)) int
tm_snap_load_(tm_snap_t *s, const void *a, unsigned size, void *out)
{
	uintptr_t w = (uintptr_t)a;
	if (__builtin_expect((w & (size - 1)) ||
	                     (uintptr_t)s->rs.next >= (uintptr_t)s->rs.end ||
	                     tm_wfilter_test_(&s->written, w), 0))
		return 0;
	const volatile uintptr_t *lock = &s->locks[(w >> s->shift) & s->lock_mask];
	uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
	uint64_t v = tm_load_bytes_(a, size);
	__builtin_memcpy(out, &v, size);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
	if (__builtin_expect(l1 != l2 || (l1 & 1) || (l1 >> 1) > s->rv, 0))
		return 0;
	/* Logged without the library's "same stripe as the last read" test:
	 * whether consecutive fields share a stripe depends on where the
	 * object sits, a branch that mispredicts often (red-black tree, 1
	 * thread, 32-byte stripes: 20 % slower with the test). */
	*s->rs.next++ = lock;
	return 1;
}
#define POTM_TL2_FAST_(d, a, out) tm_snap_load_(&(d)->snap, (a), sizeof *(a), (out))
#define POTM_ACCESS_(T, sfx) POTM_INLINE_READ_(T, sfx, POTM_TL2_FAST_)
#else
#define POTM_ACCESS_(T, sfx)                                             \
	T tm_read##sfx(const T *a);                                      \
	void tm_write##sfx(T *a, T v);
#endif

POTM_ACCESS_(tm_word_t, )
POTM_ACCESS_(uint8_t, _u8)
POTM_ACCESS_(uint16_t, _u16)
POTM_ACCESS_(uint32_t, _u32)
POTM_ACCESS_(uint64_t, _u64)
POTM_ACCESS_(tm_ptr_t, _ptr)
POTM_ACCESS_(float, _float)
POTM_ACCESS_(double, _double)
#undef POTM_ACCESS_

/* Signed and char-typed views of the unsigned accesses, so that TM_LOAD
 * returns the pointee's own type. */
#define POTM_SIGNED_(T, U, sfx, usfx)                                    \
	static inline T tm_read##sfx(const T *a)                         \
	{ return (T)tm_read##usfx((const U *)(const void *)a); }         \
	static inline void tm_write##sfx(T *a, T v)                      \
	{ tm_write##usfx((U *)(void *)a, (U)v); }
POTM_SIGNED_(int8_t, uint8_t, _i8, _u8)
POTM_SIGNED_(char, uint8_t, _char, _u8)
POTM_SIGNED_(int16_t, uint16_t, _i16, _u16)
POTM_SIGNED_(int32_t, uint32_t, _i32, _u32)
POTM_SIGNED_(int64_t, uint64_t, _i64, _u64)
POTM_SIGNED_(long long, uint64_t, _ll, _u64)
POTM_SIGNED_(unsigned long long, uint64_t, _ull, _u64)
#undef POTM_SIGNED_

/* long and unsigned long are distinct types from int64_t/uint64_t on LP64
 * only when the latter are spelled "long long"; glibc spells them "long". */
_Static_assert(sizeof(long) == 8, "potm needs an LP64 target");

/* Pointer-typed views: any T* stored in shared memory. */
static inline void *tm_load_ptr_(const void *a)
{
	return tm_read_ptr((const tm_ptr_t *)a);
}
static inline void tm_store_ptr_(void *a, const void *v)
{
	tm_write_ptr((tm_ptr_t *)a, (tm_ptr_t)(uintptr_t)v);
}

/* TM_LOAD(p) / TM_STORE(p, v): typed access through a pointer, chosen by
 * the pointer's type.  Any other pointee is taken to be a pointer. */
#define POTM_GENERIC_LOAD_(T, f) T *: f, const T *: f
#define TM_LOAD(p)                                                         \
	_Generic((p),                                                      \
		POTM_GENERIC_LOAD_(_Bool, tm_read_u8_bool_),               \
		POTM_GENERIC_LOAD_(char, tm_read_char),                    \
		POTM_GENERIC_LOAD_(signed char, tm_read_i8),               \
		POTM_GENERIC_LOAD_(unsigned char, tm_read_u8),             \
		POTM_GENERIC_LOAD_(short, tm_read_i16),                    \
		POTM_GENERIC_LOAD_(unsigned short, tm_read_u16),           \
		POTM_GENERIC_LOAD_(int, tm_read_i32),                      \
		POTM_GENERIC_LOAD_(unsigned, tm_read_u32),                 \
		POTM_GENERIC_LOAD_(long, tm_read_i64),                     \
		POTM_GENERIC_LOAD_(unsigned long, tm_read_u64),            \
		POTM_GENERIC_LOAD_(long long, tm_read_ll),                 \
		POTM_GENERIC_LOAD_(unsigned long long, tm_read_ull),       \
		POTM_GENERIC_LOAD_(float, tm_read_float),                  \
		POTM_GENERIC_LOAD_(double, tm_read_double),                \
		default: tm_load_ptr_)(p)
#define TM_STORE(p, v)                                                     \
	_Generic((p),                                                      \
		_Bool *: tm_write_u8_bool_,                                \
		char *: tm_write_char,                                     \
		signed char *: tm_write_i8,                                \
		unsigned char *: tm_write_u8,                              \
		short *: tm_write_i16,                                     \
		unsigned short *: tm_write_u16,                            \
		int *: tm_write_i32,                                       \
		unsigned *: tm_write_u32,                                  \
		long *: tm_write_i64,                                      \
		unsigned long *: tm_write_u64,                             \
		long long *: tm_write_ll,                                  \
		unsigned long long *: tm_write_ull,                        \
		float *: tm_write_float,                                   \
		double *: tm_write_double,                                 \
		default: tm_store_ptr_)((p), (v))

static inline _Bool tm_read_u8_bool_(const _Bool *a)
{
	return tm_read_u8((const uint8_t *)(const void *)a) != 0;
}
static inline void tm_write_u8_bool_(_Bool *a, _Bool v)
{
	tm_write_u8((uint8_t *)(void *)a, (uint8_t)v);
}

/* ==== barriers and ordering ================================================
 *
 * Barriers work with every backend.  With a deterministic backend (pot) a
 * barrier is also part of the order: a registered thread arrives in its
 * own turn, then stops holding turns while it waits, so the threads still
 * running never wait for it; the arrival that completes the barrier puts
 * the waiting threads back and a new round of turns begins.
 *
 * The determinism contract (pot): the same program with the same input and
 * the same number of threads commits the same transactions in the same
 * order and ends in the same state, provided threads communicate only
 * through transactions, tm barriers and tm_thread_enter/exit.  By default
 * (POTM_SEQUENCER=round-robin) transactions take turns by logical id: in
 * each round every registered thread commits one transaction, lowest id
 * first.  Registration joins at the next round boundary, so start
 * deterministically: every thread registers, then all meet at a tm
 * barrier (or all register before any of them runs a transaction).  A
 * registered thread holds its turns until tm_thread_exit(): one that
 * blocks elsewhere (pthread_join, a mutex, a non-tm barrier) while others
 * wait is reported after POTM_TURN_TIMEOUT_MS.
 */

typedef struct tm_barrier {
	unsigned count;        /* threads that must arrive */
	unsigned arrived;      /* arrivals in the current generation */
	uint32_t generation;   /* bumped by the arrival that completes it */
	uint32_t lock;         /* guards arrived and parked */
	unsigned nparked;      /* registered threads parked in this generation */
	unsigned *parked;      /* ... their logical ids (count slots) */
} tm_barrier_t;

/* tm_barrier_wait's result for exactly one thread of each generation (the
 * one whose arrival completed it); the others get 0. */
#define TM_BARRIER_SERIAL 1

/* count >= 1 threads.  Returns 0, or -1 with tm_last_error(). */
int tm_barrier_init(tm_barrier_t *b, unsigned count);

/* Wait until count threads have arrived.  Not inside a transaction.
 * Registered and unregistered threads may both take part; with pot, the
 * order of the registered ones is deterministic only if the arrival that
 * completes the barrier is a registered thread's. */
int tm_barrier_wait(tm_barrier_t *b);

/* Returns 0, or -1 if threads are still waiting on it. */
int tm_barrier_destroy(tm_barrier_t *b);

/* The calling thread's last top-level transaction, committed or cancelled
 * (a cancelled transaction takes its place too, as a no-op): its slot
 * number in the deterministic order, counting from 0 at tm_init.  Slots
 * also go to barrier arrivals, thread exits and tm_restart() calls made in
 * the turn (which give the turn up, so that other threads can change what
 * the transaction waits for), so the numbers of one thread's transactions
 * are increasing but not consecutive.  TM_ORDER_NONE
 * with a non-deterministic backend or before the first transaction.
 * Replaying the transactions sequentially by slot number reproduces the
 * run's final state. */
#define TM_ORDER_NONE UINT64_MAX
uint64_t tm_last_order(void);

/* True when the linked backend commits in a deterministic order (pot,
 * pot-rtm, pot-rot, in every POTM_MODE), false otherwise.  A program whose
 * transactions read shared memory without barriers (STAMP's labyrinth
 * copies its grid with plain loads) must make those reads part of its
 * transaction when this is true, or its result may depend on timing. */
bool tm_is_deterministic(void);

/* Explicit order (POTM_SEQUENCER=explicit, backend pot): the calling
 * thread's next top-level transaction takes slot seqno.  Slots are
 * numbered from 0 at tm_init and each must be supplied exactly once, by
 * any thread, as a replicated state machine supplies its agreed log
 * positions; transactions then commit in slot order whatever thread runs
 * them.  Call it before each transaction (a transaction started without a
 * supplied slot is an API misuse).  A transaction restarted with
 * tm_restart() keeps its slot; a cancelled one consumes it.  A slot that
 * nobody supplies stops the order: after POTM_TURN_TIMEOUT_MS the waiting
 * thread reports the gap and the process aborts.  Returns 0, or -1 with
 * tm_last_error(): other backend or sequencer, slot already consumed or
 * supplied by another thread, called inside a transaction. */
int tm_set_next_order(uint64_t seqno);

/* Weighted order (POTM_SEQUENCER=weighted, Pot backends): the calling
 * thread's transactions from now on weigh weight (1..TM_WEIGHT_MAX; 1 by
 * default), roughly how long one runs compared with the shortest.  The
 * order stays deterministic: each thread has a virtual clock, the next
 * slot goes to the thread whose next transaction ends first in virtual
 * time (clock + weight; ties: lowest logical id), and its clock moves
 * there.  With equal weights this is the round-robin order; with a long
 * transaction declared heavy, the other threads commit about that many
 * light ones while it runs, instead of waiting for it in every round.
 * The weights must be a deterministic function of the program's input
 * (the operation about to run, say), never of timing.  Other sequencers
 * and backends keep the value and ignore it, so a program may always set
 * weights.  A transaction hinted serial (tm_hint_serial) where pot runs
 * it so (pot, pot-fast with tm_config_t.serial) weighs 1: nothing runs
 * beside it, so a later slot would only keep its thread waiting.
 * Returns 0, or -1 with tm_last_error(): weight out of range, calling
 * thread not registered, called inside a transaction. */
#define TM_WEIGHT_MAX 1000000u
int tm_set_weight(unsigned weight);

#ifdef __cplusplus
}
#endif
#endif /* POTM_TM_H */
