/*
 * stm/pot.c — Pot: preordered transactions on TL2 (Vale's thesis, design
 * §3.2, STM implementation §3.3.1, Figures 3.2–3.3), with PoGL and a
 * DeSTM-style round-based STM for comparison.
 *
 * Every transaction has a place in one order fixed in advance by the
 * sequencer (lib/sequencer.h): round-robin over logical thread ids, or
 * supplied by the caller.  Transactions run in parallel but commit strictly
 * in that order ("ordered commit"), so a run's serialization order and
 * final state depend only on the program, its input and its thread count.
 * The commit counter (slots consumed) doubles as the version clock.
 *
 * Modes (POTM_MODE; each is one row of the policy table, lib/pot_modes.h,
 * whose flags this file tests):
 *  pot-ordered (Pot-)  TL2 reads against a snapshot rv, writes buffered;
 *                      commit waits for the turn, validates the read set
 *                      and writes back.  Commits are serialized by the
 *                      turn, so no commit-time locking: the stripe words
 *                      are only marked while the holder writes.
 *  pot-fast (Pot*)     a transaction that begins in its turn runs in "fast
 *                      mode": nobody can commit before it, so it can never
 *                      be invalidated.  Its reads are plain loads, its
 *                      writes go in place (with an undo log, needed only
 *                      for tm_restart/tm_cancel), it keeps no read set and
 *                      never validates; commit = release its stripes and
 *                      pass the turn.
 *  pot (full)          Pot* plus "live promotion": a speculative
 *                      transaction whose turn arrives while it runs (seen
 *                      at a read or a write) validates what it has read,
 *                      applies its buffered writes in place and continues
 *                      in fast mode.
 *  pogl (PoGL)         a preordered global lock: the turn is the lock.
 *                      Every transaction waits for its turn at begin and
 *                      runs in place.  The non-speculative baseline.
 *  destm (DeSTM)       round-based deterministic STM after DeSTM: in each
 *                      round every member thread runs one transaction; a
 *                      transaction cannot start before the previous round
 *                      finished, nor commit before all its round-mates
 *                      started; commits are ordered as in Pot-.
 *
 * Stripe words.  Memory is divided into stripes (POTM_STRIPE_SHIFT), each
 * with one word in a table (POTM_LOCK_BITS), as in TL2:
 *     v << 1         committed, last written by the transaction of slot v-1
 *                    (so v <= clock once that transaction passed the turn)
 *     (wv << 1) | 1  being written in place by the turn holder, whose
 *                    commit will be version wv = clock + 1
 *
 * Invariants:
 *  P1  Only the turn holder writes shared memory (fast mode, promotion,
 *      ordered write-back) or stripe words.  Speculative transactions
 *      write only their private write set.
 *  P2  (opacity against in-place writes) The holder marks a stripe
 *      ((wv<<1)|1, then a release fence) before its first store to it
 *      (pot_mark; tm.h's inline writes: tm_undo_mark_, undo.mark), and
 *      unmarks it (wv<<1, after a release fence) only once all its stores
 *      are done, before passing the turn.  A speculative read accepts a
 *      value only if the stripe word was the same unmarked v<<1 just before
 *      and just after the load (acquire fence between), with v <= rv.  So a
 *      value stored in place is never accepted before the stripe is
 *      unmarked, and then its version (wv > any rv taken before the pass)
 *      forces a validation of the whole read set: a speculative
 *      transaction never sees a mix of states, even one that will abort.
 *  P3  While a thread holds the turn, clock is frozen at its slot number;
 *      every stripe with version <= clock holds committed data.  So the
 *      holder's plain reads see exactly the state after all earlier slots,
 *      and a read set valid at rv <= clock is valid at clock.  In a run of
 *      turns (lib/sequencer.h S4) the holder's clock is its run's slot
 *      (pot_order_clock) and the published one lags it: the others see
 *      the run's versions as newer than any clock they read, and wait for
 *      the run's end (pot_extend).
 *  P4  Rolled-back in-place writes (tm_restart, tm_cancel) restore the
 *      contents as of clock and are unmarked with the holder's version wv,
 *      as a commit's would be: the slot is consumed either way (the
 *      restart and the cancel pass the turn; with the explicit sequencer
 *      the retry keeps it and commits as wv).  Not with clock, the version
 *      the stripe may have had before the mark: a speculative reader that
 *      loaded that word before the mark and the value while it was
 *      overwritten would find the same word after the unmark and accept a
 *      value that never committed (A-B-A).  At worst a spurious conflict.
 *  P5  (alone, no marks) A fast transaction that begins while its thread is
 *      the only registered one skips P2's marking: no speculative reader
 *      exists.  A thread that registers meanwhile must not read before
 *      that transaction ends.  Asymmetric Dekker, as in liburcu: the fast
 *      transaction stores busy, then (compiler barrier only) loads the
 *      registered count; the new thread increments the count at
 *      registration and, before its first transaction, runs
 *      membarrier(PRIVATE_EXPEDITED) (a full barrier on every running
 *      thread) and then waits for the holder of the turn to be idle or to
 *      pass it.  Either the fast transaction saw the new count and marks,
 *      or the new thread sees it busy and waits for its end.
 *  P6  (serial mode, POTM_SERIAL=1; tl2's is stm/tl2.c S1-S3) A fast
 *      transaction whose undo log reaches POTM_SERIAL_WRITES entries
 *      gives its attempt up (cause serial) and, keeping the turn, starts
 *      again alone: it sets pot.serial, runs a full barrier on every
 *      thread and waits until no other thread reads speculatively.  A
 *      speculative attempt raises its reading word, then reads
 *      pot.serial (and waits while it is set); it lowers the word when
 *      it stops reading (waiting for its turn, aborting; a speculative
 *      read that finds pot.serial set aborts, cause serial).  So the serial
 *      transaction marks no stripe, and its body may take an
 *      uninstrumented clone (tm_serial()).  Its stores bump no version:
 *      its commit advances pot.serial_epoch instead, and a speculative
 *      transaction whose reads were done before (it waited for its turn)
 *      finds the epoch moved and retries in its turn.  A transaction the
 *      program said is long (tm_hint_serial) waits for its turn at begin
 *      and runs serially from its first attempt; in the weighted order it
 *      declares the least weight (a weight buys a later slot so that the
 *      others work beside a long transaction; nobody works beside a
 *      serial one).  Under pogl every transaction runs alone: all are
 *      serial.  Where the order comes from does not change: serial mode
 *      changes how a body runs, not what it computes.
 *
 * Pot+LSD (Vale's thesis, section 5.2, Figure 5.3; <potm/lsd.h>, lib/lsd.c
 * keeps the futures, the condition set and the lazy writes).  A
 * speculative transaction that decrements a hot counter with standard
 * accesses is invalidated at its turn whenever an earlier slot changed the
 * counter (an order abort), although what it decided ("the counter is >=
 * 1") still holds.  With LSD it keeps the counter a future until its turn:
 *  PL1 (futures) In a speculative attempt lsd_read makes a future and
 *      reads nothing; the read set does not see it.  lsd_value binds the
 *      futures it reaches through a speculative read (snapshot, read set,
 *      P2) that never promotes: the core is in the middle of an
 *      expression, and the next access or the commit promotes.
 *  PL2 (conditions) lsd_is_true evaluates its condition on the words'
 *      latest committed values (pot_lsd_peek: the stripe unmarked and the
 *      same word before and after the load, P2's test without the bound
 *      on the version; not logged) and the answer joins the condition
 *      set.  A condition gives no opacity (as tl2's O2): its answer may
 *      come from a later state than the snapshot, and is checked in the
 *      turn; concrete reads keep theirs.
 *  PL3 (condition validation, in the ordered commit) lsd_write reserves
 *      its word in the write set (an entry with no bytes yet).  At its
 *      turn, once the read set is validated (P3), the transaction
 *      evaluates every condition with plain loads: memory is exactly the
 *      state after all earlier slots (P3), nobody else writes it (P1),
 *      and its own writes are still in its write set, so each future
 *      reads its word's value at the slot, before the transaction (L2).
 *      An answer that changed aborts with cause "condition" (kept apart
 *      from "order", which stays the count of invalidated read sets); the
 *      retry holds the turn, so it runs in fast mode where the mode has
 *      one.  Then the lazy writes are evaluated on the same state, put
 *      into their entries in program order (L3) and written back with the
 *      concrete ones under marks (P2).  tm_cancel and a tm_restart in the
 *      turn validate the conditions the same way (the decision may rest
 *      on them) and drop the lazy writes.
 *  PL4 (in the turn: eager) An attempt that runs in its turn from its
 *      start (fast mode, pogl, serial) resolves every LSD call at once
 *      (lib/lsd.c's eager mode): nobody commits before it, so there is
 *      nothing to defer.  Live promotion settles in place at the
 *      promotion point, after the read set is validated and before the
 *      write set is applied: conditions validated and every future bound
 *      on memory as it is (PL3's state), the lazy writes put into the
 *      write set that then goes in place; the rest of the attempt is
 *      eager.  pot-ordered and destm keep futures unresolved in every
 *      speculative attempt, the retry in the turn included (it validates
 *      at once: nobody can commit before it): both commit in order, after
 *      PL3's validation.  pot-fast does not promote: its speculative
 *      attempts settle at the commit.
 *  PL5 (determinism) A committed transaction acted only on what its slot
 *      gives it: its concrete reads were validated in the turn (P3), every
 *      condition answer it branched on was validated in the turn against
 *      the state after all earlier slots, and its lazy writes were
 *      evaluated on that state.  So it computed exactly what it computes
 *      when run alone in its slot, and the final state and the results
 *      are those of the sequential order, whatever the timing.  Runs of
 *      turns (lib/sequencer.h S4) depend on the committing execution's
 *      access count, which must not depend on whether it resolved its
 *      futures lazily or eagerly: lsd_read and lsd_write count one access
 *      each in a speculative attempt (pot_lsd_written, pot_lsd_reserve),
 *      as their eager forms (a tm_read, a tm_write) do; lsd_is_true,
 *      lsd_value and the settling count none in either.
 * A transaction that makes no LSD call pays one test of the thread's
 * lsd_used flag at a speculative commit (potm_lsd_unsettled, L6); fast
 * mode pays nothing.  The HTM Pot backends (htm/pot_htm.h) keep the eager
 * mode: their speculative transactions run in hardware, which tracks
 * every load, a peek included, so a condition would conflict exactly as
 * a standard read does; and their software path is fast mode, which
 * resolves at once anyway.
 *
 * Commutativity keys (Vale's thesis 3.2, "multiple simultaneous fast
 * transactions", and 5.3.2's Pot (+fast); tm_set_next_order_key,
 * lib/sequencer.h K0).  With the explicit order a slot may come with a
 * key; the application promises that transactions with different keys
 * touch disjoint data.  In pot and pot-fast (not with POTM_SERIAL):
 *  K1  (early fast mode) A keyed transaction whose slot f is not the turn
 *      begins in fast mode at once if every slot from the turn up to f
 *      is supplied with a known key other than its own and than
 *      TM_KEY_NONE, or has ended (K5; seqr_commutes_before; keys never
 *      change, so what held at its begin holds until its commit), or
 *      later (K6).  Every transaction
 *      still unfinished before f is then keyed and disjoint from it:
 *      none writes what it reads, so its plain reads see exactly the
 *      state after all slots before f as far as its data goes (P3's
 *      promise, for its data); its writes go in place with version
 *      f + 1.  P1 becomes: only the holder and early keyed transactions
 *      write shared memory, and while an early one runs every in-place
 *      writer (the holder included) is keyed: a keyless or TM_KEY_NONE
 *      transaction never writes in place beside an early one.
 *  K2  (shared marks) A keyed attempt marks a stripe by CAS from an
 *      unmarked word and keeps that word, since another in-place writer
 *      may share the stripe (different data, same stripe); its writes all
 *      go through pot_fast_write (no inline path).  At its end it gives
 *      each stripe the larger of its version and the kept one, rolled
 *      back or not (P4).  P2 holds for every marker: a marked stripe is
 *      never read speculatively.
 *  K3  (no cycle) Meeting a stripe another writer has marked, an early
 *      attempt that meets an earlier slot's mark rolls back and retries
 *      (cause write_locked; the retry first waits for that mark to go);
 *      anyone meeting a later slot's mark waits.  Waits go from earlier
 *      to later slots and the latest waits for nobody, so they end; the
 *      holder never gives up.  Marks are held only while a body runs:
 *      an early attempt unmarks before it waits for its turn, so nobody
 *      waits for a mark held by a thread that waits for the turn.
 *  K4  (versions never go down) A stripe's version is at least the
 *      version of every write it has seen (K2's larger of the two), so a
 *      write by slot w >= rv leaves a version > rv, as TL2 validation
 *      needs: a speculative read accepts a version <= rv only when no
 *      slot >= rv wrote the stripe, and validation and extension (P2, P3)
 *      still catch every change.  An early write's version f + 1 exceeds
 *      the clock until f commits: a speculative reader waits for the
 *      clock (pot_extend) or retries in its turn.  Stripes that an early
 *      transaction shares with a keyed speculative one it commutes with
 *      can only cost that one a spurious order abort.
 *  K5  (ordered commit) An early transaction unmarks (K2); its commit
 *      point is its turn, where nothing is left to do: if the turn has
 *      not come, it leaves the slot to whoever passes the turn to it
 *      (lib/sequencer.h K7) and tm_commit returns at once, else it passes
 *      the turn.  Either way the slot is consumed in order, its
 *      tm_last_order is its slot, and it is counted in early_fast; a
 *      later early transaction with its key may read its writes before
 *      the turn reaches it (they are the state after it, and it never
 *      rolls back).
 *      tm_cancel rolls it back and consumes the slot in its turn.  Given
 *      the promise, the final state and every result are the serial
 *      order's: commuting transactions' order does not matter on
 *      disjoint data, and every other pair keeps the ordered commit.
 *  K6  (early promotion) A keyed speculative attempt looks at K1's
 *      condition where live promotion looks at the turn (every
 *      POT_TURN_LOOK_EVERY reads, pot only) and at its commit (pot,
 *      pot-fast): a slot before it may have been supplied since it
 *      began.  If it holds, its read set must still be valid against its
 *      snapshot (slots before the turn with its key wrote nothing it
 *      read; those after commute), and its write set goes in place under
 *      K2's marks; then it is an early transaction (K1, K5).  Futures
 *      unresolved (Pot+LSD) keep it speculative: PL3 settles in the turn.
 * pot-ordered and pogl (and the HTM backends) accept keys and run keyed
 * transactions as keyless ones.  LSD runs eagerly in early fast mode (PL4:
 * its data is the state of its slot).
 *
 * Explicit aborts.  A decision taken while holding the turn on a valid
 * snapshot is deterministic, one taken speculatively may not be.  So:
 * tm_restart in the turn rolls back, consumes the slot as a no-op (so the
 * other threads can change what it waits for) and retries; without the
 * turn it just retries.  tm_cancel always ends as an ordered no-op commit:
 * a speculative transaction first waits for its turn and checks that its
 * snapshot is current (retrying if not).  With the explicit sequencer a
 * restart keeps its slot: the caller's order has no room for another.
 *
 * Statistics: fast_commits counts commits in fast mode (begun in the turn,
 * promoted, or early: K1), early_fast the early ones, promotions the live promotions, spec_commits the ordered
 * commits of speculative transactions; aborts under TM_ABORT_ORDER are
 * transactions found invalid when their turn came (an earlier one in the
 * order wrote what they read), under TM_ABORT_CONDITION those whose
 * condition answer changed (PL3).  reads/writes count the speculative read
 * and write sets and the in-place writes; fast-mode reads are plain loads
 * and are not counted.  wait_turn_ns is time spent waiting in the
 * sequencer (for the turn, and in destm for rounds and round-mates).
 */
