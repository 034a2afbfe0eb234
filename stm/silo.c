/*
 * stm/silo.c — Silo's optimistic concurrency control (Tu et al., "Speedy
 * Transactions in Multicore In-Memory Databases", SOSP 2013, section 4)
 * on potm's stripes, with opacity for arbitrary transaction bodies.
 * Internal names carry the prefix silo_.
 *
 *  - Stripe words: one per address stripe (tl2's table geometry and
 *    index, POTM_LOCK_BITS, POTM_STRIPE_SHIFT), each a TID word: the lock
 *    bit (bit 0), the logical id of the thread that wrote the stripe last
 *    (TM_SILO_ID_BITS bits, txd.h), and that write's TID above: the epoch
 *    in the high bits, a sequence number below it.  No counter is shared
 *    by committers: a TID comes from the words the transaction touched,
 *    the thread's last TID and the global epoch (paper 4.2).
 *  - Epochs (paper 4.1): one thread, started by tm_init and joined by
 *    tm_shutdown, advances the global epoch E every POTM_SILO_EPOCH_MS
 *    milliseconds (40 by default, as in the paper).  Committers read E
 *    once, after locking; nobody else writes it.
 *  - Writes are deferred to tl2's write set (stm/tl2_sets.h: Bloom
 *    filter, byte masks, hash index for large sets); reads log their
 *    stripe words in tm.h's read set.
 *  - Commit (paper 4.4, Figure 2), for a transaction that wrote:
 *      phase 1: lock the write set's stripes (a locked word carries the
 *               lock bit and the locker's id over its old TID): first in
 *               write-set order without waiting; if another committer
 *               holds one, release, sort the stripes by address and lock
 *               them in that order, waiting for each (a global order, in
 *               which alone anyone waits: no deadlock); a full fence;
 *               read E;
 *      TID:     the smallest TID greater than every TID read or written
 *               (the locked words' old TIDs; for the reads, the largest
 *               word of the snapshot, which bounds every word read), the
 *               thread's last one, and in epoch E; published as the
 *               thread's clock (S1), then a full fence;
 *      phase 2: validate every stripe read: unlocked or locked by us, and
 *               unchanged since it was read (S2), unless no other thread
 *               published since the snapshot (S5); abort otherwise;
 *      phase 3: write the buffered words back, release each lock with
 *               the new word (TID, our id, unlocked) in one store.
 *    A transaction that wrote nothing commits at once: its snapshot was
 *    consistent (S1), so it serializes at the snapshot.
 *
 * Opacity without a global clock.  Validating the read set only when a
 * read meets a TID newer than every TID seen so far is not enough: TIDs
 * order dependencies (read and write), not anti-dependencies, so a
 * transaction that commits later in real time may carry a smaller TID.
 * (T reads x; U reads z and overwrites x; V overwrites z and y with a TID
 * smaller than x's, being unaware of U; T then reads y: its view has V
 * without U, which precedes V in every serial order.)  What the scheme
 * below relies on instead is that each thread's TIDs increase:
 *  S1 (snapshot) Each logical id has a published clock word: the stripe
 *     word of the last commit of that id's thread, stored after its write
 *     set is locked and before it is written back.  A transaction starts
 *     by copying the clocks of every id used so far (a vector, th.txd.snap
 *     .tids).  A read is accepted when its stripe word is unlocked and no
 *     newer than the vector's word for its writer (the same id bits, so a
 *     plain compare).  Such a word was written by a commit that had
 *     published before the copy, hence had locked its whole write set
 *     before it: every later commit of any thread publishes a larger word
 *     for its own id, so a word written after the copy is never accepted,
 *     and a word of a commit that published before the copy is seen
 *     locked or written back.  Every accepted read thus returns the
 *     stripe's value at the end of the copy, where no commit is half
 *     done: the reads so far form a consistent state, even in an attempt
 *     that will abort (opacity).
 *  S2 (extension) A read that meets a newer word copies the clocks again,
 *     then checks the read set against the old vector (each word unlocked
 *     and no newer): if everything read is unchanged, the view is the
 *     state at the new copy too, and the vector moves there (as TL2's
 *     snapshot extension, with a vector for the clock).  Otherwise the
 *     attempt aborts.  The commit's validation is the same check: a word
 *     no newer than the vector is the word that was read, so it is Silo's
 *     "TID unchanged".
 *  S3 (serializability) Phase 1 locks everything written before phase 2
 *     checks everything read, as in the paper: a read-write transaction
 *     serializes at its read of E, a read-only one at its last copy of
 *     the clocks (S1).  Per stripe, TIDs grow with the commit order;
 *     epochs agree with the serial order (the paper's argument: E is read
 *     between phases 1 and 2).
 *  S4 (progress) A transaction that keeps losing (SILO_STARVING_ABORTS,
 *     or a long attempt lost) takes the commit token: a committer
 *     announces itself (its word, then a fence or the holder's
 *     membarrier) before it reads the token, and waits, holding no lock,
 *     while another holds it; the holder drains the commits announced.
 *     From then on no other update commits, so its next attempt, an
 *     ordinary one, cannot fail validation and commits.
 *  S5 (elided validation) A committer publishes its clock after locking
 *     and before validating, with a full fence between the publication
 *     and its look at the others' clocks.  If no other clock moved since
 *     the snapshot, phase 2 would pass: a commit that published before
 *     the copy had released every stripe it locked by the time this
 *     transaction saw them free and accepted them (and a change after
 *     that would be a new publication); one that publishes after this
 *     look locked a stripe we read only after we read it, and its own
 *     phase 2, after its fence, sees our locks (one of the two fences
 *     comes first): it serializes after us, or aborts if it read what we
 *     write.  At one thread, and whenever the others did not commit
 *     meanwhile, a commit costs no pass over the read set.
 *
 * LSD-aware OCC (Vale's thesis, Figure 4.4, on this commit protocol;
 * <potm/lsd.h>, lib/lsd.c keeps the futures, conditions and lazy writes):
 *  L1 (futures) lsd_read makes a future and reads nothing; lsd_value
 *     binds through silo_load (snapshot, read set).
 *  L2 (conditions) lsd_is_true evaluates on the latest committed values
 *     (a consistent read of a free stripe, any TID, not logged); its
 *     answer gives no opacity and is checked at the commit.
 *  L3 (lazy writes) lsd_write reserves its word in the write set, so that
 *     phase 1 locks it with the others; its value is put there at the
 *     commit.
 *  L4 (settling) After phase 1, before the read of E, every condition is
 *     evaluated again on the words as they are (a stripe we locked holds
 *     the value before us; any other is read free and its word kept), an
 *     answer that changed aborts (cause condition), and the lazy writes
 *     are evaluated there, in program order.  After phase 2 (or S5), every kept
 *     word must be unchanged: the reads (checked in phase 2), the
 *     condition words and the locks all hold across the instant between
 *     the evaluation and phase 2, where the transaction takes effect.
 *     The TID is above the condition words' TIDs too.  A transaction that
 *     wrote nothing settles the same way, without locks: evaluation,
 *     read set against its snapshot, the kept words again.
 *
 * Snapshot transactions (paper 4.9): a transaction declared read-only
 * (TM_BEGIN_RO) reads the state at its start, from the old bytes that
 * committers keep while it runs, and never aborts; N1-N7 in the
 * snapshot section.
 *
 * Durability (4.10) is the record store's redo log (lib/store/log.c),
 * which reads the epoch and each commit's TID through the accessors at
 * the end of this file.  No serial or in-place mode: tm_serial() is 0,
 * POTM_SERIAL, POTM_PROMOTE_* and POTM_EXTEND do not apply (extension is
 * S2's and always on).
 */
#include "tl2_sets.h"
#include "log_written.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#define SILO_STRIPE_FILTER_BITS 1024

/* A stripe word (txd.h's layout): lock bit, writer id, the kept bit (N4),
 * then the TID's sequence number and epoch.  The sequence has room for
 * 2^26 dependent commits per epoch; the epoch wraps after 2^25 periods
 * (Silo also ignores wraparound). */
#define SILO_LOCK        ((uintptr_t)1)
#define SILO_KEPT        ((uintptr_t)1 << (1 + TM_SILO_ID_BITS))
#define SILO_SEQ_SHIFT   (2 + TM_SILO_ID_BITS)
#define SILO_SEQ_BITS    26
#define SILO_TID(w)      ((uint64_t)(w) >> SILO_SEQ_SHIFT)   /* epoch:sequence */

#define SILO_EPOCH_MS_DEFAULT 40u
#define SILO_EPOCH_MS_MAX 10000u

#define SILO_LOCKED_SPINS 64        /* pauses between yields on a held lock */
#define SILO_LOCKED_YIELDS 100000   /* a reader's yields before it gives up */
#define SILO_LONG_ABORTS 1
#define SILO_LONG_READS 4096
#define SILO_STARVING_ABORTS 32
#define SILO_FRESH_MAX 64   /* allocations a commit looks up (N3) */

/* A stripe locked by the commit, and its word before. */
typedef struct silo_held {
	volatile uintptr_t *lock;
	uintptr_t prev;
} silo_held_t;

typedef struct silo_tx {
	potm_thread_t th;
	tl2_wset_t ws;               /* write set */
	uint64_t *snap[2];           /* S1: the vector in force
	                                (th.txd.snap.tids) and the spare, one
	                                word per logical id */
	unsigned cur;                /* which of snap[] is in force */
	uintptr_t vmax[2];           /* the largest word of each (S3) */
	uintptr_t last;              /* this id's last commit word (S1) */
	silo_held_t *held;           /* phase 1: the stripes locked */
	size_t nheld, held_cap;
	bool stale_held;             /* a stripe locked in phase 1 had a word
	                                newer than the snapshot */
	size_t lost_reads;           /* the largest read set lost (S4) */
	bool token;                  /* holds the commit token (S4) */
	bool committing;             /* its committing word is up (S4) */
	silo_held_t *cond;           /* L2: the stripe words the commit's
	                                condition evaluation read, as read */
	size_t ncond, cond_cap;
	/* The stripes holding words of the write set (a bit per stripe), as
	 * tl2's: tm_read_bytes overlays the write set only where set. */
	uint64_t written_stripes[SILO_STRIPE_FILTER_BITS / 64];
	/* Snapshots (N1-N7). */
	uint64_t snap_epoch;         /* E0 while a snapshot runs, else 0 */
	uint64_t snap_gen;           /* G while a snapshot runs (N1) */
	uint64_t *snap_bound;        /* N5: the vector a snapshot reads
	                                under; ids from nids on hold the
	                                epoch bound of snap_bound_for */
	uint64_t snap_bound_for;
	struct silo_vchunk *vc_old;  /* N6: the thread's chunks, oldest ... */
	struct silo_vchunk *vc_new;  /* ... and newest (nodes come from it) */
	struct silo_vslot **slot_of; /* N3: each write-set entry's chain slot,
	                                found once per commit */
	size_t slot_cap;
	size_t vnodes;               /* the nodes in them */
	uintptr_t fresh[SILO_FRESH_MAX][2]; /* N3: the attempt's allocations */
} silo_tx_t;

