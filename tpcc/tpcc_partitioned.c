/*
 * tpcc/tpcc_partitioned.c — TPC-C on a partitioned store (-e partitioned),
 * H-Store style: the baseline of Silo's cross-partition experiment.
 *
 * The rows live in the private tables per warehouse of -e dora-private
 * (tpcc_private_copy_in; struct tpcc_private in tpcc_internal.h), each
 * warehouse one partition guarded by one lock.  A worker draws its
 * transaction as tpcc_op does, takes the locks of every warehouse it
 * touches (known from the input before it runs: New-Order's home and
 * supplying warehouses, Payment's warehouse and customer's warehouse), runs
 * it with plain accesses on those warehouses' tables, and releases them.
 * No TM: the workers do not register (bench_common_t.unregistered), so any
 * backend binary runs it, `seq` with any number of workers.
 *
 * Invariants:
 *  P1: a warehouse's private tables are read or written only by the holder
 *      of its lock; ITEM is written by nobody during the run (plain reads).
 *  P2: a transaction takes its locks in ascending warehouse order and
 *      holds them all until it ends, so no cycle of waits can form: the
 *      holder of the highest lock in any wait chain waits for nothing.
 *      Locking everything first (two-phase, conservative) also makes each
 *      transaction serializable and never aborted.
 *  P3: New-Order looks for every item before it writes anything, so its
 *      rollback (clause 2.4.2.3, the unused item) changes nothing and
 *      needs no undo; it ends as the conventional one's rollback does.
 * After the run tpcc_dora_private_finish copies the tables back for the
 * consistency checks and the digest.
 */
#include "tpcc_internal.h"

#include <potm/store_private.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A warehouse's lock, on its own cache line: workers of other
 * warehouses must not slow each other down through false sharing. */
typedef struct pt_lock {
	pthread_mutex_t m;
} __attribute__((aligned(64))) pt_lock_t;

typedef struct pt_run {
	tpcc_db_t *db;
	tpcc_private_t *p;
	pt_lock_t *lock;          /* [warehouses] */
} pt_run_t;

/* The distinct warehouses of req into w[] in ascending order (P2); their
 * number. */
static unsigned pt_warehouses(const tpcc_request_t *req, uint32_t w[TPCC_MAX_OL + 1])
{
	unsigned n = 0;
	if (req->type == TPCC_NEW_ORDER) {
		const tpcc_new_order_in_t *in = &req->in.new_order;
		w[n++] = in->w;
		for (uint32_t i = 0; i < in->ol_cnt; i++)
			w[n++] = in->line[i].supply_w;
	} else {
		w[n++] = req->in.payment.w;
		w[n++] = req->in.payment.c_w;
	}
	/* Insertion sort of at most 16, dropping duplicates. */
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t x = w[i];
		unsigned j = m;
		while (j > 0 && w[j - 1] > x)
			j--;
		if (j > 0 && w[j - 1] == x)
			continue;
		memmove(&w[j + 1], &w[j], (m - j) * sizeof *w);
		w[j] = x;
		m++;
	}
	return m;
}

/* ---- New-Order ------------------------------------------------------------------------- */

