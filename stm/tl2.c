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
 *    (opacity), even one that is doomed to abort.  The common case (stripe
 *    free and old enough, word not written by us) runs inline in the
 *    program (tm.h, tm_snap_t: the snapshot and read set live in the
 *    descriptor); everything else comes here.  A byte range
 *    (tm_read_bytes: the store's strings) is read a stripe at a time, one
 *    lock check and one read-set entry per stripe.  A stripe's lock is
 *    tm_lock_index_'s (txd.h): a plain mask with a skew per region of the
 *    table's coverage.
 *  - Writes are deferred to a write set (a Bloom filter, which the inline
 *    reads test too, plus, for large sets, a hash index whose filter takes
 *    over, for read-after-write).  Sub-word writes carry a byte
 *    mask, so write-back never touches the neighbouring bytes.
 *  - Commit: lock the write set, take wv = ++clock, validate the read set
 *    (skipped when nobody committed since rv), write back, release the locks
 *    with version wv.  A transaction that wrote nothing commits right away:
 *    its snapshot was consistent at rv.
 *  - Snapshot extension (POTM_EXTEND=1, the default; LSA/TinySTM style):
 *    a read that meets a version newer than rv first revalidates the read
 *    set and moves rv to the current clock, rather than aborting.
 *  - Contention management: abort, back off (randomized exponential),
 *    retry.  Every abort is counted under its cause.  A reader that meets
 *    a locked stripe waits for the committer instead of aborting.  A
 *    transaction that keeps losing long attempts (a long read set
 *    invalidated again and again by short updates) takes the commit
 *    token: until it commits, no other update commits, so its snapshot
 *    stays valid and it finishes.  Holding the token, it runs irrevocably
 *    (below): plain reads, writes in place.
 *
 * Irrevocable mode (the starving transaction, as Pot's fast mode):
 *  I1 (drain) A committer announces itself (its committing word, then a
 *     fence) before it reads the token, and clears the word when its
 *     commit is over.  The starving transaction takes the token, runs a
 *     full barrier on every thread (membarrier; without it both sides
 *     fence), then waits for every committing word to clear.  Either the
 *     committer saw the token and backed off before locking anything, or
 *     its commit finishes first.  From then on nobody commits an update
 *     until the token is dropped: the holder's snapshot (rv = clock) can
 *     never be invalidated, so its reads are plain loads (no read set, no
 *     validation) and its writes go in place, with an undo log for
 *     tm_restart/tm_cancel.
 *  I2 (opacity) Before its first store to a stripe the holder sets the
 *     stripe's lock word to TL2_IRREVOCABLE (odd: locked, by no write set)
 *     and a release fence; after its last store (release fence) it sets
 *     them to its commit version wv = ++clock.  Others see a stripe locked
 *     by a committer: a read waits, a validation fails, as for any commit.
 *  I3 (rollback) tm_restart and tm_cancel restore the old bytes and
 *     release the stripes with a new version wv = ++clock, as a commit
 *     would.  Not the version they had: a reader that loaded the lock word
 *     before the mark and the value while it was overwritten would then
 *     find the same word after the release and accept a value that never
 *     committed (A-B-A); the new version makes its load fail.  At worst a
 *     spurious conflict for an older snapshot.
 *  I4 (escalation) A transaction whose write set reaches
 *     POTM_PROMOTE_WRITES words (long update traversals that rewrite the
 *     same words many times) tries the token without waiting; if it gets
 *     it, it drains (I1), checks that its snapshot is still current
 *     (nobody committed since rv, or its read set is valid; if not it
 *     aborts, and its retry, holding the token, runs in place from the
 *     start), then marks and stores its write set in place (I2, the old
 *     bytes logged for I3) and goes on irrevocably.  Its buffered writes
 *     and read set are dropped: nobody can commit until it does, so a
 *     write set that would be looked up and written back again and again
 *     is written once.  The price is other threads' commits waiting
 *     meanwhile, as for a starving transaction; if the token is taken the
 *     transaction goes on as TL2 and tries again at twice the size.
 *     (Not Pot's live promotion, which a turn, not a size, triggers: see
 *     stm/pot.c.)
 *
 * Shared snapshots (long readers, the read-side twin of I4):
 *  R1 (sharing) A transaction that has read POTM_PROMOTE_READS stripes
 *     and written nothing (a long read-only traversal, whose validation
 *     and read-set logging cost more than its reads) takes a reader
 *     share: it counts itself in tl2.readers, checks that no token is
 *     held, drains the commits in flight (I1) and checks its snapshot (as
 *     I4).  From then on its reads are plain loads: no update commits
 *     while a share is held, so the snapshot stays current.  Several
 *     readers share at once; updates still run beside them, only their
 *     commits wait.  A transaction that reaches the mark having written
 *     cannot share (a shared reader writes only after taking the token,
 *     R3) and tries escalation instead (I4).
 *  R2 (exclusion) A committer announces itself, then backs off while a
 *     share or the token is held (I1's handshake, readers added); a
 *     token holder drains the shares as it drains the commits.  A reader
 *     re-checks the token after counting itself, so either it sees the
 *     token and backs off, or the holder sees its share and waits.  A
 *     committer that waits for readers raises tl2.commit_waiters, and no
 *     new share is taken meanwhile: readers cannot starve updates.
 *  R3 (upgrade) A shared reader that writes takes the token, waits until
 *     its share is the only one, and goes on irrevocably (I2-I3): nobody
 *     committed since its snapshot.  If the token is taken it aborts (the
 *     holder may be waiting for its share).
 *
 * Serial mode (POTM_SERIAL=1; libitm's serial-irrevocable mode):
 *  S1 (gate) Every attempt starts by raising its thread's active word,
 *     then (fence, or the holder's membarrier) reads tl2.serial; if set
 *     it lowers the word and waits.  The serial transaction holds the
 *     token, sets tl2.serial, drains (I1) and waits until every other
 *     active word is down.  Either an attempt saw tl2.serial, or the
 *     holder sees its word and waits for the attempt to end; from then on
 *     no other attempt runs until tl2.serial drops (release, after the
 *     last store).  So nobody can see its stores before it commits:
 *     they need no marks (I2) and no new versions, and its body may use
 *     plain loads and stores (tm_serial(): an uninstrumented clone).
 *     Writes through TM_STORE are still undo-logged (I3).
 *  S2 (no waiting inside) An attempt never waits for a serial holder
 *     while its word is up: the holder waits for it.  So a committer that
 *     finds the token held by a serial transaction commits (past the
 *     reader shares, R2): the token only keeps the holder's snapshot
 *     valid, and a serial transaction has none until every attempt under
 *     way has ended.  The others an attempt may wait for (a committer's
 *     locks, reader shares) never wait for the holder.
 *  S3 (when) A transaction whose write set reaches POTM_SERIAL_WRITES
 *     (which takes the place of I4's mark) aborts (cause serial) and
 *     restarts serially, so that its body can take the clone from the
 *     start: the work lost is the attempt up to the mark, so that mark
 *     is later than escalation's, which keeps the attempt (by default
 *     2,048 words against 256, so that transactions of a few hundred
 *     words are not restarted).  A starving one takes the token and runs
 *     serially too, and so does one the program said is long
 *     (tm_hint_serial), from its first attempt.  Waiting at the gate, an
 *     attempt stays in its read-side section (lib/reclaim.c): a grace
 *     period waits for the serial transaction, which nobody blocks on.
 *
 * LSD-aware OCC (Vale's thesis, Figure 4.4; <potm/lsd.h>, lib/lsd.c keeps
 * the futures, the condition set and the lazy writes):
 *  O1 (futures) lsd_read makes a future and reads nothing; the read set
 *     does not see it.  lsd_value binds the futures it reaches through
 *     tl2_load (snapshot, read set), as a standard read of memory.
 *  O2 (conditions) lsd_is_true evaluates its condition on the words'
 *     latest committed values (tl2_lsd_peek: a read of the word, not
 *     logged, that waits for an in-place writer only, O6) and the
 *     answer joins the condition set.  A condition gives no opacity:
 *     its answer may come from a later state than the snapshot, and is
 *     checked at the commit; concrete reads keep theirs.
 *  O3 (lazy writes) lsd_write reserves its word in the write set (an
 *     entry with no bytes yet), so the commit locks it with the others.
 *  O4 (condition validation) The commit locks the write set, takes wv,
 *     validates the read set, then evaluates every condition on the state
 *     at wv: a word whose stripe it locked holds the value before this
 *     transaction (write-back has not begun), any other is read free and
 *     no newer than wv (else abort: its value at wv is gone).  An answer
 *     that changed aborts (cause condition).  The lazy writes are then
 *     evaluated on the same state and merged into their reserved entries,
 *     in program order, and installed with the concrete writes at wv.  So
 *     the transaction takes effect at wv as if every future had been read
 *     there.  A transaction with conditions and no writes validates them
 *     too, at the clock it reads when it commits, then its read set.
 *  O5 (in place: eager) An attempt that runs in place from its start
 *     (irrevocable, serial) resolves every LSD call at once (lib/lsd.c's
 *     eager mode).  One that goes in place midway (escalation I4, a
 *     reader share R1, hence R3) settles first, right after its drain
 *     and snapshot check, when no commit can change memory any more:
 *     its conditions are validated and its futures bound on memory as it
 *     is, its lazy writes merged into the write set that then goes in
 *     place, and the rest of the attempt is eager.
 *  O6 (peeks do not wait for committers) A condition's peek reads a word
 *     whose stripe a committer holds without waiting for it: the word
 *     holds the value before that commit or the committer's (write-back
 *     comes after the committer's validation, when it can no longer
 *     abort; a word it writes back in pieces, sub-word writes, may be
 *     seen in between).  Either way O4 validates the answer at the
 *     commit (lib/lsd.c L7: a future whose value at the commit differs
 *     from its peeked one has every condition evaluated again there), and
 *     a condition gives no opacity (O2).  So a transaction on a hot word
 *     does not queue behind each commit of it, as a concrete read does.
 *     A stripe written in place (I2), whose stores may be undone, is
 *     waited for.
 */
#include "tl2_sets.h"
#include "log_written.h"

#define TL2_STRIPE_FILTER_BITS 1024

/* The snapshot (rv) and the read set live in th.txd.snap, where tm.h's
 * inline reads find them. */
typedef struct tl2_tx {
	potm_thread_t th;
	tl2_wset_t ws;                 /* write set */
	size_t lost_reads;             /* the largest read set among this
	                                  transaction's aborted attempts */
	bool token;                    /* holds tl2.token (starving) */
	bool irrevocable;              /* this attempt runs in place (I1-I3):
	                                  its writes are th.txd.undo's */
	bool committing;               /* its committing word is set (I1) */
	bool shared;                   /* holds a reader share (R1): plain
	                                  reads, no commit can happen */
	size_t escalate_at;            /* write-set size at which this attempt
	                                  next tries escalation (I4) */
	size_t share_at;               /* read-set size at which it tries to
	                                  share its snapshot (R1) */
	bool active;                   /* its active word is up (S1) */
	bool serial;                   /* this attempt runs in serial mode */
	bool want_serial;              /* the next attempt runs serially (S3) */
	uint64_t last_wv;              /* the last commit's write version (the
	                                  redo log's stamp, potm_tl2_last_wv) */
	uint64_t lsd_wv;               /* O4: the version conditions are
	                                  validated at */
	/* The stripes holding words of the write set, as a Bloom filter (a
	 * bit per stripe): tm_read_bytes lays the write set over its copy of
	 * a stripe only when the stripe's bit is set, one test per stripe
	 * instead of one per word.  (LSD's reserved entries are not in it:
	 * they hold no bytes before the commit.) */
	uint64_t written_stripes[TL2_STRIPE_FILTER_BITS / 64];
} tl2_tx_t;

static inline tm_snap_t *tl2_snap(tl2_tx_t *tx)
{
	return &tx->th.txd.snap;
}

#define TL2_LOCKED_SPINS 64        /* pauses between yields waiting for a committer */
#define TL2_LOCKED_YIELDS 100000   /* a reader's yields before it gives up */
/* Starvation: a transaction takes the commit token after this many aborts
 * if one of its attempts had read TL2_LONG_READS stripes (much work lost),
 * or after TL2_STARVING_ABORTS aborts in any case. */
#define TL2_LONG_ABORTS 1
#define TL2_LONG_READS 4096
#define TL2_STARVING_ABORTS 32

static struct {
	uint64_t clock POTM_ALIGNED;   /* the global version clock */
	volatile uintptr_t *locks POTM_ALIGNED;
	uintptr_t mask;
	unsigned shift;
	unsigned skew_shift;           /* tm_lock_index_ */
	/* The commit token: the logical id + 1 of the starving transaction's
	 * thread, 0 if none.  While it is taken, other update transactions
	 * wait before locking their write set. */
	unsigned token POTM_ALIGNED;
	unsigned readers;              /* reader shares held (R1) */
	unsigned serial;               /* the logical id + 1 of the serial
	                                  transaction's thread, 0 if none (S1) */
	unsigned commit_waiters;       /* committers waiting for readers (R2) */
	/* I1: one committing word per logical id, a cache line each; S1:
	 * the active word is the next byte of that line. */
	unsigned char *committing;
	unsigned max_threads;
	bool asym;             /* committers need no fence: the holder
	                          runs membarrier */
	size_t escalate_writes; /* I4: POTM_PROMOTE_WRITES (S3:
	                           POTM_SERIAL_WRITES in serial mode);
	                           SIZE_MAX: never */
	size_t share_reads;    /* R1: POTM_PROMOTE_READS; SIZE_MAX: never */
	bool serial_on;        /* POTM_SERIAL: long transactions run serially */
} tl2;

/* I2: the lock word of a stripe written in place (odd, and no write-set
 * entry's address). */
#define TL2_IRREVOCABLE ((uintptr_t)&tl2.token | 1)

static inline volatile uintptr_t *tl2_lock_of(const void *a)
{
	return &tl2.locks[tm_lock_index_((uintptr_t)a, tl2.shift, tl2.skew_shift, tl2.mask)];
}

/* Is locked word l held by an entry of [first, end)? */
static inline bool tl2_held_by(uintptr_t l, const tl2_wentry_t *first, const tl2_wentry_t *end)
{
	const tl2_wentry_t *e = (const tl2_wentry_t *)(l & ~(uintptr_t)1);
	return e >= first && e < end;
}

static inline bool tl2_owns(const tl2_tx_t *tx, uintptr_t l)
{
	return tl2_held_by(l, tx->ws.e, tx->ws.e + tx->ws.n);
}

/* The bit of a's stripe in written_stripes. */
static inline uint64_t tl2_stripe_bit(const void *a, unsigned *word)
{
	uint64_t h = (((uintptr_t)a >> tl2.shift) * TM_WFILTER_MUL) >> (64 - 10);
	_Static_assert(TL2_STRIPE_FILTER_BITS == 1 << 10, "the hash gives 10 bits");
	*word = (unsigned)(h >> 6);
	return (uint64_t)1 << (h & 63);
}

static inline bool tl2_stripe_written(const tl2_tx_t *tx, const void *a)
{
	unsigned w;
	uint64_t bit = tl2_stripe_bit(a, &w);
	return (tx->written_stripes[w] & bit) != 0;
}

/* I2: store the write set in place, as the only writer: every stripe is
 * marked first (one release fence each), so no reader can accept a stored
 * value before the commit unmarks it; then the entries are stored, their
 * old bytes logged for I3.  (tl2_sets.h's tl2_ws_apply_in_place does the
 * same with pot's stripe index.) */
static void tl2_apply_in_place(tl2_tx_t *tx)
{
	for (size_t i = 0; i < tx->ws.n; i++)
		tm_stripe_mark_(tl2_lock_of((const void *)tx->ws.e[i].addr), TL2_IRREVOCABLE);
	for (size_t i = 0; i < tx->ws.n; i++)
		tl2_ws_store_entry(&tx->ws.e[i], &tx->th.txd.undo);
}

/* I2, I3: give every stripe written in place (the undo log's entries) the
 * word version << 1, after all the stores (release fence).  (As
 * tl2_sets.h's tl2_unmark_logged, with tl2's stripe index.) */
static void tl2_unmark_in_place(const potm_undo_t *undo, uint64_t version)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	uintptr_t word = (uintptr_t)version << 1;
	volatile uintptr_t *last = NULL;   /* fields of one object: one store */
	for (const potm_undo_entry_t *e = undo->e; e < undo->next; e++) {
		volatile uintptr_t *s = tl2_lock_of(potm_undo_addr(e));
		if (s != last)
			__atomic_store_n(s, word, __ATOMIC_RELAXED);
		last = s;
	}
}

/* ---- validation ------------------------------------------------------- */

/* Is every stripe read still at a version <= rv, and not locked by
 * another transaction?  (Locks we hold ourselves carry the old version in
 * our write-set entry.) */
static bool tl2_validate(const tl2_tx_t *tx)
{
	const tm_snap_t *s = &tx->th.txd.snap;
	/* In locals: the compiler would reload them after every acquire. */
	const uint64_t rv = s->rv;
	const volatile uintptr_t *const *const end = s->rs.next;
	for (const volatile uintptr_t *const *p = s->rs.e; p < end; p++) {
		uintptr_t l = __atomic_load_n(*p, __ATOMIC_ACQUIRE);
		if (l & 1) {
			if (!tl2_owns(tx, l))
				return false;
			l = ((const tl2_wentry_t *)(l & ~(uintptr_t)1))->prev;
		}
		if ((l >> 1) > rv)
			return false;
	}
	return true;
}

/* ---- aborts ------------------------------------------------------------- */

/* Release the locks taken so far (commit phase), restoring their versions. */
static void tl2_release_locks(tl2_tx_t *tx)
{
	for (size_t i = 0; i < tx->ws.n; i++) {
		tl2_wentry_t *e = &tx->ws.e[i];
		if (e->owner) {
			__atomic_store_n(e->lock, e->prev, __ATOMIC_RELEASE);
			e->owner = false;
		}
	}
}

/* ---- irrevocable mode (I1-I3) --------------------------------------------- */

static void tl2_wait_token(tl2_tx_t *tx);
static void tl2_abort(tl2_tx_t *tx, int cause) __attribute__((noreturn, noinline));

/* S2: does a serial transaction wait for this attempt (under way) to end? */
static inline bool tl2_serial_pending(const tl2_tx_t *tx)
{
	return tx->active && __atomic_load_n(&tl2.serial, __ATOMIC_ACQUIRE) != 0;
}

/* R2: wait (yielding: a reader may need our CPU) until at most `keep'
 * shares are held; new shares are refused meanwhile. */
static void tl2_wait_readers(unsigned keep)
{
	__atomic_add_fetch(&tl2.commit_waiters, 1, __ATOMIC_SEQ_CST);
	for (unsigned spins = 0; __atomic_load_n(&tl2.readers, __ATOMIC_ACQUIRE) > keep;) {
		if (++spins % TL2_LOCKED_SPINS == 0)
			sched_yield();
		potm_cpu_relax();
	}
	__atomic_sub_fetch(&tl2.commit_waiters, 1, __ATOMIC_RELEASE);
}

static inline volatile unsigned char *tl2_committing_word(unsigned id)
{
	return &tl2.committing[(size_t)id * POTM_CACHELINE];
}

static inline volatile unsigned char *tl2_active_word(unsigned id)
{
	return &tl2.committing[(size_t)id * POTM_CACHELINE + 1];
}

/* S1, the attempt's side: raise the active word unless a serial
 * transaction runs (then wait for it to end).  Only with POTM_SERIAL. */
static void tl2_gate(tl2_tx_t *tx)
{
	potm_gate(tl2_active_word(tx->th.id), &tl2.serial, tl2.asym);
	tx->active = true;
}

/* The attempt is over (committed, aborted or cancelled): lower the
 * active word, after its last access (release). */
static inline void tl2_attempt_over(tl2_tx_t *tx)
{
	if (tx->active) {
		__atomic_store_n(tl2_active_word(tx->th.id), 0, __ATOMIC_RELEASE);
		tx->active = false;
	}
}

/* I1, the committer's side: announce the commit, unless a starving
 * transaction holds the token (then wait for it to finish). */
static void tl2_commit_announce(tl2_tx_t *tx)
{
	volatile unsigned char *w = tl2_committing_word(tx->th.id);
	for (;;) {
		potm_raise_word(w, tl2.asym);
		unsigned holder = __atomic_load_n(&tl2.token, __ATOMIC_ACQUIRE);
		unsigned readers = __atomic_load_n(&tl2.readers, __ATOMIC_ACQUIRE);
		if (likely((holder | readers) == 0) || tx->token)
			break;
		/* S2: a serial transaction waits for this attempt to end
		 * before it starts: commit (past the shares, R2). */
		bool serial = holder && tl2_serial_pending(tx);
		if (serial && readers == 0)
			break;
		__atomic_store_n(w, 0, __ATOMIC_RELEASE);
		if (holder && !serial)
			tl2_wait_token(tx);
		else
			tl2_wait_readers(0);
	}
	tx->committing = true;
}

/* The commit is over (done or aborted): its locks are released. */
static inline void tl2_commit_over(tl2_tx_t *tx)
{
	if (tx->committing) {
		__atomic_store_n(tl2_committing_word(tx->th.id), 0, __ATOMIC_RELEASE);
		tx->committing = false;
	}
}

/* I1, the holder's side (the token or a share is ours): wait for the
 * commits in flight.  False if the barrier failed: then run as a plain TL2
 * attempt (the token alone keeps others from committing after their
 * check; a share is given back).  The token holder waits for the reader
 * shares too (R2). */
static bool tl2_drain_commits(tl2_tx_t *tx)
{
	if (tl2.asym) {
		if (potm_membarrier() != 0)
			return false;
	} else {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	potm_wait_others_down(tl2_committing_word(0), tl2.max_threads, tx->th.id);
	if (tx->token)
		tl2_wait_readers(0);
	return true;
}

/* Start this attempt in place: plain reads (tm.h's inline reads see the
 * read set closed and the flag), writes in place (tl2_write). */
static void tl2_enter_irrevocable(tl2_tx_t *tx)
{
	tx->irrevocable = true;
	tx->th.txd.flags |= TM_TXD_PLAIN_READS;
	tl2_rs_open(&tl2_snap(tx)->rs, false);
	potm_undo_clear(&tx->th.txd.undo);
}

static void tl2_leave_irrevocable(tl2_tx_t *tx)
{
	tx->irrevocable = false;
	tx->th.txd.flags &= ~(TM_TXD_PLAIN_READS | TM_TXD_SERIAL);
	potm_undo_clear(&tx->th.txd.undo);
	if (tx->serial) {
		tx->serial = false;
		__atomic_store_n(&tl2.serial, 0, __ATOMIC_RELEASE);   /* S1 */
	}
}

/* S1, the holder's side (the token is ours): announce serial mode, drain
 * the commits and shares (I1, R2), then wait for every attempt under way
 * to end, and start this one alone.  False if the barrier failed (then
 * the caller runs a plain TL2 attempt holding the token, as I1). */
static bool tl2_enter_serial(tl2_tx_t *tx)
{
	__atomic_store_n(&tl2.serial, tx->th.id + 1, __ATOMIC_SEQ_CST);
	if (!tl2_drain_commits(tx)) {
		__atomic_store_n(&tl2.serial, 0, __ATOMIC_RELEASE);
		return false;
	}
	potm_wait_others_down(tl2_active_word(0), tl2.max_threads, tx->th.id);
	tl2_enter_irrevocable(tx);
	tx->serial = true;
	tx->th.txd.flags |= TM_TXD_SERIAL;
	return true;
}

/* I3: undo the in-place writes, release their stripes with a new
 * version.  potm_undo_rollback leaves the entries, which the release reads. */
static void tl2_rollback_in_place(tl2_tx_t *tx)
{
	potm_undo_t *u = &tx->th.txd.undo;
	potm_undo_entry_t *next = u->next;
	potm_undo_rollback(u);
	u->next = next;
	if (!tx->serial && potm_undo_count(u))   /* S1: nothing was marked */
		tl2_unmark_in_place(u, __atomic_add_fetch(&tl2.clock, 1, __ATOMIC_ACQ_REL));
	tl2_leave_irrevocable(tx);
}

/* I2: the commit of an irrevocable attempt. */
static void tl2_commit_in_place(tl2_tx_t *tx)
{
	potm_undo_t *u = &tx->th.txd.undo;
	if (potm_undo_count(u)) {
		/* S1: nobody ran beside a serial attempt, so no snapshot can
		 * predate its stores, which need no new version. */
		if (!tx->serial) {
			uint64_t wv = __atomic_add_fetch(&tl2.clock, 1, __ATOMIC_ACQ_REL);
			tl2_unmark_in_place(u, wv);
			tx->last_wv = wv;
		} else {
			/* Only the redo log's stamp (tl2_last_wv): a new value,
			 * greater than every commit's before. */
			tx->last_wv = __atomic_add_fetch(&tl2.clock, 1, __ATOMIC_ACQ_REL);
		}
		POTM_STAT_ADD(&tx->th, writes, potm_undo_count(u));
	}
	POTM_STAT_INC(&tx->th, irrevocable);
	if (tx->serial)
		POTM_STAT_INC(&tx->th, serial);
	tl2_leave_irrevocable(tx);
}

/* R1: give the reader share back (end of the attempt, or an upgrade). */
static void tl2_release_share(tl2_tx_t *tx)
{
	tx->shared = false;
	tx->th.txd.flags &= ~TM_TXD_PLAIN_READS;
	__atomic_sub_fetch(&tl2.readers, 1, __ATOMIC_RELEASE);
}

/* End of an attempt: empty the sets; the read set is closed to tm.h's
 * inline reads until the next begin. */
static void tl2_reset(tl2_tx_t *tx)
{
	if (unlikely(tx->shared))
		tl2_release_share(tx);
	if (tx->ws.n)
		memset(tx->written_stripes, 0, sizeof tx->written_stripes);
	tl2_sets_reset(&tx->th, &tl2_snap(tx)->rs, &tx->ws);
}

static void tl2_abort(tl2_tx_t *tx, int cause)
{
	if (unlikely(tx->irrevocable))
		tl2_rollback_in_place(tx);
	tl2_release_locks(tx);
	tl2_commit_over(tx);
	if (tl2_rs_count(&tl2_snap(tx)->rs) > tx->lost_reads)
		tx->lost_reads = tl2_rs_count(&tl2_snap(tx)->rs);
	tl2_reset(tx);
	tl2_attempt_over(tx);
	potm_tx_aborted(&tx->th, cause);
}

/* Take the commit token if it is free. */
static bool tl2_try_token(tl2_tx_t *tx)
{
	unsigned free_ = 0;
	if (!__atomic_compare_exchange_n(&tl2.token, &free_, tx->th.id + 1, false,
	                                 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return false;
	tx->token = true;
	return true;
}

/* After a drain (I1): is the snapshot still current?  Nobody committed
 * since rv, or everything read is unchanged. */
static bool tl2_snapshot_current(const tl2_tx_t *tx)
{
	return __atomic_load_n(&tl2.clock, __ATOMIC_ACQUIRE) == tx->th.txd.snap.rv ||
	       tl2_validate(tx);
}

/* ---- LSD: going in place (O5) ------------------------------------------- */

/* After a drain nobody commits: memory is the state every future and
 * condition is settled on, and the write set not yet in place holds the
 * attempt's own writes apart. */
static uint64_t tl2_lsd_read_in_place(potm_thread_t *t, const void *a, unsigned size)
{
	(void)t;
	return tm_load_bytes_(a, size);
}

/* A lazy write's value into its reserved write-set entry (O3, O4): the
 * cookie is the entry's index. */
static void tl2_lsd_put(potm_thread_t *t, void *a, unsigned size, uint64_t b, uint32_t cookie)
{
	tl2_wset_t *ws = &((tl2_tx_t *)t)->ws;
	if (cookie == POTM_LSD_NO_COOKIE) {
		tl2_ws_put(ws, a, size, b);
		return;
	}
	tl2_wentry_t *e = &ws->e[cookie];
	unsigned off = (unsigned)((uintptr_t)a & 7);
	if (size == sizeof(tm_word_t)) {
		e->val = b;
		e->mask = ~(tm_word_t)0;
	} else {
		memcpy((char *)&e->val + off, &b, size);
		memset((char *)&e->mask + off, 0xff, size);
	}
}

static void tl2_lsd_settle_in_place(tl2_tx_t *tx)
{
	if (potm_lsd_unsettled(&tx->th) &&
	    !potm_lsd_settle(&tx->th, tl2_lsd_read_in_place, tl2_lsd_put, true))
		tl2_abort(tx, TM_ABORT_CONDITION);
}

/* Escalation (I4): the write set has grown large; if the token is free,
 * take it, drain, check the snapshot and go on in place. */
static void tl2_escalate(tl2_tx_t *tx) __attribute__((noinline, cold));
static void tl2_escalate(tl2_tx_t *tx)
{
	if (tl2.serial_on && !tx->token) {
		tx->want_serial = true;   /* S3: start over, alone */
		tl2_abort(tx, TM_ABORT_SERIAL);
	}
	tx->escalate_at = tx->escalate_at > SIZE_MAX / 2 ? SIZE_MAX : 2 * tx->escalate_at;
	if (tx->token || !tl2_try_token(tx))
		return;   /* taken (by another, or ours after a failed drain): TL2 */
	if (!tl2_drain_commits(tx))
		return;   /* a plain TL2 attempt that holds the token */
	if (!tl2_snapshot_current(tx))
		tl2_abort(tx, TM_ABORT_VALIDATE);   /* the retry keeps the token */
	tl2_lsd_settle_in_place(tx);
	tl2_enter_irrevocable(tx);
	tl2_apply_in_place(tx);
	tl2_reset(tx);
	POTM_STAT_INC(&tx->th, promotions);   /* tl2: escalations (stats.h) */
}

/* R1: the read set has reached POTM_PROMOTE_READS (tm.h's inline reads
 * stopped at the mark set at begin).  If nothing was written and no
 * committer is kept waiting, take a share and go on with plain reads. */
static void tl2_share_snapshot(tl2_tx_t *tx) __attribute__((noinline, cold));
static void tl2_share_snapshot(tl2_tx_t *tx)
{
	if (tx->ws.n || tx->token ||
	    __atomic_load_n(&tl2.token, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&tl2.commit_waiters, __ATOMIC_RELAXED))
		return;
	__atomic_add_fetch(&tl2.readers, 1, __ATOMIC_SEQ_CST);
	tx->shared = true;
	if (__atomic_load_n(&tl2.token, __ATOMIC_SEQ_CST) != 0 ||
	    !tl2_drain_commits(tx)) {
		tl2_release_share(tx);
		return;
	}
	if (!tl2_snapshot_current(tx))
		tl2_abort(tx, TM_ABORT_VALIDATE);
	tl2_lsd_settle_in_place(tx);
	tx->th.txd.flags |= TM_TXD_PLAIN_READS;
	POTM_STAT_INC(&tx->th, shared_reads);
}

/* R3: a shared reader writes.  With the token and the only share, nobody
 * can commit or read in place: go on irrevocably.  (A shared reader never
 * holds the token: it shared without it, and only this takes it.)  Once
 * the token is ours, giving the share back lets nobody in: committers and
 * readers back off on the token. */
static void tl2_upgrade_share(tl2_tx_t *tx) __attribute__((noinline, cold));
static void tl2_upgrade_share(tl2_tx_t *tx)
{
	if (!tl2_try_token(tx))
		tl2_abort(tx, TM_ABORT_WRITE_LOCKED);
	tl2_wait_readers(1);
	tl2_release_share(tx);
	tl2_enter_irrevocable(tx);
	POTM_STAT_INC(&tx->th, promotions);   /* R3 escalates too */
}

/* Where tm.h's inline reads stop logging: the read set's capacity, or the
 * sharing mark (R1) while this attempt may still share its snapshot. */
static inline void tl2_rs_open_reading(tl2_tx_t *tx)
{
	tl2_rset_t *rs = &tl2_snap(tx)->rs;
	tl2_rs_open(rs, true);
	if (tx->share_at < rs->cap)
		rs->end = rs->e + tx->share_at;
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
	tl2_snap(tx)->rv = now;
	POTM_STAT_INC(&tx->th, extensions);
	return true;
}

/* A reader met a locked stripe: a committer is writing back.  Wait for it
 * rather than abort: it never waits for us (a committer that cannot lock
 * a stripe gives up), so it will be done, and a long transaction aborted
 * here would lose all its work.  Yield while waiting (with more threads
 * than cores the committer may need our CPU); abort only if it takes
 * absurdly long.  *spins counts this read's waits. */
static inline void tl2_wait_committer(tl2_tx_t *tx, unsigned *spins)
{
	if (++*spins % TL2_LOCKED_SPINS == 0) {
		if (*spins > TL2_LOCKED_SPINS * TL2_LOCKED_YIELDS)
			tl2_abort(tx, TM_ABORT_READ_LOCKED);
		sched_yield();
	}
	potm_cpu_relax();
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
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (likely(l1 == l2 && !(l1 & 1))) {
			if (likely((l1 >> 1) <= tl2_snap(tx)->rv)) {
				tl2_rs_add(&tl2_snap(tx)->rs, lock);
				return v;
			}
			if (tl2_extend(tx))
				continue;
			tl2_abort(tx, TM_ABORT_READ_VERSION);
		}
		if ((l1 | l2) & 1)
			tl2_wait_committer(tx, &spins);
	}
}

/* A read that tm.h's inline path left for the library because the read
 * set reached its end: at the sharing mark try R1, when full grow it;
 * then open it up to the next of the two. */
static void tl2_read_mark(tl2_tx_t *tx) __attribute__((noinline));
static void tl2_read_mark(tl2_tx_t *tx)
{
	tl2_rset_t *rs = &tl2_snap(tx)->rs;
	if (rs->end == NULL)
		return;   /* closed: irrevocable, reads in place */
	if (tl2_rs_count(rs) >= tx->share_at) {
		tx->share_at = SIZE_MAX;
		if (tx->ws.n == 0)
			tl2_share_snapshot(tx);
		else
			tl2_escalate(tx);   /* a long reader that writes: I4 */
	}
	if (rs->next == rs->e + rs->cap)
		tl2_rs_grow(rs);
	tl2_rs_open_reading(tx);
}

tm_word_t tm_read(const tm_word_t *a)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_read");
	if (unlikely(tl2_snap(tx)->rs.next >= tl2_snap(tx)->rs.end))
		tl2_read_mark(tx);
	if (unlikely(tx->th.txd.flags & TM_TXD_PLAIN_READS))
		return *a;
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a);
	if (e == NULL || e->mask == ~(tm_word_t)0)
		return e ? e->val : tl2_load(tx, a, sizeof *a);
	return tl2_merge_bytes(tl2_load(tx, a, sizeof *a), e->val, e->mask);
}

/* Buffer a write.  Its stripe's lock is taken at commit: fetch that line
 * now, so that the miss (the lock table is megabytes, so a written word's
 * lock is often cold) overlaps the rest of the transaction instead of
 * stalling the commit. */
static inline __attribute__((always_inline)) void tl2_write(tl2_tx_t *tx, void *a, unsigned size,
                                                            uint64_t b)
{
	if (unlikely(tx->shared))
		tl2_upgrade_share(tx);
	if (unlikely(tx->irrevocable)) {
		tl2_write_in_place(&tx->th.txd.undo, tx->serial ? NULL : tl2_lock_of(a),
		                   TL2_IRREVOCABLE, a, size, b);
		return;
	}
	size_t n = tx->ws.n;
	tl2_ws_put(&tx->ws, a, size, b);
	if (tx->ws.n != n) {   /* a new word: its lock may be cold */
		__builtin_prefetch((const void *)tl2_lock_of(a), 1, 3);
		unsigned w;
		uint64_t bit = tl2_stripe_bit(a, &w);
		tx->written_stripes[w] |= bit;
		if (unlikely(tx->ws.n >= tx->escalate_at))
			tl2_escalate(tx);
	}
}

/* Everything a whole-word write's common case leaves: out of line, so
 * that the common case needs no callee-saved register (no frame). */
static void tl2_write_word_slow(tl2_tx_t *tx, tm_word_t *a, tm_word_t v) __attribute__((noinline));
static void tl2_write_word_slow(tl2_tx_t *tx, tm_word_t *a, tm_word_t v)
{
	tl2_write(tx, a, sizeof *a, v);
}

/* A whole-word write's common cases (tl2_ws_put_word) run here without
 * a frame, outside the shared and irrevocable states and below the
 * escalation size (I4); tl2_write takes the rest as a whole. */
void tm_write(tm_word_t *a, tm_word_t v)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_writing("tm_write");
	enum tl2_ws_put put = TL2_WS_PUT_SLOW;
	if (likely(!(tx->shared | tx->irrevocable)) && likely(((uintptr_t)a & 7) == 0))
		put = tl2_ws_put_word(&tx->ws, (uintptr_t)a, v, tx->escalate_at, NULL);
	if (put == TL2_WS_PUT_APPENDED) {
		__builtin_prefetch((const void *)tl2_lock_of(a), 1, 3);
		unsigned w;
		uint64_t bit = tl2_stripe_bit(a, &w);
		tx->written_stripes[w] |= bit;
	} else if (put == TL2_WS_PUT_SLOW) {
		tl2_write_word_slow(tx, a, v);
	}
}

static inline __attribute__((always_inline)) uint64_t BACKEND_READ_BYTES(const void *a, unsigned size)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_read");
	if (unlikely(tl2_snap(tx)->rs.next >= tl2_snap(tx)->rs.end))
		tl2_read_mark(tx);
	if (unlikely(tx->th.txd.flags & TM_TXD_PLAIN_READS))
		return tm_load_bytes_(a, size);
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a & ~(uintptr_t)7);
	if (e == NULL)
		return tl2_load(tx, a, size);
	/* Written earlier in this transaction, perhaps only in part: take the
	 * written bytes from the entry and the others from memory. */
	uint64_t mine, have;
	if (tl2_ws_covers(e, a, size, &mine, &have))
		return mine;
	return tl2_merge_bytes(tl2_load(tx, a, size), mine, have);
}