static struct {
	volatile uintptr_t *locks POTM_ALIGNED;
	uintptr_t mask;
	unsigned shift;
	unsigned skew_shift;
	uint64_t epoch POTM_ALIGNED;   /* E: written by the epoch thread only */
	/* Snapshots (N1-N7), on E's line: a committer reads them with E. */
	uint64_t snap_word;            /* N1: generation, snapshots running */
	struct silo_vslot *vtab;       /* N3: chains, one per stripe word;
	                                  NULL until the first snapshot */
	unsigned nids POTM_ALIGNED;    /* logical ids used so far: highest + 1 */
	unsigned token;                /* S4: holder's id + 1, 0 if free */
	uint64_t *clocks;              /* S1: one word per id, a cache line each */
	unsigned char *committing;     /* S4: one word per id, a line each */
	unsigned max_threads;
	bool asym;
	/* The epoch thread. */
	unsigned epoch_ms;
	pthread_t epoch_thread;
	pthread_mutex_t epoch_mu;
	pthread_cond_t epoch_cv;
	bool epoch_stop;
	bool epoch_running;
	/* Snapshots (N1-N7). */
	char *snap_counts;             /* per id, a line each: the nodes in
	                                  the id's chunks */
	pthread_mutex_t snap_mu;       /* vtab's creation, the orphans */
	struct silo_vchunk *orphan_chunks; /* N6: chunks of exited threads */
	size_t orphan_nodes;           /* the nodes in them */
	/* POTM_SILO_GLOBAL_TID=1 (cfg->silo_global_tid): commits draw their
	 * TIDs from one shared counter (the paper's MemSilo+GlobalTID,
	 * section 6.2), alone on its line since every committer writes it. */
	bool global_tid;
	uint64_t gtid POTM_ALIGNED;
} silo;

#define SILO_CLOCK_STRIDE (POTM_CACHELINE / sizeof(uint64_t))

static inline uint64_t *silo_clock(unsigned id)
{
	return &silo.clocks[(size_t)id * SILO_CLOCK_STRIDE];
}

static inline volatile unsigned char *silo_committing_word(unsigned id)
{
	return &silo.committing[(size_t)id * POTM_CACHELINE];
}

static inline tm_snap_t *silo_snap(silo_tx_t *tx)
{
	return &tx->th.txd.snap;
}

static inline volatile uintptr_t *silo_lock_of(const void *a)
{
	return &silo.locks[tm_lock_index_((uintptr_t)a, silo.shift, silo.skew_shift, silo.mask)];
}

/* Is the word no newer than the vector's word for its writer? */
static inline bool silo_in_snapshot(const uint64_t *v, uintptr_t w)
{
	return w <= v[tm_silo_writer_(w)];
}

static inline uint64_t silo_stripe_bit(const void *a, unsigned *word)
{
	uint64_t h = (((uintptr_t)a >> silo.shift) * TM_WFILTER_MUL) >> (64 - 10);
	_Static_assert(SILO_STRIPE_FILTER_BITS == 1 << 10, "the hash gives 10 bits");
	*word = (unsigned)(h >> 6);
	return (uint64_t)1 << (h & 63);
}

static inline bool silo_stripe_written(const silo_tx_t *tx, const void *a)
{
	unsigned w;
	uint64_t bit = silo_stripe_bit(a, &w);
	return (tx->written_stripes[w] & bit) != 0;
}

/* The stripe filter's bit for a's stripe, set: the transaction writes it. */
static inline void silo_mark_stripe_written(silo_tx_t *tx, const void *a)
{
	unsigned w;
	uint64_t bit = silo_stripe_bit(a, &w);
	tx->written_stripes[w] |= bit;
}

/* ---- epochs ----------------------------------------------------------- */

static void silo_snap_tick(void);

static void *silo_epoch_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&silo.epoch_mu);
	while (!silo.epoch_stop) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		uint64_t ns = (uint64_t)t.tv_nsec + (uint64_t)silo.epoch_ms * 1000000u;
		t.tv_sec += (time_t)(ns / 1000000000u);
		t.tv_nsec = (long)(ns % 1000000000u);
		int rc = 0;
		while (!silo.epoch_stop && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&silo.epoch_cv, &silo.epoch_mu, &t);
		if (!silo.epoch_stop) {
			/* Sequentially consistent: N4 orders it against the
			 * snapshots' and the committers' loads. */
			__atomic_store_n(&silo.epoch, silo.epoch + 1, __ATOMIC_SEQ_CST);
			silo_snap_tick();
		}
	}
	pthread_mutex_unlock(&silo.epoch_mu);
	return NULL;
}

/* POTM_SILO_EPOCH_MS: the epoch period, 1..SILO_EPOCH_MS_MAX ms. */
static int silo_parse_epoch_ms(void)
{
	const char *s = getenv("POTM_SILO_EPOCH_MS");
	silo.epoch_ms = SILO_EPOCH_MS_DEFAULT;
	if (s == NULL)
		return 0;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < 1 ||
	    v > SILO_EPOCH_MS_MAX)
		return potm_error("invalid value POTM_SILO_EPOCH_MS=\"%s\"; allowed: "
		                  "an integer from 1 to %u (the epoch period in "
		                  "milliseconds)", s, SILO_EPOCH_MS_MAX);
	silo.epoch_ms = (unsigned)v;
	return 0;
}

/* ---- snapshots (S1, S2) ---------------------------------------------- */

/* Copy the clocks of every id used so far into v; returns the largest
 * (words order as their TIDs: the TID is in the high bits). */
static inline uintptr_t silo_copy_clocks(uint64_t *v)
{
	unsigned n = __atomic_load_n(&silo.nids, __ATOMIC_ACQUIRE);
	uintptr_t max = 0;
	for (unsigned id = 0; id < n; id++) {
		uintptr_t w = __atomic_load_n(silo_clock(id), __ATOMIC_ACQUIRE);
		v[id] = w;
		if (w > max)
			max = w;
	}
	return max;
}

/* S5: has no other id published since v was copied? */
static bool silo_clocks_unchanged(const silo_tx_t *tx, const uint64_t *v)
{
	unsigned n = __atomic_load_n(&silo.nids, __ATOMIC_ACQUIRE);
	for (unsigned id = 0; id < n; id++)
		if (id != tx->th.id && __atomic_load_n(silo_clock(id), __ATOMIC_ACQUIRE) != v[id])
			return false;
	return true;
}

/* Is every stripe read unlocked and no newer than v?  (Outside the
 * commit: this transaction holds no lock.) */
static bool silo_unchanged(const silo_tx_t *tx, const uint64_t *v)
{
	const tm_snap_t *s = &tx->th.txd.snap;
	for (const volatile uintptr_t **p = s->rs.e; p < s->rs.next; p++) {
		uintptr_t l = __atomic_load_n(*p, __ATOMIC_ACQUIRE);
		if ((l & SILO_LOCK) || !silo_in_snapshot(v, l))
			return false;
	}
	return true;
}

/* S2: copy the clocks, then check the read set against the vector in
 * force; if it holds, the new copy takes its place. */
static bool silo_extend(silo_tx_t *tx)
{
	uint64_t *next = tx->snap[tx->cur ^ 1u];
	tx->vmax[tx->cur ^ 1u] = silo_copy_clocks(next);
	if (!silo_unchanged(tx, tx->snap[tx->cur]))
		return false;
	tx->cur ^= 1u;
	silo_snap(tx)->tids = next;
	POTM_STAT_INC(&tx->th, extensions);
	return true;
}

/* ---- commit token (S4) ------------------------------------------------- */

static void silo_abort(silo_tx_t *tx, int cause) __attribute__((noreturn, noinline));

static void silo_wait_token(void)
{
	for (unsigned spins = 0; __atomic_load_n(&silo.token, __ATOMIC_ACQUIRE) != 0;) {
		if (++spins % SILO_LOCKED_SPINS == 0)
			sched_yield();
		potm_cpu_relax();
	}
}

/* The committer's side: announce, then commit unless another holds the
 * token (then wait for it, holding nothing). */
static void silo_commit_announce(silo_tx_t *tx)
{
	volatile unsigned char *w = silo_committing_word(tx->th.id);
	for (;;) {
		potm_raise_word(w, silo.asym);
		if (likely(__atomic_load_n(&silo.token, __ATOMIC_ACQUIRE) == 0) || tx->token)
			break;
		__atomic_store_n(w, 0, __ATOMIC_RELEASE);
		silo_wait_token();
	}
	tx->committing = true;
}

static inline void silo_commit_over(silo_tx_t *tx)
{
	if (tx->committing) {
		__atomic_store_n(silo_committing_word(tx->th.id), 0, __ATOMIC_RELEASE);
		tx->committing = false;
	}
}

/* The holder's side: take the token, then wait for the commits in
 * flight. */
