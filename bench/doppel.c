/*
 * bench/doppel.c — the Doppel benchmarks of Narula's thesis, chapter 7,
 * on potm's Doppel layer (potm/doppel.h).
 *
 * Workloads (-w):
 *   incr1  -k keys; each transaction increments one key; -p percent of
 *          them hit the hot key, the rest a uniform key.  The hot key is
 *          key 0, or with -c N it moves every N ms (key 0, 1, 2, ...: the
 *          thesis's Figure 7.3, where the classifier has to follow it).
 *   incrz  each transaction increments one key drawn from Zipf(-a/100)
 *          over -k keys (key 0 the most popular).
 *   like   -k pages and -U users; a write transaction records that a user
 *          likes a page (put the user's last page, add 1 to the page's
 *          count), a read transaction reads a page's count and a user's
 *          last page; pages Zipf(-a/100), users uniform, -u percent
 *          writes.  Read and write latencies (mean, p99) are reported;
 *          a read stashed in a split phase waits for the joined phase
 *          (dp_exec_wait), as a client of the thesis's LIKE would.
 * Modes (-m):
 *   doppel  the classifier decides what to split (POTM_DP_* settings)
 *   occ     the same transactions through dp_exec, nothing split: the
 *           backend alone (tl2: OCC, gl: one lock)
 *   split   the hot records split by hand (incr1: key 0; incrz and like:
 *           the -s most popular keys), no classifier
 *   atomic  no transaction: an atomic increment (incr1, incrz)
 * With -i N (default 100 when -c is given) the report's counts also hold
 * "timeline": the transactions committed in each N ms interval.
 * Every run checks the final values: the keys' sum equals the committed
 * increments (and the hot keys hold at least their share), the pages' sum
 * the committed likes.
 */
#include "dp_bench.h"
#include "potm_bench.h"
#include "zipf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

POTM_BENCH_EXPORT int potm_bench_doppel(int argc, char **argv);

enum dpb_workload { W_INCR1, W_INCRZ, W_LIKE };
static const char *const dpb_workloads[] = { "incr1", "incrz", "like", NULL };
enum dpb_mode { M_DOPPEL, M_OCC, M_SPLIT, M_ATOMIC };
static const char *const dpb_modes[] = { "doppel", "occ", "split", "atomic", NULL };

/* bench_thread_t counters */
enum { C_WRITES, C_HOT, C_READS, C_RLAT_NS, C_WLAT_NS };

#define TL_MAX 100000     /* timeline intervals kept; later ones go to the last */
#define TL_CHECK 32       /* a worker reads the clock every TL_CHECK operations */

/* A worker's view of time for -c and -i, refreshed every TL_CHECK ops. */
typedef struct dpb_clock {
	uint64_t ops_left;      /* operations before the next clock read */
	uint64_t hot;           /* the current hot key */
	uint64_t epochs;        /* hot keys used so far: keys 0..epochs-1 */
	uint64_t *slot;         /* this interval's timeline counter */
} __attribute__((aligned(64))) dpb_clock_t;

typedef struct dpb {
	enum dpb_workload workload;
	enum dpb_mode mode;
	uint64_t keys, users, hot_pct, alpha_pct, write_pct;
	dp_rec_t *key;          /* incr: the keys; like: the pages */
	dp_rec_t *user;         /* like */
	bench_zipf_t zipf;      /* incrz, like: key popularity (alpha > 0) */
	bench_lat_t (*lat)[2];             /* like: per thread, read/write */
	uint64_t change_ms, interval_ms;   /* -c, -i; 0 = off */
	uint64_t t0_ns;                    /* the run's start, for -c and -i */
	uint64_t tl_len;                   /* intervals per worker */
	uint64_t *timeline;                /* [thread][tl_len] commits */
	dpb_clock_t *clock;                /* per thread, if -c or -i */
} dpb_t;

/* Refresh a worker's hot key and timeline interval from the clock; cheap
 * enough to leave the clock read out of all but one in TL_CHECK ops. */