#include "potm_internal.h"
#include "pot_order.h"
#include "tl2_sets.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>

/* K2: a stripe a keyed attempt marked, and its word before the mark. */
typedef struct pot_mark {
	volatile uintptr_t *stripe;
	uintptr_t prev;
} pot_mark_t;

typedef struct pot_tx {
	pot_thread_t pt;               /* first: order state (lib/pot_order.h) */
	bool fast;                     /* in place, in turn: fast mode or pogl */
	bool in_run;                   /* this attempt began in its run of
	                                  turns (pot_begin_in_run): fast,
	                                  keyless, not serial, not reading */
	bool mark;                     /* fast: mark stripes before writing (P2) */
	/* The in-place writes of an attempt: pt.th.txd.undo (tm.h's inline
	 * writes append to it). */
	bool sync_first_tx;            /* P5: first transaction since joining */
	bool serial;                   /* P6: this attempt runs alone */
	bool want_serial;              /* P6: the next attempt does */
	bool want_turn;                /* the next attempt waits for its turn */
	bool reading;                  /* P6: its reading word is up */
	uint64_t epoch;                /* P6: pot.serial_epoch at its start */
	uintptr_t fast_word;           /* (wv << 1) | 1 while fast */
	bool early;                    /* K1: fast before its turn */
	bool deferred;                 /* K5: its slot is left to the passer
	                                  (lib/sequencer.h K7) */
	pot_mark_t *marks;             /* K2: the stripes this attempt marked */
	size_t nmarks, marks_cap;
	volatile uintptr_t *collided;  /* K3: an earlier slot's mark met: the
	                                  retry waits for it to go */
	uint64_t rv;                   /* speculative snapshot */
	tl2_rset_t rs;                 /* read set: stripe words read */
	tl2_wset_t ws;                 /* write set */
} pot_tx_t;