static void silo_take_token(silo_tx_t *tx) __attribute__((noinline, cold));
static void silo_take_token(silo_tx_t *tx)
{
	for (;;) {
		unsigned free_ = 0;
		if (__atomic_compare_exchange_n(&silo.token, &free_, tx->th.id + 1, false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
		silo_wait_token();
	}
	tx->token = true;
	if (!silo.asym || potm_membarrier() != 0)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	potm_wait_others_down(silo_committing_word(0), silo.max_threads, tx->th.id);
}

/* The transaction is over (committed or cancelled). */
static void silo_drop_token(silo_tx_t *tx)
{
	tx->lost_reads = 0;
	if (unlikely(tx->token)) {
		tx->token = false;
		__atomic_store_n(&silo.token, 0, __ATOMIC_RELEASE);
	}
}

/* ---- snapshot transactions (N1-N7) -------------------------------------
 *
 * A transaction declared read-only reads a consistent snapshot and never
 * aborts (paper 4.9).  Silo's snapshot reads the state at the end of the
 * latest snapshot epoch, and every commit must be ready for one: it keeps
 * a word's old bytes the first time it writes the word in a snapshot
 * epoch, whether or not a snapshot ever reads them.  Here a snapshot
 * draws its own boundary instead: it opens a new generation of the
 * snapshot word and reads the state left by the commits that read the
 * word before it did.  Only a commit that sees a snapshot running keeps
 * what it overwrites, so versions cost in proportion to the time
 * snapshots run, and a snapshot reads the latest state at its start (the
 * thread's own last commit included).
 *  N1 (snapshot word) snap_word holds a generation (SILO_SNAP_GEN) and
 *     the number of snapshots running (SILO_SNAP_RUNNING).  A snapshot
 *     reads E (its E0), then adds a generation and a runner in one atomic
 *     step and takes G, the new generation; it takes its runner away at
 *     its end.  A committer reads snap_word after phase 1 (after the full
 *     fence that ends it), then E, all sequentially consistent; its
 *     generation g is the word's.  A commit with g < G read the word
 *     before the snapshot's step (pre-G); one with g >= G read it after
 *     (post-G), and saw at least the snapshot's own runner.
 *  N2 (a cut) The pre-G commits come first in the serial order: like
 *     Silo's read of E, the read of snap_word sits between the locks of
 *     phase 1 and the validation of phase 2.  A commit that reads or
 *     overwrites what a post-G commit wrote locked or validated after the
 *     other took its locks, so it read the word later; one that
 *     overwrites what a post-G commit read locked it after that one
 *     validated (else that one aborts), so it read the word later too.
 *     A pre-G commit held its whole write set before the snapshot's
 *     step: the snapshot's reads see each of its stripes locked (and
 *     wait) or written back.
 *  N3 (versions) vtab holds, per stripe word, a chain of versions, newest
 *     first, and the `over' of its head.  A node holds bytes of one memory
 *     word (a bit per byte says which) as they were before a commit of
 *     generation g overwrote them, tagged over = g.  A committer that saw
 *     a runner, holding its stripe words and past its validation, pushes
 *     the bytes it writes that no node tagged g holds yet (those are at
 *     the chain's head: per stripe, generations grow with the commit
 *     order); one that saw none pushes nothing.  Memory the transaction
 *     allocated itself is not saved: no snapshot can reach it before this
 *     commit.  Nor is a word written with tm_write_fresh (the write-set
 *     entry's `fresh'): its caller vouches that no committed state has
 *     ever made it reachable (the record store's B+-tree: a slot that has
 *     held no entry since its node was made, store_internal.h's B5).
 *  N4 (read) A snapshot reads a stripe as an ordinary read does (word
 *     unlocked and unchanged around the copy).  A word of epoch < E0 is
 *     pre-G's: a post-G commit read E after snap_word, hence after the
 *     snapshot's step and its read of E0.  So is a word without the kept
 *     bit (SILO_KEPT), which a commit that saw a runner sets in the words
 *     it releases: a post-G commit sees one, and so does every later
 *     commit of the stripe while the snapshot runs (it locked after the
 *     other, so it read snap_word later); a word without the bit was
 *     written by a pre-G commit after every other commit of the stripe,
 *     and the stripe's bytes are G's.  Otherwise G's value of a byte is
 *     the one before the first post-G commit c that wrote it: c saw a
 *     runner, and no earlier commit of its generation wrote the byte (it
 *     would be post-G and earlier), so c saved it, tagged g_c >= G; every
 *     other node holding the byte with over >= G is newer.  So the oldest
 *     node holding the byte with over >= G has G's value; no such node:
 *     no post-G commit wrote the byte, the byte read is G's.  Every read
 *     thus returns the state after the pre-G commits and no other:
 *     consistent, nothing to validate, no abort.  It waits only for a
 *     committer holding the word, which never waits for a reader.  It
 *     loads the chain's slot between its two loads of the word: a pair
 *     that goes with the bytes it copied, nodes pushed later are not
 *     needed.
 *  N5 (inline reads) While a snapshot runs, the vector tm.h's inline
 *     reads test words against holds, for each writer, a bound below
 *     which its words are pre-G's: the largest word of epoch E0 - 1
 *     (N4's first case), or the writer's clock, read after the step, if
 *     that is larger and lacks the kept bit (the commit that published
 *     it saw no runner, so it read snap_word before the step, and so did
 *     the writer's earlier commits).  A read passes when the stripe word
 *     is unlocked, within the bound and unchanged around the load.  So
 *     does a guarded B+-tree read (store_internal.h B6): the permutation
 *     word is G's, and the slots it ranks have not changed since (a
 *     ranked slot is never written).  Everything else (a newer or locked
 *     word, a byte range) takes N4's path in the library.  The read set
 *     the inline reads fill is never validated: a snapshot writes
 *     nothing, and a commit without writes skips phase 2.
 *  N6 (reclaiming nodes) A node tagged g is read only by snapshots with
 *     G <= g, running since before the node was made, and walked only by
 *     committers of generation g (N3).  Once snap_word shows a later
 *     generation, or no runner, whoever reads it afterwards never touches
 *     the node (a snapshot starting then takes a later G; a committer
 *     walks and pushes only while a runner is up, in its own generation),
 *     and whoever read it before is inside its read-side section, which
 *     reclamation's grace period waits for.  Every pointer to a node
 *     travels with the node's `over' (the slot's pair, the next_over of
 *     the node before), so a walk stops before it touches an older node,
 *     and chains are never cut.  A thread takes its nodes from chunks of
 *     its own, in commit order, so `over' grows along its chunks; a chunk
 *     whose last `over' is that old goes to reclamation whole, with no
 *     atomic per node.  An exiting thread leaves its chunks to the epoch
 *     thread, which hands each over once it is.
 *  N7 (frees) A block that a commit c unlinks, freed then or later, is
 *     reachable through old versions only by a snapshot with G <= g_c,
 *     which was running, inside its read-side section, before c took
 *     effect: reclamation's grace period already waits for it, so frees
 *     take the library's path as on every backend.
 */

/* A node keeps bytes of one memory word (N1).  It does not hold its own
 * epoch: whoever points at a node also holds that node's `over' (the
 * chain's slot, or the node before it), so that a walk decides whether to
 * go on before it touches the node, and never touches one a snapshot
 * cannot choose (N6). */
typedef struct silo_version {
	struct silo_version *next;
	uint64_t next_over;       /* next's `over' (meaningless without next) */
	uintptr_t word;           /* the memory word's address, and in the top
	                             byte a bit per byte kept (SILO_VKEPT) */
	tm_word_t old;            /* its bytes before the commit */
} silo_version_t;

/* Two nodes a cache line: the mask of kept bytes rides in the address's
 * top byte, above every user address of the supported targets. */
#define SILO_VKEPT_SHIFT     56
#define SILO_VADDR(v)        ((v)->word & (((uintptr_t)1 << SILO_VKEPT_SHIFT) - 1))
#define SILO_VKEPT(v)        ((unsigned)((v)->word >> SILO_VKEPT_SHIFT))
_Static_assert(sizeof(tm_word_t) == 8, "a byte of kept bits per word");

/* A bit per byte of a byte mask (0xff or 0 in each byte), without a
 * loop: the multiply gathers each byte's low bit into the top byte (the
 * partial products never overlap). */
static inline unsigned silo_bits_of_bytes(tm_word_t bytes)
{
	return (unsigned)(((uint64_t)bytes & 0x0101010101010101u) * 0x0102040810204080u >> 56);
}

/* A chain's head and the head's `over', read as a pair under the stripe
 * word (a committer holding it writes both; N4's reader checks the word
 * unchanged around its load of the pair). */
typedef struct silo_vslot {
	silo_version_t *head;
	uint64_t over;
} silo_vslot_t;

/* A thread's nodes come from its chunks, in commit order: `over' grows
 * along a thread's chunks (the generations its commits read do), and a
 * chunk goes to reclamation whole once its largest `over' is done (N6). */
typedef struct silo_vchunk {
	struct silo_vchunk *next;   /* the thread's next (newer) chunk */
	uint64_t max_over;          /* the `over' of its last node */
	size_t n;                   /* nodes used */
	silo_version_t v[];
} silo_vchunk_t;

#define SILO_VCHUNK_BYTES    (32 * 1024)
#define SILO_VCHUNK_NODES    ((SILO_VCHUNK_BYTES - sizeof(silo_vchunk_t)) / sizeof(silo_version_t))

#define SILO_EPOCH(w)        (SILO_TID(w) >> SILO_SEQ_BITS)

/* N1: snap_word's fields. */
#define SILO_SNAP_GEN_SHIFT  24
#define SILO_SNAP_ONE_GEN    ((uint64_t)1 << SILO_SNAP_GEN_SHIFT)
#define SILO_SNAP_GEN(w)     ((w) >> SILO_SNAP_GEN_SHIFT)
#define SILO_SNAP_RUNNING(w) ((w) & (SILO_SNAP_ONE_GEN - 1))
_Static_assert(TM_SILO_ID_BITS < SILO_SNAP_GEN_SHIFT, "a runner per thread at most");

/* N6: the newest generation whose nodes no one who reads snap_word = w
 * (or later) will touch: w's own once no snapshot runs. */
static inline uint64_t silo_snap_done(uint64_t w)
{
	return SILO_SNAP_RUNNING(w) ? SILO_SNAP_GEN(w) - 1 : SILO_SNAP_GEN(w);
}

/* Per logical id, a line: the nodes in the id's chunks
 * (tm_snapshot_versions), written by its thread only. */
static inline uint64_t *silo_snap_count(unsigned id)
{
	return (uint64_t *)(silo.snap_counts + (size_t)id * POTM_CACHELINE);
}

static inline size_t silo_lock_index(const volatile uintptr_t *lock)
{
	return (size_t)(lock - silo.locks);
}

/* N3's slots, zeroed.  Mapped with their pages present when the table
 * is at most SILO_VTAB_PREFAULT_MAX bytes: from the first snapshot on,
 * every committer touches slots all over it, and faulting its pages in
 * one at a time, inside the commits, stalls them all until the table is
 * mapped (under a hypervisor a first touch may fault on the host too);
 * populating the mapping at once costs only the snapshot that makes it.
 * A larger table (POTM_LOCK_BITS well above the default) is left to fault
 * as it is touched. */
#define SILO_VTAB_PREFAULT_MAX ((size_t)64 << 20)

static silo_vslot_t *silo_vtab_map(size_t bytes)
{
	int populate = bytes <= SILO_VTAB_PREFAULT_MAX ? MAP_POPULATE : 0;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
	if (p == MAP_FAILED)
		potm_fatal("silo: cannot map %zu bytes for the snapshots' version "
		           "chains: %s", bytes, strerror(errno));
	return p;
}

static inline size_t silo_vtab_bytes(void)
{
	return (silo.mask + 1) * sizeof(silo_vslot_t);
}

/* N3: the chains, at the first snapshot. */
static void silo_snap_enable(void) __attribute__((noinline, cold));
static void silo_snap_enable(void)
{
	pthread_mutex_lock(&silo.snap_mu);
	if (__atomic_load_n(&silo.vtab, __ATOMIC_ACQUIRE) == NULL)
		__atomic_store_n(&silo.vtab, silo_vtab_map(silo_vtab_bytes()),
		                 __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&silo.snap_mu);
}

/* N1: start the snapshot of the running attempt.  vtab exists before
 * the step: a committer that sees the runner finds it. */
static void silo_snap_begin(silo_tx_t *tx)
{
	if (__atomic_load_n(&silo.vtab, __ATOMIC_ACQUIRE) == NULL)
		silo_snap_enable();
	uint64_t e0 = __atomic_load_n(&silo.epoch, __ATOMIC_SEQ_CST);
	uint64_t w = __atomic_add_fetch(&silo.snap_word, SILO_SNAP_ONE_GEN + 1,
	                                __ATOMIC_SEQ_CST);
	tx->snap_gen = SILO_SNAP_GEN(w);
	tx->snap_epoch = e0;   /* E starts at 1: never 0 */
}

static inline void silo_snap_end(silo_tx_t *tx)
{
	if (tx->snap_epoch) {
		__atomic_sub_fetch(&silo.snap_word, 1, __ATOMIC_RELEASE);
		tx->snap_epoch = 0;
		silo_snap(tx)->tids = tx->snap[tx->cur];
	}
}

/* N5: a snapshot's vector for tm.h's inline reads, filled after the
 * step.  A writer whose clock lacks the kept bit published a commit that
 * saw no runner, so it read snap_word before the step, as did every
 * earlier commit of that writer: its words no newer than the clock are
 * pre-G's.  So is every word of an epoch before E0.  Each writer's entry
 * is the larger of the two bounds: the second alone for a clock with the
 * bit, or an id with no commit yet. */
static void silo_snap_vector(silo_tx_t *tx)
{
	uint64_t b = (tx->snap_epoch << (SILO_SEQ_BITS + SILO_SEQ_SHIFT)) - 1;
	if (tx->snap_bound_for != tx->snap_epoch) {
		for (unsigned i = 0; i < silo.max_threads; i++)
			tx->snap_bound[i] = b;
		tx->snap_bound_for = tx->snap_epoch;
	}
	unsigned n = __atomic_load_n(&silo.nids, __ATOMIC_ACQUIRE);
	for (unsigned id = 0; id < n; id++) {
		uint64_t c = __atomic_load_n(silo_clock(id), __ATOMIC_SEQ_CST);
		tx->snap_bound[id] = !(c & SILO_KEPT) && c > b ? c : b;
	}
	silo_snap(tx)->tids = tx->snap_bound;
}

/* tm_declare_read_only's part: the attempt reads the snapshot.  Reads of
 * words of epoch < E0 stay inline (N5); what they log is never validated
 * (a transaction with no writes commits without phase 2). */
static void silo_declare_read_only(potm_thread_t *t)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	if (tl2_rs_count(&silo_snap(tx)->rs) != 0 || tx->ws.n != 0 ||
	    potm_lsd_unsettled(t))
		tm_misuse_("tm_declare_read_only after the transaction's first access "
		           "(declare it first, or use TM_BEGIN_RO)");
	silo_snap_begin(tx);
	silo_snap_vector(tx);
}

/* N4: n bytes at src, inside one stripe, as of the snapshot. */
static void silo_snap_read(silo_tx_t *tx, unsigned char *dst, const unsigned char *src, size_t n)
{
	volatile uintptr_t *lock = silo_lock_of(src);
	const silo_vslot_t *sl = &silo.vtab[silo_lock_index(lock)];
	uint64_t s = tx->snap_gen - 1;   /* nodes tagged above s are G's or later */
	for (unsigned spins = 0;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		if (l1 & SILO_LOCK) {
			if (++spins % SILO_LOCKED_SPINS == 0)
				sched_yield();
			potm_cpu_relax();
			continue;
		}
		if (n <= sizeof(uint64_t) && ((uintptr_t)src & (n - 1)) == 0 && (n & (n - 1)) == 0) {
			uint64_t v = tm_load_bytes_(src, (unsigned)n);   /* a typed read */
			/* Constant sizes: a copy of variable length is a call. */
			switch (n) {
			case 8: memcpy(dst, &v, 8); break;
			case 4: memcpy(dst, &v, 4); break;
			case 2: memcpy(dst, &v, 2); break;
			default: memcpy(dst, &v, 1); break;
			}
		} else {
			tl2_copy_in(dst, src, n);
		}
		bool newer = SILO_EPOCH(l1) >= tx->snap_epoch && (l1 & SILO_KEPT);
		/* The chain as it was with the bytes copied: the pair is
		 * written only under the stripe word. */
		const silo_version_t *head = NULL;
		uint64_t over = 0;
		if (newer) {
			head = __atomic_load_n(&sl->head, __ATOMIC_RELAXED);
			over = __atomic_load_n(&sl->over, __ATOMIC_RELAXED);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(lock, __ATOMIC_RELAXED) != l1)
			continue;
		if (!newer)
			return;
		/* Newest first: an older node's bytes overwrite a newer's; a
		 * node tagged before G is never touched (N6). */
		uintptr_t lo = (uintptr_t)src, hi = lo + n;
		for (const silo_version_t *v = head; v != NULL && over > s;
		     over = v->next_over, v = v->next) {
			uintptr_t va = SILO_VADDR(v);
			if (va + sizeof(tm_word_t) <= lo || va >= hi)
				continue;
			const unsigned char *old = (const unsigned char *)&v->old;
			unsigned kept = SILO_VKEPT(v);
			uintptr_t from = va > lo ? va : lo;
			uintptr_t to = va + sizeof(tm_word_t) < hi ? va + sizeof(tm_word_t) : hi;
			for (uintptr_t b = from; b < to; b++)
				if (kept >> (b - va) & 1)
					dst[b - lo] = old[b - va];
		}
		POTM_STAT_INC(&tx->th, reads);
		return;
	}
}

/* A typed read (size 1, 2, 4 or 8, aligned) of the snapshot: a word of
 * an epoch before E0 or without the kept bit is read here, without a
 * call; the rest as N4 says. */
static inline uint64_t silo_snap_load(silo_tx_t *tx, const void *a, unsigned size)
{
	volatile uintptr_t *lock = silo_lock_of(a);
	uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
	uint64_t v = tm_load_bytes_(a, size);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (likely(!(l1 & SILO_LOCK) &&
	           (SILO_EPOCH(l1) < tx->snap_epoch || !(l1 & SILO_KEPT)) &&
	           __atomic_load_n(lock, __ATOMIC_RELAXED) == l1)) {
		POTM_STAT_INC(&tx->th, reads);
		return v;
	}
	v = 0;
	silo_snap_read(tx, (unsigned char *)&v, a, size);
	return v;
}

/* N3: the committer of generation g that saw a runner, holding its
 * write set's words and past its validation, keeps what it will
 * overwrite. */
/* The blocks this attempt allocated, as address ranges sorted by start
 * (disjoint: live blocks); at most SILO_FRESH_MAX, more are not looked
 * up and their words are saved. */
static size_t silo_snap_fresh_ranges(silo_tx_t *tx)
{
	const potm_ptrvec_t *a = &tx->th.allocs;
	if (a->n == 0 || a->n > SILO_FRESH_MAX)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		uintptr_t lo = (uintptr_t)a->v[i], hi = lo + malloc_usable_size(a->v[i]);
		size_t j = i;
		for (; j > 0 && tx->fresh[j - 1][0] > lo; j--) {
			tx->fresh[j][0] = tx->fresh[j - 1][0];
			tx->fresh[j][1] = tx->fresh[j - 1][1];
		}
		tx->fresh[j][0] = lo;
		tx->fresh[j][1] = hi;
	}
	return a->n;
}