static dpb_clock_t *dpb_tick(const dpb_t *b, const bench_thread_t *self)
{
	dpb_clock_t *ck = &b->clock[self->id];
	if (ck->ops_left-- > 0)
		return ck;
	ck->ops_left = TL_CHECK - 1;
	uint64_t ms = (bench_now_ns() - b->t0_ns) / 1000000u;
	if (b->change_ms) {
		uint64_t epoch = ms / b->change_ms;
		ck->hot = epoch % b->keys;
		if (epoch + 1 > ck->epochs)
			ck->epochs = epoch + 1 < b->keys ? epoch + 1 : b->keys;
	}
	if (b->interval_ms) {
		uint64_t i = ms / b->interval_ms;
		ck->slot = &b->timeline[self->id * b->tl_len + (i < b->tl_len ? i : b->tl_len - 1)];
	}
	return ck;
}

static double dpb_uniform(void *rng)
{
	return (double)(bench_rng_next(rng) >> 11) * 0x1p-53;
}

/* A key: Zipf(alpha) over the keys, or uniform when alpha is 0. */
static uint64_t dpb_pick_zipf(const dpb_t *b, bench_thread_t *self)
{
	if (b->alpha_pct == 0)
		return bench_rng_below(&self->rng, b->keys);
	return bench_zipf_draw(&b->zipf, dpb_uniform, &self->rng);
}

/* ---- transactions ---------------------------------------------------------- */

static void dpb_incr(void *rec)
{
	dp_add(rec, 1);
}

typedef struct like_args {
	dp_rec_t *user, *page;
	int64_t page_id;
	int64_t seen;
} like_args_t;

static void dpb_like_write(void *p)
{
	like_args_t *a = p;
	dp_put(a->user, a->page_id);
	dp_add(a->page, 1);
}

static void dpb_like_read(void *p)
{
	like_args_t *a = p;
	a->seen = dp_get(a->page) + dp_get(a->user);
}

static void dpb_op(void *shared, bench_thread_t *self)
{
	dpb_t *b = shared;
	dpb_clock_t *ck = b->clock ? dpb_tick(b, self) : NULL;
	if (b->workload == W_LIKE) {
		like_args_t a;
		a.user = &b->user[bench_rng_below(&self->rng, b->users)];
		a.page_id = (int64_t)dpb_pick_zipf(b, self);
		a.page = &b->key[a.page_id];
		bool write = bench_rng_below(&self->rng, 100) < b->write_pct;
		uint64_t t0 = bench_now_ns();
		int rc = dp_exec_wait(write ? dpb_like_write : dpb_like_read, &a);
		uint64_t ns = bench_now_ns() - t0;
		if (rc != DP_COMMITTED)
			return;
		self->count[write ? C_WRITES : C_READS]++;
		if (ck != NULL && ck->slot != NULL)
			++*ck->slot;
		self->count[write ? C_WLAT_NS : C_RLAT_NS] += ns;
		bench_lat_add(&b->lat[self->id][write], ns);
		return;
	}
	uint64_t hot = ck != NULL ? ck->hot : 0;
	uint64_t k = b->workload == W_INCR1
		? (bench_rng_below(&self->rng, 100) < b->hot_pct
		   ? hot : bench_rng_below(&self->rng, b->keys))
		: dpb_pick_zipf(b, self);
	if (b->mode == M_ATOMIC)
		__atomic_fetch_add(&b->key[k].value, 1, __ATOMIC_RELAXED);
	else if (dp_exec(dpb_incr, &b->key[k]) != DP_COMMITTED)
		return;   /* never: increments are not stashed */
	self->count[C_WRITES]++;
	self->count[C_HOT] += k == hot;
	if (ck != NULL && ck->slot != NULL)
		++*ck->slot;
}

/* ---- the run ----------------------------------------------------------------- */

/* The p99 latency of one kind (0 read, 1 write) over all workers. */
static uint64_t dpb_p99(const dpb_t *b, unsigned threads, int kind)
{
	bench_lat_t all = { { 0 } };
	for (unsigned t = 0; t < threads; t++)
		bench_lat_merge(&all, &b->lat[t][kind]);
	return bench_lat_percentile(&all, 99);
}

