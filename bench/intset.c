/*
 * bench/intset.c — the integer-set benchmark.
 *
 * A set of integer keys (a sorted linked list, a red-black tree, a hash set
 * or a skip list, chosen with -s) is filled with -i random keys from
 * [0, -r), then every worker runs operations on random keys: -u percent
 * updates, half insertions and half removals, the rest lookups; one
 * operation is one transaction.  With the range twice the initial size,
 * insertions and removals succeed about equally often and the size stays
 * put.  Afterwards the structure's invariants are checked and its size must
 * equal the initial size plus the successful insertions minus the
 * successful removals.
 */
#include "intset.h"
#include "potm_bench.h"

#include <stdio.h>
#include <stdlib.h>

/* Per-thread counters (bench_thread_t.count). */
enum {
	INTSET_INSERTED,    /* successful insertions */
	INTSET_REMOVED,     /* successful removals */
	INTSET_LOOKUPS,     /* lookups */
	INTSET_FOUND,       /* ... that found their key */
	INTSET_UPDATES,     /* insertions and removals attempted */
};

static const char *const intset_structures[] = { "ll", "rb", "hs", "sl", NULL };
static const intset_ops_t *const intset_structure_ops[] = {
	&intset_ll_ops, &intset_rb_ops, &intset_hs_ops, &intset_sl_ops,
};

typedef struct intset_shared {
	const intset_ops_t *ops;
	void *set;
	uint64_t range;
	uint64_t update_pct;
} intset_shared_t;

void *intset_alloc(size_t size)
{
	void *p = tm_malloc(size);
	if (p == NULL) {
		fprintf(stderr, "intset: out of memory (tm_malloc of %zu bytes)\n", size);
		abort();
	}
	return p;
}

/* ---- one transaction per call ------------------------------------------------
 * The results cross TM_END() in POTM_BENCH_TX_LOCAL (volatile) locals. */

static bool intset_tx_contains(const intset_ops_t *ops, void *set, long key)
{
	POTM_BENCH_TX_LOCAL bool found = false;
	TM_BEGIN();
	found = ops->contains(set, key);
	TM_END();
	return found;
}

static bool intset_tx_insert(const intset_ops_t *ops, void *set, long key, uint64_t rnd)
{
	POTM_BENCH_TX_LOCAL bool inserted = false;
	TM_BEGIN();
	inserted = ops->insert(set, key, rnd);
	TM_END();
	return inserted;
}

static bool intset_tx_remove(const intset_ops_t *ops, void *set, long key)
{
	POTM_BENCH_TX_LOCAL bool removed = false;
	TM_BEGIN();
	removed = ops->remove(set, key);
	TM_END();
	return removed;
}

static void *intset_tx_create(const intset_ops_t *ops, const intset_config_t *cfg)
{
	void *POTM_BENCH_TX_LOCAL set = NULL;
	TM_BEGIN();
	set = ops->create(cfg);
	TM_END();
	return set;
}

static void intset_tx_verify(const intset_ops_t *ops, void *set, uint64_t *size,
                             bench_verdict_t *v)
{
	TM_BEGIN();
	/* A retried attempt starts from a clean verdict. */
	v->failed = false;
	v->msg[0] = '\0';
	*size = 0;
	ops->verify(set, size, v);
	TM_END();
}

static void intset_tx_destroy(const intset_ops_t *ops, void *set)
{
	TM_BEGIN();
	ops->destroy(set);
	TM_END();
}

/* ---- the workload -------------------------------------------------------------- */

static void intset_op(void *shared, bench_thread_t *self)
{
	const intset_shared_t *s = shared;
	uint64_t pct = bench_rng_below(&self->rng, 100);
	long key = (long)bench_rng_below(&self->rng, s->range);
	if (pct < s->update_pct) {
		uint64_t rnd = bench_rng_next(&self->rng);
		self->count[INTSET_UPDATES]++;
		/* The top bit picks insert or remove; the rest serve the structure
		 * (skip-list levels use the low bits). */
		if (rnd >> 63) {
			if (intset_tx_insert(s->ops, s->set, key, rnd))
				self->count[INTSET_INSERTED]++;
		} else {
			if (intset_tx_remove(s->ops, s->set, key))
				self->count[INTSET_REMOVED]++;
		}
	} else {
		self->count[INTSET_LOOKUPS]++;
		if (intset_tx_contains(s->ops, s->set, key))
			self->count[INTSET_FOUND]++;
	}
}

/* Insert distinct random keys until the set holds cfg->initial of them;
 * each insertion is a transaction of thread 0. */
static void intset_fill(const intset_ops_t *ops, void *set, const intset_config_t *cfg,
                        uint64_t seed)
{
	bench_rng_t rng;
	bench_rng_seed(&rng, seed, 0);
	for (uint64_t size = 0; size < cfg->initial;) {
		long key = (long)bench_rng_below(&rng, cfg->range);
		if (intset_tx_insert(ops, set, key, bench_rng_next(&rng)))
			size++;
	}
}

