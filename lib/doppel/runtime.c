/*
 * lib/doppel/runtime.c — Doppel's phases: workers, the coordinator, the
 * executor (dp_exec) and stashed transactions.
 *
 * The coordinator thread cycles: apply hand requests and, every t_c, the
 * classifier's decisions (joined phase, so no transaction is split-aware);
 * then, if any record is split, a split phase of t_s (cut short once
 * n_s transactions are stashed), a reconcile phase and a joined phase that
 * lasts until the stashed transactions have run.
 *
 * Phase changes (quiescent-state tracking, as liburcu's QSBR flavour).
 * The coordinator publishes a new phase word and waits until every online
 * worker has acknowledged it (seen == word) or is offline.  A worker
 * acknowledges only between transactions, at dp_sync() (every dp_exec,
 * dp_quiescent), and runs every transaction in the phase it last
 * acknowledged.  Hence:
 *  D0  a split phase is entered through PREPARE, in which no transaction
 *      runs: a worker starts split-phase transactions only once every
 *      worker has finished its last joined-phase one.  Without it, a
 *      joined reader could see a split-phase transaction's update of a
 *      record that is not split but not yet its update of one that is
 *      (that one waits in a slice): half a transaction;
 *  D1  a transaction runs entirely in one phase (its worker's), and a
 *      worker never skips a phase while online (the coordinator does not
 *      move on before everyone acknowledged);
 *  D2  a split phase's reconcile phase begins only after every worker
 *      acknowledged the split phase, so no joined-phase transaction is
 *      still running on a split record when slices are merged (ops.c R1);
 *  D3  a worker acknowledges the reconcile phase only after merging its
 *      slices, and the joined phase is published only once all have: a
 *      joined transaction never sees part of a reconciliation;
 *  D4  split decisions change only in a joined phase that every worker
 *      acknowledged, so split_op is stable whenever a worker reads it.
 * Going online is a Dekker handshake with the coordinator: the worker
 * stores seen, then (full fence) re-reads the phase; the coordinator stores
 * the phase, then (full fence) reads seen.  One of them sees the other.
 *
 * Waiting.  A worker waiting for the joined phase (after reconciling, or
 * for a stashed transaction in dp_exec_wait) must not block a deterministic
 * backend's order, in which every registered thread takes turns: there it
 * waits by committing empty transactions, which pass its turns.
 */
#include "doppel_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

struct dp_runtime dp = {
	.reg_lock = PTHREAD_MUTEX_INITIALIZER,
	.req_lock = PTHREAD_MUTEX_INITIALIZER,
};
__thread dp_worker_t *dp_me;

/* Counters of workers that have exited (under reg_lock). */
static dp_stats_t dp_retired;

