/*
 * stm/tl2_sets.h — the read set and write set of a TL2-style transaction,
 * shared by stm/tl2.c and stm/pot.c (Pot's speculative transactions are
 * TL2 transactions whose commit waits for the turn).
 *
 * Read set: the stripe words (lock or version words) read, in order, to
 * be revalidated against the snapshot.  Write set: deferred writes, one
 * entry per 8-byte word, with a byte mask so that sub-word writes never
 * touch the neighbouring bytes at write-back.  Lookup for read-after-write
 * goes through a Bloom filter (tm.h's tm_wfilter_t: 1,024 bits, then the
 * index's 8 bits per slot), then a linear scan of small sets or an
 * open-addressing index once the set reaches TL2_SETS_INDEX_FROM (W1, W2
 * at tl2_ws_index_build).
 *
 * Private to the STM backends; everything here is static inline.
 */
#ifndef POTM_TL2_SETS_H
#define POTM_TL2_SETS_H

#include "potm_internal.h"

#include <stdlib.h>

#define TL2_SETS_INDEX_FROM 16   /* write-set size where hashing beats scanning */

typedef struct tl2_wentry {
	uintptr_t addr;            /* word-aligned address */
	tm_word_t val;             /* new bytes (only those in mask count) */
	tm_word_t mask;            /* 0xff in every byte written */
	/* TL2's commit-time locking; Pot's ordered commit takes no locks. */
	volatile uintptr_t *lock;  /* its stripe's lock, set when locking */
	uintptr_t prev;            /* lock word before we took it */
	bool owner;                /* this entry took the lock at commit */
	bool fresh;                /* silo: no snapshot reads the word's
	                              current bytes (tm_write_fresh) */
} tl2_wentry_t;

/* The read set is tm.h's tm_rset_t: tl2's inline reads append to it. */
typedef tm_rset_t tl2_rset_t;

typedef struct tl2_wset {
	tl2_wentry_t *e;
	size_t n, cap;
	tm_wfilter_t *written;     /* words possibly in the set: tl2's in its
	                              tm_snap_t (tm.h's inline reads test it),
	                              else written_own */
	tm_wfilter_t written_own;
	/* Large sets (TL2_SETS_INDEX_FROM entries and more): */
	uint64_t *index;           /* open addressing: a slot is in use when its
	                              high half is this attempt's index_tag,
	                              and its low half is then entry index + 1
	                              (W1 below) */
	uint64_t *filter;          /* the filter's bits, 8 per index slot (at
	                              most 1 in 32 set: few false hits): most
	                              reads of a long transaction are of words
	                              it did not write, and one bit answers
	                              them without probing (fewer bits per
	                              slot would send more of them to the
	                              probe) */
	unsigned index_bits;       /* slots in use: 1 << index_bits, at most a
	                              quarter full */
	unsigned index_alloc_bits; /* slots allocated */
	unsigned index_hint_bits;  /* the size recent large sets needed: a new
	                              index starts there (W2) */
	unsigned index_hint_misses;
	uint32_t index_tag;        /* this attempt's index, 0 before any */
	bool indexed;              /* index valid for this attempt */
	size_t room;               /* the entries tl2_ws_put_word may append
	                              inline (tl2_ws_set_room) */
	size_t last;               /* the entry last added or found: tested
	                              before the index, because a word read
	                              back is mostly the one just written
	                              (read-modify-write of one field, or
	                              of two fields sharing a word) */
} tl2_wset_t;

/* ---- plain stores of 1..8 bytes, value in memcpy order ----------------- */
/* (The loads are tm.h's tm_load_bytes_, shared with its inline reads.) */

static inline __attribute__((always_inline)) void tl2_store_bytes(void *a, unsigned size, uint64_t b)
{
	switch (size) {
	case 8: __atomic_store_n((uint64_t *)a, b, __ATOMIC_RELAXED); break;
	case 4: { uint32_t x; memcpy(&x, &b, 4); __atomic_store_n((uint32_t *)a, x, __ATOMIC_RELAXED); } break;
	case 2: { uint16_t x; memcpy(&x, &b, 2); __atomic_store_n((uint16_t *)a, x, __ATOMIC_RELAXED); } break;
	default: { uint8_t x; memcpy(&x, &b, 1); __atomic_store_n((uint8_t *)a, x, __ATOMIC_RELAXED); } break;
	}
}