/* Is the word at addr inside one of the n ranges?  *hint: the last hit
 * (a record's words come one after another in the write set). */
static inline bool silo_snap_fresh(const silo_tx_t *tx, size_t n, uintptr_t addr, size_t *hint)
{
	if (n == 0)
		return false;
	if (addr >= tx->fresh[*hint][0] && addr < tx->fresh[*hint][1])
		return true;
	if (addr < tx->fresh[0][0] || addr >= tx->fresh[n - 1][1])
		return false;   /* outside them all (sorted, disjoint) */
	size_t lo = 0, hi = n;   /* the last range starting at or below addr */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (tx->fresh[mid][0] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (addr >= tx->fresh[lo][0] && addr < tx->fresh[lo][1]) {
		*hint = lo;
		return true;
	}
	return false;
}

/* Before phase 2: the chain slots the save will read and write (N3),
 * one per locked stripe, fetched while the read set is validated; each
 * is a cache miss of its own. */
static void silo_snap_prefetch_heads(const silo_tx_t *tx, silo_vslot_t *vt)
{
	for (size_t i = 0; i < tx->nheld; i++)
		__builtin_prefetch(&vt[silo_lock_index(tx->held[i].lock)], 1);
}

/* A node from the thread's newest chunk, a new chunk when it is full. */
static inline silo_version_t *silo_snap_node(silo_tx_t *tx, uint64_t over)
{
	silo_vchunk_t *c = tx->vc_new;
	if (unlikely(c == NULL || c->n == SILO_VCHUNK_NODES)) {
		c = potm_xmalloc(SILO_VCHUNK_BYTES);
		c->next = NULL;
		c->n = 0;
		if (tx->vc_new != NULL)
			tx->vc_new->next = c;
		else
			tx->vc_old = c;
		tx->vc_new = c;
	}
	c->max_over = over;
	tx->vnodes++;
	return &c->v[c->n++];
}

static void silo_snap_save(silo_tx_t *tx, silo_vslot_t *vt, uint64_t over)
{
	if (tx->slot_cap < tx->ws.n) {
		free(tx->slot_of);
		tx->slot_cap = 2 * tx->ws.n;
		tx->slot_of = potm_xmalloc(tx->slot_cap * sizeof *tx->slot_of);
	}
	/* The chains' heads of this generation, ahead of the walks
	 * below: each is another commit's node, likely a cache miss, and
	 * loaded one by one their misses would add up instead of overlap. */
	for (size_t i = 0; i < tx->ws.n; i++) {
		if (tx->ws.e[i].fresh)
			continue;
		silo_vslot_t *sl = &vt[silo_lock_index(silo_lock_of((const void *)tx->ws.e[i].addr))];
		tx->slot_of[i] = sl;
		if (sl->over == over)
			__builtin_prefetch(sl->head);
	}
	size_t nfresh = SIZE_MAX, hint = 0;   /* the ranges, looked up once needed */
	for (size_t i = 0; i < tx->ws.n; i++) {
		const tl2_wentry_t *w = &tx->ws.e[i];
		if (w->fresh)
			continue;   /* the caller's word (tm_write_fresh) */
		/* Fresh memory first: it needs neither the chain's slot nor
		 * its nodes, both likely cache misses. */
		if (nfresh == SIZE_MAX)
			nfresh = silo_snap_fresh_ranges(tx);
		if (silo_snap_fresh(tx, nfresh, w->addr, &hint))
			continue;
		silo_vslot_t *sl = tx->slot_of[i];
		/* The bytes saved earlier in the generation: in the nodes
		 * at the chain's head tagged `over' (N3). */
		unsigned have = 0;
		uint64_t o = sl->over;
		for (const silo_version_t *v = sl->head; v != NULL && o == over;
		     o = v->next_over, v = v->next)
			if (SILO_VADDR(v) == w->addr)
				have |= SILO_VKEPT(v);
		unsigned kept = silo_bits_of_bytes(w->mask) & ~have;
		if (kept == 0)
			continue;
		silo_version_t *v = silo_snap_node(tx, over);
		v->next = sl->head;
		v->next_over = sl->over;
		v->word = w->addr | (uintptr_t)kept << SILO_VKEPT_SHIFT;
		v->old = 0;
		if (kept == 0xff) {
			v->old = __atomic_load_n((const tm_word_t *)w->addr, __ATOMIC_RELAXED);
		} else if (kept == 0x0f || kept == 0xf0) {   /* a 4-byte field */
			unsigned off = kept == 0x0f ? 0 : 4;
			uint32_t half = __atomic_load_n((const uint32_t *)(w->addr + off),
			                                __ATOMIC_RELAXED);
			memcpy((unsigned char *)&v->old + off, &half, sizeof half);
		} else {
			for (unsigned k = 0; k < sizeof(tm_word_t); k++)
				if (kept >> k & 1)
					((unsigned char *)&v->old)[k] = __atomic_load_n(
						(const unsigned char *)w->addr + k, __ATOMIC_RELAXED);
		}
		/* Published by the stripe word's release (N4). */
		__atomic_store_n(&sl->head, v, __ATOMIC_RELAXED);
		__atomic_store_n(&sl->over, over, __ATOMIC_RELAXED);
	}
}

/* N6: hand the thread's chunks whose nodes are all of generation done
 * or older to reclamation, oldest first; the newest too once it is such
 * a chunk (the next save starts another). */
static void silo_snap_retire_chunks(silo_tx_t *tx, uint64_t done)
{
	void *dead[16];
	size_t n = 0;
	while (tx->vc_old != NULL && tx->vc_old->max_over <= done) {
		silo_vchunk_t *c = tx->vc_old;
		tx->vc_old = c->next;
		tx->vnodes -= c->n;
		dead[n++] = c;
		if (n == sizeof dead / sizeof dead[0]) {
			potm_reclaim_defer(&tx->th, dead, n);
			n = 0;
		}
	}
	if (tx->vc_old == NULL)
		tx->vc_new = NULL;
	if (n != 0)
		potm_reclaim_defer(&tx->th, dead, n);
}

/* After a commit of a thread that holds nodes: hand over the chunks no
 * one will touch again (N6), and free what came back from reclamation
 * (the commit's own path drains only in a thread that flushes frees). */
static void silo_snap_after_commit(silo_tx_t *tx)
{
	uint64_t done = silo_snap_done(__atomic_load_n(&silo.snap_word, __ATOMIC_SEQ_CST));
	if (tx->vc_old->max_over <= done) {
		silo_snap_retire_chunks(tx, done);
		potm_reclaim_drain(&tx->th);
	}
	uint64_t *count = silo_snap_count(tx->th.id);
	if (*count != tx->vnodes)
		__atomic_store_n(count, tx->vnodes, __ATOMIC_RELAXED);
}

/* The epoch thread, after storing E: the exited threads' chunks (N6). */
static void silo_snap_tick(void)
{
	pthread_mutex_lock(&silo.snap_mu);
	if (silo.orphan_chunks != NULL) {
		uint64_t done = silo_snap_done(__atomic_load_n(&silo.snap_word, __ATOMIC_SEQ_CST));
		for (silo_vchunk_t **p = &silo.orphan_chunks, *c; (c = *p) != NULL;) {
			if (c->max_over <= done) {
				*p = c->next;
				silo.orphan_nodes -= c->n;
				void *dead = c;
				potm_reclaim_defer(NULL, &dead, 1);
			} else {
				p = &c->next;
			}
		}
	}
	pthread_mutex_unlock(&silo.snap_mu);
}

/* A thread exits: its chunks go to the epoch thread (N6). */
static void silo_snap_thread_fini(silo_tx_t *tx)
{
	if (tx->vc_old != NULL) {
		pthread_mutex_lock(&silo.snap_mu);
		for (silo_vchunk_t *c = tx->vc_old, *next; c != NULL; c = next) {
			next = c->next;
			silo.orphan_nodes += c->n;
			c->next = silo.orphan_chunks;
			silo.orphan_chunks = c;
		}
		pthread_mutex_unlock(&silo.snap_mu);
	}
	tx->vc_old = tx->vc_new = NULL;
	tx->vnodes = 0;
	if (silo.snap_counts != NULL)
		__atomic_store_n(silo_snap_count(tx->th.id), 0, __ATOMIC_RELAXED);
}

/* tm_shutdown: no thread is left; free what the orphans hold. */
static void silo_snap_shutdown(void)
{
	if (silo.vtab != NULL)
		munmap(silo.vtab, silo_vtab_bytes());
	silo.vtab = NULL;
	for (silo_vchunk_t *c = silo.orphan_chunks, *next; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	silo.orphan_chunks = NULL;
	silo.orphan_nodes = 0;
	free(silo.snap_counts);
	silo.snap_counts = NULL;
	pthread_mutex_destroy(&silo.snap_mu);
}

/* The nodes in the threads' chunks and the exited threads' (N6). */
static size_t silo_snapshot_versions(void)
{
	size_t n = 0;
	unsigned ids = __atomic_load_n(&silo.nids, __ATOMIC_ACQUIRE);
	for (unsigned id = 0; id < ids; id++)
		n += __atomic_load_n(silo_snap_count(id), __ATOMIC_RELAXED);
	pthread_mutex_lock(&silo.snap_mu);
	n += silo.orphan_nodes;
	pthread_mutex_unlock(&silo.snap_mu);
	return n;
}

/* ---- aborts ------------------------------------------------------------- */

static void silo_release_held(silo_tx_t *tx)
{
	for (size_t i = 0; i < tx->nheld; i++)
		__atomic_store_n(tx->held[i].lock, tx->held[i].prev, __ATOMIC_RELEASE);
	tx->nheld = 0;
}

/* End of an attempt: empty the sets, close the read set to tm.h's inline
 * reads until the next begin. */
static void silo_reset(silo_tx_t *tx)
{
	silo_snap_end(tx);
	if (tx->ws.n)
		memset(tx->written_stripes, 0, sizeof tx->written_stripes);
	tl2_sets_reset(&tx->th, &silo_snap(tx)->rs, &tx->ws);
}

static void silo_abort(silo_tx_t *tx, int cause)
{
	silo_release_held(tx);
	silo_commit_over(tx);
	if (tl2_rs_count(&silo_snap(tx)->rs) > tx->lost_reads)
		tx->lost_reads = tl2_rs_count(&silo_snap(tx)->rs);
	silo_reset(tx);
	potm_tx_aborted(&tx->th, cause);
}

/* ---- reads ------------------------------------------------------------- */

/* A reader met a locked stripe: a committer is in phase 3 (or between
 * phases 1 and 2).  It never waits for a reader, so wait for it,
 * yielding now and then; abort only if it takes absurdly long. */
static inline void silo_wait_committer(silo_tx_t *tx, unsigned *spins)
{
	if (++*spins % SILO_LOCKED_SPINS == 0) {
		if (*spins > SILO_LOCKED_SPINS * SILO_LOCKED_YIELDS)
			silo_abort(tx, TM_ABORT_READ_LOCKED);
		sched_yield();
	}
	potm_cpu_relax();
}

/* Load size bytes at a consistently with the snapshot (S1, S2) and log
 * the stripe.  Returns the bytes in memcpy order. */
static inline __attribute__((always_inline)) uint64_t silo_load(silo_tx_t *tx, const void *a,
                                                                unsigned size)
{
	volatile uintptr_t *lock = silo_lock_of(a);
	unsigned spins = 0;
	for (;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (likely(l1 == l2 && !(l1 & SILO_LOCK))) {
			if (likely(silo_in_snapshot(silo_snap(tx)->tids, l1))) {
				tl2_rs_add(&silo_snap(tx)->rs, lock);
				return v;
			}
			if (silo_extend(tx))
				continue;
			silo_abort(tx, TM_ABORT_READ_VERSION);
		}
		if ((l1 | l2) & SILO_LOCK)
			silo_wait_committer(tx, &spins);
	}
}

/* The read set reached its end (tm.h's inline reads stop there): grow. */
static inline void silo_rs_room(silo_tx_t *tx)
{
	tl2_rset_t *rs = &silo_snap(tx)->rs;
	if (unlikely(rs->next >= rs->end)) {
		if (rs->next == rs->e + rs->cap)
			tl2_rs_grow(rs);
		tl2_rs_open(rs, true);
	}
}

tm_word_t tm_read(const tm_word_t *a)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_in_tx("tm_read");
	if (unlikely(tx->snap_epoch))
		return (tm_word_t)silo_snap_load(tx, a, sizeof *a);
	silo_rs_room(tx);
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a);
	if (e == NULL || e->mask == ~(tm_word_t)0)
		return e ? e->val : silo_load(tx, a, sizeof *a);
	return tl2_merge_bytes(silo_load(tx, a, sizeof *a), e->val, e->mask);
}

