/*
 * tpcc/tpcc_dora_term.c — the flow graphs and the terminals of TPC-C
 * under DORA, shared by -e dora (tpcc_dora.c) and -e dora-private
 * (tpcc_dora_private.c).
 *
 * The graphs (their phases, routes and local locks, listed in
 * tpcc_dora.c) are the same in both executions; only the actions differ,
 * in where they read and write the rows, and come from the execution's
 * tpcc_dora_ops_t.  The workers are the executors: worker e serves
 * executor e and is also terminal e, with up to db->dora_window (-W) of
 * its transactions in flight, one per slot.  A transaction
 * that dies on a lock (POTM_DORA_CONFLICT) is submitted again with the
 * same input; the tallies and the latency (submission to the outcome's
 * reaping) are those of tpcc_op.
 */
#include "tpcc_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tpcc_dora_open(tpcc_dora_run_t *r, const char *what, bool private_tables)
{
	tpcc_db_t *db = r->db;
	r->d = potm_dora_create(db->threads, 1);
	if (r->d == NULL) {
		fprintf(stderr, "tpcc: %s: %s\n", what, tm_last_error());
		return BENCH_EXIT_USAGE;
	}
	if (potm_dora_rule_range(r->d, TPCC_DORA_RULE, 1, db->warehouses) != 0 ||
	    (private_tables && potm_dora_set_private(r->d, 1) != 0)) {
		fprintf(stderr, "tpcc: %s: %s\n", what, tm_last_error());
		tpcc_dora_close(r);
		return BENCH_EXIT_FAILED;
	}
	r->term = aligned_alloc(64, db->threads * sizeof *r->term);
	if (r->term == NULL) {
		fprintf(stderr, "tpcc: %s: out of memory for the DORA terminals\n", what);
		tpcc_dora_close(r);
		return BENCH_EXIT_FAILED;
	}
	memset(r->term, 0, db->threads * sizeof *r->term);
	for (unsigned i = 0; i < db->threads; i++)
		for (unsigned k = 0; k < TPCC_DORA_WINDOW_MAX; k++) {
			r->term[i].slot[k].run = r;
			r->term[i].slot[k].owner = i;
		}
	return 0;
}

void tpcc_dora_close(tpcc_dora_run_t *r)
{
	potm_dora_destroy(r->d);
	r->d = NULL;
	free(r->term);
	r->term = NULL;
}

static void slot_done(potm_dora_tx_t *tx, int outcome, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	(void)tx;
	s->outcome = outcome;
	atomic_store_explicit(&s->state, TPCC_SLOT_DONE, memory_order_release);
	potm_dora_wake(s->run->d, s->owner);   /* its terminal may sleep in potm_dora_idle */
}

/* New-Order's last action, the same in both executions but for where the
 * rows go: the order, its new-order row and its lines, keyed by the id
 * the district action drew (phase 1). */
int tpcc_dora_no_insert(potm_dora_act_t *a, tpcc_dora_slot_t *s, store_table_t *order,
                        store_table_t *new_order, store_table_t *order_line)
{
	const tpcc_new_order_in_t *in = &s->req.in.new_order;
	tpcc_new_order_out_t *out = &s->res.out.new_order;
	tpcc_order_t o;
	tpcc_new_order_t no;
	tpcc_order_rows(in, s->o_id, &o, &no);
	uint64_t okey = tpcc_order_key(in->w, in->d, (uint64_t)s->o_id);
	if (potm_dora_insert(a, order, okey, &o) == NULL ||
	    potm_dora_insert(a, new_order, okey, &no) == NULL) {
		tpcc_dora_set_missing(s, "New-Order: the new order's id is taken");
		return 1;
	}
	int64_t sum = 0;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		tpcc_order_line_t ol;
		tpcc_order_line_row(in, i, s->line[i].price, &ol);
		ol.ol_o_id = s->o_id;
		memcpy(ol.ol_dist_info, s->line[i].dist_info, sizeof ol.ol_dist_info);
		if (potm_dora_insert(a, order_line,
		                     tpcc_order_line_key(in->w, in->d, (uint64_t)s->o_id, i + 1),
		                     &ol) == NULL) {
			tpcc_dora_set_missing(s, "New-Order: an order line's key is taken");
			return 1;
		}
		sum += ol.ol_amount;
		out->line[i].amount = ol.ol_amount;
		out->line[i].s_quantity = s->line[i].s_quantity;
	}
	out->total = tpcc_order_total(sum, s->c_discount, s->w_tax, s->d_tax);
	out->o_id = (uint64_t)s->o_id;
	return 0;
}

