/*
 * stm/tl2.c — TL2 (Dice, Shalev, Shavit, DISC 2006), as in Figure 3.3a of
 * the Pot thesis.
 *
 *  - A global version clock and a table of versioned write-locks, one per
 *    address stripe.  A lock word holds version<<1 when free, and the
 *    address of the owner's write-set entry | 1 when taken.
 *  - Reads see the snapshot taken at begin (rv): a read is accepted only if
 *    its stripe is free and no newer than rv, checked before and after the
 *    load.  So a running transaction never sees an inconsistent state
 *    (opacity), even one that is doomed to abort.
 *  - Writes are deferred to a write set (bloom filter plus, for large sets,
 *    a hash index, for read-after-write).  Sub-word writes carry a byte
 *    mask, so write-back never touches the neighbouring bytes.
 *  - Commit: lock the write set, take wv = ++clock, validate the read set
 *    (skipped when nobody committed since rv), write back, release the locks
 *    with version wv.  A transaction that wrote nothing commits right away:
 *    its snapshot was consistent at rv.
 *  - Snapshot extension (POTM_EXTEND=1, the default; LSA/TinySTM style):
 *    a read that meets a version newer than rv first revalidates the read
 *    set and moves rv to the current clock, rather than aborting.
 *  - Contention management: abort, back off (randomized exponential),
 *    retry.  Every abort is counted under its cause.
 */
#include "potm_internal.h"

#include <stdlib.h>

typedef struct tl2_wentry {
	uintptr_t addr;            /* word-aligned address */
	tm_word_t val;             /* new bytes (only those in mask count) */
	tm_word_t mask;            /* 0xff in every byte written */
	volatile uintptr_t *lock;  /* its stripe's lock */
	uintptr_t prev;            /* lock word before we took it */
	bool owner;                /* this entry took the lock at commit */
} tl2_wentry_t;

typedef struct tl2_tx {
	potm_thread_t th;
	uint64_t rv;                   /* snapshot: clock value at begin */
	volatile uintptr_t **rs;       /* read set: locks of stripes read */
	size_t rs_n, rs_cap;
	tl2_wentry_t *ws;              /* write set */
	size_t ws_n, ws_cap;
	uint64_t bloom;                /* stripes possibly in ws */
	uint32_t *ws_index;            /* open addressing: entry index + 1 */
	unsigned ws_index_bits;
	bool ws_indexed;               /* index valid for this attempt */
} tl2_tx_t;

#define TL2_INDEX_FROM 32          /* write-set size where hashing beats scanning */
#define TL2_LOCKED_SPINS 64        /* how long to wait for a committer */

static struct {
	uint64_t clock POTM_ALIGNED;   /* the global version clock */
	volatile uintptr_t *locks POTM_ALIGNED;
	uintptr_t mask;
	unsigned shift;
} tl2;

static inline volatile uintptr_t *tl2_lock_of(const void *a)
{
	return &tl2.locks[((uintptr_t)a >> tl2.shift) & tl2.mask];
}

static inline uint64_t tl2_bloom_bit(uintptr_t word)
{
	return (uint64_t)1 << ((word >> 3) & 63);
}

static inline bool tl2_owns(const tl2_tx_t *tx, uintptr_t l)
{
	const tl2_wentry_t *e = (const tl2_wentry_t *)(l & ~(uintptr_t)1);
	return e >= tx->ws && e < tx->ws + tx->ws_n;
}

/* ---- read set ------------------------------------------------------------ */

static void tl2_rs_grow(tl2_tx_t *tx)
{
	tx->rs_cap = tx->rs_cap ? 2 * tx->rs_cap : 256;
	tx->rs = potm_xrealloc(tx->rs, tx->rs_cap * sizeof *tx->rs);
}

static inline void tl2_rs_add(tl2_tx_t *tx, volatile uintptr_t *lock)
{
	/* Consecutive reads of one stripe (fields of one object) log once. */
	if (tx->rs_n && tx->rs[tx->rs_n - 1] == lock)
		return;
	if (unlikely(tx->rs_n == tx->rs_cap))
		tl2_rs_grow(tx);
	tx->rs[tx->rs_n++] = lock;
}

/* Is every stripe read still at a version <= rv, and not locked by
 * another transaction?  (Locks we hold ourselves carry the old version in
 * our write-set entry.) */
