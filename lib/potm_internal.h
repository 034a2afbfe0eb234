/*
 * lib/potm_internal.h — what the core shares with the backends.
 *
 * A backend is one .c file that defines `potm_backend` (its hooks and the
 * size of its per-thread descriptor) and the transaction entry points of
 * tm.h: tm_restart, tm_cancel, its begin and commit around which
 * lib/tx_gen.h generates tm_tx_start_ and tm_tx_end_ (flat nesting), and
 * its accesses from which lib/access_gen.h generates the tm_read_* and
 * tm_write_* family.  Everything backends have in common (registration,
 * statistics, allocation logs, reclamation, backoff, the undo log, errors)
 * lives once here and in the lib/ sources.
 */
#ifndef POTM_INTERNAL_H
#define POTM_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define POTM_BUILDING_LIBRARY 1

#include <potm/tm.h>

#include "pot_modes.h"

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define POTM_CACHELINE 64
#define POTM_ALIGNED __attribute__((aligned(POTM_CACHELINE)))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static inline void potm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__powerpc64__)
	__asm__ __volatile__("or 27,27,27" ::: "memory"); /* low priority */
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t potm_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A monotonic counter for timing the short waits of the order, read in a
 * few cycles where the hardware has one (x86's time stamp counter,
 * POWER's time base; elsewhere nanoseconds).  The statistics keep ticks
 * and tm_stats converts their sum (potm_ticks_to_ns), so a wait costs no
 * clock_gettime call. */
static inline uint64_t potm_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__powerpc64__)
	return __builtin_ppc_get_timebase();
#else
	return potm_now_ns();
#endif
}

/* potm_ticks() per microsecond (>= 1), measured by potm_ticks_init at
 * tm_init; the one rate every conversion uses. */
extern uint64_t potm_ticks_per_us;
void potm_ticks_init(void);

static inline uint64_t potm_ticks_to_ns(uint64_t ticks)
{
	return (uint64_t)((double)ticks * 1000.0 / (double)potm_ticks_per_us);
}

/* Wait until *w reads 0 (acquire), spinning, and yielding every 64
 * pauses: with more threads than cores, whoever clears it may need our
 * CPU. */
#define POTM_WAIT_ZERO_(w)                                                \
	do {                                                              \
		for (unsigned spins_ = 0; __atomic_load_n((w), __ATOMIC_ACQUIRE);) { \
			if (++spins_ % 64 == 0)                           \
				sched_yield();                            \
			potm_cpu_relax();                                 \
		}                                                         \
	} while (0)

static inline void potm_wait_zero_u8(const volatile unsigned char *w)
{
	POTM_WAIT_ZERO_(w);
}

static inline void potm_wait_zero_u32(const volatile unsigned *w)
{
	POTM_WAIT_ZERO_(w);
}

/* The announcing side of an asymmetric Dekker handshake (as liburcu's
 * membarrier flavour): raise our word, then the caller reads the other
 * side's flag.  With asym the other side raises its flag and then runs
 * membarrier (a full barrier on every thread), so a compiler barrier is
 * enough here; without it both sides fence. */
