/*
 * lib/sequencer.h — the order of a deterministic backend's transactions.
 *
 * Pot (Vale's thesis, §3.2) runs transactions in parallel but makes them
 * commit in one order fixed in advance (ordered commit).  The sequencer is
 * the part that fixes that order; the Pot backends (stm/pot.c,
 * htm/pot_rtm.c, htm/pot_rot.c, through lib/pot_order.h) only ask "is it
 * my turn?" and say "my slot is done".
 *
 * Names.  Everything of the sequencer is prefixed seqr_ / SEQR_ (its
 * state: potm_seqr), so that it never reads as the seq backend
 * (stm/seq.c, sequential execution).
 *
 * Slots and turns.  The order is a sequence of slots, numbered from 0.  The
 * thread that owns the next slot "holds the turn"; every committed (or
 * cancelled) transaction and every membership event (barrier arrival,
 * thread exit) consumes exactly one slot.  The number of slots consumed is
 * the commit counter, and it doubles as the backends' version clock.
 *
 * Round-robin order (the default).  Slots are dealt in rounds: in each
 * round every member thread gets one slot, in increasing logical id.  So
 * thread i's k-th slot depends only on (i, k) and on the membership events
 * before it:
 *  - a thread that arrives at a tm barrier or exits does so in its own
 *    slot, and leaves the membership from that slot on ("it stops holding
 *    turns": the others never wait for a parked or departed thread);
 *  - the arrival that releases a barrier puts the parked threads back and
 *    starts a new round (so who arrived last does not matter);
 *  - a thread that registers (tm_thread_enter) joins at the next round
 *    boundary.  Registration is ordered with respect to other threads'
 *    transactions only if nothing runs concurrently with it: the
 *    deterministic way to start is for every thread to register before any
 *    of them takes a turn, e.g. register, then meet at a tm barrier.
 *
 * Runs of turns (POTM_TURN_BATCH, round-robin without rounds).  A member
 * keeps the turn after a short transaction while the transactions of its
 * current run have made fewer accesses, in all, than the budget: so one
 * member's consecutive short transactions take consecutive slots, and the
 * turn crosses between cores once per run instead of once per
 * transaction.  Each transaction costs its accesses + 1 (seqr_run_keep);
 * one that costs budget / SEQR_RUN_SHORT or SEQR_RUN_SHORT_MAX or more is
 * not short and ends its run: one slot per round, as in the thesis, where the others'
 * speculative transactions overlap it (a run buys fewer hand-offs with
 * that overlap, which only short transactions can spare).  A
 * transaction's accesses are those of the execution that commits, which
 * is the same in every run (it saw the state of its slot), so the length
 * of every run, hence the order, still depends only on the program and
 * its input.  Every other way of passing the turn (a restart in the turn,
 * a barrier, an exit) ends the run.
 *
 * A run is the holder's own business: nothing shared is written while it
 * lasts (the others poll the state word, so a store to it per transaction
 * would cost the holder a cache miss per transaction, the very cost runs
 * save).  The holder counts its slots in its seqr_run_t; the state keeps
 * the run's first slot until seqr_run_publish stores the current one,
 * before any pass.  Meanwhile the clock others see lags the versions the
 * run writes: a speculative reader that meets one waits for the run's end
 * (P3 of stm/pot.c holds for the published clock).
 *
 * Weighted order (POTM_SEQUENCER=weighted): round-robin generalized to
 * transactions of different lengths, as fair queueing orders packets by
 * virtual finish time.  Each member has a virtual clock; a transaction
 * declared with weight w (tm_set_weight, 1 by default) finishes at
 * clock + w, and the next slot goes to the member whose next transaction
 * finishes first (ties: lowest id); consuming the slot moves its clock
 * there.  With every weight 1 this is exactly the round-robin order.  Its
 * point: a thread that runs a long transaction (weight 100) lets the others
 * commit about 100 short ones meanwhile, instead of making each of them
 * wait for its long one in every round.  The decision needs the weight of
 * every member's next transaction, which a thread declares when it begins
 * one (seqr_declare); while the member that may come first has not begun
 * its next transaction, nobody holds the turn (SEQR_UNDECIDED) and that
 * member decides when it declares.  Only declared weights enter the
 * decision, so the order depends on each thread's weights alone, never on
 * timing.  A barrier release sets the released threads' clocks to the
 * releaser's, so the order after a barrier does not depend on who arrived
 * when.
 *
 * Explicit order.  The caller gives each transaction its slot number
 * (tm_set_next_order), as a replicated state machine would from its agreed
 * log.  Membership plays no part.  A slot number that nobody supplies is a
 * gap; it is reported after the turn timeout instead of waited on forever.
 *
 * Commutativity keys (explicit order; Vale's thesis 3.2, "multiple
 * simultaneous fast transactions", and 5.3.2).  A slot may be supplied
 * with a key (tm_set_next_order_key): two keyed transactions with
 * different keys commute, the application's promise that they touch
 * disjoint data.  The sequencer only records the keys, in a ring indexed
 * by slot (keys[slot % SEQR_KEY_RING]: (slot + 1) << 16 | the key's
 * 16-bit hash), so that a transaction can ask whether it commutes with
 * every slot between the turn and its own (seqr_commutes_before); the Pot
 * backend decides what to do with the answer (stm/pot.c K1-K5).
 *  K0  An entry is written once per supply, before the supplier begins
 *      the slot's transaction, and is read only with its tag: an entry
 *      of another slot (older, or one SEQR_KEY_RING later) or none reads
 *      as "unknown", which commutes with nothing.  Two keys with the same
 *      hash read as the same key: a hash collision costs concurrency,
 *      never correctness.
 *  K7  (deferred pass) A transaction that ended before its turn with
 *      nothing left to do there (stm/pot.c: an early fast one, its writes
 *      in place) need not wait for it: seqr_defer records the slot as
 *      finished in a second ring (done[slot % SEQR_KEY_RING], tagged as
 *      the keys), and whoever passes the turn to that slot passes it on
 *      at once, and so on along finished slots.  Exactly one thread
 *      passes a finished slot: the deferrer stores its entry, then looks
 *      at the turn; the passer stores the turn, then looks at the entry
 *      (both sequentially consistent, so one sees the other), and the one
 *      that turns the entry from finished to taken by CAS passes it.  A
 *      finished slot between the turn and a keyed transaction commutes
 *      with it whatever its key (seqr_commutes_before): it never rolls
 *      back, and its writes are in memory.  A taken entry stays until
 *      the ring comes round (its slot is long consumed by then), so that
 *      tm_set_next_order refuses the slot meanwhile.
 *
 * Waiting.  A thread waiting for its turn spins briefly (not at all when
 * threads outnumber CPUs), then yields for a while, then sleeps on a futex
 * in its own slot record; the thread that passes the turn wakes exactly
 * the next holder.  So eight threads on two cores still make progress: a
 * descheduled holder gets the CPU back (seqr_wait in sequencer.c explains
 * the time budgets).  A holder that stays outside the TM API (blocked on a
 * lock, in a join, ...) for longer than POTM_TURN_TIMEOUT_MS while others
 * wait is reported with potm_fatal.
 *
 * Invariants (round-robin):
 *  S1  state = turn << 16 | holder.  turn only grows, by one per slot, and
 *      only the holder moves it (seqr_pass).  holder is a member id, or
 *      SEQR_NOBODY when there is no member (all parked or gone, or nobody
 *      registered yet): the next thread to wait resolves it.
 *  S2  members is written only by the holder during its slot, or under
 *      potm_seqr.lock while holder == SEQR_NOBODY; the store of state that hands
 *      the turn over releases those writes to the next holder.
 *  S3  pending (registered, waiting for a round boundary) is written only
 *      under potm_seqr.lock.
 *  S4  While the holder's seqr_run_t is on, the state's turn is the run's
 *      first slot and the holder's slot is run.slot; every pass, park or
 *      leave of the holder is preceded by seqr_run_publish, so the turn
 *      that is handed over counts every slot of the run.
 * Weighted order, in addition:
 *  W1  vclock and vnow are written only under potm_seqr.lock (the holder takes
 *      it to pass); the members bitmap under potm_seqr.lock or, as in S2, by the
 *      holder (parking, leaving: nobody decides while somebody holds the
 *      turn); declared only by its owner, from 0 to a weight when it
 *      begins a slot, back to 0 when it passes (not in seqr_pass's solo
 *      fast path, where nobody else needs it).
 *  W2  holder is SEQR_UNDECIDED only while the member whose next slot
 *      finishes first (on declared weights, 1 where none is declared yet)
 *      has declared none; seqr_declare and the pass each store, fence, then
 *      look at the other's word, so one of them sees the other and decides.
 */