/* ---- byte ranges: the copy of a stripe's part ---------------------------- */

/* Copy [src, src + n) with relaxed atomic loads of the naturally aligned
 * 1-, 2-, 4- and 8-byte pieces that tile it: no byte outside the range is
 * loaded (a record's last bytes may end its block, and the bytes around
 * it may be another thread's plain data).  A range of whole words (a
 * record's stripes) takes the word loop alone. */
static void tl2_copy_in(unsigned char *dst, const unsigned char *src, size_t n)
	__attribute__((noinline, unused));
static void tl2_copy_in(unsigned char *dst, const unsigned char *src, size_t n)
{
#define TL2_COPY_PIECE(T)                                                        \
	do {                                                                     \
		T v_ = __atomic_load_n((const T *)(const void *)src, __ATOMIC_RELAXED); \
		memcpy(dst, &v_, sizeof v_);                                     \
		dst += sizeof v_;                                                \
		src += sizeof v_;                                                \
		n -= sizeof v_;                                                  \
	} while (0)
	if (likely((((uintptr_t)src | n) & 7) == 0)) {
		while (n > 0)
			TL2_COPY_PIECE(uint64_t);
		return;
	}
	/* Up to the first word boundary; a piece that does not fit ends it
	 * early, and then what is left is shorter than that piece, which the
	 * tail below takes in smaller, still aligned pieces. */
	if (((uintptr_t)src & 1) && n >= 1)
		TL2_COPY_PIECE(uint8_t);
	if (((uintptr_t)src & 2) && n >= 2)
		TL2_COPY_PIECE(uint16_t);
	if (((uintptr_t)src & 4) && n >= 4)
		TL2_COPY_PIECE(uint32_t);
	while (n >= 8)
		TL2_COPY_PIECE(uint64_t);
	if (n & 4)
		TL2_COPY_PIECE(uint32_t);
	if (n & 2)
		TL2_COPY_PIECE(uint16_t);
	if (n & 1)
		TL2_COPY_PIECE(uint8_t);
#undef TL2_COPY_PIECE
}

/* ---- read set ------------------------------------------------------------ */

#define TL2_RS_INITIAL 256

/* Give the read set its first slots (at thread registration, so that the
 * e[-1] sentinel always exists). */
static inline void tl2_rs_init(tl2_rset_t *rs)
{
	const volatile uintptr_t **base = potm_xmalloc((TL2_RS_INITIAL + 1) * sizeof *base);
	base[0] = NULL;   /* the sentinel */
	rs->e = rs->next = base + 1;
	rs->cap = TL2_RS_INITIAL;
	rs->end = NULL;
}

static inline size_t tl2_rs_count(const tl2_rset_t *rs)
{
	return (size_t)(rs->next - rs->e);
}

/* Let tm.h's inline reads log (inside a transaction) or not. */
static inline void tl2_rs_open(tl2_rset_t *rs, bool open)
{
	rs->end = open ? rs->e + rs->cap : NULL;
}

static void tl2_rs_grow(tl2_rset_t *rs) __attribute__((noinline, unused));
static void tl2_rs_grow(tl2_rset_t *rs)
{
	size_t n = tl2_rs_count(rs);
	bool open = rs->end != NULL;
	rs->cap *= 2;
	const volatile uintptr_t **base = potm_xrealloc((void *)(rs->e - 1),
	                                                (rs->cap + 1) * sizeof *base);
	rs->e = base + 1;
	rs->next = rs->e + n;
	tl2_rs_open(rs, open);
}

static inline void tl2_rs_add(tl2_rset_t *rs, const volatile uintptr_t *word)
{
	/* Consecutive reads of one stripe (fields of one object) log once. */
	if (rs->next[-1] == word)
		return;
	if (unlikely(rs->next == rs->e + rs->cap))
		tl2_rs_grow(rs);
	*rs->next++ = word;
}

/* ---- write set ----------------------------------------------------------- */