static inline void potm_raise_word(volatile unsigned char *w, bool asym)
{
	__atomic_store_n(w, 1, __ATOMIC_RELAXED);
	if (asym)
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The attempt's side of a serial gate (tl2 S1, pot P6): raise our word,
 * then pass if *closed reads 0; else lower the word, wait for *closed to
 * open, and try again.  The closing side sets *closed, runs a full barrier
 * (membarrier with asym), then waits for the words (potm_wait_others_down):
 * either the attempt sees it closed, or it sees the attempt's word. */
static inline void potm_gate(volatile unsigned char *word, const volatile unsigned *closed,
                             bool asym)
{
	for (;;) {
		potm_raise_word(word, asym);
		if (likely(__atomic_load_n(closed, __ATOMIC_ACQUIRE) == 0))
			return;
		__atomic_store_n(word, 0, __ATOMIC_RELEASE);
		potm_wait_zero_u32(closed);
	}
}

/* Wait until the per-thread byte words[id * POTM_CACHELINE] reads 0 for
 * every logical id below n but self. */
static inline void potm_wait_others_down(const volatile unsigned char *words, unsigned n,
                                         unsigned self)
{
	for (unsigned id = 0; id < n; id++)
		if (id != self)
			potm_wait_zero_u8(&words[(size_t)id * POTM_CACHELINE]);
}

/* ---- growable array of pointers (allocation and free logs) ------------ */

typedef struct potm_ptrvec {
	void **v;
	size_t n, cap;
} potm_ptrvec_t;

void potm_ptrvec_grow(potm_ptrvec_t *pv);
void potm_ptrvec_free(potm_ptrvec_t *pv);

static inline void potm_ptrvec_push(potm_ptrvec_t *pv, void *p)
{
	if (unlikely(pv->n == pv->cap))
		potm_ptrvec_grow(pv);
	pv->v[pv->n++] = p;
}

/* ---- undo log: in-place writers (gl, Pot's fast mode) ------------------
 * Each entry remembers the old bytes of one naturally aligned access so an
 * explicit abort can put them back, newest first. */

/* The undo log lives in the descriptor (tm_txd_t.undo, potm/static/txd.h):
 * inline writes append to it. */
typedef tm_undo_entry_t potm_undo_entry_t;
typedef tm_undo_t potm_undo_t;

void potm_undo_grow(potm_undo_t *u);
void potm_undo_rollback(potm_undo_t *u);
void potm_undo_free(potm_undo_t *u);

static inline size_t potm_undo_count(const potm_undo_t *u)
{
	return (size_t)(u->next - u->e);
}

/* Empty the log, and its seen slots (tm_undo_t.seen) with it. */
static inline void potm_undo_clear(potm_undo_t *u)
{
	for (const potm_undo_entry_t *e = u->seen_from; e < u->next; e++)
		u->seen[tm_undo_seen_slot_(e->where)] = 0;
	u->next = u->e;
}

/* Let tm.h's inline writes append (plain) or not; call it again when
 * u->mark changes (quick_end depends on it). */
static inline void potm_undo_set_plain(potm_undo_t *u, bool plain)
{
	tm_undo_entry_t *end = u->end;
	if (u->plain_max && u->plain_max < (size_t)(u->end - u->e))
		end = u->e + u->plain_max;
	u->plain_end = plain ? end : NULL;
	u->quick_end = plain && !u->mark ?
	               (u->seen_from < end ? u->seen_from : end) : NULL;
}

static inline void *potm_undo_addr(const potm_undo_entry_t *e)
{
	return (void *)(e->where & (((uintptr_t)1 << TM_UNDO_SIZE_SHIFT) - 1));
}

static inline unsigned potm_undo_size(const potm_undo_entry_t *e)
{
	return (unsigned)(e->where >> TM_UNDO_SIZE_SHIFT);
}

static inline void potm_undo_log(potm_undo_t *u, void *addr, uint32_t size)
{
	if (unlikely(u->next == u->end))
		potm_undo_grow(u);
	tm_undo_append_(u, addr, size);
}

/* ---- per-thread descriptor ------------------------------------------- */

typedef struct potm_thread {
	tm_txd_t txd;          /* first: TM_BEGIN/TM_END see only this */
	unsigned id;           /* logical id */
	unsigned attempt;      /* aborts of the current transaction so far */
	bool last_cancelled;   /* tm_was_cancelled() */
	bool hint_serial;      /* tm_hint_serial(), until the transaction ends */
	bool in_rcu;           /* inside an RCU read-side section */
	int cpu;               /* pinned CPU, -1 if not pinned */
	uint64_t rng;          /* xorshift state for backoff */
	unsigned prefault_skip;     /* unexplained aborts to let pass before
	                               the next potm_heap_prefault */
	unsigned prefault_backoff;  /* prefault_skip after the next miss */
	potm_ptrvec_t allocs;  /* tm_malloc of the running attempt */
	potm_ptrvec_t frees;   /* tm_free: [0, frees_committed) of committed
	                          transactions, waiting to travel to
	                          reclamation as one batch; the rest of the
	                          running transaction */
	size_t frees_committed;
	uint64_t flush_due;    /* potm_ticks() from which the batch may travel */
	struct potm_reclaim_inbox *inbox;  /* batches back from their grace
	                                      period, for this thread to free
	                                      (lib/reclaim.c) */
	uint64_t *reader;      /* this thread's reader word: odd inside an
	                          RCU read-side section (lib/reclaim.c, Q1) */
	struct potm_polled *polled;        /* big batches waiting for their
	                                      polled grace period, oldest
	                                      first (lib/reclaim.c) */
	tm_stats_t stats;      /* written by this thread only */
	struct potm_lsd *lsd;  /* LSD state (lib/lsd.c), allocated at the
	                          thread's first LSD call */
	bool lsd_used;         /* this attempt made an LSD call: the commit,
	                          abort or cancel resets the state */
	bool lsd_lazy;         /* ... and keeps futures unresolved (the
	                          backend's LSD-aware mode, potm_lsd_ops_t) */
} potm_thread_t;

static inline potm_thread_t *potm_self(void)
{
	return (potm_thread_t *)tm_self_;
}

/* Statistics: each counter has one writer (its thread) and is read by
 * tm_stats() on other threads, so both sides use relaxed atomics; on the
 * machines we target they compile to plain loads and stores. */
#define POTM_STAT_ADD(t, field, n)                                         \
	__atomic_store_n(&(t)->stats.field,                                \
	                 __atomic_load_n(&(t)->stats.field, __ATOMIC_RELAXED) \
	                         + (n),                                    \
	                 __ATOMIC_RELAXED)
#define POTM_STAT_INC(t, field) POTM_STAT_ADD(t, field, 1)

/* ---- the backend ------------------------------------------------------ */

typedef struct potm_backend {
	const char *name;
	size_t thread_size;     /* its descriptor; starts with potm_thread_t */
	unsigned max_threads;   /* threads it can run at once; 0 = no limit */
	/* A committed free goes back to the allocator at once, without a
	 * grace period: every transaction that reads beside a writer runs
	 * in hardware, whose strong isolation aborts it when a block it
	 * reached is unlinked, before the block is freed; the software
	 * paths run alone (rtm's fallback under its lock, Pot's fast mode
	 * in its turn).  seq's one thread frees at commit as well. */
	bool frees_at_commit;
	int (*init)(const tm_config_t *cfg);       /* -1: potm_error() set */
	void (*shutdown)(void);
	int (*thread_init)(potm_thread_t *t);       /* -1: potm_error() set */
	void (*thread_fini)(potm_thread_t *t);
	/* Optional: close what the thread's last commit left open (rtm's
	 * coalesced group, htm_gl.h) before it waits for other threads
	 * (tm_barrier_wait) or leaves (tm_thread_exit). */
	void (*flush)(potm_thread_t *t);
	/* Optional; NULL unless the backend runs transactions in an order of
	 * its own (Pot): what tm_barrier_wait, tm_set_next_order and
	 * tm_last_order need from it (see potm_order_ops_t below). */
	const struct potm_order_ops *order;
	/* Optional, NULL-ended: the backend's own POTM_* variables, which
	 * its init hook reads and checks itself (settings that only one
	 * backend has, kept out of tm_config_t); tm_config_from_env accepts
	 * them instead of reporting them as unknown. */
	const char *const *env;
	/* Optional; NULL resolves every LSD call at once through the
	 * standard accesses (eager mode, lib/lsd.c): the hooks of a backend
	 * whose transactions keep futures unresolved until the commit. */
	const struct potm_lsd_ops *lsd;
	/* Optional: tm_declare_read_only's backend part, called on the
	 * outermost transaction before its first access (silo: switch the
	 * attempt to a snapshot read); NULL: the transaction runs as any
	 * other, only its writes are refused. */
	void (*declare_read_only)(potm_thread_t *t);
	/* Optional: tm_snapshot_versions(); NULL: 0. */
	size_t (*snapshot_versions)(void);
	/* Optional: tm_write_fresh (silo: no version kept of the word's
	 * current bytes); NULL: tm_write. */
	void (*write_fresh)(tm_word_t *a, tm_word_t v);
} potm_backend_t;

/* Ordering hooks of a deterministic backend.  A registered thread's
 * barrier arrival is an event in the order: lib/barrier.c calls arrive
 * (wait for the thread's turn), then park if the barrier is not complete
 * yet (the thread stops holding turns), or release if this arrival
 * completes it (the threads parked in this generation rejoin). */
typedef struct potm_order_ops {
	void (*arrive)(potm_thread_t *t);
	void (*park)(potm_thread_t *t);
	/* t is NULL when the releasing thread is not registered. */
	void (*release)(potm_thread_t *t, const unsigned *parked, unsigned n);
	int (*set_next_order)(potm_thread_t *t, uint64_t seqno); /* -1: potm_error */
	int (*set_next_order_key)(potm_thread_t *t, uint64_t seqno,
	                          uint64_t key);                 /* -1: potm_error */
	int (*set_weight)(potm_thread_t *t, uint32_t weight);    /* -1: potm_error */
	uint64_t (*last_order)(potm_thread_t *t);
	/* Optional: tm_order_reached() inside a transaction (NULL: 1). */
	bool (*turn_reached)(potm_thread_t *t);
	/* The thread, between transactions, is about to wait for the
	 * others (tm_reclaim_barrier): if it kept the turn at its last
	 * commit (a run of turns, lib/sequencer.h), it passes it now. */
	void (*end_run)(potm_thread_t *t);
} potm_order_ops_t;

extern const potm_backend_t potm_backend;

/* The configuration in force (valid between tm_init and tm_shutdown). */
extern tm_config_t potm_cfg;

/* POTM_SEQUENCER's values: the order a deterministic backend's
 * transactions take effect in (lib/sequencer.h). */
enum potm_sequencer {
	POTM_SEQUENCER_ROUND_ROBIN,  /* "round-robin": by logical id, in rounds */
	POTM_SEQUENCER_WEIGHTED,     /* "weighted": by weighted finish time */
	POTM_SEQUENCER_EXPLICIT,     /* "explicit": tm_set_next_order's slots */
	POTM_SEQUENCER_COUNT
};

/* POTM_SEQUENCER, parsed once by tm_init (lib/config.c), valid as long
 * as potm_cfg; POTM_MODE's is potm_cfg_mode (lib/pot_modes.h). */
extern enum potm_sequencer potm_cfg_sequencer;

/* ---- errors ------------------------------------------------------------ */

/* Record a message for tm_last_error(); returns -1 for `return potm_error(...)`. */
int potm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same for "this machine cannot run the backend": returns
 * TM_ERR_UNSUPPORTED, which tests turn into a skip with the message. */
int potm_unsupported(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "potm: fatal: ..." and abort: for states the program cannot
 * recover from (misuse inside a transaction, out of memory). */
void potm_fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn, cold));