#ifndef POTM_SEQUENCER_H
#define POTM_SEQUENCER_H

#include "potm_internal.h"

#include <pthread.h>

#define SEQR_HOLDER_BITS 16
#define SEQR_HOLDER_MASK ((uint64_t)0xffff)
#define SEQR_NOBODY 0xffffu   /* round-robin: no member holds the turn */
#define SEQR_EXPLICIT 0xfffeu /* explicit order: the holder bits are unused */
#define SEQR_UNDECIDED 0xfffdu /* weighted: the next holder has not begun its slot (W2) */
#define SEQR_MAX_THREADS 4096 /* ids fit in the holder bits with room for the three above */
#define SEQR_RUN_SHORT 16     /* short: costs less than a run's budget / 16, */
#define SEQR_RUN_SHORT_MAX 64 /* and less than this: a longer run does not
                                 make a longer transaction short */
#define SEQR_KEY_RING 256     /* explicit order: slots whose keys are kept (K0) */
#define SEQR_KEY_NONE 0xffffu /* a key hash: commutes with nothing */

enum seqr_kind { SEQR_ROUND_ROBIN, SEQR_EXPLICIT_ORDER };

enum seqr_membership { SEQR_OUT = 0, SEQR_PENDING, SEQR_MEMBER, SEQR_PARKED };

