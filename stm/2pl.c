/*
 * stm/2pl.c — strict two-phase locking on stripes, the thesis's
 * pessimistic baseline, with LSD's condition locking (Vale's thesis,
 * section 4.3, Figures 4.5 and 4.6).  The backend's name is "2pl"; C
 * names carry the prefix tpl_.
 *
 *  - Lock table: one 64-bit lock word per address stripe, the geometry of
 *    tl2's (POTM_LOCK_BITS, POTM_STRIPE_SHIFT).  A word holds the counts
 *    of readers (R), condition holders (C) and write-function holders
 *    (F), the owner (logical id + 1) of an exclusive lock, a bit saying
 *    that the owner holds it as a write-value lock (V) rather than a
 *    write lock (W), and the waiter mark (below).
 *  - Encounter-time locking: a read takes its stripe shared (R), a write
 *    exclusive (W), a reader alone on its stripe upgrades in place.  Every
 *    lock is held until the commit or abort (strict 2PL).  Opacity holds
 *    because every read is locked: nothing a running transaction has read
 *    can change before it ends, even if it will abort.
 *  - Writes go in place, logged in the undo log (th.txd.undo) that
 *    rollback replays: a read after a write is a plain load (no write-set
 *    lookup, no write-back at commit), and an exclusive lock already keeps
 *    everyone else away from the bytes.  A buffer would buy nothing that
 *    the lock does not.
 *  - Each thread keeps the stripes it holds, with its modes on each, in a
 *    lock set (an array, and a hash over it reset by epoch): its own
 *    counts are told apart from the others' when a request is decided,
 *    and the commit or abort releases exactly them, one atomic
 *    subtraction per stripe.
 *
 * Lock modes (requester's row against what others hold; Figure 4.5 with
 * F, the lazy write's lock before commit, added):
 *
 *         | R  C  F  W  V
 *      ---+---------------
 *       R | y  y  y  -  -      a read
 *       C | y  y  y  -  -      condition lock: a read lock that lsd_is_true
 *       F | y  y  y  -  -      downgrades once its answer is published;
 *       W | -  -  -  -  -      write-function lock (lsd_write)
 *       V | -  c  y  -  -      write-value lock: F converted at the commit
 *
 *   c: granted, then every condition held by another transaction on the
 *   stripe is evaluated with the writer's new values; the writer goes on
 *   only if each still gives the answer its holder got, else it waits or
 *   dies as for any conflict (thesis: W(v : c(v)) against R(p)).
 *
 * Deadlock policy: wait-die on start timestamps.  A transaction takes a
 * timestamp from a global counter at its first attempt and keeps it across
 * retries, until it commits or cancels.  A request that meets an
 * incompatible lock spins briefly (TPL_SPINS), then:
 *   D1 (known owner) blocked by an exclusive owner (W or V) or by a
 *      condition of a known thread: it waits if it is older, else dies.
 *   D2 (shared holders) blocked by counts (R, C, F: the holders are not
 *      named): it waits only if no running transaction is older than it
 *      (it is the oldest), else dies.  Waiting, the oldest sets the
 *      stripe's waiter mark, which every younger request on the stripe
 *      treats as a conflict (D2), so a stream of new readers cannot keep a
 *      writer out.
 * Every waits-for edge thus goes from an older transaction to a younger
 * one: no cycle, no deadlock.  A waiter re-decides as it spins (its view
 * of the oldest may lag a timestamp published late), so a transient wrong
 * decision ends in a die.  Starvation freedom: the oldest transaction
 * never dies on a conflict; what it waits for is held by younger
 * transactions, which never wait for it and each finish or die in bounded
 * time; the mark keeps newcomers off its stripe; so it commits.  Every
 * transaction becomes the oldest, since later ones take larger
 * timestamps.  (tm_restart and tm_cancel are the program's, not the
 * policy's.)
 *
 * Abort causes (include/potm/stats.h): read_locked (a read, a condition's
 * read or a future's read at the commit died), write_locked (a write, a
 * lazy write's F or its conversion to V died), condition (a write-value
 * lock would break a condition another transaction holds, and the writer
 * is the younger), explicit (tm_restart).
 *
 * LSD-aware 2PL with condition locking (<potm/lsd.h>, lib/lsd.c keeps
 * the futures, conditions and lazy writes):
 *  C1 (futures) lsd_read makes a future and locks nothing.  A future
 *     means its word's value before the transaction's own writes (L2):
 *     with writes in place, read under a lock, with the undo log's older
 *     bytes laid over the memory of a stripe the transaction wrote
 *     (tpl_pre_state).  lsd_value reads it as tm_read would (R).
 *  C2 (condition locks) lsd_is_true reads each future its condition
 *     reaches under R (peek; R already held or W serves as is), so the
 *     words cannot change while it evaluates.  The condition, compiled
 *     with its answer (potm_lsd_cond_compile), is published in the
 *     thread's condition list, then each R taken for it is downgraded to
 *     C in one atomic step (or dropped where C is held already).  A
 *     condition too long for the list keeps its R locks.
 *  C3 (publication) A thread's list is appended during an attempt and
 *     withdrawn at its end; gen changes at every withdrawal (a seqlock).
 *     A record a writer reads between two equal gens is one the thread
 *     published in the attempt under way.  A record is published before
 *     the C lock it belongs to is taken, so a writer whose V request
 *     counts a foreign C finds its record.
 *  C4 (write-function locks) lsd_write takes F on the word's stripe (W
 *     already held serves).  F keeps out W and V of others, not reads,
 *     conditions or other F, so conditional decrements of one hot counter
 *     run side by side.
 *  C5 (write-value locks) At the commit the transaction converts each F
 *     to V (waiting for foreign R to leave, D2), reads its futures under
 *     locks (potm_lsd_settle: conditions, then lazy writes evaluated, in
 *     program order, on the locked values), then, for every V stripe that
 *     others hold C on, scans the other threads' lists for conditions
 *     over the stripe and evaluates each with its new values put in the
 *     place of the old (tpl_peer_read).  A condition whose answer would
 *     change is a conflict with its holder (D1); so is a word it reads
 *     that another transaction holds W or V on, or a future its holder
 *     did not read.  Only when every condition still holds are the values
 *     stored.  A store never precedes its writer's check, so two writers
 *     that check the same condition over different words see each other's
 *     V (each takes its V, then reads the other's lock word: one of them
 *     sees the other) and the later one waits or dies: no write skew.
 *  C6 (own conditions) A transaction's own conditions are not checked
 *     against its writes: they are about its futures, the values before
 *     its writes, which its locks keep.  At its commit potm_lsd_settle
 *     finds them true again.
 */