static inline __attribute__((always_inline)) void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_writing("tm_write");
	tl2_write(tx, a, size, b);
}

/* A piece of an irrevocable range (potm_write_pieces): in place and
 * undo-logged, as any write of its size in that mode. */
static void tl2_put_piece(void *ctx, void *a, unsigned size, uint64_t b)
{
	tl2_write((tl2_tx_t *)ctx, a, size, b);
}

/* A range (tm_write_bytes: a record's bytes): one entry per word, the
 * lock prefetch and the stripe filter's bit once per stripe, the
 * escalation test (I4) once per range.  A shared snapshot upgrades first,
 * as tl2_write does; an irrevocable attempt writes the range in place, in
 * the naturally aligned pieces every backend's range write takes, each
 * through tl2_write. */
void tm_write_bytes(void *dst, const void *src, size_t n)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_writing("tm_write_bytes");
	if (n == 0)
		return;
	if (unlikely(tx->shared))
		tl2_upgrade_share(tx);
	if (unlikely(tx->irrevocable)) {
		potm_write_pieces(dst, src, n, tl2_put_piece, tx);
		return;
	}
	tl2_ws_put_bytes(&tx->ws, (uintptr_t)dst, src, n, tx->escalate_at);
	uintptr_t stripe = (uintptr_t)1 << tl2.shift;
	uintptr_t end = (uintptr_t)dst + n;
	for (uintptr_t a = (uintptr_t)dst & ~(stripe - 1); a < end; a += stripe) {
		__builtin_prefetch((const void *)tl2_lock_of((const void *)a), 1, 3);
		unsigned w;
		uint64_t bit = tl2_stripe_bit((const void *)a, &w);
		tx->written_stripes[w] |= bit;
	}
	if (unlikely(tx->ws.n >= tx->escalate_at))
		tl2_escalate(tx);
}