/* One record per logical id, on two cache lines of its own: the first is
 * written by the owner on every transaction (busy) or wait (cpu) and read
 * by others only to explain a stall or pick a waiting policy; the second
 * is read by whoever hands the owner the turn, on every pass, so it stays
 * off the owner's hot line. */
typedef struct seqr_slot {
	uint32_t busy;         /* owner is inside a transaction or a TM call
	                          that is about to use its turn (the owner may
	                          keep a pointer to it: seqr_busy_word) */
	uint32_t membership;   /* enum seqr_membership, for diagnostics */
	int32_t cpu;           /* CPU the owner last ran on (when it waited or
	                          passed the turn); -1 unknown.  A waiter on
	                          the holder's CPU yields at once. */
	uint64_t want;         /* explicit order: slot supplied + 1; 0 = none */
	uint64_t round_min;    /* rounds mode: first round the owner may start in */
	uint64_t started_round;/* rounds mode: last round the owner started + 1 */
	uint32_t weight;       /* weighted: the owner's tm_set_weight, >= 1 */
	uint32_t declared;     /* weighted: weight of the slot the owner has
	                          begun, 0 if none (W1, W2) */
	uint64_t vclock;       /* weighted: virtual time of the owner's last
	                          slot (W1) */

	uint32_t futex POTM_ALIGNED; /* bumped by whoever ends the owner's wait */
	uint32_t sleeping;     /* owner is in (or entering) FUTEX_WAIT */
} POTM_ALIGNED seqr_slot_t;

struct potm_seqr {
	uint64_t state POTM_ALIGNED;     /* S1: turn << 16 | holder */

	/* Holder-owned (S2). */
	uint64_t *members POTM_ALIGNED;  /* bitmap by logical id */
	unsigned nwords;                 /* 64-bit words in the bitmaps */
	uint64_t round;                  /* rounds begun; read by waiters */
	unsigned solo_id;                /* the only member, if there is exactly
	                                    one (round-robin, no rounds); else
	                                    UINT32_MAX: seqr_pass's fast path */

	uint32_t pending_any POTM_ALIGNED; /* hint: pending is not empty */
	uint32_t registered;             /* threads between join and leave */
	pthread_mutex_t lock;
	uint64_t *pending;               /* S3 */

	seqr_slot_t *slots;               /* by logical id */
	unsigned max_threads;
	enum seqr_kind kind;
	bool rounds;                     /* keep DeSTM's round accounting */
	bool weighted;                   /* weighted order (round-robin kind) */
	uint32_t run_budget;             /* a run ends once its cost reaches
	                                    this; 0: one slot per run */
	uint32_t run_short;              /* a transaction that costs less is
	                                    short (budget / SEQR_RUN_SHORT;
	                                    0: none) */
	uint64_t vnow;                   /* weighted: virtual time of the last
	                                    slot consumed (W1) */
	unsigned timeout_ms;             /* stall report; 0 = never */
	uint64_t keys[SEQR_KEY_RING] POTM_ALIGNED; /* explicit order: K0 */
	uint64_t done[SEQR_KEY_RING] POTM_ALIGNED; /* explicit order: K7 */
};

