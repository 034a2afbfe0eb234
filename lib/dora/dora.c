/*
 * lib/dora/dora.c — the DORA executor (see <potm/dora.h>): routing rules,
 * executors' queues, local lock tables, actions and their undo logs,
 * rendezvous points, the terminal RVP's commit or abort, the resource
 * manager's quiescence.
 *
 * Who touches what:
 *  - An executor's lock table, ready list, counters and its slot of every
 *    transaction (dora_part_t: the actions it ran, the locks it granted)
 *    belong to the thread serving it: plain accesses.
 *  - Its incoming queue is multi-producer, single-consumer (Vyukov's
 *    intrusive queue): one exchange per push.  Actions, and completions
 *    of transactions, travel through it.
 *  - A transaction's RVP counter, failure flag and reference count are
 *    shared by the executors that run its actions: atomics.  The
 *    acquire-release decrement of the RVP counter orders every action of
 *    a phase before the continuation, and the continuation before the
 *    next phase's actions (they are enqueued after it returns); the last
 *    arrival may instead read a count of one with acquire (rvp_arrive).
 *  - Routing rules are read by whoever enqueues a phase, and written by
 *    the resource manager only while no transaction is in flight (Q1).
 *  - Inline mode (potm_dora_set_inline): messages go through rings, one
 *    per (from, to) pair of executors (R1, at ring_push); a transaction
 *    local to its submitter runs at submission (L4, at inline_local);
 *    the resource manager also waits for every executor's
 *    acknowledgement of the pause (Q2, at potm_dora_reroute).
 *
 * Invariants:
 *  L1: a lock entry's queue holds granted requests, then waiting ones, in
 *      arrival order; a waiting request's transaction is younger than
 *      every other transaction in the queue when it arrived, so waits-for
 *      edges go from younger to older (no deadlock).
 *  L2: locks are released only by the completion of their transaction,
 *      after its terminal RVP and, for an abort, after the executor undid
 *      its actions' effects (strict 2PL: nothing uncommitted is seen).
 *  L3: the only action of a transaction's last phase takes no lock whose
 *      identifier nobody holds or waits for on its executor: it runs, and
 *      the terminal RVP completes this executor's part (undo, release)
 *      right after it on the same thread, before any other action there,
 *      so a lock taken and released around it would be seen by none.
 *  U1: an action's undo log is rebuilt by each attempt of its backend
 *      transaction (reset at the start), so it holds exactly the changes
 *      of the attempt that committed.
 *  P1: with private tables (potm_dora_set_private) an action touches only
 *      tables its executor owns: no backend transaction, plain accesses
 *      (the private store), and its undo log and undo use the private
 *      store too.  Ownership moves only with a routing change, after Q1's
 *      quiescence, whose sequentially consistent counter orders the
 *      former owner's accesses before the new owner's.
 *  I1: an idle executor (potm_dora_idle) reads wake_seq, sets sleeping,
 *      then looks at its queue and ready list, and sleeps on wake_seq
 *      only if both are empty and wake_seq is unchanged; a push bumps
 *      wake_seq after the push and then reads sleeping (all sequentially
 *      consistent): either the sleeper sees the push or the pusher sees
 *      the sleeper and wakes it, and a bump between the sleeper's read
 *      and its sleep makes the futex return at once.  No wake is lost.
 *  Q1: a transaction is counted in flight from submission to its last
 *      completion; admission adds to the count and then checks the pause
 *      flag, the resource manager sets the flag and then waits for the
 *      count to reach zero (both sequentially consistent), so no routing
 *      decision overlaps a change of the rule.
 *  Q2: inline mode counts no transaction that runs at submission (L4);
 *      the resource manager raises the flag to a new generation (never
 *      0) and waits until every executor stored that generation, read
 *      from the flag, in its ack, which it does in potm_dora_serve,
 *      between two of its own submissions.  A submission that reads the
 *      flag raised refuses, and once a thread read that generation's
 *      store no later read returns an earlier one (coherence), so after
 *      the acknowledgements nothing runs at submission until the rule
 *      changed and the flag dropped; transactions admitted before count
 *      in admitted/retired, and the manager waits for those too.
 */
#define _GNU_SOURCE
#include <potm/dora.h>
#include <potm/store_private.h>

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int potm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define DORA_CACHELINE 64
#define DORA_LOCK_BUCKETS 4096u   /* per executor; chains grow past it */
#define DORA_INLINE_LOCKS 4       /* an action's locks without an allocation */
#define DORA_INLINE_UNDO 4        /* its undo entries ... */
#define DORA_INLINE_ARENA 128     /* ... and saved bytes */

static void dora_oom(const char *what)
{
	fprintf(stderr, "potm dora: out of memory (%s)\n", what);
	abort();
}

static void *dora_alloc(size_t n, const char *what)
{
	void *p = calloc(1, n);
	if (p == NULL)
		dora_oom(what);
	return p;
}

/* ---- queues ------------------------------------------------------------ */

enum dora_kind { DORA_ACTION, DORA_COMPLETE, DORA_STUB, DORA_DONE };

typedef struct dora_node {
	_Atomic(struct dora_node *) next;
	enum dora_kind kind;
} dora_node_t;

typedef struct dora_queue {
	_Atomic(dora_node_t *) head __attribute__((aligned(DORA_CACHELINE)));   /* producers */
	dora_node_t *tail __attribute__((aligned(DORA_CACHELINE)));             /* consumer */
	dora_node_t stub;
} dora_queue_t;

static void queue_init(dora_queue_t *q)
{
	atomic_store_explicit(&q->stub.next, NULL, memory_order_relaxed);
	q->stub.kind = DORA_STUB;
	atomic_store_explicit(&q->head, &q->stub, memory_order_relaxed);
	q->tail = &q->stub;
}

static void queue_push(dora_queue_t *q, dora_node_t *n)
{
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	dora_node_t *prev = atomic_exchange_explicit(&q->head, n, memory_order_acq_rel);
	atomic_store_explicit(&prev->next, n, memory_order_release);
}

/* The oldest node, or NULL (empty, or a push half done: seen next time). */
static dora_node_t *queue_pop(dora_queue_t *q)
{
	dora_node_t *tail = q->tail;
	dora_node_t *next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (tail == &q->stub) {
		if (next == NULL)
			return NULL;
		q->tail = next;
		tail = next;
		next = atomic_load_explicit(&tail->next, memory_order_acquire);
	}
	if (next != NULL) {
		q->tail = next;
		return tail;
	}
	if (tail != atomic_load_explicit(&q->head, memory_order_acquire))
		return NULL;
	queue_push(q, &q->stub);
	next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (next != NULL) {
		q->tail = next;
		return tail;
	}
	return NULL;
}

static bool queue_empty(dora_queue_t *q)
{
	return q->tail == &q->stub &&
	       atomic_load_explicit(&q->stub.next, memory_order_seq_cst) == NULL &&
	       atomic_load_explicit(&q->head, memory_order_seq_cst) == &q->stub;
}

/* ---- rings between executors (inline mode) --------------------------------
 *
 * R1: ring (f, t) carries executor f's messages to executor t; only f's
 * serving thread pushes and only t's pops.  A push fills a slot and
 * advances the producer's private tail; the sender's next serve publishes
 * the tail with one release store (a batch per serve), after the slots,
 * and the consumer's acquire load of the tail orders the slots before
 * its reads.  The consumer publishes its head with a release store after
 * reading the slots; the producer reads it (acquire) only when the ring
 * looks full.  A full ring spills into the producer's own FIFO list,
 * moved into the ring ahead of newer pushes, so the order per pair is
 * the order of the pushes.
 */
#define DORA_RING_SIZE 256u
#define DORA_RING_MASK (DORA_RING_SIZE - 1)
#define DORA_INLINE_MAX 64   /* executors in inline mode: the dirty mask's bits */