/* The filter back to its small bits, empty. */
static inline void tl2_ws_filter_small(tm_wfilter_t *f)
{
	memset(f->small, 0, sizeof f->small);
	f->used = 0;
	f->bits = f->small;
	f->shift = TM_WFILTER_SMALL_SHIFT;
}

/* Use the filter at written (NULL: the set's own). */
static inline void tl2_ws_init(tl2_wset_t *ws, tm_wfilter_t *written)
{
	ws->written = written ? written : &ws->written_own;
	tl2_ws_filter_small(ws->written);
}

/* One multiplicative product per word serves the filter and the index:
 * the filter's bit is its top bits (tm.h's tm_wfilter_hash_), the
 * index's home slot the top index_bits of them, so that a write takes
 * one multiply for its filter test, its filter bit and its slot.  (A
 * large set's filter has 8 bits per slot: a word's bit lies in its home
 * slot's byte, and a false hit, at most 1 in 32, probes from a slot
 * that is in use.) */
static inline uint64_t tl2_ws_product(uintptr_t word)
{
	return (uint64_t)(word >> 3) * TM_WFILTER_MUL;
}

static inline uint32_t tl2_ws_slot(uint64_t p, unsigned bits)
{
	return (uint32_t)(p >> (64 - bits));
}

static inline bool tl2_ws_filter_has(const tm_wfilter_t *f, uint64_t p)
{
	uint64_t h = p >> f->shift;
	return (f->bits[h >> 6] >> (h & 63)) & 1;
}

static inline void tl2_ws_filter_put(tm_wfilter_t *f, uint64_t p)
{
	uint64_t h = p >> f->shift;
	f->bits[h >> 6] |= (uint64_t)1 << (h & 63);
	f->used = 1;
}

#define TL2_WS_FILTER_LOG_BITS 3   /* log2 of the filter's bits per slot */

static inline size_t tl2_ws_filter_words(unsigned index_bits)
{
	return ((size_t)1 << (index_bits + TL2_WS_FILTER_LOG_BITS)) / 64;
}

/* The index's invariants:
 *  W1 (tags, not clearing) A slot belongs to this attempt's index only if
 *     its high half is index_tag; every build takes a new tag, so the
 *     slots an earlier attempt (or an earlier, smaller build) filled read
 *     as empty without being cleared.  Tags never repeat before the whole
 *     index is cleared (the wrap to 0 clears it).
 *  W2 (size) An index is built when a set reaches TL2_SETS_INDEX_FROM
 *     entries, at once at the size recent large sets grew to (so that
 *     a transaction of the usual size builds once), and twice as large
 *     whenever it passes a quarter full.  The hint decays when sets stay
 *     smaller, so one huge transaction does not leave every later one a
 *     sparse index whose probes each touch a cache line of their own. */
#define TL2_WS_INDEX_MIN_BITS 6
#define TL2_WS_INDEX_HINT_MAX_BITS 12   /* a start no larger than 32 KB */
#define TL2_WS_INDEX_HINT_DECAY 16      /* smaller builds before it shrinks */

/* Entry i, whose word's product is p, into the index and its filter. */
static inline void tl2_ws_index_insert(tl2_wset_t *ws, size_t i, uint64_t p)
{
	uint32_t m = (1u << ws->index_bits) - 1;
	uint32_t h = tl2_ws_slot(p, ws->index_bits);
	while ((uint32_t)(ws->index[h] >> 32) == ws->index_tag)
		h = (h + 1) & m;
	ws->index[h] = (uint64_t)ws->index_tag << 32 | (uint32_t)(i + 1);
	tl2_ws_filter_put(ws->written, p);
}

/* W3 (room) room is the set's size from which tl2_ws_put_word's inline
 * append gives way to the general path: the array is full (n == cap),
 * or the next entry would build the index (unindexed: n + 1 ==
 * TL2_SETS_INDEX_FROM) or fill a built one past a quarter (indexed:
 * 4 (n + 1) > slots).  Kept whenever cap, indexed or index_bits change,
 * so that the append tests one bound instead of three. */
static inline void tl2_ws_set_room(tl2_wset_t *ws)
{
	size_t r = ws->indexed ? ((size_t)1 << ws->index_bits) / 4 : TL2_SETS_INDEX_FROM - 1;
	ws->room = r < ws->cap ? r : ws->cap;
}