extern struct potm_seqr potm_seqr;

/* ---- life cycle ---------------------------------------------------------- */

/* rounds: maintain round_started (DeSTM); weighted: the weighted order
 * (kind SEQR_ROUND_ROBIN, not with rounds); run_budget: runs of turns
 * (round-robin without rounds or weights; 0: off).  Returns 0 or -1
 * (potm_error). */
int seqr_init(enum seqr_kind kind, unsigned max_threads, unsigned timeout_ms,
              bool rounds, bool weighted, uint32_t run_budget);
void seqr_shutdown(void);

/* Registration: the thread becomes pending and joins at the next round
 * boundary (round-robin; nothing to do in explicit order). */
void seqr_thread_join(unsigned id);

/* Threads registered now (any state but out). */
static inline unsigned seqr_registered(void)
{
	return __atomic_load_n(&potm_seqr.registered, __ATOMIC_RELAXED);
}

/* Round-robin: wait until the thread holding the turn is outside any
 * transaction or has passed the turn (returns at once if that is us). */
void seqr_wait_holder_idle(unsigned self);

/* Deregistration, an event in the order: waits for the thread's turn,
 * leaves the membership in that slot, passes the turn. */
void seqr_thread_leave(potm_thread_t *t);

/* ---- turns --------------------------------------------------------------- */

static inline uint64_t seqr_load_state(void)
{
	return __atomic_load_n(&potm_seqr.state, __ATOMIC_ACQUIRE);
}

/* The commit counter: slots consumed so far.  While a thread holds the
 * turn, its slot is number seqr_clock(). */
static inline uint64_t seqr_clock(void)
{
	return seqr_load_state() >> SEQR_HOLDER_BITS;
}

/* What "my turn" looks like in the state word, for one thread: in
 * round-robin order the holder bits name it; in explicit order the turn
 * equals the slot it supplied.  my_turn = (state & mask) == want: one load,
 * one and, one compare, cheap enough for every transactional access. */
typedef struct seqr_turn_key {
	uint64_t mask, want;
} seqr_turn_key_t;

static inline bool seqr_is_turn(const seqr_turn_key_t *k)
{
	return (seqr_load_state() & k->mask) == k->want;
}

/* A key that never matches: explicit order before a slot is supplied. */
static inline void seqr_key_none(seqr_turn_key_t *k)
{
	k->mask = ~SEQR_HOLDER_MASK;
	k->want = SEQR_HOLDER_MASK;
}

/* The key of thread id in round-robin order. */
static inline void seqr_key_round_robin(seqr_turn_key_t *k, unsigned id)
{
	k->mask = SEQR_HOLDER_MASK;
	k->want = id;
}

/* Wait until k matches (spin, yield, futex sleep), reporting a stall after
 * the timeout.  Time spent is added to t->stats.wait_turn_ns. */
void seqr_wait_turn_slow(potm_thread_t *t, const seqr_turn_key_t *k);

static inline void seqr_wait_turn(potm_thread_t *t, const seqr_turn_key_t *k)
{
	if (likely(seqr_is_turn(k)))
		return;
	seqr_wait_turn_slow(t, k);
}

/* The holder ends its slot: the turn goes to the next member in id order
 * (or to the slot after it, in explicit order).  new_round: start a new
 * round instead, whatever members come after the holder. */
void seqr_pass_slow(unsigned id, bool new_round);

static inline void seqr_pass(unsigned id, bool new_round)
{
	struct potm_seqr *q = &potm_seqr;
	/* The only member hands the turn to itself: a new round of one slot.
	 * (A thread that registers meanwhile is merged at the next pass.) */
	if (likely(q->solo_id == id && !new_round &&
	           !__atomic_load_n(&q->pending_any, __ATOMIC_RELAXED))) {
		uint64_t s = __atomic_load_n(&q->state, __ATOMIC_RELAXED);
		__atomic_store_n(&q->state, s + ((uint64_t)1 << SEQR_HOLDER_BITS),
		                 __ATOMIC_RELEASE);
		return;
	}
	seqr_pass_slow(id, new_round);
}