#include "potm_internal.h"

#include <stdlib.h>

/* ---- lock words -------------------------------------------------------- */

#define TPL_FIELD_BITS 13                  /* counts and ids up to 8,191 */
#define TPL_FIELD ((UINT64_C(1) << TPL_FIELD_BITS) - 1)
#define TPL_R_SHIFT 0
#define TPL_C_SHIFT 13
#define TPL_F_SHIFT 26
#define TPL_OWNER_SHIFT 39
#define TPL_R_ONE (UINT64_C(1) << TPL_R_SHIFT)
#define TPL_C_ONE (UINT64_C(1) << TPL_C_SHIFT)
#define TPL_F_ONE (UINT64_C(1) << TPL_F_SHIFT)
#define TPL_V_BIT (UINT64_C(1) << 52)      /* the owner's lock is V, not W */
#define TPL_MARK (UINT64_C(1) << 53)       /* the oldest transaction waits here (D2) */
_Static_assert(4096 < TPL_FIELD, "POTM_MAX_THREADS must fit a lock word's fields");

static inline unsigned tpl_count(uint64_t w, unsigned shift)
{
	return (unsigned)((w >> shift) & TPL_FIELD);
}

static inline unsigned tpl_owner(uint64_t w)
{
	return tpl_count(w, TPL_OWNER_SHIFT);   /* logical id + 1, 0: none */
}

/* Modes a transaction holds on a stripe (its lock-set entry). */
enum {
	TPL_M_R = 1,
	TPL_M_C = 2,
	TPL_M_F = 4,
	TPL_M_W = 8,
	TPL_M_V = 16,
	TPL_M_PEEK = 32,   /* this R was taken by lsd_is_true's reads (C2) */
};

/* Brief spinning before a request decides to wait or die; yields within. */
#define TPL_SPINS 256
#define TPL_YIELD_EVERY 64

/* ---- lock set --------------------------------------------------------- */

typedef struct tpl_entry {
	uint32_t stripe;
	uint8_t modes;
} tpl_entry_t;

/* The stripes held: entries e[0, n), and a hash of slots holding
 * epoch << 32 | index; a slot of another epoch is empty, so the reset
 * at each attempt's end is epoch++. */
typedef struct tpl_lset {
	tpl_entry_t *e;
	uint32_t n, cap;
	uint64_t *slots;
	unsigned bits;
	uint32_t epoch;
} tpl_lset_t;

/* ---- published conditions (C2, C3) --------------------------------------- */

#define TPL_PUB_RECS 64
#define TPL_PUB_INSNS 1024
#define TPL_INSN_WORDS (sizeof(potm_lsd_insn_t) / sizeof(uint64_t))
_Static_assert(sizeof(potm_lsd_insn_t) % sizeof(uint64_t) == 0, "instructions copy by words");

typedef struct tpl_rec {
	uint32_t first, len, answer;
} tpl_rec_t;

/* One per logical id, allocated at its first condition lock and kept
 * until tm_shutdown (writers may read it while its thread exits). */
typedef struct tpl_pub {
	uint64_t gen POTM_ALIGNED;     /* changes when the list is withdrawn */
	uint32_t n_rec;                /* records published (release) */
	uint32_t n_insn;               /* owner only: instructions used */
	tpl_rec_t rec[TPL_PUB_RECS];
	uint64_t insn[TPL_PUB_INSNS * TPL_INSN_WORDS];
} tpl_pub_t;

/* A lazy write's value, kept until the commit's checks pass (C5). */
typedef struct tpl_put {
	void *addr;
	uint64_t bytes;
	unsigned size;
} tpl_put_t;

typedef struct tpl_tx {
	potm_thread_t th;
	tpl_lset_t ls;
	uint64_t ts;                   /* start timestamp, kept across retries */
	uint64_t reads;                /* this attempt's instrumented reads */
	uint32_t *peeked;              /* stripes R-locked by the condition
	                                  being evaluated (C2) */
	uint32_t n_peeked, cap_peeked;
	uint32_t lazy_writes;          /* lsd_write's F requests this attempt */
	tpl_put_t *puts;               /* the commit's lazy writes */
	uint32_t n_puts, cap_puts;
	uint32_t wait_stripe;          /* the stripe this thread marked (D2) */
	bool marking;
	unsigned conflict;             /* tpl_peer_read: id + 1 of a blocking owner */
	tpl_pub_t *pub;
	potm_lsd_insn_t prog[POTM_LSD_PROGRAM_MAX];
} tpl_tx_t;