/* (Re)build the index for the entries so far (W1, W2).  The filter's
 * bits are cleared: a set bit cannot be told from a stale one. */
static void tl2_ws_index_build(tl2_wset_t *ws) __attribute__((noinline, unused));
static void tl2_ws_index_build(tl2_wset_t *ws)
{
	unsigned bits = ws->indexed ? ws->index_bits + 1 : TL2_WS_INDEX_MIN_BITS;
	if (!ws->indexed && ws->index_hint_bits > bits)
		bits = ws->index_hint_bits;
	while ((1ul << bits) < 8 * ws->n)
		bits++;
	if (bits > ws->index_alloc_bits) {
		free(ws->index);
		free(ws->filter);
		ws->index = potm_xcalloc((size_t)1 << bits, sizeof *ws->index);   /* tag 0: empty */
		ws->filter = potm_xmalloc(tl2_ws_filter_words(bits) * sizeof(uint64_t));
		ws->index_alloc_bits = bits;
		ws->index_tag = 0;
	}
	if (++ws->index_tag == 0) {   /* wrapped: every tag may be in a slot */
		memset(ws->index, 0, sizeof(uint64_t) << ws->index_alloc_bits);
		ws->index_tag = 1;
	}
	ws->index_bits = bits;
	memset(ws->filter, 0, tl2_ws_filter_words(bits) * sizeof(uint64_t));
	ws->written->bits = ws->filter;
	ws->written->shift = 64 - (bits + TL2_WS_FILTER_LOG_BITS);
	for (size_t i = 0; i < ws->n; i++)
		tl2_ws_index_insert(ws, i, tl2_ws_product(ws->e[i].addr));
	ws->indexed = true;
	tl2_ws_set_room(ws);
}

/* At the end of an attempt that built an index: follow its size (W2). */
static inline void tl2_ws_index_hint(tl2_wset_t *ws)
{
	unsigned bits = ws->index_bits < TL2_WS_INDEX_HINT_MAX_BITS ? ws->index_bits
	                                                             : TL2_WS_INDEX_HINT_MAX_BITS;
	if (bits >= ws->index_hint_bits) {
		ws->index_hint_bits = bits;
		ws->index_hint_misses = 0;
	} else if (++ws->index_hint_misses == TL2_WS_INDEX_HINT_DECAY) {
		ws->index_hint_bits--;
		ws->index_hint_misses = 0;
	}
}

/* The hash index's half of tl2_ws_find (large write sets; the caller
 * has tested the filter). */
static tl2_wentry_t *tl2_ws_find_indexed(tl2_wset_t *ws, uintptr_t word, uint64_t p)
	__attribute__((noinline, unused));
static tl2_wentry_t *tl2_ws_find_indexed(tl2_wset_t *ws, uintptr_t word, uint64_t p)
{
	uint32_t m = (1u << ws->index_bits) - 1;
	for (uint32_t h = tl2_ws_slot(p, ws->index_bits);; h = (h + 1) & m) {
		uint64_t s = ws->index[h];
		if ((uint32_t)(s >> 32) != ws->index_tag)
			return NULL;
		tl2_wentry_t *e = &ws->e[(uint32_t)s - 1];
		if (e->addr == word)
			return e;
	}
}

static inline tl2_wentry_t *tl2_ws_find(tl2_wset_t *ws, uintptr_t word, uint64_t p)
{
	if (unlikely(ws->indexed)) {
		/* ws->last < ws->n: every add sets it before the index exists. */
		tl2_wentry_t *e = &ws->e[ws->last];
		if (e->addr == word)
			return e;
		e = tl2_ws_find_indexed(ws, word, p);
		if (e != NULL)
			ws->last = (size_t)(e - ws->e);
		return e;
	}
	for (size_t i = ws->n; i-- > 0;)
		if (ws->e[i].addr == word)
			return &ws->e[i];
	return NULL;
}

/* The entry of a word this transaction wrote (its product p), or NULL. */
static inline tl2_wentry_t *tl2_ws_lookup_p(tl2_wset_t *ws, uintptr_t word, uint64_t p)
{
	if (ws->n && tl2_ws_filter_has(ws->written, p))
		return tl2_ws_find(ws, word, p);
	return NULL;
}