/* A holder's run of turns (S4), kept by the holder alone. */
typedef struct seqr_run {
	uint64_t slot;    /* while on: the slot the holder holds */
	uint32_t cost;    /* of the run so far */
	bool on;          /* the state lags: it shows the run's first slot */
} seqr_run_t;

/* The slot the holder holds: its run's, or the published turn. */
static inline uint64_t seqr_run_clock(const seqr_run_t *r)
{
	return r->on ? r->slot : seqr_clock();
}

/* End the holder's run, if any, before a pass (S4): publish its slot. */
static inline void seqr_run_publish(unsigned id, seqr_run_t *r)
{
	if (r->on) {
		__atomic_store_n(&potm_seqr.state, r->slot << SEQR_HOLDER_BITS | id,
		                 __ATOMIC_RELEASE);
		r->on = false;
	}
	r->cost = 0;
}

/* The holder ends a slot whose transaction cost `cost` (its accesses + 1):
 * it keeps the turn for its next transaction (the next slot) while the
 * transaction is short and its run stays under the budget, and returns
 * true; else false, and the caller publishes and passes the turn.  While
 * its run is on, a thread between transactions holds a kept turn; one
 * that then waits for the others outside a transaction must publish and
 * pass first (the kept slot is consumed as an event).  Pending threads
 * join when the run's round ends. */
static inline bool seqr_run_keep(uint32_t cost, seqr_run_t *r)
{
	struct potm_seqr *q = &potm_seqr;
	uint32_t c;
	if (cost >= q->run_short || (c = r->cost + cost) >= q->run_budget)
		return false;
	if (!r->on) {
		r->slot = seqr_clock();
		r->on = true;
	}
	r->slot++;
	r->cost = c;
	return true;
}

/* seqr_run_keep for a holder whose run is on already (r->on). */
static inline bool seqr_run_continue(uint32_t cost, seqr_run_t *r)
{
	struct potm_seqr *q = &potm_seqr;
	uint32_t c;
	if (cost >= q->run_short || (c = r->cost + cost) >= q->run_budget)
		return false;
	r->slot++;
	r->cost = c;
	return true;
}

/* Weighted order: the owner begins a slot (a transaction, or an event
 * with weight 1) and declares its weight; no-op if it already did (a
 * retry keeps its slot) or in the other orders.  Call it before waiting
 * for the turn or testing it. */
void seqr_declare_slow(unsigned id, uint32_t weight);

static inline void seqr_declare(unsigned id, uint32_t weight)
{
	if (likely(!potm_seqr.weighted) ||
	    __atomic_load_n(&potm_seqr.slots[id].declared, __ATOMIC_RELAXED) != 0)
		return;
	seqr_declare_slow(id, weight);
}

/* The weight of the owner's transactions from now on (weighted order). */
static inline void seqr_set_weight(unsigned id, uint32_t weight)
{
	__atomic_store_n(&potm_seqr.slots[id].weight, weight, __ATOMIC_RELAXED);
}

static inline uint32_t seqr_weight(unsigned id)
{
	return __atomic_load_n(&potm_seqr.slots[id].weight, __ATOMIC_RELAXED);
}

/* Mark the owner as inside (1) or outside (0) the API, for the stall
 * report: a holder that is busy is slow, not stuck. */
static inline void seqr_set_busy(unsigned id, uint32_t busy)
{
	__atomic_store_n(&potm_seqr.slots[id].busy, busy, __ATOMIC_RELAXED);
}

/* The owner's busy word, for a backend that sets it on every transaction
 * and would rather not recompute its address each time. */
static inline uint32_t *seqr_busy_word(unsigned id)
{
	return &potm_seqr.slots[id].busy;
}

/* ---- barriers (round-robin) ------------------------------------------------ */

/* Take the turn for a membership event (barrier arrival, exit): like a
 * transaction, the event starts its slot (rounds mode) and waits for the
 * turn.  The thread is marked busy until the event passes the turn. */
void seqr_event_acquire(potm_thread_t *t);

/* The holder parks at a barrier in its slot: it leaves the membership and
 * passes the turn. */
void seqr_park(unsigned id);

