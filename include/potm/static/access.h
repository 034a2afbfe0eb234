/*
 * potm/static/access.h — the typed accesses of <potm/tm.h>, per backend.
 *
 * Engine internals, installed because tm.h's accesses expand to them.
 * Compiled with -DPOTM_BACKEND_<NAME> (the CMake targets and pkg-config
 * files set it), a program gets its backend's common case inline:
 *
 *   seq, rtm, pot-rtm  plain loads and stores (the HTM backends' software
 *                      paths log the old bytes first, behind one flag test)
 *   gl                 reads: plain loads inside a transaction
 *   pot                reads: plain loads in fast mode; writes: in fast
 *                      mode alone, an undo-log entry and a store
 *   tl2                reads: the TL2 snapshot read
 *   silo               reads: the same against a vector of writers' TIDs
 *
 * Anything else is a call into the library, which handles every case (the
 * same function, under a second name, is each inline path's slow path).
 * Without a backend macro, every access is a call, with the same meaning.
 * The library itself (POTM_BUILDING_LIBRARY) sees the declarations only.
 */
#ifndef POTM_STATIC_ACCESS_H
#define POTM_STATIC_ACCESS_H

#ifndef POTM_TM_H
#error "include <potm/tm.h>, not <potm/static/access.h>"
#endif

#include <potm/static/txd.h>
#include <potm/static/pieces.h>

/* A backend that keeps old versions for snapshots (tm_write_fresh). */
#ifdef POTM_BACKEND_SILO
#define POTM_KEEPS_VERSIONS_ 1
#endif

/* A guarded read's stripe word (tm_read_guard_u64_, below). */
typedef struct tm_guard_ {
	const volatile uintptr_t *lock;  /* NULL: no plain reads */
	uintptr_t word;
} tm_guard_t;

/* Forced inlining where it pays: only when optimizing (unoptimized, it
 * would only give GCC's object-size warnings code it never folds). */
#ifdef __OPTIMIZE__
#define POTM_ALWAYS_INLINE_ static inline __attribute__((always_inline))
#else
#define POTM_ALWAYS_INLINE_ static inline
#endif

#if (defined(POTM_BACKEND_SEQ) || defined(POTM_BACKEND_RTM) || \
     defined(POTM_BACKEND_POT_RTM)) && !defined(POTM_BUILDING_LIBRARY)
#define POTM_PLAIN_ACCESS 1
#endif

/* An inline read whose slow path is the library's read (under the _spec_
 * name): FAST(d, a, out) loads *a into *out and returns 1 when the common
 * case holds, else 0.  In place (TM_TXD_PLAIN_READS: tl2's irrevocable
 * mode) a read is a plain load, and that flag is tested first: behind a
 * failed FAST the plain load would be out of line, taken branches and
 * spilled registers on every load of a long irrevocable transaction,
 * while for a snapshot read the test is one predictable branch on a word
 * already in cache.  The test carries no expectation either way: a hint
 * makes the compiler keep the registers of the side it favours and spill
 * the caller's loop state on the other.  Writes stay calls into the
 * library. */
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

#if (defined(POTM_BACKEND_TL2) || defined(POTM_BACKEND_SILO)) && !defined(POTM_BUILDING_LIBRARY)
/* tl2's and silo's inline read: a's stripe word before and after the
 * load, free and unchanged, and no newer than the snapshot: tl2's version
 * no newer than rv, or (silo) the word no newer than the snapshot's word
 * for the thread that wrote it.  Returns 0 for the library (misaligned,
 * read set full, a word this transaction wrote, a locked, moving or newer
 * word), else logs the stripe and fills *g.  silo is a constant at every
 * call, so the test folds to one of the two. */