typedef struct dora_ring {
	atomic_size_t tail __attribute__((aligned(DORA_CACHELINE)));    /* published by f */
	size_t ptail __attribute__((aligned(DORA_CACHELINE)));          /* f's own */
	size_t head_seen;
	dora_node_t *over, *over_tail;
	atomic_size_t head __attribute__((aligned(DORA_CACHELINE)));    /* published by t */
	size_t tail_seen;                                                /* t's own */
	dora_node_t *slot[DORA_RING_SIZE] __attribute__((aligned(DORA_CACHELINE)));
} dora_ring_t;

static bool ring_room(dora_ring_t *r)
{
	if (r->ptail - r->head_seen < DORA_RING_SIZE)
		return true;
	r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
	return r->ptail - r->head_seen < DORA_RING_SIZE;
}

static void ring_push(dora_ring_t *r, dora_node_t *n)
{
	if (r->over == NULL && ring_room(r)) {
		r->slot[r->ptail++ & DORA_RING_MASK] = n;
		return;
	}
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	if (r->over_tail != NULL)
		atomic_store_explicit(&r->over_tail->next, n, memory_order_relaxed);
	else
		r->over = n;
	r->over_tail = n;
}

/* Publish the pushes (R1); true if some are still spilled. */
static bool ring_flush(dora_ring_t *r)
{
	while (r->over != NULL && ring_room(r)) {
		dora_node_t *n = r->over;
		r->over = atomic_load_explicit(&n->next, memory_order_relaxed);
		if (r->over == NULL)
			r->over_tail = NULL;
		r->slot[r->ptail++ & DORA_RING_MASK] = n;
	}
	atomic_store_explicit(&r->tail, r->ptail, memory_order_release);
	return r->over != NULL;
}

/* ---- transactions, actions, locks ------------------------------------- */

typedef struct dora_req dora_req_t;
typedef struct dora_act dora_act_t;

typedef struct dora_undo {
	int kind;                 /* DORA_UNDO_* */
	store_table_t *table;
	uint64_t key;
	size_t at;                /* UPDATE: the saved bytes' offset in the record */
	size_t off, len;          /* the saved bytes in the action's arena */
} dora_undo_t;

enum { DORA_UNDO_UPDATE, DORA_UNDO_INSERT, DORA_UNDO_DELETE };

struct potm_dora_act {
	dora_node_t node;         /* first: the queue's node */
	potm_dora_tx_t *tx;
	potm_dora_fn fn;
	void *arg;
	unsigned rule;
	uint64_t route;
	unsigned executor;        /* set when enqueued */
	unsigned nlocks, next_lock;
	potm_dora_lock_t *locks;
	int rc;
	potm_dora_act_t *phase_next;   /* the phase being built */
	potm_dora_act_t *part_next;    /* the actions its executor ran for tx */
	bool lone;                /* the only action of its transaction's last phase (L3) */
	/* the undo log (U1) */
	dora_undo_t *undo;
	size_t nundo, capundo;
	unsigned char *arena;
	size_t arena_len, arena_cap;
	/* room for a short action's locks and log, so that it needs no
	 * allocation but its own */
	potm_dora_lock_t inline_locks[DORA_INLINE_LOCKS];
	dora_undo_t inline_undo[DORA_INLINE_UNDO];
	unsigned char inline_arena[DORA_INLINE_ARENA] __attribute__((aligned(8)));
};

/* One executor's share of a transaction: touched only by that executor,
 * until the terminal RVP reads `used` (after the RVP counters ordered
 * every action before it). */
typedef struct dora_part {
	dora_node_t node;         /* the completion message */
	potm_dora_act_t *acts;    /* ran here, newest first */
	dora_req_t *reqs;         /* granted or waiting here */
	bool used;
} dora_part_t;

struct potm_dora_tx {
	potm_dora_t *d;
	uint64_t ts;              /* start stamp: smaller is older */
	potm_dora_done_fn done;
	void *ctx;
	/* the phase being built */
	potm_dora_act_t *building;
	unsigned nbuilding;
	potm_dora_next_fn next;
	void *next_ctx;
	/* shared by the executors */
	atomic_uint pending;      /* actions of the current phase not yet done */
	atomic_int failed;        /* 0, POTM_DORA_ABORTED or POTM_DORA_CONFLICT */
	atomic_uint refs;         /* completions still to run */
	int outcome;
	unsigned nparts;          /* the executors it was made for (the cache) */
	unsigned origin;          /* inline mode: the submitting executor */
	dora_node_t done_node;    /* inline mode: the outcome, sent to origin */
	dora_part_t part[];       /* [executors] */
};

struct dora_req {
	dora_req_t *next;         /* in the entry's queue (L1) */
	dora_req_t *tx_next;      /* in the transaction's part */
	struct dora_entry *entry;
	potm_dora_tx_t *tx;
	potm_dora_act_t *waiter;  /* the action blocked on it, or NULL */
	uint32_t mode;
	bool granted;
};

typedef struct dora_entry {
	struct dora_entry *chain;
	uint64_t key;
	uint32_t space;
	dora_req_t *head, *tail;
} dora_entry_t;

typedef struct dora_exec {
	dora_queue_t q;
	dora_entry_t **bucket;    /* the local lock table */
	dora_entry_t *free_entries;
	dora_req_t *free_reqs;
	potm_dora_act_t *ready, *ready_tail;   /* granted after waiting */
	size_t live_entries;      /* lock entries in the table */
	uint64_t dirty;           /* inline mode: rings (e, bit) with unpublished pushes */
	potm_dora_stats_t st;
	uint64_t lclock;          /* inline mode: the stamps this executor gives and saw */
	/* Q2: the last pause generation this executor acknowledged, and the
	 * transactions it admitted and retired (inline mode's count in
	 * flight: each written by this executor alone) */
	atomic_uint ack __attribute__((aligned(DORA_CACHELINE)));
	atomic_uint_fast64_t admitted, retired;
	/* I1: the futex an idle executor sleeps on, bumped by every wake */
	atomic_uint wake_seq __attribute__((aligned(DORA_CACHELINE)));
	atomic_int sleeping;
} __attribute__((aligned(DORA_CACHELINE))) dora_exec_t;

typedef struct dora_rule {
	uint64_t lo, hi;          /* 0 values: not defined */
	uint16_t *owner;          /* [hi - lo + 1] */
} dora_rule_t;

struct potm_dora {
	unsigned executors, nrules;
	dora_exec_t *ex;
	dora_rule_t *rule;
	atomic_uint_fast64_t clock;        /* start stamps */
	atomic_uint_fast64_t in_flight __attribute__((aligned(DORA_CACHELINE)));
	atomic_uint paused;                /* 0, or the pause's generation (Q2) */
	pthread_mutex_t rm;                /* one resource manager at a time */
	uint64_t reroutes;
	bool private_tables;               /* potm_dora_set_private: P1 */
	bool inline_mode;                  /* potm_dora_set_inline: R1, L4, Q2 */
	dora_ring_t *ring;                 /* [from * executors + to] */
	unsigned rm_gen;                   /* Q2: pauses so far (under rm) */
	atomic_bool started;               /* a transaction was submitted */
};

static dora_ring_t *ring_of(potm_dora_t *d, unsigned from, unsigned to)
{
	return &d->ring[(size_t)from * d->executors + to];
}

/* ---- the calling thread's cache of actions and transactions ---------------
 *
 * An action or a transaction is freed by the executor that completes it and
 * made by whichever thread builds the next one; each thread keeps up to
 * DORA_CACHE_MAX of each it freed and takes from them before malloc, so a
 * terminal that is also an executor (TPC-C's, TM1's) recycles its own.  A
 * thread's cache goes back to malloc when the thread exits.
 */
#define DORA_CACHE_MAX 64

typedef struct dora_cache {
	void *acts, *txs;         /* lists linked through their first word */
	unsigned nacts, ntxs;
	bool registered;
} dora_cache_t;