void *potm_xmalloc(size_t size);
void *potm_xcalloc(size_t n, size_t size);
void *potm_xrealloc(void *p, size_t size);

/* ---- transaction life cycle shared by all backends -------------------- */

/* Registered threads now (a hint: it may change right after). */
unsigned potm_live_threads(void);

/* The read-side section of reclamation (lib/reclaim.c): urcu's, and the
 * thread's reader word for polled grace periods (odd inside, Q1). */
void potm_rcu_read_lock(potm_thread_t *t);
void potm_rcu_read_unlock(potm_thread_t *t);

/* A transaction enters the section before it reads beside other
 * transactions, and stays in it across retries until it commits or
 * cancels (potm_tx_committed leaves it): nothing it has seen may be
 * reclaimed meanwhile. */
static inline void potm_enter_read_section(potm_thread_t *t)
{
	if (!t->in_rcu) {
		potm_rcu_read_lock(t);
		t->in_rcu = true;
	}
}

/* Check that the calling thread is registered and in a transaction; which
 * names the call for the message. */
static inline potm_thread_t *potm_self_in_tx(const char *which)
{
	potm_thread_t *t = potm_self();
	if (unlikely(t == NULL || t->txd.depth == 0))
		potm_fatal("%s %s", which,
		           t == NULL ? "on a thread that did not call tm_thread_enter()"
		                     : "outside a transaction");
	return t;
}

