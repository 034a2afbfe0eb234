/*
 * bench/lsd.c — the microbenchmarks of Lazy State Determination (Vale's
 * thesis, section 4.4.2, Figure 4.8), each transaction written with LSD
 * (<potm/lsd.h>: futures, conditions, lazy writes) or with standard reads
 * and writes (-m lsd|std), on any backend.
 *
 * Every transaction does its private work with standard accesses in both
 * modes: -p words of its thread's own block, each incremented, and -r
 * reads of a shared table nobody writes (the rest of a transaction's work,
 * which keeps it running between its read of the shared word and its
 * commit: the window in which another commit invalidates a standard
 * read).  LSD is used where it pays, on the shared word only.
 *
 * -w hotkey (Figure 4.8a/d): -x percent of the transactions first
 *     decrement one hot counter if it stays >= 0 (the condition "counter
 *     >= 1"), the others touch only their private words.  When the counter
 *     runs out the worker refills it, by -i, in a transaction of its own.
 *     Standard OCC aborts whenever another decrement commits between a
 *     transaction's read of the counter and its commit; LSD-aware OCC
 *     only when the condition's answer changed.
 * -w assert (Figure 4.8b/c/e/f): every transaction first asserts a
 *     condition over a shared word (level >= 1).  With -c 0 nobody writes
 *     the shared word: no contention, which measures what the LSD calls
 *     cost.  With -c > 0 every transaction also decrements the level where
 *     the condition holds and restores it where it does not (the thesis's
 *     workload), the level starting at 200 / c - 1: then c percent of the
 *     transactions, those that take it to 0 and those that restore it,
 *     invalidate the others' condition.
 *
 * Verified: the counter's arithmetic is exact (final = initial + refills
 * x -i - decrements, never negative; for assert the same with restores of
 * the whole level), and the private words add up to -p per transaction.
 */
#include "harness.h"
#include "potm_bench.h"

#include <potm/lsd.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

POTM_BENCH_EXPORT int potm_bench_lsd(int argc, char **argv);

enum { W_HOTKEY, W_ASSERT };
enum { M_LSD, M_STD };
static const char *const lsd_workloads[] = { "hotkey", "assert", NULL };
static const char *const lsd_modes[] = { "lsd", "std", NULL };

enum {
	C_TX,          /* workload transactions */
	C_TAKEN,       /* ... whose condition held (decrement) */
	C_REFILLS,     /* refills (hotkey) or restores (assert) */
	C_PRIVATE,     /* hotkey: transactions that left the counter alone (-x) */
};

#define LSD_PRIVATE_MAX 64
/* A thread's private words: a block of its own, whole cache lines. */
#define LSD_PRIVATE_STRIDE LSD_PRIVATE_MAX
/* The shared table -r reads (64 KB: in cache, as a hot working set is). */
#define LSD_TABLE_WORDS 8192
#define LSD_READS_MAX 4096

typedef struct lsd_bench {
	int64_t *hot;          /* the shared word, a cache line of its own */
	int64_t *priv;         /* threads x LSD_PRIVATE_STRIDE words */
	unsigned workload, mode;
	const int64_t *table;  /* -r words read, written by nobody */
	uint64_t priv_n;       /* -p */
	uint64_t reads;        /* -r */
	uint64_t hot_pct;      /* hotkey: -x */
	int64_t initial;       /* hotkey: -i; assert: the level */
	bool contended;        /* assert: -c > 0 */
} lsd_bench_t;

/* ---- the transactions ------------------------------------------------------ */

/* The private work, standard accesses in both modes: +1 to each private
 * word, then the reads of the shared table (their sum keeps them). */
static void lsd_private_work(const lsd_bench_t *b, int64_t *mine, uint64_t from)
{
	for (uint64_t k = 0; k < b->priv_n; k++)
		TM_STORE(&mine[k], TM_LOAD(&mine[k]) + 1);
	int64_t sum = 0;
	for (uint64_t k = 0; k < b->reads; k++)
		sum += TM_LOAD(&b->table[(from + k) % LSD_TABLE_WORDS]);
	if (__builtin_expect(sum < 0, 0))
		tm_restart();   /* never: the table holds no negative word */
}

