/*
 * The silo backend's own rules (stm/silo.c), each through a program whose
 * result tells whether the rule held:
 *
 *  anti-dependency  opacity where TIDs alone would not give it (S1, S2): T
 *                   reads x, whose TID is high; U reads z and overwrites
 *                   x; V, on a thread that never committed, overwrites z
 *                   and y with a TID below x's.  T then reads y: the state
 *                   "y after V, x before U" is in no serial order (U
 *                   precedes V), so that read must not be accepted (a
 *                   scheme that validates only on meeting a TID above the
 *                   highest seen would accept it): T aborts and its retry
 *                   sees both changes;
 *  write skew       two threads, in lockstep, each read a pair of words
 *                   and set its own to 1 if both are 0: serializably
 *                   exactly one of them does, in every round, whether the
 *                   commit validates its reads or finds that no other
 *                   clock moved (S5);
 *  snapshot         writers move money between accounts, each held in a
 *                   box that a transfer replaces (tm_malloc the new,
 *                   tm_free the old), while read-only transactions
 *                   (TM_BEGIN_RO) sum every account: each sum is exact,
 *                   no snapshot ever aborts (N2, N4), no box is read
 *                   after it is freed (N7: under ASan), the versions
 *                   kept stay bounded while they run and all go once no
 *                   snapshot runs (N6), writes then keeping none;
 *                   each account's balance, mirrored beside its box's
 *                   pointer in whole and part words of one span, reads
 *                   the same in all three;
 *                   half the sums read through LSD futures and check a
 *                   condition on them, resolved on the snapshot;
 *                   declaring after a first access is refused;
 *  snapshot boundary a snapshot reads the state at its start: a commit
 *                   made meanwhile by another thread is invisible to it
 *                   and kept as a version (only because a snapshot runs:
 *                   a commit while none runs keeps nothing, and the
 *                   versions go), and a thread's own commit just before
 *                   its snapshot is visible, every time;
 *                   a block unlinked and freed outside any transaction
 *                   while a snapshot runs stays readable to it (N7);
 *  epoch period     POTM_SILO_EPOCH_MS out of range or not a number makes
 *                   tm_init fail with a message that names it; a valid
 *                   value starts and stops the epoch thread cleanly, again
 *                   and again;
 *  global TID       with POTM_SILO_GLOBAL_TID=1, a commit on disjoint
 *                   stripes by a thread that never committed still gets
 *                   a TID above another thread's earlier ones (without
 *                   it, below them); a value other than 0 or 1 is refused.
 */
#include <potm/lsd.h>
#include <potm/tm.h>

#include <check.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "test_threads.h"

static void start_tm(void)
{
	int rc = tm_init(NULL);
	ck_assert_msg(rc == 0, "tm_init: %s", tm_last_error());
	ck_assert_str_eq(tm_backend_name(), "silo");
}

/* Words a page apart: distinct stripes under any POTM_STRIPE_SHIFT. */
static long words[4 * 512];
#define X (&words[0])
#define Y (&words[512])
#define Z (&words[1024])

static int stage;
static unsigned t_attempts;
static long t_bad;

static void wait_stage(int s)
{
	while (__atomic_load_n(&stage, __ATOMIC_ACQUIRE) < s)
		sched_yield();
}

/* Stages only move forward (T's retry passes stage 1 again). */
static void set_stage(int s)
{
	int old = __atomic_load_n(&stage, __ATOMIC_RELAXED);
	while (old < s && !__atomic_compare_exchange_n(&stage, &old, s, false, __ATOMIC_RELEASE,
	                                               __ATOMIC_RELAXED))
		;
}

static void anti_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		/* x's TID climbs above anything V's thread will choose. */
		for (int i = 0; i < 100; i++) {
			TM_BEGIN();
			TM_STORE(X, 0L);
			TM_END();
		}
		volatile long x = 0, y = 0;
		TM_BEGIN();
		t_attempts++;
		x = TM_LOAD(X);
		set_stage(1);
		wait_stage(3);
		y = TM_LOAD(Y);
		TM_END();
		/* U (x = z + 1) precedes V (z = y = 5): y = 5 implies x = 1. */
		if (y == 5 && x != 1)
			t_bad++;
	} else if (id == 1) {
		wait_stage(1);
		TM_BEGIN();
		TM_STORE(X, TM_LOAD(Z) + 1);
		TM_END();
		set_stage(2);
	} else {
		wait_stage(2);
		TM_BEGIN();
		TM_STORE(Z, 5L);
		TM_STORE(Y, 5L);
		TM_END();
		set_stage(3);
	}
}