#define POT_MARKED_SPINS 128   /* pauses before yielding on a marked stripe */
#define POT_TURN_LOOK_EVERY 8  /* speculative accesses per look at the turn */

static struct {
	volatile uintptr_t *stripes POTM_ALIGNED;
	uintptr_t mask;
	unsigned shift;
	bool solo_unmarked;    /* P5 is in force */
	unsigned mark_above;   /* a fast transaction marks (P2) while more
	                          threads than this are registered: 0 always,
	                          1 unless alone (P5), UINT_MAX never (no
	                          speculative reader to protect) */
	bool serial_on;        /* P6: POTM_SERIAL, in a mode with fast mode
	                          or pogl */
	bool serial_fast;      /* P6: POTM_SERIAL in a mode with fast mode:
	                          hinted transactions and the mark go serial */
	size_t serial_at;      /* P6: undo entries that send a fast attempt
	                          serial (POTM_SERIAL_WRITES; 0: never) */
	unsigned serial POTM_ALIGNED;  /* P6: a serial transaction runs */
	uint64_t serial_epoch;         /* P6: serial commits so far */
	unsigned char *reading;        /* P6: a reading word per logical id,
	                                  a cache line each */
} pot;

static inline volatile uintptr_t *pot_stripe_of(const void *a)
{
	return &pot.stripes[((uintptr_t)a >> pot.shift) & pot.mask];
}

static inline bool pot_holds_turn(const pot_tx_t *tx)
{
	return pot_is_turn(&tx->pt);
}

/* ---- validation ------------------------------------------------------ */

/* Is every stripe read still unmarked and no newer than rv? */
static bool pot_validate(const pot_tx_t *tx)
{
	for (const volatile uintptr_t **p = tx->rs.e; p < tx->rs.next; p++) {
		uintptr_t l = __atomic_load_n(*p, __ATOMIC_ACQUIRE);
		if ((l & 1) || (l >> 1) > tx->rv)
			return false;
	}
	return true;
}

/* ---- in-place writing (P1, P2) ------------------------------------------- */

/* Mark addr's stripe as being written by the holder before the first store
 * to it.  The fence orders the mark before the store that follows (P2). */
static inline void pot_mark(const pot_tx_t *tx, const void *addr)
{
	tm_stripe_mark_(pot_stripe_of(addr), tx->fast_word);
}

static void pot_unmark_shared(pot_tx_t *tx, uint64_t version) __attribute__((noinline));

/* Unmark the stripes of every in-place write of this attempt with version
 * `version`, after all the stores (P2). */
static inline void pot_unmark(pot_tx_t *tx, uint64_t version)
{
	if (tx->mark)
		tl2_unmark_logged(&tx->pt.th.txd.undo, pot.stripes, pot.mask, pot.shift, version);
}

static void pot_abort(pot_tx_t *tx, int cause) __attribute__((noreturn, noinline));

/* K2: mark a stripe for a keyed attempt.  Its word is ours already, or
 * unmarked (taken by CAS, the previous word kept), or marked by another
 * in-place writer, whose data is disjoint from ours (K1) but shares the
 * stripe: an earlier slot's mark makes an early attempt give up (K3: the
 * later one yields, so nobody waits in a cycle); a later slot's mark is
 * waited for (it goes at that attempt's end or abort, which never waits
 * for us).  A stripe already ours (a record's other fields) is tested
 * inline; the rest is out of line. */
static void pot_mark_shared_slow(pot_tx_t *tx, volatile uintptr_t *s) __attribute__((noinline));
static inline void pot_mark_shared(pot_tx_t *tx, volatile uintptr_t *s)
{
	if (__atomic_load_n(s, __ATOMIC_ACQUIRE) != tx->fast_word)
		pot_mark_shared_slow(tx, s);
}

static void pot_mark_shared_slow(pot_tx_t *tx, volatile uintptr_t *s)
{
	for (unsigned i = 0;; i++) {
		uintptr_t w = __atomic_load_n(s, __ATOMIC_ACQUIRE);
		if (w == tx->fast_word)
			return;
		if (!(w & 1)) {
			if (!__atomic_compare_exchange_n(s, &w, tx->fast_word, false,
			                                 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				continue;
			if (tx->nmarks == tx->marks_cap) {
				tx->marks_cap = tx->marks_cap ? 2 * tx->marks_cap : 64;
				tx->marks = potm_xrealloc(tx->marks,
				                          tx->marks_cap * sizeof *tx->marks);
			}
			tx->marks[tx->nmarks++] = (pot_mark_t){ s, w };
			__atomic_thread_fence(__ATOMIC_RELEASE);   /* P2: mark, then store */
			return;
		}
		if (tx->early && w < tx->fast_word) {
			tx->collided = s;
			pot_abort(tx, TM_ABORT_WRITE_LOCKED);
		}
		if (i < POT_MARKED_SPINS)
			potm_cpu_relax();
		else
			sched_yield();
	}
}

/* K2: end of a keyed attempt's in-place writes, after all its stores or
 * their rollback: each stripe gets the larger of our version and the
 * version it had (an early attempt of a later slot may have written the
 * stripe before us: a stripe's version never goes down, K4).  Rolled
 * back too (P4's A-B-A: a reader that loaded the old word before our mark
 * must not find it again after our stores were undone). */
static void pot_unmark_shared(pot_tx_t *tx, uint64_t version)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < tx->nmarks; i++) {
		const pot_mark_t *m = &tx->marks[i];
		uintptr_t w = m->prev;
		if ((w >> 1) < version)
			w = (uintptr_t)version << 1;
		__atomic_store_n(m->stripe, w, __ATOMIC_RELAXED);
	}
	tx->nmarks = 0;
}

static void pot_restart_serial(pot_tx_t *tx) __attribute__((noreturn, noinline, cold));

static inline __attribute__((always_inline)) void pot_fast_write(pot_tx_t *tx, void *a,
                                                                 unsigned size, uint64_t b)
{
	const tm_undo_t *u = &tx->pt.th.txd.undo;
	if (unlikely(u->plain_max) && potm_undo_count(u) >= u->plain_max)
		pot_restart_serial(tx);   /* P6 */
	if (unlikely(tx->pt.keyed)) {   /* K2 */
		pot_mark_shared(tx, pot_stripe_of(a));
		tl2_write_in_place(&tx->pt.th.txd.undo, NULL, 0, a, size, b);
		return;
	}
	tl2_write_in_place(&tx->pt.th.txd.undo, tx->mark ? pot_stripe_of(a) : NULL,
	                   tx->fast_word, a, size, b);
}

/* ---- slots ------------------------------------------------------------------ */

/* tx->fast, mirrored in the descriptor's flags, where tm.h's inline reads
 * look: in fast mode they are plain loads (no call). */
static void pot_leave_serial(pot_tx_t *tx);
static inline void pot_stop_reading(pot_tx_t *tx);

static inline void pot_set_fast(pot_tx_t *tx, bool fast)
{
	tx->fast = fast;
	if (fast) {
		tx->pt.th.txd.flags |= TM_TXD_PLAIN_READS;
	} else {
		if (unlikely(tx->serial))
			pot_leave_serial(tx);
		tx->pt.th.txd.flags &= ~(TM_TXD_PLAIN_READS | TM_TXD_SERIAL);
		tx->pt.th.txd.undo.plain_max = 0;
		potm_undo_set_plain(&tx->pt.th.txd.undo, false);
		tx->pt.th.txd.undo.mark = 0;
	}
}

/* tx->mark; in fast mode tm.h's writes are inline (potm_undo_set_plain):
 * the stripe's mark if marks are on (undo.mark, tm_undo_mark_), a log
 * entry and a store, as pot_fast_write does.  Call it after fast_word is
 * set. */
static inline void pot_set_mark(pot_tx_t *tx, bool mark)
{
	tm_undo_t *u = &tx->pt.th.txd.undo;
	tx->mark = mark;
	u->mark = tx->fast && mark ? tx->fast_word : 0;
	potm_undo_set_plain(u, tx->fast);
}