static struct {
	volatile uint64_t *locks POTM_ALIGNED;
	uint64_t mask;
	unsigned shift;
	uint64_t clock POTM_ALIGNED;   /* start timestamps */
	unsigned hi POTM_ALIGNED;      /* logical ids below it may run */
	uint64_t *ts;                  /* running transaction's timestamp by
	                                  logical id (a line each), 0: none */
	tpl_pub_t **pub;               /* condition lists by logical id */
	unsigned max_threads;
} tpl;

#define TPL_TS_STRIDE (POTM_CACHELINE / sizeof(uint64_t))

static inline volatile uint64_t *tpl_ts_of(unsigned id)
{
	return &tpl.ts[(size_t)id * TPL_TS_STRIDE];
}

static inline uint32_t tpl_stripe(const void *a)
{
	return (uint32_t)(((uintptr_t)a >> tpl.shift) & tpl.mask);
}

static inline uint64_t tpl_me(const tpl_tx_t *tx)
{
	return (uint64_t)(tx->th.id + 1);
}

/* ---- lock set ----------------------------------------------------------- */

static inline uint32_t tpl_hash(uint32_t stripe, unsigned bits)
{
	return (uint32_t)((stripe * UINT32_C(0x9e3779b1)) >> (32 - bits));
}

static inline tpl_entry_t *tpl_lookup(tpl_lset_t *ls, uint32_t stripe)
{
	uint32_t m = (UINT32_C(1) << ls->bits) - 1;
	for (uint32_t h = tpl_hash(stripe, ls->bits);; h = (h + 1) & m) {
		uint64_t s = ls->slots[h];
		if ((uint32_t)(s >> 32) != ls->epoch)
			return NULL;
		tpl_entry_t *e = &ls->e[(uint32_t)s];
		if (e->stripe == stripe)
			return e;
	}
}

static void tpl_lset_slot(tpl_lset_t *ls, uint32_t i)
{
	uint32_t m = (UINT32_C(1) << ls->bits) - 1;
	uint32_t h = tpl_hash(ls->e[i].stripe, ls->bits);
	while ((uint32_t)(ls->slots[h] >> 32) == ls->epoch)
		h = (h + 1) & m;
	ls->slots[h] = (uint64_t)ls->epoch << 32 | i;
}

static void tpl_lset_init(tpl_lset_t *ls)
{
	ls->cap = 64;
	ls->e = potm_xmalloc(ls->cap * sizeof *ls->e);
	ls->bits = 8;
	ls->slots = potm_xcalloc((size_t)1 << ls->bits, sizeof *ls->slots);
	ls->epoch = 1;
	ls->n = 0;
}

static void tpl_lset_free(tpl_lset_t *ls)
{
	free(ls->e);
	free(ls->slots);
	ls->e = NULL;
	ls->slots = NULL;
}

/* A new entry for stripe (not in the set), holding nothing yet; keeps the
 * hash at most half full. */
static tpl_entry_t *tpl_lset_add(tpl_lset_t *ls, uint32_t stripe)
{
	if (ls->n == ls->cap) {
		ls->cap *= 2;
		ls->e = potm_xrealloc(ls->e, ls->cap * sizeof *ls->e);
	}
	if (2 * (ls->n + 1) > (UINT32_C(1) << ls->bits)) {
		free(ls->slots);
		ls->bits++;
		ls->slots = potm_xcalloc((size_t)1 << ls->bits, sizeof *ls->slots);
		for (uint32_t i = 0; i < ls->n; i++)
			tpl_lset_slot(ls, i);
	}
	uint32_t i = ls->n++;
	ls->e[i] = (tpl_entry_t){ .stripe = stripe, .modes = 0 };
	tpl_lset_slot(ls, i);
	return &ls->e[i];
}

static void tpl_lset_reset(tpl_lset_t *ls)
{
	ls->n = 0;
	if (++ls->epoch == 0) {
		memset(ls->slots, 0, sizeof(uint64_t) << ls->bits);
		ls->epoch = 1;
	}
}

/* What the modes contribute to a lock word. */
static inline uint64_t tpl_share(const tpl_tx_t *tx, unsigned modes)
{
	uint64_t w = 0;
	if (modes & TPL_M_R)
		w += TPL_R_ONE;
	if (modes & TPL_M_C)
		w += TPL_C_ONE;
	if (modes & TPL_M_F)
		w += TPL_F_ONE;
	if (modes & (TPL_M_W | TPL_M_V))
		w += tpl_me(tx) << TPL_OWNER_SHIFT;
	if (modes & TPL_M_V)
		w += TPL_V_BIT;
	return w;
}

/* ---- wait-die (D1, D2) ---------------------------------------------------- */

/* D2: no running transaction started before this one.  (A timestamp
 * published late is seen at a later call: waiters ask again.) */
static bool tpl_oldest(const tpl_tx_t *tx)
{
	unsigned hi = __atomic_load_n(&tpl.hi, __ATOMIC_ACQUIRE);
	for (unsigned id = 0; id < hi; id++) {
		uint64_t t = __atomic_load_n(tpl_ts_of(id), __ATOMIC_SEQ_CST);
		if (t != 0 && t < tx->ts)
			return false;
	}
	return true;
}