static void pt_new_order(pt_run_t *r, const tpcc_new_order_in_t *in, tpcc_result_t *res)
{
	tpcc_new_order_out_t *out = &res->out.new_order;
	tpcc_private_t *p = r->p;
	const tpcc_item_t *it[TPCC_MAX_OL];
	/* P3: every item first. */
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		it[i] = store_private_get(p->item, tpcc_item_key(in->line[i].i_id));
		if (it[i] == NULL) {
			res->rolled_back = out->rolled_back = true;
			return;
		}
	}
	tpcc_private_wh_t *x = &p->wh[in->w - 1];
	const tpcc_warehouse_t *wh = store_private_get(x->warehouse, tpcc_warehouse_key(in->w));
	tpcc_district_t *di = store_private_get(x->district, tpcc_district_key(in->w, in->d));
	const tpcc_customer_t *cu = store_private_get(x->customer,
	                                              tpcc_customer_key(in->w, in->d, in->c));
	if (wh == NULL || di == NULL || cu == NULL) {
		res->missing = "New-Order: its warehouse, district or customer is missing";
		return;
	}
	memcpy(out->c_last, cu->c_last, sizeof cu->c_last);
	memcpy(out->c_credit, cu->c_credit, sizeof cu->c_credit);
	int64_t o_id = di->d_next_o_id;
	if ((uint64_t)o_id > TPCC_O_ID_MAX) {
		res->missing = "New-Order: the district's order ids are exhausted";
		return;
	}
	/* The stock rows before any write: past them only an impossible
	 * outcome (a taken key, reported as an error) stops the writes. */
	tpcc_stock_t *st[TPCC_MAX_OL];
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		uint32_t sw = in->line[i].supply_w;
		st[i] = store_private_get(p->wh[sw - 1].stock, tpcc_stock_key(sw, in->line[i].i_id));
		if (st[i] == NULL) {
			res->missing = "New-Order: a STOCK row of an item is missing";
			return;
		}
	}
	uint64_t okey = tpcc_order_key(in->w, in->d, (uint64_t)o_id);
	tpcc_order_t o;
	tpcc_new_order_t no;
	tpcc_order_rows(in, o_id, &o, &no);
	if (store_private_insert(x->order, okey, &o) == NULL ||
	    store_private_insert(x->new_order, okey, &no) == NULL) {
		res->missing = "New-Order: the new order's id is taken";
		return;
	}
	di->d_next_o_id = o_id + 1;
	int64_t sum = 0;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		uint32_t qty = in->line[i].quantity;
		tpcc_stock_t *s = st[i];
		s->s_quantity = tpcc_restock(s->s_quantity, qty);
		s->s_ytd += (int32_t)qty;
		s->s_order_cnt++;
		if (in->line[i].supply_w != in->w)
			s->s_remote_cnt++;
		tpcc_order_line_t ol;
		tpcc_order_line_row(in, i, it[i]->i_price, &ol);
		ol.ol_o_id = o_id;
		memcpy(ol.ol_dist_info, s->s_dist[in->d - 1], sizeof ol.ol_dist_info);
		if (store_private_insert(x->order_line,
		                         tpcc_order_line_key(in->w, in->d, (uint64_t)o_id, i + 1),
		                         &ol) == NULL) {
			res->missing = "New-Order: an order line's key is taken";
			return;
		}
		sum += ol.ol_amount;
		memcpy(out->line[i].i_name, it[i]->i_name, sizeof it[i]->i_name);
		out->line[i].brand = tpcc_brand(it[i]->i_data, s->s_data);
		out->line[i].amount = ol.ol_amount;
		out->line[i].s_quantity = s->s_quantity;
	}
	out->total = tpcc_order_total(sum, cu->c_discount, wh->w_tax, di->d_tax);
	out->o_id = (uint64_t)o_id;
}

/* ---- Payment ----------------------------------------------------------------------------- */

static void pt_payment(pt_run_t *r, tpcc_worker_t *me, const tpcc_payment_in_t *in,
                       tpcc_result_t *res)
{
	tpcc_payment_out_t *out = &res->out.payment;
	tpcc_private_wh_t *x = &r->p->wh[in->w - 1], *cx = &r->p->wh[in->c_w - 1];
	/* By name: the customer's warehouse's index, under its lock (P1). */
	uint32_t c_id = in->c_id != 0 ? in->c_id
	              : tpcc_private_customer_by_name(r->p, me->names, r->db->customers,
	                                              in->c_w, in->c_d, in->name);
	tpcc_warehouse_t *wh = store_private_get(x->warehouse, tpcc_warehouse_key(in->w));
	tpcc_district_t *di = store_private_get(x->district, tpcc_district_key(in->w, in->d));
	tpcc_customer_t *cu = c_id == 0 ? NULL
	                    : store_private_get(cx->customer,
	                                        tpcc_customer_key(in->c_w, in->c_d, c_id));
	if (wh == NULL || di == NULL || cu == NULL) {
		res->missing = "Payment: its warehouse, district or customer is missing";
		return;
	}
	tpcc_history_t h;
	tpcc_history_row(in, c_id, wh->w_name, di->d_name, &h);
	if (store_private_insert(x->history, in->history_key, &h) == NULL) {
		res->missing = "Payment: the history row's key is taken";
		return;
	}
	wh->w_ytd += in->amount;
	di->d_ytd += in->amount;
	cu->c_balance -= in->amount;
	cu->c_ytd_payment += in->amount;
	cu->c_payment_cnt++;
	if (cu->c_credit[0] == 'B' && cu->c_credit[1] == 'C')
		tpcc_private_bad_credit(cu, in, c_id);
	out->c_id = c_id;
	out->c_balance = cu->c_balance;
	memcpy(out->c_credit, cu->c_credit, sizeof cu->c_credit);
	memcpy(out->c_first, cu->c_first, sizeof cu->c_first);
	memcpy(out->w_name, wh->w_name, sizeof wh->w_name);
	memcpy(out->d_name, di->d_name, sizeof di->d_name);
	memcpy(out->w_street_1, wh->w_street_1, sizeof wh->w_street_1);
	memcpy(out->w_city, wh->w_city, sizeof wh->w_city);
	memcpy(out->d_street_1, di->d_street_1, sizeof di->d_street_1);
	memcpy(out->d_city, di->d_city, sizeof di->d_city);
}

