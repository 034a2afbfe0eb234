/*
 * tpcc/tpcc_dora.c — TPC-C's five transactions as DORA flow graphs
 * (<potm/dora.h>), routed by warehouse: -e dora.
 *
 * Every table is routed by its warehouse id (one range rule: warehouses
 * 1..W in equal ranges over the executors), so an action touching one
 * warehouse's rows runs on that warehouse's executor.  The local locks
 * (space, key), all keyed through the warehouse and so owned by one
 * executor each:
 *   WAREHOUSE (w)        W_YTD                       Payment X
 *   DISTRICT  (w, d)     D_YTD                       Payment X
 *   ORDERS    (w, d)     D_NEXT_O_ID and the district's NEW-ORDER, ORDER
 *                        and ORDER-LINE rows (a key-prefix lock)
 *                        New-Order X, Delivery X, Order-Status S,
 *                        Stock-Level S
 *   CUSTOMER  (w, d, c)  the balance and counters    Payment X, Delivery X,
 *                        Order-Status S
 *   STOCK     (w, i)                                 New-Order X, Stock-Level S
 * Fields no transaction changes (taxes, names, addresses, C_DISCOUNT,
 * C_CREDIT, C_LAST, every ITEM row, the customers' last-name index) are
 * read under no lock, and with plain C or store_read_frozen (store.h);
 * HISTORY rows are inserted under fresh keys, so
 * their insert locks nothing.
 *
 * The flow graphs (phases separated by RVPs; ex(w) is w's executor):
 *   New-Order     1: district (ex(w): next order id, taxes, customer's
 *                    discount) | one stock action per supplying
 *                    warehouse (ex(supply_w): items, quantities; an
 *                    unused item aborts the transaction: every action's
 *                    effects are undone)
 *                 2: insert ORDER, NEW-ORDER, ORDER-LINEs (ex(w))
 *   Payment       0: by last name only: the secondary action on
 *                    ex(c_w), the customer's id from the name index
 *                 1: warehouse (ex(w)) | district (ex(w)) | customer
 *                    (ex(c_w), remote 15 %)       (the DORA report's
 *                    Payment flow graph)
 *                 2: insert HISTORY (ex(w))
 *   Order-Status  0: by last name only: the secondary action
 *                 1: customer, last order, its lines (ex(w))
 *   Delivery      1: the ten districts' oldest new orders (ex(w))
 *                 2: their customers (ex(w))
 *   Stock-Level   1: the last 20 orders' items (ex(w))
 *                 2: their stock rows (ex(w), shared locks)
 *
 * The graphs and the terminals that submit them are tpcc_dora_term.c's,
 * shared with -e dora-private; this file holds the actions (tdora_ops).
 */
#include "tpcc_internal.h"

#include <potm/dora.h>

#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the secondary action: a customer by last name ------------------------- */

/* The district's customers of a last name, sorted by first name: the
 * middle one (clause 2.5.2.2).  Names and the index never change, so it
 * takes no lock; the executor's scratch holds the hits. */
static int act_by_name(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	uint32_t w, d, name;
	if (s->req.type == TPCC_PAYMENT) {
		w = s->req.in.payment.c_w;
		d = s->req.in.payment.c_d;
		name = s->req.in.payment.name;
	} else {
		w = s->req.in.order_status.w;
		d = s->req.in.order_status.d;
		name = s->req.in.order_status.name;
	}
	s->c_id = tpcc_customer_by_name(db, db->worker[potm_dora_act_executor(a)].names, w, d,
	                                name);
	if (s->c_id == 0) {
		tpcc_dora_set_missing(s, "no customer has the last name");
		return 1;
	}
	return 0;
}

/* ---- New-Order --------------------------------------------------------------- */

static int no_district(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_new_order_in_t *in = &s->req.in.new_order;
	tpcc_new_order_out_t *out = &s->res.out.new_order;
	tpcc_new_order_rows_t r;
	if (!tpcc_new_order_rows(db, in, out, &r)) {
		tpcc_dora_set_missing(s, out->missing);
		return 1;
	}
	tpcc_district_t *di = r.di;
	s->w_tax = r.w_tax;
	s->d_tax = r.d_tax;
	s->c_discount = r.c_discount;
	int64_t o_id = TM_LOAD(&di->d_next_o_id);
	if ((uint64_t)o_id > TPCC_O_ID_MAX) {
		tpcc_dora_set_missing(s, "New-Order: the district's order ids are exhausted");
		return 1;
	}
	/* D_NEXT_O_ID alone: Payment changes D_YTD under another lock. */
	potm_dora_save(a, db->district, di, &di->d_next_o_id, sizeof di->d_next_o_id);
	TM_STORE(&di->d_next_o_id, o_id + 1);
	s->o_id = o_id;
	return 0;
}