/* D1: older than the transaction thread owner - 1 runs (or that one is
 * over: then the caller looks again). */
static bool tpl_older_than(const tpl_tx_t *tx, unsigned owner)
{
	uint64_t t = __atomic_load_n(tpl_ts_of(owner - 1), __ATOMIC_SEQ_CST);
	return t == 0 || tx->ts < t;
}

static void tpl_abort(tpl_tx_t *tx, int cause) __attribute__((noreturn, noinline));

/* A request blocked by owner (id + 1, 0 if none) and, with shared, by
 * unnamed holders: spin a little, then wait (return, the caller asks
 * again) if the policy lets it, else die with cause. */
static void tpl_blocked(tpl_tx_t *tx, unsigned owner, bool shared, unsigned *spins,
                        uint32_t stripe, int cause)
{
	unsigned n = ++*spins;
	if (n % TPL_YIELD_EVERY == 0)
		sched_yield();
	else
		potm_cpu_relax();
	if (n < TPL_SPINS || n % TPL_YIELD_EVERY != 0)
		return;
	bool wait = shared ? tpl_oldest(tx) : tpl_older_than(tx, owner);
	if (!wait)
		tpl_abort(tx, cause);
	if (shared && !tx->marking) {
		uint64_t w = __atomic_load_n(&tpl.locks[stripe], __ATOMIC_RELAXED);
		if (!(w & TPL_MARK) &&
		    __atomic_compare_exchange_n(&tpl.locks[stripe], &w, w | TPL_MARK, false,
		                                __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			tx->marking = true;
			tx->wait_stripe = stripe;
		}
	}
}

/* Take mode want (R, F, W or V) on stripe, e its entry or NULL; returns
 * the entry.  Own modes never conflict; the table above decides. */
static tpl_entry_t *tpl_acquire(tpl_tx_t *tx, uint32_t stripe, tpl_entry_t *e, unsigned want,
                                int cause)
{
	volatile uint64_t *lock = &tpl.locks[stripe];
	unsigned mine = e ? e->modes : 0;
	unsigned self = tx->th.id + 1;
	uint64_t add = tpl_share(tx, mine | want) - tpl_share(tx, mine);
	if (want == TPL_M_V && (mine & TPL_M_W))
		return e;
	if (want == TPL_M_W && (mine & TPL_M_V))
		add -= TPL_V_BIT;   /* (V is only taken at the commit; kept general) */
	for (unsigned spins = 0;;) {
		uint64_t w = __atomic_load_n(lock, __ATOMIC_SEQ_CST);
		unsigned owner = tpl_owner(w);
		unsigned r = tpl_count(w, TPL_R_SHIFT) - !!(mine & TPL_M_R);
		unsigned c = tpl_count(w, TPL_C_SHIFT) - !!(mine & TPL_M_C);
		unsigned f = tpl_count(w, TPL_F_SHIFT) - !!(mine & TPL_M_F);
		bool mine_mark = tx->marking && tx->wait_stripe == stripe;
		bool foreign = owner != 0 && owner != self;
		bool shared = (w & TPL_MARK) && !mine_mark;
		if (want == TPL_M_W)
			shared = shared || r || c || f;
		else if (want == TPL_M_V)
			shared = shared || r;
		if (foreign || shared) {
			tpl_blocked(tx, foreign ? owner : 0, shared, &spins, stripe, cause);
			continue;
		}
		uint64_t nw = w + add;
		if (mine_mark)
			nw &= ~TPL_MARK;
		if (__atomic_compare_exchange_n(lock, &w, nw, false, __ATOMIC_SEQ_CST,
		                                __ATOMIC_RELAXED)) {
			if (mine_mark)
				tx->marking = false;
			if (e == NULL)
				e = tpl_lset_add(&tx->ls, stripe);
			e->modes = (uint8_t)(e->modes | want);
			if (want == TPL_M_W)
				e->modes &= (uint8_t)~TPL_M_V;
			return e;
		}
	}
}

/* ---- attempt end ------------------------------------------------------------ */

/* C3: withdraw the published conditions (before the C locks go). */
static void tpl_unpublish(tpl_tx_t *tx)
{
	tpl_pub_t *p = tx->pub;
	if (p == NULL || (p->n_rec == 0 && p->n_insn == 0))
		return;
	__atomic_store_n(&p->gen, p->gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);   /* gen before the next records */
	__atomic_store_n(&p->n_rec, 0, __ATOMIC_RELAXED);
	p->n_insn = 0;
}

/* Release every lock of the set, after the last access (release). */
static void tpl_release_all(tpl_tx_t *tx)
{
	tpl_lset_t *ls = &tx->ls;
	for (uint32_t i = 0; i < ls->n; i++) {
		uint64_t d = tpl_share(tx, ls->e[i].modes);
		if (d)
			__atomic_fetch_sub(&tpl.locks[ls->e[i].stripe], d, __ATOMIC_RELEASE);
	}
	if (tx->marking) {
		__atomic_fetch_and(&tpl.locks[tx->wait_stripe], ~TPL_MARK, __ATOMIC_RELEASE);
		tx->marking = false;
	}
	tpl_lset_reset(ls);
	tx->n_peeked = 0;
	tx->lazy_writes = 0;
	tx->n_puts = 0;
}

static void tpl_attempt_over(tpl_tx_t *tx)
{
	tpl_unpublish(tx);
	tpl_release_all(tx);
	POTM_STAT_ADD(&tx->th, reads, tx->reads);
	tx->reads = 0;
}

/* The transaction is over (committed or cancelled): its timestamp goes. */
static void tpl_tx_over(tpl_tx_t *tx)
{
	tx->ts = 0;
	__atomic_store_n(tpl_ts_of(tx->th.id), 0, __ATOMIC_RELEASE);
}

static void tpl_abort(tpl_tx_t *tx, int cause)
{
	potm_undo_rollback(&tx->th.txd.undo);   /* under the W locks still */
	tpl_attempt_over(tx);
	potm_tx_aborted(&tx->th, cause);
}

/* ---- accesses ---------------------------------------------------------------- */

static inline __attribute__((always_inline)) void tpl_lock_read(tpl_tx_t *tx, const void *a)
{
	uint32_t s = tpl_stripe(a);
	tpl_entry_t *e = tpl_lookup(&tx->ls, s);
	tx->reads++;
	if (likely(e != NULL && (e->modes & (TPL_M_R | TPL_M_W | TPL_M_V))))
		return;
	tpl_acquire(tx, s, e, TPL_M_R, TM_ABORT_READ_LOCKED);
}

static inline __attribute__((always_inline)) void tpl_lock_write(tpl_tx_t *tx, void *a,
                                                                 unsigned size)
{
	uint32_t s = tpl_stripe(a);
	tpl_entry_t *e = tpl_lookup(&tx->ls, s);
	if (unlikely(e == NULL || !(e->modes & TPL_M_W)))
		tpl_acquire(tx, s, e, TPL_M_W, TM_ABORT_WRITE_LOCKED);
	potm_undo_log(&tx->th.txd.undo, a, size);
}

tm_word_t tm_read(const tm_word_t *a)
{
	tpl_tx_t *tx = (tpl_tx_t *)potm_self_in_tx("tm_read");
	tpl_lock_read(tx, a);
	return *(const volatile tm_word_t *)a;
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	tpl_tx_t *tx = (tpl_tx_t *)potm_self_writing("tm_write");
	tpl_lock_write(tx, a, sizeof *a);
	*(volatile tm_word_t *)a = v;
}

static inline __attribute__((always_inline)) uint64_t BACKEND_READ_BYTES(const void *a,
                                                                           unsigned size)
{
	tpl_tx_t *tx = (tpl_tx_t *)potm_self_in_tx("tm_read");
	tpl_lock_read(tx, a);
	return tm_load_bytes_(a, size);
}

static inline __attribute__((always_inline)) void BACKEND_WRITE_BYTES(void *a, unsigned size,
                                                                      uint64_t b)
{
	tpl_tx_t *tx = (tpl_tx_t *)potm_self_writing("tm_write");
	tpl_lock_write(tx, a, size);
	memcpy(a, &b, size);
}

#include "access_gen.h"

/* ---- LSD: futures and condition locks (C1-C4) --------------------------------- */

/* C1: the bytes [a, a + size) before this transaction's writes: memory,
 * under a lock, with the undo log's old bytes laid over it, oldest last
 * (so they win), where this transaction wrote the stripe. */
static uint64_t tpl_pre_state(tpl_tx_t *tx, const void *a, unsigned size, const tpl_entry_t *e)
{
	uint64_t v = tm_load_bytes_(a, size);
	if (!(e->modes & TPL_M_W))
		return v;
	const potm_undo_t *u = &tx->th.txd.undo;
	uintptr_t lo = (uintptr_t)a, hi = lo + size;
	unsigned char *vb = (unsigned char *)&v;
	for (const potm_undo_entry_t *x = u->next; x-- > u->e;) {
		uintptr_t xa = (uintptr_t)potm_undo_addr(x), xe = xa + potm_undo_size(x);
		if (xa >= hi || lo >= xe)
			continue;
		for (uintptr_t p = xa > lo ? xa : lo; p < (xe < hi ? xe : hi); p++)
			vb[p - lo] = ((const unsigned char *)&x->old)[p - xa];
	}
	return v;
}

/* C1: which of [a, a + size) this transaction wrote concretely (the
 * undo log's entries of the stripe): 1 (all, *b their value), 0, -1. */
static int tpl_lsd_written(potm_thread_t *t, const void *a, unsigned size, uint64_t *b)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	tpl_entry_t *e = tpl_lookup(&tx->ls, tpl_stripe(a));
	if (e == NULL || !(e->modes & TPL_M_W))
		return 0;
	const potm_undo_t *u = &tx->th.txd.undo;
	uintptr_t lo = (uintptr_t)a, hi = lo + size;
	unsigned covered = 0, all = (1u << size) - 1;
	for (const potm_undo_entry_t *x = u->e; x < u->next; x++) {
		uintptr_t xa = (uintptr_t)potm_undo_addr(x), xe = xa + potm_undo_size(x);
		for (uintptr_t p = xa > lo ? xa : lo; p < (xe < hi ? xe : hi); p++)
			covered |= 1u << (p - lo);
	}
	if (covered == 0)
		return 0;
	if (covered != all)
		return -1;
	*b = tm_load_bytes_(a, size);
	return 1;
}