/* ---- byte ranges (tm_read_bytes) ------------------------------------------
 *
 * A range is read stripe by stripe: each stripe's part is one snapshot
 * read (its lock word before and after the bytes, one read-set entry), so
 * a string costs a check per stripe instead of one per byte or word.  The
 * bytes this transaction wrote are then laid over the copy, word by word,
 * where the stripe holds any (written_stripes).  The copy and the overlay
 * are tl2_sets.h's, shared with silo. */

/* [src, src + n), inside one stripe, read consistently with the snapshot
 * (as tl2_load) and the stripe logged once. */
static void tl2_read_chunk(tl2_tx_t *tx, unsigned char *dst, const unsigned char *src, size_t n)
{
	volatile uintptr_t *lock = tl2_lock_of(src);
	unsigned spins = 0;
	for (;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		tl2_copy_in(dst, src, n);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (likely(l1 == l2 && !(l1 & 1))) {
			if (likely((l1 >> 1) <= tl2_snap(tx)->rv)) {
				tl2_rs_add(&tl2_snap(tx)->rs, lock);
				return;
			}
			if (tl2_extend(tx))
				continue;
			tl2_abort(tx, TM_ABORT_READ_VERSION);
		}
		if ((l1 | l2) & 1)
			tl2_wait_committer(tx, &spins);
	}
}

