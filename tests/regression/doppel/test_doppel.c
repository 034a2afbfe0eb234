/*
 * The Doppel layer (potm/doppel.h) on every backend: operation semantics,
 * split-phase results equal to a serial replay (exact counters, max, min,
 * ordered puts, top-K), stashed transactions all committing, no read of a
 * partial reconciliation, the classifier splitting a hot record and
 * joining it again, offline workers not holding up phases, API misuse,
 * a stress run of 8 threads (oversubscribed) with a phase change every
 * millisecond, and, on deterministic backends, what potm/doppel.h promises
 * stays deterministic: the commit order while nothing is split, the final
 * state of records changed only by splittable operations while split.
 *
 * Workers register, meet at a tm barrier and only then run, so the start
 * is deterministic on the deterministic backends too.
 */
#include <potm/doppel.h>
#include <potm/tm.h>

#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "test_init.h"
#include "test_threads.h"

/* Under ASan or an emulator (POTM_TEST_EMULATED, tests/CMakeLists.txt):
 * fewer operations, the same checks. */
#if defined(__SANITIZE_ADDRESS__) || defined(POTM_TEST_EMULATED)
#define SCALE 4
#else
#define SCALE 1
#endif

static bool single_thread_backend(void)
{
	return strcmp(POTM_BACKEND_NAME, "seq") == 0;
}

static void start(void)
{
	test_tm_init(NULL);
	ck_assert_msg(dp_init() == 0, "dp_init: %s", tm_last_error());
}

static void stop(void)
{
	ck_assert_msg(dp_shutdown() == 0, "dp_shutdown: %s", tm_last_error());
	tm_shutdown();
}

/* ---- threads ---------------------------------------------------------- */

typedef test_work_fn work_fn;

/* A worker joins the Doppel layer offline: waiting at the start line does
 * not hold up phase changes. */
static void dp_worker_enter(void)
{
	ck_assert_int_eq(dp_thread_enter(), 0);
	dp_thread_offline();
}

static void run_threads(unsigned n, work_fn fn)
{
	test_run_threads_hooked(n, fn, dp_worker_enter, dp_thread_exit);
}