/* ---- the run ------------------------------------------------------------------------------ */

static void pt_op(void *shared, bench_thread_t *self)
{
	pt_run_t *r = shared;
	tpcc_db_t *db = r->db;
	unsigned id = self->id;
	tpcc_worker_t *me = &db->worker[id];
	uint32_t home = id % db->warehouses + 1;
	enum tpcc_tx_type type = tpcc_pick_type(db, &self->rng);
	int64_t now = tpcc_now(db, id, me->clock++);
	uint64_t t0 = bench_now_ns();
	tpcc_request_t req;
	tpcc_result_t res;
	tpcc_draw(db, me, &self->rng, id, home, type, now, &req);
	memset(&res, 0, sizeof res);
	uint32_t w[TPCC_MAX_OL + 1];
	unsigned n = pt_warehouses(&req, w);
	for (unsigned i = 0; i < n; i++)   /* ascending: P2 */
		pthread_mutex_lock(&r->lock[w[i] - 1].m);
	if (req.type == TPCC_NEW_ORDER)
		pt_new_order(r, &req.in.new_order, &res);
	else
		pt_payment(r, me, &req.in.payment, &res);
	for (unsigned i = n; i-- > 0;)
		pthread_mutex_unlock(&r->lock[w[i] - 1].m);
	tpcc_tally(me, &req, &res, home);
	bench_lat_add(&me->lat[req.type], bench_now_ns() - t0);
	me->done[req.type]++;
}

int tpcc_partitioned_run(tpcc_db_t *db, const bench_common_t *c, bench_run_result_t *run,
                         tpcc_private_t **out)
{
	*out = NULL;
	if (db->mix != TPCC_MIX_ONLY_FIRST + TPCC_NEW_ORDER &&
	    db->mix != TPCC_MIX_ONLY_FIRST + TPCC_PAYMENT) {
		fprintf(stderr, "tpcc: -e partitioned runs New-Order or Payment alone (-m "
		        "new-order, -m payment)\n");
		return BENCH_EXIT_USAGE;
	}
	if (db->part != NULL || db->lsd) {
		fprintf(stderr, "tpcc: -e partitioned: neither partitioned tables nor -a lsd\n");
		return BENCH_EXIT_USAGE;
	}
	pt_run_t r = { .db = db };
	r.lock = aligned_alloc(64, db->warehouses * sizeof *r.lock);
	if (r.lock == NULL) {
		fprintf(stderr, "tpcc: -e partitioned: out of memory for the locks\n");
		return BENCH_EXIT_FAILED;
	}
	for (uint32_t i = 0; i < db->warehouses; i++)
		pthread_mutex_init(&r.lock[i].m, NULL);
	r.p = tpcc_private_copy_in(db);
	int rc = BENCH_EXIT_FAILED;
	if (r.p == NULL)
		fprintf(stderr, "tpcc: -e partitioned: out of memory for the private tables\n");
	else
		rc = bench_run(c, pt_op, &r, run);
	for (uint32_t i = 0; i < db->warehouses; i++)
		pthread_mutex_destroy(&r.lock[i].m);
	free(r.lock);
	*out = r.p;
	return rc;
}