/* The entry of a word this transaction wrote, or NULL (no product to
 * compute while the set is empty: the reads before a transaction's
 * first write). */
static inline tl2_wentry_t *tl2_ws_lookup(tl2_wset_t *ws, uintptr_t word)
{
	return ws->n ? tl2_ws_lookup_p(ws, word, tl2_ws_product(word)) : NULL;
}

/* The rare parts of adding an entry, out of line: growing the array, and
 * building the hash index of a large set (tl2_ws_index_build).  An entry
 * joins a built index inline: a large set's writes all take that path. */
static void tl2_ws_grow(tl2_wset_t *ws) __attribute__((noinline, unused));
static void tl2_ws_grow(tl2_wset_t *ws)
{
	ws->cap = ws->cap ? 2 * ws->cap : 64;
	ws->e = potm_xrealloc(ws->e, ws->cap * sizeof *ws->e);
	tl2_ws_set_room(ws);
}

/* The next entry (the set has room) for word, nothing written to it yet:
 * the set's new last.  Its filter bit or index slot is the caller's. */
static inline __attribute__((always_inline)) tl2_wentry_t *tl2_ws_take(tl2_wset_t *ws,
                                                                       uintptr_t word)
{
	size_t i = ws->n++;
	tl2_wentry_t *e = &ws->e[i];
	ws->last = i;
	e->addr = word;
	e->val = 0;
	e->mask = 0;
	e->owner = false;
	e->fresh = false;
	return e;
}

/* A new entry for word (its product p), not in the set. */
static inline __attribute__((always_inline)) tl2_wentry_t *tl2_ws_add_p(tl2_wset_t *ws,
                                                                        uintptr_t word,
                                                                        uint64_t p)
{
	if (unlikely(ws->n == ws->cap))
		tl2_ws_grow(ws);
	size_t i = ws->n;
	tl2_wentry_t *e = tl2_ws_take(ws, word);
	if (likely(!ws->indexed)) {
		tl2_ws_filter_put(ws->written, p);   /* else the index sets it */
		if (unlikely(ws->n == TL2_SETS_INDEX_FROM))
			tl2_ws_index_build(ws);
	} else if (likely(4 * ws->n <= ((size_t)1 << ws->index_bits))) {
		tl2_ws_index_insert(ws, i, p);
	} else {
		tl2_ws_index_build(ws);   /* a quarter full: twice the size */
	}
	return e;
}

static inline __attribute__((always_inline)) tl2_wentry_t *tl2_ws_add(tl2_wset_t *ws, uintptr_t word)
{
	return tl2_ws_add_p(ws, word, tl2_ws_product(word));
}

/* The entry of word, added if the set has none. */
static inline __attribute__((always_inline)) tl2_wentry_t *tl2_ws_entry(tl2_wset_t *ws,
                                                                        uintptr_t word)
{
	uint64_t p = tl2_ws_product(word);
	tl2_wentry_t *e = tl2_ws_lookup_p(ws, word, p);
	return e != NULL ? e : tl2_ws_add_p(ws, word, p);
}

/* What tl2_ws_put_word did with a whole-word write. */
enum tl2_ws_put {
	TL2_WS_PUT_SLOW,       /* nothing: the backend's general path's */
	TL2_WS_PUT_APPENDED,   /* a new entry: the stripe's bookkeeping is
	                          the caller's */
	TL2_WS_PUT_REWRITTEN   /* an entry the set had: its stripe's
	                          bookkeeping was done when it was added */
};

/* A whole-word write's common cases, for a backend's tm_write to run
 * without a frame.  A word the set has (the filter's hit, then the
 * entry found) takes the new value over all its bytes: a field written
 * again in one transaction (a B+-tree leaf's permutation word at every
 * insert into the leaf) costs a lookup, not the general path.  A new
 * word (the filter says so) is appended with its value when the set has
 * room, the entry builds no index (W2) and leaves the set below limit
 * (the backend's escalation size).  Anything else (a false hit of the
 * filter among them) changes nothing and returns TL2_WS_PUT_SLOW, for
 * the backend's general path (tl2_ws_put).  *entry, unless entry is
 * NULL, is then the word's entry. */