static __thread dora_cache_t dora_cache;
static pthread_key_t dora_cache_key;
static pthread_once_t dora_cache_once = PTHREAD_ONCE_INIT;

static void cache_drain(void *cache)
{
	dora_cache_t *c = cache;
	for (void *p = c->acts, *n; p != NULL; p = n) {
		memcpy(&n, p, sizeof n);
		free(p);
	}
	for (void *p = c->txs, *n; p != NULL; p = n) {
		memcpy(&n, p, sizeof n);
		free(p);
	}
	*c = (dora_cache_t){ .registered = c->registered };
}

static void cache_key_make(void)
{
	if (pthread_key_create(&dora_cache_key, cache_drain) != 0)
		dora_oom("thread key");
}

/* false if the cache cannot be drained at the thread's exit: not used */
static bool cache_ready(dora_cache_t *c)
{
	if (!c->registered) {
		pthread_once(&dora_cache_once, cache_key_make);
		if (pthread_setspecific(dora_cache_key, c) != 0)
			return false;
		c->registered = true;
	}
	return true;
}

static void *cache_pop(void **list, unsigned *n)
{
	void *p = *list;
	if (p != NULL) {
		memcpy(list, p, sizeof *list);
		(*n)--;
	}
	return p;
}

static void cache_push(void **list, unsigned *n, void *p)
{
	memcpy(p, list, sizeof *list);
	*list = p;
	(*n)++;
}

static potm_dora_act_t *cache_take_act(void)
{
	return cache_pop(&dora_cache.acts, &dora_cache.nacts);
}

static void cache_put_act(potm_dora_act_t *a)
{
	dora_cache_t *c = &dora_cache;
	if (c->nacts < DORA_CACHE_MAX && cache_ready(c))
		cache_push(&c->acts, &c->nacts, a);
	else
		free(a);
}

/* A cached transaction made for as many executors (the cache's first is
 * the only one looked at: a program runs one executor set at a time). */
static potm_dora_tx_t *cache_take_tx(unsigned executors)
{
	potm_dora_tx_t *tx = dora_cache.txs;
	if (tx == NULL || tx->nparts != executors)
		return NULL;
	return cache_pop(&dora_cache.txs, &dora_cache.ntxs);
}

static void cache_put_tx(potm_dora_tx_t *tx)
{
	dora_cache_t *c = &dora_cache;
	if (c->ntxs < DORA_CACHE_MAX && cache_ready(c)) {
		/* The link overwrites tx->d; nparts stays for the match. */
		cache_push(&c->txs, &c->ntxs, tx);
	} else {
		free(tx);
	}
}

/* ---- idle executors (I1) ------------------------------------------------ */