/* A write through the library inside a transaction declared read-only. */
void potm_read_only_write(const char *which) __attribute__((noreturn, cold));

/* potm_self_in_tx for a write: also refuses one in a read-only
 * transaction (TM_TXD_READ_ONLY). */
static inline potm_thread_t *potm_self_writing(const char *which)
{
	potm_thread_t *t = potm_self_in_tx(which);
	if (unlikely(t->txd.flags & TM_TXD_READ_ONLY))
		potm_read_only_write(which);
	return t;
}

/* The calling thread, if it is registered and between transactions;
 * else NULL with tm_last_error() set (fn names the call). */
potm_thread_t *potm_caller_between_tx(const char *fn);

/* Successful commit of the outermost transaction: publish the attempt's
 * allocations, hand its frees to reclamation, count it.  Inline for the
 * common short transaction, which allocated, freed and deferred nothing
 * and made no LSD call: one combined test, the counters, the reset; the
 * rest is potm_tx_committed_slow_ (lib/tx.c). */
void potm_tx_committed_slow_(potm_thread_t *t, bool read_only);

/* Leave the transaction's read-side section, if it took one. */
static inline void potm_tx_leave_rcu(potm_thread_t *t)
{
	if (t->in_rcu) {
		t->in_rcu = false;
		potm_rcu_read_unlock(t);
	}
}