static uint64_t next_rand(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* ---- one thread: the operations ---------------------------------------- */

static dp_rec_t r_int, r_tuple, r_topk;

static void ops_body(void *arg)
{
	int64_t *out = arg;
	dp_add(&r_int, 5);
	dp_max(&r_int, 3);     /* 15 stays */
	dp_max(&r_int, 40);
	dp_min(&r_int, 50);    /* 40 stays */
	dp_min(&r_int, -7);
	out[0] = dp_get(&r_int);
	dp_oput(&r_tuple, 10, 100);
	dp_oput(&r_tuple, 9, 900);     /* smaller order: loses */
	dp_oput(&r_tuple, 10, 101);    /* same order, same thread: loses */
	int64_t o = 0, v = 0, t = 0;
	out[1] = dp_get_tuple(&r_tuple, &o, &v, &t);
	out[2] = o;
	out[3] = v;
	out[4] = t;
	for (int64_t i = 0; i < 6; i++)
		dp_topk_insert(&r_topk, i % 3, i);   /* (0,0)(1,1)(2,2)(0,3)(1,4)(2,5) */
	dp_topk_insert(&r_topk, 2, 5);           /* present: nothing */
	dp_topk_entry_t e[8];
	out[5] = dp_topk_get(&r_topk, e, 8);
	out[6] = e[0].order * 10 + e[0].value;   /* (2,5) */
	out[7] = e[1].order * 10 + e[1].value;   /* (2,2) */
	out[8] = e[2].order * 10 + e[2].value;   /* (1,4) */
	out[9] = e[3].order * 10 + e[3].value;   /* (1,1) */
}

START_TEST(operations_joined)
{
	start();
	dp_rec_init_int(&r_int, 10);
	dp_rec_init_tuple(&r_tuple);
	ck_assert_int_eq(dp_rec_init_topk(&r_topk, 4), 0);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(dp_thread_enter(), 0);
	int64_t out[10];
	ck_assert_int_eq(dp_exec(ops_body, out), DP_COMMITTED);
	ck_assert_int_eq(out[0], -7);
	ck_assert_int_eq(out[1], 1);
	ck_assert_int_eq(out[2], 10);
	ck_assert_int_eq(out[3], 100);
	ck_assert_int_eq(out[4], 0);
	ck_assert_int_eq(out[5], 4);
	ck_assert_int_eq(out[6], 25);
	ck_assert_int_eq(out[7], 22);
	ck_assert_int_eq(out[8], 14);
	ck_assert_int_eq(out[9], 11);
	dp_thread_exit();
	tm_thread_exit();
	dp_rec_destroy(&r_topk);
	stop();
}
END_TEST

static void cancel_body(void *arg)
{
	(void)arg;
	dp_add(&r_int, 1000);
	tm_cancel();
}

static void empty_tuple_body(void *arg)
{
	*(int *)arg = dp_get_tuple(&r_tuple, NULL, NULL, NULL);
}

START_TEST(cancel_and_empty_tuple)
{
	start();
	dp_rec_init_int(&r_int, 1);
	dp_rec_init_tuple(&r_tuple);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(dp_thread_enter(), 0);
	if (!single_thread_backend())   /* seq cannot roll back */
		ck_assert_int_eq(dp_exec(cancel_body, NULL), DP_CANCELLED);
	int present = -1;
	ck_assert_int_eq(dp_exec(empty_tuple_body, &present), DP_COMMITTED);
	ck_assert_int_eq(present, 0);
	dp_thread_exit();
	tm_thread_exit();
	ck_assert_int_eq(r_int.value, 1);   /* the cancelled add left no trace */
	stop();
}
END_TEST

/* ---- API errors ------------------------------------------------------------ */

START_TEST(api_errors)
{
	start();
	dp_rec_t r;
	dp_rec_init_int(&r, 0);
	ck_assert_int_eq(dp_split(&r, DP_OPUT), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "not a splittable operation"));
	ck_assert_int_eq(dp_split(&r, DP_GET), -1);
	if (single_thread_backend()) {
		ck_assert_int_eq(dp_split(&r, DP_ADD), -1);
		ck_assert_ptr_nonnull(strstr(tm_last_error(), "seq backend"));
	}
	ck_assert_int_eq(dp_rec_init_topk(&r, 0), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "allowed: 1..64"));
	ck_assert_int_eq(dp_rec_init_topk(&r, DP_TOPK_MAX + 1), -1);
	/* Not registered with the TM. */
	ck_assert_int_eq(dp_thread_enter(), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "tm_thread_enter"));
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(dp_thread_enter(), 0);
	ck_assert_int_eq(dp_thread_enter(), -1);
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "worker already"));
	ck_assert_int_eq(dp_shutdown(), -1);   /* a worker is left */
	ck_assert_ptr_nonnull(strstr(tm_last_error(), "dp_thread_exit"));
	ck_assert_int_eq(dp_init(), -1);       /* twice */
	dp_thread_exit();
	tm_thread_exit();
	stop();
	ck_assert_int_eq(dp_shutdown(), -1);   /* not running */
}
END_TEST

static void add_body(void *arg)
{
	dp_add(arg, 1);
}

/* Misuse inside or outside a transaction is fatal, with a message. */
START_TEST(exec_without_worker_aborts)
{
	start();
	dp_rec_t r;
	dp_rec_init_int(&r, 0);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	dp_exec(add_body, &r);   /* not a worker: potm_fatal */
}
END_TEST

START_TEST(op_outside_exec_aborts)
{
	start();
	dp_rec_t r;
	dp_rec_init_int(&r, 0);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(dp_thread_enter(), 0);
	TM_BEGIN();
	dp_add(&r, 1);           /* a transaction, but not dp_exec's */
	TM_END();
}
END_TEST

static void wrong_kind_body(void *arg)
{
	dp_oput(arg, 1, 1);
}