static int no_stock(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_group_t *g = arg;
	tpcc_dora_slot_t *s = g->s;
	tpcc_db_t *db = s->run->db;
	const tpcc_new_order_in_t *in = &s->req.in.new_order;
	tpcc_new_order_out_t *out = &s->res.out.new_order;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		if (in->line[i].supply_w != g->supply_w)
			continue;
		uint32_t qty = in->line[i].quantity;
		tpcc_item_t *it = store_get(db->item, tpcc_item_key(in->line[i].i_id));
		if (it == NULL) {
			/* Clause 2.4.2.3: the unused item rolls the whole
			 * New-Order back. */
			atomic_store(&s->rolled_back, true);
			return 1;
		}
		char i_data[sizeof it->i_data], s_data[sizeof(((tpcc_stock_t *)0)->s_data)];
		store_read_frozen(out->line[i].i_name, it->i_name, sizeof it->i_name);
		store_read_frozen(i_data, it->i_data, sizeof it->i_data);
		int64_t price = it->i_price;
		tpcc_stock_t *st = store_get(db->stock, tpcc_stock_key(g->supply_w, in->line[i].i_id));
		if (st == NULL) {
			tpcc_dora_set_missing(s, "New-Order: a STOCK row of an item is missing");
			return 1;
		}
		/* S_QUANTITY, S_YTD, S_ORDER_CNT, S_REMOTE_CNT: adjacent. */
		potm_dora_save(a, db->stock, st, &st->s_quantity,
		               offsetof(tpcc_stock_t, s_remote_cnt) + sizeof st->s_remote_cnt -
		               offsetof(tpcc_stock_t, s_quantity));
		int32_t s_qty = tpcc_restock(TM_LOAD(&st->s_quantity), qty);
		TM_STORE(&st->s_quantity, s_qty);
		TM_STORE(&st->s_ytd, TM_LOAD(&st->s_ytd) + (int32_t)qty);
		TM_STORE(&st->s_order_cnt, TM_LOAD(&st->s_order_cnt) + 1);
		if (g->supply_w != in->w)
			TM_STORE(&st->s_remote_cnt, TM_LOAD(&st->s_remote_cnt) + 1);
		store_read_frozen(s->line[i].dist_info, st->s_dist[in->d - 1],
		                 sizeof s->line[i].dist_info);
		store_read_frozen(s_data, st->s_data, sizeof s_data);
		s->line[i].price = price;
		s->line[i].s_quantity = s_qty;
		out->line[i].brand = tpcc_brand(i_data, s_data);
	}
	return 0;
}

static int no_insert(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	return tpcc_dora_no_insert(a, s, db->order, db->new_order, db->order_line);
}

/* ---- Payment ------------------------------------------------------------------ */

static int pay_warehouse(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_payment_out_t *out = &s->res.out.payment;
	tpcc_warehouse_t *wh = store_get(db->warehouse, tpcc_warehouse_key(in->w));
	if (wh == NULL) {
		tpcc_dora_set_missing(s, "Payment: its warehouse is missing");
		return 1;
	}
	potm_dora_save(a, db->warehouse, wh, &wh->w_ytd, sizeof wh->w_ytd);
	TM_STORE(&wh->w_ytd, TM_LOAD(&wh->w_ytd) + in->amount);
	store_read_frozen(s->w_name, wh->w_name, sizeof wh->w_name);
	store_read_frozen(out->w_street_1, wh->w_street_1, sizeof wh->w_street_1);
	store_read_frozen(out->w_city, wh->w_city, sizeof wh->w_city);
	return 0;
}