/* ---- the flow graphs (tpcc_dora.c lists them), over the execution's actions ---- */

static potm_dora_lock_t lock_of(uint32_t space, uint64_t key, uint32_t mode)
{
	return (potm_dora_lock_t){ .space = space, .key = key, .mode = mode };
}

static void no_phase2(potm_dora_tx_t *tx, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	const tpcc_new_order_in_t *in = &s->req.in.new_order;
	potm_dora_lock_t lk = lock_of(TPCC_LK_ORDERS, tpcc_district_key(in->w, in->d), POTM_DORA_X);
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->no_insert, s, &lk, 1);
}

static void new_order_graph(potm_dora_tx_t *tx, tpcc_dora_slot_t *s)
{
	const tpcc_new_order_in_t *in = &s->req.in.new_order;
	potm_dora_lock_t lk = lock_of(TPCC_LK_ORDERS, tpcc_district_key(in->w, in->d), POTM_DORA_X);
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->no_district, s, &lk, 1);
	/* One stock action per supplying warehouse, locking its lines'
	 * stock rows. */
	unsigned groups = 0;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		uint32_t sw = in->line[i].supply_w;
		bool seen = false;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = in->line[j].supply_w == sw;
		if (seen)
			continue;
		potm_dora_lock_t locks[TPCC_MAX_OL];
		unsigned n = 0;
		for (uint32_t j = i; j < in->ol_cnt; j++)
			if (in->line[j].supply_w == sw)
				locks[n++] = lock_of(TPCC_LK_STOCK, tpcc_stock_key(sw, in->line[j].i_id),
				                     POTM_DORA_X);
		s->group[groups] = (tpcc_dora_group_t){ .s = s, .supply_w = sw };
		potm_dora_add(tx, TPCC_DORA_RULE, sw, s->run->ops->no_stock, &s->group[groups], locks, n);
		groups++;
	}
	potm_dora_then(tx, no_phase2, s);
}

static void pay_phase2(potm_dora_tx_t *tx, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	potm_dora_add(tx, TPCC_DORA_RULE, s->req.in.payment.w, s->run->ops->pay_history, s, NULL, 0);
}

static void pay_phase1(potm_dora_tx_t *tx, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	potm_dora_lock_t lw = lock_of(TPCC_LK_WAREHOUSE, tpcc_warehouse_key(in->w), POTM_DORA_X);
	potm_dora_lock_t ld = lock_of(TPCC_LK_DISTRICT, tpcc_district_key(in->w, in->d), POTM_DORA_X);
	potm_dora_lock_t lc = lock_of(TPCC_LK_CUSTOMER, tpcc_customer_key(in->c_w, in->c_d, s->c_id),
	                              POTM_DORA_X);
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->pay_warehouse, s, &lw, 1);
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->pay_district, s, &ld, 1);
	/* A remote customer's action runs on its warehouse's owner. */
	potm_dora_add(tx, TPCC_DORA_RULE, in->c_w, s->run->ops->pay_customer, s, &lc, 1);
	potm_dora_then(tx, pay_phase2, s);
}

static void payment_graph(potm_dora_tx_t *tx, tpcc_dora_slot_t *s)
{
	const tpcc_payment_in_t *in = &s->req.in.payment;
	if (in->c_id != 0) {
		s->c_id = in->c_id;
		pay_phase1(tx, s);
		return;
	}
	potm_dora_add(tx, TPCC_DORA_RULE, in->c_w, s->run->ops->by_name, s, NULL, 0);
	potm_dora_then(tx, pay_phase1, s);
}

static void os_phase1(potm_dora_tx_t *tx, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	const tpcc_order_status_in_t *in = &s->req.in.order_status;
	potm_dora_lock_t lk[2] = {
		lock_of(TPCC_LK_CUSTOMER, tpcc_customer_key(in->w, in->d, s->c_id), POTM_DORA_S),
		lock_of(TPCC_LK_ORDERS, tpcc_district_key(in->w, in->d), POTM_DORA_S),
	};
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->os_read, s, lk, 2);
}

static void order_status_graph(potm_dora_tx_t *tx, tpcc_dora_slot_t *s)
{
	const tpcc_order_status_in_t *in = &s->req.in.order_status;
	if (in->c_id != 0) {
		s->c_id = in->c_id;
		os_phase1(tx, s);
		return;
	}
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->by_name, s, NULL, 0);
	potm_dora_then(tx, os_phase1, s);
}