/* Enter fast mode at the current slot (P3: clock is frozen while we hold
 * the turn, so our commit will be version clock + 1), marking the stripes
 * written (P2) if mark.  pot_set_fast and pot_set_mark in one pass, for
 * every short transaction that begins in its turn: a keyed attempt (K2)
 * takes no inline write, every one goes through pot_fast_write. */
static inline __attribute__((always_inline)) void pot_enter_fast_as(pot_tx_t *tx,
                                                                    uint64_t clock, bool mark,
                                                                    bool keyed)
{
	tm_undo_t *u = &tx->pt.th.txd.undo;
	tx->fast_word = (uintptr_t)(clock + 1) << 1 | 1;
	tx->fast = true;
	tx->pt.th.txd.flags |= TM_TXD_PLAIN_READS;
	u->plain_max = pot.serial_at;   /* P6: 0: no mark */
	tx->mark = mark;
	u->mark = mark ? tx->fast_word : 0;
	if (likely(!u->plain_max && !keyed)) {
		/* potm_undo_set_plain(u, true), the log's own end the bound */
		tm_undo_entry_t *end = u->end;
		u->plain_end = end;
		u->quick_end = mark ? NULL : u->seen_from < end ? u->seen_from : end;
	} else {
		potm_undo_set_plain(u, !keyed);
	}
	/* Empty already: every commit, rollback and cancel of a fast attempt
	 * empties the log, and a speculative one logs nothing. */
	assert(potm_undo_count(u) == 0);
}

static inline __attribute__((always_inline)) void pot_enter_fast(pot_tx_t *tx, uint64_t clock,
                                                                 bool mark)
{
	pot_enter_fast_as(tx, clock, mark, tx->pt.keyed);
}

/* Undo this attempt's in-place writes, then unmark their stripes with
 * our version (P4).  potm_undo_rollback empties the log but leaves the
 * entries in place, which pot_unmark reads. */
static void pot_rollback_fast(pot_tx_t *tx)
{
	potm_undo_entry_t *next = tx->pt.th.txd.undo.next;
	potm_undo_rollback(&tx->pt.th.txd.undo);
	tx->pt.th.txd.undo.next = next;
	if (unlikely(tx->pt.keyed))
		pot_unmark_shared(tx, tx->fast_word >> 1);   /* K2 */
	else
		pot_unmark(tx, tx->fast_word >> 1);
	potm_undo_clear(&tx->pt.th.txd.undo);
}

static void pot_abort(pot_tx_t *tx, int cause)
{
	if (tx->fast)
		pot_rollback_fast(tx);
	tx->early = false;
	tl2_sets_reset(&tx->pt.th, &tx->rs, &tx->ws);
	pot_set_fast(tx, false);
	pot_stop_reading(tx);
	/* The retry of a transaction that keeps the turn cannot conflict:
	 * backing off would only delay everybody behind it. */
	if (pot_holds_turn(tx))
		tx->pt.th.attempt = 0;
	potm_tx_aborted(&tx->pt.th, cause);
}

static void pot_lsd_settle_in_turn(pot_tx_t *tx, bool all);

/* Live promotion: our turn arrived while we ran speculatively.  If what
 * we read is still current (P3) the rest of the transaction can run in
 * fast mode: apply the write set in place, drop the sets.  An attempt
 * with unresolved futures settles them first, on memory as it is, and
 * goes on eagerly (PL4). */
static void pot_promote(pot_tx_t *tx) __attribute__((noinline));
static void pot_promote(pot_tx_t *tx)
{
	uint64_t clock = pot_order_clock(&tx->pt);
	if (clock != tx->rv && !pot_validate(tx))
		pot_abort(tx, TM_ABORT_ORDER);
	if (unlikely(potm_lsd_unsettled(&tx->pt.th)))
		pot_lsd_settle_in_turn(tx, true);
	pot_enter_fast(tx, clock, pot_order.mode.speculative);
	if (unlikely(tx->pt.keyed)) {   /* K2: the holder: it waits, never yields */
		for (size_t i = 0; i < tx->ws.n; i++)
			pot_mark_shared(tx, pot_stripe_of((const void *)tx->ws.e[i].addr));
		for (size_t i = 0; i < tx->ws.n; i++)
			tl2_ws_store_entry(&tx->ws.e[i], &tx->pt.th.txd.undo);
	} else {
		tl2_ws_apply_in_place(&tx->ws, &tx->pt.th.txd.undo, pot.stripes, pot.mask,
		                      pot.shift, tx->fast_word);
	}
	tl2_sets_reset(&tx->pt.th, &tx->rs, &tx->ws);
	POTM_STAT_INC(&tx->pt.th, promotions);
}

/* ---- serial mode (P6) ------------------------------------------------------------ */

static inline volatile unsigned char *pot_reading_word(unsigned id)
{
	return &pot.reading[(size_t)id * POTM_CACHELINE];
}

/* A speculative attempt's side: raise the reading word, unless a serial
 * transaction runs (then wait for it to end). */
static void pot_start_reading(pot_tx_t *tx)
{
	potm_gate(pot_reading_word(tx->pt.th.id), &pot.serial, potm_membarrier_ok);
	tx->reading = true;
	tx->epoch = __atomic_load_n(&pot.serial_epoch, __ATOMIC_ACQUIRE);
}

/* The attempt reads no more (it waits for its turn, or is over). */
static inline void pot_stop_reading(pot_tx_t *tx)
{
	if (tx->reading) {
		__atomic_store_n(pot_reading_word(tx->pt.th.id), 0, __ATOMIC_RELEASE);
		tx->reading = false;
	}
}

/* The holder's side, in its turn, in fast mode: announce, barrier, wait
 * for the speculative readers, then run alone, unmarked.  If the barrier
 * fails the attempt stays an ordinary fast one. */
static void pot_enter_serial(pot_tx_t *tx)
{
	__atomic_store_n(&pot.serial, 1, __ATOMIC_SEQ_CST);
	if (!potm_membarrier_ok) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} else if (potm_membarrier() != 0) {
		__atomic_store_n(&pot.serial, 0, __ATOMIC_RELEASE);
		return;
	}
	potm_wait_others_down(pot.reading, potm_cfg.max_threads, tx->pt.th.id);
	tx->serial = true;
	tx->pt.th.txd.flags |= TM_TXD_SERIAL;
	tx->pt.th.txd.undo.plain_max = 0;
	pot_set_mark(tx, false);
}

/* End of a serial attempt (commit, rollback), before the turn passes: the
 * epoch moves after its last store, so a snapshot taken before it fails
 * its check (pot_snapshot_current). */
static void pot_leave_serial(pot_tx_t *tx)
{
	tx->serial = false;
	__atomic_add_fetch(&pot.serial_epoch, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&pot.serial, 0, __ATOMIC_RELEASE);
}

/* A fast attempt's undo log reached pot.serial_at: start again alone.
 * The abort keeps the turn (pot_abort), so the retry begins fast. */
static void pot_restart_serial(pot_tx_t *tx)
{
	tx->want_serial = true;
	pot_abort(tx, TM_ABORT_SERIAL);
}

/* Is a speculative snapshot still current in our turn (P3), and did no
 * serial transaction store since it was taken (P6)? */
static bool pot_snapshot_current(const pot_tx_t *tx)
{
	return (pot_order_clock(&tx->pt) == tx->rv || pot_validate(tx)) &&
	       tx->epoch == __atomic_load_n(&pot.serial_epoch, __ATOMIC_ACQUIRE);
}

/* ---- speculative reads --------------------------------------------------------- */

/* Wait for the holder to finish writing a stripe we want to read. */
static void pot_wait_unmarked(volatile uintptr_t *s)
{
	for (unsigned i = 0; __atomic_load_n(s, __ATOMIC_ACQUIRE) & 1; i++) {
		if (i < POT_MARKED_SPINS)
			potm_cpu_relax();
		else
			sched_yield();
	}
}

/* Snapshot extension: if everything read so far is unchanged, the snapshot
 * is valid at the current clock too.  need: the version we met; if the
 * clock has not reached it yet, its writer holds the turn: it is between
 * unmarking and passing it, a few instructions away, or in a run of turns
 * (lib/sequencer.h S4), which may last a while: then the attempt gives up
 * and its retry waits for its turn, where the run's writes are plain to
 * read. */
static bool pot_extend(pot_tx_t *tx, uint64_t need)
{
	if (!potm_cfg.extend)
		return false;
	uint64_t now;
	for (unsigned i = 0; (now = seqr_clock()) < need; i++) {
		if (i >= POT_MARKED_SPINS) {
			tx->want_turn = true;
			pot_abort(tx, TM_ABORT_READ_VERSION);
		}
		potm_cpu_relax();
	}
	if (!pot_validate(tx))
		return false;
	tx->rv = now;
	POTM_STAT_INC(&tx->pt.th, extensions);
	return true;
}