static int pay_district(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_payment_out_t *out = &s->res.out.payment;
	tpcc_district_t *di = store_get(db->district, tpcc_district_key(in->w, in->d));
	if (di == NULL) {
		tpcc_dora_set_missing(s, "Payment: its district is missing");
		return 1;
	}
	/* D_YTD alone: New-Order changes D_NEXT_O_ID under another lock. */
	potm_dora_save(a, db->district, di, &di->d_ytd, sizeof di->d_ytd);
	TM_STORE(&di->d_ytd, TM_LOAD(&di->d_ytd) + in->amount);
	store_read_frozen(s->d_name, di->d_name, sizeof di->d_name);
	store_read_frozen(out->d_street_1, di->d_street_1, sizeof di->d_street_1);
	store_read_frozen(out->d_city, di->d_city, sizeof di->d_city);
	return 0;
}

static int pay_customer(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_payment_out_t *out = &s->res.out.payment;
	tpcc_customer_t *cu = store_get(db->customer, tpcc_customer_key(in->c_w, in->c_d, s->c_id));
	if (cu == NULL) {
		tpcc_dora_set_missing(s, "Payment: the customer is missing");
		return 1;
	}
	store_read_frozen(out->c_credit, cu->c_credit, sizeof cu->c_credit);
	bool bad = out->c_credit[0] == 'B' && out->c_credit[1] == 'C';
	tpcc_dora_save_customer(a, db->customer, cu, bad);
	out->c_id = s->c_id;
	TM_STORE(&cu->c_balance, TM_LOAD(&cu->c_balance) - in->amount);
	TM_STORE(&cu->c_ytd_payment, TM_LOAD(&cu->c_ytd_payment) + in->amount);
	TM_STORE(&cu->c_payment_cnt, TM_LOAD(&cu->c_payment_cnt) + 1);
	store_read_frozen(out->c_first, cu->c_first, sizeof cu->c_first);
	if (bad)
		tpcc_payment_bad_credit(cu, in, s->c_id);
	out->c_balance = TM_LOAD(&cu->c_balance);
	return 0;
}

static int pay_history(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_history_t h;
	tpcc_history_row(in, s->c_id, s->w_name, s->d_name, &h);
	if (potm_dora_insert(a, db->history, in->history_key, &h) == NULL) {
		tpcc_dora_set_missing(s, "Payment: the history row's key is taken");
		return 1;
	}
	memcpy(s->res.out.payment.w_name, s->w_name, sizeof s->w_name);
	memcpy(s->res.out.payment.d_name, s->d_name, sizeof s->d_name);
	return 0;
}

/* ---- Order-Status --------------------------------------------------------------- */

static int os_read(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_order_status_in_t *in = &s->req.in.order_status;
	tpcc_order_status_out_t *out = &s->res.out.order_status;
	(void)a;
	out->lines = 0;
	tpcc_customer_t *cu = store_get(db->customer, tpcc_customer_key(in->w, in->d, s->c_id));
	if (cu == NULL) {
		tpcc_dora_set_missing(s, "Order-Status: the customer is missing");
		return 1;
	}
	const char *why = tpcc_order_status_read(db, in, s->c_id, cu, out);
	if (why != NULL) {
		tpcc_dora_set_missing(s, why);
		return 1;
	}
	return 0;
}

/* ---- Delivery --------------------------------------------------------------------- */

/* Deliver one order line in the scan (an update in place, its old date
 * saved first). */
typedef struct deliver_lines {
	potm_dora_act_t *a;
	store_table_t *t;
	int64_t date, sum;
} deliver_lines_t;

static int deliver_line(uint64_t key, void *rec, void *arg)
{
	deliver_lines_t *dl = arg;
	tpcc_order_line_t *ol = rec;
	(void)key;
	potm_dora_save(dl->a, dl->t, ol, &ol->ol_delivery_d, sizeof ol->ol_delivery_d);
	TM_STORE(&ol->ol_delivery_d, dl->date);
	dl->sum += ol->ol_amount;
	return 0;
}

/* The ten districts' oldest new orders: deleted, carrier set, lines
 * delivered; each order's customer and sum left for phase 2. */