/* C2: a future's word for lsd_is_true, under R (taken for the condition
 * and marked, unless a lock of ours already keeps the word). */
static uint64_t tpl_lsd_peek(potm_thread_t *t, const void *a, unsigned size)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	uint32_t s = tpl_stripe(a);
	tpl_entry_t *e = tpl_lookup(&tx->ls, s);
	if (e == NULL || !(e->modes & (TPL_M_R | TPL_M_W | TPL_M_V))) {
		e = tpl_acquire(tx, s, e, TPL_M_R, TM_ABORT_READ_LOCKED);
		e->modes |= TPL_M_PEEK;
		if (tx->n_peeked == tx->cap_peeked) {
			tx->cap_peeked = tx->cap_peeked ? 2 * tx->cap_peeked : 16;
			tx->peeked = potm_xrealloc(tx->peeked, tx->cap_peeked * sizeof *tx->peeked);
		}
		tx->peeked[tx->n_peeked++] = s;
	}
	return tpl_pre_state(tx, a, size, e);
}

/* C1: lsd_value's read: a standard read of the value before our writes. */
static uint64_t tpl_lsd_resolve(potm_thread_t *t, const void *a, unsigned size)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	tpl_lock_read(tx, a);
	return tpl_pre_state(tx, a, size, tpl_lookup(&tx->ls, tpl_stripe(a)));
}