START_TEST(anti_dependency)
{
	/* One epoch for the whole run, so that TIDs order as described. */
	setenv("POTM_SILO_EPOCH_MS", "10000", 1);
	start_tm();
	stage = 0;
	t_attempts = 0;
	t_bad = 0;
	test_run_threads(3, anti_work);
	ck_assert_int_eq(t_bad, 0);
	ck_assert_msg(t_attempts >= 2, "T's read of y was accepted (%u attempt)", t_attempts);
	ck_assert_int_eq(*X, 1);
	ck_assert_int_eq(*Y, 5);
	tm_shutdown();
	unsetenv("POTM_SILO_EPOCH_MS");
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define SKEW_ROUNDS 500
#else
#define SKEW_ROUNDS 4000
#endif
/* Each round's pair on its own stripes (a pair per 64 bytes at most
 * shares them with no other round's). */
static long pairs[SKEW_ROUNDS][2][8];
static unsigned arrived[SKEW_ROUNDS];

static void skew_work(unsigned id, unsigned n)
{
	for (unsigned r = 0; r < SKEW_ROUNDS; r++) {
		__atomic_add_fetch(&arrived[r], 1, __ATOMIC_ACQ_REL);
		while (__atomic_load_n(&arrived[r], __ATOMIC_ACQUIRE) < n)
			;
		long *x = &pairs[r][0][0], *y = &pairs[r][1][0];
		TM_BEGIN();
		if (TM_LOAD(x) + TM_LOAD(y) == 0)
			TM_STORE(id ? y : x, 1L);
		TM_END();
	}
}

START_TEST(write_skew)
{
	start_tm();
	memset(pairs, 0, sizeof pairs);
	memset(arrived, 0, sizeof arrived);
	test_run_threads(2, skew_work);
	tm_shutdown();
	for (unsigned r = 0; r < SKEW_ROUNDS; r++)
		ck_assert_msg(pairs[r][0][0] + pairs[r][1][0] == 1,
		              "round %u: x = %ld, y = %ld", r, pairs[r][0][0], pairs[r][1][0]);
}
END_TEST

static void bad_period(const char *v)
{
	setenv("POTM_SILO_EPOCH_MS", v, 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_msg(strstr(tm_last_error(), "POTM_SILO_EPOCH_MS") != NULL,
	              "POTM_SILO_EPOCH_MS=%s: %s", v, tm_last_error());
	unsetenv("POTM_SILO_EPOCH_MS");
}

static long counter;

static void count_work(unsigned id, unsigned n)
{
	(void)id;
	(void)n;
	for (int i = 0; i < 1000; i++) {
		TM_BEGIN();
		TM_STORE(&counter, TM_LOAD(&counter) + 1);
		TM_END();
	}
}

START_TEST(epoch_period)
{
	bad_period("0");
	bad_period("-5");
	bad_period("10001");
	bad_period("40ms");
	bad_period("");
	counter = 0;
	for (int round = 0; round < 3; round++) {
		setenv("POTM_SILO_EPOCH_MS", "1", 1);
		start_tm();
		test_run_threads(2, count_work);
		tm_shutdown();
	}
	unsetenv("POTM_SILO_EPOCH_MS");
	ck_assert_int_eq(counter, 3 * 2 * 1000);
}
END_TEST

/* ---- the global TID ------------------------------------------------------ */

uint64_t potm_silo_last_tid(void);   /* stm/silo.c, the redo log's accessor */

static uint64_t gtid_last[2];

/* Thread 1 begins a transaction and reads Y (its snapshot of the clocks
 * taken); thread 0 then commits 50 writes to X; then thread 1 writes Y
 * and commits.  The stripes are disjoint and thread 1's snapshot predates
 * thread 0's commits, so only a shared counter puts its TID above them. */
static void gtid_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		wait_stage(1);
		for (int i = 0; i < 50; i++) {
			TM_BEGIN();
			TM_STORE(X, TM_LOAD(X) + 1);
			TM_END();
		}
		gtid_last[0] = potm_silo_last_tid();
		set_stage(2);
		return;
	}
	TM_BEGIN();
	long y = TM_LOAD(Y);
	set_stage(1);
	wait_stage(2);
	TM_STORE(Y, y + 1);
	TM_END();
	gtid_last[1] = potm_silo_last_tid();
}