/* The end of every successful commit, both paths: count it, reset the
 * thread's per-transaction state, leave the read-side section. */
static inline void potm_tx_commit_close(potm_thread_t *t, bool read_only)
{
	POTM_STAT_INC(t, commits);
	POTM_STAT_ADD(t, commits_ro, (uint64_t)read_only);   /* no branch on it */
	t->attempt = 0;
	t->last_cancelled = false;
	t->hint_serial = false;
	t->txd.depth = 0;
	potm_tx_leave_rcu(t);
}

static inline void potm_tx_committed(potm_thread_t *t, bool read_only)
{
	if (unlikely(t->lsd_used | (t->allocs.n != 0) | (t->polled != NULL) |
	             (t->frees.n != t->frees_committed))) {
		potm_tx_committed_slow_(t, read_only);
		return;
	}
	potm_tx_commit_close(t, read_only);
}

/* Undo the attempt's allocations; count the abort under cause; back off;
 * resume at TM_BEGIN.  The backend has already rolled back its own state. */
void potm_tx_aborted(potm_thread_t *t, int cause) __attribute__((noreturn));

/* Same for tm_cancel: no retry, execution continues after TM_END. */
void potm_tx_cancelled(potm_thread_t *t) __attribute__((noreturn));

/* Randomized exponential backoff after the t->attempt-th abort. */
void potm_backoff(potm_thread_t *t);

/* Map the next stretch of the calling thread's heap (lib/tx.c): called
 * outside a hardware transaction after an abort that may have been a page
 * fault, which the hardware drops instead of serving. */
void potm_heap_prefault(void);

/* Whether an unexplained persistent hardware abort is worth
 * potm_heap_prefault and one more hardware attempt.  Where they do not
 * help (faults on memory the heap did not hand out, a system call in the
 * transaction) the retry aborts again: after each such miss the thread
 * lets twice as many unexplained aborts go straight to the fallback (up
 * to 1023), and one retry that commits in hardware resets that. */
#define POTM_PREFAULT_BACKOFF_MAX 1023

static inline bool potm_prefault_worth(potm_thread_t *t)
{
	if (t->prefault_skip == 0)
		return true;
	t->prefault_skip--;
	return false;
}

/* The retry after a prefault aborted unexplained again. */
static inline void potm_prefault_missed(potm_thread_t *t)
{
	if (t->prefault_backoff < POTM_PREFAULT_BACKOFF_MAX)
		t->prefault_backoff = t->prefault_backoff * 2 + 1;
	t->prefault_skip = t->prefault_backoff;
}

/* After a persistent hardware abort of the given cause: true if the
 * thread mapped heap and tries the hardware once more (*prefaulted: this
 * transaction already did; see potm_prefault_started). */
static inline bool potm_prefault_retry(potm_thread_t *t, int cause, bool *prefaulted)
{
	if (cause != TM_ABORT_HTM_OTHER)
		return false;
	if (*prefaulted) {
		potm_prefault_missed(t);
		return false;
	}
	if (!potm_prefault_worth(t))
		return false;
	potm_heap_prefault();
	*prefaulted = true;
	return true;
}

/* Inside the hardware transaction that follows a prefault: the prefault
 * helped, so the back-off starts over; a store the hardware keeps only
 * if the transaction commits. */
static inline void potm_prefault_started(potm_thread_t *t, bool prefaulted)
{
	if (prefaulted)
		t->prefault_backoff = 0;
}

/* Reclamation of freed blocks after an RCU grace period (lib/reclaim.c);
 * t: the thread that frees them once the grace period is over, or NULL. */