/* The holder's arrival releases a barrier: the parked threads (ids) are
 * members again and a new round starts with this slot's end. */
void seqr_release_parked(unsigned id, const unsigned *ids, unsigned n);

/* Parked threads released by a thread that holds no turn (it is not
 * registered): they join like new threads, at the next round boundary. */
void seqr_rejoin_unordered(const unsigned *ids, unsigned n);

/* ---- explicit order -------------------------------------------------------- */

/* Thread id's next transaction takes slot seqno.  Returns 0, or -1 with
 * potm_error: the slot is already consumed, or another thread supplied it
 * and has not used it yet. */
int seqr_supply(unsigned id, uint64_t seqno, seqr_turn_key_t *k);

/* The supplied slot is consumed: forget it. */
void seqr_supply_done(unsigned id, seqr_turn_key_t *k);

/* The 16-bit hash of a commutativity key (K0); TM_KEY_NONE gives
 * SEQR_KEY_NONE, every other key a value below it. */
static inline uint16_t seqr_key_hash(uint64_t key)
{
	if (key == UINT64_MAX)
		return SEQR_KEY_NONE;
	key ^= key >> 31;
	key *= 0x7fb5d329728ea185ull;
	key ^= key >> 27;
	return (uint16_t)(key % SEQR_KEY_NONE);
}

/* Record slot seqno's key hash (K0), after seqr_supply succeeded. */
static inline void seqr_publish_key(uint64_t seqno, uint16_t hash)
{
	__atomic_store_n(&potm_seqr.keys[seqno % SEQR_KEY_RING],
	                 (seqno + 1) << 16 | hash, __ATOMIC_RELEASE);
}

/* K7: a done entry, finished or taken (low bit). */
#define SEQR_DONE(slot) (((slot) + 1) << 1)
#define SEQR_TAKEN(slot) (SEQR_DONE(slot) | 1)

/* K7: has slot ended (finished, or being passed on)? */
static inline bool seqr_slot_finished(uint64_t slot)
{
	return __atomic_load_n(&potm_seqr.done[slot % SEQR_KEY_RING], __ATOMIC_ACQUIRE) >> 1 ==
	       slot + 1;
}

/* K7: the transaction of slot (supplied by the caller, not the turn when
 * it looked, less than SEQR_KEY_RING slots ahead of it) has ended and
 * leaves its slot to be passed by whoever passes the turn to it.  False
 * if the turn came meanwhile and the caller holds it: then it passes
 * (seqr_pass) as usual. */
bool seqr_defer(uint64_t slot);

/* Does a transaction with key hash `hash' in slot `slot' commute with
 * every slot from the current turn up to its own (each supplied with a
 * known key, SEQR_KEY_NONE excluded, different from hash, or finished:
 * K7)?  True also when slot is the turn.  Costs one or two loads per slot
 * in between; at most SEQR_KEY_RING - 1 of them are looked at (farther:
 * false). */
static inline bool seqr_commutes_before(uint64_t slot, uint16_t hash)
{
	uint64_t turn = seqr_clock();
	if (hash == SEQR_KEY_NONE || slot < turn || slot - turn >= SEQR_KEY_RING)
		return false;
	for (uint64_t s = turn; s < slot; s++) {
		if (seqr_slot_finished(s))
			continue;
		uint64_t e = __atomic_load_n(&potm_seqr.keys[s % SEQR_KEY_RING],
		                             __ATOMIC_ACQUIRE);
		uint16_t h = (uint16_t)e;
		if (e >> 16 != s + 1 || h == SEQR_KEY_NONE || h == hash)
			return false;
	}
	return true;
}

/* ---- rounds (DeSTM) --------------------------------------------------------- */

/* Wait until the round after the owner's previous slot has begun ("a
 * transaction cannot start before the previous round finished"), then
 * count the owner as started in it.  Idempotent within one slot. */
void seqr_round_begin(potm_thread_t *t);

/* Wait until every member of the current round has started its slot ("nor
 * commit before its round-mates started"). */
void seqr_round_wait_mates(potm_thread_t *t);

/* The same condition, tested without waiting: for a backend that checks it
 * where it cannot wait (inside a hardware transaction, just before its
 * commit). */
bool seqr_round_mates_started(void);

#endif /* POTM_SEQUENCER_H */