#define DORA_IDLE_NS 1000000   /* the longest sleep: a condition nobody wakes
                                  for (the program's own) is seen that late */

static void exec_wake(dora_exec_t *x)
{
	atomic_fetch_add_explicit(&x->wake_seq, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&x->sleeping, memory_order_seq_cst))
		syscall(SYS_futex, &x->wake_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void exec_push(potm_dora_t *d, unsigned e, dora_node_t *n)
{
	queue_push(&d->ex[e].q, n);
	exec_wake(&d->ex[e]);
}

/* A message from executor `from` (its serving thread; any thread outside
 * inline mode) to executor `to`. */
static inline __attribute__((always_inline)) void send(potm_dora_t *d, unsigned from,
                                                     unsigned to, dora_node_t *n)
{
	if (d->inline_mode) {
		ring_push(ring_of(d, from, to), n);
		d->ex[from].dirty |= 1ull << to;
	} else {
		exec_push(d, to, n);
	}
}

/* Publish executor e's pushes of this serve (R1). */
static void flush_rings(potm_dora_t *d, unsigned e)
{
	dora_exec_t *x = &d->ex[e];
	uint64_t m = x->dirty, still = 0;
	while (m != 0) {
		unsigned to = (unsigned)__builtin_ctzll(m);
		m &= m - 1;
		if (ring_flush(ring_of(d, e, to)))
			still |= 1ull << to;
	}
	x->dirty = still;
}

void potm_dora_wake(potm_dora_t *d, unsigned e)
{
	if (!d->inline_mode)   /* inline executors poll: nobody sleeps */
		exec_wake(&d->ex[e]);
}

void potm_dora_idle(potm_dora_t *d, unsigned e)
{
	dora_exec_t *x = &d->ex[e];
	if (d->inline_mode) {
		/* No futex: the other executors poll their rings; give the
		 * core to them (oversubscribed, they share it). */
		flush_rings(d, e);
		sched_yield();
		return;
	}
	unsigned seq = atomic_load_explicit(&x->wake_seq, memory_order_seq_cst);
	atomic_store_explicit(&x->sleeping, 1, memory_order_seq_cst);
	if (x->ready == NULL && queue_empty(&x->q)) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = DORA_IDLE_NS };
		syscall(SYS_futex, &x->wake_seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
	}
	atomic_store_explicit(&x->sleeping, 0, memory_order_relaxed);
}

/* ---- creation and routing -------------------------------------------- */

potm_dora_t *potm_dora_create(unsigned executors, unsigned rules)
{
	if (executors < 1 || executors > POTM_DORA_MAX_EXECUTORS) {
		potm_error("potm_dora_create: executors %u: must be 1..%u", executors,
		           POTM_DORA_MAX_EXECUTORS);
		return NULL;
	}
	if (rules > POTM_DORA_MAX_RULES) {
		potm_error("potm_dora_create: rules %u: at most %u", rules, POTM_DORA_MAX_RULES);
		return NULL;
	}
	const char *b = tm_backend_name();
	if (strncmp(b, "pot", 3) == 0) {
		potm_error("potm_dora_create: the %s backend orders every thread's transactions, "
		           "which idle executors would stall", b);
		return NULL;
	}
	potm_dora_t *d = calloc(1, sizeof *d);
	if (d == NULL) {
		potm_error("potm_dora_create: out of memory");
		return NULL;
	}
	d->executors = executors;
	d->nrules = rules;
	d->ex = aligned_alloc(DORA_CACHELINE, sizeof(dora_exec_t) * executors);
	d->rule = calloc(rules ? rules : 1, sizeof *d->rule);
	if (d->ex == NULL || d->rule == NULL) {
		free(d->ex);
		free(d->rule);
		free(d);
		potm_error("potm_dora_create: out of memory");
		return NULL;
	}
	memset(d->ex, 0, sizeof(dora_exec_t) * executors);
	for (unsigned e = 0; e < executors; e++) {
		queue_init(&d->ex[e].q);
		d->ex[e].bucket = dora_alloc(DORA_LOCK_BUCKETS * sizeof(dora_entry_t *),
		                             "lock table");
	}
	pthread_mutex_init(&d->rm, NULL);
	return d;
}

void potm_dora_destroy(potm_dora_t *d)
{
	if (d == NULL)
		return;
	for (unsigned e = 0; e < d->executors; e++) {
		dora_exec_t *x = &d->ex[e];
		for (unsigned b = 0; b < DORA_LOCK_BUCKETS; b++)
			for (dora_entry_t *en = x->bucket[b], *n; en != NULL; en = n) {
				n = en->chain;
				free(en);
			}
		free(x->bucket);
		for (dora_entry_t *en = x->free_entries, *n; en != NULL; en = n) {
			n = en->chain;
			free(en);
		}
		for (dora_req_t *r = x->free_reqs, *n; r != NULL; r = n) {
			n = r->next;
			free(r);
		}
	}
	for (unsigned r = 0; r < d->nrules; r++)
		free(d->rule[r].owner);
	free(d->ring);
	pthread_mutex_destroy(&d->rm);
	free(d->rule);
	free(d->ex);
	free(d);
}

unsigned potm_dora_executors(const potm_dora_t *d)
{
	return d->executors;
}

static uint64_t dora_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int rule_define(potm_dora_t *d, unsigned r, uint64_t lo, uint64_t hi, bool hash,
                       const char *call)
{
	if (r >= d->nrules)
		return potm_error("%s: rule %u: the executor has %u", call, r, d->nrules);
	if (hi < lo || hi - lo >= POTM_DORA_MAX_DOMAIN)
		return potm_error("%s: values %llu..%llu: 1..%u values", call,
		                  (unsigned long long)lo, (unsigned long long)hi,
		                  POTM_DORA_MAX_DOMAIN);
	uint64_t n = hi - lo + 1;
	uint16_t *owner = malloc(n * sizeof *owner);
	if (owner == NULL)
		return potm_error("%s: out of memory", call);
	for (uint64_t i = 0; i < n; i++)
		owner[i] = (uint16_t)(hash ? dora_mix(lo + i) % d->executors
		                           : i * d->executors / n);
	free(d->rule[r].owner);
	d->rule[r] = (dora_rule_t){ .lo = lo, .hi = hi, .owner = owner };
	return 0;
}

int potm_dora_rule_range(potm_dora_t *d, unsigned r, uint64_t lo, uint64_t hi)
{
	return rule_define(d, r, lo, hi, false, "potm_dora_rule_range");
}

int potm_dora_rule_hash(potm_dora_t *d, unsigned r, uint64_t lo, uint64_t hi)
{
	return rule_define(d, r, lo, hi, true, "potm_dora_rule_hash");
}

static void __attribute__((noreturn, cold)) outside_rule(uint64_t v, unsigned r)
{
	fprintf(stderr, "potm dora: value %llu is outside routing rule %u\n",
	        (unsigned long long)v, r);
	abort();
}

static inline unsigned route_owner(const potm_dora_t *d, unsigned r, uint64_t v)
{
	const dora_rule_t *ru = r < d->nrules ? &d->rule[r] : NULL;
	if (ru == NULL || ru->owner == NULL || v < ru->lo || v > ru->hi)
		outside_rule(v, r);
	return ru->owner[v - ru->lo];
}

unsigned potm_dora_owner(const potm_dora_t *d, unsigned r, uint64_t v)
{
	return route_owner(d, r, v);
}

uint64_t potm_dora_in_flight(const potm_dora_t *d)
{
	if (!d->inline_mode)
		return atomic_load_explicit(&d->in_flight, memory_order_acquire);
	/* Q2: the retirements first: each follows its admission, which the
	 * later loads of admitted then see, so the difference never wraps. */
	uint64_t retired = 0, admitted = 0;
	for (unsigned e = 0; e < d->executors; e++)
		retired += atomic_load_explicit(&d->ex[e].retired, memory_order_acquire);
	for (unsigned e = 0; e < d->executors; e++)
		admitted += atomic_load_explicit(&d->ex[e].admitted, memory_order_acquire);
	return admitted - retired;
}

int potm_dora_reroute(potm_dora_t *d, unsigned r, uint64_t lo, uint64_t hi, unsigned e)
{
	if (r >= d->nrules || d->rule[r].owner == NULL)
		return potm_error("potm_dora_reroute: rule %u is not defined", r);
	const dora_rule_t *ru = &d->rule[r];
	if (lo > hi || lo < ru->lo || hi > ru->hi)
		return potm_error("potm_dora_reroute: values %llu..%llu are outside the rule's "
		                  "%llu..%llu", (unsigned long long)lo, (unsigned long long)hi,
		                  (unsigned long long)ru->lo, (unsigned long long)ru->hi);
	if (e >= d->executors)
		return potm_error("potm_dora_reroute: executor %u: there are %u", e, d->executors);
	pthread_mutex_lock(&d->rm);
	/* Q1: close admissions, then wait for quiescence. */
	unsigned gen = ++d->rm_gen != 0 ? d->rm_gen : ++d->rm_gen;   /* never 0 */
	atomic_store_explicit(&d->paused, gen, memory_order_seq_cst);
	if (d->inline_mode)   /* Q2: every executor saw the pause between two of its own */
		for (unsigned x = 0; x < d->executors; x++)
			while (atomic_load_explicit(&d->ex[x].ack, memory_order_acquire) != gen)
				sched_yield();
	while (potm_dora_in_flight(d) != 0)
		sched_yield();
	for (uint64_t v = lo; v <= hi; v++)
		ru->owner[v - ru->lo] = (uint16_t)e;
	d->reroutes++;
	atomic_store_explicit(&d->paused, 0, memory_order_seq_cst);
	pthread_mutex_unlock(&d->rm);
	return 0;
}

int potm_dora_set_private(potm_dora_t *d, int on)
{
	if (atomic_load_explicit(&d->started, memory_order_relaxed))
		return potm_error("potm_dora_set_private: transactions were already submitted");
	d->private_tables = on != 0;
	return 0;
}

int potm_dora_is_private(const potm_dora_t *d)
{
	return d->private_tables;
}

int potm_dora_set_inline(potm_dora_t *d, int on)
{
	if (atomic_load_explicit(&d->started, memory_order_relaxed))
		return potm_error("potm_dora_set_inline: transactions were already submitted");
	if (on && d->executors > DORA_INLINE_MAX)
		return potm_error("potm_dora_set_inline: %u executors: at most %u inline",
		                  d->executors, DORA_INLINE_MAX);
	if (on && d->ring == NULL) {
		size_t n = (size_t)d->executors * d->executors;
		d->ring = aligned_alloc(DORA_CACHELINE, n * sizeof *d->ring);
		if (d->ring == NULL)
			return potm_error("potm_dora_set_inline: out of memory for %zu rings", n);
		memset(d->ring, 0, n * sizeof *d->ring);
	}
	d->inline_mode = on != 0;
	return 0;
}

int potm_dora_is_inline(const potm_dora_t *d)
{
	return d->inline_mode;
}

/* ---- building transactions ------------------------------------------- */

potm_dora_tx_t *potm_dora_tx_new(potm_dora_t *d, potm_dora_done_fn done, void *ctx)
{
	size_t size = sizeof(potm_dora_tx_t) + d->executors * sizeof(dora_part_t);
	potm_dora_tx_t *tx = cache_take_tx(d->executors);
	if (tx == NULL)
		tx = malloc(size);
	if (tx == NULL)
		return NULL;
	/* Every field set here: a cached one holds its last use's. */
	memset(tx, 0, offsetof(potm_dora_tx_t, part));
	tx->nparts = d->executors;
	tx->d = d;
	tx->done = done;
	tx->ctx = ctx;
	for (unsigned e = 0; e < d->executors; e++)
		tx->part[e] = (dora_part_t){ .node.kind = DORA_COMPLETE };
	tx->done_node.kind = DORA_DONE;
	return tx;
}

/* Every field before the inline room set (a cached action holds its last
 * use's); the inline room needs no zeroing: only its used prefix is read. */
static inline void act_init(potm_dora_act_t *a, potm_dora_tx_t *tx, unsigned r, uint64_t route,
                            potm_dora_fn fn, void *arg)
{
	atomic_store_explicit(&a->node.next, NULL, memory_order_relaxed);
	a->node.kind = DORA_ACTION;
	a->tx = tx;
	a->fn = fn;
	a->arg = arg;
	a->rule = r;
	a->route = route;
	a->executor = 0;
	a->nlocks = a->next_lock = 0;
	a->locks = a->inline_locks;
	a->rc = 0;
	a->phase_next = a->part_next = NULL;
	a->lone = false;
	a->undo = a->inline_undo;
	a->nundo = 0;
	a->capundo = DORA_INLINE_UNDO;
	a->arena = a->inline_arena;
	a->arena_len = 0;
	a->arena_cap = DORA_INLINE_ARENA;
}

void potm_dora_add(potm_dora_tx_t *tx, unsigned r, uint64_t route, potm_dora_fn fn, void *arg,
                   const potm_dora_lock_t *locks, unsigned nlocks)
{
	potm_dora_act_t *a = cache_take_act();
	if (a == NULL)
		a = malloc(sizeof *a);
	if (a == NULL)
		dora_oom("action");
	act_init(a, tx, r, route, fn, arg);
	a->nlocks = nlocks;
	if (nlocks > DORA_INLINE_LOCKS)
		a->locks = dora_alloc(nlocks * sizeof *locks, "locks");
	for (unsigned i = 0; i < nlocks; i++)
		a->locks[i] = locks[i];
	a->phase_next = tx->building;
	tx->building = a;
	tx->nbuilding++;
}

void potm_dora_then(potm_dora_tx_t *tx, potm_dora_next_fn next, void *ctx)
{
	tx->next = next;
	tx->next_ctx = ctx;
}

static bool act_run(potm_dora_t *d, unsigned e, potm_dora_act_t *a);

/* Enqueue the phase built (the RVP's count first, so that no action of
 * it can reach the RVP before the count is set).  `from`: the executor
 * whose thread calls (inline mode; its own actions run here and now). */
static void phase_start(potm_dora_tx_t *tx, unsigned from)
{
	potm_dora_t *d = tx->d;
	potm_dora_act_t *a = tx->building;
	atomic_store_explicit(&tx->pending, tx->nbuilding, memory_order_relaxed);
	bool lone = tx->nbuilding == 1 && tx->next == NULL;   /* L3 */
	tx->building = NULL;
	tx->nbuilding = 0;
	/* Added last first: enqueue in the order added. */
	potm_dora_act_t *rev = NULL;
	while (a != NULL) {
		potm_dora_act_t *n = a->phase_next;
		a->phase_next = rev;
		rev = a;
		a = n;
	}
	for (a = rev; a != NULL;) {
		potm_dora_act_t *n = a->phase_next;   /* a may run and finish at once */
		a->executor = route_owner(d, a->rule, a->route);
		a->lone = lone;
		if (d->inline_mode && a->executor == from)
			act_run(d, from, a);
		else
			send(d, from, a->executor, &a->node);
		a = n;
	}
}

int potm_dora_submit(potm_dora_tx_t *tx)
{
	potm_dora_t *d = tx->d;
	if (tx->nbuilding == 0) {
		fprintf(stderr, "potm dora: potm_dora_submit: a transaction without actions\n");
		abort();
	}
	if (d->inline_mode) {
		fprintf(stderr, "potm dora: potm_dora_submit: inline executors submit with "
		        "potm_dora_submit_on\n");
		abort();
	}
	/* Q1: count first, then look at the flag. */
	atomic_fetch_add_explicit(&d->in_flight, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&d->paused, memory_order_seq_cst)) {
		atomic_fetch_sub_explicit(&d->in_flight, 1, memory_order_seq_cst);
		return POTM_DORA_PAUSED;
	}
	tx->ts = atomic_fetch_add_explicit(&d->clock, 1, memory_order_relaxed) + 1;
	if (!atomic_load_explicit(&d->started, memory_order_relaxed))
		atomic_store_explicit(&d->started, true, memory_order_relaxed);
	phase_start(tx, 0);
	return 0;
}