/* Load size bytes at a consistently with the snapshot (P2) and log the
 * stripe.  Returns false, without a value, if the transaction was promoted
 * meanwhile (only if may_promote): the caller then reads in fast mode. */
static inline __attribute__((always_inline)) bool pot_spec_load(pot_tx_t *tx, const void *a,
                                                                unsigned size, uint64_t *out,
                                                                bool may_promote)
{
	volatile uintptr_t *s = pot_stripe_of(a);
	for (;;) {
		uintptr_t l1 = __atomic_load_n(s, __ATOMIC_ACQUIRE);
		if (l1 & 1) {
			pot_wait_unmarked(s);
			continue;
		}
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uintptr_t l2 = __atomic_load_n(s, __ATOMIC_RELAXED);
		if (l1 != l2)
			continue;
		if (likely((l1 >> 1) <= tx->rv)) {
			tl2_rs_add(&tx->rs, s);
			*out = v;
			return true;
		}
		/* Written after our snapshot.  If that writer handed the turn
		 * to us, promotion revalidates and we read in place. */
		if (may_promote && pot_order.mode.live_promotion && pot_holds_turn(tx)) {
			pot_promote(tx);
			return false;
		}
		if (!pot_extend(tx, l1 >> 1))
			pot_abort(tx, TM_ABORT_READ_VERSION);
	}
}

static bool pot_try_early_promote(pot_tx_t *tx);

/* A read that is not in fast mode. */
static uint64_t pot_read_spec(pot_tx_t *tx, const void *a, unsigned size) __attribute__((noinline));
static uint64_t pot_read_spec(pot_tx_t *tx, const void *a, unsigned size)
{
	/* P6: a serial transaction waits for this attempt to stop reading,
	 * and its commit will fail the attempt's snapshot anyway (the epoch):
	 * stop now rather than at the end of a long body. */
	if (unlikely(pot.serial_on) && __atomic_load_n(&pot.serial, __ATOMIC_RELAXED))
		pot_abort(tx, TM_ABORT_SERIAL);
	/* Live promotion looks at the turn every POT_TURN_LOOK_EVERY
	 * accesses, not at each read: the turn word changes at every commit,
	 * so reading it is a cache miss whenever another thread committed
	 * since, and a read that finds a stripe newer than its snapshot
	 * looks anyway (pot_spec_load). */
	if (pot_order.mode.live_promotion &&
	    (tx->pt.th.txd.accesses & (POT_TURN_LOOK_EVERY - 1)) == 0) {
		if (pot_holds_turn(tx)) {
			pot_promote(tx);
			return tm_load_bytes_(a, size);
		}
		if (unlikely(tx->pt.keyed) && pot_try_early_promote(tx))   /* K6 */
			return tm_load_bytes_(a, size);
	}
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a & ~(uintptr_t)7);
	uint64_t mine = 0, have = 0, mem;
	/* Written earlier in this transaction, perhaps only in part. */
	if (e != NULL && tl2_ws_covers(e, a, size, &mine, &have))
		return mine;
	if (!pot_spec_load(tx, a, size, &mem, true))
		return tm_load_bytes_(a, size);   /* promoted: our writes are in place */
	return e ? tl2_merge_bytes(mem, mine, have) : mem;
}

/* A write that is not in fast mode. */
static void pot_write_spec(pot_tx_t *tx, void *a, unsigned size, uint64_t b) __attribute__((noinline));
static void pot_write_spec(pot_tx_t *tx, void *a, unsigned size, uint64_t b)
{
	if (pot_order.mode.live_promotion && pot_holds_turn(tx)) {
		pot_promote(tx);
		pot_fast_write(tx, a, size, b);
		return;
	}
	tl2_ws_put(&tx->ws, a, size, b);
}

/* ---- accesses ------------------------------------------------------------------ */

tm_word_t tm_read(const tm_word_t *a)
{
	pot_tx_t *tx = (pot_tx_t *)potm_self_in_tx("tm_read");
	tx->pt.th.txd.accesses++;
	if (likely(tx->fast))
		return __atomic_load_n(a, __ATOMIC_RELAXED);
	return (tm_word_t)pot_read_spec(tx, a, sizeof *a);
}

void tm_write(tm_word_t *a, tm_word_t v)
{
	pot_tx_t *tx = (pot_tx_t *)potm_self_writing("tm_write");
	tx->pt.th.txd.accesses++;
	if (likely(tx->fast)) {
		pot_fast_write(tx, a, sizeof *a, v);
		return;
	}
	pot_write_spec(tx, a, sizeof *a, v);
}

static inline uint64_t BACKEND_READ_BYTES(const void *a, unsigned size)
{
	pot_tx_t *tx = (pot_tx_t *)potm_self_in_tx("tm_read");
	tx->pt.th.txd.accesses++;
	if (likely(tx->fast))
		return tm_load_bytes_(a, size);
	return pot_read_spec(tx, a, size);
}

static inline void BACKEND_WRITE_BYTES(void *a, unsigned size, uint64_t b)
{
	pot_tx_t *tx = (pot_tx_t *)potm_self_writing("tm_write");
	tx->pt.th.txd.accesses++;
	if (likely(tx->fast)) {
		pot_fast_write(tx, a, size, b);
		return;
	}
	pot_write_spec(tx, a, size, b);
}

#define POTM_GEN_READ_SPEC 1
#include "access_gen.h"

/* ---- Pot+LSD (PL1-PL5) ------------------------------------------------------------ */

/* PL4: a speculative attempt keeps its futures unresolved; one that runs
 * in its turn (fast mode, pogl, serial, promoted) resolves at once. */
static bool pot_lsd_lazy(potm_thread_t *t)
{
	return !((const pot_tx_t *)t)->fast;
}

/* lsd_read: what the attempt wrote of [a, a + size).  PL5: lsd_read costs
 * one access, as its eager form (a tm_read) does; in part written, the
 * core's standard read counts it. */
static int pot_lsd_written(potm_thread_t *t, const void *a, unsigned size, uint64_t *b)
{
	pot_tx_t *tx = (pot_tx_t *)t;
	tl2_wentry_t *e = tl2_ws_lookup(&tx->ws, (uintptr_t)a & ~(uintptr_t)7);
	uint64_t have = 0;
	int w = e != NULL && tl2_ws_covers(e, a, size, b, &have) ? 1 : have ? -1 : 0;
	if (w >= 0)
		t->txd.accesses++;
	return w;
}

/* PL2: the latest committed value: the stripe unmarked, and the same word
 * just before and just after the load (P2's test, without the bound on
 * the version); not logged.  A marked stripe is waited for, as a
 * speculative read waits. */
static uint64_t pot_lsd_peek(potm_thread_t *t, const void *a, unsigned size)
{
	pot_tx_t *tx = (pot_tx_t *)t;
	if (unlikely(pot.serial_on) && __atomic_load_n(&pot.serial, __ATOMIC_RELAXED))
		pot_abort(tx, TM_ABORT_SERIAL);   /* P6, as pot_read_spec */
	volatile uintptr_t *s = pot_stripe_of(a);
	for (;;) {
		uintptr_t l1 = __atomic_load_n(s, __ATOMIC_ACQUIRE);
		if (l1 & 1) {
			pot_wait_unmarked(s);
			continue;
		}
		uint64_t v = tm_load_bytes_(a, size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(s, __ATOMIC_RELAXED) == l1)
			return v;
	}
}

/* PL1: lsd_value's standard read of memory: the snapshot and the read
 * set, as a speculative read, but never a promotion (the core is in the
 * middle of evaluating an expression; the commit or the next access
 * promotes).  Not counted: lsd_read was. */
static uint64_t pot_lsd_resolve(potm_thread_t *t, const void *a, unsigned size)
{
	pot_tx_t *tx = (pot_tx_t *)t;
	if (unlikely(pot.serial_on) && __atomic_load_n(&pot.serial, __ATOMIC_RELAXED))
		pot_abort(tx, TM_ABORT_SERIAL);
	uint64_t v;
	(void)pot_spec_load(tx, a, size, &v, false);
	return v;
}

/* PL3: lsd_write reserves its word in the write set (an entry with no
 * bytes yet), which the ordered commit marks and writes back with the
 * others; the cookie is the entry's index, stable until the attempt ends.
 * PL5: one access, as its eager form (a tm_write). */