void potm_reclaim_defer(potm_thread_t *t, void **ptrs, size_t n);
/* Committed frees travel to reclamation in batches of at least this many,
 * at most once per POTM_RECLAIM_PERIOD_US unless they reach
 * POTM_RECLAIM_MAX (and at tm_thread_exit and tm_reclaim_barrier).  Each
 * batch costs a grace period, whose membarrier interrupts every CPU that
 * runs one of our threads (an interrupt that exits to the hypervisor on
 * a virtual machine): a pace set by time, not by the free rate, keeps
 * that cost a fixed small share of any workload's. */
#define POTM_RECLAIM_BATCH 64
#define POTM_RECLAIM_PERIOD_US 50000
#define POTM_RECLAIM_MAX 65536
/* A batch of at least this many takes a polled grace period of its own
 * (lib/reclaim.c, Q2): below it, the membarrier would cost more than the
 * delay it saves. */
#define POTM_RECLAIM_POLLED 192
void potm_reclaim_flush(potm_thread_t *t);
/* Free the batches whose grace period is over; one load when there are
 * none.  potm_reclaim_flush does it first; a thread that hands blocks
 * over with potm_reclaim_defer but frees nothing in its transactions (so
 * never flushes) calls it itself, or they wait for its exit. */
void potm_reclaim_drain(potm_thread_t *t);
/* The same, freeing them now: only where one thread runs at a time. */
void potm_reclaim_now(potm_thread_t *t);
/* Free the big batches whose polled grace period has ended (cheap when
 * there are none). */
void potm_reclaim_poll(potm_thread_t *t);
void potm_reclaim_init(unsigned max_threads);
void potm_reclaim_shutdown(void);
void potm_reclaim_thread_init(potm_thread_t *t);
void potm_reclaim_thread_exit(potm_thread_t *t);

/* ---- CPU features (Intel RTM: htm/rtm_probe.h) ------------------------ */

bool potm_cpu_has_ppc_htm(void);

/* membarrier(PRIVATE_EXPEDITED): a full barrier on every CPU that runs
 * one of our threads, the other side of an asymmetric fence (reclaim.c
 * Q2, sequencer.c's sleeper, pot.c P5).  Registered once by tm_init;
 * potm_membarrier_ok is false where the kernel, a seccomp filter or an
 * emulator (qemu-user) refuses it.  potm_membarrier returns 0 on success. */
extern bool potm_membarrier_ok;
void potm_membarrier_register(void);
int potm_membarrier(void);

/* ---- accesses: alignment check shared by the instrumented backends ----- */

static inline void potm_check_aligned(const void *a, size_t size, const char *which)
{
	if (unlikely(((uintptr_t)a & (size - 1)) != 0))
		potm_fatal("%s: address %p is not aligned to %zu bytes", which, a, size);
}

/* tm_write_bytes's pieces, out of line (lib/tx.c): <potm/static/pieces.h>'s
 * splitter, each piece through put, for a range written rarely enough
 * that a call per piece costs less than the splitter inlined beside the
 * common path (tl2's irrevocable mode).  A hot range write inlines
 * tm_write_pieces_ with a constant put (lib/access_gen.h). */
void potm_write_pieces(void *dst, const void *src, size_t n, tm_put_piece_fn_ put, void *ctx);

/* ---- Lazy State Determination (lib/lsd.c, <potm/lsd.h>) ---------------
 * The core keeps each thread's futures, conditions and lazy writes.  A
 * backend without potm_backend_t.lsd gets the eager mode: every future is
 * a standard read, every condition is evaluated and every lazy write made
 * at once.  A backend with LSD-aware concurrency control (tl2, pot) gives the
 * hooks below, and settles the attempt at its commit (potm_lsd_settle).
 * Bytes travel in memcpy order, as in lib/access_gen.h. */

