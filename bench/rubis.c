/*
 * bench/rubis.c — the RUBiS-style auction of Narula's Doppel thesis (the
 * StoreBid transaction of Figure 6-2, with ViewItem reads) on potm's
 * Doppel layer (potm/doppel.h).
 *
 * Records:
 *   per item (-k items): max_bid (integer, max), max_bidder (ordered
 *     tuple: order = amount, value = bidder), num_bids (integer, add);
 *   per category (-c categories; item i is in category i % c): a top-K
 *     set (-K) of the highest bids, (order = amount, value = item);
 *   per worker a ring of RB_RING bid rows (integers): a worker's n-th bid
 *     puts its amount into row n % RB_RING (the new bid's row).
 * Transactions (-u percent StoreBid, the rest ViewItem):
 *   StoreBid   put the bid row, max(max_bid), oput(max_bidder), add 1 to
 *              num_bids, insert into the category's top-K;
 *   ViewItem   read max_bid, num_bids and max_bidder of one item.
 * The item is item 0 (the hot auction) for -p percent of the transactions,
 * else uniform over the -k items; the bidder is uniform over -U users.
 * Amounts are unique and grow: a worker's n-th bid (from 1) bids
 * n << RB_TID_BITS | its thread id, so there are no ties and a later bid
 * of a worker outbids its earlier ones.
 * Both transactions run through dp_exec_wait: a ViewItem that touches a
 * split record in a split phase is stashed and waited for (as a client
 * would); a StoreBid uses only splittable operations on the records that
 * can be split, so it is not stashed in practice, and if it were it would
 * be waited for too, which keeps the bookkeeping below exact.
 * Modes (-m):
 *   doppel  the classifier decides what to split (POTM_DP_* settings)
 *   occ     the same transactions, nothing split: the backend alone
 *   split   the hot item's records (max_bid: max, max_bidder: oput,
 *           num_bids: add) and its category's top-K split by hand
 * Checks, on the final records:
 *   the items' num_bids sum to the committed bids, the hot item's to the
 *   committed hot bids; the hot item's max_bid and max_bidder hold the
 *   largest committed bid on it (its amount, bidder and thread); on every
 *   item max_bid equals max_bidder's order (and both are empty iff
 *   num_bids is 0); every category's top-K holds exactly the K largest
 *   committed bids in that category; every bid row holds the amount of
 *   the last bid its worker put there.  Every ViewItem checks the same
 *   per-item invariant on what it read (a torn read fails the run).
 */
#include "dp_bench.h"
#include "potm_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

POTM_BENCH_EXPORT int potm_bench_rubis(int argc, char **argv);

enum rb_mode { M_DOPPEL, M_OCC, M_SPLIT };
static const char *const rb_modes[] = { "doppel", "occ", "split", NULL };

/* bench_thread_t counters */
enum { C_BIDS, C_HOT, C_VIEWS, C_BLAT_NS, C_VLAT_NS, C_TORN };

#define RB_RING 1024        /* bid rows per worker */
#define RB_TID_BITS 10      /* amount = sequence << RB_TID_BITS | thread id */

enum { LAT_BID, LAT_VIEW };

/* One auction. */
typedef struct rb_item {
	dp_rec_t max_bid;       /* DP_INT, 0 until the first bid */
	dp_rec_t max_bidder;    /* DP_TUPLE: (amount, bidder) of the best bid */
	dp_rec_t num_bids;      /* DP_INT */
} rb_item_t;

/* A worker's own bookkeeping, read by the checks after the run. */
typedef struct rb_worker {
	uint64_t bids;          /* committed bids: the next bid's sequence - 1 */
	int64_t hot_amount;     /* its last (so largest) bid on item 0; 0: none */
	int64_t hot_bidder;
	bench_lat_t lat[2];     /* LAT_BID, LAT_VIEW */
} __attribute__((aligned(64))) rb_worker_t;

typedef struct rubis {
	enum rb_mode mode;
	uint64_t items, users, categories, hot_pct, bid_pct, topk;
	unsigned threads;
	rb_item_t *item;        /* [items] */
	dp_rec_t *cat;          /* [categories]: top-K sets */
	dp_rec_t *ring;         /* [threads][RB_RING]: bid rows */
	rb_worker_t *worker;    /* [threads] */
	uint64_t *cat_bids;     /* [threads][categories]: committed bids */
	/* [threads][categories][topk]: each worker's last topk bids in each
	 * category, a ring indexed by cat_bids % topk.  A worker's amounts
	 * grow, so these are its topk largest there. */
	dp_topk_entry_t *recent;
} rubis_t;