/* A new write-set stripe: fetch its word (and, while a snapshot runs, its
 * chain's slot, N3) now, so that the misses overlap the rest of the
 * transaction instead of stalling the commit. */
static inline void silo_prefetch_stripe(const void *a)
{
	volatile uintptr_t *lock = silo_lock_of(a);
	__builtin_prefetch((const void *)lock, 1, 3);
	if (SILO_SNAP_RUNNING(__atomic_load_n(&silo.snap_word, __ATOMIC_RELAXED)) != 0) {
		silo_vslot_t *vt = __atomic_load_n(&silo.vtab, __ATOMIC_RELAXED);
		if (vt != NULL)
			__builtin_prefetch(&vt[silo_lock_index(lock)], 1, 3);
	}
}

/* Buffer a write; fetch its stripe now (silo_prefetch_stripe). */
static inline __attribute__((always_inline)) void silo_write(silo_tx_t *tx, void *a, unsigned size,
                                                             uint64_t b)
{
	size_t n = tx->ws.n;
	tl2_ws_put(&tx->ws, a, size, b);
	if (tx->ws.n != n) {
		silo_prefetch_stripe(a);
		silo_mark_stripe_written(tx, a);
	}
}

/* Everything a whole-word write's common case leaves, out of line so
 * that the common case needs no frame. */