/* ---- the benchmark ---------------------------------------------------------------- */

int potm_bench_intset(int argc, char **argv)
{
	bench_common_t c = { .name = "intset" };
	unsigned structure = 1;   /* rb */
	uint64_t initial = 4096, range = 0, update_pct = 20, buckets = 0;
	bool range_given = false, buckets_given = false;
	const bench_option_t opts[] = {
		{ 's', BENCH_OPT_CHOICE, "structure",
		  "ll sorted list, rb red-black tree, hs hash set, sl skip list "
		  "(default rb)", 0, 0, intset_structures, &structure, NULL },
		{ 'i', BENCH_OPT_UINT, "initial size",
		  "keys inserted before the run (default 4096)", 0, (uint64_t)1 << 28,
		  NULL, &initial, NULL },
		{ 'r', BENCH_OPT_UINT, "key range",
		  "keys are drawn from [0, N) (default 2 x initial size)", 1,
		  (uint64_t)1 << 62, NULL, &range, &range_given },
		{ 'u', BENCH_OPT_UINT, "update percentage",
		  "percent of operations that update, half inserts and half removes "
		  "(default 20)", 0, 100, NULL, &update_pct, NULL },
		{ 'b', BENCH_OPT_UINT, "bucket count",
		  "buckets of the hash set, -s hs only (default: the initial size)",
		  1, (uint64_t)1 << 24, NULL, &buckets, &buckets_given },
	};
	int rc = bench_parse(&c, "integer set: lookups, insertions and removals of "
	                     "random keys, one transaction each",
	                     opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	if (!range_given)
		range = initial > 0 ? 2 * initial : 1;
	if (initial > range)
		return bench_usage_error(&c, "-i %lu: initial size must not exceed the key "
		                         "range (-r %lu): the keys are distinct",
		                         (unsigned long)initial, (unsigned long)range);
	const intset_ops_t *ops = intset_structure_ops[structure];
	if (buckets_given && ops != &intset_hs_ops)
		return bench_usage_error(&c, "-b applies to the hash set only (-s hs), "
		                         "not to -s %s", ops->name);
	if (!buckets_given)
		buckets = initial > 0 ? initial : 1;
	intset_config_t cfg = { .initial = initial, .range = range, .buckets = buckets };

	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK)
		return rc;

	/* Set-up as thread 0, then unregister: worker 0 takes that id. */
	rc = bench_enter_main(&c);
	if (rc != BENCH_EXIT_OK) {
		bench_tm_stop();
		return rc;
	}
	void *set = intset_tx_create(ops, &cfg);
	intset_fill(ops, set, &cfg, c.seed);
	tm_thread_exit();
	tm_stats_reset();

	intset_shared_t shared = { .ops = ops, .set = set, .range = range,
	                           .update_pct = update_pct };
	bench_run_result_t run;
	rc = bench_run(&c, intset_op, &shared, &run);
	tm_stats_t stats;
	tm_stats(&stats);

	bench_verdict_t verdict = { .failed = false };
	uint64_t size = 0;
	int enter_rc = bench_enter_main(&c);
	if (enter_rc != BENCH_EXIT_OK) {
		bench_tm_stop();
		return enter_rc;
	}
	intset_tx_verify(ops, set, &size, &verdict);
	uint64_t expected = initial + run.count[INTSET_INSERTED] - run.count[INTSET_REMOVED];
	if (!verdict.failed && size != expected)
		bench_fail(&verdict, "size %lu, expected %lu (initial %lu + %lu inserted - "
		           "%lu removed)", (unsigned long)size, (unsigned long)expected,
		           (unsigned long)initial, (unsigned long)run.count[INTSET_INSERTED],
		           (unsigned long)run.count[INTSET_REMOVED]);
	/* A structure that failed its check may be cyclic or dangling: leave it
	 * rather than walk it again. */
	if (!verdict.failed)
		intset_tx_destroy(ops, set);
	tm_thread_exit();
	bench_tm_stop();
	if (rc != BENCH_EXIT_OK)
		return rc;

	const bench_kv_t params[] = {
		BENCH_STR("structure", ops->name),
		BENCH_U64("initial", initial),
		BENCH_U64("range", range),
		BENCH_U64("update", update_pct),
		ops == &intset_hs_ops ? BENCH_U64("buckets", buckets) : BENCH_NULL("buckets"),
	};
	const bench_kv_t counts[] = {
		BENCH_U64("inserted", run.count[INTSET_INSERTED]),
		BENCH_U64("removed", run.count[INTSET_REMOVED]),
		BENCH_U64("updates", run.count[INTSET_UPDATES]),
		BENCH_U64("lookups", run.count[INTSET_LOOKUPS]),
		BENCH_U64("found", run.count[INTSET_FOUND]),
		BENCH_U64("final_size", size),
	};
	return BENCH_FINISH(&c, params, counts, &run, &stats, &verdict);
}

BENCH_REGISTER("intset", potm_bench_intset,
               "integer set (ll, rb, hs, sl): lookups, insertions, removals");