/* The p99 latency of one kind over all workers. */
static uint64_t rb_lat_p99(const rubis_t *b, int kind)
{
	bench_lat_t all = { { 0 } };
	for (unsigned t = 0; t < b->threads; t++)
		bench_lat_merge(&all, &b->worker[t].lat[kind]);
	return bench_lat_percentile(&all, 99);
}

/* ---- transactions ---------------------------------------------------------- */

typedef struct rb_bid_args {
	rb_item_t *item;
	dp_rec_t *topk, *row;
	int64_t item_id, amount, bidder;
} rb_bid_args_t;

/* StoreBid (Figure 6-2). */
static void rb_store_bid(void *p)
{
	const rb_bid_args_t *a = p;
	dp_put(a->row, a->amount);
	dp_max(&a->item->max_bid, a->amount);
	dp_oput(&a->item->max_bidder, a->amount, a->bidder);
	dp_add(&a->item->num_bids, 1);
	dp_topk_insert(a->topk, a->amount, a->item_id);
}

typedef struct rb_view_args {
	rb_item_t *item;
	int64_t max_bid, num_bids, order, bidder;
	bool any;
} rb_view_args_t;

/* ViewItem. */
static void rb_view_item(void *p)
{
	rb_view_args_t *a = p;
	a->max_bid = dp_get(&a->item->max_bid);
	a->num_bids = dp_get(&a->item->num_bids);
	a->any = dp_get_tuple(&a->item->max_bidder, &a->order, &a->bidder, NULL);
}

/* The per-item invariant: StoreBid changes the three records together. */
static bool rb_item_consistent(int64_t max_bid, int64_t num_bids, bool any, int64_t order)
{
	if (!any)
		return max_bid == 0 && num_bids == 0;
	return max_bid == order && num_bids > 0;
}

static void rb_op(void *shared, bench_thread_t *self)
{
	rubis_t *b = shared;
	rb_worker_t *me = &b->worker[self->id];
	uint64_t item = bench_rng_below(&self->rng, 100) < b->hot_pct
		? 0 : bench_rng_below(&self->rng, b->items);
	bool bid = bench_rng_below(&self->rng, 100) < b->bid_pct;
	if (!bid) {
		rb_view_args_t v = { .item = &b->item[item] };
		uint64_t t0 = bench_now_ns();
		int rc = dp_exec_wait(rb_view_item, &v);
		uint64_t ns = bench_now_ns() - t0;
		if (rc != DP_COMMITTED)
			return;   /* never: ViewItem does not cancel */
		self->count[C_VIEWS]++;
		self->count[C_VLAT_NS] += ns;
		self->count[C_TORN] += !rb_item_consistent(v.max_bid, v.num_bids, v.any, v.order) ||
		                       (v.any && (v.bidder < 0 || (uint64_t)v.bidder >= b->users));
		bench_lat_add(&me->lat[LAT_VIEW], ns);
		return;
	}
	uint64_t cat = item % b->categories;
	rb_bid_args_t a = {
		.item = &b->item[item],
		.topk = &b->cat[cat],
		.row = &b->ring[(uint64_t)self->id * RB_RING + me->bids % RB_RING],
		.item_id = (int64_t)item,
		.amount = (int64_t)((me->bids + 1) << RB_TID_BITS | self->id),
		.bidder = (int64_t)bench_rng_below(&self->rng, b->users),
	};
	uint64_t t0 = bench_now_ns();
	int rc = dp_exec_wait(rb_store_bid, &a);
	uint64_t ns = bench_now_ns() - t0;
	if (rc != DP_COMMITTED)
		return;   /* never: StoreBid does not cancel */
	me->bids++;
	uint64_t *n = &b->cat_bids[(uint64_t)self->id * b->categories + cat];
	b->recent[((uint64_t)self->id * b->categories + cat) * b->topk + *n % b->topk] =
		(dp_topk_entry_t){ a.amount, a.item_id };
	++*n;
	if (item == 0) {
		me->hot_amount = a.amount;
		me->hot_bidder = a.bidder;
	}
	self->count[C_BIDS]++;
	self->count[C_HOT] += item == 0;
	self->count[C_BLAT_NS] += ns;
	bench_lat_add(&me->lat[LAT_BID], ns);
}

/* ---- checks (after dp_shutdown: the records hold plain values) --------------- */

static int rb_entry_desc(const void *x, const void *y)
{
	const dp_topk_entry_t *p = x, *q = y;
	if (p->order != q->order)
		return p->order > q->order ? -1 : 1;
	return p->value > q->value ? -1 : p->value < q->value ? 1 : 0;
}