static void silo_write_word_slow(silo_tx_t *tx, tm_word_t *a, tm_word_t v) __attribute__((noinline));
static void silo_write_word_slow(silo_tx_t *tx, tm_word_t *a, tm_word_t v)
{
	silo_write(tx, a, sizeof *a, v);
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_writing("tm_write");
	enum tl2_ws_put put = TL2_WS_PUT_SLOW;
	if (likely(((uintptr_t)a & 7) == 0))
		put = tl2_ws_put_word(&tx->ws, (uintptr_t)a, v, SIZE_MAX, NULL);
	if (put == TL2_WS_PUT_APPENDED) {
		silo_prefetch_stripe(a);
		silo_mark_stripe_written(tx, a);
	} else if (put == TL2_WS_PUT_SLOW) {
		silo_write_word_slow(tx, a, v);
	}
}

/* tm_write_fresh: the word's current bytes are read by no snapshot, so
 * N1 keeps none of them (nor fetches its chain's slot).  Its common cases
 * take tm_write's (tl2_ws_put_word); the entry is then marked fresh. */
static void silo_write_fresh(tm_word_t *a, tm_word_t v)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_writing("tm_write_fresh");
	if (unlikely((uintptr_t)a & (sizeof *a - 1)))
		tm_misuse_("tm_write_fresh of an unaligned word");
	size_t n = tx->ws.n;
	tl2_wentry_t *e;
	if (tl2_ws_put_word(&tx->ws, (uintptr_t)a, v, SIZE_MAX, &e) == TL2_WS_PUT_SLOW) {
		e = tl2_ws_entry(&tx->ws, (uintptr_t)a);
		tl2_ws_fill(e, a, sizeof *a, v);
	}
	if (tx->ws.n != n) {   /* a new word */
		__builtin_prefetch((const void *)silo_lock_of(a), 1, 3);   /* no chain slot */
		silo_mark_stripe_written(tx, a);
	}
	e->fresh = true;
}

static inline __attribute__((always_inline)) uint64_t BACKEND_READ_BYTES(const void *a, unsigned size)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_in_tx("tm_read");
	if (unlikely(tx->snap_epoch))
		return silo_snap_load(tx, a, size);
	silo_rs_room(tx);
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a & ~(uintptr_t)7);
	if (e == NULL)
		return silo_load(tx, a, size);
	uint64_t mine, have;
	if (tl2_ws_covers(e, a, size, &mine, &have))
		return mine;
	return tl2_merge_bytes(silo_load(tx, a, size), mine, have);
}

static inline __attribute__((always_inline)) void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_writing("tm_write");
	silo_write(tx, a, size, b);
}

/* A range (tm_write_bytes): one entry per word, the stripe's prefetch and
 * the stripe filter's bit once per stripe (as silo_write's for a word). */
void tm_write_bytes(void *dst, const void *src, size_t n)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_writing("tm_write_bytes");
	if (n == 0)
		return;
	tl2_ws_put_bytes(&tx->ws, (uintptr_t)dst, src, n, SIZE_MAX);
	uintptr_t stripe = (uintptr_t)1 << silo.shift;
	uintptr_t end = (uintptr_t)dst + n;
	for (uintptr_t a = (uintptr_t)dst & ~(stripe - 1); a < end; a += stripe) {
		silo_prefetch_stripe((const void *)a);
		silo_mark_stripe_written(tx, (const void *)a);
	}
}

/* ---- byte ranges (tm_read_bytes), a stripe at a time as tl2's (tl2_sets.h's
 * copy and overlay) ---------------------------------------------------------- */

/* [src, src + n), inside one stripe, read as silo_load reads. */
static void silo_read_chunk(silo_tx_t *tx, unsigned char *dst, const unsigned char *src, size_t n)
{
	volatile uintptr_t *lock = silo_lock_of(src);
	unsigned spins = 0;
	for (;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		tl2_copy_in(dst, src, n);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (likely(l1 == l2 && !(l1 & SILO_LOCK))) {
			if (likely(silo_in_snapshot(silo_snap(tx)->tids, l1))) {
				tl2_rs_add(&silo_snap(tx)->rs, lock);
				return;
			}
			if (silo_extend(tx))
				continue;
			silo_abort(tx, TM_ABORT_READ_VERSION);
		}
		if ((l1 | l2) & SILO_LOCK)
			silo_wait_committer(tx, &spins);
	}
}

void tm_read_bytes(void *dst, const void *src, size_t n)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_in_tx("tm_read_bytes");
	unsigned char *d = dst;
	const unsigned char *s = src;
	uintptr_t stripe = (uintptr_t)1 << silo.shift;
	while (n > 0) {
		size_t len = stripe - ((uintptr_t)s & (stripe - 1));
		if (len > n)
			len = n;
		if (unlikely(tx->snap_epoch)) {
			silo_snap_read(tx, d, s, len);
		} else {
			silo_rs_room(tx);
			silo_read_chunk(tx, d, s, len);
		}
		if (tx->ws.n && silo_stripe_written(tx, s))
			tl2_ws_overlay(&tx->ws, d, s, len);
		d += len;
		s += len;
		n -= len;
	}
}

#define POTM_GEN_READ_SPEC 1
#define POTM_GEN_OWN_READ_BYTES 1
#define POTM_GEN_OWN_WRITE_BYTES 1
#include "access_gen.h"

/* ---- LSD-aware OCC (L1-L4) ------------------------------------------------ */

/* A snapshot (N4) resolves at once: its standard reads are final (no
 * commit-time settling, which could abort it), and a write is refused. */
static bool silo_lsd_lazy(potm_thread_t *t)
{
	return ((silo_tx_t *)t)->snap_epoch == 0;
}

static int silo_lsd_written(potm_thread_t *t, const void *a, unsigned size, uint64_t *b)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a & ~(uintptr_t)7);
	uint64_t have;
	if (e == NULL)
		return 0;
	if (tl2_ws_covers(e, a, size, b, &have))
		return 1;
	return have ? -1 : 0;
}

/* A consistent read of a free stripe, any TID: *word gets its word.
 * Waits for a committer as reads do, at most `spins' pauses when the
 * caller holds locks itself (then aborts: the holder may wait for us). */
static uint64_t silo_peek_word(silo_tx_t *tx, volatile uintptr_t *lock, const void *a,
                               unsigned size, uintptr_t *word, unsigned max_spins)
{
	for (unsigned spins = 0;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (likely(l1 == l2 && !(l1 & SILO_LOCK))) {
			*word = l1;
			return v;
		}
		if ((l1 | l2) & SILO_LOCK) {
			if (max_spins && ++spins > max_spins)
				silo_abort(tx, TM_ABORT_CONDITION);
			if (!max_spins)
				silo_wait_committer(tx, &spins);
			else
				potm_cpu_relax();
		}
	}
}

/* L2: lsd_is_true's values, the latest committed ones, not logged. */
static uint64_t silo_lsd_peek(potm_thread_t *t, const void *a, unsigned size)
{
	uintptr_t w;
	return silo_peek_word((silo_tx_t *)t, silo_lock_of(a), a, size, &w, 0);
}

/* L1: lsd_value's standard read. */
static uint64_t silo_lsd_resolve(potm_thread_t *t, const void *a, unsigned size)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	if (tx->snap_epoch)
		return silo_snap_load(tx, a, size);
	return silo_load(tx, a, size);
}

/* L3: an entry with no bytes yet, locked at the commit with the others;
 * the cookie is its index. */
static uint32_t silo_lsd_reserve(potm_thread_t *t, void *a, unsigned size)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	(void)size;
	uintptr_t word = (uintptr_t)a & ~(uintptr_t)7;
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, word);
	if (e == NULL) {
		e = tl2_ws_add(&tx->ws, word);
		silo_prefetch_stripe(a);
	}
	return (uint32_t)(e - tx->ws.e);
}

/* L3: a lazy write's value into its reserved entry. */
static void silo_lsd_put(potm_thread_t *t, void *a, unsigned size, uint64_t b, uint32_t cookie)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	if (cookie == POTM_LSD_NO_COOKIE) {
		silo_write(tx, a, size, b);
		return;
	}
	tl2_wentry_t *e = &tx->ws.e[cookie];
	unsigned off = (unsigned)((uintptr_t)a & 7);
	if (size == sizeof(tm_word_t)) {
		e->val = b;
		e->mask = ~(tm_word_t)0;
	} else {
		memcpy((char *)&e->val + off, &b, size);
		memset((char *)&e->mask + off, 0xff, size);
	}
	silo_mark_stripe_written(tx, a);
}

static const potm_lsd_ops_t silo_lsd_ops = {
	.lazy = silo_lsd_lazy,
	.written = silo_lsd_written,
	.peek = silo_lsd_peek,
	.resolve = silo_lsd_resolve,
	.reserve = silo_lsd_reserve,
};

/* A word locked by this transaction: the lock bit and our id. */
static inline bool silo_mine(const silo_tx_t *tx, uintptr_t w)
{
	return (w & SILO_LOCK) && tm_silo_writer_(w) == tx->th.id;
}

/* L4: a future's value at the commit.  A stripe this transaction locked
 * holds the value before it (write-back comes later); any other is read
 * free, and its word kept for the check after phase 2. */
static uint64_t silo_lsd_read_at_commit(potm_thread_t *t, const void *a, unsigned size)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	volatile uintptr_t *lock = silo_lock_of(a);
	if (silo_mine(tx, __atomic_load_n(lock, __ATOMIC_ACQUIRE)))
		return tm_load_bytes_(a, size);
	uintptr_t w;
	uint64_t v = silo_peek_word(tx, lock, a, size, &w,
	                            tx->nheld ? SILO_LOCKED_SPINS : 0);
	if (tx->ncond == tx->cond_cap) {
		tx->cond_cap = tx->cond_cap ? tx->cond_cap * 2 : 16;
		tx->cond = potm_xrealloc(tx->cond, tx->cond_cap * sizeof *tx->cond);
	}
	tx->cond[tx->ncond++] = (silo_held_t){ .lock = lock, .prev = w };
	return v;
}