static int dl_orders(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_delivery_in_t *in = &s->req.in.delivery;
	tpcc_delivery_out_t *out = &s->res.out.delivery;
	uint32_t w = in->w;
	out->delivered = out->skipped = 0;
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++) {
		out->o_id[d - 1] = 0;
		s->delivered_c[d - 1] = 0;
		uint64_t key;
		if (store_first(db->new_order, tpcc_order_key(w, d, 0),
		                tpcc_order_key(w, d, TPCC_O_ID_MAX), &key) == NULL) {
			out->skipped++;
			continue;
		}
		uint64_t o_id = tpcc_order_id_of(key);
		potm_dora_delete(a, db->new_order, key);
		tpcc_order_t *o = store_get(db->order, key);
		if (o == NULL) {
			tpcc_dora_set_missing(s, "Delivery: the order of a NEW-ORDER row is missing");
			return 1;
		}
		potm_dora_save(a, db->order, o, &o->o_carrier_id, sizeof o->o_carrier_id);
		uint32_t c_id = (uint32_t)o->o_c_id;
		TM_STORE(&o->o_carrier_id, in->carrier);
		deliver_lines_t dl = { .a = a, .t = db->order_line, .date = in->date };
		store_scan(db->order_line, tpcc_order_line_key(w, d, o_id, 0),
		           tpcc_order_line_key(w, d, o_id, TPCC_MAX_OL), STORE_ASC, deliver_line,
		           &dl);
		int64_t sum = dl.sum;
		s->delivered_c[d - 1] = c_id;
		s->delivered_sum[d - 1] = sum;
		out->o_id[d - 1] = o_id;
		out->delivered++;
	}
	return 0;
}

static int dl_customers(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	uint32_t w = s->req.in.delivery.w;
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++) {
		if (s->delivered_c[d - 1] == 0)
			continue;
		tpcc_customer_t *cu = store_get(db->customer,
		                                tpcc_customer_key(w, d, s->delivered_c[d - 1]));
		if (cu == NULL) {
			tpcc_dora_set_missing(s, "Delivery: the customer of an order is missing");
			return 1;
		}
		tpcc_dora_save_customer(a, db->customer, cu, false);
		TM_STORE(&cu->c_balance, TM_LOAD(&cu->c_balance) + s->delivered_sum[d - 1]);
		TM_STORE(&cu->c_delivery_cnt, TM_LOAD(&cu->c_delivery_cnt) + 1);
	}
	return 0;
}

/* ---- Stock-Level ------------------------------------------------------------------- */

static int sl_items(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_stock_level_in_t *in = &s->req.in.stock_level;
	(void)a;
	s->nitems = 0;
	tpcc_district_t *di = store_get(db->district, tpcc_district_key(in->w, in->d));
	if (di == NULL) {
		tpcc_dora_set_missing(s, "Stock-Level: the district is missing");
		return 1;
	}
	uint64_t next = (uint64_t)TM_LOAD(&di->d_next_o_id);
	s->nitems = tpcc_recent_items(db, in->w, in->d, next, s->items);
	return 0;
}

static int sl_stock(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tpcc_db_t *db = s->run->db;
	const tpcc_stock_level_in_t *in = &s->req.in.stock_level;
	tpcc_stock_level_out_t *out = &s->res.out.stock_level;
	(void)a;
	out->low = 0;
	for (uint32_t i = 0; i < s->nitems; i++) {
		tpcc_stock_t *st = store_get(db->stock, tpcc_stock_key(in->w, s->items[i]));
		if (st == NULL) {
			tpcc_dora_set_missing(s, "Stock-Level: the STOCK row of an ordered item is missing");
			return 1;
		}
		out->low += TM_LOAD(&st->s_quantity) < in->threshold;
	}
	return 0;
}

/* ---- the run: these actions in tpcc_dora_term.c's graphs and terminals ----------------- */

static const tpcc_dora_ops_t tdora_ops = {
	.by_name = act_by_name,
	.no_district = no_district, .no_stock = no_stock, .no_insert = no_insert,
	.pay_warehouse = pay_warehouse, .pay_district = pay_district,
	.pay_customer = pay_customer, .pay_history = pay_history,
	.os_read = os_read,
	.dl_orders = dl_orders, .dl_customers = dl_customers,
	.sl_items = sl_items, .sl_stock = sl_stock,
	.reroute_seed = 0xd0a,
};

int tpcc_dora_run(tpcc_db_t *db, const bench_common_t *c, uint64_t reroute_ms,
                  bench_run_result_t *run, potm_dora_stats_t *st)
{
	tpcc_dora_run_t r = { .db = db, .ops = &tdora_ops, .reroute_ms = reroute_ms };
	int rc = tpcc_dora_open(&r, "-e dora", false);
	return rc != 0 ? rc : tpcc_dora_drive(&r, c, run, st);
}