static inline __attribute__((always_inline)) int
tm_stripe_load_g_(tm_snap_t *s, const void *a, unsigned size, void *out, tm_guard_t *g,
                  int silo)
{
	uintptr_t w = (uintptr_t)a;
	if (__builtin_expect((w & (size - 1)) ||
	                     (uintptr_t)s->rs.next >= (uintptr_t)s->rs.end ||
	                     tm_wfilter_test_(&s->written, w), 0))
		return 0;
	const volatile uintptr_t *lock =
		&s->locks[tm_lock_index_(w, s->shift, s->skew_shift, s->lock_mask)];
	uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
	uint64_t v = tm_load_bytes_(a, size);
	__builtin_memcpy(out, &v, size);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
	if (__builtin_expect(l1 != l2 || (l1 & 1) ||
	                     (silo ? l1 > tm_silo_snap_of_(s->tids, l1) : (l1 >> 1) > s->rv), 0))
		return 0;
	/* Logged without the library's "same stripe as the last read" test:
	 * whether consecutive fields share a stripe depends on where the
	 * object sits in memory, so that branch would mispredict often, while
	 * a repeated entry costs commit one more lock-word load. */
	*s->rs.next++ = lock;
	if (g != NULL) {
		g->lock = lock;
		g->word = l1;
	}
	return 1;
}
#endif

#ifdef POTM_PLAIN_ACCESS
/* Instrumentation compiles away; in debug builds an access outside a
 * transaction is still reported. */
#ifndef NDEBUG
#define POTM_CHECK_IN_TX_()                                              \
	do {                                                             \
		if (__builtin_expect(!tm_in_tx(), 0))                    \
			tm_misuse_("shared access outside a transaction"); \
	} while (0)
#define POTM_CHECK_WRITE_()                                              \
	do {                                                             \
		POTM_CHECK_IN_TX_();                                     \
		if (__builtin_expect(tm_self_->flags & TM_TXD_READ_ONLY, 0)) \
			tm_misuse_("write inside a transaction declared " \
			           "read-only (TM_BEGIN_RO)");           \
	} while (0)
#else
#define POTM_CHECK_IN_TX_() ((void)0)
#define POTM_CHECK_WRITE_() ((void)0)
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
#ifdef POTM_BACKEND_POT_RTM
/* pot-rtm: every access is counted, on the hardware path as on the
 * software one, since the count decides the runs of turns
 * (lib/sequencer.h S4) and the order must not depend on the path.  In a
 * hardware transaction the count is one more line of its write set, and
 * an abort restores it. */
#define POTM_COUNT_ACCESSES_(n)                                          \
	do {                                                             \
		tm_txd_t *d_ = tm_self_;                                 \
		if (__builtin_expect(d_ != NULL, 1))                     \
			d_->accesses += (n);                             \
	} while (0)
#else
#define POTM_COUNT_ACCESSES_(n) ((void)0)
#endif
#define POTM_ACCESS_(T, sfx)                                             \
	static inline T tm_read##sfx(const T *a)                         \
	{ POTM_CHECK_IN_TX_(); POTM_COUNT_ACCESSES_(1); return *a; }     \
	static inline void tm_write##sfx(T *a, T v)                      \
	{                                                                \
		POTM_CHECK_WRITE_();                                     \
		POTM_COUNT_ACCESSES_(1);                                 \
		POTM_LOG_WRITE_(a, sizeof(T));                           \
		*a = v;                                                  \
	}
#define POTM_INLINE_WRITES_ 1
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
 * Speculative accesses, marked writes and a full log go to the library.
 * Every access is counted (accesses), inline or in the library, once. */
#define POTM_ACCESS_(T, sfx)                                             \
	T tm_read##sfx##_spec_(const T *a);                              \
	void tm_write##sfx##_slow_(T *a, T v);                           \
	static inline T tm_read##sfx(const T *a)                         \
	{                                                                \
		tm_txd_t *d = tm_self_;                                  \
		if (__builtin_expect(d != NULL &&                        \
		                     (d->flags & TM_TXD_PLAIN_READS), 1)) { \
			d->accesses++;                                   \
			return *a;                                       \
		}                                                        \
		return tm_read##sfx##_spec_(a);                          \
	}                                                                \
	static inline void tm_write##sfx(T *a, T v)                      \
	{                                                                \
		tm_txd_t *d = tm_self_;                                  \
		if (__builtin_expect(d == NULL, 0))                      \
			goto slow;                                       \
		if (__builtin_expect((uintptr_t)d->undo.next <            \
		                     (uintptr_t)d->undo.quick_end, 1)) {  \
			d->accesses++;                                   \
			tm_undo_push_(&d->undo, a, sizeof(T));           \
			*a = v;                                          \
			return;                                          \
		}                                                        \
		if ((uintptr_t)d->undo.next < (uintptr_t)d->undo.plain_end) { \
			d->accesses++;                                   \
			if (d->undo.mark)                                \
				tm_undo_mark_(&d->undo, a);              \
			tm_undo_append_(&d->undo, a, sizeof(T));         \
			*a = v;                                          \
			return;                                          \
		}                                                        \
	slow:                                                            \
		tm_write##sfx##_slow_(a, v);                             \
	}