static inline __attribute__((always_inline)) enum tl2_ws_put
tl2_ws_put_word(tl2_wset_t *ws, uintptr_t word, uint64_t v, size_t limit, tl2_wentry_t **entry)
{
	size_t n = ws->n;
	uint64_t p = tl2_ws_product(word);
	if (n != 0 && tl2_ws_filter_has(ws->written, p)) {
		tl2_wentry_t *e = tl2_ws_find(ws, word, p);
		if (e == NULL)
			return TL2_WS_PUT_SLOW;
		e->val = v;
		e->mask = ~(tm_word_t)0;
		if (entry != NULL)
			*entry = e;
		return TL2_WS_PUT_REWRITTEN;
	}
	if (unlikely(n >= ws->room || n + 1 >= limit))   /* W3 */
		return TL2_WS_PUT_SLOW;
	tl2_wentry_t *e = tl2_ws_take(ws, word);
	e->val = v;
	e->mask = ~(tm_word_t)0;
	if (ws->indexed)
		tl2_ws_index_insert(ws, n, p);   /* sets the filter's bit */
	else
		tl2_ws_filter_put(ws->written, p);
	if (entry != NULL)
		*entry = e;
	return TL2_WS_PUT_APPENDED;
}

/* The bytes [off, off + size) of a word, as a mask in memcpy order: on a
 * little-endian machine (x86-64, ppc64le) byte i of memory is bits
 * 8i..8i+7 of the value, so shifts replace byte-wise copies, which cost a
 * store-forwarding stall each time the word is read back. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TL2_SETS_SHIFTS 1
static inline uint64_t tl2_byte_mask(unsigned off, unsigned size)
{
	uint64_t low = size >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
	return low << (8 * off);
}
#endif

/* Merge a write of size bytes at a into its word's entry e. */
static inline __attribute__((always_inline)) void tl2_ws_fill(tl2_wentry_t *e, void *a, unsigned size,
                                                              uint64_t b)
{
	unsigned off = (unsigned)((uintptr_t)a & 7);
#ifdef TL2_SETS_SHIFTS
	uint64_t m = tl2_byte_mask(off, size);
	e->val = (e->val & ~m) | ((b << (8 * off)) & m);
	e->mask |= m;
#else
	memcpy((char *)&e->val + off, &b, size);
	memset((char *)&e->mask + off, 0xff, size);
#endif
}

/* Buffer a write of size bytes at a (naturally aligned, inside one word). */
static inline __attribute__((always_inline)) void tl2_ws_put(tl2_wset_t *ws, void *a, unsigned size, uint64_t b)
{
	tl2_ws_fill(tl2_ws_entry(ws, (uintptr_t)a & ~(uintptr_t)7), a, size, b);
}

/* Buffer the n bytes at src (private, any alignment) as writes of
 * [a, a + n) (any alignment): one entry per word touched, each merged
 * under its byte mask, so the words around the range and the bytes of a
 * partial word outside it are never stored at write-back (tm.h).  What a
 * backend keeps per stripe (lock prefetch, stripe filter) is its caller's,
 * once per stripe rather than per word. */
static inline void tl2_ws_put_range(tl2_wset_t *ws, uintptr_t a, const unsigned char *src,
                                    size_t n)
{
	while (n > 0) {
		uintptr_t word = a & ~(uintptr_t)7;
		unsigned off = (unsigned)(a & 7);
		size_t len = 8 - off < n ? 8 - off : n;
		uint64_t v, m;
		if (likely(len == 8)) {
			memcpy(&v, src, 8);
			m = ~(uint64_t)0;
		} else {   /* the first or the last word of an unaligned range */
			v = 0;
			m = 0;
			memcpy((unsigned char *)&v + off, src, len);
			memset((unsigned char *)&m + off, 0xff, len);
		}
		tl2_wentry_t *e = tl2_ws_entry(ws, word);
		e->val = (e->val & ~m) | (v & m);
		e->mask |= m;
		a += len;
		src += len;
		n -= len;
	}
}

