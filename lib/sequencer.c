/*
 * lib/sequencer.c — round-robin, weighted and explicit-order sequencers (see
 * sequencer.h for the order they define and the invariants S1–S3).
 */
#include "sequencer.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct potm_seqr potm_seqr;

#define SEQR_NONE UINT32_MAX   /* bitmap scan found nothing */

/* Waiting policy, in three phases:
 *  1. up to SEQR_PAUSE_NS, check with a pause in between — unless threads
 *     outnumber CPUs: then the holder may be waiting for our CPU;
 *  2. up to SEQR_SPIN_NS since the start, check with sched_yield() in
 *     between: nearly a spin when our CPU is not wanted, and the holder
 *     gets it at once when it is (another process may crowd us even when
 *     our own threads do not);
 *  3. futex sleeps of at most SEQR_SLEEP_MS, so that a stall is noticed
 *     even if nobody wakes us.
 * Why phase 2 is long: a thread that sleeps costs the thread that hands it
 * the turn a wake-up, and itself a wake-up latency (tens of microseconds,
 * more on a loaded or virtualized machine).  If waiters gave up sooner
 * than that, every hand-off would find its next holder asleep and the
 * order would settle into a convoy: one transaction per wake-up latency.
 * Why phase 1 covers a whole run when runs of turns are on: a run is as
 * long as it is (a budget of accesses) to make the hand-off rare next to
 * the data that moves with it between the holders' caches; a waiter that
 * falls asleep during a run adds its wake-up latency to every hand-off
 * and one that yields slows the CPU beside it, so long runs paid for
 * their waits more than they saved. */
#define SEQR_PAUSE_NS 20000u        /* a few short transactions, and then some */
#define SEQR_RUN_PAUSE_NS 2000000u  /* a run of short transactions (the default
                                       budget of accesses), and then some */
#define SEQR_SPIN_NS 200000u
#define SEQR_SLEEP_MS 50

/* Before any of that, a waiter that may spin polls the state this many
 * times with a pause in between and nothing else: most turns of short
 * transactions arrive within it, and then the wait costs neither a clock
 * read nor a look at the holder's CPU, which would sit between the
 * hand-off and the commit it lets through. */
#define SEQR_QUICK_POLLS 64

/* CPUs we may run on: when registered threads outnumber them, waiting
 * threads yield instead of spinning. */
static unsigned seqr_ncpus;

/* ---- small helpers --------------------------------------------------------- */