static void dl_phase2(potm_dora_tx_t *tx, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	uint32_t w = s->req.in.delivery.w;
	potm_dora_lock_t lk[TPCC_DISTRICTS];
	unsigned n = 0;
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++)
		if (s->delivered_c[d - 1] != 0)
			lk[n++] = lock_of(TPCC_LK_CUSTOMER, tpcc_customer_key(w, d, s->delivered_c[d - 1]),
			                  POTM_DORA_X);
	if (n > 0)
		potm_dora_add(tx, TPCC_DORA_RULE, w, s->run->ops->dl_customers, s, lk, n);
}

static void delivery_graph(potm_dora_tx_t *tx, tpcc_dora_slot_t *s)
{
	uint32_t w = s->req.in.delivery.w;
	potm_dora_lock_t lk[TPCC_DISTRICTS];
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++)
		lk[d - 1] = lock_of(TPCC_LK_ORDERS, tpcc_district_key(w, d), POTM_DORA_X);
	potm_dora_add(tx, TPCC_DORA_RULE, w, s->run->ops->dl_orders, s, lk, TPCC_DISTRICTS);
	potm_dora_then(tx, dl_phase2, s);
}

static void sl_phase2(potm_dora_tx_t *tx, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	const tpcc_stock_level_in_t *in = &s->req.in.stock_level;
	potm_dora_lock_t lk[TPCC_MAX_OL * 20];
	for (uint32_t i = 0; i < s->nitems; i++)
		lk[i] = lock_of(TPCC_LK_STOCK, tpcc_stock_key(in->w, s->items[i]), POTM_DORA_S);
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->sl_stock, s, lk, s->nitems);
}

static void stock_level_graph(potm_dora_tx_t *tx, tpcc_dora_slot_t *s)
{
	const tpcc_stock_level_in_t *in = &s->req.in.stock_level;
	potm_dora_lock_t lk = lock_of(TPCC_LK_ORDERS, tpcc_district_key(in->w, in->d), POTM_DORA_S);
	potm_dora_add(tx, TPCC_DORA_RULE, in->w, s->run->ops->sl_items, s, &lk, 1);
	potm_dora_then(tx, sl_phase2, s);
}

/* ---- the terminals ---- */

/* Build s's request as a new transaction and submit it (serving this
 * executor while admissions are held). */
static void slot_submit(tpcc_dora_run_t *r, tpcc_dora_slot_t *s)
{
	atomic_store(&s->missing, NULL);
	atomic_store(&s->rolled_back, false);
	memset(&s->res, 0, sizeof s->res);
	potm_dora_tx_t *tx = potm_dora_tx_new(r->d, slot_done, s);
	if (tx == NULL) {
		fprintf(stderr, "tpcc: out of memory for a DORA transaction\n");
		abort();
	}
	switch (s->req.type) {
	case TPCC_NEW_ORDER:
		new_order_graph(tx, s);
		break;
	case TPCC_PAYMENT:
		payment_graph(tx, s);
		break;
	case TPCC_ORDER_STATUS:
		order_status_graph(tx, s);
		break;
	case TPCC_DELIVERY:
		delivery_graph(tx, s);
		break;
	default:
		stock_level_graph(tx, s);
		break;
	}
	atomic_store_explicit(&s->state, TPCC_SLOT_RUNNING, memory_order_relaxed);
	while (potm_dora_submit(tx) == POTM_DORA_PAUSED)
		potm_dora_serve(r->d, s->owner);
}

/* Tally the finished transactions of terminal id; submit again those
 * that died on a lock. */
static void reap(tpcc_dora_run_t *r, unsigned id)
{
	tpcc_db_t *db = r->db;
	tpcc_worker_t *me = &db->worker[id];
	for (unsigned k = 0; k < TPCC_DORA_WINDOW_MAX; k++) {
		tpcc_dora_slot_t *s = &r->term[id].slot[k];
		if (atomic_load_explicit(&s->state, memory_order_acquire) != TPCC_SLOT_DONE)
			continue;
		if (s->outcome == POTM_DORA_CONFLICT) {
			r->term[id].retries++;
			slot_submit(r, s);
			continue;
		}
		s->res.rolled_back = s->outcome != POTM_DORA_COMMITTED && atomic_load(&s->rolled_back);
		s->res.missing = s->res.rolled_back ? NULL : atomic_load(&s->missing);
		if (s->outcome != POTM_DORA_COMMITTED && !s->res.rolled_back && s->res.missing == NULL)
			s->res.missing = "an action aborted without a reason";
		if (s->req.type == TPCC_NEW_ORDER)
			s->res.out.new_order.rolled_back = s->res.rolled_back;
		tpcc_tally(me, &s->req, &s->res, id % db->warehouses + 1);
		bench_lat_add(&me->lat[s->req.type], bench_now_ns() - s->t0);
		me->done[s->req.type]++;
		atomic_store_explicit(&s->state, TPCC_SLOT_FREE, memory_order_relaxed);
	}
}

