/*
 * bench/fasttx.c — the cost of one transaction by size and kind, on one
 * thread (Figure 3.6 of the Pot thesis).
 *
 * One thread, an array of counters, transactions of 0..64 accesses:
 *   r   n reads
 *   w   n writes
 *   rw  n/2 counters incremented: n/2 reads and n/2 writes (1:1)
 * With the pot backend and one thread every transaction begins in its turn,
 * so under POTM_MODE=pot or pot-fast it runs in fast mode: plain reads,
 * writes in place with an undo log, no validation.  Built for pot, tl2 and
 * seq (bench/pot.cmake), the runs give, point by point, the speedup of a
 * fast transaction over a TL2 transaction and its distance from
 * uninstrumented code (seq inlines plain loads and stores).  Built for rtm
 * and pot-rtm too: -a 0 is a hardware transaction's entry and exit alone
 * (rtm), or pot-rtm's software fast mode's.
 *
 * Each point (kind, accesses) is one run with the harness's JSON line;
 * without -k and -a the program sweeps every kind over 0, 1, 2, 4, ... 64
 * accesses (odd counts skipped for rw).  Each run verifies the counters
 * against the transactions it committed.
 */
#include "harness.h"
#include "potm_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FASTTX_MAX 64

POTM_BENCH_EXPORT int potm_bench_fasttx(int argc, char **argv);

enum fasttx_kind { FT_R, FT_W, FT_RW, FT_ALL };
static const char *const fasttx_kinds[] = { "r", "w", "rw", "all", NULL };

enum { FT_TXS };   /* bench_thread_t counter: transactions run */

typedef struct fasttx {
	/* The counters, 8 bytes apart as in the thesis: with the default
	 * stripe size every counter has a stripe of its own. */
	long counters[FASTTX_MAX] __attribute__((aligned(64)));
	enum fasttx_kind kind;
	unsigned accesses;
	volatile long sink;
} fasttx_t;

/* One transaction of each kind.  noinline and parameters only: nothing of
 * the caller lives across TM_BEGIN's setjmp. */
static __attribute__((noinline)) void fasttx_read(fasttx_t *f, unsigned n)
{
	TM_BEGIN();
		long sum = 0;
		for (unsigned i = 0; i < n; i++)
			sum += TM_LOAD(&f->counters[i]);
		f->sink = sum;   /* private: keeps the loads from being optimized away */
	TM_END();
}

static __attribute__((noinline)) void fasttx_write(fasttx_t *f, unsigned n, long v)
{
	TM_BEGIN();
		for (unsigned i = 0; i < n; i++)
			TM_STORE(&f->counters[i], v);
	TM_END();
}

static __attribute__((noinline)) void fasttx_incr(fasttx_t *f, unsigned n)
{
	TM_BEGIN();
		for (unsigned i = 0; i < n / 2; i++)
			TM_STORE(&f->counters[i], TM_LOAD(&f->counters[i]) + 1);
	TM_END();
}

static void fasttx_op(void *shared, bench_thread_t *self)
{
	fasttx_t *f = shared;
	uint64_t k = ++self->count[FT_TXS];
	switch (f->kind) {
	case FT_R: fasttx_read(f, f->accesses); break;
	case FT_W: fasttx_write(f, f->accesses, (long)k); break;
	default: fasttx_incr(f, f->accesses); break;
	}
}