static void undo_part(dora_exec_t *x, dora_part_t *p, bool priv);
static dora_entry_t **entry_slot(dora_exec_t *x, uint32_t space, uint64_t key);
static void act_free(potm_dora_act_t *a);
static void act_body(potm_dora_act_t *a);

/* An action of a phase runs its body unless one before it on this
 * executor failed (then it is skipped: the transaction aborts anyway);
 * returns the phase's outcome so far. */
static inline int act_run_unless(dora_exec_t *x, potm_dora_act_t *a, int failed)
{
	x->st.actions++;
	if (failed) {
		x->st.skipped++;
		return failed;
	}
	act_body(a);
	return a->rc != 0 ? POTM_DORA_ABORTED : 0;
}

/* L4: a one-phase transaction whose actions all route to executor e, run
 * on e's thread back to back and completed there at once: no other
 * action of e runs between its first action and its completion, so a
 * lock that no request names on e would be seen by none, and it takes
 * none.  No queue, no stamp, no count: Q2 covers it.  false (nothing
 * done) if an action routes elsewhere or names a lock in e's table. */
static bool inline_local(potm_dora_t *d, unsigned e, potm_dora_tx_t *tx)
{
	dora_exec_t *x = &d->ex[e];
	for (potm_dora_act_t *a = tx->building; a != NULL; a = a->phase_next) {
		if (route_owner(d, a->rule, a->route) != e)
			return false;
		for (unsigned i = 0; x->live_entries != 0 && i < a->nlocks; i++)
			if (*entry_slot(x, a->locks[i].space, a->locks[i].key) != NULL)
				return false;
	}
	if (!atomic_load_explicit(&d->started, memory_order_relaxed))
		atomic_store_explicit(&d->started, true, memory_order_relaxed);
	potm_dora_act_t *a = tx->building, *rev = NULL, *ran = NULL;
	tx->building = NULL;
	tx->nbuilding = 0;
	while (a != NULL) {   /* added last first: run in the order added */
		potm_dora_act_t *n = a->phase_next;
		a->phase_next = rev;
		rev = a;
		a = n;
	}
	int failed = 0;
	for (a = rev; a != NULL; a = a->phase_next) {
		a->executor = e;
		failed = act_run_unless(x, a, failed);
		a->part_next = ran;
		ran = a;
	}
	x->st.inline_runs++;
	if (failed) {
		dora_part_t p = { .acts = ran };
		undo_part(x, &p, d->private_tables);
		x->st.aborted++;
	} else {
		x->st.committed++;
	}
	tx->outcome = failed ? failed : POTM_DORA_COMMITTED;
	tx->done(tx, tx->outcome, tx->ctx);
	for (potm_dora_act_t *n; ran != NULL; ran = n) {
		n = ran->part_next;
		act_free(ran);
	}
	cache_put_tx(tx);
	return true;
}

static void __attribute__((noreturn, cold)) misuse(const char *call, const potm_dora_t *d,
                                                     unsigned e)
{
	fprintf(stderr, "potm dora: %s: %s\n", call,
	        !d->inline_mode ? "the executors are not inline (potm_dora_set_inline)"
	        : e >= d->executors ? "no such executor" : "a transaction without actions");
	abort();
}

int potm_dora_run_here(potm_dora_t *d, unsigned e, unsigned r, uint64_t route, potm_dora_fn fn,
                       void *arg, const potm_dora_lock_t *locks, unsigned nlocks)
{
	if (!d->inline_mode || e >= d->executors)
		misuse("potm_dora_run_here", d, e);
	/* Q2 as potm_dora_submit_on; L4 for a transaction of one action. */
	if (atomic_load_explicit(&d->paused, memory_order_acquire) ||
	    route_owner(d, r, route) != e)
		return POTM_DORA_NOT_HERE;
	dora_exec_t *x = &d->ex[e];
	for (unsigned i = 0; x->live_entries != 0 && i < nlocks; i++)
		if (*entry_slot(x, locks[i].space, locks[i].key) != NULL)
			return POTM_DORA_NOT_HERE;
	if (!atomic_load_explicit(&d->started, memory_order_relaxed))
		atomic_store_explicit(&d->started, true, memory_order_relaxed);
	/* The transaction and its action live in this frame: nothing else
	 * refers to them after the return (the done callback is the
	 * caller's to run).  Inside an action only the transaction's
	 * executor set (d) is read: the rest stays unset. */
	potm_dora_tx_t tx;
	tx.d = d;
	tx.origin = e;
	potm_dora_act_t a;
	act_init(&a, &tx, r, route, fn, arg);
	a.executor = e;
	act_body(&a);
	x->st.actions++;
	x->st.inline_runs++;
	int outcome = POTM_DORA_COMMITTED;
	if (a.rc != 0) {
		dora_part_t p = { .acts = &a };
		undo_part(x, &p, d->private_tables);
		x->st.aborted++;
		outcome = POTM_DORA_ABORTED;
	} else {
		x->st.committed++;
	}
	if (a.undo != a.inline_undo)
		free(a.undo);
	if (a.arena != a.inline_arena)
		free(a.arena);
	return outcome;
}