static uint32_t pot_lsd_reserve(potm_thread_t *t, void *a, unsigned size)
{
	pot_tx_t *tx = (pot_tx_t *)t;
	(void)size;
	t->txd.accesses++;
	uintptr_t word = (uintptr_t)a & ~(uintptr_t)7;
	return (uint32_t)(tl2_ws_entry(&tx->ws, word) - tx->ws.e);
}

static const potm_lsd_ops_t pot_lsd_ops = {
	.lazy = pot_lsd_lazy,
	.written = pot_lsd_written,
	.peek = pot_lsd_peek,
	.resolve = pot_lsd_resolve,
	.reserve = pot_lsd_reserve,
};

/* PL3: in the turn memory is the state after every earlier slot (P3),
 * and nobody else writes it (P1); the attempt's own writes are still in
 * its write set.  So a plain load gives each future its word's value at
 * the slot, before this transaction (L2). */
static uint64_t pot_lsd_read_in_turn(potm_thread_t *t, const void *a, unsigned size)
{
	(void)t;
	return tm_load_bytes_(a, size);
}

/* A lazy write's value into its reserved entry, in program order (L3). */
static void pot_lsd_put(potm_thread_t *t, void *a, unsigned size, uint64_t b, uint32_t cookie)
{
	tl2_wset_t *ws = &((pot_tx_t *)t)->ws;
	if (cookie == POTM_LSD_NO_COOKIE)
		tl2_ws_put(ws, a, size, b);
	else
		tl2_ws_fill(&ws->e[cookie], a, size, b);
}

/* tm_cancel, tm_restart: the conditions decided the attempt's course, the
 * lazy writes are dropped with it. */
static void pot_lsd_drop(potm_thread_t *t, void *a, unsigned size, uint64_t b, uint32_t cookie)
{
	(void)t;
	(void)a;
	(void)size;
	(void)b;
	(void)cookie;
}

/* PL3, PL4: condition validation in the turn, after the read set was
 * validated: an answer that changed aborts (cause condition; the retry
 * holds the turn).  Then the lazy writes join the write set (put), or are
 * dropped (the attempt cancels or restarts); with all every future is
 * bound, for the eager rest of a promoted attempt. */
static void pot_lsd_settle_with(pot_tx_t *tx, bool all, potm_lsd_put_fn put)
	__attribute__((noinline));
static void pot_lsd_settle_with(pot_tx_t *tx, bool all, potm_lsd_put_fn put)
{
	if (!potm_lsd_settle(&tx->pt.th, pot_lsd_read_in_turn, put, all))
		pot_abort(tx, TM_ABORT_CONDITION);
}

static void pot_lsd_settle_in_turn(pot_tx_t *tx, bool all)
{
	pot_lsd_settle_with(tx, all, pot_lsd_put);
}

/* ---- begin ------------------------------------------------------------------------ */

/* Weighted order: the weight from which a transaction that lost a
 * speculative attempt waits for its turn (long enough that a lost retry
 * costs more than the wait). */
#define POT_HEAVY_WEIGHT 64

static inline void pot_begin_spec(pot_tx_t *tx)
{
	potm_enter_read_section(&tx->pt.th);   /* it reads beside the holder */
	pot_set_fast(tx, false);
	if (pot.serial_on)
		pot_start_reading(tx);
	tx->rv = seqr_clock();
}

/* K1: the slot supplied for this transaction (explicit order). */
static inline uint64_t pot_supplied_slot(const pot_tx_t *tx)
{
	return tx->pt.key.want >> SEQR_HOLDER_BITS;
}

/* K1, K3: may this keyed attempt run in fast mode before its turn?  Its
 * retry after an earlier slot's mark first waits for that mark to go. */
static bool pot_may_run_early(pot_tx_t *tx)
{
	if (unlikely(tx->collided != NULL)) {
		pot_wait_unmarked(tx->collided);
		tx->collided = NULL;
	}
	return seqr_commutes_before(pot_supplied_slot(tx), tx->pt.key_hash);
}

/* K1: fast mode before the turn: plain reads, writes in place under
 * shared marks (K2) with the version of its own slot.  It reads beside
 * the holder (the read-side section, as a speculative attempt). */
static void pot_begin_early(pot_tx_t *tx)
{
	potm_enter_read_section(&tx->pt.th);
	tx->early = true;
	pot_enter_fast(tx, pot_supplied_slot(tx), pot_order.mode.speculative);
}

/* K6 (early promotion): a keyed speculative attempt that finds K1's
 * condition true (a slot before it was supplied since it began) goes on in
 * early fast mode: what it read must still be current (every read stripe
 * unmarked, no newer than its snapshot: whatever wrote its data since is
 * an earlier slot with the same key, K1), then its write set goes in place
 * under shared marks (K2) and the rest runs as K1's.  An attempt with
 * unresolved futures waits for its turn (PL3 settles them there). */
static bool pot_try_early_promote(pot_tx_t *tx)
{
	if (unlikely(potm_lsd_unsettled(&tx->pt.th)) || !pot_may_run_early(tx))
		return false;
	if (!pot_validate(tx))
		pot_abort(tx, TM_ABORT_ORDER);   /* it would fail in its turn */
	tx->early = true;
	pot_enter_fast(tx, pot_supplied_slot(tx), pot_order.mode.speculative);
	for (size_t i = 0; i < tx->ws.n; i++)
		pot_mark_shared(tx, pot_stripe_of((const void *)tx->ws.e[i].addr));
	for (size_t i = 0; i < tx->ws.n; i++)
		tl2_ws_store_entry(&tx->ws.e[i], &tx->pt.th.txd.undo);
	tl2_sets_reset(&tx->pt.th, &tx->rs, &tx->ws);
	POTM_STAT_INC(&tx->pt.th, promotions);
	return true;
}

/* Does a fast transaction that begins now mark the stripes it writes
 * (P2)?  Not while its thread is the only registered one (P5).  Call it
 * after the transaction stored busy: the compiler must not move the load
 * of the count before that store (the CPU may: that is what the other
 * side's membarrier is for). */
static inline bool pot_fast_marks(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return seqr_registered() > pot.mark_above;
}

/* The general begin: every mode, order and case. */
static void pot_begin(pot_tx_t *tx) __attribute__((noinline));
static void pot_begin(pot_tx_t *tx)
{
	tm_txd_t *d = &tx->pt.th.txd;
	pot_order_check_supplied(&tx->pt);
	d->accesses = 0;   /* this attempt's, for its run of turns */
	if (unlikely(tx->sync_first_tx)) {
		/* P5: nothing read yet; make sure no unmarked fast
		 * transaction is still writing. */
		potm_membarrier();
		seqr_wait_holder_idle(tx->pt.th.id);
		tx->sync_first_tx = false;
	}
	__atomic_store_n(tx->pt.busy, 1, __ATOMIC_RELAXED);
	/* P6: a transaction the program said is long (pot, pot-fast) waits
	 * for its turn and runs serially from its first attempt; it runs
	 * alone, so it declares the least weight (it comes soon). */
	if (unlikely(tx->pt.th.hint_serial) && pot.serial_fast) {
		tx->want_serial = true;
		pot_order_declare_alone(&tx->pt);
	} else {
		pot_order_declare(&tx->pt);
	}
	if (pot_order.mode.global_lock) {
		/* PoGL: the turn is the lock; nobody reads beside its holder. */
		if (!pot_holds_turn(tx))
			pot_wait_outside_rcu(&tx->pt, POT_WAIT_TURN);
		pot_enter_fast(tx, pot_order_clock(&tx->pt), pot_order.mode.speculative);
		if (pot.serial_on)   /* P6 */
			tx->pt.th.txd.flags |= TM_TXD_SERIAL;
	} else if (pot_order.mode.fast_mode) {
		uint64_t s = seqr_load_state();
		/* Weighted order: a heavy transaction that already lost a
		 * speculative attempt would most likely lose the next one
		 * too (the others commit about its weight in short ones
		 * before its turn); it waits for the turn instead of
		 * burning the caches the holder works in.  So does a serial
		 * one (want_serial: hinted, above, or restarted at the mark). */
		if (unlikely(((pot_order.weighted && tx->pt.th.attempt > 0 &&
		               seqr_weight(tx->pt.th.id) >= POT_HEAVY_WEIGHT) ||
		              tx->want_serial || tx->want_turn) &&
		             (s & tx->pt.key.mask) != tx->pt.key.want)) {
			pot_wait_outside_rcu(&tx->pt, POT_WAIT_TURN);
			s = seqr_load_state();
		}
		tx->want_turn = false;
		if ((s & tx->pt.key.mask) == tx->pt.key.want) {
			pot_enter_fast(tx, pot_order_clock(&tx->pt), pot_fast_marks());
			if (unlikely(tx->want_serial)) {
				tx->want_serial = false;
				pot_enter_serial(tx);
			}
		} else if (unlikely(tx->pt.keyed) && pot_may_run_early(tx)) {
			pot_begin_early(tx);
		} else {
			pot_begin_spec(tx);
		}
	} else {
		/* Rounds: "cannot start before the previous round finished". */
		if (pot_order.mode.rounds)
			pot_wait_outside_rcu(&tx->pt, POT_WAIT_ROUND);
		pot_begin_spec(tx);
	}
}