START_TEST(wrong_kind_aborts)
{
	start();
	dp_rec_t r;
	dp_rec_init_int(&r, 0);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(dp_thread_enter(), 0);
	dp_exec(wrong_kind_body, &r);
}
END_TEST

/* ---- split phases: exact results ------------------------------------------- */

#define NPAIR 2
static dp_rec_t hot_add[NPAIR];      /* +v on [0], -v on [1]: the sum stays 0 */
static dp_rec_t hot_max, hot_min, hot_tuple, hot_topk;
static dp_rec_t per_thread[16];      /* not split: each thread's own counter */
static volatile int partial_seen;
static long ops_per_thread;
static unsigned long stashed_by[16], gets_by[16];
#define TOPK_K 8

typedef struct op_args {
	unsigned id;
	uint64_t rng;
	int64_t v, order;
} op_args_t;

/* Every update of one transaction: deterministic in (id, rng). */
static void update_body(void *arg)
{
	op_args_t *a = arg;
	dp_add(&hot_add[0], a->v);
	dp_add(&hot_add[1], -a->v);
	dp_max(&hot_max, a->v * 7 % 1000);
	dp_min(&hot_min, a->v * 13 % 1000);
	dp_oput(&hot_tuple, a->order, a->v);
	dp_topk_insert(&hot_topk, a->order, a->v);
	dp_add(&per_thread[a->id], 1);
}

/* A reader of split records: stashed in split phases, and must see the
 * pair either both reconciled or neither. */
static void check_body(void *arg)
{
	op_args_t *a = arg;
	if (dp_get(&hot_add[0]) + dp_get(&hot_add[1]) != 0)
		partial_seen = 1;
	dp_add(&per_thread[a->id], 1);
}

static void mixed_work(unsigned id, unsigned n)
{
	(void)n;
	op_args_t a = { .id = id, .rng = 0x9e3779b97f4a7c15ull * (id + 1) };
	for (long i = 0; i < ops_per_thread; i++) {
		next_rand(&a.rng);
		a.v = (int64_t)(a.rng % 1000) + 1;
		a.order = (int64_t)(a.rng >> 40) % 64;
		if (i % 16 == 15) {
			int rc = dp_exec_wait(check_body, &a);
			ck_assert_int_eq(rc, DP_COMMITTED);
			gets_by[id]++;
		} else {
			/* dp_exec: a stash would keep a pointer to a, which changes;
			 * updates never stash (their records are split for them). */
			int rc = dp_exec(update_body, &a);
			ck_assert_int_eq(rc, DP_COMMITTED);
		}
	}
}

/* The expected values: every update replayed, in any order. */
static void expect_replay(unsigned nthreads)
{
	int64_t mx = INT64_MIN, mn = 1000000, best_order = INT64_MIN, best_tid = -1, best_v = 0;
	dp_topk_entry_t top[TOPK_K];
	unsigned ntop = 0;
	for (unsigned id = 0; id < nthreads; id++) {
		uint64_t rng = 0x9e3779b97f4a7c15ull * (id + 1);
		for (long i = 0; i < ops_per_thread; i++) {
			next_rand(&rng);
			if (i % 16 == 15)
				continue;
			int64_t v = (int64_t)(rng % 1000) + 1, order = (int64_t)(rng >> 40) % 64;
			if (v * 7 % 1000 > mx)
				mx = v * 7 % 1000;
			if (v * 13 % 1000 < mn)
				mn = v * 13 % 1000;
			/* oput: larger order wins, then larger thread id; a thread's
			 * own later put with the same order loses. */
			if (order > best_order || (order == best_order && (int64_t)id > best_tid)) {
				best_order = order;
				best_tid = id;
				best_v = v;
			}
			/* top-K of distinct (order, value) pairs */
			unsigned j = 0;
			while (j < ntop && (top[j].order > order ||
			                    (top[j].order == order && top[j].value > v)))
				j++;
			if (j < ntop && top[j].order == order && top[j].value == v)
				continue;
			if (j == TOPK_K)
				continue;
			for (unsigned k = ntop < TOPK_K ? ntop : TOPK_K - 1; k > j; k--)
				top[k] = top[k - 1];
			top[j] = (dp_topk_entry_t){ order, v };
			if (ntop < TOPK_K)
				ntop++;
		}
	}
	ck_assert_int_eq(hot_add[0].value + hot_add[1].value, 0);
	ck_assert_int_eq(hot_max.value, mx);
	ck_assert_int_eq(hot_min.value, mn);
	ck_assert_int_eq(hot_tuple.order, best_order);
	ck_assert_int_eq(hot_tuple.tid, best_tid);
	ck_assert_int_eq(hot_tuple.value, best_v);
	ck_assert_int_eq((unsigned)hot_topk.order, ntop);
	for (unsigned j = 0; j < ntop; j++) {
		ck_assert_int_eq(hot_topk.topk[j].order, top[j].order);
		ck_assert_int_eq(hot_topk.topk[j].value, top[j].value);
	}
	for (unsigned id = 0; id < nthreads; id++)
		ck_assert_int_eq(per_thread[id].value, ops_per_thread);
}