void tm_read_bytes(void *dst, const void *src, size_t n)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_read_bytes");
	unsigned char *d = dst;
	const unsigned char *s = src;
	uintptr_t stripe = (uintptr_t)1 << tl2.shift;   /* 8 bytes at least: a
	                                                    word never straddles two */
	while (n > 0) {
		size_t len = stripe - ((uintptr_t)s & (stripe - 1));
		if (len > n)
			len = n;
		if (unlikely(tl2_snap(tx)->rs.next >= tl2_snap(tx)->rs.end))
			tl2_read_mark(tx);
		if (unlikely(tx->th.txd.flags & TM_TXD_PLAIN_READS)) {
			tl2_copy_in(d, s, len);   /* in place: nothing buffered */
		} else {
			tl2_read_chunk(tx, d, s, len);
			if (tx->ws.n && tl2_stripe_written(tx, s))
				tl2_ws_overlay(&tx->ws, d, s, len);
		}
		d += len;
		s += len;
		n -= len;
	}
}

/* tm.h's inline reads call the library's under the _spec_ names. */
#define POTM_GEN_READ_SPEC 1
#define POTM_GEN_OWN_READ_BYTES 1
#define POTM_GEN_OWN_WRITE_BYTES 1
#include "access_gen.h"

/* ---- LSD-aware OCC (O1-O4) ------------------------------------------------ */