/* The begin of a transaction whose thread kept the turn at its last
 * commit (its run of turns is on, lib/sequencer.h S4): it holds the turn
 * (only the holder moves the state, S1) at its run's slot, so it begins
 * in fast mode without looking at the state word.  What pot_begin would
 * test, a run rules out: runs exist only in round-robin order without
 * rounds or weights (no supplied slot, no key, no declaration), in modes
 * with fast mode (not pogl); P5's first transaction is behind the thread
 * (a run starts at a commit).  A serial attempt (hinted, or restarted at
 * the mark keeping the run) and a retry that waits for its turn take
 * pot_begin. */
static inline __attribute__((always_inline)) void pot_begin_in_run(pot_tx_t *tx)
{
	tx->pt.th.txd.accesses = 0;   /* this attempt's, for its run of turns */
	tx->in_run = true;
	__atomic_store_n(tx->pt.busy, 1, __ATOMIC_RELAXED);
	pot_enter_fast_as(tx, tx->pt.run.slot, pot_fast_marks(), false);   /* runs: keyless */
}

static inline void BACKEND_TX_BEGIN(tm_txd_t *d)
{
	pot_tx_t *tx = (pot_tx_t *)d;
	if (likely(tx->pt.run.on) &&
	    !(tx->want_serial | tx->want_turn | tx->pt.th.hint_serial)) {
		pot_begin_in_run(tx);
		return;
	}
	tx->in_run = false;
	pot_begin(tx);
}

/* ---- commit ------------------------------------------------------------------------ */

/* Wait for the turn at the end of a speculative transaction (ordered
 * commit); then check that nothing read has changed since the snapshot
 * (P3), or retry in the turn. */
static void pot_wait_turn_and_validate(pot_tx_t *tx)
{
	if (pot_order.mode.rounds)
		seqr_round_wait_mates(&tx->pt.th);   /* "nor commit before its round-mates started" */
	pot_stop_reading(tx);
	seqr_wait_turn(&tx->pt.th, &tx->pt.key);
	if (!pot_snapshot_current(tx))
		pot_abort(tx, TM_ABORT_ORDER);
}

/* Ordered commit of a speculative transaction: write back under marked
 * stripes (P2) and unmark them with our version. */
static void pot_commit_spec(pot_tx_t *tx)
{
	pot_wait_turn_and_validate(tx);
	if (unlikely(potm_lsd_unsettled(&tx->pt.th)))
		pot_lsd_settle_in_turn(tx, false);   /* PL3 */
	if (tx->ws.n) {
		uint64_t wv = pot_order_clock(&tx->pt) + 1;
		tx->fast_word = (uintptr_t)wv << 1 | 1;
		if (unlikely(tx->pt.keyed)) {   /* K2, as the holder */
			for (size_t i = 0; i < tx->ws.n; i++)
				pot_mark_shared(tx, pot_stripe_of((const void *)tx->ws.e[i].addr));
			for (size_t i = 0; i < tx->ws.n; i++)
				tl2_ws_store_entry(&tx->ws.e[i], NULL);
			pot_unmark_shared(tx, wv);
			POTM_STAT_INC(&tx->pt.th, spec_commits);
			return;
		}
		for (size_t i = 0; i < tx->ws.n; i++)
			pot_mark(tx, (const void *)tx->ws.e[i].addr);
		for (size_t i = 0; i < tx->ws.n; i++)
			tl2_ws_store_entry(&tx->ws.e[i], NULL);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (size_t i = 0; i < tx->ws.n; i++)
			__atomic_store_n(pot_stripe_of((const void *)tx->ws.e[i].addr),
			                 (uintptr_t)wv << 1, __ATOMIC_RELAXED);
	}
	POTM_STAT_INC(&tx->pt.th, spec_commits);
}

/* A speculative transaction's ordered commit (pot_commit_spec), then its
 * sets emptied and tm_last_order() set to the order clock its commit
 * reached; true if it wrote nothing. */
static inline bool pot_commit_ordered(pot_tx_t *tx)
{
	bool ro = tx->ws.n == 0;
	pot_commit_spec(tx);
	tl2_sets_reset(&tx->pt.th, &tx->rs, &tx->ws);
	tx->pt.last_order = pot_order_clock(&tx->pt);
	return ro;
}

/* The commit of a keyed transaction (K2, K5, K6), up to the pass. */
static bool pot_commit_keyed(pot_tx_t *tx) __attribute__((noinline));
static bool pot_commit_keyed(pot_tx_t *tx)
{
	bool ro;
	if (!tx->fast && !pot_holds_turn(tx))
		(void)pot_try_early_promote(tx);   /* K6 */
	if (tx->fast) {
		size_t writes = potm_undo_count(&tx->pt.th.txd.undo);
		ro = writes == 0;
		if (!ro) {
			pot_unmark_shared(tx, tx->fast_word >> 1);
			POTM_STAT_ADD(&tx->pt.th, writes, writes);
			potm_undo_clear(&tx->pt.th.txd.undo);
		}
		pot_set_fast(tx, false);
		POTM_STAT_INC(&tx->pt.th, fast_commits);
		if (tx->early) {
			/* K5: the writes are in place and unmarked (version of
			 * our slot, K4); the commit point is the turn.  Before
			 * it, the slot is left to whoever passes the turn to it
			 * (K7): nothing is left to do there. */
			tx->early = false;
			if (!pot_holds_turn(tx) && seqr_defer(pot_supplied_slot(tx)))
				tx->deferred = true;
			else
				seqr_wait_turn(&tx->pt.th, &tx->pt.key);
			POTM_STAT_INC(&tx->pt.th, early_fast);
		}
		tx->pt.last_order = (tx->fast_word >> 1) - 1;   /* our slot: wv - 1 */
	} else {
		ro = pot_commit_ordered(tx);
	}
	return ro;
}

/* Leave fast mode at a commit: pot_set_fast(tx, false), with the serial
 * case tested by the caller.  The inline accesses' bounds go (reads and
 * writes outside a transaction reach the library, which refuses them);
 * undo.plain_max and undo.mark stay, read only under those bounds and
 * set again by every begin (pot_enter_fast, or pot_set_fast's false). */
static inline void pot_leave_fast(pot_tx_t *tx)
{
	tm_undo_t *u = &tx->pt.th.txd.undo;
	tx->fast = false;
	tx->pt.th.txd.flags &= ~TM_TXD_PLAIN_READS;
	u->plain_end = NULL;   /* potm_undo_set_plain(u, false) */
	u->quick_end = NULL;
}

/* The writes of a keyless fast commit: unmarked with our version (P2),
 * counted, the log emptied. */
static inline __attribute__((always_inline)) void pot_commit_fast_writes(pot_tx_t *tx,
                                                                         size_t writes)
{
	pot_unmark(tx, tx->fast_word >> 1);
	POTM_STAT_ADD(&tx->pt.th, writes, writes);
	potm_undo_clear(&tx->pt.th.txd.undo);
}

/* Every commit but the keyless fast one: keyed (K2, K5, K6), speculative
 * (ordered), serial (P6). */
static bool pot_commit_other(pot_tx_t *tx) __attribute__((noinline));
static bool pot_commit_other(pot_tx_t *tx)
{
	bool ro;
	if (unlikely(tx->pt.keyed)) {
		ro = pot_commit_keyed(tx);
	} else if (tx->fast) {   /* serial (P6) */
		size_t writes = potm_undo_count(&tx->pt.th.txd.undo);
		ro = writes == 0;
		if (!ro)
			pot_commit_fast_writes(tx, writes);
		POTM_STAT_INC(&tx->pt.th, serial);
		pot_set_fast(tx, false);
		if (pot_order.mode.fast_mode)
			POTM_STAT_INC(&tx->pt.th, fast_commits);
		tx->pt.last_order = (tx->fast_word >> 1) - 1;   /* our slot: wv - 1 */
	} else {
		ro = pot_commit_ordered(tx);
	}
	pot_stop_reading(tx);   /* a promoted attempt's */
	return ro;
}