#define POTM_INLINE_WRITES_ 1
#elif defined(POTM_BACKEND_TL2) && !defined(POTM_BUILDING_LIBRARY)
/* tl2: a read whose stripe is free, no newer than the snapshot and not
 * written by this transaction is the TL2 read (lock, load, lock again)
 * inline; anything else (a locked or newer stripe: extension or abort;
 * read-after-write; a full read set; misuse) goes to the library, which
 * starts over.  Writes go to the library.  In irrevocable mode (a starving
 * transaction holding the commit token, stm/tl2.c I1-I3) reads are plain
 * loads and writes in place, like pot's fast mode; the writes stay calls,
 * because an inline test for that rare mode would sit in front of every
 * write of every other transaction. */
static inline __attribute__((always_inline)) int
tm_snap_load_g_(tm_snap_t *s, const void *a, unsigned size, void *out, tm_guard_t *g)
{
	return tm_stripe_load_g_(s, a, size, out, g, 0);
}

static inline __attribute__((always_inline)) int
tm_snap_load_(tm_snap_t *s, const void *a, unsigned size, void *out)
{
	return tm_snap_load_g_(s, a, size, out, NULL);
}
#define POTM_GUARD_FAST_(d, a, out, g) tm_snap_load_g_(&(d)->snap, (a), sizeof *(a), (out), (g))
#define POTM_TL2_FAST_(d, a, out) tm_snap_load_(&(d)->snap, (a), sizeof *(a), (out))
#define POTM_ACCESS_(T, sfx) POTM_INLINE_READ_(T, sfx, POTM_TL2_FAST_)
#elif defined(POTM_BACKEND_SILO) && !defined(POTM_BUILDING_LIBRARY)
/* silo: as tl2's, but the snapshot is a vector with one TID word per
 * writer (stm/silo.c S1): a stripe word is accepted when it is free and
 * no newer than the snapshot's word for the thread that wrote it.  The
 * rest (a newer word: extension or abort; a locked stripe;
 * read-after-write; a full read set; misuse) goes to the library. */
static inline __attribute__((always_inline)) int
tm_silo_load_g_(tm_snap_t *s, const void *a, unsigned size, void *out, tm_guard_t *g)
{
	return tm_stripe_load_g_(s, a, size, out, g, 1);
}

static inline __attribute__((always_inline)) int
tm_silo_load_(tm_snap_t *s, const void *a, unsigned size, void *out)
{
	return tm_silo_load_g_(s, a, size, out, NULL);
}
#define POTM_GUARD_FAST_(d, a, out, g) tm_silo_load_g_(&(d)->snap, (a), sizeof *(a), (out), (g))
#define POTM_SILO_FAST_(d, a, out) tm_silo_load_(&(d)->snap, (a), sizeof *(a), (out))
/* As POTM_INLINE_READ_, always inline (when optimizing): the per-writer
 * check makes the read a few instructions longer than tl2's, past what
 * GCC's inliner takes unasked, and an out-of-line copy costs a call per
 * read. */
#define POTM_ACCESS_(T, sfx)                                             \
	T tm_read##sfx##_spec_(const T *a);                              \
	void tm_write##sfx(T *a, T v);                                   \
	POTM_ALWAYS_INLINE_ T tm_read##sfx(const T *a)                   \
	{                                                                \
		tm_txd_t *d = tm_self_;                                  \
		T v;                                                     \
		if (__builtin_expect(d != NULL, 1)) {                    \
			if (d->flags & TM_TXD_PLAIN_READS)               \
				return *a;                               \
			if (__builtin_expect(POTM_SILO_FAST_(d, a, &v), 1)) \
				return v;                                \
		}                                                        \
		return tm_read##sfx##_spec_(a);                          \
	}
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