/* 1: POTM_SILO_GLOBAL_TID=1; the epoch period at its maximum, so both
 * commits fall in one epoch and the TIDs compare by sequence alone. */
static void gtid_round(const char *global)
{
	setenv("POTM_SILO_EPOCH_MS", "10000", 1);
	setenv("POTM_SILO_GLOBAL_TID", global, 1);
	stage = 0;
	start_tm();
	test_run_threads(2, gtid_work);
	tm_shutdown();
	unsetenv("POTM_SILO_GLOBAL_TID");
	unsetenv("POTM_SILO_EPOCH_MS");
}

START_TEST(global_tid)
{
	/* Per-thread TIDs: thread 1's TID is above its snapshot's words
	 * only, below thread 0's fiftieth. */
	gtid_round("0");
	ck_assert_msg(gtid_last[1] < gtid_last[0], "per-thread TIDs: %llu after %llu",
	              (unsigned long long)gtid_last[1], (unsigned long long)gtid_last[0]);
	/* The shared counter: every commit's TID above every earlier one. */
	gtid_round("1");
	ck_assert_msg(gtid_last[1] > gtid_last[0], "global TID: %llu after %llu",
	              (unsigned long long)gtid_last[1], (unsigned long long)gtid_last[0]);
	setenv("POTM_SILO_GLOBAL_TID", "2", 1);
	ck_assert_int_eq(tm_init(NULL), -1);
	ck_assert_msg(strstr(tm_last_error(), "POTM_SILO_GLOBAL_TID") != NULL, "%s",
	              tm_last_error());
	unsetenv("POTM_SILO_GLOBAL_TID");
}
END_TEST

/* ---- snapshots ----------------------------------------------------------- */

#define SNAP_ACCOUNTS 64
/* The nodes in a writer's chunk of versions (32 KB of 32-byte nodes). */
#define SNAP_CHUNK_NODES 1024
#define SNAP_START 100L
#if defined(POTM_TEST_EMULATED) || defined(__SANITIZE_ADDRESS__)
#define SNAP_TRANSFERS 2000
#else
#define SNAP_TRANSFERS 8000
#endif
/* A slot per 64 bytes: the accounts' boxes' pointers on distinct stripes;
 * next to each, in its span (N1), the balance again as a long and as an
 * int32 (part of a word): a snapshot finds all three equal. */
static struct {
	long *box;
	long mirror;
	int32_t pad, mirror32;
} __attribute__((aligned(64))) snap_slot[SNAP_ACCOUNTS];
#define SNAP_MIRROR(i) (&snap_slot[i].mirror)
#define SNAP_MIRROR32(i) (&snap_slot[i].mirror32)
static unsigned snap_readers_n;      /* threads 0 .. readers - 1 read */
static unsigned snap_writers_left;
static unsigned long snap_sums, snap_attempts, snap_bad;
static unsigned long snap_live;      /* snapshots done so far, all readers */
static size_t snap_peak;

static void snap_transfer(unsigned a, unsigned b)
{
	TM_BEGIN();
	long *pa = TM_LOAD(&snap_slot[a].box), *pb = TM_LOAD(&snap_slot[b].box);
	long va = TM_LOAD(pa), vb = TM_LOAD(pb);
	/* Unpublished: written directly (tm.h's rules). */
	long *na = tm_malloc(sizeof *na), *nb = tm_malloc(sizeof *nb);
	*na = va - 1;
	*nb = vb + 1;
	TM_STORE(&snap_slot[a].box, na);
	TM_STORE(&snap_slot[b].box, nb);
	TM_STORE(SNAP_MIRROR(a), va - 1);
	TM_STORE(SNAP_MIRROR(b), vb + 1);
	TM_STORE(SNAP_MIRROR32(a), (int32_t)(va - 1));
	TM_STORE(SNAP_MIRROR32(b), (int32_t)(vb + 1));
	tm_free(pa);
	tm_free(pb);
	TM_END();
}