/* Futures stay unresolved unless the attempt runs in place (O5). */
static bool tl2_lsd_lazy(potm_thread_t *t)
{
	const tl2_tx_t *tx = (const tl2_tx_t *)t;
	return !tx->irrevocable && !tx->shared;
}

static int tl2_lsd_written(potm_thread_t *t, const void *a, unsigned size, uint64_t *b)
{
	tl2_tx_t *tx = (tl2_tx_t *)t;
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a & ~(uintptr_t)7);
	uint64_t have;
	if (e == NULL)
		return 0;
	if (tl2_ws_covers(e, a, size, b, &have))
		return 1;
	return have ? -1 : 0;
}

/* O2: the word's value, whatever its version; not logged.  A free stripe
 * (the same before and after the load) gives its latest committed value;
 * one a committer held across the load gives the value before that
 * commit or the committer's (O6).  Only an in-place writer's stripe (I2:
 * its stores may yet be undone) is waited for, as reads wait. */
static uint64_t tl2_lsd_peek(potm_thread_t *t, const void *a, unsigned size)
{
	tl2_tx_t *tx = (tl2_tx_t *)t;
	volatile uintptr_t *lock = tl2_lock_of(a);
	for (unsigned spins = 0;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(lock, __ATOMIC_RELAXED);
		if (likely(l1 == l2 && (!(l1 & 1) || l1 != TL2_IRREVOCABLE)))
			return v;
		if ((l1 | l2) & 1) {
			/* A committer writes back: wait, as tl2_load does. */
			if (++spins % TL2_LOCKED_SPINS == 0) {
				if (spins > TL2_LOCKED_SPINS * TL2_LOCKED_YIELDS)
					tl2_abort(tx, TM_ABORT_READ_LOCKED);
				sched_yield();
			}
			potm_cpu_relax();
		}
	}
}