typedef struct potm_lsd_ops {
	/* Whether the attempt, at its first LSD call, keeps futures
	 * unresolved (false: eager, e.g. while it writes in place). */
	bool (*lazy)(potm_thread_t *t);
	/* lsd_read: the bytes [a, a + size) the attempt wrote concretely:
	 * 1 with *b if it wrote them all, 0 if none, -1 if some (then the
	 * core resolves the future through a standard read). */
	int (*written)(potm_thread_t *t, const void *a, unsigned size, uint64_t *b);
	/* lsd_is_true: the bytes' latest committed value, a consistent read
	 * kept out of the read set (the condition set stands for it). */
	uint64_t (*peek)(potm_thread_t *t, const void *a, unsigned size);
	/* lsd_value: a standard read of memory (snapshot, read set) that
	 * ignores the attempt's own writes: the future of a word is its value
	 * before them. */
	uint64_t (*resolve)(potm_thread_t *t, const void *a, unsigned size);
	/* lsd_write: reserve the word in the write set, so that the commit
	 * locks it with the others; returns a cookie that the lazy write's
	 * put gets back (where the reservation is).  May settle the attempt
	 * (tl2's escalation): then the write is put with POTM_LSD_NO_COOKIE. */
	uint32_t (*reserve)(potm_thread_t *t, void *a, unsigned size);
	/* Optional (condition locking, 2pl): lsd_is_true has just recorded
	 * condition k of the condition set, its futures read through peek;
	 * the backend may publish it (potm_lsd_cond_compile) for writers to
	 * evaluate with their new values. */
	void (*held)(potm_thread_t *t, uint32_t k);
} potm_lsd_ops_t;

#define POTM_LSD_NO_COOKIE UINT32_MAX

/* How potm_lsd_settle reads a future's word (it may abort the attempt),
 * and hands over a lazy write's value (with reserve's cookie). */
typedef uint64_t (*potm_lsd_read_fn)(potm_thread_t *t, const void *a, unsigned size);
typedef void (*potm_lsd_put_fn)(potm_thread_t *t, void *a, unsigned size, uint64_t b,
                                uint32_t cookie);

/* Whether the attempt holds unresolved futures, conditions or lazy writes
 * that its commit (or its switch to in-place mode) must settle. */
static inline bool potm_lsd_unsettled(const potm_thread_t *t)
{
	return t->lsd_used && t->lsd_lazy;
}

/* Settle a lazy attempt at one point of the serialization order, where rd
 * reads the value every future has there (the words' values before the
 * attempt's own writes): condition validation — every recorded condition
 * must give the answer lsd_is_true gave, else false and nothing is put —
 * then every lazy write evaluated and handed to put, in program order.
 * The futures reached are bound to what rd returned (with all, every
 * future is read), and the rest of the attempt runs eagerly. */
bool potm_lsd_settle(potm_thread_t *t, potm_lsd_read_fn rd, potm_lsd_put_fn put, bool all);

/* ---- condition locking (2pl): a condition outside its transaction ----
 * A condition compiled into a self-contained program that another thread
 * can evaluate (a writer checking that its new value keeps a condition
 * held by someone else).  Instructions in postorder, operands by index
 * (always below their user's), the root last; the arena's sharing is
 * kept, so a program is never longer than its condition's nodes. */
#define POTM_LSD_PROGRAM_MAX 64
#define POTM_LSD_INSN_FUTURE 1   /* kind of a future's instruction */

typedef struct potm_lsd_insn {
	int64_t val;          /* a constant's value */
	const void *addr;     /* a future's word */
	uint16_t a, b;        /* operands */
	uint8_t kind, op;     /* lib/lsd.c's node kinds; a comparison's op */
	uint8_t size;         /* a future's size: 4 or 8 */
	uint8_t held;         /* a future lsd_is_true read (through peek):
	                         the others were skipped by "and" */
	uint8_t pad_[2];
} potm_lsd_insn_t;

typedef uint64_t (*potm_lsd_peer_read_fn)(void *ctx, const void *a, unsigned size);

/* Condition k of t's condition set as a program of at most cap
 * instructions into out, and the answer lsd_is_true gave; 0 if longer.
 * Right after lsd_is_true recorded it (held marks its futures read). */
size_t potm_lsd_cond_compile(potm_thread_t *t, uint32_t k, potm_lsd_insn_t *out, size_t cap,
                             bool *answer);

/* Evaluate a program of n instructions, futures read by rd(ctx, ...):
 * 1 or 0, or -1 if it needs a future its owner did not read (not held)
 * or the program is malformed. */
int potm_lsd_program_eval(const potm_lsd_insn_t *p, size_t n, potm_lsd_peer_read_fn rd,
                          void *ctx);

/* The transaction's attempt is over (lib/tx.c, when t->lsd_used). */
void potm_lsd_end(potm_thread_t *t);

/* At tm_thread_exit. */
void potm_lsd_free(potm_thread_t *t);

#endif /* POTM_INTERNAL_H */