/* ---- guarded reads (the record store's B+-tree) ----------------------------
 * tm_read_guard_u64_(a, g) reads *a as tm_read_u64 does.  When it leaves
 * g->lock set, the caller may read words that no commit changes without
 * also writing *a (a B+-tree node's ranked slots, under its permutation
 * word) with plain loads, as long as tm_guard_holds_(g) is true after
 * them: *a's stripe word was then the same before the first and after the
 * last, so no commit that wrote *a overlapped them, and what they read is
 * the state the read of *a saw (tl2 and silo, whose writers lock every
 * stripe they write before storing any and release it with a new word;
 * the read set holds *a's stripe for the commit's validation).  If the
 * guard fails, read again through the TM.  Where a transaction's reads
 * are plain anyway the guard always holds; where the backend gives no
 * such word (and for a word the transaction wrote: its slots may be
 * buffered in the write set) g->lock is NULL and every read must go
 * through the TM. */
/* A word nobody writes: the guard of plain reads. */
static const volatile uintptr_t tm_guard_plain_ = 0;

POTM_ALWAYS_INLINE_ uint64_t tm_read_guard_u64_(const uint64_t *a, tm_guard_t *g)
{
#if defined(POTM_PLAIN_ACCESS)
	g->lock = &tm_guard_plain_;
	g->word = 0;
	return tm_read_u64(a);
#elif defined(POTM_GUARD_FAST_)
	tm_txd_t *d = tm_self_;
	uint64_t v;
	if (__builtin_expect(d != NULL, 1)) {
		if (d->flags & TM_TXD_PLAIN_READS) {
			g->lock = &tm_guard_plain_;
			g->word = 0;
			return *a;
		}
		if (__builtin_expect(POTM_GUARD_FAST_(d, a, &v, g), 1))
			return v;
	}
	g->lock = NULL;
	return tm_read_u64_spec_(a);
#else
	g->lock = NULL;
	return tm_read_u64(a);
#endif
}

/* After the plain loads: did the guard hold?  (Loads before the check
 * stay before it: the acquire fence.) */
POTM_ALWAYS_INLINE_ int tm_guard_holds_(const tm_guard_t *g)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(g->lock, __ATOMIC_RELAXED) == g->word;
}

/* ---- guarded ranges (the record store's guarded records) -------------------
 * tm_read_guarded_(dst, src, n, gw) copies the n bytes at src (8-byte
 * aligned, readable up to the next word boundary) to dst under a guard
 * on *gw, a word that every transaction changing any of those bytes also
 * writes: one read, one read-set entry and one check around the copy
 * instead of a check per stripe (Silo's read of a record under its TID
 * word).  Returns 1 when dst holds the transaction's view of the range:
 * the guard held, and the transaction wrote none of the range's words
 * (its writes wait in its write set, not in memory).  Returns 0
 * otherwise, dst undefined: read through the TM (tm_read_bytes), which
 * is always right.  Where reads are plain anyway (seq, the HTM backends)
 * it returns 0 too: tm_read_bytes is that plain copy, and counts its
 * accesses where they are counted. */
POTM_ALWAYS_INLINE_ int tm_read_guarded_(void *dst, const void *src, size_t n, const uint64_t *gw)
{
#if defined(POTM_GUARD_FAST_) && !defined(POTM_PLAIN_ACCESS)
	tm_guard_t g;
	(void)tm_read_guard_u64_(gw, &g);
	if (g.lock == NULL)
		return 0;
	const uint64_t *w = (const uint64_t *)src;
	size_t nw = (n + 7) / 8;
	const tm_wfilter_t *f = &tm_self_->snap.written;
	if (g.lock != &tm_guard_plain_ && f->used)
		for (size_t i = 0; i < nw; i++)
			if (__builtin_expect(tm_wfilter_test_(f, (uintptr_t)&w[i]), 0))
				return 0;
	unsigned char *d = (unsigned char *)dst;
	for (size_t i = 0; i + 1 < nw; i++) {
		uint64_t v = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
		__builtin_memcpy(d + 8 * i, &v, 8);
	}
	uint64_t last = __atomic_load_n(&w[nw - 1], __ATOMIC_RELAXED);
	__builtin_memcpy(d + 8 * (nw - 1), &last, n - 8 * (nw - 1));
	return tm_guard_holds_(&g);
#else
	(void)dst;
	(void)src;
	(void)n;
	(void)gw;
	return 0;
#endif
}

/* tm_read_bytes (tm.h): a plain copy where accesses are plain loads; the
 * library's otherwise. */
/* The accesses a range of n bytes at src counts as where accesses are
 * counted (pot, pot-rtm): those of byte reads up to the first word
 * boundary, word reads, byte reads after the last word, whether the
 * range is read that way or copied at once. */