static void split_all_by_hand(void)
{
	ck_assert_int_eq(dp_split(&hot_add[0], DP_ADD), 0);
	ck_assert_int_eq(dp_split(&hot_add[1], DP_ADD), 0);
	ck_assert_int_eq(dp_split(&hot_max, DP_MAX), 0);
	ck_assert_int_eq(dp_split(&hot_min, DP_MIN), 0);
	ck_assert_int_eq(dp_split(&hot_tuple, DP_OPUT), 0);
	ck_assert_int_eq(dp_split(&hot_topk, DP_TOPK), 0);
}

static void init_hot(void)
{
	for (unsigned i = 0; i < NPAIR; i++)
		dp_rec_init_int(&hot_add[i], 0);
	dp_rec_init_int(&hot_max, INT64_MIN);
	dp_rec_init_int(&hot_min, 1000000);
	dp_rec_init_tuple(&hot_tuple);
	ck_assert_int_eq(dp_rec_init_topk(&hot_topk, TOPK_K), 0);
	for (unsigned i = 0; i < 16; i++)
		dp_rec_init_int(&per_thread[i], 0);
	partial_seen = 0;
	memset(stashed_by, 0, sizeof stashed_by);
	memset(gets_by, 0, sizeof gets_by);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0x100000001b3ull;
}

static uint64_t hot_state_hash(unsigned nthreads)
{
	uint64_t h = mix(0, (uint64_t)hot_add[0].value);
	h = mix(h, (uint64_t)hot_max.value);
	h = mix(h, (uint64_t)hot_min.value);
	h = mix(h, (uint64_t)hot_tuple.order);
	h = mix(h, (uint64_t)hot_tuple.tid);
	h = mix(h, (uint64_t)hot_tuple.value);
	for (int64_t j = 0; j < hot_topk.order; j++)
		h = mix(mix(h, (uint64_t)hot_topk.topk[j].order), (uint64_t)hot_topk.topk[j].value);
	for (unsigned id = 0; id < nthreads; id++)
		h = mix(h, (uint64_t)per_thread[id].value);
	return h;
}