/* tl2_ws_put_range's effect, with the range's whole words through
 * tl2_ws_put_word's common cases (limit as there): a record's or a
 * column group's aligned words cost a filter test and an append each,
 * without the byte masks' merge.  The partial words at the ends, and a
 * word tl2_ws_put_word leaves, take tl2_ws_put_range. */
static inline void tl2_ws_put_bytes(tl2_wset_t *ws, uintptr_t a, const unsigned char *src,
                                    size_t n, size_t limit)
{
	size_t head = (size_t)(-a & 7);
	if (head > n)
		head = n;
	if (head != 0) {
		tl2_ws_put_range(ws, a, src, head);
		a += head;
		src += head;
		n -= head;
	}
	for (; n >= 8; a += 8, src += 8, n -= 8) {
		uint64_t v;
		memcpy(&v, src, 8);
		if (tl2_ws_put_word(ws, a, v, limit, NULL) == TL2_WS_PUT_SLOW)
			tl2_ws_put_range(ws, a, src, 8);
	}
	if (n != 0)
		tl2_ws_put_range(ws, a, src, n);
}

/* Lay the bytes of [src, src + n) that this transaction wrote over their
 * copy at dst (tm_read_bytes, for a stripe whose filter bit is set).  An
 * entry's value and mask are in memcpy order: byte i of them is byte i of
 * the word. */
static void tl2_ws_overlay(tl2_wset_t *ws, unsigned char *dst, const unsigned char *src, size_t n)
	__attribute__((unused));
static void tl2_ws_overlay(tl2_wset_t *ws, unsigned char *dst, const unsigned char *src, size_t n)
{
	uintptr_t lo = (uintptr_t)src, hi = lo + n;
	for (uintptr_t word = lo & ~(uintptr_t)7; word < hi; word += 8) {
		const tl2_wentry_t *e = tl2_ws_lookup(ws, word);
		if (e == NULL)
			continue;
		const unsigned char *val = (const unsigned char *)&e->val;
		const unsigned char *mask = (const unsigned char *)&e->mask;
		uintptr_t from = word > lo ? word : lo, to = word + 8 < hi ? word + 8 : hi;
		for (uintptr_t b = from; b < to; b++)
			if (mask[b - word])
				dst[b - lo] = val[b - word];
	}
}

/* Read-after-write.  The bytes of [a, a+size) that this transaction wrote
 * (into *mine, their mask into *have, both in memcpy order).  Returns true
 * if it wrote them all, so *mine is the value; otherwise the caller loads
 * memory and combines with tl2_merge_bytes. */
static inline bool tl2_ws_covers(const tl2_wentry_t *e, const void *a, unsigned size,
                                 uint64_t *mine, uint64_t *have)
{
	unsigned off = (unsigned)((uintptr_t)a & 7);
#ifdef TL2_SETS_SHIFTS
	uint64_t want = tl2_byte_mask(0, size);
	*have = (e->mask >> (8 * off)) & want;
	*mine = (e->val >> (8 * off)) & *have;
#else
	uint64_t want = 0;
	*have = 0;
	*mine = 0;
	memset(&want, 0xff, size);
	memcpy(have, (const char *)&e->mask + off, size);
	memcpy(mine, (const char *)&e->val + off, size);
#endif
	return (*have & want) == want;
}

static inline uint64_t tl2_merge_bytes(uint64_t mem, uint64_t mine, uint64_t have)
{
	return (mem & ~have) | (mine & have);
}

/* Store one entry in place: whole words at once, partial words by their
 * naturally aligned 4-, 2- and 1-byte pieces that were written, so that
 * bytes this transaction did not write are never stored to.  undo, if not
 * NULL, logs the old bytes first. */
static inline void tl2_ws_store_entry(const tl2_wentry_t *e, potm_undo_t *undo)
{
	if (likely(e->mask == ~(tm_word_t)0)) {
		if (undo)
			potm_undo_log(undo, (void *)e->addr, sizeof(tm_word_t));
		__atomic_store_n((tm_word_t *)e->addr, e->val, __ATOMIC_RELAXED);
		return;
	}
	const unsigned char *m = (const unsigned char *)&e->mask;
	for (unsigned i = 0; i < sizeof(tm_word_t);) {
		unsigned size = 4;
		while (size > 1 && (i % size || memcmp(m + i, "\xff\xff\xff\xff", size)))
			size /= 2;
		if (m[i]) {
			unsigned char *p = (unsigned char *)e->addr + i;
			uint64_t b = 0;
			memcpy(&b, (const unsigned char *)&e->val + i, size);
			if (undo)
				potm_undo_log(undo, p, size);
			tl2_store_bytes(p, size, b);
		}
		i += size;
	}
}