/* O1: lsd_value's standard read of memory. */
static uint64_t tl2_lsd_resolve(potm_thread_t *t, const void *a, unsigned size)
{
	return tl2_load((tl2_tx_t *)t, a, size);
}

/* O3: an entry with no bytes, locked at the commit, filled there; the
 * cookie is its index (stable until the attempt ends). */
static uint32_t tl2_lsd_reserve(potm_thread_t *t, void *a, unsigned size)
{
	tl2_tx_t *tx = (tl2_tx_t *)t;
	(void)size;
	uintptr_t word = (uintptr_t)a & ~(uintptr_t)7;
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, word);
	if (e != NULL)
		return (uint32_t)(e - tx->ws.e);
	e = tl2_ws_add(&tx->ws, word);
	uint32_t cookie = (uint32_t)(e - tx->ws.e);
	__builtin_prefetch((const void *)tl2_lock_of(a), 1, 3);
	if (unlikely(tx->ws.n >= tx->escalate_at))
		tl2_escalate(tx);   /* (may settle: then the cookie is not used) */
	return cookie;
}

static const potm_lsd_ops_t tl2_lsd_ops = {
	.lazy = tl2_lsd_lazy,
	.written = tl2_lsd_written,
	.peek = tl2_lsd_peek,
	.resolve = tl2_lsd_resolve,
	.reserve = tl2_lsd_reserve,
};