/* Returns hot_state_hash() of the final state. */
static uint64_t split_run(unsigned nthreads, unsigned split_ms, long ops)
{
	char ms[16];
	snprintf(ms, sizeof ms, "%u", split_ms);
	setenv("POTM_DP_SPLIT_MS", ms, 1);
	setenv("POTM_DP_CLASSIFY_MS", "0", 1);   /* hand splits only */
	start();
	init_hot();
	split_all_by_hand();
	dp_wait_phases(1);    /* the requests applied, one split phase run */
	ck_assert_int_eq(dp_split_op(&hot_add[0]), DP_ADD);
	ck_assert_int_eq(dp_split_op(&hot_topk), DP_TOPK);
	ops_per_thread = ops / SCALE / test_handoff_divisor();
	run_threads(nthreads, mixed_work);
	dp_stats_t st;
	dp_stats(&st);
	ck_assert_int_eq(partial_seen, 0);
	ck_assert_uint_eq(st.stash_runs, st.stashed);   /* every stash ran */
	ck_assert_uint_ge(st.split_phases, 1);
	ck_assert_uint_eq(st.split_records, 6);
	/* Six split operations per update (per_thread is not split). */
	ck_assert_uint_eq(st.split_ops, 6 * st.split_txs);
	ck_assert_msg(st.split_ops > 0, "no operation went to a slice");
	/* Joined by the shutdown: records hold every committed operation. */
	stop();
	expect_replay(nthreads);
	ck_assert_int_eq(dp_split_op(&hot_add[0]), DP_GET);
	uint64_t h = hot_state_hash(nthreads);
	dp_rec_destroy(&hot_topk);
	unsetenv("POTM_DP_SPLIT_MS");
	unsetenv("POTM_DP_CLASSIFY_MS");
	return h;
}

START_TEST(split_exact_2)
{
	split_run(2, 2, 60000);
}
END_TEST

/* 8 threads, more than the cores, a phase change every millisecond. */
START_TEST(split_stress_8)
{
	split_run(8, 1, 25000);
}
END_TEST

/* ---- phase change: no half transaction --------------------------------------------- */

/* A writer adds 1 to hot_add[0] (split) and to per_thread[15] (not split)
 * in one transaction; readers check that they are equal.  A reader still
 * in the joined phase while the writer already ran split-phase
 * transactions would see the unsplit half only (D0 in runtime.c). */
static volatile int half_stop;
static long half_reads, half_bad;

static void half_write(void *arg)
{
	(void)arg;
	dp_add(&hot_add[0], 1);
	dp_add(&per_thread[15], 1);
}

static void half_read(void *arg)
{
	int *bad = arg;
	*bad = dp_get(&hot_add[0]) != dp_get(&per_thread[15]);
}

static void half_work(unsigned id, unsigned n)
{
	(void)n;
	dp_thread_online();
	long writes = 0;
	while (!half_stop) {
		if (id % 2 == 0) {
			ck_assert_int_eq(dp_exec(half_write, NULL), DP_COMMITTED);
			if (++writes == 100000 / SCALE / test_handoff_divisor())
				half_stop = 1;
		} else {
			int bad = 0;
			ck_assert_int_eq(dp_exec_wait(half_read, &bad), DP_COMMITTED);
			__atomic_fetch_add(&half_reads, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&half_bad, bad, __ATOMIC_RELAXED);
		}
	}
}

START_TEST(phase_change_no_half_transaction)
{
	setenv("POTM_DP_CLASSIFY_MS", "0", 1);
	setenv("POTM_DP_SPLIT_MS", "1", 1);
	start();
	init_hot();
	half_stop = 0;
	half_reads = half_bad = 0;
	ck_assert_int_eq(dp_split(&hot_add[0], DP_ADD), 0);
	dp_wait_phases(1);
	run_threads(4, half_work);
	dp_stats_t st;
	dp_stats(&st);
	stop();
	ck_assert_msg(half_bad == 0, "%ld of %ld reads saw half a transaction", half_bad,
	              half_reads);
	ck_assert_int_eq(hot_add[0].value, per_thread[15].value);
	ck_assert_uint_ge(st.split_phases, 2);
	ck_assert_msg(half_reads > 0, "no read ran");
	unsetenv("POTM_DP_CLASSIFY_MS");
	unsetenv("POTM_DP_SPLIT_MS");
}
END_TEST

/* ---- stashing ------------------------------------------------------------------ */

static long stash_committed[16], stash_iterations[16];

static void stash_body(void *arg)
{
	unsigned id = *(unsigned *)arg;
	(void)dp_get(&hot_add[0]);   /* a read of a split record */
	dp_put(&per_thread[id], dp_get(&per_thread[id]) + 1);
}