/* L4: the conditions, then the lazy writes, on the words as they are now
 * (phase 1 done, if the transaction writes); returns the highest TID
 * they read. */
static uint64_t silo_lsd_settle(silo_tx_t *tx)
{
	tx->ncond = 0;
	if (!potm_lsd_settle(&tx->th, silo_lsd_read_at_commit, silo_lsd_put, false))
		silo_abort(tx, TM_ABORT_CONDITION);
	uint64_t tid_max = 0;
	for (size_t i = 0; i < tx->ncond; i++)
		if (SILO_TID(tx->cond[i].prev) > tid_max)
			tid_max = SILO_TID(tx->cond[i].prev);
	return tid_max;
}

/* L4: after phase 2, every word a condition read is still as it was. */
static void silo_lsd_recheck(silo_tx_t *tx)
{
	for (size_t i = 0; i < tx->ncond; i++)
		if (__atomic_load_n(tx->cond[i].lock, __ATOMIC_ACQUIRE) != tx->cond[i].prev)
			silo_abort(tx, TM_ABORT_CONDITION);
}

/* L4 for a transaction that wrote nothing but holds conditions: no lock,
 * the same order of checks. */
static void silo_lsd_commit_read_only(silo_tx_t *tx)
{
	silo_lsd_settle(tx);
	if (!silo_unchanged(tx, silo_snap(tx)->tids))
		silo_abort(tx, TM_ABORT_VALIDATE);
	silo_lsd_recheck(tx);
}

/* ---- begin / commit ----------------------------------------------------- */

static inline bool silo_starving(const silo_tx_t *tx)
{
	unsigned a = tx->th.attempt;
	return a >= SILO_STARVING_ABORTS ||
	       (a >= SILO_LONG_ABORTS && tx->lost_reads >= SILO_LONG_READS);
}

static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
	silo_tx_t *tx = (silo_tx_t *)d;
	if (unlikely(tx->th.attempt >= SILO_LONG_ABORTS) && !tx->token && silo_starving(tx))
		silo_take_token(tx);
	tx->vmax[tx->cur] = silo_copy_clocks(tx->snap[tx->cur]);
	tl2_rs_open(&silo_snap(tx)->rs, true);
}

/* held[] has room for one stripe per write-set entry. */
static inline void silo_held_room(silo_tx_t *tx)
{
	if (tx->held_cap < tx->ws.n) {
		free(tx->held);
		tx->held_cap = tx->ws.n * 2;
		tx->held = potm_xmalloc(tx->held_cap * sizeof *tx->held);
	}
}

/* The write set's stripe words into held[], in write-set order (a word
 * repeated right after itself once: a record's words share stripes;
 * others as often as they come, which silo_sort_locks drops); returns how
 * many.  For phase 1's ordered path. */
static size_t silo_collect_locks(silo_tx_t *tx)
{
	silo_held_room(tx);
	size_t n = 0;
	uintptr_t last = 0;   /* the stripe of the entry before (0: none yet;
	                         stripe 0 holds no object) */
	/* In locals: the stores to held could alias them. */
	silo_held_t *const held = tx->held;
	const tl2_wentry_t *const set = tx->ws.e, *const end = set + tx->ws.n;
	const unsigned shift = silo.shift;
	for (const tl2_wentry_t *e = set; e < end; e++) {
		uintptr_t stripe = e->addr >> shift;
		if (stripe == last)
			continue;   /* the word after it in one record: held[n - 1] */
		last = stripe;
		volatile uintptr_t *l = silo_lock_of((const void *)e->addr);
		if (n == 0 || held[n - 1].lock != l)
			held[n++].lock = l;
	}
	return n;
}

static int silo_held_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const silo_held_t *)a)->lock;
	uintptr_t y = (uintptr_t)((const silo_held_t *)b)->lock;
	return (x > y) - (x < y);
}

/* held[0, n) in address order, each once; returns how many. */
static size_t silo_sort_locks(silo_tx_t *tx, size_t n)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {   /* insertion sort: most sets are small */
			silo_held_t h = tx->held[i];
			size_t j = i;
			for (; j > 0 && tx->held[j - 1].lock > h.lock; j--)
				tx->held[j] = tx->held[j - 1];
			tx->held[j] = h;
		}
	} else {
		qsort(tx->held, n, sizeof *tx->held, silo_held_cmp);
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || tx->held[m - 1].lock != tx->held[i].lock)
			tx->held[m++] = tx->held[i];
	return m;
}

/* Lock h (word l, free) as ours: the lock bit and our id over its TID.
 * Returns false if the word changed meanwhile. */
static inline bool silo_try_lock(silo_tx_t *tx, silo_held_t *h, uintptr_t l)
{
	uintptr_t ids = (((uintptr_t)1 << TM_SILO_ID_BITS) - 1) << 1;
	uintptr_t mine = (l & ~ids) | (uintptr_t)tx->th.id << 1 | SILO_LOCK;
	if (!__atomic_compare_exchange_n(h->lock, &l, mine, false, __ATOMIC_ACQUIRE,
	                                 __ATOMIC_RELAXED))
		return false;
	h->prev = l;
	if (!silo_in_snapshot(silo_snap(tx)->tids, l))
		tx->stale_held = true;
	return true;
}

/* Phase 1.  First in write-set order without waiting: a stripe locked by
 * another committer releases what we took.  Then, after such a
 * conflict, in address order, waiting for each held lock: a committer
 * waits only in that global order, and never while it holds a lock out
 * of it, so no cycle of waits (no deadlock).  Returns the highest TID of
 * the words locked. */
static uint64_t silo_lock_write_set(silo_tx_t *tx)
{
	silo_held_room(tx);
	uint64_t tid_max = 0;
	tx->stale_held = false;
	/* The first pass walks the write set itself: a stripe the entry
	 * before shared is skipped, one already ours (locked earlier in the
	 * pass) too, each other stripe is locked and appended to held[]. */
	size_t n = 0;
	uintptr_t last = 0;   /* as in silo_collect_locks */
	silo_held_t *const held = tx->held;   /* not reloaded after each atomic */
	const tl2_wentry_t *e = tx->ws.e, *const end = e + tx->ws.n;
	const unsigned shift = silo.shift;
	for (; e < end; e++) {
		uintptr_t stripe = e->addr >> shift;
		if (stripe == last)
			continue;
		last = stripe;
		volatile uintptr_t *lock = silo_lock_of((const void *)e->addr);
		uintptr_t l = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (l & SILO_LOCK) {
			if (!silo_mine(tx, l))
				break;
			continue;   /* a stripe of ours further up the list */
		}
		held[n].lock = lock;
		if (!silo_try_lock(tx, &held[n], l))
			break;
		n++;
		if (SILO_TID(l) > tid_max)
			tid_max = SILO_TID(l);
	}
	if (likely(e == end)) {
		tx->nheld = n;
		return tid_max;
	}
	for (size_t k = 0; k < n; k++)
		__atomic_store_n(held[k].lock, held[k].prev, __ATOMIC_RELEASE);
	n = silo_sort_locks(tx, silo_collect_locks(tx));
	tid_max = 0;
	tx->stale_held = false;
	size_t i;
	for (i = 0; i < n; i++) {
		silo_held_t *h = &tx->held[i];
		for (unsigned spins = 0;;) {
			uintptr_t l = __atomic_load_n(h->lock, __ATOMIC_RELAXED);
			if (!(l & SILO_LOCK) && silo_try_lock(tx, h, l))
				break;
			if (++spins % SILO_LOCKED_SPINS == 0)
				sched_yield();
			potm_cpu_relax();
		}
		tx->nheld = i + 1;
		if (SILO_TID(h->prev) > tid_max)
			tid_max = SILO_TID(h->prev);
	}
	return tid_max;
}

/* Phase 2 for a stripe we locked: was its word before our lock the one
 * we read (no newer than the snapshot)?  Known at once unless some
 * locked word was newer (a blind write's, or a change). */
static bool silo_held_unchanged(const silo_tx_t *tx, const volatile uintptr_t *p)
{
	if (!tx->stale_held)
		return true;
	for (size_t i = 0; i < tx->nheld; i++)
		if (tx->held[i].lock == p)
			return silo_in_snapshot(tx->th.txd.snap.tids, tx->held[i].prev);
	return false;
}