/* C4: a write-function lock on the lazy write's stripe. */
static uint32_t tpl_lsd_reserve(potm_thread_t *t, void *a, unsigned size)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	(void)size;
	uint32_t s = tpl_stripe(a);
	tpl_entry_t *e = tpl_lookup(&tx->ls, s);
	if (e == NULL || !(e->modes & (TPL_M_F | TPL_M_W)))
		tpl_acquire(tx, s, e, TPL_M_F, TM_ABORT_WRITE_LOCKED);
	tx->lazy_writes++;
	return 0;
}

static tpl_pub_t *tpl_pub_of(tpl_tx_t *tx)
{
	if (tx->pub == NULL) {
		tpl_pub_t *p = tpl.pub[tx->th.id];
		if (p == NULL) {
			p = potm_xcalloc(1, sizeof *p);
			__atomic_store_n(&tpl.pub[tx->th.id], p, __ATOMIC_RELEASE);
		}
		tx->pub = p;
	}
	return tx->pub;
}

/* C2, C3: condition k was answered on words under R: publish it, then
 * turn each R taken for it into C. */
static void tpl_lsd_held(potm_thread_t *t, uint32_t k)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	if (tx->n_peeked == 0)
		return;   /* its words were ours already (R or W) */
	tpl_pub_t *p = tpl_pub_of(tx);
	bool answer;
	size_t n = 0;
	if (p->n_rec < TPL_PUB_RECS)
		n = potm_lsd_cond_compile(t, k, tx->prog, POTM_LSD_PROGRAM_MAX, &answer);
	if (n == 0 || p->n_insn + n > TPL_PUB_INSNS) {
		/* Too long to publish: keep the R locks. */
		for (uint32_t i = 0; i < tx->n_peeked; i++)
			tpl_lookup(&tx->ls, tx->peeked[i])->modes &= (uint8_t)~TPL_M_PEEK;
		tx->n_peeked = 0;
		return;
	}
	uint64_t words[POTM_LSD_PROGRAM_MAX * TPL_INSN_WORDS];
	memcpy(words, tx->prog, n * sizeof tx->prog[0]);
	uint64_t *to = &p->insn[(size_t)p->n_insn * TPL_INSN_WORDS];
	for (size_t j = 0; j < n * TPL_INSN_WORDS; j++)
		__atomic_store_n(&to[j], words[j], __ATOMIC_RELAXED);
	tpl_rec_t *r = &p->rec[p->n_rec];
	__atomic_store_n(&r->first, p->n_insn, __ATOMIC_RELAXED);
	__atomic_store_n(&r->len, (uint32_t)n, __ATOMIC_RELAXED);
	__atomic_store_n(&r->answer, (uint32_t)answer, __ATOMIC_RELAXED);
	p->n_insn += (uint32_t)n;
	__atomic_store_n(&p->n_rec, p->n_rec + 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < tx->n_peeked; i++) {
		tpl_entry_t *e = tpl_lookup(&tx->ls, tx->peeked[i]);
		volatile uint64_t *lock = &tpl.locks[tx->peeked[i]];
		if (e->modes & TPL_M_C) {
			__atomic_fetch_sub(lock, TPL_R_ONE, __ATOMIC_SEQ_CST);
			e->modes &= (uint8_t)~(TPL_M_R | TPL_M_PEEK);
		} else {
			__atomic_fetch_add(lock, TPL_C_ONE - TPL_R_ONE, __ATOMIC_SEQ_CST);
			e->modes = (uint8_t)((e->modes & ~(TPL_M_R | TPL_M_PEEK)) | TPL_M_C);
		}
	}
	tx->n_peeked = 0;
}

/* ---- LSD: the commit (C5, C6) ------------------------------------------------ */

/* A future's word at the commit: under a lock of ours (R taken if need
 * be; V or W already held for a word we write), before our writes. */
static uint64_t tpl_lsd_read_commit(potm_thread_t *t, const void *a, unsigned size)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	uint32_t s = tpl_stripe(a);
	tpl_entry_t *e = tpl_lookup(&tx->ls, s);
	if (e == NULL || !(e->modes & (TPL_M_R | TPL_M_W | TPL_M_V)))
		e = tpl_acquire(tx, s, e, TPL_M_R, TM_ABORT_READ_LOCKED);
	return tpl_pre_state(tx, a, size, e);
}