static void stash_work(unsigned id, unsigned n)
{
	(void)n;
	/* Wait for a split phase, then read the split record: stashed. */
	dp_thread_online();
	dp_stats_t st;
	do {
		dp_exec(add_body, &hot_add[0]);
		dp_stats(&st);
	} while (st.split_phases == 0);
	static unsigned ids[16];
	ids[id] = id;
	long stashes = 0, i;
	for (i = 0; i < 200 || (stashes == 0 && i < 2000000); i++) {
		int rc = dp_exec(stash_body, &ids[id]);   /* ids[id] outlives the stash */
		ck_assert(rc == DP_COMMITTED || rc == DP_STASHED);
		stashes += rc == DP_STASHED;
		dp_exec(add_body, &hot_add[0]);
	}
	stash_committed[id] = stashes;
	stash_iterations[id] = i;
}

START_TEST(stashed_all_commit)
{
	setenv("POTM_DP_CLASSIFY_MS", "0", 1);
	setenv("POTM_DP_SPLIT_MS", "5", 1);
	start();
	init_hot();
	ck_assert_int_eq(dp_split(&hot_add[0], DP_ADD), 0);
	run_threads(2, stash_work);
	dp_stats_t st;
	dp_stats(&st);
	/* dp_thread_exit ran whatever was still stashed: one increment per
	 * iteration. */
	ck_assert_int_eq(per_thread[0].value, stash_iterations[0]);
	ck_assert_int_eq(per_thread[1].value, stash_iterations[1]);
	ck_assert_uint_eq(st.stash_runs, st.stashed);
	ck_assert_uint_eq(st.stashed, (uint64_t)(stash_committed[0] + stash_committed[1]));
	ck_assert_msg(st.stashed > 0, "no transaction was stashed in a split phase");
	stop();
	unsetenv("POTM_DP_CLASSIFY_MS");
	unsetenv("POTM_DP_SPLIT_MS");
}
END_TEST

/* ---- the classifier ---------------------------------------------------------------- */

#define NKEYS 4096
static dp_rec_t keys[NKEYS];
static volatile int phase_of_load;   /* 0: hot key, 1: uniform, 2: stop */
static volatile int saw_split, saw_join;
static long hot_commits[16];

static void hot_work(unsigned id, unsigned n)
{
	(void)n;
	dp_thread_online();
	uint64_t rng = 12345 + id;
	while (phase_of_load != 2) {
		dp_rec_t *r = phase_of_load == 0 ? &keys[0] : &keys[next_rand(&rng) % NKEYS];
		ck_assert_int_eq(dp_exec(add_body, r), DP_COMMITTED);   /* adds never stash */
		hot_commits[id]++;
	}
}

static void *classifier_watch(void *arg)
{
	(void)arg;
	/* Liveness bounds, not timings: the classifier runs every 20 ms. */
	for (int i = 0; i < 1500 && !saw_split; i++) {
		if (dp_split_op(&keys[0]) == DP_ADD)
			saw_split = 1;
		usleep(2000);
	}
	phase_of_load = 1;   /* the hot key cools down: it must be joined again */
	for (int i = 0; i < 1500 && saw_split && !saw_join; i++) {
		if (dp_split_op(&keys[0]) == DP_GET)
			saw_join = 1;
		usleep(2000);
	}
	phase_of_load = 2;
	return NULL;
}

START_TEST(classifier_splits_hot_key)
{
	setenv("POTM_DP_CLASSIFY_MS", "20", 1);
	setenv("POTM_DP_SPLIT_MS", "5", 1);
	start();
	for (unsigned i = 0; i < NKEYS; i++)
		dp_rec_init_int(&keys[i], 0);
	phase_of_load = 0;
	saw_split = saw_join = 0;
	memset(hot_commits, 0, sizeof hot_commits);
	pthread_t watch;
	pthread_create(&watch, NULL, classifier_watch, NULL);
	run_threads(2, hot_work);
	pthread_join(watch, NULL);
	ck_assert_msg(saw_split, "the classifier never split a key taking every update");
	ck_assert_msg(saw_join, "the classifier never joined the key once it cooled down");
	/* The join the watcher saw is made in the middle of a classifier
	 * pass; the pass is counted when it ends (a liveness bound again). */
	dp_stats_t st;
	dp_stats(&st);
	for (int i = 0; i < 1500 && st.classified < 2; i++) {
		usleep(2000);
		dp_stats(&st);
	}
	stop();
	/* Every committed add is in the records: the workers reconciled their
	 * slices before they exited. */
	int64_t total = 0;
	for (unsigned i = 0; i < NKEYS; i++)
		total += keys[i].value;
	ck_assert_int_eq(total, hot_commits[0] + hot_commits[1]);
	ck_assert_uint_ge(st.classified, 2);
	ck_assert_uint_ge(st.splits, 1);
	ck_assert_uint_ge(st.joins, 1);
	unsetenv("POTM_DP_CLASSIFY_MS");
	unsetenv("POTM_DP_SPLIT_MS");
}
END_TEST