int potm_dora_submit_on(potm_dora_tx_t *tx, unsigned e)
{
	potm_dora_t *d = tx->d;
	if (!d->inline_mode || e >= d->executors || tx->nbuilding == 0)
		misuse("potm_dora_submit_on", d, e);
	/* Q2: a pause seen here waits; one not seen yet waits for e's
	 * acknowledgement, which follows whatever runs inline now. */
	if (atomic_load_explicit(&d->paused, memory_order_acquire))
		return POTM_DORA_PAUSED;
	tx->origin = e;
	if (tx->next == NULL && inline_local(d, e, tx))
		return 0;
	/* Q2 for what crosses executors: counted by e alone, before e's
	 * next acknowledgement.  Stamps from e's clock, which follows every
	 * stamp e saw (act_run): a Lamport clock, the executor in the low
	 * bits, with no shared counter. */
	dora_exec_t *x = &d->ex[e];
	atomic_store_explicit(&x->admitted,
	                      atomic_load_explicit(&x->admitted, memory_order_relaxed) + 1,
	                      memory_order_relaxed);
	tx->ts = ++x->lclock << 6 | e;
	if (!atomic_load_explicit(&d->started, memory_order_relaxed))
		atomic_store_explicit(&d->started, true, memory_order_relaxed);
	phase_start(tx, e);
	return 0;
}

/* ---- the local lock table ---------------------------------------------- */

static dora_entry_t **entry_slot(dora_exec_t *x, uint32_t space, uint64_t key)
{
	uint64_t h = dora_mix(key ^ (uint64_t)space << 56 ^ space);
	dora_entry_t **p = &x->bucket[h & (DORA_LOCK_BUCKETS - 1)];
	while (*p != NULL && ((*p)->key != key || (*p)->space != space))
		p = &(*p)->chain;
	return p;
}

static dora_req_t *req_new(dora_exec_t *x)
{
	dora_req_t *r = x->free_reqs;
	if (r != NULL)
		x->free_reqs = r->next;
	else
		r = dora_alloc(sizeof *r, "lock request");
	memset(r, 0, sizeof *r);
	return r;
}

static bool compatible(uint32_t a, uint32_t b)
{
	return a == POTM_DORA_S && b == POTM_DORA_S;
}

enum { LOCK_GRANTED, LOCK_WAIT, LOCK_DIE };

/* Request one lock for action a of tx on executor x (L1). */
static int lock_request(dora_exec_t *x, unsigned e, potm_dora_act_t *a, const potm_dora_lock_t *l)
{
	potm_dora_tx_t *tx = a->tx;
	dora_entry_t **slot = entry_slot(x, l->space, l->key);
	dora_entry_t *en = *slot;
	if (en == NULL) {
		en = x->free_entries;
		if (en != NULL)
			x->free_entries = en->chain;
		else
			en = dora_alloc(sizeof *en, "lock entry");
		*en = (dora_entry_t){ .key = l->key, .space = l->space };
		*slot = en;
		x->live_entries++;
	}
	bool conflict = false, younger_than_all = true;
	for (dora_req_t *r = en->head; r != NULL; r = r->next) {
		if (r->tx == tx) {
			if (!r->granted)
				return LOCK_DIE;   /* not reached: an action waits on one lock */
			if (r->mode == POTM_DORA_X || l->mode == POTM_DORA_S)
				return LOCK_GRANTED;   /* held in a mode at least as strong */
			/* An upgrade: only if nobody else is queued. */
			if (en->head == r && r->next == NULL) {
				r->mode = POTM_DORA_X;
				return LOCK_GRANTED;
			}
			return LOCK_DIE;
		}
		if (!r->granted || !compatible(r->mode, l->mode))
			conflict = true;
		if (r->tx->ts > tx->ts)
			younger_than_all = false;
	}
	if (conflict && !younger_than_all)
		return LOCK_DIE;
	dora_req_t *r = req_new(x);
	r->entry = en;
	r->tx = tx;
	r->mode = l->mode;
	r->granted = !conflict;
	r->waiter = conflict ? a : NULL;
	if (en->tail != NULL)
		en->tail->next = r;
	else
		en->head = r;
	en->tail = r;
	r->tx_next = tx->part[e].reqs;
	tx->part[e].reqs = r;
	tx->part[e].used = true;
	return conflict ? LOCK_WAIT : LOCK_GRANTED;
}

/* Grant the waiters at the front of en's queue that no granted request
 * before them conflicts with (FIFO); their actions go on. */
static void lock_grant_waiters(dora_exec_t *x, dora_entry_t *en)
{
	bool any_granted = false, granted_x = false;
	for (dora_req_t *r = en->head; r != NULL; r = r->next) {
		if (r->granted) {
			any_granted = true;
			granted_x |= r->mode == POTM_DORA_X;
			continue;
		}
		if (granted_x || (any_granted && r->mode == POTM_DORA_X))
			return;
		r->granted = true;
		any_granted = true;
		granted_x |= r->mode == POTM_DORA_X;
		potm_dora_act_t *a = r->waiter;
		r->waiter = NULL;
		a->next_lock++;
		a->part_next = NULL;
		if (x->ready_tail != NULL)
			x->ready_tail->phase_next = a;
		else
			x->ready = a;
		x->ready_tail = a;
		a->phase_next = NULL;
	}
}

/* Release every lock tx holds on executor x (L2). */
static void lock_release_all(dora_exec_t *x, dora_part_t *p)
{
	for (dora_req_t *r = p->reqs, *n; r != NULL; r = n) {
		n = r->tx_next;
		dora_entry_t *en = r->entry;
		dora_req_t **pp = &en->head, *prev = NULL;
		while (*pp != r) {
			prev = *pp;
			pp = &(*pp)->next;
		}
		*pp = r->next;
		if (en->tail == r)
			en->tail = prev;
		r->next = x->free_reqs;
		x->free_reqs = r;
		if (en->head == NULL) {
			dora_entry_t **slot = entry_slot(x, en->space, en->key);
			*slot = en->chain;
			en->chain = x->free_entries;
			x->free_entries = en;
			x->live_entries--;
		} else {
			lock_grant_waiters(x, en);
		}
	}
	p->reqs = NULL;
}

/* ---- the undo log ------------------------------------------------------ */

static void undo_add(potm_dora_act_t *a, int kind, store_table_t *t, uint64_t key,
                     size_t at, const void *rec, size_t len)
{
	if (a->nundo == a->capundo) {
		size_t cap = 2 * a->capundo;
		dora_undo_t *u = a->undo == a->inline_undo ? malloc(cap * sizeof *u)
		                                           : realloc(a->undo, cap * sizeof *u);
		if (u == NULL)
			dora_oom("undo log");
		if (a->undo == a->inline_undo)
			memcpy(u, a->inline_undo, sizeof a->inline_undo);
		a->undo = u;
		a->capundo = cap;
	}
	size_t need = (len + 7) & ~(size_t)7;
	if (a->arena_len + need > a->arena_cap) {
		size_t cap = 2 * a->arena_cap;
		while (cap < a->arena_len + need)
			cap *= 2;
		unsigned char *ar = a->arena == a->inline_arena ? malloc(cap)
		                                                : realloc(a->arena, cap);
		if (ar == NULL)
			dora_oom("undo log");
		if (a->arena == a->inline_arena)
			memcpy(ar, a->inline_arena, a->arena_len);
		a->arena = ar;
		a->arena_cap = cap;
	}
	dora_undo_t *u = &a->undo[a->nundo++];
	*u = (dora_undo_t){ .kind = kind, .table = t, .key = key, .at = at,
	                    .off = a->arena_len, .len = len };
	if (len && a->tx->d->private_tables)
		memcpy(a->arena + a->arena_len, rec, len);
	else if (len)
		store_read_bytes(a->arena + a->arena_len, rec, len);
	a->arena_len += need;
}