static void dp_nap(long ns)
{
	struct timespec ts = { 0, ns };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void dp_noop(void *arg)
{
	(void)arg;
}

/* Wait a little without holding up the backend's order. */
static void dp_idle(void)
{
	if (dp.deterministic && potm_self() != NULL && !tm_in_tx())
		(void)tm_atomic(dp_noop, NULL);
	sched_yield();
}

static inline uint64_t dp_phase_load(void)
{
	return __atomic_load_n(&dp.phase, __ATOMIC_ACQUIRE);
}

static inline bool dp_stopping(void)
{
	return __atomic_load_n(&dp.stop, __ATOMIC_ACQUIRE);
}

/* ---- the coordinator ------------------------------------------------------- */

static bool dp_all_acked(uint64_t word)
{
	bool all = true;
	pthread_mutex_lock(&dp.reg_lock);
	for (unsigned i = 0; i < dp.max_workers && all; i++) {
		dp_worker_t *w = dp.workers[i];
		if (w == NULL)
			continue;
		uint64_t s = __atomic_load_n(&w->seen, __ATOMIC_ACQUIRE);
		all = s == word || s == DP_OFFLINE;
	}
	pthread_mutex_unlock(&dp.reg_lock);
	return all;
}

/* Publish the next phase and wait until every online worker is in it. */
static void dp_publish(enum dp_phase phase)
{
	uint64_t word = ((dp.phase >> 2) + 1) << 2 | phase;
	__atomic_store_n(&dp.phase, word, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* Dekker with dp_go_online */
	while (!dp_all_acked(word))
		dp_nap(20000);
}

/* Online workers (not offline), under reg_lock. */
static long dp_online_workers(void)
{
	long n = 0;
	pthread_mutex_lock(&dp.reg_lock);
	for (unsigned i = 0; i < dp.max_workers; i++) {
		dp_worker_t *w = dp.workers[i];
		n += w != NULL && __atomic_load_n(&w->seen, __ATOMIC_ACQUIRE) != DP_OFFLINE;
	}
	pthread_mutex_unlock(&dp.reg_lock);
	return n;
}

/* End the split phase early: n_s transactions stashed, or no online
 * worker left that can do anything but wait for the joined phase. */
static bool dp_split_phase_done(void)
{
	if (__atomic_load_n(&dp.stashed, __ATOMIC_RELAXED) >= (long)dp.stash_max)
		return true;
	long blocked = __atomic_load_n(&dp.blocked, __ATOMIC_RELAXED);
	return blocked > 0 && blocked >= dp_online_workers();
}

static void dp_split_cycle(void)
{
	dp_publish(DP_PHASE_PREPARE);   /* D0 */
	dp_publish(DP_PHASE_SPLIT);
	DP_STAT_ADD(&dp.stats, split_phases, 1);
	uint64_t end = potm_now_ns() + (uint64_t)dp.split_ms * 1000000u;
	while (potm_now_ns() < end && !dp_stopping() && !dp_split_phase_done())
		dp_nap(100000);
	dp_publish(DP_PHASE_RECONCILE);
	dp_publish(DP_PHASE_JOINED);
	DP_STAT_ADD(&dp.stats, joined_phases, 1);
	/* The joined phase lasts until the stashed transactions have run
	 * (their workers run them as they acknowledge it). */
	while (__atomic_load_n(&dp.stashed, __ATOMIC_RELAXED) > 0 && !dp_stopping())
		dp_nap(20000);
}

static void *dp_coordinator_main(void *unused)
{
	(void)unused;
	/* Its naps poll acknowledgements: the default 50 us timer slack would
	 * triple the length of a phase change. */
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	uint64_t next_classify = potm_now_ns() + (uint64_t)dp.classify_ms * 1000000u;
	while (!dp_stopping()) {
		dp_apply_requests();
		if (dp.classify_ms && potm_now_ns() >= next_classify) {
			dp_classify();
			next_classify = potm_now_ns() + (uint64_t)dp.classify_ms * 1000000u;
		}
		__atomic_store_n(&dp.stats.split_records, dp.nsplit, __ATOMIC_RELAXED);
		if (dp.nsplit > 0)
			dp_split_cycle();
		else
			dp_nap(500000);
		__atomic_store_n(&dp.cycles, dp.cycles + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

int dp_init(void)
{
	if (dp.up)
		return potm_error("dp_init: the Doppel runtime is running already");
	const tm_config_t *cfg = tm_current_config();
	if (cfg == NULL)
		return potm_error("dp_init before tm_init");
	dp.max_workers = cfg->max_threads;
	dp.workers = calloc(dp.max_workers, sizeof *dp.workers);
	if (dp.workers == NULL)
		return potm_error("dp_init: out of memory");
	dp.split_ms = cfg->dp_split_ms;
	dp.stash_max = cfg->dp_stash_max;
	dp.classify_ms = cfg->dp_classify_ms;
	dp.split_impact = cfg->dp_split_impact;
	dp.join_impact = cfg->dp_join_impact;
	dp.deterministic = tm_is_deterministic();
	const char *name = tm_backend_name();
	dp.htm = strstr(name, "rtm") != NULL || strstr(name, "rot") != NULL;
	dp.phase = 0;
	dp.stashed = 0;
	dp.blocked = 0;
	dp.nsplit = 0;
	memset(dp.split, 0, sizeof dp.split);
	dp.nreq = 0;
	dp.cycles = 0;
	dp.stop = false;
	memset(&dp.stats, 0, sizeof dp.stats);
	memset(&dp_retired, 0, sizeof dp_retired);
	int rc = pthread_create(&dp.coordinator, NULL, dp_coordinator_main, NULL);
	if (rc != 0) {
		free(dp.workers);
		dp.workers = NULL;
		return potm_error("dp_init: cannot start the coordinator thread: %s", strerror(rc));
	}
	dp.up = true;
	return 0;
}

int dp_shutdown(void)
{
	if (!dp.up)
		return potm_error("dp_shutdown without dp_init");
	unsigned left = 0;
	pthread_mutex_lock(&dp.reg_lock);
	for (unsigned i = 0; i < dp.max_workers; i++)
		left += dp.workers[i] != NULL;
	pthread_mutex_unlock(&dp.reg_lock);
	if (left)
		return potm_error("dp_shutdown: %u worker%s did not call dp_thread_exit()",
		                  left, left == 1 ? "" : "s");
	__atomic_store_n(&dp.stop, true, __ATOMIC_RELEASE);
	pthread_join(dp.coordinator, NULL);
	/* The coordinator stopped in a joined phase: leave every record
	 * joined, so that records outlive the runtime as plain values. */
	for (unsigned slot = 0; slot < DP_MAX_SPLIT; slot++)
		if (dp.split[slot] != NULL)
			dp_mark_joined(dp.split[slot]);
	free(dp.req);
	dp.req = NULL;
	dp.nreq = dp.req_cap = 0;
	free(dp.workers);
	dp.workers = NULL;
	dp.up = false;
	return 0;
}

/* ---- workers ----------------------------------------------------------------- */

static dp_worker_t *dp_worker_or_die(const char *which)
{
	dp_worker_t *w = dp_me;
	if (unlikely(w == NULL))
		potm_fatal("%s on a thread that did not call dp_thread_enter()", which);
	if (unlikely(tm_in_tx()))
		potm_fatal("%s inside a transaction", which);
	return w;
}

/* Take reg_lock without blocking a deterministic order (dp_idle). */
static void dp_reg_lock_politely(void)
{
	while (pthread_mutex_trylock(&dp.reg_lock) != 0)
		dp_idle();
}

/* QSBR "online": acknowledge the current phase (Dekker, see the top). */
static void dp_go_online(dp_worker_t *w)
{
	for (;;) {
		uint64_t word = dp_phase_load();
		w->phase = word;
		__atomic_store_n(&w->seen, word, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (dp_phase_load() == word)
			break;
	}
	w->offline = false;
}

static int dp_run(dp_worker_t *w, void (*fn)(void *), void *arg, int *rc_out);

static void dp_run_stash(dp_worker_t *w)
{
	/* Joined phase: none of these can be stashed again.  Entries are
	 * taken from the front; a stashed fn may not call dp_exec (it runs
	 * inside a transaction), so the array does not change under us. */
	for (unsigned i = 0; i < w->nstash; i++) {
		dp_stash_entry_t e = w->stash[i];
		int rc = dp_run(w, e.fn, e.arg, NULL);
		if (e.rc_out)
			*e.rc_out = rc;
		__atomic_fetch_sub(&dp.stashed, 1, __ATOMIC_RELAXED);
		DP_STAT_ADD(&w->stats, stash_runs, 1);
	}
	w->nstash = 0;
}

/* The quiescent point: follow the coordinator's phase changes. */
static void dp_sync(dp_worker_t *w)
{
	for (;;) {
		uint64_t word = dp_phase_load();
		if (word != w->phase) {
			if (dp_phase_of(word) == DP_PHASE_RECONCILE)
				dp_reconcile_slices(w);          /* D3 */
			w->phase = word;
			__atomic_store_n(&w->seen, word, __ATOMIC_RELEASE);
			if (dp_phase_of(word) == DP_PHASE_JOINED && w->nstash)
				dp_run_stash(w);
			continue;
		}
		if (likely(dp_phase_of(word) <= DP_PHASE_SPLIT)) {
			dp_sample_reset_if_stale(w);   /* a new classifier window */
			return;
		}
		dp_idle();   /* no transaction runs in prepare and reconcile phases */
	}
}

int dp_thread_enter(void)
{
	if (!dp.up)
		return potm_error("dp_thread_enter before dp_init");
	potm_thread_t *t = potm_self();
	if (t == NULL)
		return potm_error("dp_thread_enter on a thread that did not call tm_thread_enter()");
	if (dp_me != NULL)
		return potm_error("dp_thread_enter: this thread is a worker already");
	if (tm_in_tx())
		potm_fatal("dp_thread_enter inside a transaction");
	dp_worker_t *w = calloc(1, sizeof *w);
	if (w == NULL)
		return potm_error("dp_thread_enter: out of memory");
	w->id = t->id;
	w->seen = DP_OFFLINE;
	w->tick = (0x9E3779B9u ^ (w->id * 0x85EBCA6Bu)) | 1;   /* xorshift: nonzero seed */
	w->sample_epoch = UINT64_MAX;   /* clears the (empty) table at first sync */
	dp_reg_lock_politely();
	dp.workers[w->id] = w;
	dp_go_online(w);
	pthread_mutex_unlock(&dp.reg_lock);
	dp_me = w;
	return 0;
}

/* Empty the stash and the slices, following phases as long as needed. */
static void dp_drain(dp_worker_t *w)
{
	bool blocked = false;
	for (;;) {
		dp_sync(w);
		if (w->nstash == 0 && w->nused == 0)
			break;
		if (!blocked) {
			blocked = true;
			__atomic_fetch_add(&dp.blocked, 1, __ATOMIC_RELAXED);
		}
		dp_idle();
	}
	if (blocked)
		__atomic_fetch_sub(&dp.blocked, 1, __ATOMIC_RELAXED);
}

void dp_thread_offline(void)
{
	dp_worker_t *w = dp_worker_or_die("dp_thread_offline");
	if (w->offline)
		return;
	dp_drain(w);
	w->offline = true;
	__atomic_store_n(&w->seen, DP_OFFLINE, __ATOMIC_RELEASE);
}

void dp_thread_online(void)
{
	dp_worker_t *w = dp_worker_or_die("dp_thread_online");
	if (w->offline)
		dp_go_online(w);
}

void dp_thread_exit(void)
{
	dp_worker_t *w = dp_worker_or_die("dp_thread_exit");
	if (w->offline)
		dp_go_online(w);   /* its stash is empty, but follow the protocol */
	dp_drain(w);
	__atomic_store_n(&w->seen, DP_OFFLINE, __ATOMIC_RELEASE);
	dp_reg_lock_politely();
	dp.workers[w->id] = NULL;
	uint64_t *sum = (uint64_t *)&dp_retired;
	const uint64_t *mine = (const uint64_t *)&w->stats;
	for (size_t i = 0; i < sizeof(dp_stats_t) / sizeof(uint64_t); i++)
		sum[i] += mine[i];
	pthread_mutex_unlock(&dp.reg_lock);
	dp_me = NULL;
	dp_slices_free(w);
	free(w->stash);
	free(w);
}

void dp_quiescent(void)
{
	dp_worker_t *w = dp_worker_or_die("dp_quiescent");
	if (!w->offline)
		dp_sync(w);
}

/* ---- the executor ---------------------------------------------------------------- */

static void dp_attempt(void *arg)
{
	dp_worker_t *w = arg;
	/* potm's attempt counter says whether the previous attempt aborted;
	 * its log (kept in plain memory, which an STM abort does not roll
	 * back) names the records it used. */
	if (potm_self()->attempt > 0)
		dp_sample_conflicts(w);
	w->stash_req = false;
	w->npending = 0;
	w->nlog = 0;
	w->fn(w->arg);
}

static int dp_run(dp_worker_t *w, void (*fn)(void *), void *arg, int *rc_out)
{
	w->fn = fn;
	w->arg = arg;
	w->nlog = 0;
	w->in_exec = true;
	int rc = tm_atomic(dp_attempt, w);
	w->in_exec = false;
	if (rc == TM_CANCELLED && w->stash_req) {
		if (w->nstash == w->stash_cap) {
			w->stash_cap = w->stash_cap ? 2 * w->stash_cap : 16;
			w->stash = potm_xrealloc(w->stash, w->stash_cap * sizeof *w->stash);
		}
		w->stash[w->nstash++] = (dp_stash_entry_t){ fn, arg, rc_out };
		__atomic_fetch_add(&dp.stashed, 1, __ATOMIC_RELAXED);
		DP_STAT_ADD(&w->stats, stashed, 1);
		return DP_STASHED;
	}
	if (rc == TM_COMMITTED && w->npending)
		dp_apply_pending(w);
	w->npending = 0;
	return rc == TM_COMMITTED ? DP_COMMITTED : DP_CANCELLED;
}

int dp_exec(void (*fn)(void *), void *arg)
{
	dp_worker_t *w = dp_worker_or_die("dp_exec");
	if (unlikely(w->offline))
		dp_go_online(w);
	dp_sync(w);
	__atomic_store_n(&w->calls, w->calls + 1, __ATOMIC_RELAXED);
	return dp_run(w, fn, arg, NULL);
}

int dp_exec_wait(void (*fn)(void *), void *arg)
{
	dp_worker_t *w = dp_worker_or_die("dp_exec_wait");
	if (unlikely(w->offline))
		dp_go_online(w);
	dp_sync(w);
	__atomic_store_n(&w->calls, w->calls + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&w->wait_calls, w->wait_calls + 1, __ATOMIC_RELAXED);
	volatile int result = -1;
	int rc = dp_run(w, fn, arg, (int *)&result);
	if (rc != DP_STASHED)
		return rc;
	/* Blocked: a split phase with every worker here ends early. */
	__atomic_fetch_add(&dp.blocked, 1, __ATOMIC_RELAXED);
	for (;;) {
		dp_sync(w);   /* runs the stash once the joined phase begins */
		if (result >= 0)
			break;
		dp_idle();
	}
	__atomic_fetch_sub(&dp.blocked, 1, __ATOMIC_RELAXED);
	return result;
}

/* ---- inspection ------------------------------------------------------------------ */

void dp_stats(dp_stats_t *out)
{
	memset(out, 0, sizeof *out);
	if (!dp.up)
		return;
	uint64_t *sum = (uint64_t *)out;
	pthread_mutex_lock(&dp.reg_lock);
	const uint64_t *parts[] = { (const uint64_t *)&dp_retired, (const uint64_t *)&dp.stats };
	for (unsigned p = 0; p < 2; p++)
		for (size_t i = 0; i < sizeof(dp_stats_t) / sizeof(uint64_t); i++)
			sum[i] += __atomic_load_n(&parts[p][i], __ATOMIC_RELAXED);
	for (unsigned w = 0; w < dp.max_workers; w++) {
		if (dp.workers[w] == NULL)
			continue;
		const uint64_t *mine = (const uint64_t *)&dp.workers[w]->stats;
		for (size_t i = 0; i < sizeof(dp_stats_t) / sizeof(uint64_t); i++)
			sum[i] += __atomic_load_n(&mine[i], __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&dp.reg_lock);
	out->split_records = __atomic_load_n(&dp.stats.split_records, __ATOMIC_RELAXED);
	out->cycles = __atomic_load_n(&dp.cycles, __ATOMIC_ACQUIRE);
}

void dp_wait_phases(unsigned n)
{
	if (dp_me != NULL && !dp_me->offline)
		potm_fatal("dp_wait_phases on an online worker (call dp_thread_offline() first)");
	if (tm_in_tx())
		potm_fatal("dp_wait_phases inside a transaction");
	if (!dp.up)
		return;
	uint64_t until = __atomic_load_n(&dp.cycles, __ATOMIC_ACQUIRE) + n + 1;
	while (__atomic_load_n(&dp.cycles, __ATOMIC_ACQUIRE) < until) {
		if (dp.deterministic && potm_self() != NULL)
			dp_idle();
		else
			dp_nap(100000);
	}
}