static long lone_commits;

static void lone_work(unsigned id, unsigned n)
{
	(void)id;
	(void)n;
	dp_thread_online();
	for (long i = 0; i < 200000 / SCALE; i++)
		ck_assert_int_eq(dp_exec(add_body, &keys[0]), DP_COMMITTED);
	lone_commits = 200000 / SCALE;
}

/* One worker: nothing to gain, nothing split. */
START_TEST(classifier_one_worker_never_splits)
{
	setenv("POTM_DP_CLASSIFY_MS", "5", 1);
	start();
	dp_rec_init_int(&keys[0], 0);
	run_threads(1, lone_work);
	dp_stats_t st;
	dp_stats(&st);
	ck_assert_uint_eq(st.splits, 0);
	ck_assert_uint_eq(st.split_phases, 0);
	stop();
	ck_assert_int_eq(keys[0].value, lone_commits);
	unsetenv("POTM_DP_CLASSIFY_MS");
}
END_TEST

/* ---- offline workers ------------------------------------------------------------ */

static long offline_adds;

static void offline_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 1) {
		/* Stays offline the whole time: phases must not wait for it. */
		dp_wait_phases(3);
		return;
	}
	dp_thread_online();
	dp_stats_t st;
	do {
		for (int i = 0; i < 100; i++)
			offline_adds += dp_exec(add_body, &hot_add[0]) == DP_COMMITTED;
		dp_stats(&st);
	} while (st.split_phases < 3);
}

START_TEST(offline_worker_does_not_block)
{
	setenv("POTM_DP_CLASSIFY_MS", "0", 1);
	setenv("POTM_DP_SPLIT_MS", "1", 1);
	start();
	init_hot();
	offline_adds = 0;
	ck_assert_int_eq(dp_split(&hot_add[0], DP_ADD), 0);
	run_threads(2, offline_work);
	dp_stats_t st;
	dp_stats(&st);
	ck_assert_uint_ge(st.split_phases, 3);
	stop();
	ck_assert_int_eq(hot_add[0].value, offline_adds);
	unsetenv("POTM_DP_CLASSIFY_MS");
	unsetenv("POTM_DP_SPLIT_MS");
}
END_TEST

/* ---- deterministic backends ----------------------------------------------------- */

#define DET_TX 3000
static dp_rec_t det_chain;                 /* non-commutative: order shows */
static uint64_t det_slot[8][DET_TX];      /* tm_last_order() after each */

static void chain_body(void *arg)
{
	unsigned id = *(unsigned *)arg;
	dp_put(&det_chain, (int64_t)((uint64_t)dp_get(&det_chain) * 31 + id + 1));
}

static void chain_work(unsigned id, unsigned n)
{
	(void)n;
	unsigned me = id;
	dp_thread_online();
	for (unsigned k = 0; k < DET_TX / SCALE; k++) {
		ck_assert_int_eq(dp_exec(chain_body, &me), DP_COMMITTED);
		det_slot[id][k] = tm_last_order();
		ck_assert(det_slot[id][k] != TM_ORDER_NONE);
	}
}