/* One point: a whole run with its JSON line. */
static int fasttx_point(const bench_common_t *c, enum fasttx_kind kind, unsigned n)
{
	int rc = bench_tm_start(c);
	if (rc != BENCH_EXIT_OK)
		return rc;
	fasttx_t *f = aligned_alloc(64, sizeof *f);
	if (f == NULL) {
		bench_tm_stop();
		fprintf(stderr, "fasttx: out of memory\n");
		return BENCH_EXIT_FAILED;
	}
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->accesses = n;
	char mode[sizeof tm_current_config()->mode] = "";
	if (strcmp(tm_backend_name(), "pot") == 0)
		strcpy(mode, tm_current_config()->mode);
	tm_stats_reset();

	bench_run_result_t run;
	rc = bench_run(c, fasttx_op, f, &run);
	tm_stats_t stats;
	tm_stats(&stats);
	bench_tm_stop();   /* every thread has left: the counters are ours */
	if (rc != BENCH_EXIT_OK) {
		free(f);
		return rc;
	}

	/* What the committed transactions must have left behind. */
	bench_verdict_t verdict = { .failed = false };
	uint64_t txs = run.count[FT_TXS];
	for (unsigned i = 0; i < FASTTX_MAX; i++) {
		long want = 0;
		if (kind == FT_W && i < n)
			want = (long)txs;           /* the last transaction's value */
		else if (kind == FT_RW && i < n / 2)
			want = (long)txs;           /* one increment per transaction */
		if (f->counters[i] != want) {
			bench_fail(&verdict, "counter %u is %ld, expected %ld", i,
			           f->counters[i], want);
			break;
		}
	}
	if (!verdict.failed && stats.commits != txs)
		bench_fail(&verdict, "%" PRIu64 " commits counted for %" PRIu64
		           " transactions", stats.commits, txs);

	const bench_kv_t params[] = {
		BENCH_STR("kind", fasttx_kinds[kind]),
		BENCH_U64("accesses", n),
		mode[0] ? BENCH_STR("mode", mode) : BENCH_NULL("mode"),
	};
	const bench_kv_t counts[] = {
		BENCH_U64("transactions", txs),
	};
	rc = BENCH_FINISH(c, params, counts, &run, &stats, &verdict);
	free(f);
	return rc;
}

int potm_bench_fasttx(int argc, char **argv)
{
	bench_common_t c = { .name = "fasttx" };
	unsigned kind = FT_ALL;
	uint64_t accesses = 0;
	bool accesses_given = false;
	const bench_option_t opts[] = {
		{ 'k', BENCH_OPT_CHOICE, "kind",
		  "r (reads), w (writes), rw (increments: 1 read + 1 write each) or "
		  "all (default all)", 0, 0, fasttx_kinds, &kind, NULL },
		{ 'a', BENCH_OPT_UINT, "access count",
		  "accesses per transaction (default: sweep 0, 1, 2, 4, ... 64)",
		  0, FASTTX_MAX, NULL, &accesses, &accesses_given },
	};
	int rc = bench_parse(&c, "fasttx: one thread, transactions of 0..64 "
	                     "accesses (reads, writes, increments); one run per "
	                     "point", opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	if (c.threads != 1)
		return bench_usage_error(&c, "-t %" PRIu64 ": fasttx measures one "
		                         "thread; use -t 1", c.threads);
	if (accesses_given && kind == FT_RW && accesses % 2)
		return bench_usage_error(&c, "-a %" PRIu64 ": rw needs an even access "
		                         "count (n/2 reads, n/2 writes)", accesses);

	static const unsigned sweep[] = { 0, 1, 2, 4, 8, 16, 32, 64 };
	for (unsigned k = FT_R; k <= FT_RW; k++) {
		if (kind != FT_ALL && kind != k)
			continue;
		for (unsigned i = 0; i < sizeof sweep / sizeof *sweep; i++) {
			unsigned n = accesses_given ? (unsigned)accesses : sweep[i];
			if (k == FT_RW && n % 2)
				continue;
			rc = fasttx_point(&c, (enum fasttx_kind)k, n);
			if (rc != BENCH_EXIT_OK)
				return rc;
			if (accesses_given)
				break;
		}
	}
	return BENCH_EXIT_OK;
}

BENCH_REGISTER("fasttx", potm_bench_fasttx,
               "fasttx: cost of one transaction by size and kind, one thread");

#ifdef POTM_FASTTX_MAIN
/* The fasttx-<backend> executables. */
int main(int argc, char **argv)
{
	return potm_bench_fasttx(argc, argv);
}
#endif