static void snap_work(unsigned id, unsigned n)
{
	if (id < snap_readers_n) {
		unsigned long sums = 0, attempts = 0, bad = 0;
		size_t peak = 0;
		while (__atomic_load_n(&snap_writers_left, __ATOMIC_ACQUIRE) != 0) {
			volatile long sum;
			volatile bool same = true;
			bool lsd = sums & 1;
			TM_BEGIN_RO();
			attempts++;
			sum = 0;
			same = true;
			for (unsigned i = 0; i < SNAP_ACCOUNTS; i++) {
				long *p = TM_LOAD(&snap_slot[i].box);
				if (!lsd) {
					long v = TM_LOAD(p);
					sum += v;
					if (TM_LOAD(SNAP_MIRROR(i)) != v ||
					    TM_LOAD(SNAP_MIRROR32(i)) != (int32_t)v)
						same = false;
					continue;
				}
				/* LSD in a snapshot: futures and conditions
				 * are resolved on the snapshot at once. */
				long v = (long)lsd_value(lsd_read((const int64_t *)p));
				sum += v;
				/* The slot moves with every transfer. */
				lsd_val_t slot = lsd_read((const int64_t *)(void *)&snap_slot[i].box);
				if (!lsd_is_true(lsd_cmp(slot, LSD_EQ, lsd_const((int64_t)(intptr_t)p))))
					same = false;
			}
			TM_END();
			if (!same)
				bad++;
			sums++;
			__atomic_add_fetch(&snap_live, 1, __ATOMIC_RELAXED);
			if (sum != SNAP_ACCOUNTS * SNAP_START)
				bad++;
			size_t v = tm_snapshot_versions();
			if (v > peak)
				peak = v;
		}
		__atomic_add_fetch(&snap_sums, sums, __ATOMIC_RELAXED);
		__atomic_add_fetch(&snap_attempts, attempts, __ATOMIC_RELAXED);
		__atomic_add_fetch(&snap_bad, bad, __ATOMIC_RELAXED);
		size_t old = __atomic_load_n(&snap_peak, __ATOMIC_RELAXED);
		while (peak > old && !__atomic_compare_exchange_n(&snap_peak, &old, peak, false,
		                                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		return;
	}
	unsigned seed = id * 7919u + 1;
	/* Until the readers have summed a few times too. */
	int mine = SNAP_TRANSFERS / (int)(n - snap_readers_n);   /* the same total */
	for (int i = 0; i < mine ||
	                __atomic_load_n(&snap_live, __ATOMIC_RELAXED) < 50; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned a = (seed >> 8) % SNAP_ACCOUNTS;
		unsigned b = (a + 1 + (seed >> 20) % (SNAP_ACCOUNTS - 1)) % SNAP_ACCOUNTS;
		snap_transfer(a, b);
	}
	__atomic_sub_fetch(&snap_writers_left, 1, __ATOMIC_RELEASE);
}

/* One pass of transfers that touch every account once, on one thread. */
static void snap_touch_all(unsigned id, unsigned n)
{
	(void)id;
	(void)n;
	for (unsigned a = 0; a < SNAP_ACCOUNTS; a += 2)
		snap_transfer(a, a + 1);
}

/* The versions kept, once every thread that kept some has committed or
 * exited with no snapshot running: none (N6; exited threads' chunks go at
 * the epoch thread's next period).  Polled: the epoch thread runs on its
 * own time. */
static size_t snap_versions_settled(void)
{
	size_t v = tm_snapshot_versions();
	for (int i = 0; i < 5000 && v != 0; i++) {
		struct timespec t = { 0, 1000000 };
		nanosleep(&t, NULL);
		v = tm_snapshot_versions();
	}
	return v;
}

/* At 2 ms epochs. */
static void snap_run(unsigned nthreads, unsigned readers)
{
	setenv("POTM_SILO_EPOCH_MS", "2", 1);
	start_tm();
	for (unsigned i = 0; i < SNAP_ACCOUNTS; i++) {
		snap_slot[i].box = malloc(sizeof(long));
		*snap_slot[i].box = SNAP_START;
		*SNAP_MIRROR(i) = SNAP_START;
		*SNAP_MIRROR32(i) = (int32_t)SNAP_START;
	}
	snap_readers_n = readers;
	snap_writers_left = nthreads - readers;
	snap_sums = snap_attempts = snap_bad = snap_live = 0;
	snap_peak = 0;
	test_run_threads(nthreads, snap_work);
	ck_assert_msg(snap_bad == 0, "%lu of %lu sums wrong", snap_bad, snap_sums);
	ck_assert_msg(snap_attempts == snap_sums, "snapshots aborted: %lu attempts, %lu sums",
	              snap_attempts - snap_sums, snap_sums);
	ck_assert_uint_ge(snap_sums, 50);
	/* N6: at most a node per word a transfer writes beside the boxes
	 * (three per account; the boxes are fresh, never saved) and
	 * generation, for the generations a thread has not yet seen end,
	 * plus each writer's newest chunk (freed whole: SNAP_CHUNK_NODES). */
	ck_assert_msg(snap_peak <= 64 * SNAP_ACCOUNTS + nthreads * SNAP_CHUNK_NODES,
	              "%zu versions kept", snap_peak);
	/* No snapshot runs now: the writers' chunks go, and a pass of
	 * writes keeps nothing. */
	test_run_threads(1, snap_touch_all);
	size_t after = snap_versions_settled();
	ck_assert_msg(after == 0, "%zu versions left with no snapshot running", after);
	long total = 0;
	for (unsigned i = 0; i < SNAP_ACCOUNTS; i++) {
		total += *snap_slot[i].box;
		free(snap_slot[i].box);
	}
	ck_assert_int_eq(total, SNAP_ACCOUNTS * SNAP_START);
	tm_shutdown();
	unsetenv("POTM_SILO_EPOCH_MS");
}

START_TEST(snapshot)
{
	snap_run(2, 1);
	snap_run(8, 2);   /* oversubscribed */
}
END_TEST

/* Thread 0's snapshot reads X, lets thread 1 commit X and Y, then reads
 * both: the values at its start.  Thread 1's commit kept their old bytes
 * (a snapshot runs); its next commit, with none running, keeps nothing
 * and hands the versions over.  Then each thread's own commit is visible
 * to its next snapshot. */
static long bound_seen[3];
static size_t bound_during, bound_after;
static unsigned bound_ro_attempts;

static void bound_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		TM_BEGIN_RO();
		bound_ro_attempts++;
		bound_seen[0] = TM_LOAD(X);
		set_stage(1);
		wait_stage(2);
		bound_seen[1] = TM_LOAD(X);
		bound_seen[2] = TM_LOAD(Y);
		TM_END();
		set_stage(3);
	} else {
		wait_stage(1);
		TM_BEGIN();
		TM_STORE(X, 2L);
		TM_STORE(Y, 2L);
		TM_END();
		bound_during = tm_snapshot_versions();
		set_stage(2);
		wait_stage(3);
		TM_BEGIN();
		TM_STORE(X, 3L);
		TM_STORE(Y, 3L);
		TM_END();
		bound_after = tm_snapshot_versions();
		set_stage(4);
	}
	/* Read-your-commits, both threads in turn (stage 4 and 5). */
	wait_stage(4 + (int)id);
	for (long i = 0; i < 200; i++) {
		long mine = 100 * (long)id + i, seen = -1;
		TM_BEGIN();
		TM_STORE(Z, mine);
		TM_END();
		TM_BEGIN_RO();
		seen = TM_LOAD(Z);
		TM_END();
		ck_assert_int_eq(seen, mine);
	}
	set_stage(5 + (int)id);
}

