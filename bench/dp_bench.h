/*
 * bench/dp_bench.h — what the Doppel benchmarks (doppel.c, rubis.c) share:
 * the worker hooks that make each harness worker a Doppel worker, and the
 * layer's statistics as report counters.
 */
#ifndef POTM_DP_BENCH_H
#define POTM_DP_BENCH_H

#include "harness.h"

#include <potm/doppel.h>

#include <stdio.h>
#include <stdlib.h>

/* bench_run_with hooks: dp_thread_enter after the TM registration, and
 * dp_thread_exit (which runs what is still stashed) before leaving it. */
static inline void dp_bench_enter(void *shared, bench_thread_t *self)
{
	(void)shared;
	(void)self;
	if (dp_thread_enter() != 0) {
		fprintf(stderr, "dp_thread_enter: %s\n", tm_last_error());
		abort();
	}
}

static inline void dp_bench_leave(void *shared, bench_thread_t *self)
{
	(void)shared;
	(void)self;
	dp_thread_exit();
}

/* The dp_stats_t fields every Doppel benchmark reports, in a counts[]. */
#define DP_BENCH_COUNTS(ds)                                    \
	BENCH_U64("split_phases", (ds).split_phases),          \
	BENCH_U64("split_txs", (ds).split_txs),                \
	BENCH_U64("stashed", (ds).stashed),                    \
	BENCH_U64("splits", (ds).splits),                      \
	BENCH_U64("joins", (ds).joins),                        \
	BENCH_U64("split_records", (ds).split_records),        \
	BENCH_U64("classified", (ds).classified)

#endif /* POTM_DP_BENCH_H */