/* The order hash: thread ids taken in commit-slot order. */
static uint64_t chain_order_hash(unsigned nthreads)
{
	unsigned next[8] = { 0 }, total = nthreads * (DET_TX / SCALE);
	uint64_t h = 1469598103934665603ull;
	for (unsigned done = 0; done < total; done++) {
		unsigned best = nthreads;
		for (unsigned t = 0; t < nthreads; t++)
			if (next[t] < DET_TX / SCALE &&
			    (best == nthreads || det_slot[t][next[t]] < det_slot[best][next[best]]))
				best = t;
		h = mix(h, best);
		next[best]++;
	}
	return h;
}

/* While nothing is split, dp_exec is the backend's transaction: pot's
 * order, and so the order hash and the final value, are the same every
 * run, with the classifier running (it samples, splits nothing here: one
 * record updated by non-splittable puts). */
START_TEST(deterministic_order_unsplit)
{
	if (!tm_is_deterministic()) {
		printf("%s is not deterministic: skipped\n", POTM_BACKEND_NAME);
		return;
	}
	setenv("POTM_DP_CLASSIFY_MS", "5", 1);
	const unsigned threads[] = { 2, 4 };   /* 4: oversubscribed */
	for (unsigned ti = 0; ti < 2; ti++) {
		uint64_t first_order = 0, first_state = 0;
		for (int run = 0; run < 3; run++) {
			start();
			dp_rec_init_int(&det_chain, 0);
			run_threads(threads[ti], chain_work);
			dp_stats_t st;
			dp_stats(&st);
			ck_assert_uint_eq(st.splits, 0);
			stop();
			uint64_t order = chain_order_hash(threads[ti]);
			uint64_t state = (uint64_t)det_chain.value;
			if (run == 0) {
				first_order = order;
				first_state = state;
			}
			ck_assert_msg(order == first_order && state == first_state,
			              "%u threads, run %d: order %016llx state %016llx, run 0: "
			              "%016llx %016llx", threads[ti], run,
			              (unsigned long long)order, (unsigned long long)state,
			              (unsigned long long)first_order,
			              (unsigned long long)first_state);
		}
	}
	unsetenv("POTM_DP_CLASSIFY_MS");
}
END_TEST

/* Split records changed only by their splittable operation end the same
 * every run however the timed phases fell; stashed readers still commit. */
START_TEST(deterministic_split_state)
{
	if (!tm_is_deterministic()) {
		printf("%s is not deterministic: skipped\n", POTM_BACKEND_NAME);
		return;
	}
	uint64_t first = 0;
	for (int run = 0; run < 3; run++) {
		uint64_t h = split_run(4, 1, 8000);   /* asserts the serial replay too */
		if (run == 0)
			first = h;
		ck_assert_msg(h == first, "run %d: final state %016llx, run 0: %016llx", run,
		              (unsigned long long)h, (unsigned long long)first);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("doppel-" POTM_BACKEND_NAME);
	TCase *tc = tcase_create("single");
	tcase_add_test(tc, operations_joined);
	tcase_add_test(tc, cancel_and_empty_tuple);
	tcase_add_test(tc, api_errors);
	tcase_add_test_raise_signal(tc, exec_without_worker_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, op_outside_exec_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, wrong_kind_aborts, SIGABRT);
	suite_add_tcase(s, tc);
	if (!single_thread_backend()) {
		TCase *mt = tcase_create("threads");
		tcase_set_timeout(mt, 300);
		tcase_add_test(mt, split_exact_2);
		tcase_add_test(mt, split_stress_8);
		tcase_add_test(mt, phase_change_no_half_transaction);
		tcase_add_test(mt, stashed_all_commit);
		tcase_add_test(mt, classifier_splits_hot_key);
		tcase_add_test(mt, classifier_one_worker_never_splits);
		tcase_add_test(mt, offline_worker_does_not_block);
		tcase_add_test(mt, deterministic_order_unsplit);
		tcase_add_test(mt, deterministic_split_state);
		suite_add_tcase(s, mt);
	} else {
		printf("seq: the multi-thread cases are skipped (one thread only)\n");
	}
	return potm_check_run(s);
}