START_TEST(snapshot_boundary)
{
	setenv("POTM_SILO_EPOCH_MS", "2", 1);
	start_tm();
	*X = 1;
	*Y = 1;
	stage = 0;
	bound_ro_attempts = 0;
	test_run_threads(2, bound_work);
	ck_assert_uint_eq(bound_ro_attempts, 1);
	ck_assert_int_eq(bound_seen[0], 1);
	ck_assert_int_eq(bound_seen[1], 1);   /* not thread 1's commit */
	ck_assert_int_eq(bound_seen[2], 1);
	ck_assert_msg(bound_during >= 2, "%zu versions kept by a commit under a snapshot",
	              bound_during);
	ck_assert_msg(bound_after == 0, "%zu versions left after a commit with no snapshot",
	              bound_after);
	ck_assert_int_eq(*X, 3);
	tm_shutdown();
	unsetenv("POTM_SILO_EPOCH_MS");
}
END_TEST

static long declare_word;

static void declare_late(unsigned id, unsigned n)
{
	(void)id;
	(void)n;
	TM_BEGIN();
	(void)TM_LOAD(&declare_word);
	tm_declare_read_only();
	TM_END();
}

START_TEST(snapshot_declared_late)
{
	start_tm();
	test_run_threads(1, declare_late);
}
END_TEST

/* While snapshots run, a committer's frees still come back to the
 * allocator as the thread runs, not only when it exits: thread 1 runs
 * snapshots back to back while thread 0 replaces a box until
 * reclamation has returned some. */
static void *reclaim_box;
static uint64_t reclaim_seen;
static int reclaim_done;