static bool tl2_validate(const tl2_tx_t *tx)
{
	for (size_t i = 0; i < tx->rs_n; i++) {
		uintptr_t l = __atomic_load_n(tx->rs[i], __ATOMIC_ACQUIRE);
		if (l & 1) {
			if (!tl2_owns(tx, l))
				return false;
			l = ((const tl2_wentry_t *)(l & ~(uintptr_t)1))->prev;
		}
		if ((l >> 1) > tx->rv)
			return false;
	}
	return true;
}

/* ---- write set ------------------------------------------------------------ */

static inline uint32_t tl2_hash(uintptr_t word, unsigned bits)
{
	return (uint32_t)(((word >> 3) * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static void tl2_index_insert(tl2_tx_t *tx, size_t i)
{
	uint32_t m = (1u << tx->ws_index_bits) - 1;
	uint32_t h = tl2_hash(tx->ws[i].addr, tx->ws_index_bits);
	while (tx->ws_index[h])
		h = (h + 1) & m;
	tx->ws_index[h] = (uint32_t)i + 1;
}

static void tl2_index_build(tl2_tx_t *tx)
{
	unsigned bits = 6;
	while ((1ul << bits) < 2 * tx->ws_cap)
		bits++;
	if (bits > tx->ws_index_bits) {
		free(tx->ws_index);
		tx->ws_index = potm_xmalloc(sizeof(uint32_t) << bits);
		tx->ws_index_bits = bits;
	}
	memset(tx->ws_index, 0, sizeof(uint32_t) << tx->ws_index_bits);
	for (size_t i = 0; i < tx->ws_n; i++)
		tl2_index_insert(tx, i);
	tx->ws_indexed = true;
}

static tl2_wentry_t *tl2_ws_find(tl2_tx_t *tx, uintptr_t word)
{
	if (!tx->ws_indexed) {
		for (size_t i = tx->ws_n; i-- > 0;)
			if (tx->ws[i].addr == word)
				return &tx->ws[i];
		return NULL;
	}
	uint32_t m = (1u << tx->ws_index_bits) - 1;
	for (uint32_t h = tl2_hash(word, tx->ws_index_bits);; h = (h + 1) & m) {
		uint32_t s = tx->ws_index[h];
		if (s == 0)
			return NULL;
		if (tx->ws[s - 1].addr == word)
			return &tx->ws[s - 1];
	}
}

static tl2_wentry_t *tl2_ws_add(tl2_tx_t *tx, uintptr_t word)
{
	if (unlikely(tx->ws_n == tx->ws_cap)) {
		tx->ws_cap = tx->ws_cap ? 2 * tx->ws_cap : 64;
		tx->ws = potm_xrealloc(tx->ws, tx->ws_cap * sizeof *tx->ws);
		if (tx->ws_indexed)
			tl2_index_build(tx);
	}
	size_t i = tx->ws_n++;
	tl2_wentry_t *e = &tx->ws[i];
	e->addr = word;
	e->val = 0;
	e->mask = 0;
	e->lock = tl2_lock_of((const void *)word);
	e->owner = false;
	tx->bloom |= tl2_bloom_bit(word);
	if (tx->ws_indexed)
		tl2_index_insert(tx, i);
	else if (tx->ws_n == TL2_INDEX_FROM)
		tl2_index_build(tx);
	return e;
}

static inline tl2_wentry_t *tl2_ws_lookup(tl2_tx_t *tx, uintptr_t word)
{
	if (tx->bloom & tl2_bloom_bit(word))
		return tl2_ws_find(tx, word);
	return NULL;
}

static void tl2_reset_sets(tl2_tx_t *tx)
{
	POTM_STAT_ADD(&tx->th, reads, tx->rs_n);
	POTM_STAT_ADD(&tx->th, writes, tx->ws_n);
	tx->rs_n = 0;
	tx->ws_n = 0;
	tx->bloom = 0;
	tx->ws_indexed = false;
}

/* ---- aborts ------------------------------------------------------------- */

/* Release the locks taken so far (commit phase), restoring their versions. */
static void tl2_release_locks(tl2_tx_t *tx)
{
	for (size_t i = 0; i < tx->ws_n; i++) {
		tl2_wentry_t *e = &tx->ws[i];
		if (e->owner) {
			__atomic_store_n(e->lock, e->prev, __ATOMIC_RELEASE);
			e->owner = false;
		}
	}
}

static void tl2_abort(tl2_tx_t *tx, int cause) __attribute__((noreturn, noinline));
static void tl2_abort(tl2_tx_t *tx, int cause)
{
	tl2_release_locks(tx);
	tl2_reset_sets(tx);
	potm_tx_aborted(&tx->th, cause);
}

/* ---- reads ------------------------------------------------------------- */

/* Snapshot extension: if everything read so far is unchanged, the snapshot
 * is valid at the current clock too. */
static bool tl2_extend(tl2_tx_t *tx)
{
	if (!potm_cfg.extend)
		return false;
	uint64_t now = __atomic_load_n(&tl2.clock, __ATOMIC_ACQUIRE);
	if (!tl2_validate(tx))
		return false;
	tx->rv = now;
	POTM_STAT_INC(&tx->th, extensions);
	return true;
}

/* Load size bytes at a (naturally aligned, inside one word) consistently
 * with the snapshot, and log the stripe in the read set.  Returns the bytes
 * in memcpy order. */
static inline __attribute__((always_inline)) uint64_t tl2_load(tl2_tx_t *tx, const void *a, unsigned size)
{
	volatile uintptr_t *lock = tl2_lock_of(a);
	unsigned spins = 0;
	for (;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		uint64_t v;
		switch (size) {
		case 8: v = __atomic_load_n((const uint64_t *)a, __ATOMIC_RELAXED); break;
		case 4: v = 0; { uint32_t x = __atomic_load_n((const uint32_t *)a, __ATOMIC_RELAXED); memcpy(&v, &x, 4); } break;
		case 2: v = 0; { uint16_t x = __atomic_load_n((const uint16_t *)a, __ATOMIC_RELAXED); memcpy(&v, &x, 2); } break;
		default: v = 0; { uint8_t x = __atomic_load_n((const uint8_t *)a, __ATOMIC_RELAXED); memcpy(&v, &x, 1); } break;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (likely(l1 == l2 && !(l1 & 1))) {
			if (likely((l1 >> 1) <= tx->rv)) {
				tl2_rs_add(tx, lock);
				return v;
			}
			if (tl2_extend(tx))
				continue;
			tl2_abort(tx, TM_ABORT_READ_VERSION);
		}
		if ((l1 & 1) || (l2 & 1)) {
			/* A committer is writing back: it will be done shortly. */
			if (++spins > TL2_LOCKED_SPINS)
				tl2_abort(tx, TM_ABORT_READ_LOCKED);
			potm_cpu_relax();
		}
	}
}

tm_word_t tm_read(const tm_word_t *a)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_read");
	if (tx->ws_n) {
		tl2_wentry_t *e = tl2_ws_lookup(tx, (uintptr_t)a);
		if (e) {
			if (e->mask == ~(tm_word_t)0)
				return e->val;
			tm_word_t mem = tl2_load(tx, a, sizeof *a);
			return (mem & ~e->mask) | (e->val & e->mask);
		}
	}
	return tl2_load(tx, a, sizeof *a);
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_write");
	tl2_wentry_t *e = tl2_ws_lookup(tx, (uintptr_t)a);
	if (e == NULL)
		e = tl2_ws_add(tx, (uintptr_t)a);
	e->val = v;
	e->mask = ~(tm_word_t)0;
}

static inline uint64_t BACKEND_READ_BYTES(const void *a, unsigned size)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_read");
	uintptr_t word = (uintptr_t)a & ~(uintptr_t)7;
	unsigned off = (unsigned)((uintptr_t)a & 7);
	tl2_wentry_t *e = tx->ws_n ? tl2_ws_lookup(tx, word) : NULL;
	if (e == NULL)
		return tl2_load(tx, a, size);
	/* Written earlier in this transaction, perhaps only in part: take the
	 * written bytes from the entry and the others from memory. */
	uint64_t want = 0, have = 0, mine = 0;
	memset(&want, 0xff, size);
	memcpy(&have, (const char *)&e->mask + off, size);
	memcpy(&mine, (const char *)&e->val + off, size);
	if ((have & want) == want)
		return mine;
	uint64_t mem = tl2_load(tx, a, size);
	return (mem & ~have) | (mine & have);
}

static inline void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_write");
	uintptr_t word = (uintptr_t)a & ~(uintptr_t)7;
	unsigned off = (unsigned)((uintptr_t)a & 7);
	tl2_wentry_t *e = tl2_ws_lookup(tx, word);
	if (e == NULL)
		e = tl2_ws_add(tx, word);
	memcpy((char *)&e->val + off, &b, size);
	memset((char *)&e->mask + off, 0xff, size);
}

#include "access_gen.h"

/* ---- begin / commit ----------------------------------------------------- */

int tm_tx_start_(tm_txd_t *d)
{
	tl2_tx_t *tx = (tl2_tx_t *)d;
	switch (potm_tx_enter(&tx->th)) {
	case POTM_ENTER_SKIP:
		return 0;
	case POTM_ENTER_NEW:
		tx->rv = __atomic_load_n(&tl2.clock, __ATOMIC_ACQUIRE);
		break;
	case POTM_ENTER_NESTED:
		break;
	}
	return 1;
}

/* Write back one entry: whole words at once, partial words byte by byte so
 * that bytes this transaction did not write are never stored to. */
static inline void tl2_write_back(const tl2_wentry_t *e)
{
	if (likely(e->mask == ~(tm_word_t)0)) {
		__atomic_store_n((tm_word_t *)e->addr, e->val, __ATOMIC_RELAXED);
		return;
	}
	const unsigned char *m = (const unsigned char *)&e->mask;
	const unsigned char *v = (const unsigned char *)&e->val;
	for (unsigned i = 0; i < sizeof(tm_word_t); i++)
		if (m[i])
			__atomic_store_n((unsigned char *)e->addr + i, v[i], __ATOMIC_RELAXED);
}

static void tl2_commit(tl2_tx_t *tx)
{
	/* Lock the write set.  Several entries may share a stripe: the first
	 * takes the lock, the others find it ours. */
	for (size_t i = 0; i < tx->ws_n; i++) {
		tl2_wentry_t *e = &tx->ws[i];
		unsigned spins = 0;
		for (;;) {
			uintptr_t l = __atomic_load_n(e->lock, __ATOMIC_RELAXED);
			if (l & 1) {
				if (tl2_owns(tx, l))
					break;
				if (++spins > TL2_LOCKED_SPINS)
					tl2_abort(tx, TM_ABORT_WRITE_LOCKED);
				potm_cpu_relax();
				continue;
			}
			if (__atomic_compare_exchange_n(e->lock, &l, (uintptr_t)e | 1, false,
			                                __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				e->prev = l;
				e->owner = true;
				break;
			}
		}
	}
	uint64_t wv = __atomic_add_fetch(&tl2.clock, 1, __ATOMIC_ACQ_REL);
	/* If nobody committed since our snapshot, nothing we read can have
	 * changed. */
	if (wv != tx->rv + 1 && !tl2_validate(tx))
		tl2_abort(tx, TM_ABORT_VALIDATE);
	for (size_t i = 0; i < tx->ws_n; i++)
		tl2_write_back(&tx->ws[i]);
	uintptr_t released = (uintptr_t)wv << 1;
	for (size_t i = 0; i < tx->ws_n; i++)
		if (tx->ws[i].owner) {
			__atomic_store_n(tx->ws[i].lock, released, __ATOMIC_RELEASE);
			tx->ws[i].owner = false;
		}
}

void tm_tx_end_(tm_txd_t *d)
{
	tl2_tx_t *tx = (tl2_tx_t *)d;
	if (--d->depth > 0)
		return;
	d->depth = 1;   /* still inside: an abort below restarts it */
	bool ro = tx->ws_n == 0;
	if (!ro)
		tl2_commit(tx);
	tl2_reset_sets(tx);
	potm_tx_committed(&tx->th, ro);
}

void tm_restart(void)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_restart");
	tl2_abort(tx, TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_cancel");
	tl2_release_locks(tx);
	tl2_reset_sets(tx);
	potm_tx_cancelled(&tx->th);
}

/* ---- life cycle --------------------------------------------------------- */

static int tl2_init(const tm_config_t *cfg)
{
	size_t n = (size_t)1 << cfg->lock_bits;
	tl2.locks = calloc(n, sizeof(uintptr_t));
	if (tl2.locks == NULL)
		return potm_error("tl2: cannot allocate %zu locks (POTM_LOCK_BITS=%u)",
		                  n, cfg->lock_bits);
	tl2.mask = n - 1;
	tl2.shift = cfg->stripe_shift;
	tl2.clock = 0;
	return 0;
}

static void tl2_shutdown(void)
{
	free((void *)tl2.locks);
	tl2.locks = NULL;
}

static void tl2_thread_fini(potm_thread_t *t)
{
	tl2_tx_t *tx = (tl2_tx_t *)t;
	free(tx->rs);
	free(tx->ws);
	free(tx->ws_index);
}

const potm_backend_t potm_backend = {
	.name = "tl2",
	.thread_size = sizeof(tl2_tx_t),
	.init = tl2_init,
	.shutdown = tl2_shutdown,
	.thread_fini = tl2_thread_fini,
};