/* Category c's top-K against the K largest committed bids in it; scratch
 * has room for threads * topk entries. */
static bool rb_check_topk(const rubis_t *b, uint64_t c, dp_topk_entry_t *scratch,
                          bench_verdict_t *v)
{
	size_t m = 0;
	for (unsigned t = 0; t < b->threads; t++) {
		uint64_t tc = (uint64_t)t * b->categories + c;
		uint64_t n = b->cat_bids[tc];
		const dp_topk_entry_t *mine = &b->recent[tc * b->topk];
		for (uint64_t i = 0; i < n && i < b->topk; i++)
			scratch[m++] = mine[i];
	}
	qsort(scratch, m, sizeof *scratch, rb_entry_desc);
	size_t want = m < b->topk ? m : b->topk;
	const dp_rec_t *r = &b->cat[c];
	if (r->order != (int64_t)want)
		return bench_fail(v, "category %" PRIu64 "'s top-%" PRIu64 " holds %" PRId64
		                  " bids, but %zu should be there", c, b->topk, r->order, want);
	for (size_t i = 0; i < want; i++)
		if (r->topk[i].order != scratch[i].order || r->topk[i].value != scratch[i].value)
			return bench_fail(v, "category %" PRIu64 "'s top-%" PRIu64 " entry %zu "
			                  "is (amount %" PRId64 ", item %" PRId64 "), but the "
			                  "committed bids make it (amount %" PRId64 ", item %"
			                  PRId64 ")", c, b->topk, i, r->topk[i].order,
			                  r->topk[i].value, scratch[i].order, scratch[i].value);
	return true;
}

static void rb_verify(const rubis_t *b, const bench_run_result_t *run, bench_verdict_t *v)
{
	if (run->count[C_TORN])
		bench_fail(v, "%" PRIu64 " ViewItem transactions read an item whose max_bid, "
		           "max_bidder and num_bids disagree", run->count[C_TORN]);

	uint64_t bids = 0;
	for (unsigned t = 0; t < b->threads; t++)
		bids += b->worker[t].bids;
	if (bids != run->count[C_BIDS])
		bench_fail(v, "the workers counted %" PRIu64 " bids, the run %" PRIu64,
		           bids, run->count[C_BIDS]);

	int64_t sum = 0;
	for (uint64_t i = 0; i < b->items; i++) {
		const rb_item_t *it = &b->item[i];
		sum += it->num_bids.value;
		bool any = it->max_bidder.tid >= 0;
		if (!rb_item_consistent(it->max_bid.value, it->num_bids.value, any,
		                        it->max_bidder.order))
			bench_fail(v, "item %" PRIu64 ": max_bid %" PRId64 ", num_bids %" PRId64
			           " and max_bidder's amount %" PRId64 "%s disagree", i,
			           it->max_bid.value, it->num_bids.value, it->max_bidder.order,
			           any ? "" : " (never written)");
	}
	if (sum != (int64_t)run->count[C_BIDS])
		bench_fail(v, "the items' num_bids sum to %" PRId64 ", but %" PRIu64 " bids "
		           "committed", sum, run->count[C_BIDS]);

	const rb_item_t *hot = &b->item[0];
	if (hot->num_bids.value != (int64_t)run->count[C_HOT])
		bench_fail(v, "the hot item's num_bids is %" PRId64 ", but %" PRIu64 " bids on it "
		           "committed", hot->num_bids.value, run->count[C_HOT]);
	int64_t best = 0, bidder = -1;
	for (unsigned t = 0; t < b->threads; t++)
		if (b->worker[t].hot_amount > best) {
			best = b->worker[t].hot_amount;
			bidder = b->worker[t].hot_bidder;
		}
	if (hot->max_bid.value != best)
		bench_fail(v, "the hot item's max_bid is %" PRId64 ", but its largest committed "
		           "bid is %" PRId64, hot->max_bid.value, best);
	if (best == 0 ? hot->max_bidder.tid != -1
	              : hot->max_bidder.order != best || hot->max_bidder.value != bidder ||
	                hot->max_bidder.tid != (best & ((1 << RB_TID_BITS) - 1)))
		bench_fail(v, "the hot item's max_bidder is (amount %" PRId64 ", bidder %" PRId64
		           ", thread %" PRId64 "), but its largest committed bid is (amount %"
		           PRId64 ", bidder %" PRId64 ", thread %" PRId64 ")",
		           hot->max_bidder.order, hot->max_bidder.value, hot->max_bidder.tid,
		           best, bidder, best ? best & ((1 << RB_TID_BITS) - 1) : -1);

	dp_topk_entry_t *scratch = malloc((size_t)b->threads * b->topk * sizeof *scratch);
	if (scratch == NULL)
		bench_fail(v, "out of memory for the top-K check");
	for (uint64_t c = 0; scratch != NULL && c < b->categories; c++)
		if (!rb_check_topk(b, c, scratch, v))
			break;
	free(scratch);

	/* Worker t's bid i (from 0) went to row i % RB_RING with amount
	 * (i + 1) << RB_TID_BITS | t; a row never written holds 0. */
	for (unsigned t = 0; t < b->threads; t++) {
		uint64_t n = b->worker[t].bids;
		for (uint64_t j = 0; j < RB_RING; j++) {
			int64_t want = 0;
			if (j < n) {
				uint64_t i = j + (n - 1 - j) / RB_RING * RB_RING;
				want = (int64_t)((i + 1) << RB_TID_BITS | t);
			}
			int64_t got = b->ring[(uint64_t)t * RB_RING + j].value;
			if (got != want) {
				bench_fail(v, "thread %u's bid row %" PRIu64 " holds %" PRId64
				           ", but its last bid there put %" PRId64, t, j, got,
				           want);
				break;
			}
		}
	}
}