static void reclaim_while_running(unsigned id, unsigned n)
{
	(void)n;
	if (id == 1) {
		while (!__atomic_load_n(&reclaim_done, __ATOMIC_ACQUIRE)) {
			TM_BEGIN_RO();
			(void)TM_LOAD(&reclaim_box);
			TM_END();
		}
		return;
	}
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	tm_stats_t st = { 0 };
	do {
		for (int i = 0; i < 64; i++) {
			TM_BEGIN();
			void *old = TM_LOAD(&reclaim_box);
			TM_STORE(&reclaim_box, tm_malloc(64));
			tm_free(old);
			TM_END();
		}
		ck_assert_int_eq(tm_stats(&st), 0);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (st.reclaimed == 0 && now.tv_sec - start.tv_sec < 10);
	reclaim_seen = st.reclaimed;
	__atomic_store_n(&reclaim_done, 1, __ATOMIC_RELEASE);
}

static void reclaim_drop_box(unsigned id, unsigned n)
{
	(void)id;
	(void)n;
	TM_BEGIN();
	tm_free(TM_LOAD(&reclaim_box));
	TM_STORE(&reclaim_box, NULL);
	TM_END();
}

START_TEST(snapshot_frees_reclaimed)
{
	setenv("POTM_SILO_EPOCH_MS", "2", 1);
	start_tm();
	reclaim_box = NULL;
	reclaim_seen = 0;
	reclaim_done = 0;
	test_run_threads(2, reclaim_while_running);
	ck_assert_msg(reclaim_seen > 0, "nothing came back from reclamation while the thread ran");
	test_run_threads(1, reclaim_drop_box);
	tm_shutdown();
	unsetenv("POTM_SILO_EPOCH_MS");
}
END_TEST

/* A block unlinked by a commit and freed outside any transaction while
 * a snapshot that began before the unlink runs: the snapshot still
 * reaches it through the old version of the link and reads it whole
 * (N7: the grace period waits for the snapshot; under ASan a read of
 * freed memory fails the test).  Thread 1 keeps committing and freeing
 * meanwhile, so that reclamation has every chance to run. */
typedef struct held_node {
	long val[4];
} held_node_t;
static held_node_t *held_link, *held_first, *held_seen;
static long held_sum;

static void free_outside_held(unsigned id, unsigned n)
{
	(void)n;
	if (id == 0) {
		TM_BEGIN_RO();
		(void)TM_LOAD(X);
		set_stage(1);
		wait_stage(2);
		held_node_t *q = TM_LOAD(&held_link);
		long sum = 0;
		if (q != NULL)
			for (int i = 0; i < 4; i++)
				sum += TM_LOAD(&q->val[i]);
		held_seen = q;
		held_sum = sum;
		TM_END();
		set_stage(3);
		return;
	}
	wait_stage(1);
	TM_BEGIN();      /* the unlink, while the snapshot runs */
	TM_STORE(&held_link, (held_node_t *)NULL);
	TM_END();
	tm_free(held_first);
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		TM_BEGIN();
		long *b = tm_malloc(sizeof *b);
		tm_free(b);
		TM_STORE(Y, TM_LOAD(Y) + 1);
		TM_END();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
	         50000000L);
	set_stage(2);
	wait_stage(3);
	tm_reclaim_barrier();
}

START_TEST(snapshot_reaches_block_freed_outside)
{
	setenv("POTM_SILO_EPOCH_MS", "2", 1);
	start_tm();
	stage = 0;
	held_first = malloc(sizeof *held_first);
	for (int i = 0; i < 4; i++)
		held_first->val[i] = 7;
	held_link = held_first;
	held_seen = NULL;
	held_sum = 0;
	test_run_threads(2, free_outside_held);
	ck_assert_ptr_eq(held_seen, held_first);   /* the state before the unlink */
	ck_assert_int_eq(held_sum, 28);
	ck_assert_ptr_null(held_link);
	tm_shutdown();
	unsetenv("POTM_SILO_EPOCH_MS");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("silo");
	TCase *tc = tcase_create("silo");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, anti_dependency);
	tcase_add_test(tc, write_skew);
	tcase_add_test(tc, epoch_period);
	tcase_add_test(tc, global_tid);
	tcase_add_test(tc, snapshot);
	tcase_add_test(tc, snapshot_boundary);
	tcase_add_test(tc, snapshot_frees_reclaimed);
	tcase_add_test(tc, snapshot_reaches_block_freed_outside);
	tcase_add_test_raise_signal(tc, snapshot_declared_late, SIGABRT);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
