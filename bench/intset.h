/*
 * bench/intset.h — the integer-set structures behind the intset benchmark.
 *
 * Every structure lives entirely in TM memory and is reached only through
 * TM_LOAD/TM_STORE.  Its operations are transactional code: the driver
 * (intset.c) calls them inside TM_BEGIN()/TM_END(), so they may be
 * re-executed from the start at any access and must not keep state outside
 * the transaction (randomness they need is drawn by the caller beforehand).
 * Keys are in [0, range), so LONG_MIN and LONG_MAX are free for sentinels.
 */
#ifndef POTM_BENCH_INTSET_H
#define POTM_BENCH_INTSET_H

#include "harness.h"

/* Built on GCC's TM for comparison (bench/itm.h), or on potm. */
#ifdef POTM_BENCH_ITM
#include "itm.h"
#else
#define POTM_BENCH_TX_FN
/* A local assigned in a TM_BEGIN()/TM_END() block and read after it: an
 * aborted attempt resumes at TM_BEGIN() through longjmp. */
#define POTM_BENCH_TX_LOCAL volatile
#endif

#include <stdbool.h>
#include <stdint.h>

typedef struct intset_config {
	uint64_t initial;    /* keys inserted before the measurement */
	uint64_t range;      /* keys are drawn from [0, range) */
	uint64_t buckets;    /* hash set: number of buckets */
} intset_config_t;

typedef struct intset_ops {
	const char *name;
	/* Allocate and initialise an empty set (inside a transaction). */
	void *(*create)(const intset_config_t *cfg);
	bool (*contains)(void *set, long key);
	/* rnd: random bits drawn outside the transaction (skip-list levels). */
	bool (*insert)(void *set, long key, uint64_t rnd);
	bool (*remove)(void *set, long key);
	/* Check the structure's invariants and count its keys (inside one
	 * transaction: a consistent snapshot).  Returns false with the reason
	 * in *v. */
	bool (*verify)(void *set, uint64_t *size, bench_verdict_t *v);
	/* tm_free every node and the set itself (inside a transaction). */
	void (*destroy)(void *set);
} intset_ops_t;

extern const intset_ops_t intset_ll_ops;   /* sorted linked list */
extern const intset_ops_t intset_rb_ops;   /* red-black tree */
extern const intset_ops_t intset_hs_ops;   /* hash set of sorted lists */
extern const intset_ops_t intset_sl_ops;   /* skip list */

/* tm_malloc, or report and abort: a benchmark cannot go on without memory. */
POTM_BENCH_TX_FN void *intset_alloc(size_t size);

#endif /* POTM_BENCH_INTSET_H */