/* ---- the run ----------------------------------------------------------------- */

static void rb_free(rubis_t *b)
{
	for (uint64_t c = 0; b->cat != NULL && c < b->categories; c++)
		dp_rec_destroy(&b->cat[c]);
	free(b->item);
	free(b->cat);
	free(b->ring);
	free(b->worker);
	free(b->cat_bids);
	free(b->recent);
}

int potm_bench_rubis(int argc, char **argv)
{
	bench_common_t c = { .name = "rubis" };
	unsigned mode = M_DOPPEL;
	uint64_t items = 100000, users = 100000, categories = 16, hot_pct = 0,
	         bid_pct = 100, topk = 10;
	const bench_option_t opts[] = {
		{ 'm', BENCH_OPT_CHOICE, "mode", "doppel, occ or split (default doppel)",
		  0, 0, rb_modes, &mode, NULL },
		{ 'k', BENCH_OPT_UINT, "item count", "auctions (items) (default 100000)",
		  1, (uint64_t)1 << 26, NULL, &items, NULL },
		{ 'U', BENCH_OPT_UINT, "user count", "bidders, uniform (default 100000)",
		  1, (uint64_t)1 << 26, NULL, &users, NULL },
		{ 'c', BENCH_OPT_UINT, "category count",
		  "categories; item i is in category i % c (default 16)", 1, (uint64_t)1 << 16,
		  NULL, &categories, NULL },
		{ 'p', BENCH_OPT_UINT, "hot percentage",
		  "percent of transactions on the hot item 0, the rest uniform (default 0)",
		  0, 100, NULL, &hot_pct, NULL },
		{ 'u', BENCH_OPT_UINT, "bid percentage",
		  "percent of StoreBid transactions, the rest ViewItem (default 100)", 0, 100,
		  NULL, &bid_pct, NULL },
		{ 'K', BENCH_OPT_UINT, "top-K size",
		  "bids kept per category's top-K set (default 10)", 1, DP_TOPK_MAX, NULL,
		  &topk, NULL },
	};
	int rc = bench_parse(&c, "rubis: the RUBiS bid transaction of the Doppel thesis "
	                     "(StoreBid, ViewItem) on the split-slice layer",
	                     opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	if (categories > items)
		return bench_usage_error(&c, "-c %" PRIu64 ": more categories than items (-k %"
		                         PRIu64 ")", categories, items);
	if (c.threads > (uint64_t)1 << RB_TID_BITS)
		return bench_usage_error(&c, "-t %" PRIu64 ": bid amounts hold a thread id of "
		                         "%d bits", c.threads, RB_TID_BITS);
	if (mode != M_DOPPEL)
		setenv("POTM_DP_CLASSIFY_MS", "0", 1);   /* nothing splits by itself */

	rubis_t b = {
		.mode = mode, .items = items, .users = users, .categories = categories,
		.hot_pct = hot_pct, .bid_pct = bid_pct, .topk = topk,
		.threads = (unsigned)c.threads,
	};
	size_t nworkers = c.threads;
	b.item = calloc(items, sizeof *b.item);
	b.cat = calloc(categories, sizeof *b.cat);
	b.ring = calloc(nworkers * RB_RING, sizeof *b.ring);
	b.worker = aligned_alloc(64, nworkers * sizeof *b.worker);
	b.cat_bids = calloc(nworkers * categories, sizeof *b.cat_bids);
	b.recent = calloc(nworkers * categories * topk, sizeof *b.recent);
	if (b.item == NULL || b.cat == NULL || b.ring == NULL || b.worker == NULL ||
	    b.cat_bids == NULL || b.recent == NULL) {
		fprintf(stderr, "rubis: out of memory for %" PRIu64 " items, %" PRIu64
		        " categories and %" PRIu64 " threads\n", items, categories, c.threads);
		rb_free(&b);
		return BENCH_EXIT_FAILED;
	}
	memset(b.worker, 0, nworkers * sizeof *b.worker);
	for (uint64_t i = 0; i < items; i++) {
		dp_rec_init_int(&b.item[i].max_bid, 0);
		dp_rec_init_tuple(&b.item[i].max_bidder);
		dp_rec_init_int(&b.item[i].num_bids, 0);
	}
	for (size_t i = 0; i < nworkers * RB_RING; i++)
		dp_rec_init_int(&b.ring[i], 0);
	for (uint64_t i = 0; i < categories; i++)
		if (dp_rec_init_topk(&b.cat[i], (unsigned)topk) != 0) {
			fprintf(stderr, "rubis: dp_rec_init_topk: %s\n", tm_last_error());
			rb_free(&b);   /* the kind of a record not initialized yet is DP_INT */
			return BENCH_EXIT_FAILED;
		}

	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK)
		goto out;
	if (dp_init() != 0) {
		fprintf(stderr, "rubis: dp_init: %s\n", tm_last_error());
		bench_tm_stop();
		rc = BENCH_EXIT_FAILED;
		goto out;
	}
	if (mode == M_SPLIT) {
		const struct { dp_rec_t *rec; dp_op_t op; } hand[] = {
			{ &b.item[0].max_bid, DP_MAX },
			{ &b.item[0].max_bidder, DP_OPUT },
			{ &b.item[0].num_bids, DP_ADD },
			{ &b.cat[0], DP_TOPK },   /* item 0's category */
		};
		for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++)
			if (dp_split(hand[i].rec, hand[i].op) != 0) {
				fprintf(stderr, "rubis: dp_split: %s\n", tm_last_error());
				rc = BENCH_EXIT_USAGE;
				break;
			}
		if (rc == BENCH_EXIT_OK)
			dp_wait_phases(1);   /* applied before the run starts */
	}
	tm_stats_reset();
	bench_run_result_t run = { 0 };
	if (rc == BENCH_EXIT_OK)
		rc = bench_run_with(&c, rb_op, dp_bench_enter, dp_bench_leave, &b, &run);
	tm_stats_t stats;
	tm_stats(&stats);
	dp_stats_t ds = { 0 };
	dp_stats(&ds);
	dp_shutdown();   /* reconciled and joined: the records hold everything */
	bench_tm_stop();
	if (rc != BENCH_EXIT_OK)
		goto out;

	bench_verdict_t verdict = { .failed = false };
	rb_verify(&b, &run, &verdict);

	uint64_t bids = run.count[C_BIDS], views = run.count[C_VIEWS];
	const bench_kv_t params[] = {
		BENCH_STR("workload", "rubis"),
		BENCH_STR("mode", rb_modes[mode]),
		BENCH_U64("items", items),
		BENCH_U64("users", users),
		BENCH_U64("categories", categories),
		BENCH_U64("hot_pct", hot_pct),
		BENCH_U64("bid_pct", bid_pct),
		BENCH_U64("topk", topk),
	};
	const bench_kv_t counts[] = {
		BENCH_U64("bids", bids),
		BENCH_U64("hot_bids", run.count[C_HOT]),
		BENCH_U64("views", views),
		BENCH_U64("view_mean_ns", views ? run.count[C_VLAT_NS] / views : 0),
		BENCH_U64("view_p99_ns", rb_lat_p99(&b, LAT_VIEW)),
		BENCH_U64("bid_mean_ns", bids ? run.count[C_BLAT_NS] / bids : 0),
		BENCH_U64("bid_p99_ns", rb_lat_p99(&b, LAT_BID)),
		DP_BENCH_COUNTS(ds),
	};
	rc = BENCH_FINISH(&c, params, counts, &run, &stats, &verdict);
out:
	rb_free(&b);
	return rc;
}

#ifdef POTM_RUBIS_MAIN
int main(int argc, char **argv)
{
	return potm_bench_rubis(argc, argv);
}
#endif

BENCH_REGISTER("rubis", potm_bench_rubis,
               "the RUBiS bid transaction of the Doppel thesis on the split-slice layer");