/* A lazy write's value, kept for the checks (C5). */
static void tpl_lsd_put(potm_thread_t *t, void *a, unsigned size, uint64_t b, uint32_t cookie)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	(void)cookie;
	if (tx->n_puts == tx->cap_puts) {
		tx->cap_puts = tx->cap_puts ? 2 * tx->cap_puts : 16;
		tx->puts = potm_xrealloc(tx->puts, tx->cap_puts * sizeof *tx->puts);
	}
	tx->puts[tx->n_puts++] = (tpl_put_t){ .addr = a, .bytes = b, .size = size };
}

/* C5: a word of another's condition as it will be after our commit: for
 * a stripe we hold W or V on, memory with our pending lazy writes laid
 * over it, in program order; any other must be free of W and V (a
 * foreign owner is a conflict, tx->conflict), read consistently. */
static uint64_t tpl_peer_read(void *ctx, const void *a, unsigned size)
{
	tpl_tx_t *tx = ctx;
	uint32_t s = tpl_stripe(a);
	tpl_entry_t *e = tpl_lookup(&tx->ls, s);
	if (e != NULL && (e->modes & (TPL_M_W | TPL_M_V))) {
		uint64_t v = tm_load_bytes_(a, size);
		unsigned char *vb = (unsigned char *)&v;
		uintptr_t lo = (uintptr_t)a, hi = lo + size;
		for (uint32_t i = 0; i < tx->n_puts; i++) {
			const tpl_put_t *p = &tx->puts[i];
			uintptr_t pa = (uintptr_t)p->addr, pe = pa + p->size;
			for (uintptr_t q = pa > lo ? pa : lo; q < (pe < hi ? pe : hi); q++)
				vb[q - lo] = ((const unsigned char *)&p->bytes)[q - pa];
		}
		return v;
	}
	volatile uint64_t *lock = &tpl.locks[s];
	for (;;) {
		uint64_t w1 = __atomic_load_n(lock, __ATOMIC_SEQ_CST);
		if (tpl_owner(w1) != 0) {
			if (tx->conflict == 0)
				tx->conflict = tpl_owner(w1);
			return 0;
		}
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (tpl_owner(__atomic_load_n(lock, __ATOMIC_RELAXED)) == 0)
			return v;
	}
}

/* Does the program read a word of stripe s? */
static bool tpl_prog_reads(const potm_lsd_insn_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].kind == POTM_LSD_INSN_FUTURE && tpl_stripe(p[i].addr) == s)
			return true;
	return false;
}

/* C5: the conditions other threads publish over stripe s, evaluated with
 * our new values: 0 if each keeps its answer, else the id + 1 of the
 * thread to wait for or die against (D1). */
static unsigned tpl_scan_conditions(tpl_tx_t *tx, uint32_t s)
{
	unsigned hi = __atomic_load_n(&tpl.hi, __ATOMIC_ACQUIRE);
	uint64_t words[TPL_INSN_WORDS];
	for (unsigned id = 0; id < hi; id++) {
		const tpl_pub_t *p = __atomic_load_n(&tpl.pub[id], __ATOMIC_ACQUIRE);
		if (id == tx->th.id || p == NULL)
			continue;
		uint64_t gen = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
		uint32_t n_rec = __atomic_load_n(&p->n_rec, __ATOMIC_ACQUIRE);
		for (uint32_t k = 0; k < n_rec && k < TPL_PUB_RECS; k++) {
			uint32_t first = __atomic_load_n(&p->rec[k].first, __ATOMIC_RELAXED);
			uint32_t len = __atomic_load_n(&p->rec[k].len, __ATOMIC_RELAXED);
			bool answer = __atomic_load_n(&p->rec[k].answer, __ATOMIC_RELAXED) != 0;
			if (len == 0 || len > POTM_LSD_PROGRAM_MAX || first > TPL_PUB_INSNS - len)
				break;   /* torn: the list is being withdrawn */
			for (uint32_t i = 0; i < len; i++) {
				for (size_t j = 0; j < TPL_INSN_WORDS; j++)
					words[j] = __atomic_load_n(&p->insn[(first + i) * TPL_INSN_WORDS + j],
					                           __ATOMIC_RELAXED);
				memcpy(&tx->prog[i], words, sizeof words);
			}
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&p->gen, __ATOMIC_RELAXED) != gen)
				break;   /* C3: that attempt is over, its locks gone */
			if (!tpl_prog_reads(tx->prog, len, s))
				continue;
			tx->conflict = 0;
			int r = potm_lsd_program_eval(tx->prog, len, tpl_peer_read, tx);
			if (tx->conflict != 0)
				return tx->conflict;
			if (r < 0 || (r != 0) != answer)
				return id + 1;
		}
	}
	return 0;
}