/* O4: a future's value at the commit's version tx->lsd_wv.  A stripe this
 * transaction locked holds the value before it (write-back comes after);
 * any other must be free and no newer than wv.  A committer's lock is
 * waited for briefly only: we hold locks too. */
static uint64_t tl2_lsd_read_at_commit(potm_thread_t *t, const void *a, unsigned size)
{
	tl2_tx_t *tx = (tl2_tx_t *)t;
	volatile uintptr_t *lock = tl2_lock_of(a);
	for (unsigned spins = 0;;) {
		uintptr_t l1 = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
		if (l1 & 1) {
			if (tl2_owns(tx, l1))
				return tm_load_bytes_(a, size);
			if (++spins > TL2_LOCKED_SPINS)
				tl2_abort(tx, TM_ABORT_CONDITION);
			potm_cpu_relax();
			continue;
		}
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(lock, __ATOMIC_RELAXED) != l1)
			continue;
		if ((l1 >> 1) > tx->lsd_wv)
			tl2_abort(tx, TM_ABORT_CONDITION);   /* its value at wv is gone */
		return v;
	}
}

/* O4: condition validation at wv, then the lazy writes into their
 * entries (which the commit has locked). */
static void tl2_lsd_validate_conditions(tl2_tx_t *tx, uint64_t wv)
{
	tx->lsd_wv = wv;
	if (!potm_lsd_settle(&tx->th, tl2_lsd_read_at_commit, tl2_lsd_put, false))
		tl2_abort(tx, TM_ABORT_CONDITION);
}

/* O4: a transaction that wrote nothing but holds conditions.  Its point is
 * the clock now: the conditions are validated there (every word no newer),
 * then the read set (unchanged since rv, so the same at that point). */
static void tl2_lsd_commit_read_only(tl2_tx_t *tx)
{
	uint64_t now = __atomic_load_n(&tl2.clock, __ATOMIC_ACQUIRE);
	tl2_lsd_validate_conditions(tx, now);
	if (now != tl2_snap(tx)->rv && !tl2_validate(tx))
		tl2_abort(tx, TM_ABORT_VALIDATE);
}

/* ---- begin / commit ----------------------------------------------------- */

/* Wait (yielding: the holder may need our CPU) until the token is free,
 * or, for an attempt under way, until its holder turns out to be serial
 * (then it waits for the attempt: S2). */
static void tl2_wait_token(tl2_tx_t *tx)
{
	for (unsigned spins = 0; __atomic_load_n(&tl2.token, __ATOMIC_ACQUIRE) != 0;) {
		if (tl2_serial_pending(tx))
			return;
		if (++spins % TL2_LOCKED_SPINS == 0)
			sched_yield();
		potm_cpu_relax();
	}
}

static void tl2_take_token(tl2_tx_t *tx) __attribute__((noinline, cold));
static void tl2_take_token(tl2_tx_t *tx)
{
	while (!tl2_try_token(tx))
		tl2_wait_token(tx);
}

/* The transaction is over (committed or cancelled). */
static void tl2_drop_token(tl2_tx_t *tx)
{
	tx->lost_reads = 0;
	tx->want_serial = false;
	if (unlikely(tx->token)) {
		tx->token = false;
		__atomic_store_n(&tl2.token, 0, __ATOMIC_RELEASE);
	}
}

/* Starving: many aborts, or a few after an attempt that had done much
 * work. */
static inline bool tl2_starving(const tl2_tx_t *tx)
{
	unsigned a = tx->th.attempt;
	return a >= TL2_STARVING_ABORTS ||
	       (a >= TL2_LONG_ABORTS && tx->lost_reads >= TL2_LONG_READS);
}

/* A token holder's attempt runs serially (S3) or irrevocably in place
 * (I1).  False if the drain failed: then it is a plain TL2 attempt. */
static bool tl2_start_with_token(tl2_tx_t *tx)
{
	if (tl2.serial_on)
		return tl2_enter_serial(tx);
	if (!tl2_drain_commits(tx))
		return false;
	tl2_enter_irrevocable(tx);
	return true;
}

static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
	tl2_tx_t *tx = (tl2_tx_t *)d;
	if (unlikely(tx->th.hint_serial) && tl2.serial_on)
		tx->want_serial = true;   /* S3, told in advance */
	if (unlikely(tx->want_serial || tx->th.attempt >= TL2_LONG_ABORTS) &&
	    !tx->token && (tx->want_serial || tl2_starving(tx)))
		tl2_take_token(tx);
	if (unlikely(tx->token) && tl2_start_with_token(tx))
		return;
	if (tl2.serial_on)
		tl2_gate(tx);
	tl2_snap(tx)->rv = __atomic_load_n(&tl2.clock, __ATOMIC_ACQUIRE);
	tx->share_at = tl2.share_reads;
	tl2_rs_open_reading(tx);
	tx->escalate_at = tl2.escalate_writes;
}