static long seqr_futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static inline void bm_set(uint64_t *bm, unsigned i)
{
	bm[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void bm_clear(uint64_t *bm, unsigned i)
{
	bm[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static inline bool bm_test(const uint64_t *bm, unsigned i)
{
	return (bm[i >> 6] >> (i & 63)) & 1;
}

/* First set bit at or after from, or SEQR_NONE. */
static unsigned bm_next(const uint64_t *bm, unsigned nwords, unsigned from)
{
	unsigned w = from >> 6;
	if (w >= nwords)
		return SEQR_NONE;
	uint64_t bits = bm[w] & (~(uint64_t)0 << (from & 63));
	for (;;) {
		if (bits)
			return (w << 6) + (unsigned)__builtin_ctzll(bits);
		if (++w >= nwords)
			return SEQR_NONE;
		bits = bm[w];
	}
}

/* Highest id ever registered + 1: the scans of slot records stop there. */
static unsigned seqr_nids;

static inline seqr_slot_t *seqr_slot(unsigned id)
{
	return &potm_seqr.slots[id];
}

static inline uint32_t seqr_membership(unsigned id)
{
	return __atomic_load_n(&seqr_slot(id)->membership, __ATOMIC_ACQUIRE);
}

static inline void seqr_set_membership(unsigned id, enum seqr_membership m)
{
	__atomic_store_n(&seqr_slot(id)->membership, (uint32_t)m, __ATOMIC_RELEASE);
}

/* Record the CPU the owner runs on, where waiters look for it; stored
 * only when it changed, so that the line stays shared with the readers. */
static inline int seqr_note_cpu(seqr_slot_t *s)
{
	int cpu = sched_getcpu();
	if (__atomic_load_n(&s->cpu, __ATOMIC_RELAXED) != cpu)
		__atomic_store_n(&s->cpu, cpu, __ATOMIC_RELAXED);
	return cpu;
}

/* ---- the wake-up handshake ---------------------------------------------------
 * A hand-off stores the new state, then looks whether the next holder
 * sleeps; a waiter about to sleep announces it, then looks at the state
 * once more.  This is Dekker's pattern: each side needs a full fence
 * between its store and its load, or both may miss the other.  The
 * waker's side runs at every pass, the sleeper's only before a futex
 * sleep, so the fence is asymmetric, as liburcu's memb flavour makes its
 * readers': the waker only stops the compiler, and the sleeper calls
 * membarrier(PRIVATE_EXPEDITED), which runs a full barrier on every CPU
 * that runs one of our threads (a descheduled thread passed one when it
 * was switched out).  That saves each hand-off a store-buffer drain, and
 * the state store waiting in it is a cache miss (waiters poll that line).
 * Where membarrier is missing (old kernels, seccomp filters, qemu-user)
 * both sides fence. */
static bool seqr_asym_fence;

static void seqr_fence_init(void)
{
	seqr_asym_fence = potm_membarrier_ok;
}

/* The waker's side: between storing what ends a wait and reading the
 * waiter's sleeping flag. */
static inline void seqr_fence_waker(void)
{
	if (likely(seqr_asym_fence))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The sleeper's side: between announcing the sleep and the last look.  If
 * membarrier fails after all, the waker may be fencing only the compiler:
 * a lost wake-up then costs one bounded sleep (SEQR_SLEEP_MS), never a
 * hang, and from then on both sides fence. */
static void seqr_fence_sleeper(void)
{
	if (seqr_asym_fence && potm_membarrier() == 0)
		return;
	__atomic_store_n(&seqr_asym_fence, false, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Wake id if it sleeps.  The caller has just stored what ends its wait;
 * with seqr_fence_sleeper in seqr_wait, either the waiter sees that store
 * before sleeping, or we see its sleeping flag here. */
static void seqr_wake(unsigned id)
{
	seqr_slot_t *s = seqr_slot(id);
	seqr_fence_waker();
	if (__atomic_load_n(&s->sleeping, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&s->futex, 1, __ATOMIC_RELEASE);
		seqr_futex(&s->futex, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
}

/* Rounds mode: a new round or a new start may end anybody's wait. */
static void seqr_wake_all(void)
{
	unsigned n = __atomic_load_n(&seqr_nids, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++)
		seqr_wake(i);
}

/* ---- life cycle ------------------------------------------------------------ */

int seqr_init(enum seqr_kind kind, unsigned max_threads, unsigned timeout_ms, bool rounds,
              bool weighted, uint32_t run_budget)
{
	struct potm_seqr *q = &potm_seqr;
	if (max_threads > SEQR_MAX_THREADS)
		return potm_error("sequencer: at most %u threads (POTM_MAX_THREADS=%u)",
		                  SEQR_MAX_THREADS, max_threads);
	memset(q, 0, sizeof *q);
	pthread_mutex_init(&q->lock, NULL);
	seqr_fence_init();
	q->kind = kind;
	q->rounds = rounds;
	q->weighted = weighted && kind == SEQR_ROUND_ROBIN && !rounds;
	q->run_budget = kind == SEQR_ROUND_ROBIN && !rounds && !q->weighted ? run_budget : 0;
	q->run_short = q->run_budget / SEQR_RUN_SHORT < SEQR_RUN_SHORT_MAX ?
	               q->run_budget / SEQR_RUN_SHORT : SEQR_RUN_SHORT_MAX;
	q->timeout_ms = timeout_ms;
	q->max_threads = max_threads;
	q->nwords = (max_threads + 63) / 64;
	q->members = calloc(q->nwords, sizeof(uint64_t));
	q->pending = calloc(q->nwords, sizeof(uint64_t));
	if (posix_memalign((void **)&q->slots, POTM_CACHELINE,
	                   sizeof(seqr_slot_t) * max_threads) != 0)
		q->slots = NULL;
	if (q->members == NULL || q->pending == NULL || q->slots == NULL) {
		seqr_shutdown();
		return potm_error("sequencer: out of memory");
	}
	memset(q->slots, 0, sizeof(seqr_slot_t) * max_threads);
	for (unsigned i = 0; i < max_threads; i++)
		q->slots[i].weight = 1;
	q->state = kind == SEQR_EXPLICIT_ORDER ? SEQR_EXPLICIT : SEQR_NOBODY;
	q->solo_id = SEQR_NONE;
	seqr_nids = 0;
	cpu_set_t cpus;
	seqr_ncpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? (unsigned)CPU_COUNT(&cpus) : 1;
	return 0;
}

void seqr_shutdown(void)
{
	struct potm_seqr *q = &potm_seqr;
	free(q->members);
	free(q->pending);
	free(q->slots);
	pthread_mutex_destroy(&q->lock);
	q->members = q->pending = NULL;
	q->slots = NULL;
}

/* ---- rounds and membership (S2, S3) ---------------------------------------- */

/* The members changed (S2: we may write them): refresh seqr_pass's fast
 * path. */
static void seqr_members_changed(void)
{
	struct potm_seqr *q = &potm_seqr;
	unsigned first = bm_next(q->members, q->nwords, 0);
	bool one = first != SEQR_NONE && bm_next(q->members, q->nwords, first + 1) == SEQR_NONE;
	q->solo_id = one && q->kind == SEQR_ROUND_ROBIN && !q->rounds ? first : SEQR_NONE;
}

/* Move the pending threads into the membership.  Caller holds potm_seqr.lock and
 * is the holder, or the state says SEQR_NOBODY.  The new members' first
 * round is the one about to begin. */
static void seqr_merge_pending_locked(void)
{
	struct potm_seqr *q = &potm_seqr;
	for (unsigned w = 0; w < q->nwords; w++) {
		uint64_t bits = q->pending[w];
		while (bits) {
			unsigned id = (w << 6) + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			__atomic_store_n(&seqr_slot(id)->round_min, q->round + 1, __ATOMIC_RELAXED);
			/* Weighted: a newcomer starts at the current virtual
			 * time (W1), not at 0, or it would take every slot
			 * until it caught up. */
			__atomic_store_n(&seqr_slot(id)->vclock, q->vnow, __ATOMIC_RELAXED);
			seqr_set_membership(id, SEQR_MEMBER);
		}
		q->members[w] |= q->pending[w];
		q->pending[w] = 0;
	}
	__atomic_store_n(&q->pending_any, 0, __ATOMIC_RELAXED);
	seqr_members_changed();
}

static bool seqr_no_members(void)
{
	struct potm_seqr *q = &potm_seqr;
	for (unsigned w = 0; w < q->nwords; w++)
		if (q->members[w])
			return false;
	return true;
}

/* Rounds mode: move to the next round.  Normally every member has used
 * its slot of the old round by now; but a barrier release cuts a round
 * short, and members that had already started in it (and wait for their
 * turn) must count as started in the new one, or their mates would wait
 * for them forever.  Handshake with seqr_round_begin: it stores its mark,
 * then (fence) checks that the round did not move; we move the round,
 * then (fence) convert old marks.  Either it sees the new round and marks
 * again, or we see its old mark. */
static void seqr_next_round(void)
{
	struct potm_seqr *q = &potm_seqr;
	uint64_t old = q->round;
	__atomic_store_n(&q->round, old + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	unsigned n = __atomic_load_n(&seqr_nids, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++) {
		uint64_t mark = old + 1;
		__atomic_compare_exchange_n(&seqr_slot(i)->started_round, &mark, old + 2,
		                            false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
}

/* A round boundary: pending threads join, the round counter moves and the
 * turn goes to the lowest member.  Returns that member; or, when there is
 * no member at all, stores state = turn | SEQR_NOBODY under the lock (so a
 * thread registering at the same time either is merged here or sees
 * SEQR_NOBODY and resolves it) and returns SEQR_NOBODY.  locked: the caller
 * already holds potm_seqr.lock (SEQR_NOBODY resolution). */
static unsigned seqr_begin_round(uint64_t turn, bool locked)
{
	struct potm_seqr *q = &potm_seqr;
	bool take = !locked && (__atomic_load_n(&q->pending_any, __ATOMIC_ACQUIRE) ||
	                        seqr_no_members());
	if (take)
		pthread_mutex_lock(&q->lock);
	if (take || locked)
		seqr_merge_pending_locked();
	unsigned first = bm_next(q->members, q->nwords, 0);
	if (first == SEQR_NONE) {
		__atomic_store_n(&q->state, turn << SEQR_HOLDER_BITS | SEQR_NOBODY,
		                 __ATOMIC_RELEASE);
		if (take)
			pthread_mutex_unlock(&q->lock);
		return SEQR_NOBODY;
	}
	if (q->rounds)
		seqr_next_round();
	if (take)
		pthread_mutex_unlock(&q->lock);
	return first;
}

/* Hand the turn to next (a member) with the given turn count. */
static void seqr_hand_over(unsigned from, uint64_t turn, unsigned next, bool round_began)
{
	struct potm_seqr *q = &potm_seqr;
	__atomic_store_n(&q->state, turn << SEQR_HOLDER_BITS | next, __ATOMIC_RELEASE);
	if (round_began && q->rounds)
		seqr_wake_all();
	else if (next != from)
		seqr_wake(next);
}

/* ---- weighted order (W1, W2) ------------------------------------------------ */

/* Virtual finish time of member id's next slot: its declared weight, or
 * the least weight there is (1) while it has declared none (then
 * *declared, if asked, is false). */
static inline uint64_t seqr_finish_time(unsigned id, bool *declared)
{
	seqr_slot_t *s = seqr_slot(id);
	uint32_t w = __atomic_load_n(&s->declared, __ATOMIC_ACQUIRE);
	if (declared)
		*declared = w != 0;
	return __atomic_load_n(&s->vclock, __ATOMIC_RELAXED) + (w ? w : 1);
}

/* The member whose next slot finishes first (lowest id on ties), or
 * SEQR_NONE without members.  *declared: that member has declared its
 * weight, so nobody can come before it (the others' finish times only grow
 * when they declare).  Caller holds potm_seqr.lock. */
static unsigned seqr_weighted_first(bool *declared)
{
	struct potm_seqr *q = &potm_seqr;
	unsigned best = SEQR_NONE;
	uint64_t best_t = UINT64_MAX;
	for (unsigned i = bm_next(q->members, q->nwords, 0); i != SEQR_NONE;
	     i = bm_next(q->members, q->nwords, i + 1)) {
		bool d;
		uint64_t t = seqr_finish_time(i, &d);
		if (t < best_t) {
			best = i;
			best_t = t;
			*declared = d;
		}
	}
	return best;
}

/* Give the turn (number turn) to the member that goes first, or mark it
 * undecided until that member declares (W2).  from: the caller's id, or
 * SEQR_NOBODY.  Caller holds potm_seqr.lock. */
static void seqr_weighted_decide_locked(uint64_t turn, unsigned from)
{
	struct potm_seqr *q = &potm_seqr;
	if (__atomic_load_n(&q->pending_any, __ATOMIC_ACQUIRE))
		seqr_merge_pending_locked();
	for (;;) {
		bool declared = false;
		unsigned first = seqr_weighted_first(&declared);
		if (first == SEQR_NONE) {
			__atomic_store_n(&q->state, turn << SEQR_HOLDER_BITS | SEQR_NOBODY,
			                 __ATOMIC_RELEASE);
			return;
		}
		if (declared) {
			seqr_hand_over(from, turn, first, false);
			return;
		}
		__atomic_store_n(&q->state, turn << SEQR_HOLDER_BITS | SEQR_UNDECIDED,
		                 __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* W2, the pass's side */
		if (__atomic_load_n(&seqr_slot(first)->declared, __ATOMIC_ACQUIRE) == 0)
			return;   /* it decides when it declares */
	}
}

void seqr_declare_slow(unsigned id, uint32_t weight)
{
	struct potm_seqr *q = &potm_seqr;
	__atomic_store_n(&seqr_slot(id)->declared, weight, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* W2, the declarer's side */
	uint64_t s = seqr_load_state();
	if ((s & SEQR_HOLDER_MASK) != SEQR_UNDECIDED)
		return;
	pthread_mutex_lock(&q->lock);
	s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
	if ((s & SEQR_HOLDER_MASK) == SEQR_UNDECIDED)
		seqr_weighted_decide_locked(s >> SEQR_HOLDER_BITS, id);
	pthread_mutex_unlock(&q->lock);
}

/* The holder consumes its slot: its clock moves to the slot's finish
 * time.  Caller holds potm_seqr.lock.  Returns that time. */
static uint64_t seqr_weighted_consume(unsigned id)
{
	seqr_slot_t *me = seqr_slot(id);
	uint64_t t = seqr_finish_time(id, NULL);
	__atomic_store_n(&me->vclock, t, __ATOMIC_RELAXED);
	__atomic_store_n(&me->declared, 0, __ATOMIC_RELAXED);
	return t;
}

/* Nobody holds the turn and a thread waits for it: begin a round (or, in
 * weighted order, decide who goes first). */
static void seqr_resolve_nobody(void)
{
	struct potm_seqr *q = &potm_seqr;
	pthread_mutex_lock(&q->lock);
	uint64_t s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
	if ((s & SEQR_HOLDER_MASK) == SEQR_NOBODY) {
		uint64_t turn = s >> SEQR_HOLDER_BITS;
		if (q->weighted) {
			seqr_weighted_decide_locked(turn, SEQR_NOBODY);
		} else {
			unsigned first = seqr_begin_round(turn, true);
			if (first != SEQR_NOBODY)
				seqr_hand_over(SEQR_NOBODY, turn, first, true);
		}
	}
	pthread_mutex_unlock(&q->lock);
}

void seqr_pass_slow(unsigned id, bool new_round)
{
	struct potm_seqr *q = &potm_seqr;
	seqr_note_cpu(seqr_slot(id));
	/* Relaxed: only the holder moves the state (S1), and that is us. */
	uint64_t turn = (__atomic_load_n(&q->state, __ATOMIC_RELAXED) >> SEQR_HOLDER_BITS) + 1;
	if (q->kind == SEQR_EXPLICIT_ORDER) {
		for (;;) {
			/* K7: store the turn, then look for its slot's entry;
			 * pass a finished slot on. */
			__atomic_store_n(&q->state, turn << SEQR_HOLDER_BITS | SEQR_EXPLICIT,
			                 __ATOMIC_SEQ_CST);
			uint64_t *e = &q->done[turn % SEQR_KEY_RING];
			uint64_t d = SEQR_DONE(turn);
			if (__atomic_load_n(e, __ATOMIC_SEQ_CST) != d ||
			    !__atomic_compare_exchange_n(e, &d, SEQR_TAKEN(turn), false,
			                                 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
				break;
			turn++;
		}
		/* Wake whoever supplied the next slot. */
		unsigned n = __atomic_load_n(&seqr_nids, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < n; i++)
			if (__atomic_load_n(&seqr_slot(i)->want, __ATOMIC_RELAXED) == turn + 1)
				seqr_wake(i);
		return;
	}
	if (q->weighted) {
		pthread_mutex_lock(&q->lock);
		q->vnow = seqr_weighted_consume(id);
		seqr_weighted_decide_locked(turn, id);
		pthread_mutex_unlock(&q->lock);
		return;
	}
	if (q->rounds) {
		seqr_slot_t *me = seqr_slot(id);
		__atomic_store_n(&me->round_min, q->round + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&me->started_round, 0, __ATOMIC_RELAXED);
	}
	unsigned next = new_round ? SEQR_NONE : bm_next(q->members, q->nwords, id + 1);
	bool round_began = next == SEQR_NONE;
	if (round_began) {
		next = seqr_begin_round(turn, false);
		if (next == SEQR_NOBODY)
			return;
	}
	seqr_hand_over(id, turn, next, round_began);
}

void seqr_thread_join(unsigned id)
{
	struct potm_seqr *q = &potm_seqr;
	seqr_slot_t *s = seqr_slot(id);
	pthread_mutex_lock(&q->lock);
	__atomic_store_n(&s->want, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->busy, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->cpu, sched_getcpu(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->started_round, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->weight, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->declared, 0, __ATOMIC_RELAXED);
	if (id + 1 > seqr_nids)
		__atomic_store_n(&seqr_nids, id + 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&q->registered, 1, __ATOMIC_SEQ_CST);
	if (q->kind == SEQR_EXPLICIT_ORDER) {
		seqr_set_membership(id, SEQR_MEMBER);
	} else {
		bm_set(q->pending, id);
		seqr_set_membership(id, SEQR_PENDING);
		__atomic_store_n(&q->pending_any, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&q->lock);
}

/* ---- waiting ---------------------------------------------------------------- */

enum seqr_wait_for { SEQR_WAIT_TURN, SEQR_WAIT_ROUND, SEQR_WAIT_MATES };

struct seqr_wait_arg {
	enum seqr_wait_for what;
	const seqr_turn_key_t *key;
	unsigned id;
};

/* Rounds mode: has every member of the current round started its slot (or
 * already consumed it)?  round_min > round means "consumed in this round".
 * The members bitmap may change under us only by threads leaving in their
 * slot, which counts as consumed, or by a barrier release starting a new
 * round; in both cases the predicate is simply evaluated again. */
static bool seqr_mates_started(unsigned *missing)
{
	struct potm_seqr *q = &potm_seqr;
	uint64_t round = __atomic_load_n(&q->round, __ATOMIC_ACQUIRE);
	unsigned n = __atomic_load_n(&seqr_nids, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++) {
		seqr_slot_t *s = seqr_slot(i);
		if (seqr_membership(i) != SEQR_MEMBER)
			continue;
		if (__atomic_load_n(&s->round_min, __ATOMIC_RELAXED) > round)
			continue;   /* slot of this round consumed, or joins later */
		if (__atomic_load_n(&s->started_round, __ATOMIC_RELAXED) == round + 1)
			continue;
		if (missing)
			*missing = i;
		return false;
	}
	return true;
}

static bool seqr_ready(const struct seqr_wait_arg *a)
{
	switch (a->what) {
	case SEQR_WAIT_TURN:
		return seqr_is_turn(a->key);
	case SEQR_WAIT_ROUND:
		return seqr_membership(a->id) == SEQR_MEMBER &&
		       __atomic_load_n(&potm_seqr.round, __ATOMIC_ACQUIRE) >=
		               __atomic_load_n(&seqr_slot(a->id)->round_min, __ATOMIC_RELAXED);
	case SEQR_WAIT_MATES:
		return seqr_mates_started(NULL);
	}
	return true;
}

static bool seqr_busy(unsigned id)
{
	return __atomic_load_n(&seqr_slot(id)->busy, __ATOMIC_RELAXED) != 0;
}

/* No progress for timeout_ms.  If the thread we wait for is inside a
 * transaction or a TM call it is slow, not stuck: return and keep waiting.
 * Otherwise it is blocked somewhere the order cannot see, and every thread
 * behind it would wait forever: report and abort. */
static void seqr_report_stall(const struct seqr_wait_arg *a, uint64_t waited_ns)
{
	struct potm_seqr *q = &potm_seqr;
	uint64_t s = seqr_load_state();
	uint64_t turn = s >> SEQR_HOLDER_BITS;
	unsigned ms = (unsigned)(waited_ns / 1000000u);

	if (q->kind == SEQR_EXPLICIT_ORDER) {
		unsigned n = __atomic_load_n(&seqr_nids, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < n; i++) {
			seqr_slot_t *sl = seqr_slot(i);
			if (__atomic_load_n(&sl->want, __ATOMIC_RELAXED) != turn + 1)
				continue;
			if (seqr_busy(i))
				return;
			potm_fatal("explicit order stalled: thread %u supplied slot %" PRIu64
			           " but has not run its transaction for %u ms (it is "
			           "blocked outside the TM API); thread %u waits behind "
			           "it (POTM_TURN_TIMEOUT_MS=%u)",
			           i, turn, ms, a->id, q->timeout_ms);
		}
		potm_fatal("gap in the explicit order: no thread has supplied slot %"
		           PRIu64 " (tm_set_next_order) for %u ms, and thread %u waits "
		           "for a later slot; every slot number from 0 on must be "
		           "used exactly once (POTM_TURN_TIMEOUT_MS=%u)",
		           turn, ms, a->id, q->timeout_ms);
	}

	if (a->what == SEQR_WAIT_MATES) {
		unsigned m = SEQR_NONE;
		if (seqr_mates_started(&m) || m == SEQR_NONE ||
		    seqr_busy(m))
			return;
		potm_fatal("deterministic order stalled (destm): thread %u has not "
		           "started its transaction of round %" PRIu64 " for %u ms; "
		           "thread %u cannot commit before all its round-mates "
		           "started.  Thread %u is blocked outside the TM API or doing "
		           "long non-transactional work (POTM_TURN_TIMEOUT_MS=%u)",
		           m, __atomic_load_n(&q->round, __ATOMIC_RELAXED), ms, a->id,
		           m, q->timeout_ms);
	}

	unsigned h = (unsigned)(s & SEQR_HOLDER_MASK);
	if (h == SEQR_UNDECIDED) {
		bool declared = false;
		pthread_mutex_lock(&q->lock);
		unsigned first = seqr_weighted_first(&declared);
		pthread_mutex_unlock(&q->lock);
		if (first == SEQR_NONE || declared || seqr_busy(first))
			return;
		potm_fatal("deterministic order stalled (weighted): thread %u goes "
		           "next (its next transaction finishes first in virtual "
		           "time) but has not begun it for %u ms; thread %u waits "
		           "for it.  Thread %u is blocked outside the TM API or doing "
		           "long non-transactional work (POTM_TURN_TIMEOUT_MS=%u)",
		           first, ms, a->id, first, q->timeout_ms);
	}
	if (h == SEQR_NOBODY || seqr_busy(h))
		return;
	potm_fatal("deterministic order stalled: thread %u has held the turn "
	           "(slot %" PRIu64 ") for %u ms without running a transaction, "
	           "reaching a tm barrier or exiting; thread %u waits for it.  "
	           "Thread %u is blocked outside the TM API (a lock, a condition "
	           "variable, pthread_join, I/O, a non-tm barrier) or doing long "
	           "non-transactional work.  In round-robin order every registered "
	           "thread takes turns until tm_thread_exit(); park at "
	           "tm_barrier_wait() instead, or raise POTM_TURN_TIMEOUT_MS "
	           "(now %u)%s", h, turn, ms, a->id, h, q->timeout_ms,
	           q->run_budget ? ".  With runs of turns (POTM_TURN_BATCH) a thread "
	           "keeps the turn after a short transaction: one that then waits "
	           "outside the API for another thread's transaction needs "
	           "POTM_TURN_BATCH=0" : "");
}

/* Round-robin turn wait: did the holder last run on our CPU?  Then it
 * cannot be running now (or it was preempted for us): spinning would only
 * delay it. */
static bool seqr_holder_shares_cpu(const struct seqr_wait_arg *a, int my_cpu)
{
	if (a->what != SEQR_WAIT_TURN || potm_seqr.kind != SEQR_ROUND_ROBIN || my_cpu < 0)
		return false;
	unsigned h = (unsigned)(seqr_load_state() & SEQR_HOLDER_MASK);
	return h < potm_seqr.max_threads && h != a->id &&
	       __atomic_load_n(&seqr_slot(h)->cpu, __ATOMIC_RELAXED) == my_cpu;
}

static void seqr_wait(potm_thread_t *t, const struct seqr_wait_arg *a, uint64_t t0)
{
	struct potm_seqr *q = &potm_seqr;
	seqr_slot_t *me = seqr_slot(t->id);
	uint64_t start = potm_now_ns();
	uint64_t last_progress = start;
	uint64_t seen_state = seqr_load_state();
	uint64_t seen_round = __atomic_load_n(&q->round, __ATOMIC_RELAXED);
	int my_cpu = seqr_note_cpu(me);
	bool pausing = seqr_registered() <= seqr_ncpus && !seqr_holder_shares_cpu(a, my_cpu);
	bool spinning = true;
	uint64_t pause_ns = a->what == SEQR_WAIT_TURN && q->run_budget ?
	                    SEQR_RUN_PAUSE_NS : SEQR_PAUSE_NS;
	uint64_t spin_ns = pause_ns + (SEQR_SPIN_NS - SEQR_PAUSE_NS);

	for (unsigned i = 0;; i++) {
		if (q->kind == SEQR_ROUND_ROBIN &&
		    (seqr_load_state() & SEQR_HOLDER_MASK) == SEQR_NOBODY)
			seqr_resolve_nobody();
		if (seqr_ready(a))
			break;
		if (spinning) {
			if (pausing) {
				potm_cpu_relax();
				if ((i & 15) == 15 && potm_now_ns() - start > pause_ns)
					pausing = false;
			} else {
				sched_yield();
				if ((i & 7) == 7 && potm_now_ns() - start > spin_ns)
					spinning = false;
			}
			continue;
		}
		/* Sleep.  Announce it, then look once more: seqr_wake's fence
		 * and ours make sure one of us sees the other. */
		uint32_t f = __atomic_load_n(&me->futex, __ATOMIC_ACQUIRE);
		__atomic_store_n(&me->sleeping, 1, __ATOMIC_RELAXED);
		seqr_fence_sleeper();
		if (seqr_ready(a) ||
		    (q->kind == SEQR_ROUND_ROBIN &&
		     (seqr_load_state() & SEQR_HOLDER_MASK) == SEQR_NOBODY)) {
			__atomic_store_n(&me->sleeping, 0, __ATOMIC_RELAXED);
			continue;
		}
		struct timespec ts = { 0, SEQR_SLEEP_MS * 1000000L };
		seqr_futex(&me->futex, FUTEX_WAIT_PRIVATE, f, &ts);
		__atomic_store_n(&me->sleeping, 0, __ATOMIC_RELAXED);

		uint64_t now = potm_now_ns();
		uint64_t st = seqr_load_state();
		uint64_t rd = __atomic_load_n(&q->round, __ATOMIC_RELAXED);
		if (st != seen_state || rd != seen_round) {
			seen_state = st;
			seen_round = rd;
			last_progress = now;
		} else if (q->timeout_ms &&
		           now - last_progress > (uint64_t)q->timeout_ms * 1000000u) {
			seqr_report_stall(a, now - last_progress);
			last_progress = now;   /* the thread we wait for is busy */
		}
	}
	POTM_STAT_ADD(t, wait_turn_ns, potm_ticks() - t0);   /* in ticks: tm_stats converts */
}

void seqr_wait_turn_slow(potm_thread_t *t, const seqr_turn_key_t *k)
{
	struct seqr_wait_arg a = { SEQR_WAIT_TURN, k, t->id };
	uint64_t t0 = potm_ticks();
	/* Weighted: whoever waits for its turn is beginning a slot; if a
	 * path came here without declaring it (a retry after the slot was
	 * given up), declare it now, or the order would wait for us. */
	seqr_declare(t->id, seqr_weight(t->id));
	if (seqr_registered() <= seqr_ncpus) {
		for (unsigned i = 0; i < SEQR_QUICK_POLLS; i++) {
			potm_cpu_relax();
			if (seqr_is_turn(k)) {
				POTM_STAT_ADD(t, wait_turn_ns, potm_ticks() - t0);
				return;
			}
		}
	}
	seqr_wait(t, &a, t0);
}

void seqr_wait_holder_idle(unsigned self)
{
	uint64_t s0 = seqr_load_state();
	unsigned h = (unsigned)(s0 & SEQR_HOLDER_MASK);
	/* No holder (nobody, undecided): no fast transaction runs. */
	if (potm_seqr.kind != SEQR_ROUND_ROBIN || h >= potm_seqr.max_threads || h == self)
		return;
	for (unsigned i = 0; seqr_load_state() == s0 && seqr_busy(h); i++) {
		if (i < 64)
			potm_cpu_relax();
		else
			sched_yield();
	}
}

/* ---- rounds (DeSTM) ------------------------------------------------------------ */

void seqr_round_begin(potm_thread_t *t)
{
	seqr_slot_t *me = seqr_slot(t->id);
	uint64_t started = __atomic_load_n(&me->started_round, __ATOMIC_RELAXED);
	if (started != 0 && started == __atomic_load_n(&potm_seqr.round, __ATOMIC_ACQUIRE) + 1)
		return;   /* a retry within the same slot */
	struct seqr_wait_arg a = { SEQR_WAIT_ROUND, NULL, t->id };
	if (!seqr_ready(&a))
		seqr_wait(t, &a, potm_ticks());
	/* Mark ourselves started in the current round; see seqr_next_round
	 * for why we check that the round did not move meanwhile. */
	for (;;) {
		uint64_t round = __atomic_load_n(&potm_seqr.round, __ATOMIC_ACQUIRE);
		__atomic_store_n(&me->started_round, round + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&potm_seqr.round, __ATOMIC_RELAXED) == round)
			break;
	}
	seqr_wake_all();   /* a mate may be waiting for us to start */
}

void seqr_round_wait_mates(potm_thread_t *t)
{
	struct seqr_wait_arg a = { SEQR_WAIT_MATES, NULL, t->id };
	if (!seqr_ready(&a))
		seqr_wait(t, &a, potm_ticks());
}

bool seqr_round_mates_started(void)
{
	return seqr_mates_started(NULL);
}

/* ---- membership events ------------------------------------------------------------ */

/* Take the turn for an event (exit, barrier arrival): like a transaction,
 * it starts its slot (rounds mode) and waits for its turn. */
void seqr_event_acquire(potm_thread_t *t)
{
	seqr_turn_key_t k;
	seqr_key_round_robin(&k, t->id);
	seqr_set_busy(t->id, 1);
	seqr_declare(t->id, 1);
	if (potm_seqr.rounds)
		seqr_round_begin(t);
	seqr_wait_turn(t, &k);
}

void seqr_thread_leave(potm_thread_t *t)
{
	struct potm_seqr *q = &potm_seqr;
	unsigned id = t->id;
	__atomic_fetch_sub(&q->registered, 1, __ATOMIC_RELAXED);
	if (q->kind == SEQR_EXPLICIT_ORDER) {
		__atomic_store_n(&seqr_slot(id)->want, 0, __ATOMIC_RELAXED);
		seqr_set_membership(id, SEQR_OUT);
		return;
	}
	/* Still waiting for a round boundary: it never took a turn, so it
	 * leaves without one. */
	pthread_mutex_lock(&q->lock);
	if (bm_test(q->pending, id)) {
		bm_clear(q->pending, id);
		seqr_set_membership(id, SEQR_OUT);
		pthread_mutex_unlock(&q->lock);
		return;
	}
	pthread_mutex_unlock(&q->lock);
	seqr_event_acquire(t);
	bm_clear(q->members, id);
	seqr_members_changed();
	seqr_set_membership(id, SEQR_OUT);
	seqr_set_busy(id, 0);
	seqr_pass(id, false);
}

void seqr_park(unsigned id)
{
	bm_clear(potm_seqr.members, id);
	seqr_members_changed();
	seqr_set_membership(id, SEQR_PARKED);
	seqr_set_busy(id, 0);
	seqr_pass(id, false);
}

void seqr_release_parked(unsigned id, const unsigned *ids, unsigned n)
{
	struct potm_seqr *q = &potm_seqr;
	/* Weighted: the released threads start level with the releaser's
	 * slot, whoever arrived when; their clocks are written under the
	 * lock (W1). */
	uint64_t now = 0;
	if (q->weighted) {
		pthread_mutex_lock(&q->lock);
		now = seqr_finish_time(id, NULL);
	}
	/* The round that seqr_pass is about to begin is the parked threads'
	 * first one back (S2: we hold the turn). */
	for (unsigned i = 0; i < n; i++) {
		__atomic_store_n(&seqr_slot(ids[i])->round_min, q->round + 1, __ATOMIC_RELAXED);
		if (q->weighted)
			__atomic_store_n(&seqr_slot(ids[i])->vclock, now, __ATOMIC_RELAXED);
		bm_set(q->members, ids[i]);
		seqr_set_membership(ids[i], SEQR_MEMBER);
	}
	seqr_members_changed();
	if (q->weighted)
		pthread_mutex_unlock(&q->lock);   /* seqr_pass takes it again */
	seqr_set_busy(id, 0);
	seqr_pass(id, true);
}

void seqr_rejoin_unordered(const unsigned *ids, unsigned n)
{
	struct potm_seqr *q = &potm_seqr;
	pthread_mutex_lock(&q->lock);
	for (unsigned i = 0; i < n; i++) {
		bm_set(q->pending, ids[i]);
		seqr_set_membership(ids[i], SEQR_PENDING);
	}
	__atomic_store_n(&q->pending_any, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&q->lock);
}

/* ---- explicit order ---------------------------------------------------------------- */

int seqr_supply(unsigned id, uint64_t seqno, seqr_turn_key_t *k)
{
	struct potm_seqr *q = &potm_seqr;
	if (seqno >= ((uint64_t)1 << (64 - SEQR_HOLDER_BITS)) - 1)
		return potm_error("tm_set_next_order(%" PRIu64 "): slot numbers are "
		                  "limited to 48 bits", seqno);
	/* Under the lock: two threads must never both believe they own a slot. */
	pthread_mutex_lock(&q->lock);
	uint64_t turn = seqr_clock();
	int rc = 0;
	if (seqno < turn) {
		rc = potm_error("tm_set_next_order(%" PRIu64 "): that slot is already "
		                "consumed; the order is at slot %" PRIu64, seqno, turn);
		goto out;
	}
	unsigned n = __atomic_load_n(&seqr_nids, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++)
		if (i != id && __atomic_load_n(&seqr_slot(i)->want, __ATOMIC_ACQUIRE) == seqno + 1) {
			rc = potm_error("tm_set_next_order(%" PRIu64 "): thread %u already "
			                "supplied that slot", seqno, i);
			goto out;
		}
	/* K7: a slot whose transaction ended before its turn is consumed too.
	 * Its thread stored the entry before it forgot the slot (release),
	 * so a want seen forgotten above means the entry is seen here. */
	if (seqno - turn < SEQR_KEY_RING && seqr_slot_finished(seqno)) {
		rc = potm_error("tm_set_next_order(%" PRIu64 "): that slot is already "
		                "consumed (its transaction ended; the order is at slot %"
		                PRIu64 ")", seqno, turn);
		goto out;
	}
	__atomic_store_n(&seqr_slot(id)->want, seqno + 1, __ATOMIC_RELAXED);
	k->mask = ~SEQR_HOLDER_MASK;
	k->want = seqno << SEQR_HOLDER_BITS;
out:
	pthread_mutex_unlock(&q->lock);
	return rc;
}

bool seqr_defer(uint64_t slot)
{
	struct potm_seqr *q = &potm_seqr;
	uint64_t *e = &q->done[slot % SEQR_KEY_RING];
	/* K7: store the entry, then look at the turn. */
	__atomic_store_n(e, SEQR_DONE(slot), __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->state, __ATOMIC_SEQ_CST) >> SEQR_HOLDER_BITS != slot)
		return true;   /* not the turn yet: its passer will see the entry */
	uint64_t d = SEQR_DONE(slot);
	return !__atomic_compare_exchange_n(e, &d, SEQR_TAKEN(slot), false, __ATOMIC_SEQ_CST,
	                                    __ATOMIC_RELAXED);
}

void seqr_supply_done(unsigned id, seqr_turn_key_t *k)
{
	__atomic_store_n(&seqr_slot(id)->want, 0, __ATOMIC_RELEASE);   /* after K7's entry */
	seqr_key_none(k);
}