void *potm_dora_update(potm_dora_act_t *a, store_table_t *t, uint64_t key)
{
	bool priv = a->tx->d->private_tables;
	void *rec = priv ? store_private_get(t, key) : store_get(t, key);
	if (rec != NULL)
		undo_add(a, DORA_UNDO_UPDATE, t, key, 0, rec,
		         priv ? store_private_record_size(t) : store_record_size(t));
	return rec;
}

void potm_dora_save(potm_dora_act_t *a, store_table_t *t, const void *rec, const void *field,
                    size_t n)
{
	bool priv = a->tx->d->private_tables;
	size_t at = (size_t)((const char *)field - (const char *)rec);
	size_t size = priv ? store_private_record_size(t) : store_record_size(t);
	if ((const char *)field < (const char *)rec || at + n > size) {
		fprintf(stderr, "potm dora: potm_dora_save: bytes %zu..%zu are outside the %s "
		        "record\n", at, at + n,
		        priv ? store_private_table_name(t) : store_table_name(t));
		abort();
	}
	undo_add(a, DORA_UNDO_UPDATE, t, priv ? store_private_key_of(rec) : store_key_of(rec), at,
	         field, n);
}

void *potm_dora_insert(potm_dora_act_t *a, store_table_t *t, uint64_t key, const void *rec)
{
	void *r = a->tx->d->private_tables ? store_private_insert(t, key, rec)
	                                   : store_insert(t, key, rec);
	if (r != NULL)
		undo_add(a, DORA_UNDO_INSERT, t, key, 0, NULL, 0);
	return r;
}

int potm_dora_delete(potm_dora_act_t *a, store_table_t *t, uint64_t key)
{
	if (a->tx->d->private_tables) {
		void *rec = store_private_get(t, key);
		if (rec == NULL)
			return 0;
		undo_add(a, DORA_UNDO_DELETE, t, key, 0, rec, store_private_record_size(t));
		return store_private_delete(t, key);
	}
	void *rec = store_get(t, key);
	if (rec == NULL)
		return 0;
	undo_add(a, DORA_UNDO_DELETE, t, key, 0, rec, store_record_size(t));
	return store_delete(t, key);
}

/* Undo the actions tx ran on this executor, newest first, each log from
 * its end, in one backend transaction (the locks are still held, L2). */
static void undo_private(const potm_dora_act_t *a)
{
	for (size_t i = a->nundo; i-- > 0;) {
		const dora_undo_t *u = &a->undo[i];
		if (u->kind == DORA_UNDO_UPDATE) {
			void *rec = store_private_get(u->table, u->key);
			if (rec != NULL)
				memcpy((char *)rec + u->at, a->arena + u->off, u->len);
		} else if (u->kind == DORA_UNDO_INSERT) {
			store_private_delete(u->table, u->key);
		} else {
			store_private_insert(u->table, u->key, a->arena + u->off);
		}
	}
}

static void undo_part(dora_exec_t *x, dora_part_t *p, bool priv)
{
	if (p->acts == NULL)
		return;
	if (priv) {
		for (potm_dora_act_t *a = p->acts; a != NULL; a = a->part_next) {
			undo_private(a);
			x->st.undone += a->nundo != 0;
		}
		return;
	}
	dora_part_t *volatile vp = p;
	TM_BEGIN();
	for (potm_dora_act_t *a = vp->acts; a != NULL; a = a->part_next) {
		for (size_t i = a->nundo; i-- > 0;) {
			const dora_undo_t *u = &a->undo[i];
			switch (u->kind) {
			case DORA_UNDO_UPDATE: {
				void *rec = store_get(u->table, u->key);
				if (rec != NULL) {
					/* An update in place like any other: logged,
					 * and a guarded record's guard written. */
					store_update(u->table, rec);
					store_write_bytes((char *)rec + u->at, a->arena + u->off,
					                  u->len);
				}
				break;
			}
			case DORA_UNDO_INSERT:
				store_delete(u->table, u->key);
				break;
			default:
				store_insert(u->table, u->key, a->arena + u->off);
				break;
			}
		}
	}
	TM_END();
	for (potm_dora_act_t *a = p->acts; a != NULL; a = a->part_next)
		x->st.undone += a->nundo != 0;
}

/* ---- running actions and RVPs ----------------------------------------- */

potm_dora_tx_t *potm_dora_act_tx(const potm_dora_act_t *a)
{
	return a->tx;
}

unsigned potm_dora_act_executor(const potm_dora_act_t *a)
{
	return a->executor;
}

/* The body in one backend transaction; its log rebuilt by each attempt
 * (U1).  Everything it changes is in *a, not in this frame. */
static void act_body(potm_dora_act_t *a)
{
	if (a->tx->d->private_tables) {   /* P1 */
		a->nundo = 0;
		a->arena_len = 0;
		a->rc = a->fn(a, a->arg);
		return;
	}
	TM_BEGIN();
	a->nundo = 0;
	a->arena_len = 0;
	a->rc = a->fn(a, a->arg);
	TM_END();
}

static void act_free(potm_dora_act_t *a)
{
	if (a->locks != a->inline_locks)
		free(a->locks);
	if (a->undo != a->inline_undo)
		free(a->undo);
	if (a->arena != a->inline_arena)
		free(a->arena);
	cache_put_act(a);
}

static void tx_finish(potm_dora_tx_t *tx, int outcome, unsigned e);
static void complete(potm_dora_t *d, unsigned e, dora_part_t *p);

/* Action a reached its phase's RVP (failed: how it failed, or 0). */
static void rvp_arrive(potm_dora_tx_t *tx, int failed, unsigned e)
{
	if (failed)
		atomic_store_explicit(&tx->failed, failed, memory_order_relaxed);
	/* A count of 1 read with acquire: every other action of the phase
	 * arrived (their release decrements are seen), so this one is the
	 * last and nobody reads the count again this phase: no RMW (a lone
	 * action's phase, the common case). */
	if (atomic_load_explicit(&tx->pending, memory_order_acquire) != 1 &&
	    atomic_fetch_sub_explicit(&tx->pending, 1, memory_order_acq_rel) != 1)
		return;
	/* The last one: the RVP's decision. */
	int f = atomic_load_explicit(&tx->failed, memory_order_relaxed);
	if (f == 0 && tx->next != NULL) {
		potm_dora_next_fn next = tx->next;
		tx->next = NULL;
		next(tx, tx->next_ctx);
		if (tx->nbuilding != 0) {
			phase_start(tx, e);
			return;
		}
	}
	tx_finish(tx, f ? f : POTM_DORA_COMMITTED, e);
}

/* Take a's remaining locks and run it; false if it waits for a lock. */
static bool act_run(potm_dora_t *d, unsigned e, potm_dora_act_t *a)
{
	dora_exec_t *x = &d->ex[e];
	potm_dora_tx_t *tx = a->tx;
	int failed = atomic_load_explicit(&tx->failed, memory_order_relaxed);
	if (tx->ts >> 6 > x->lclock)   /* inline mode's Lamport clock */
		x->lclock = tx->ts >> 6;
	if (a->lone && !failed && a->next_lock == 0) {
		/* L3: locks nobody else names need not be taken (none are
		 * named while the table is empty). */
		bool unnamed = true;
		for (unsigned i = 0; x->live_entries != 0 && i < a->nlocks && unnamed; i++)
			unnamed = *entry_slot(x, a->locks[i].space, a->locks[i].key) == NULL;
		if (unnamed)
			a->next_lock = a->nlocks;
	}
	while (!failed && a->next_lock < a->nlocks) {
		int rc = lock_request(x, e, a, &a->locks[a->next_lock]);
		if (rc == LOCK_WAIT) {
			x->st.lock_waits++;
			return false;
		}
		if (rc == LOCK_DIE) {
			x->st.lock_deaths++;
			failed = POTM_DORA_CONFLICT;
			break;
		}
		a->next_lock++;
	}
	tx->part[e].used = true;
	failed = act_run_unless(x, a, failed);
	a->part_next = tx->part[e].acts;
	tx->part[e].acts = a;
	rvp_arrive(tx, failed, e);
	return true;
}