/* Serve; with nothing to do, sleep until work arrives (a queued action
 * or completion, or one of this terminal's transactions finishing:
 * slot_done wakes it). */
static void serve_or_idle(tpcc_dora_run_t *r, unsigned id)
{
	if (potm_dora_serve(r->d, id) == 0)
		potm_dora_idle(r->d, id);
}

/* One operation: one transaction of terminal self->id submitted. */
static void term_op(void *shared, bench_thread_t *self)
{
	tpcc_dora_run_t *r = shared;
	tpcc_db_t *db = r->db;
	unsigned id = self->id;
	tpcc_worker_t *me = &db->worker[id];
	tpcc_dora_slot_t *s = NULL;
	for (;;) {
		reap(r, id);
		for (unsigned k = 0; k < db->dora_window && s == NULL; k++)
			if (atomic_load_explicit(&r->term[id].slot[k].state, memory_order_relaxed) ==
			    TPCC_SLOT_FREE)
				s = &r->term[id].slot[k];
		if (s != NULL)
			break;
		serve_or_idle(r, id);
	}
	uint32_t w = id % db->warehouses + 1;
	enum tpcc_tx_type type = tpcc_pick_type(db, &self->rng);
	int64_t now = tpcc_now(db, id, me->clock++);
	s->t0 = bench_now_ns();
	tpcc_draw(db, me, &self->rng, id, w, type, now, &s->req);
	slot_submit(r, s);
	potm_dora_serve(r->d, id);
}

/* After the last operation: finish this terminal's transactions, then
 * serve until every terminal has finished and nothing is in flight (the
 * others may still route actions here; serving with a sleep's timeout
 * notices the end). */
static void term_leave(void *shared, bench_thread_t *self)
{
	tpcc_dora_run_t *r = shared;
	unsigned id = self->id;
	for (;;) {
		reap(r, id);
		bool idle = true;
		for (unsigned k = 0; k < TPCC_DORA_WINDOW_MAX; k++)
			idle &= atomic_load_explicit(&r->term[id].slot[k].state,
			                             memory_order_relaxed) == TPCC_SLOT_FREE;
		if (idle)
			break;
		serve_or_idle(r, id);
	}
	atomic_fetch_add(&r->finished, 1);
	for (unsigned e = 0; e < r->db->threads; e++)
		potm_dora_wake(r->d, e);
	while (atomic_load(&r->finished) < r->db->threads || potm_dora_in_flight(r->d) != 0)
		serve_or_idle(r, id);
}

/* The resource manager (-R): every reroute_ms, a random range of
 * warehouses goes to a random executor, behind potm_dora_reroute's
 * quiescence (private tables go with their warehouse), until the run
 * ends. */
static void *resource_manager(void *arg)
{
	tpcc_dora_run_t *r = arg;
	bench_rng_t rng;
	bench_rng_seed(&rng, r->db->seed, r->ops->reroute_seed);
	uint32_t w = r->db->warehouses;
	while (!atomic_load(&r->stop)) {
		struct timespec ts = { .tv_sec = (time_t)(r->reroute_ms / 1000),
		                       .tv_nsec = (long)(r->reroute_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
		if (atomic_load(&r->stop))
			break;
		uint32_t lo = tpcc_rand(&rng, 1, w), hi = tpcc_rand(&rng, lo, w);
		unsigned e = (unsigned)bench_rng_below(&rng, r->db->threads);
		if (potm_dora_reroute(r->d, TPCC_DORA_RULE, lo, hi, e) == 0)
			r->reroutes++;
	}
	return NULL;
}

int tpcc_dora_drive(tpcc_dora_run_t *r, const bench_common_t *c, bench_run_result_t *run,
                    potm_dora_stats_t *st)
{
	pthread_t rm;
	bool rm_running =
		r->reroute_ms != 0 && pthread_create(&rm, NULL, resource_manager, r) == 0;
	int rc = bench_run_with(c, term_op, NULL, term_leave, r, run);
	if (rm_running) {
		atomic_store(&r->stop, 1);
		pthread_join(rm, NULL);
	}
	potm_dora_stats(r->d, st);
	tpcc_dora_close(r);
	return rc;
}