/* ---- in place: Pot's fast mode, tl2's irrevocable mode ------------------ */

/* Write in place as the only writer of shared memory: mark the stripe
 * word (if stripe is not NULL; tm_stripe_mark_'s release fence orders the
 * mark before the store), log the old bytes for a rollback, store. */
static inline void tl2_write_in_place(potm_undo_t *undo, volatile uintptr_t *stripe,
                                      uintptr_t mark, void *a, unsigned size, uint64_t b)
{
	if (stripe)
		tm_stripe_mark_(stripe, mark);
	potm_undo_log(undo, a, size);
	tl2_store_bytes(a, size, b);
}

/* Pot's live promotion and tl2's escalation: apply a validated write set
 * in place, as the only writer.  Every stripe is marked first (one release fence
 * each), so no reader can accept a stored value before the commit
 * unmarks it; then the entries are stored, their old bytes logged. */
static void tl2_ws_apply_in_place(const tl2_wset_t *ws, potm_undo_t *undo,
                                  volatile uintptr_t *stripes, uintptr_t mask,
                                  unsigned shift, uintptr_t mark) __attribute__((unused));
static void tl2_ws_apply_in_place(const tl2_wset_t *ws, potm_undo_t *undo,
                                  volatile uintptr_t *stripes, uintptr_t mask,
                                  unsigned shift, uintptr_t mark)
{
	for (size_t i = 0; i < ws->n; i++)
		tm_stripe_mark_(&stripes[(ws->e[i].addr >> shift) & mask], mark);
	for (size_t i = 0; i < ws->n; i++)
		tl2_ws_store_entry(&ws->e[i], undo);
}

/* Give every stripe written in place (the undo log's entries) the word
 * version << 1, after all the stores (release fence). */
static void tl2_unmark_logged(const potm_undo_t *undo, volatile uintptr_t *stripes,
                              uintptr_t mask, unsigned shift, uint64_t version)
	__attribute__((unused));
static void tl2_unmark_logged(const potm_undo_t *undo, volatile uintptr_t *stripes,
                              uintptr_t mask, unsigned shift, uint64_t version)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	uintptr_t word = (uintptr_t)version << 1;
	volatile uintptr_t *last = NULL;   /* fields of one object: one store */
	for (const potm_undo_entry_t *e = undo->e; e < undo->next; e++) {
		volatile uintptr_t *s = &stripes[((uintptr_t)potm_undo_addr(e) >> shift) & mask];
		if (s != last)
			__atomic_store_n(s, word, __ATOMIC_RELAXED);
		last = s;
	}
}

/* End of an attempt: count the sets and empty them (their memory stays). */
static inline void tl2_sets_reset(potm_thread_t *th, tl2_rset_t *rs, tl2_wset_t *ws)
{
	POTM_STAT_ADD(th, reads, tl2_rs_count(rs));
	POTM_STAT_ADD(th, writes, ws->n);
	rs->next = rs->e;
	tl2_rs_open(rs, false);
	if (ws->n)
		tl2_ws_filter_small(ws->written);
	if (ws->indexed) {
		tl2_ws_index_hint(ws);
		ws->indexed = false;
		tl2_ws_set_room(ws);
	}
	ws->n = 0;
}

static inline void tl2_sets_free(tl2_rset_t *rs, tl2_wset_t *ws)
{
	if (rs->e)
		free((void *)(rs->e - 1));
	free(ws->e);
	free(ws->index);
	free(ws->filter);
	rs->e = rs->next = rs->end = NULL;
	ws->e = NULL;
	ws->index = NULL;
	ws->filter = NULL;
	ws->index_alloc_bits = 0;
	ws->index_tag = 0;
	ws->cap = 0;
	ws->room = 0;
}

#endif /* POTM_TL2_SETS_H */