static void silo_commit(silo_tx_t *tx)
{
	silo_commit_announce(tx);
	uint64_t tid_max = silo_lock_write_set(tx);
	if (SILO_TID(tx->last) > tid_max)
		tid_max = SILO_TID(tx->last);
	/* The fence that ends phase 1: E is read after every lock is taken
	 * and before any read is validated (S3); the conditions' words are
	 * read in between (L4), so their epochs are at most E too. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	bool lsd = potm_lsd_unsettled(&tx->th);
	if (unlikely(lsd)) {
		uint64_t c = silo_lsd_settle(tx);
		if (c > tid_max)
			tid_max = c;
	}
	/* The snapshot word, then E, sequentially consistent (N1, N4); a
	 * runner up: keep what snapshots may read (N3), in vtab, which its
	 * snapshot made before its step. */
	uint64_t snap_word = __atomic_load_n(&silo.snap_word, __ATOMIC_SEQ_CST);
	uint64_t epoch = __atomic_load_n(&silo.epoch, __ATOMIC_SEQ_CST);
	silo_vslot_t *vt = NULL;
	if (unlikely(SILO_SNAP_RUNNING(snap_word) != 0)) {
		vt = __atomic_load_n(&silo.vtab, __ATOMIC_ACQUIRE);
		silo_snap_prefetch_heads(tx, vt);
	}
	/* The TID: above everything written, every word read (each no newer
	 * than the snapshot, whose largest word bounds them) and the
	 * thread's last, in epoch E (the smallest such). */
	const tm_snap_t *s = silo_snap(tx);
	if (SILO_TID(tx->vmax[tx->cur]) > tid_max)
		tid_max = SILO_TID(tx->vmax[tx->cur]);
	uint64_t tid = tid_max + 1;
	if ((tid >> SILO_SEQ_BITS) < epoch)
		tid = epoch << SILO_SEQ_BITS;
	if (unlikely(silo.global_tid)) {
		/* The shared counter's next value, when it satisfies the same
		 * rules as the TID above: greater than tid_max (every TID read
		 * or written and the thread's last, so per-stripe and
		 * per-thread order hold) and in epoch E.  It usually does:
		 * every TID we saw was drawn, or raised the counter, before we
		 * saw it.  Otherwise (the first commit of an epoch, or a draw
		 * already in E + 1) the TID above stands and the counter is
		 * raised to it, so later draws follow it.  Correctness never
		 * rests on the counter, only its cost: relaxed suffices. */
		uint64_t g = __atomic_add_fetch(&silo.gtid, 1, __ATOMIC_RELAXED);
		if (g > tid_max && (g >> SILO_SEQ_BITS) == epoch)
			tid = g;
		else
			while (g < tid && !__atomic_compare_exchange_n(&silo.gtid, &g, tid, true,
			                                               __ATOMIC_RELAXED,
			                                               __ATOMIC_RELAXED))
				;
	}
	/* The kept bit when the commit saves (N4, N5): in the stripe words
	 * and the clock alike. */
	uintptr_t word = (uintptr_t)tid << SILO_SEQ_SHIFT | (uintptr_t)tx->th.id << 1 |
	                 (vt != NULL ? SILO_KEPT : 0);
	/* Publish (S1: the write set is locked), then a full fence before
	 * looking at the others' clocks (S5). */
	tx->last = word;
	__atomic_store_n(silo_clock(tx->th.id), word, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Phase 2: every stripe read unchanged (S2) and not locked by
	 * another committer; nothing to check if nobody published since
	 * the snapshot (S5). */
	if (!silo_clocks_unchanged(tx, s->tids)) {
		for (const volatile uintptr_t **p = s->rs.e; p < s->rs.next; p++) {
			uintptr_t l = __atomic_load_n(*p, __ATOMIC_ACQUIRE);
			if (l & SILO_LOCK) {
				if (!silo_mine(tx, l) || !silo_held_unchanged(tx, *p))
					silo_abort(tx, TM_ABORT_VALIDATE);
			} else if (!silo_in_snapshot(s->tids, l)) {
				silo_abort(tx, TM_ABORT_VALIDATE);
			}
		}
	}
	if (unlikely(lsd))
		silo_lsd_recheck(tx);
	/* Phase 3: keep what snapshots may read (N3), write back, release
	 * with the new word. */
	if (unlikely(vt != NULL))
		silo_snap_save(tx, vt, SILO_SNAP_GEN(snap_word));
	for (size_t i = 0; i < tx->ws.n; i++)
		tl2_ws_store_entry(&tx->ws.e[i], NULL);
	for (size_t i = 0; i < tx->nheld; i++)
		__atomic_store_n(tx->held[i].lock, word, __ATOMIC_RELEASE);
	tx->nheld = 0;
	silo_commit_over(tx);
}

static inline bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	silo_tx_t *tx = (silo_tx_t *)d;
	bool ro = tx->ws.n == 0;
	if (!ro)
		silo_commit(tx);
	else if (unlikely(potm_lsd_unsettled(&tx->th)))
		silo_lsd_commit_read_only(tx);
	silo_drop_token(tx);
	silo_reset(tx);
	if (unlikely(tx->vc_old != NULL))
		silo_snap_after_commit(tx);
	return ro;
}

#include "tx_gen.h"

void tm_restart(void)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_in_tx("tm_restart");
	silo_abort(tx, TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	silo_tx_t *tx = (silo_tx_t *)potm_self_in_tx("tm_cancel");
	silo_release_held(tx);
	silo_commit_over(tx);
	silo_drop_token(tx);
	silo_reset(tx);
	potm_tx_cancelled(&tx->th);
}

/* ---- life cycle --------------------------------------------------------- */

static void silo_free_tables(void)
{
	free((void *)silo.locks);
	silo.locks = NULL;
	free(silo.clocks);
	silo.clocks = NULL;
	free(silo.committing);
	silo.committing = NULL;
}

static int silo_init(const tm_config_t *cfg)
{
	if (silo_parse_epoch_ms() != 0)
		return -1;
	silo.global_tid = cfg->silo_global_tid != 0;
	silo.gtid = 0;
	if (cfg->max_threads > (1u << TM_SILO_ID_BITS))
		return potm_error("silo: POTM_MAX_THREADS=%u is more than the %u "
		                  "writer ids a stripe word holds", cfg->max_threads,
		                  1u << TM_SILO_ID_BITS);
	size_t n = (size_t)1 << cfg->lock_bits;
	silo.locks = calloc(n, sizeof(uintptr_t));
	if (silo.locks == NULL)
		return potm_error("silo: cannot allocate %zu stripe words (POTM_LOCK_BITS=%u)",
		                  n, cfg->lock_bits);
	silo.mask = n - 1;
	silo.shift = cfg->stripe_shift;
	silo.skew_shift = cfg->stripe_shift + cfg->lock_bits - cfg->lock_bits / 2;
	silo.max_threads = cfg->max_threads;
	silo.clocks = potm_xcalloc(cfg->max_threads, POTM_CACHELINE);
	silo.committing = potm_xcalloc(cfg->max_threads, POTM_CACHELINE);
	silo.asym = potm_membarrier_ok;
	silo.nids = 0;
	silo.token = 0;
	silo.epoch = 1;   /* every TID of a commit is above the initial words (0) */
	silo.epoch_stop = false;
	silo.vtab = NULL;
	silo.snap_word = 0;
	silo.orphan_chunks = NULL;
	silo.orphan_nodes = 0;
	silo.snap_counts = potm_xcalloc(cfg->max_threads, POTM_CACHELINE);
	pthread_mutex_init(&silo.snap_mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&silo.epoch_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&silo.epoch_mu, NULL);
	int rc = pthread_create(&silo.epoch_thread, NULL, silo_epoch_main, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&silo.epoch_cv);
		pthread_mutex_destroy(&silo.epoch_mu);
		silo_snap_shutdown();
		silo_free_tables();
		return potm_error("silo: cannot start the epoch thread: %s", strerror(rc));
	}
	silo.epoch_running = true;
	return 0;
}

static void silo_shutdown(void)
{
	if (silo.epoch_running) {
		pthread_mutex_lock(&silo.epoch_mu);
		silo.epoch_stop = true;
		pthread_cond_signal(&silo.epoch_cv);
		pthread_mutex_unlock(&silo.epoch_mu);
		pthread_join(silo.epoch_thread, NULL);
		pthread_cond_destroy(&silo.epoch_cv);
		pthread_mutex_destroy(&silo.epoch_mu);
		silo.epoch_running = false;
	}
	silo_snap_shutdown();
	silo_free_tables();
}

static int silo_thread_init(potm_thread_t *t)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	tm_snap_t *s = &t->txd.snap;
	tl2_rs_init(&s->rs);
	tl2_ws_init(&tx->ws, &s->written);
	s->locks = silo.locks;
	s->lock_mask = silo.mask;
	s->skew_shift = silo.skew_shift;
	s->shift = silo.shift;
	tx->snap[0] = potm_xcalloc(silo.max_threads, sizeof(uint64_t));
	tx->snap[1] = potm_xcalloc(silo.max_threads, sizeof(uint64_t));
	tx->snap_bound = potm_xcalloc(silo.max_threads, sizeof(uint64_t));
	tx->snap_bound_for = 0;
	tx->cur = 0;
	s->tids = tx->snap[0];
	/* An id's TIDs keep growing across the threads that hold it. */
	tx->last = __atomic_load_n(silo_clock(t->id), __ATOMIC_ACQUIRE);
	unsigned want = t->id + 1, have = __atomic_load_n(&silo.nids, __ATOMIC_RELAXED);
	while (have < want &&
	       !__atomic_compare_exchange_n(&silo.nids, &have, want, false,
	                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return 0;
}

static void silo_thread_fini(potm_thread_t *t)
{
	silo_tx_t *tx = (silo_tx_t *)t;
	tl2_sets_free(&silo_snap(tx)->rs, &tx->ws);
	free(tx->snap[0]);
	free(tx->snap[1]);
	free(tx->snap_bound);
	tx->snap[0] = tx->snap[1] = tx->snap_bound = NULL;
	t->txd.snap.tids = NULL;
	free(tx->held);
	tx->held = NULL;
	tx->held_cap = 0;
	free(tx->slot_of);
	tx->slot_of = NULL;
	tx->slot_cap = 0;
	free(tx->cond);
	tx->cond = NULL;
	tx->cond_cap = 0;
	silo_snap_thread_fini(tx);
	potm_undo_free(&t->txd.undo);
}

static const char *const silo_env[] = { "POTM_SILO_EPOCH_MS", NULL };

const potm_backend_t potm_backend = {
	.name = "silo",
	.thread_size = sizeof(silo_tx_t),
	.init = silo_init,
	.shutdown = silo_shutdown,
	.thread_init = silo_thread_init,
	.thread_fini = silo_thread_fini,
	.env = silo_env,
	.lsd = &silo_lsd_ops,
	.declare_read_only = silo_declare_read_only,
	.snapshot_versions = silo_snapshot_versions,
	.write_fresh = silo_write_fresh,
};

/* ---- the redo log's view of commits (lib/store/log.c) --------------------
 * Plain accessors, called outside the commit: the log stamps a commit with
 * its TID (S3: per stripe, TIDs grow with the commit order, and epochs
 * agree with the serial order) and bounds the TIDs of commits to come by
 * the epoch (a commit reads E after the caller read it, so its TID is at
 * least E << SILO_SEQ_BITS). */

uint64_t potm_silo_epoch(void);
uint64_t potm_silo_last_tid(void);
unsigned potm_silo_seq_bits(void);

uint64_t potm_silo_epoch(void)
{
	return __atomic_load_n(&silo.epoch, __ATOMIC_SEQ_CST);
}

/* The TID of the calling thread's last commit that wrote (0: none). */
uint64_t potm_silo_last_tid(void)
{
	const silo_tx_t *tx = (const silo_tx_t *)potm_self();
	return tx != NULL ? SILO_TID(tx->last) : 0;
}

unsigned potm_silo_seq_bits(void)
{
	return SILO_SEQ_BITS;
}

/* The bytes the running attempt wrote in each of r[0..n) (two ranges
 * disjoint or equal), as the log's pieces (lib/log_written.h: from the write set,
 * which holds every write).  0. */
int potm_silo_log_written(tm_log_range_t *r, size_t n, const tm_log_index_t *ix);

int potm_silo_log_written(tm_log_range_t *r, size_t n, const tm_log_index_t *ix)
{
	const silo_tx_t *tx = (const silo_tx_t *)potm_self();
	potm_log_written_(&tx->ws, r, n, ix);
	return 0;
}