/* Hotkey, with LSD: the counter stays a future; the condition and the
 * decrement are checked and applied at the commit. */
static bool hotkey_lsd(const lsd_bench_t *b, int64_t *mine, uint64_t from)
{
	volatile bool taken = false;
	TM_BEGIN();
	lsd_val_t one = lsd_const(1);
	lsd_val_t v = lsd_read(b->hot);
	taken = lsd_is_true(lsd_cmp(v, LSD_GE, one));
	if (taken)
		lsd_write(b->hot, lsd_sub(v, one));
	lsd_private_work(b, mine, from);
	TM_END();
	return taken;
}

static bool hotkey_std(const lsd_bench_t *b, int64_t *mine, uint64_t from)
{
	volatile bool taken = false;
	TM_BEGIN();
	int64_t v = TM_LOAD(b->hot);
	taken = v >= 1;
	if (taken)
		TM_STORE(b->hot, v - 1);
	lsd_private_work(b, mine, from);
	TM_END();
	return taken;
}

/* A transaction of the others: private work only. */
static void private_only(const lsd_bench_t *b, int64_t *mine, uint64_t from)
{
	TM_BEGIN();
	lsd_private_work(b, mine, from);
	TM_END();
}

static void hotkey_refill(const lsd_bench_t *b)
{
	TM_BEGIN();
	if (b->mode == M_LSD)
		lsd_write(b->hot, lsd_add(lsd_read(b->hot), lsd_const(b->initial)));
	else
		TM_STORE(b->hot, TM_LOAD(b->hot) + b->initial);
	TM_END();
}

/* Assert, with LSD: returns 1 if the condition held, 0 if not (and the
 * level was restored, when contended). */
static bool assert_lsd(const lsd_bench_t *b, int64_t *mine, uint64_t from)
{
	volatile bool held = false;
	TM_BEGIN();
	lsd_val_t one = lsd_const(1);
	lsd_val_t v = lsd_read(b->hot);
	held = lsd_is_true(lsd_cmp(v, LSD_GE, one));
	if (b->contended)
		lsd_write(b->hot, held ? lsd_sub(v, one) : lsd_const(b->initial));
	lsd_private_work(b, mine, from);
	TM_END();
	return held;
}

static bool assert_std(const lsd_bench_t *b, int64_t *mine, uint64_t from)
{
	volatile bool held = false;
	TM_BEGIN();
	int64_t v = TM_LOAD(b->hot);
	held = v >= 1;
	if (b->contended)
		TM_STORE(b->hot, held ? v - 1 : b->initial);
	lsd_private_work(b, mine, from);
	TM_END();
	return held;
}

static void lsd_op(void *shared, bench_thread_t *self)
{
	lsd_bench_t *b = shared;
	int64_t *mine = &b->priv[(size_t)self->id * LSD_PRIVATE_STRIDE];
	bool lsd = b->mode == M_LSD;
	uint64_t from = b->reads ? bench_rng_below(&self->rng, LSD_TABLE_WORDS) : 0;
	self->count[C_TX]++;
	if (b->workload == W_HOTKEY) {
		if (b->hot_pct < 100 && bench_rng_below(&self->rng, 100) >= b->hot_pct) {
			private_only(b, mine, from);
			self->count[C_PRIVATE]++;
			return;
		}
		if (lsd ? hotkey_lsd(b, mine, from) : hotkey_std(b, mine, from)) {
			self->count[C_TAKEN]++;
		} else {
			hotkey_refill(b);
			self->count[C_REFILLS]++;
		}
		return;
	}
	if (lsd ? assert_lsd(b, mine, from) : assert_std(b, mine, from))
		self->count[C_TAKEN]++;
	else
		self->count[C_REFILLS]++;
}

/* ---- set-up and verification ---------------------------------------------------- */