/* The commit of a keyless transaction in fast mode (begun in its turn,
 * promoted, or pogl's), inline: unmark what it wrote with its version,
 * then publishing the counter (the pass) is the commit.  A promoted
 * attempt stops reading (P6). */
static inline __attribute__((always_inline)) bool BACKEND_TX_COMMIT(tm_txd_t *d)
{
	pot_tx_t *tx = (pot_tx_t *)d;
	bool ro;
	if (likely(tx->in_run)) {
		/* Begun in its run (pot_begin_in_run, which every attempt's
		 * begin decides anew): in fast mode since, in a mode with
		 * fast mode, keyless (runs are round-robin's), not serial
		 * (only pot_begin enters P6) and never reading; its thread
		 * holds the run's slot, which nothing in the body passes. */
		assert(tx->fast && !tx->pt.keyed && !(d->flags & TM_TXD_SERIAL) &&
		       !tx->reading && tx->pt.run.on);
		size_t writes = potm_undo_count(&d->undo);
		ro = writes == 0;
		if (!ro)
			pot_commit_fast_writes(tx, writes);
		pot_leave_fast(tx);
		POTM_STAT_INC(&tx->pt.th, fast_commits);
		tx->pt.last_order = tx->pt.run.slot;
		pot_order_pass_in_run(&tx->pt, d->accesses);
		__atomic_store_n(tx->pt.busy, 0, __ATOMIC_RELAXED);
		return ro;
	}
	if (likely(tx->fast && !tx->pt.keyed && !(d->flags & TM_TXD_SERIAL))) {
		size_t writes = potm_undo_count(&d->undo);
		ro = writes == 0;
		if (!ro)
			pot_commit_fast_writes(tx, writes);
		pot_leave_fast(tx);
		if (pot_order.mode.fast_mode)
			POTM_STAT_INC(&tx->pt.th, fast_commits);
		tx->pt.last_order = (tx->fast_word >> 1) - 1;   /* our slot: wv - 1 */
		if (unlikely(tx->reading))
			pot_stop_reading(tx);
	} else {
		ro = pot_commit_other(tx);
		if (unlikely(tx->deferred)) {   /* K5, K7: the passer passes the slot */
			tx->deferred = false;
			pot_order_forget(&tx->pt);
			__atomic_store_n(tx->pt.busy, 0, __ATOMIC_RELAXED);
			return ro;
		}
	}
	/* The accesses are those of the execution that commits, made on the
	 * state of its slot (fast mode, or validated in the turn): the same
	 * in every run, so the run of turns they decide is too. */
	pot_order_pass_run(&tx->pt, d->accesses);
	__atomic_store_n(tx->pt.busy, 0, __ATOMIC_RELAXED);
	return ro;
}

/* A transaction that runs in its turn (fast mode, pogl) reads the state
 * of its slot, which nobody else changes or frees meanwhile: only
 * speculative attempts enter the read-side section (pot_begin_spec). */
#define BACKEND_OWN_READ_SECTION 1
#include "tx_gen.h"

/* ---- explicit aborts ---------------------------------------------------------------- */

void tm_restart(void)
{
	pot_tx_t *tx = (pot_tx_t *)potm_self_in_tx("tm_restart");
	if (pot_order.explicit_order || !pot_holds_turn(tx))
		pot_abort(tx, TM_ABORT_EXPLICIT);   /* keeps the slot, or has none */
	/* In the turn: a decision taken on a stale snapshot proves nothing. */
	if (!tx->fast && !pot_snapshot_current(tx))
		pot_abort(tx, TM_ABORT_ORDER);
	if (unlikely(potm_lsd_unsettled(&tx->pt.th)))
		pot_lsd_settle_with(tx, false, pot_lsd_drop);   /* PL3 */
	/* A deterministic restart: give the slot up as a no-op so that the
	 * others can change what this transaction waits for. */
	if (tx->fast)
		pot_rollback_fast(tx);
	pot_set_fast(tx, false);
	pot_stop_reading(tx);
	tl2_sets_reset(&tx->pt.th, &tx->rs, &tx->ws);
	pot_order_pass(&tx->pt);
	tx->pt.th.attempt = 0;
	potm_tx_aborted(&tx->pt.th, TM_ABORT_EXPLICIT);
}

void tm_cancel(void)
{
	pot_tx_t *tx = (pot_tx_t *)potm_self_in_tx("tm_cancel");
	/* An ordered no-op commit: the decision to cancel must be taken on
	 * the state of our slot. */
	if (!tx->fast) {
		pot_wait_turn_and_validate(tx);
		if (unlikely(potm_lsd_unsettled(&tx->pt.th)))
			pot_lsd_settle_with(tx, false, pot_lsd_drop);   /* PL3 */
	} else {
		pot_rollback_fast(tx);
		if (tx->early) {   /* K5: an ordered no-op, in its slot */
			tx->early = false;
			seqr_wait_turn(&tx->pt.th, &tx->pt.key);
		}
	}
	pot_set_fast(tx, false);
	pot_stop_reading(tx);
	tl2_sets_reset(&tx->pt.th, &tx->rs, &tx->ws);
	tx->pt.last_order = pot_order_clock(&tx->pt);
	pot_order_pass(&tx->pt);
	__atomic_store_n(tx->pt.busy, 0, __ATOMIC_RELAXED);
	potm_tx_cancelled(&tx->pt.th);
}

/* ---- life cycle ---------------------------------------------------------------------- */

static int pot_init(const tm_config_t *cfg)
{
	if (pot_order_init("pot", cfg) != 0)
		return -1;
	const potm_mode_policy_t *m = &pot_order.mode;
	/* P5 needs the asymmetric barrier; without it (old kernels, qemu-user)
	 * fast transactions always mark. */
	pot.solo_unmarked = m->fast_mode && !pot_order.explicit_order &&
		potm_membarrier_ok;
	pot.mark_above = !m->speculative ? UINT_MAX : pot.solo_unmarked ? 1 : 0;
	size_t n = (size_t)1 << cfg->lock_bits;
	pot.stripes = calloc(n, sizeof(uintptr_t));
	if (pot.stripes == NULL) {
		seqr_shutdown();
		return potm_error("pot: cannot allocate %zu stripe words (POTM_LOCK_BITS=%u)",
		                  n, cfg->lock_bits);
	}
	pot.mask = n - 1;
	pot.shift = cfg->stripe_shift;
	pot.serial_on = cfg->serial && (m->fast_mode || m->global_lock);
	pot.serial_fast = cfg->serial && m->fast_mode;
	pot.serial_at = pot.serial_fast ? cfg->serial_writes : 0;
	/* K1: keys need fast mode, the explicit order (they come with its
	 * slots) and no serial mode (P6 runs its holder unmarked, alone among
	 * readers it can wait for; an early attempt is not one of them).
	 * Elsewhere a key is accepted and the transaction is not keyed. */
	pot_order.keys = m->fast_mode && pot_order.explicit_order && !pot.serial_on;
	pot.serial = 0;
	pot.serial_epoch = 0;
	pot.reading = potm_xcalloc(cfg->max_threads, POTM_CACHELINE);
	return 0;
}

static void pot_shutdown(void)
{
	seqr_shutdown();
	free((void *)pot.stripes);
	pot.stripes = NULL;
	free(pot.reading);
	pot.reading = NULL;
}

static int pot_thread_init(potm_thread_t *t)
{
	pot_tx_t *tx = (pot_tx_t *)t;
	tx->sync_first_tx = pot.solo_unmarked;
	/* tm.h's inline marked writes (tm_undo_mark_) find the stripes here. */
	tx->pt.th.txd.undo.stripes = pot.stripes;
	tx->pt.th.txd.undo.stripe_mask = pot.mask;
	tx->pt.th.txd.undo.stripe_shift = pot.shift;
	tl2_rs_init(&tx->rs);
	tl2_ws_init(&tx->ws, NULL);
	pot_order_thread_init(&tx->pt);
	return 0;
}

static void pot_thread_fini(potm_thread_t *t)
{
	pot_tx_t *tx = (pot_tx_t *)t;
	pot_order_thread_fini(&tx->pt);
	tl2_sets_free(&tx->rs, &tx->ws);
	potm_undo_free(&tx->pt.th.txd.undo);
	free(tx->marks);
	tx->marks = NULL;
}

const potm_backend_t potm_backend = {
	.name = "pot",
	.thread_size = sizeof(pot_tx_t),
	.init = pot_init,
	.shutdown = pot_shutdown,
	.thread_init = pot_thread_init,
	.thread_fini = pot_thread_fini,
	.order = &pot_order_ops,
	.lsd = &pot_lsd_ops,
};