static void tl2_commit(tl2_tx_t *tx)
{
	/* A starving transaction holds the token: let it finish first.  We
	 * hold no lock yet, so it never waits for us (I1). */
	tl2_commit_announce(tx);
	/* Lock the write set.  Several entries may share a stripe: the first
	 * takes the lock, the others find it ours.  (The table's geometry and
	 * the set in locals: the compiler would reload them after every
	 * atomic.) */
	volatile uintptr_t *const locks = tl2.locks;
	const uintptr_t mask = tl2.mask;
	const unsigned shift = tl2.shift, skew_shift = tl2.skew_shift;
	tl2_wentry_t *const first = tx->ws.e, *const end = first + tx->ws.n;
	for (tl2_wentry_t *e = first; e < end; e++) {
		unsigned spins = 0;
		volatile uintptr_t *lock = &locks[tm_lock_index_(e->addr, shift, skew_shift, mask)];
		e->lock = lock;
		for (;;) {
			uintptr_t l = __atomic_load_n(lock, __ATOMIC_RELAXED);
			if (l & 1) {
				if (tl2_held_by(l, first, end))
					break;   /* ours */
				if (++spins > TL2_LOCKED_SPINS)
					tl2_abort(tx, TM_ABORT_WRITE_LOCKED);
				potm_cpu_relax();
				continue;
			}
			if (__atomic_compare_exchange_n(lock, &l, (uintptr_t)e | 1, false,
			                                __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				e->prev = l;
				e->owner = true;
				break;
			}
		}
	}
	uint64_t wv = __atomic_add_fetch(&tl2.clock, 1, __ATOMIC_ACQ_REL);
	tx->last_wv = wv;
	/* If nobody committed since our snapshot, nothing we read can have
	 * changed. */
	if (wv != tl2_snap(tx)->rv + 1 && !tl2_validate(tx))
		tl2_abort(tx, TM_ABORT_VALIDATE);
	if (unlikely(potm_lsd_unsettled(&tx->th)))
		tl2_lsd_validate_conditions(tx, wv);
	/* The set again: settling may have added entries (lazy writes
	 * without a reserved one). */
	tl2_wentry_t *const set = tx->ws.e, *const set_end = set + tx->ws.n;
	for (tl2_wentry_t *e = set; e < set_end; e++)
		tl2_ws_store_entry(e, NULL);
	uintptr_t released = (uintptr_t)wv << 1;
	for (tl2_wentry_t *e = set; e < set_end; e++)
		if (e->owner) {
			__atomic_store_n(e->lock, released, __ATOMIC_RELEASE);
			e->owner = false;
		}
}

static inline bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	tl2_tx_t *tx = (tl2_tx_t *)d;
	bool ro;
	if (unlikely(tx->irrevocable)) {
		ro = potm_undo_count(&tx->th.txd.undo) == 0;
		tl2_commit_in_place(tx);
	} else {
		ro = tx->ws.n == 0;
		if (!ro) {
			tl2_commit(tx);
			tl2_commit_over(tx);
		} else if (unlikely(potm_lsd_unsettled(&tx->th))) {
			tl2_lsd_commit_read_only(tx);
		}
	}
	tl2_drop_token(tx);
	tl2_reset(tx);
	tl2_attempt_over(tx);
	return ro;
}

#include "tx_gen.h"

void tm_restart(void)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_restart");
	tl2_abort(tx, TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	tl2_tx_t *tx = (tl2_tx_t *)potm_self_in_tx("tm_cancel");
	if (tx->irrevocable)
		tl2_rollback_in_place(tx);
	tl2_release_locks(tx);
	tl2_drop_token(tx);
	tl2_reset(tx);
	tl2_attempt_over(tx);
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
	tl2.skew_shift = cfg->stripe_shift + cfg->lock_bits - cfg->lock_bits / 2;
	tl2.clock = 0;
	tl2.token = 0;
	tl2.max_threads = cfg->max_threads;
	tl2.committing = potm_xcalloc(cfg->max_threads, POTM_CACHELINE);
	tl2.asym = potm_membarrier_ok;
	/* S3: in serial mode the mark restarts the transaction, which loses
	 * the attempt (escalation keeps it): POTM_SERIAL_WRITES. */
	unsigned mark = cfg->serial ? cfg->serial_writes : cfg->promote_writes;
	tl2.escalate_writes = mark ? mark : SIZE_MAX;
	tl2.share_reads = cfg->promote_reads ? cfg->promote_reads : SIZE_MAX;
	tl2.readers = 0;
	tl2.commit_waiters = 0;
	tl2.serial = 0;
	tl2.serial_on = cfg->serial != 0;
	return 0;
}

static void tl2_shutdown(void)
{
	free((void *)tl2.locks);
	tl2.locks = NULL;
	free(tl2.committing);
	tl2.committing = NULL;
}

static int tl2_thread_init(potm_thread_t *t)
{
	tm_snap_t *s = &t->txd.snap;
	tl2_rs_init(&s->rs);
	tl2_ws_init(&((tl2_tx_t *)t)->ws, &s->written);
	s->locks = tl2.locks;
	s->lock_mask = tl2.mask;
	s->skew_shift = tl2.skew_shift;
	s->shift = tl2.shift;
	return 0;
}

static void tl2_thread_fini(potm_thread_t *t)
{
	tl2_tx_t *tx = (tl2_tx_t *)t;
	tl2_sets_free(&tl2_snap(tx)->rs, &tx->ws);
	potm_undo_free(&t->txd.undo);
}

const potm_backend_t potm_backend = {
	.name = "tl2",
	.thread_size = sizeof(tl2_tx_t),
	.init = tl2_init,
	.shutdown = tl2_shutdown,
	.thread_init = tl2_thread_init,
	.thread_fini = tl2_thread_fini,
	.lsd = &tl2_lsd_ops,
};

/* ---- the redo log's view of commits (lib/store/log.c) --------------------
 * The log stamps a commit with its write version (the clock's order agrees
 * with the commit order of every two commits that conflict: each took wv
 * holding its locks or marks) and bounds the versions of commits to come
 * by the clock (a commit's wv is above the clock it finds). */

uint64_t potm_tl2_clock(void);
uint64_t potm_tl2_last_wv(void);

uint64_t potm_tl2_clock(void)
{
	return __atomic_load_n(&tl2.clock, __ATOMIC_SEQ_CST);
}

/* The write version of the calling thread's last commit that wrote. */
uint64_t potm_tl2_last_wv(void)
{
	const tl2_tx_t *tx = (const tl2_tx_t *)potm_self();
	return tx != NULL ? tx->last_wv : 0;
}

/* The bytes the running attempt wrote in each of r[0..n) (two ranges
 * disjoint or equal), as the log's pieces (lib/log_written.h): 0, or -1 if it
 * writes in place (irrevocable, serial: I1-I4), when nothing else commits
 * before it does and the caller copies the records from memory. */
int potm_tl2_log_written(tm_log_range_t *r, size_t n, const tm_log_index_t *ix);

int potm_tl2_log_written(tm_log_range_t *r, size_t n, const tm_log_index_t *ix)
{
	const tl2_tx_t *tx = (const tl2_tx_t *)potm_self();
	if (tx->irrevocable)
		return -1;
	potm_log_written_(&tx->ws, r, n, ix);
	return 0;
}