static void lsd_setup(lsd_bench_t *b, size_t nwords)
{
	TM_BEGIN();
	TM_STORE(b->hot, b->initial);
	for (size_t i = 0; i < nwords; i++)
		TM_STORE(&b->priv[i], 0);
	TM_END();
}

/* The shared word and the private words' sum, read in one transaction. */
static void lsd_final(lsd_bench_t *b, size_t nwords, int64_t *hot, int64_t *priv_sum)
{
	volatile int64_t h = 0, sum = 0;
	TM_BEGIN();
	int64_t s = 0;
	h = TM_LOAD(b->hot);
	for (size_t i = 0; i < nwords; i++)
		s += TM_LOAD(&b->priv[i]);
	sum = s;
	TM_END();
	*hot = h;
	*priv_sum = sum;
}

int potm_bench_lsd(int argc, char **argv)
{
	bench_common_t c = { .name = "lsd" };
	unsigned workload = W_HOTKEY, mode = M_LSD;
	uint64_t priv_n = 4, reads = 0, hot_pct = 100, invalidate = 0, initial = 100000;
	bool invalidate_given = false, initial_given = false, hot_given = false;
	const bench_option_t opts[] = {
		{ 'w', BENCH_OPT_CHOICE, "workload",
		  "hotkey (a hot counter decremented while it stays >= 0) or assert "
		  "(a condition over a shared word) (default hotkey)", 0, 0,
		  lsd_workloads, &workload, NULL },
		{ 'm', BENCH_OPT_CHOICE, "mode",
		  "lsd (futures, conditions, lazy writes) or std (standard reads and "
		  "writes) (default lsd)", 0, 0, lsd_modes, &mode, NULL },
		{ 'p', BENCH_OPT_UINT, "private work",
		  "private words of its thread each transaction adds 1 to (default 4)",
		  0, LSD_PRIVATE_MAX, NULL, &priv_n, NULL },
		{ 'r', BENCH_OPT_UINT, "reads",
		  "reads of a shared table nobody writes, in each transaction after "
		  "its access to the shared word (default 0)", 0, LSD_READS_MAX, NULL,
		  &reads, NULL },
		{ 'x', BENCH_OPT_UINT, "hot percentage",
		  "hotkey: percent of transactions that decrement the hot counter; "
		  "the others do their private work only (default 100)", 0, 100, NULL,
		  &hot_pct, &hot_given },
		{ 'c', BENCH_OPT_UINT, "invalidation percentage",
		  "assert: percent of transactions that invalidate the others' "
		  "condition; 0: no contention (default 0)", 0, 100, NULL, &invalidate,
		  &invalidate_given },
		{ 'i', BENCH_OPT_UINT, "initial counter",
		  "hotkey: the counter's initial value and refill (default 100000)",
		  1, (uint64_t)1 << 40, NULL, &initial, &initial_given },
	};
	int rc = bench_parse(&c, "lsd: a hot counter (hotkey) or a condition over a shared "
	                     "word (assert), with LSD or standard accesses",
	                     opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	if (workload == W_HOTKEY && invalidate_given)
		return bench_usage_error(&c, "-c applies to -w assert only");
	if (workload == W_ASSERT && hot_given)
		return bench_usage_error(&c, "-x applies to -w hotkey only");
	if (workload == W_ASSERT && initial_given)
		return bench_usage_error(&c, "-i applies to -w hotkey only (assert's level "
		                         "follows from -c)");

	lsd_bench_t b = {
		.workload = workload,
		.mode = mode,
		.priv_n = priv_n,
		.reads = reads,
		.hot_pct = hot_pct,
		.contended = workload == W_ASSERT && invalidate > 0,
	};
	/* assert: the level that makes `invalidate' percent of the transactions
	 * flip the condition (two in every level + 1: the one that takes it to
	 * 0 and the restore). */
	if (workload == W_HOTKEY)
		b.initial = (int64_t)initial;
	else
		b.initial = invalidate ? (200 + (int64_t)invalidate / 2) / (int64_t)invalidate - 1 : 1;
	if (b.initial < 1)
		b.initial = 1;

	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK)
		return rc;
	size_t nwords = (size_t)c.threads * LSD_PRIVATE_STRIDE;
	b.hot = aligned_alloc(64, 64);
	b.priv = aligned_alloc(64, nwords * sizeof *b.priv);
	int64_t *table = aligned_alloc(64, LSD_TABLE_WORDS * sizeof *table);
	if (b.hot == NULL || b.priv == NULL || table == NULL) {
		fprintf(stderr, "lsd: out of memory\n");
		free(b.hot);
		free(b.priv);
		free(table);
		bench_tm_stop();
		return BENCH_EXIT_FAILED;
	}
	for (size_t i = 0; i < LSD_TABLE_WORDS; i++)
		table[i] = (int64_t)i;   /* before the threads start: no TM needed */
	b.table = table;
	rc = bench_enter_main(&c);
	if (rc != BENCH_EXIT_OK)
		goto out;
	lsd_setup(&b, nwords);
	tm_thread_exit();
	tm_stats_reset();

	bench_run_result_t run;
	rc = bench_run(&c, lsd_op, &b, &run);
	tm_stats_t stats;
	tm_stats(&stats);
	if (rc != BENCH_EXIT_OK)
		goto out;
	rc = bench_enter_main(&c);
	if (rc != BENCH_EXIT_OK)
		goto out;
	int64_t final_hot, priv_sum;
	lsd_final(&b, nwords, &final_hot, &priv_sum);
	tm_thread_exit();

	uint64_t txs = run.count[C_TX], taken = run.count[C_TAKEN];
	uint64_t refills = run.count[C_REFILLS], private_only_txs = run.count[C_PRIVATE];
	int64_t expected_hot = b.initial;
	if (workload == W_HOTKEY)
		expected_hot += (int64_t)refills * b.initial - (int64_t)taken;
	else if (b.contended)
		expected_hot += (int64_t)refills * b.initial - (int64_t)taken;
	bench_verdict_t verdict = { .failed = false };
	if (final_hot < 0)
		bench_fail(&verdict, "the shared counter ended at %" PRId64 ", below 0", final_hot);
	else if (final_hot != expected_hot)
		bench_fail(&verdict, "the shared counter ended at %" PRId64 ", expected %" PRId64
		           " (initial %" PRId64 ", %" PRIu64 " decrements, %" PRIu64 " refills)",
		           final_hot, expected_hot, b.initial, taken, refills);
	else if (priv_sum != (int64_t)(txs * priv_n))
		bench_fail(&verdict, "the private words add up to %" PRId64 ", expected %" PRIu64,
		           priv_sum, txs * priv_n);
	else if (workload == W_ASSERT && !b.contended && refills != 0)
		bench_fail(&verdict, "%" PRIu64 " assertions failed with nobody writing the level",
		           refills);

	const bench_kv_t params[] = {
		BENCH_STR("workload", lsd_workloads[workload]),
		BENCH_STR("mode", lsd_modes[mode]),
		BENCH_U64("private", priv_n),
		BENCH_U64("reads", reads),
		BENCH_U64("hot_percent", workload == W_HOTKEY ? hot_pct : 0),
		BENCH_U64("invalidate", invalidate),
		BENCH_I64("initial", b.initial),
	};
	const bench_kv_t counts[] = {
		BENCH_U64("transactions", txs),
		BENCH_U64("taken", taken),
		BENCH_U64(workload == W_HOTKEY ? "refills" : "restores", refills),
		BENCH_U64("private_only", private_only_txs),
		BENCH_I64("final_level", final_hot),
	};
	rc = BENCH_FINISH(&c, params, counts, &run, &stats, &verdict);
out:
	free(b.hot);
	free(b.priv);
	free(table);
	bench_tm_stop();
	return rc;
}

#ifdef POTM_LSD_MAIN
int main(int argc, char **argv)
{
	return potm_bench_lsd(argc, argv);
}
#endif

BENCH_REGISTER("lsd", potm_bench_lsd,
               "LSD microbenchmarks: a hot counter and a condition over a shared word");