static inline unsigned tm_bytes_accesses_(const void *src, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)src & 7);
	if (head > n)
		head = n;
	return (unsigned)(head + (n - head) / 8 + (n - head) % 8);
}

#ifdef POTM_PLAIN_ACCESS
static inline void tm_read_bytes(void *dst, const void *src, size_t n)
{
	POTM_CHECK_IN_TX_();
	POTM_COUNT_ACCESSES_(tm_bytes_accesses_(src, n));
	__builtin_memcpy(dst, src, n);
}
#else
void tm_read_bytes(void *dst, const void *src, size_t n);
#endif
/* tm_write_bytes (tm.h): a plain copy where writes are plain stores that
 * nothing logs (seq).  Where the typed writes are inline otherwise (rtm's
 * and pot-rtm's, logged on their software paths; pot's fast mode), the
 * naturally aligned pieces of the range through them: the library's
 * generic split (<potm/static/pieces.h>), so pot counts the same accesses
 * either way, without a call per piece.  The library's elsewhere (tl2,
 * silo: a range at once). */
/* A piece of a range through the typed write of its size (a constant
 * once tm_write_pieces_ is inlined, so the switch folds away): the inline
 * tm_write_bytes below and the library's generic one (lib/access_gen.h)
 * put their pieces through it. */
POTM_ALWAYS_INLINE_ void tm_put_piece_(void *ctx, void *a, unsigned size, uint64_t b)
{
	(void)ctx;
	switch (size) {
	case 8: { uint64_t v; __builtin_memcpy(&v, &b, 8); tm_write_u64((uint64_t *)a, v); } break;
	case 4: { uint32_t v; __builtin_memcpy(&v, &b, 4); tm_write_u32((uint32_t *)a, v); } break;
	case 2: { uint16_t v; __builtin_memcpy(&v, &b, 2); tm_write_u16((uint16_t *)a, v); } break;
	default: { uint8_t v; __builtin_memcpy(&v, &b, 1); tm_write_u8((uint8_t *)a, v); } break;
	}
}
#if defined(POTM_PLAIN_ACCESS) && !defined(POTM_BACKEND_RTM) && !defined(POTM_BACKEND_POT_RTM)
static inline void tm_write_bytes(void *dst, const void *src, size_t n)
{
	POTM_CHECK_WRITE_();
	__builtin_memcpy(dst, src, n);
}
#elif defined(POTM_INLINE_WRITES_)
static inline void tm_write_bytes(void *dst, const void *src, size_t n)
{
	tm_write_pieces_(dst, src, n, tm_put_piece_, NULL);
}
#else
void tm_write_bytes(void *dst, const void *src, size_t n);
#endif

/* Signed and char-typed views of the unsigned accesses, so that TM_LOAD
 * returns the pointee's own type.  These views and TM_LOAD's below are
 * always inline: a view is a cast, and left to the inliner, a view of a
 * long inline read (silo's) would become an out-of-line copy, a call per
 * read. */
#define POTM_VIEW_ POTM_ALWAYS_INLINE_
#define POTM_SIGNED_(T, U, sfx, usfx)                                    \
	POTM_VIEW_ T tm_read##sfx(const T *a)                            \
	{ return (T)tm_read##usfx((const U *)(const void *)a); }         \
	POTM_VIEW_ void tm_write##sfx(T *a, T v)                         \
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

/* TM_LOAD/TM_STORE's views of any other pointee, taken to be a pointer
 * (any T* stored in shared memory), and of _Bool. */
POTM_VIEW_ void *tm_load_ptr_(const void *a)
{
	return tm_read_ptr((const tm_ptr_t *)a);
}
POTM_VIEW_ void tm_store_ptr_(void *a, const void *v)
{
	tm_write_ptr((tm_ptr_t *)a, (tm_ptr_t)(uintptr_t)v);
}

POTM_VIEW_ _Bool tm_read_u8_bool_(const _Bool *a)
{
	return tm_read_u8((const uint8_t *)(const void *)a) != 0;
}
POTM_VIEW_ void tm_write_u8_bool_(_Bool *a, _Bool v)
{
	tm_write_u8((uint8_t *)(void *)a, (uint8_t)v);
}
#undef POTM_VIEW_

#endif /* POTM_STATIC_ACCESS_H */