/* The terminal RVP: the outcome, then a completion to every executor
 * that took part (it undoes, for an abort, and releases the locks). */
static void tx_finish(potm_dora_tx_t *tx, int outcome, unsigned e)
{
	potm_dora_t *d = tx->d;
	dora_exec_t *x = &d->ex[e];
	tx->outcome = outcome;
	if (outcome == POTM_DORA_COMMITTED)
		x->st.committed++;
	else if (outcome == POTM_DORA_ABORTED)
		x->st.aborted++;
	else
		x->st.conflicts++;
	/* The participants, listed before the first completion goes out:
	 * the last one to run frees tx. */
	uint16_t who[POTM_DORA_MAX_EXECUTORS];
	unsigned n = 0;
	for (unsigned i = 0; i < d->executors; i++)
		if (tx->part[i].used)
			who[n++] = (uint16_t)i;
	/* Inline mode: the outcome goes back to the submitting executor,
	 * which holds a reference until its done callback ran. */
	bool remote_done = d->inline_mode && tx->origin != e;
	atomic_store_explicit(&tx->refs, n + remote_done, memory_order_relaxed);
	if (remote_done)
		send(d, e, tx->origin, &tx->done_node);
	else
		tx->done(tx, outcome, tx->ctx);
	dora_part_t *part = tx->part;
	/* This executor's own part completes here and now, last (it may
	 * free tx): a message to itself would only come back to it. */
	bool mine = false;
	for (unsigned k = 0; k < n; k++) {
		if (who[k] == e)
			mine = true;
		else
			send(d, e, who[k], &part[who[k]].node);
	}
	if (mine)
		complete(d, e, &part[e]);
}

/* Drop a reference to tx; the last one frees it (Q1: no longer in
 * flight). */
static void tx_unref(potm_dora_t *d, potm_dora_tx_t *tx, unsigned e)
{
	/* The last reference seen with acquire needs no RMW (as rvp_arrive). */
	if (atomic_load_explicit(&tx->refs, memory_order_acquire) == 1 ||
	    atomic_fetch_sub_explicit(&tx->refs, 1, memory_order_acq_rel) == 1) {
		cache_put_tx(tx);
		if (d->inline_mode) {   /* Q2: after everything it did */
			atomic_uint_fast64_t *r = &d->ex[e].retired;
			atomic_store_explicit(r, atomic_load_explicit(r, memory_order_relaxed) + 1,
			                      memory_order_release);
		} else {
			atomic_fetch_sub_explicit(&d->in_flight, 1, memory_order_seq_cst);
		}
	}
}

static void complete(potm_dora_t *d, unsigned e, dora_part_t *p)
{
	dora_exec_t *x = &d->ex[e];
	potm_dora_tx_t *tx = (potm_dora_tx_t *)((char *)(p - e) - offsetof(potm_dora_tx_t, part));
	if (tx->outcome != POTM_DORA_COMMITTED)
		undo_part(x, p, d->private_tables);
	lock_release_all(x, p);
	for (potm_dora_act_t *a = p->acts, *n; a != NULL; a = n) {
		n = a->part_next;
		act_free(a);
	}
	p->acts = NULL;
	tx_unref(d, tx, e);
}

/* Inline mode: the outcome reached the submitting executor. */
static void done_arrive(potm_dora_t *d, potm_dora_tx_t *tx, unsigned e)
{
	tx->done(tx, tx->outcome, tx->ctx);
	tx_unref(d, tx, e);
}

/* Inline mode's serve: the ready list, then each inbound ring in turn,
 * a batch at a time (R1), then this serve's pushes published. */
static __attribute__((noinline)) unsigned serve_rings(potm_dora_t *d, unsigned e)
{
	dora_exec_t *x = &d->ex[e];
	/* Q2: the generation read from the flag itself, so that no later
	 * read of the flag can return an older store (coherence): nothing
	 * runs at submission between this and the flag's drop. */
	unsigned gen = atomic_load_explicit(&d->paused, memory_order_acquire);
	if (gen != 0 && atomic_load_explicit(&x->ack, memory_order_relaxed) != gen)
		atomic_store_explicit(&x->ack, gen, memory_order_release);
	unsigned handled = 0;
	for (unsigned f = 0; f < d->executors && handled < 64; f++) {
		if (f == e && x->ready == NULL)
			continue;
		while (x->ready != NULL) {   /* older than anything behind them */
			potm_dora_act_t *a = x->ready;
			x->ready = a->phase_next;
			if (x->ready == NULL)
				x->ready_tail = NULL;
			act_run(d, e, a);
			handled++;
		}
		if (f == e)
			continue;
		dora_ring_t *r = ring_of(d, f, e);
		size_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
		if (h == r->tail_seen) {
			r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
			if (h == r->tail_seen)
				continue;
		}
		while (h != r->tail_seen && handled < 64) {
			dora_node_t *n = r->slot[h++ & DORA_RING_MASK];
			handled++;
			if (n->kind == DORA_ACTION)
				act_run(d, e, (potm_dora_act_t *)n);
			else if (n->kind == DORA_COMPLETE)
				complete(d, e, (dora_part_t *)n);
			else
				done_arrive(d, (potm_dora_tx_t *)((char *)n -
				                                  offsetof(potm_dora_tx_t, done_node)),
				            e);
		}
		atomic_store_explicit(&r->head, h, memory_order_release);
	}
	if (x->dirty != 0)
		flush_rings(d, e);
	return handled;
}

/* The queue's serve (not inline mode). */
static __attribute__((noinline)) unsigned serve_queue(potm_dora_t *d, unsigned e)
{
	dora_exec_t *x = &d->ex[e];
	unsigned handled = 0;
	for (;;) {
		/* First the actions whose locks were granted: they are older
		 * than anything queued behind them. */
		potm_dora_act_t *a = x->ready;
		if (a != NULL) {
			x->ready = a->phase_next;
			if (x->ready == NULL)
				x->ready_tail = NULL;
			act_run(d, e, a);
			handled++;
			continue;
		}
		dora_node_t *n = queue_pop(&x->q);
		if (n == NULL)
			return handled;
		handled++;
		if (n->kind == DORA_ACTION)
			act_run(d, e, (potm_dora_act_t *)n);
		else
			complete(d, e, (dora_part_t *)n);
		if (handled >= 64)
			return handled;
	}
}

unsigned potm_dora_serve(potm_dora_t *d, unsigned e)
{
	return d->inline_mode ? serve_rings(d, e) : serve_queue(d, e);
}

void potm_dora_stats(const potm_dora_t *d, potm_dora_stats_t *out)
{
	memset(out, 0, sizeof *out);
	for (unsigned e = 0; e < d->executors; e++) {
		const potm_dora_stats_t *s = &d->ex[e].st;
		out->actions += s->actions;
		out->skipped += s->skipped;
		out->lock_waits += s->lock_waits;
		out->lock_deaths += s->lock_deaths;
		out->committed += s->committed;
		out->aborted += s->aborted;
		out->conflicts += s->conflicts;
		out->undone += s->undone;
		out->inline_runs += s->inline_runs;
	}
	out->reroutes = d->reroutes;
}