/* C5: the commit of an attempt with lazy writes. */
static void tpl_lsd_commit(tpl_tx_t *tx)
{
	tpl_lset_t *ls = &tx->ls;
	for (uint32_t i = 0; i < ls->n; i++)
		if ((ls->e[i].modes & TPL_M_F) && !(ls->e[i].modes & TPL_M_W))
			tpl_acquire(tx, ls->e[i].stripe, &ls->e[i], TPL_M_V, TM_ABORT_WRITE_LOCKED);
	if (!potm_lsd_settle(&tx->th, tpl_lsd_read_commit, tpl_lsd_put, false))
		tpl_abort(tx, TM_ABORT_CONDITION);   /* not expected: C6 */
	for (uint32_t i = 0; i < ls->n; i++) {
		if (!(ls->e[i].modes & (TPL_M_V | TPL_M_W)) || !(ls->e[i].modes & TPL_M_F))
			continue;
		uint32_t s = ls->e[i].stripe;
		unsigned c_mine = !!(ls->e[i].modes & TPL_M_C);
		for (unsigned spins = 0;;) {
			uint64_t w = __atomic_load_n(&tpl.locks[s], __ATOMIC_SEQ_CST);
			if (tpl_count(w, TPL_C_SHIFT) <= c_mine)
				break;
			unsigned blocker = tpl_scan_conditions(tx, s);
			if (blocker == 0)
				break;
			tpl_blocked(tx, blocker, false, &spins, s, TM_ABORT_CONDITION);
		}
	}
	for (uint32_t i = 0; i < tx->n_puts; i++)
		memcpy(tx->puts[i].addr, &tx->puts[i].bytes, tx->puts[i].size);
	POTM_STAT_ADD(&tx->th, writes, tx->n_puts);
}

/* Every attempt keeps its futures unresolved: 2pl has no in-place mode
 * apart from its locks. */
static bool tpl_lsd_lazy(potm_thread_t *t)
{
	(void)t;
	return true;
}

static const potm_lsd_ops_t tpl_lsd_ops = {
	.lazy = tpl_lsd_lazy,
	.written = tpl_lsd_written,
	.peek = tpl_lsd_peek,
	.resolve = tpl_lsd_resolve,
	.reserve = tpl_lsd_reserve,
	.held = tpl_lsd_held,
};

/* ---- begin / commit -------------------------------------------------------- */

static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
	tpl_tx_t *tx = (tpl_tx_t *)d;
	if (tx->ts == 0) {
		tx->ts = __atomic_add_fetch(&tpl.clock, 1, __ATOMIC_RELAXED);
		__atomic_store_n(tpl_ts_of(tx->th.id), tx->ts, __ATOMIC_SEQ_CST);
	}
}

static inline bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	tpl_tx_t *tx = (tpl_tx_t *)d;
	if (unlikely(potm_lsd_unsettled(&tx->th)) && tx->lazy_writes)
		tpl_lsd_commit(tx);
	potm_undo_t *u = &tx->th.txd.undo;
	bool ro = potm_undo_count(u) == 0 && tx->n_puts == 0;
	POTM_STAT_ADD(&tx->th, writes, potm_undo_count(u));
	potm_undo_clear(u);
	tpl_attempt_over(tx);
	tpl_tx_over(tx);
	return ro;
}

#include "tx_gen.h"

void tm_restart(void)
{
	tpl_tx_t *tx = (tpl_tx_t *)potm_self_in_tx("tm_restart");
	tpl_abort(tx, TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	tpl_tx_t *tx = (tpl_tx_t *)potm_self_in_tx("tm_cancel");
	potm_undo_rollback(&tx->th.txd.undo);
	tpl_attempt_over(tx);
	tpl_tx_over(tx);
	potm_tx_cancelled(&tx->th);
}

/* ---- life cycle ------------------------------------------------------------- */

static int tpl_init(const tm_config_t *cfg)
{
	size_t n = (size_t)1 << cfg->lock_bits;
	tpl.locks = calloc(n, sizeof(uint64_t));
	if (tpl.locks == NULL)
		return potm_error("2pl: cannot allocate %zu locks (POTM_LOCK_BITS=%u)", n,
		                  cfg->lock_bits);
	tpl.mask = n - 1;
	tpl.shift = cfg->stripe_shift;
	tpl.clock = 0;
	tpl.hi = 0;
	tpl.max_threads = cfg->max_threads;
	tpl.ts = potm_xcalloc(cfg->max_threads, POTM_CACHELINE);
	tpl.pub = potm_xcalloc(cfg->max_threads, sizeof *tpl.pub);
	return 0;
}

static void tpl_shutdown(void)
{
	free((void *)tpl.locks);
	tpl.locks = NULL;
	free(tpl.ts);
	tpl.ts = NULL;
	for (unsigned i = 0; i < tpl.max_threads; i++)
		free(tpl.pub[i]);
	free(tpl.pub);
	tpl.pub = NULL;
}

static int tpl_thread_init(potm_thread_t *t)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	tpl_lset_init(&tx->ls);
	unsigned hi = __atomic_load_n(&tpl.hi, __ATOMIC_RELAXED);
	while (hi < t->id + 1 &&
	       !__atomic_compare_exchange_n(&tpl.hi, &hi, t->id + 1, false, __ATOMIC_SEQ_CST,
	                                    __ATOMIC_RELAXED))
		;
	return 0;
}

static void tpl_thread_fini(potm_thread_t *t)
{
	tpl_tx_t *tx = (tpl_tx_t *)t;
	tpl_lset_free(&tx->ls);
	free(tx->peeked);
	free(tx->puts);
	tx->peeked = NULL;
	tx->puts = NULL;
	tx->pub = NULL;   /* stays in tpl.pub for the next thread of this id */
	potm_undo_free(&t->txd.undo);
}

const potm_backend_t potm_backend = {
	.name = "2pl",
	.thread_size = sizeof(tpl_tx_t),
	.init = tpl_init,
	.shutdown = tpl_shutdown,
	.thread_init = tpl_thread_init,
	.thread_fini = tpl_thread_fini,
	.lsd = &tpl_lsd_ops,
};