int potm_bench_doppel(int argc, char **argv)
{
	bench_common_t c = { .name = "doppel" };
	unsigned workload = W_INCR1, mode = M_DOPPEL;
	uint64_t keys = 1000000, users = 100000, hot_pct = 100, alpha_pct = 140,
	         write_pct = 50, nsplit = 1, change_ms = 0, interval_ms = 0;
	bool alpha_given = false, interval_given = false;
	const bench_option_t opts[] = {
		{ 'w', BENCH_OPT_CHOICE, "workload", "incr1, incrz or like (default incr1)",
		  0, 0, dpb_workloads, &workload, NULL },
		{ 'm', BENCH_OPT_CHOICE, "mode",
		  "doppel, occ, split or atomic (default doppel)", 0, 0, dpb_modes, &mode, NULL },
		{ 'k', BENCH_OPT_UINT, "key count", "keys, or pages for like (default 1000000)",
		  1, (uint64_t)1 << 26, NULL, &keys, NULL },
		{ 'U', BENCH_OPT_UINT, "user count", "like: users (default 100000)",
		  1, (uint64_t)1 << 26, NULL, &users, NULL },
		{ 'p', BENCH_OPT_UINT, "hot percentage",
		  "incr1: percent of transactions on the hot key (default 100)", 0, 100,
		  NULL, &hot_pct, NULL },
		{ 'a', BENCH_OPT_UINT, "Zipf alpha x 100",
		  "incrz, like: Zipf parameter times 100 (default 140)", 0, 400, NULL,
		  &alpha_pct, &alpha_given },
		{ 'u', BENCH_OPT_UINT, "write percentage",
		  "like: percent of write transactions (default 50)", 0, 100, NULL,
		  &write_pct, NULL },
		{ 's', BENCH_OPT_UINT, "split count",
		  "split mode, incrz and like: the most popular keys split by hand "
		  "(default 1)", 1, 256, NULL, &nsplit, NULL },
		{ 'c', BENCH_OPT_UINT, "hot key period",
		  "incr1: the hot key moves every N ms (default 0: never)", 0, 86400000,
		  NULL, &change_ms, NULL },
		{ 'i', BENCH_OPT_UINT, "timeline interval",
		  "count commits per N ms interval, reported as counts.timeline "
		  "(default 0: off; 100 with -c)", 0, 86400000, NULL, &interval_ms,
		  &interval_given },
	};
	int rc = bench_parse(&c, "doppel: hot-record workloads of the Doppel thesis "
	                     "(INCR1, INCRZ, LIKE) on the split-slice layer",
	                     opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	if (mode == M_ATOMIC && workload == W_LIKE)
		return bench_usage_error(&c, "-m atomic runs incr1 and incrz only");
	if (workload == W_INCR1 && alpha_given)
		return bench_usage_error(&c, "-a is for incrz and like (incr1 uses -p)");
	if (change_ms && workload != W_INCR1)
		return bench_usage_error(&c, "-c is for incr1");
	if (change_ms && mode == M_SPLIT)
		return bench_usage_error(&c, "-c with -m split: a hand split cannot follow "
		                         "the moving hot key (use -m doppel)");
	if (change_ms && !interval_given)
		interval_ms = 100;
	if (mode != M_DOPPEL)
		setenv("POTM_DP_CLASSIFY_MS", "0", 1);   /* nothing splits by itself */

	dpb_t b = {
		.workload = workload, .mode = mode, .keys = keys, .users = users,
		.hot_pct = hot_pct, .alpha_pct = workload == W_INCR1 ? 0 : alpha_pct,
		.write_pct = write_pct, .change_ms = change_ms, .interval_ms = interval_ms,
	};
	if (change_ms || interval_ms) {
		uint64_t span = c.ops_per_thread ? TL_MAX * interval_ms : c.duration_ms;
		b.tl_len = interval_ms ? span / interval_ms + 2 : 1;
		if (b.tl_len > TL_MAX)
			b.tl_len = TL_MAX;
		b.timeline = calloc(c.threads * b.tl_len, sizeof *b.timeline);
		b.clock = calloc(c.threads, sizeof *b.clock);
		if (b.timeline == NULL || b.clock == NULL) {
			fprintf(stderr, "doppel: out of memory for the timeline\n");
			rc = BENCH_EXIT_FAILED;
			goto out;
		}
	}
	b.key = calloc(keys, sizeof *b.key);
	b.user = workload == W_LIKE ? calloc(users, sizeof *b.user) : NULL;
	b.lat = workload == W_LIKE ? calloc(c.threads, sizeof *b.lat) : NULL;
	if (b.key == NULL || (workload == W_LIKE && (b.user == NULL || b.lat == NULL))) {
		fprintf(stderr, "doppel: out of memory for %" PRIu64 " keys\n", keys);
		rc = BENCH_EXIT_FAILED;
		goto out;
	}
	if (b.alpha_pct > 0)
		bench_zipf_init(&b.zipf, keys, (double)b.alpha_pct / 100.0);
	for (uint64_t i = 0; i < keys; i++)
		dp_rec_init_int(&b.key[i], 0);
	for (uint64_t i = 0; b.user && i < users; i++)
		dp_rec_init_int(&b.user[i], -1);

	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK)
		goto out;
	if (mode != M_ATOMIC && dp_init() != 0) {
		fprintf(stderr, "doppel: dp_init: %s\n", tm_last_error());
		bench_tm_stop();
		rc = BENCH_EXIT_FAILED;
		goto out;
	}
	if (mode == M_SPLIT) {
		uint64_t n = workload == W_INCR1 ? 1 : nsplit < keys ? nsplit : keys;
		for (uint64_t i = 0; i < n; i++)
			if (dp_split(&b.key[i], DP_ADD) != 0) {
				fprintf(stderr, "doppel: dp_split: %s\n", tm_last_error());
				rc = BENCH_EXIT_USAGE;
				break;
			}
		if (rc == BENCH_EXIT_OK)
			dp_wait_phases(1);   /* applied before the run starts */
	}
	tm_stats_reset();
	b.t0_ns = bench_now_ns();
	bench_run_result_t run = { 0 };
	if (rc == BENCH_EXIT_OK)
		rc = bench_run_with(&c, dpb_op, mode == M_ATOMIC ? NULL : dp_bench_enter,
		                    mode == M_ATOMIC ? NULL : dp_bench_leave, &b, &run);
	tm_stats_t stats;
	tm_stats(&stats);
	dp_stats_t ds = { 0 };
	if (mode != M_ATOMIC) {
		dp_stats(&ds);
		dp_shutdown();   /* reconciled and joined: the records hold everything */
	}
	bench_tm_stop();
	if (rc != BENCH_EXIT_OK)
		goto out;

	bench_verdict_t verdict = { .failed = false };
	int64_t sum = 0;
	for (uint64_t i = 0; i < keys; i++)
		sum += b.key[i].value;
	if (sum != (int64_t)run.count[C_WRITES])
		bench_fail(&verdict, "the %s sum to %" PRId64 ", but %" PRIu64 " %s committed",
		           workload == W_LIKE ? "pages' likes" : "keys", sum,
		           run.count[C_WRITES], workload == W_LIKE ? "likes" : "increments");
	else if (workload == W_INCR1 && !change_ms && b.key[0].value != (int64_t)run.count[C_HOT])
		bench_fail(&verdict, "the hot key holds %" PRId64 ", but %" PRIu64 " of its "
		           "increments committed", b.key[0].value, run.count[C_HOT]);
	if (change_ms) {   /* the hot keys got their hot increments, and maybe more */
		uint64_t epochs = 0;
		int64_t hot_sum = 0;
		for (uint64_t t = 0; t < c.threads; t++)
			if (b.clock[t].epochs > epochs)
				epochs = b.clock[t].epochs;
		for (uint64_t i = 0; i < (epochs ? epochs : 1); i++)
			hot_sum += b.key[i].value;
		if (hot_sum < (int64_t)run.count[C_HOT])
			bench_fail(&verdict, "the %" PRIu64 " hot keys hold %" PRId64 ", but %"
			           PRIu64 " hot increments committed", epochs, hot_sum,
			           run.count[C_HOT]);
	}
	uint64_t *timeline = NULL;   /* per interval, all threads */
	if (interval_ms) {
		timeline = calloc(b.tl_len, sizeof *timeline);
		uint64_t total = 0;
		for (uint64_t i = 0; timeline != NULL && i < b.tl_len; i++) {
			for (uint64_t t = 0; t < c.threads; t++)
				timeline[i] += b.timeline[t * b.tl_len + i];
			total += timeline[i];
		}
		if (timeline != NULL && total != run.count[C_WRITES] + run.count[C_READS])
			bench_fail(&verdict, "the timeline counts %" PRIu64 " transactions, not %"
			           PRIu64, total, run.count[C_WRITES] + run.count[C_READS]);
	}
	uint64_t tl_shown = b.tl_len;   /* without the empty tail */
	while (timeline != NULL && tl_shown > 0 && timeline[tl_shown - 1] == 0)
		tl_shown--;

	uint64_t rp99 = 0, wp99 = 0;
	if (workload == W_LIKE) {
		rp99 = dpb_p99(&b, (unsigned)c.threads, 0);
		wp99 = dpb_p99(&b, (unsigned)c.threads, 1);
	}
	uint64_t reads = run.count[C_READS], writes = run.count[C_WRITES];
	const bench_kv_t params[] = {
		BENCH_STR("workload", dpb_workloads[workload]),
		BENCH_STR("mode", dpb_modes[mode]),
		BENCH_U64("keys", keys),
		workload == W_LIKE ? BENCH_U64("users", users) : BENCH_NULL("users"),
		workload == W_INCR1 ? BENCH_U64("hot_pct", hot_pct) : BENCH_NULL("hot_pct"),
		workload == W_INCR1 ? BENCH_NULL("alpha_x100") : BENCH_U64("alpha_x100", alpha_pct),
		workload == W_LIKE ? BENCH_U64("write_pct", write_pct) : BENCH_NULL("write_pct"),
		mode == M_SPLIT ? BENCH_U64("split_by_hand", workload == W_INCR1 ? 1 : nsplit)
		                : BENCH_NULL("split_by_hand"),
		change_ms ? BENCH_U64("hot_change_ms", change_ms) : BENCH_NULL("hot_change_ms"),
		interval_ms ? BENCH_U64("interval_ms", interval_ms) : BENCH_NULL("interval_ms"),
	};
	const bench_kv_t counts[] = {
		BENCH_U64("writes", writes),
		BENCH_U64("hot_writes", run.count[C_HOT]),
		BENCH_U64("reads", reads),
		BENCH_U64("read_mean_ns", reads ? run.count[C_RLAT_NS] / reads : 0),
		BENCH_U64("read_p99_ns", rp99),
		BENCH_U64("write_mean_ns", workload == W_LIKE && writes
		                           ? run.count[C_WLAT_NS] / writes : 0),
		BENCH_U64("write_p99_ns", wp99),
		DP_BENCH_COUNTS(ds),
		timeline ? BENCH_U64S("timeline", timeline, tl_shown) : BENCH_NULL("timeline"),
	};
	rc = BENCH_FINISH(&c, params, counts, &run, &stats, &verdict);
	free(timeline);
out:
	free(b.key);
	free(b.user);
	free(b.lat);
	free(b.timeline);
	free(b.clock);
	return rc;
}

#ifdef POTM_DOPPEL_MAIN
int main(int argc, char **argv)
{
	return potm_bench_doppel(argc, argv);
}
#endif

BENCH_REGISTER("doppel", potm_bench_doppel,
               "hot-record workloads of the Doppel thesis on the split-slice layer");
