/*
 * tpcc/tpcc_tx.c — the five transactions (clause 2.4–2.8) and the mix.
 *
 * Each transaction has three parts:
 *  - its input, drawn from the worker's own random stream before the
 *    transaction begins (clauses 2.4.1 to 2.8.1), so that a re-executed
 *    attempt sees the same input and a run is a function of the seed
 *    (and, under a deterministic backend, of nothing else);
 *  - its body, a function of the input and the database (clauses 2.4.2
 *    to 2.8.2), run between TM_BEGIN and TM_END by a small wrapper that
 *    takes only pointers, so that no local of the wrapper's frame changes
 *    inside the block; the results go to an output struct in the
 *    caller's frame;
 *  - the tally, after the commit.
 *
 * Columns no transaction ever writes (every ITEM column: the table is
 * sealed once populated; a row's names, address, taxes, C_CREDIT,
 * C_DISCOUNT, S_DIST_xx, S_DATA; an ORDER's and ORDER-LINE's columns but
 * O_CARRIER_ID and OL_DELIVERY_D) are frozen from their row's insert and
 * read with plain C or store_read_frozen (store.h): there is nothing to
 * conflict with.  Every other column goes through the TM.
 * A row the profile needs and that cannot be missing (a district, a
 * customer found by id, ...) is reported as an error through the output
 * and the transaction commits what it did so far: nothing is cancelled
 * but the one case the spec cancels, so that tm_was_cancelled() alone
 * tells a New-Order rollback (an HTM backend undoes every store of a
 * cancelled attempt, the output's included).
 *
 * With -a lsd, New-Order and Payment are written with Lazy State
 * Determination (<potm/lsd.h>, the Pot thesis's TPC-C of section 4.4.1):
 * their counters and balances are lazy writes (a function of the row's
 * value at the commit: W_YTD + amount, S_YTD + quantity, ...), a stock's
 * quantity is a future with a condition (S_QUANTITY >= quantity + 10
 * picks the branch) and the district's next order id is a future key: the
 * rows it keys are inserted at the end of the body, where it is resolved,
 * not when it is read.  Two New-Orders of one district then conflict
 * only when one commits while the other inserts its rows, two on one
 * item only when the restock condition flips, and Payments on one
 * warehouse not at all.  What a terminal would display from a lazily
 * written row (a stock's new quantity, the customer's new balance) is
 * known only at the commit and is not reported.  Delivery adds to the
 * customer's balance and delivery count lazily too, and the readers of
 * lazily written columns read them through LSD (Order-Status's balance
 * resolved, Stock-Level's quantities as conditions against the
 * threshold, its district's next order id resolved): a transaction that
 * runs several requests (potm-server's --extend and --requests-per-tx)
 * may reach a word an earlier request wrote lazily, which <potm/lsd.h>
 * reads only through its future.
 *
 * Workers have a home warehouse, worker i -> warehouse i % W + 1 (a
 * terminal keeps its warehouse, clauses 2.4.1.1 to 2.8.1.1; several
 * workers share one when there are fewer warehouses than workers), and
 * no think or keying time.
 */
#include "tpcc_internal.h"

#include <potm/lsd.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first impossible outcome of a worker, for the verdict. */
static void worker_error(tpcc_worker_t *me, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void worker_error(tpcc_worker_t *me, const char *fmt, ...)
{
	if (me->errors++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(me->error, sizeof me->error, fmt, ap);
		va_end(ap);
	}
}

static uint32_t home_warehouse(const tpcc_db_t *db, unsigned id)
{
	return id % db->warehouses + 1;
}

/* A warehouse other than home, uniform (the caller ensures W > 1). */
static uint32_t other_warehouse(const tpcc_db_t *db, bench_rng_t *r, uint32_t home)
{
	uint32_t w = tpcc_rand(r, 1, db->warehouses - 1);
	return w >= home ? w + 1 : w;
}

/* ---- customers by last name (clause 2.5.2.2, 2.6.2.2) ------------------------------------ */

typedef struct name_scan {
	tpcc_name_hit_t *hit;
	uint32_t n, cap;
} name_scan_t;

static int collect_name(uint64_t skey, void *rec, void *arg)
{
	name_scan_t *s = arg;
	if (s->n == s->cap)
		return 1;   /* never: a district has no more customers */
	const tpcc_customer_t *c = rec;
	store_read_frozen(s->hit[s->n].first, c->c_first, sizeof c->c_first);
	s->hit[s->n].c_id = (uint32_t)(skey & TPCC_C_MAX);
	s->n++;
	return 0;
}

static int by_first_name(const void *x, const void *y)
{
	const tpcc_name_hit_t *a = x, *b = y;
	int c = strcmp(a->first, b->first);
	return c ? c : (a->c_id > b->c_id) - (a->c_id < b->c_id);
}

uint32_t tpcc_customer_by_name(tpcc_db_t *db, tpcc_name_hit_t *hits, uint32_t w, uint32_t d,
                               uint32_t name)
{
	name_scan_t s = { .hit = hits, .cap = db->customers };
	store_index_scan(db->customer_by_name, tpcc_customer_name_key(w, d, name, 0),
	                 tpcc_customer_name_key(w, d, name, TPCC_C_MAX), STORE_ASC,
	                 collect_name, &s);
	if (s.n == 0)
		return 0;
	qsort(s.hit, s.n, sizeof *s.hit, by_first_name);
	return s.hit[(s.n - 1) / 2].c_id;
}

/* ---- New-Order (clause 2.4) ----------------------------------------------------------------- */

/* *a += d: a standard read and write, or with -a lsd a lazy write of the
 * row's value at the commit plus d. */
static void tpcc_add_i64(const tpcc_db_t *db, int64_t *a, int64_t d)
{
	if (db->lsd)
		lsd_write(a, lsd_add(lsd_read(a), lsd_const(d)));
	else
		TM_STORE(a, TM_LOAD(a) + d);
}

static void tpcc_add_i32(const tpcc_db_t *db, int32_t *a, int32_t d)
{
	if (db->lsd)
		lsd_write_i32(a, lsd_add(lsd_read_i32(a), lsd_const(d)));
	else
		TM_STORE(a, TM_LOAD(a) + d);
}

/* *a: a standard read, or with -a lsd its future resolved, which is the
 * same value and also reads a word the transaction wrote lazily. */
static int64_t tpcc_load_i64(const tpcc_db_t *db, const int64_t *a)
{
	return db->lsd ? lsd_value(lsd_read(a)) : TM_LOAD(a);
}

void tpcc_order_rows(const tpcc_new_order_in_t *in, int64_t o_id, tpcc_order_t *o,
                     tpcc_new_order_t *no)
{
	memset(o, 0, sizeof *o);
	o->o_id = o_id;
	o->o_c_id = (int32_t)in->c;
	o->o_d_id = (int32_t)in->d;
	o->o_w_id = (int32_t)in->w;
	o->o_entry_d = in->entry_d;
	o->o_carrier_id = 0;
	o->o_ol_cnt = (int32_t)in->ol_cnt;
	o->o_all_local = in->all_local;
	memset(no, 0, sizeof *no);
	no->no_o_id = o_id;
	no->no_d_id = (int32_t)in->d;
	no->no_w_id = (int32_t)in->w;
}

/* The ORDER and NEW-ORDER rows of order o_id; false if its key is taken. */
static bool new_order_insert_order(tpcc_db_t *db, const tpcc_new_order_in_t *in, int64_t o_id)
{
	tpcc_order_t o;
	tpcc_new_order_t no;
	tpcc_order_rows(in, o_id, &o, &no);
	uint64_t okey = tpcc_order_key(in->w, in->d, (uint64_t)o_id);
	return store_insert(db->order, okey, &o) != NULL &&
	       store_insert(db->new_order, okey, &no) != NULL;
}

#define ITEM_DATA_SIZE sizeof(((tpcc_item_t *)0)->i_data)

/* Line i's item and stock rows: the item's name into out, its data into
 * i_data, its price into *price; the stock row, or NULL (out->missing).
 * Clause 2.4.2.3: an unused item id rolls the whole New-Order back; it is
 * the 1 % of clause 2.4.1.4, whose last line carries one. */
static tpcc_stock_t *new_order_stock(tpcc_db_t *db, const tpcc_new_order_in_t *in, uint32_t i,
                                     tpcc_new_order_out_t *out, char i_data[static ITEM_DATA_SIZE],
                                     int64_t *price)
{
	tpcc_item_t *it = store_get(db->item, tpcc_item_key(in->line[i].i_id));
	if (it == NULL)
		tm_cancel();
	store_read_frozen(out->line[i].i_name, it->i_name, sizeof it->i_name);
	store_read_frozen(i_data, it->i_data, sizeof it->i_data);
	*price = it->i_price;
	tpcc_stock_t *st = store_get(db->stock,
	                             tpcc_stock_key(in->line[i].supply_w, in->line[i].i_id));
	if (st == NULL)
		out->missing = "New-Order: a STOCK row of an item is missing";
	return st;
}

bool tpcc_new_order_rows(tpcc_db_t *db, const tpcc_new_order_in_t *in, tpcc_new_order_out_t *out,
                         tpcc_new_order_rows_t *r)
{
	tpcc_warehouse_t *wh = store_get(db->warehouse, tpcc_warehouse_key(in->w));
	tpcc_district_t *di = store_get(db->district, tpcc_district_key(in->w, in->d));
	tpcc_customer_t *cu = store_get(db->customer, tpcc_customer_key(in->w, in->d, in->c));
	if (wh == NULL || di == NULL || cu == NULL) {
		out->missing = "New-Order: its warehouse, district or customer is missing";
		return false;
	}
	r->di = di;
	r->w_tax = wh->w_tax;
	r->d_tax = di->d_tax;
	r->c_discount = cu->c_discount;
	store_read_frozen(out->c_last, cu->c_last, sizeof cu->c_last);
	store_read_frozen(out->c_credit, cu->c_credit, sizeof cu->c_credit);
	return true;
}

void tpcc_order_line_row(const tpcc_new_order_in_t *in, uint32_t i, int64_t price,
                         tpcc_order_line_t *ol)
{
	memset(ol, 0, sizeof *ol);
	ol->ol_d_id = (int32_t)in->d;
	ol->ol_w_id = (int32_t)in->w;
	ol->ol_number = (int32_t)(i + 1);
	ol->ol_i_id = (int32_t)in->line[i].i_id;
	ol->ol_supply_w_id = (int32_t)in->line[i].supply_w;
	ol->ol_delivery_d = 0;
	ol->ol_quantity = (int32_t)in->line[i].quantity;
	ol->ol_amount = (int64_t)in->line[i].quantity * price;
}

/* Line i's ORDER-LINE row but its order id, from its stock row (the
 * district's S_DIST), and its amount and brand into out. */
static void new_order_line(const tpcc_new_order_in_t *in, uint32_t i, const tpcc_stock_t *st,
                           int64_t price, const char *i_data, tpcc_order_line_t *ol,
                           tpcc_new_order_out_t *out)
{
	char s_data[sizeof st->s_data];
	tpcc_order_line_row(in, i, price, ol);
	store_read_frozen(ol->ol_dist_info, st->s_dist[in->d - 1], sizeof ol->ol_dist_info);
	store_read_frozen(s_data, st->s_data, sizeof st->s_data);
	out->line[i].amount = ol->ol_amount;
	out->line[i].brand = tpcc_brand(i_data, s_data);
}

/* Whether the body must end at once as rolled back.  seq keeps no undo log
 * and cannot cancel, nor can a transaction that holds other requests too:
 * there the unused item is looked for before the first write, and the
 * transaction commits having changed nothing, the outcome of a rollback.
 * (ITEM is never written, so reading it early changes nothing else.) */
static bool new_order_rolls_back_early(tpcc_db_t *db, const tpcc_new_order_in_t *in,
                                       tpcc_new_order_out_t *out)
{
	out->missing = NULL;
	out->rolled_back = false;
	if (!db->can_cancel)
		for (uint32_t i = 0; i < in->ol_cnt; i++)
			if (store_get(db->item, tpcc_item_key(in->line[i].i_id)) == NULL) {
				out->rolled_back = true;
				return true;
			}
	return false;
}

static void new_order_body(tpcc_db_t *db, const tpcc_new_order_in_t *in, tpcc_new_order_out_t *out)
{
	if (new_order_rolls_back_early(db, in, out))
		return;
	tpcc_new_order_rows_t r;
	if (!tpcc_new_order_rows(db, in, out, &r))
		return;
	tpcc_district_t *di = r.di;
	int64_t o_id = TM_LOAD(&di->d_next_o_id);
	if ((uint64_t)o_id > TPCC_O_ID_MAX) {
		out->missing = "New-Order: the district's order ids are exhausted";
		return;
	}
	TM_STORE(&di->d_next_o_id, o_id + 1);
	store_update(db->district, di);
	if (!new_order_insert_order(db, in, o_id)) {
		out->missing = "New-Order: the new order's id is taken";
		return;
	}

	int64_t sum = 0;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		uint32_t supply_w = in->line[i].supply_w, qty = in->line[i].quantity;
		char i_data[ITEM_DATA_SIZE];
		int64_t price;
		tpcc_stock_t *st = new_order_stock(db, in, i, out, i_data, &price);
		if (st == NULL)
			return;
		/* S_QUANTITY, S_YTD, S_ORDER_CNT and S_REMOTE_CNT are adjacent:
		 * one range read and one range write, the stripe's checks and
		 * bookkeeping once rather than a TM call per column.  An
		 * unchanged S_REMOTE_CNT is written back as it was: it shares
		 * its word with S_ORDER_CNT. */
		int32_t c[4];
		_Static_assert(offsetof(tpcc_stock_t, s_remote_cnt) ==
		               offsetof(tpcc_stock_t, s_quantity) + 3 * sizeof(int32_t),
		               "the stock counters are adjacent");
		tm_read_bytes(c, &st->s_quantity, sizeof c);
		int32_t s_qty = tpcc_restock(c[0], qty);
		c[0] = s_qty;
		c[1] += (int32_t)qty;
		c[2] += 1;
		c[3] += supply_w != in->w;
		tm_write_bytes(&st->s_quantity, c, sizeof c);
		store_update(db->stock, st);
		tpcc_order_line_t ol;
		new_order_line(in, i, st, price, i_data, &ol, out);
		ol.ol_o_id = o_id;
		if (store_insert(db->order_line,
		                 tpcc_order_line_key(in->w, in->d, (uint64_t)o_id, i + 1),
		                 &ol) == NULL) {
			out->missing = "New-Order: an order line's key is taken";
			return;
		}
		sum += ol.ol_amount;
		out->line[i].s_quantity = s_qty;
	}
	out->total = tpcc_order_total(sum, r.c_discount, r.w_tax, r.d_tax);
	out->o_id = (uint64_t)o_id;
}

/* New-Order with LSD (see the head of this file).  The same profile as
 * new_order_body. */
static void new_order_body_lsd(tpcc_db_t *db, const tpcc_new_order_in_t *in, tpcc_new_order_out_t *out)
{
	if (new_order_rolls_back_early(db, in, out))
		return;
	tpcc_new_order_rows_t r;
	if (!tpcc_new_order_rows(db, in, out, &r))
		return;
	tpcc_district_t *di = r.di;
	/* The next order id: a future, incremented lazily. */
	lsd_val_t next = lsd_read(&di->d_next_o_id);
	if (!lsd_is_true(lsd_cmp(next, LSD_LE, lsd_const((int64_t)TPCC_O_ID_MAX)))) {
		out->missing = "New-Order: the district's order ids are exhausted";
		return;
	}
	lsd_write(&di->d_next_o_id, lsd_add(next, lsd_const(1)));

	/* The order lines, keyed by the future order id: kept here until the
	 * end of the body. */
	tpcc_order_line_t ol[TPCC_MAX_OL];
	int64_t sum = 0;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		uint32_t supply_w = in->line[i].supply_w, qty = in->line[i].quantity;
		char i_data[ITEM_DATA_SIZE];
		int64_t price;
		tpcc_stock_t *st = new_order_stock(db, in, i, out, i_data, &price);
		if (st == NULL)
			return;
		/* Clause 2.4.2.2 as a condition over the future quantity: the
		 * commit needs only its answer to stand. */
		lsd_val_t s_qty = lsd_read_i32(&st->s_quantity);
		lsd_val_t q = lsd_const((int64_t)qty);
		lsd_val_t taken = lsd_sub(s_qty, q);
		if (lsd_is_true(lsd_cmp(s_qty, LSD_GE, lsd_const((int64_t)qty + 10))))
			lsd_write_i32(&st->s_quantity, taken);
		else
			lsd_write_i32(&st->s_quantity, lsd_add(taken, lsd_const(91)));
		tpcc_add_i32(db, &st->s_ytd, (int32_t)qty);
		tpcc_add_i32(db, &st->s_order_cnt, 1);
		if (supply_w != in->w)
			tpcc_add_i32(db, &st->s_remote_cnt, 1);
		new_order_line(in, i, st, price, i_data, &ol[i], out);
		sum += ol[i].ol_amount;
		out->line[i].s_quantity = -1;   /* known at the commit only */
	}

	/* The future key, resolved at the end: the rows it keys go in now. */
	int64_t o_id = lsd_value(next);
	if (!new_order_insert_order(db, in, o_id)) {
		out->missing = "New-Order: the new order's id is taken";
		return;
	}
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		ol[i].ol_o_id = o_id;
		if (store_insert(db->order_line,
		                 tpcc_order_line_key(in->w, in->d, (uint64_t)o_id, i + 1),
		                 &ol[i]) == NULL) {
			out->missing = "New-Order: an order line's key is taken";
			return;
		}
	}
	out->total = tpcc_order_total(sum, r.c_discount, r.w_tax, r.d_tax);
	out->o_id = (uint64_t)o_id;
}

static void run_new_order(tpcc_db_t *db, const tpcc_new_order_in_t *in, tpcc_new_order_out_t *out)
{
	TM_BEGIN();
	if (db->lsd)
		new_order_body_lsd(db, in, out);
	else
		new_order_body(db, in, out);
	TM_END();
}

static void draw_new_order(const tpcc_db_t *db, bench_rng_t *r, uint32_t w, int64_t now,
                           tpcc_new_order_in_t *in)
{
	memset(in, 0, sizeof *in);
	in->w = w;
	in->d = tpcc_rand(r, 1, TPCC_DISTRICTS);
	in->c = tpcc_nurand(r, 1023, db->nurand.c_id, 1, db->customers);
	in->ol_cnt = tpcc_rand(r, TPCC_MIN_OL, TPCC_MAX_OL);
	bool rollback = tpcc_rand(r, 1, 100) == 1;
	in->all_local = 1;
	in->entry_d = now;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		in->line[i].i_id = tpcc_nurand(r, 8191, db->nurand.ol_i_id, 1, db->items);
		/* Clause 2.4.1.5: 1 % of the lines (-x) come from a remote
		 * warehouse, when there is one. */
		in->line[i].supply_w = w;
		if (db->warehouses > 1 && tpcc_rand(r, 1, 100) <= db->remote_pct) {
			in->line[i].supply_w = other_warehouse(db, r, w);
			in->all_local = 0;
		}
		in->line[i].quantity = tpcc_rand(r, 1, 10);
	}
	/* Clause 2.4.1.4: 1 % of New-Orders carry an unused item id on their
	 * last line and roll back. */
	if (rollback)
		in->line[in->ol_cnt - 1].i_id = db->items + 1;
}

static uint32_t remote_lines(const tpcc_new_order_in_t *in)
{
	uint32_t remote = 0;
	for (uint32_t i = 0; i < in->ol_cnt; i++)
		remote += in->line[i].supply_w != in->w;
	return remote;
}

/* ---- Payment (clause 2.5) ------------------------------------------------------------------ */

void tpcc_payment_bad_credit(tpcc_customer_t *cu, const tpcc_payment_in_t *in, uint32_t c_id)
{
	char old[sizeof cu->c_data], data[sizeof cu->c_data];
	store_read_bytes(old, cu->c_data, sizeof old);
	old[sizeof old - 1] = '\0';
	memset(data, 0, sizeof data);
	int n = snprintf(data, sizeof data, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32
	                 " %" PRIu32 " %" PRId64 ".%02" PRId64 " | ", c_id, in->c_d, in->c_w,
	                 in->d, in->w, in->amount / 100, in->amount % 100);
	size_t room = sizeof data - 1 - (size_t)n;
	size_t keep = strlen(old);
	memcpy(data + n, old, keep < room ? keep : room);
	store_write_bytes(cu->c_data, data, sizeof data);
}

void tpcc_history_row(const tpcc_payment_in_t *in, uint32_t c_id, const char *w_name,
                      const char *d_name, tpcc_history_t *h)
{
	memset(h, 0, sizeof *h);
	h->h_c_id = (int32_t)c_id;
	h->h_c_d_id = (int32_t)in->c_d;
	h->h_c_w_id = (int32_t)in->c_w;
	h->h_d_id = (int32_t)in->d;
	h->h_w_id = (int32_t)in->w;
	h->h_date = in->date;
	h->h_amount = in->amount;
	snprintf(h->h_data, sizeof h->h_data, "%s    %s", w_name, d_name);
}

/* Payment's HISTORY row inserted. */
static void payment_history(tpcc_db_t *db, const tpcc_payment_in_t *in, tpcc_payment_out_t *out,
                            uint32_t c_id)
{
	tpcc_history_t h;
	tpcc_history_row(in, c_id, out->w_name, out->d_name, &h);
	if (store_insert(db->history, in->history_key, &h) == NULL)
		out->missing = "Payment: the history row's key is taken";
}

static void payment_body(tpcc_db_t *db, tpcc_worker_t *me, const tpcc_payment_in_t *in,
                         tpcc_payment_out_t *out)
{
	out->missing = NULL;
	tpcc_warehouse_t *wh = store_get(db->warehouse, tpcc_warehouse_key(in->w));
	tpcc_district_t *di = store_get(db->district, tpcc_district_key(in->w, in->d));
	if (wh == NULL || di == NULL) {
		out->missing = "Payment: its warehouse or district is missing";
		return;
	}
	tpcc_add_i64(db, &wh->w_ytd, in->amount);
	store_update(db->warehouse, wh);
	store_read_frozen(out->w_name, wh->w_name, sizeof wh->w_name);
	store_read_frozen(out->w_street_1, wh->w_street_1, sizeof wh->w_street_1);
	store_read_frozen(out->w_city, wh->w_city, sizeof wh->w_city);
	tpcc_add_i64(db, &di->d_ytd, in->amount);
	store_update(db->district, di);
	store_read_frozen(out->d_name, di->d_name, sizeof di->d_name);
	store_read_frozen(out->d_street_1, di->d_street_1, sizeof di->d_street_1);
	store_read_frozen(out->d_city, di->d_city, sizeof di->d_city);

	uint32_t c_id = in->c_id ? in->c_id : tpcc_customer_by_name(db, me->names, in->c_w, in->c_d, in->name);
	tpcc_customer_t *cu = c_id ? store_get(db->customer,
	                                       tpcc_customer_key(in->c_w, in->c_d, c_id))
	                           : NULL;
	if (cu == NULL) {
		out->missing = in->c_id ? "Payment: the customer is missing"
		                        : "Payment: no customer has the last name";
		return;
	}
	out->c_id = c_id;
	tpcc_add_i64(db, &cu->c_balance, -in->amount);
	tpcc_add_i64(db, &cu->c_ytd_payment, in->amount);
	tpcc_add_i32(db, &cu->c_payment_cnt, 1);
	store_update(db->customer, cu);
	store_read_frozen(out->c_first, cu->c_first, sizeof cu->c_first);
	store_read_frozen(out->c_credit, cu->c_credit, sizeof cu->c_credit);
	if (out->c_credit[0] == 'B' && out->c_credit[1] == 'C')
		tpcc_payment_bad_credit(cu, in, c_id);
	/* With LSD the new balance is known at the commit only. */
	out->c_balance = db->lsd ? 0 : TM_LOAD(&cu->c_balance);

	payment_history(db, in, out, c_id);
}

static void run_payment(tpcc_db_t *db, tpcc_worker_t *me, const tpcc_payment_in_t *in,
                        tpcc_payment_out_t *out)
{
	TM_BEGIN();
	payment_body(db, me, in, out);
	TM_END();
}

static void draw_payment(const tpcc_db_t *db, tpcc_worker_t *me, bench_rng_t *r,
                         unsigned id, uint32_t w, int64_t now, tpcc_payment_in_t *in)
{
	*in = (tpcc_payment_in_t){ .w = w, .date = now };
	in->d = tpcc_rand(r, 1, TPCC_DISTRICTS);
	/* Clause 2.5.1.2: 85 % of customers pay at their home warehouse,
	 * 15 % at another one (when there is one), in a random district. */
	if (db->warehouses > 1 && tpcc_rand(r, 1, 100) > 85) {
		in->c_w = other_warehouse(db, r, w);
		in->c_d = tpcc_rand(r, 1, TPCC_DISTRICTS);
	} else {
		in->c_w = w;
		in->c_d = in->d;
	}
	/* 60 % by last name, 40 % by id. */
	if (tpcc_rand(r, 1, 100) <= 60)
		in->name = tpcc_nurand(r, 255, db->nurand.c_last_run, 0, tpcc_max_name(db));
	else
		in->c_id = tpcc_nurand(r, 1023, db->nurand.c_id, 1, db->customers);
	in->amount = tpcc_rand(r, 100, 500000);   /* 1.00 .. 5,000.00 */
	in->history_key = me != NULL ? tpcc_history_key(id + 1, me->history_seq++) : 0;
}

/* ---- Order-Status (clause 2.6) ------------------------------------------------------------- */

static int read_order_line(uint64_t key, void *rec, void *arg)
{
	tpcc_order_status_out_t *out = arg;
	const tpcc_order_line_t *ol = rec;
	(void)key;
	if (out->lines == TPCC_MAX_OL)
		return 1;
	out->line[out->lines].i_id = ol->ol_i_id;
	out->line[out->lines].supply_w = ol->ol_supply_w_id;
	out->line[out->lines].quantity = ol->ol_quantity;
	out->line[out->lines].amount = ol->ol_amount;
	out->line[out->lines].delivery_d = TM_LOAD(&ol->ol_delivery_d);
	out->lines++;
	return 0;
}

const char *tpcc_order_status_read(tpcc_db_t *db, const tpcc_order_status_in_t *in,
                                   uint32_t c_id, const tpcc_customer_t *cu,
                                   tpcc_order_status_out_t *out)
{
	out->c_id = c_id;
	out->c_balance = tpcc_load_i64(db, &cu->c_balance);
	store_read_frozen(out->c_first, cu->c_first, sizeof cu->c_first);
	store_read_frozen(out->c_middle, cu->c_middle, sizeof cu->c_middle);
	store_read_frozen(out->c_last, cu->c_last, sizeof cu->c_last);

	/* The customer's most recent order: the largest O_ID of its orders. */
	uint64_t skey;
	tpcc_order_t *o = store_index_last(db->order_by_customer,
	                                   tpcc_order_customer_key(in->w, in->d, c_id, 0),
	                                   tpcc_order_customer_key(in->w, in->d, c_id,
	                                                           TPCC_O_ID_MAX),
	                                   &skey);
	if (o == NULL)
		return "Order-Status: the customer has no order";
	out->o_id = tpcc_order_id_of(skey);
	out->o_entry_d = o->o_entry_d;
	out->o_carrier_id = TM_LOAD(&o->o_carrier_id);
	store_scan(db->order_line, tpcc_order_line_key(in->w, in->d, out->o_id, 0),
	           tpcc_order_line_key(in->w, in->d, out->o_id, TPCC_MAX_OL), STORE_ASC,
	           read_order_line, out);
	return NULL;
}

static void order_status_body(tpcc_db_t *db, tpcc_worker_t *me, const tpcc_order_status_in_t *in,
                              tpcc_order_status_out_t *out)
{
	out->missing = NULL;
	out->lines = 0;
	uint32_t c_id = in->c_id ? in->c_id : tpcc_customer_by_name(db, me->names, in->w, in->d, in->name);
	tpcc_customer_t *cu = c_id ? store_get(db->customer,
	                                       tpcc_customer_key(in->w, in->d, c_id))
	                           : NULL;
	if (cu == NULL) {
		out->missing = in->c_id ? "Order-Status: the customer is missing"
		                        : "Order-Status: no customer has the last name";
		return;
	}
	out->missing = tpcc_order_status_read(db, in, c_id, cu, out);
}

static void run_order_status(tpcc_db_t *db, tpcc_worker_t *me, const tpcc_order_status_in_t *in,
                             tpcc_order_status_out_t *out)
{
	TM_BEGIN_RO();   /* silo: a snapshot that never aborts */
	order_status_body(db, me, in, out);
	TM_END();
}

static void draw_order_status(const tpcc_db_t *db, bench_rng_t *r, uint32_t w,
                              tpcc_order_status_in_t *in)
{
	*in = (tpcc_order_status_in_t){ .w = w };
	in->d = tpcc_rand(r, 1, TPCC_DISTRICTS);
	/* Clause 2.6.1.2: 60 % by last name, 40 % by id. */
	if (tpcc_rand(r, 1, 100) <= 60)
		in->name = tpcc_nurand(r, 255, db->nurand.c_last_run, 0, tpcc_max_name(db));
	else
		in->c_id = tpcc_nurand(r, 1023, db->nurand.c_id, 1, db->customers);
}

/* ---- Delivery (clause 2.7) ------------------------------------------------------------------ */

typedef struct deliver_lines {
	int64_t date;
	int64_t sum;
	store_table_t *order_line;
} deliver_lines_t;

static int deliver_line(uint64_t key, void *rec, void *arg)
{
	deliver_lines_t *dl = arg;
	tpcc_order_line_t *ol = rec;
	(void)key;
	TM_STORE(&ol->ol_delivery_d, dl->date);
	store_update(dl->order_line, ol);
	dl->sum += ol->ol_amount;
	return 0;
}

/* The ten districts in one transaction (clause 2.7.4.1 allows up to ten;
 * one makes the whole batch atomic). */
static void delivery_body(tpcc_db_t *db, const tpcc_delivery_in_t *in, tpcc_delivery_out_t *out)
{
	out->missing = NULL;
	out->delivered = out->skipped = 0;
	uint32_t w = in->w;
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++) {
		out->o_id[d - 1] = 0;
		/* The district's oldest undelivered order; none: skip it
		 * (clause 2.7.4.2). */
		uint64_t key;
		if (store_first(db->new_order, tpcc_order_key(w, d, 0),
		                tpcc_order_key(w, d, TPCC_O_ID_MAX), &key) == NULL) {
			out->skipped++;
			continue;
		}
		uint64_t o_id = tpcc_order_id_of(key);
		store_delete(db->new_order, key);
		tpcc_order_t *o = store_get(db->order, key);
		if (o == NULL) {
			out->missing = "Delivery: the order of a NEW-ORDER row is missing";
			return;
		}
		uint32_t c_id = (uint32_t)o->o_c_id;
		TM_STORE(&o->o_carrier_id, in->carrier);
		store_update(db->order, o);
		deliver_lines_t dl = { .date = in->date, .sum = 0, .order_line = db->order_line };
		store_scan(db->order_line, tpcc_order_line_key(w, d, o_id, 0),
		           tpcc_order_line_key(w, d, o_id, TPCC_MAX_OL), STORE_ASC, deliver_line,
		           &dl);
		tpcc_customer_t *cu = store_get(db->customer, tpcc_customer_key(w, d, c_id));
		if (cu == NULL) {
			out->missing = "Delivery: the customer of an order is missing";
			return;
		}
		tpcc_add_i64(db, &cu->c_balance, dl.sum);
		tpcc_add_i32(db, &cu->c_delivery_cnt, 1);
		store_update(db->customer, cu);
		out->o_id[d - 1] = o_id;
		out->delivered++;
	}
}

static void run_delivery(tpcc_db_t *db, const tpcc_delivery_in_t *in, tpcc_delivery_out_t *out)
{
	TM_BEGIN();
	delivery_body(db, in, out);
	TM_END();
}

static void draw_delivery(bench_rng_t *r, uint32_t w, int64_t now, tpcc_delivery_in_t *in)
{
	*in = (tpcc_delivery_in_t){ .w = w, .date = now };
	in->carrier = (int32_t)tpcc_rand(r, 1, 10);
}

/* ---- Stock-Level (clause 2.8) ----------------------------------------------------------------- */

typedef struct item_scan {
	uint32_t *item;
	uint32_t n;
} item_scan_t;

static int collect_item(uint64_t key, void *rec, void *arg)
{
	item_scan_t *s = arg;
	const tpcc_order_line_t *ol = rec;
	(void)key;
	if (s->n == TPCC_MAX_OL * 20)
		return 1;   /* never: 20 orders of at most 15 lines */
	s->item[s->n++] = (uint32_t)ol->ol_i_id;
	return 0;
}

static int by_value(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

uint32_t tpcc_recent_items(tpcc_db_t *db, uint32_t w, uint32_t d, uint64_t next,
                           uint32_t *items)
{
	uint64_t first = next > 20 ? next - 20 : 1;
	item_scan_t s = { .item = items, .n = 0 };
	store_scan(db->order_line, tpcc_order_line_key(w, d, first, 0),
	           tpcc_order_line_key(w, d, next - 1, TPCC_MAX_OL), STORE_ASC, collect_item, &s);
	qsort(s.item, s.n, sizeof *s.item, by_value);
	uint32_t n = 0;
	for (uint32_t i = 0; i < s.n; i++)
		if (i == 0 || s.item[i] != s.item[i - 1])
			s.item[n++] = s.item[i];
	return n;
}

static void stock_level_body(tpcc_db_t *db, tpcc_worker_t *me, const tpcc_stock_level_in_t *in,
                             tpcc_stock_level_out_t *out)
{
	out->missing = NULL;
	out->low = 0;
	tpcc_district_t *di = store_get(db->district, tpcc_district_key(in->w, in->d));
	if (di == NULL) {
		out->missing = "Stock-Level: the district is missing";
		return;
	}
	/* The distinct items of the district's last 20 orders, each
	 * counted once. */
	uint64_t next = (uint64_t)tpcc_load_i64(db, &di->d_next_o_id);
	uint32_t n = tpcc_recent_items(db, in->w, in->d, next, me->items);
	_Static_assert(2 * TPCC_MAX_OL * 20 + 4 <= TPCC_LSD_HANDLES_MAX,
	               "Stock-Level's LSD handles are counted");
	lsd_val_t threshold = db->lsd ? lsd_const(in->threshold) : (lsd_val_t){ 0 };
	for (uint32_t i = 0; i < n; i++) {
		tpcc_stock_t *st = store_get(db->stock, tpcc_stock_key(in->w, me->items[i]));
		if (st == NULL) {
			out->missing = "Stock-Level: the STOCK row of an ordered item is missing";
			return;
		}
		/* With LSD the answer, not the quantity, binds the
		 * transaction: a New-Order's decrement that leaves the stock
		 * on the same side of the threshold does not conflict. */
		if (db->lsd)
			out->low += lsd_is_true(lsd_cmp(lsd_read_i32(&st->s_quantity), LSD_LT,
			                                threshold));
		else
			out->low += TM_LOAD(&st->s_quantity) < in->threshold;
	}
}

static void run_stock_level(tpcc_db_t *db, tpcc_worker_t *me, const tpcc_stock_level_in_t *in,
                            tpcc_stock_level_out_t *out)
{
	TM_BEGIN_RO();   /* silo: a snapshot that never aborts */
	stock_level_body(db, me, in, out);
	TM_END();
}

static void draw_stock_level(const tpcc_db_t *db, bench_rng_t *r, unsigned id, uint32_t w,
                             tpcc_stock_level_in_t *in)
{
	/* Clause 2.8.1.1: a terminal's district is fixed; the workers that
	 * share a warehouse take different districts. */
	*in = (tpcc_stock_level_in_t){ .w = w };
	in->d = id / db->warehouses % TPCC_DISTRICTS + 1;
	in->threshold = (int32_t)tpcc_rand(r, 10, 20);
}

/* ---- the mix (clause 5.2.3) ------------------------------------------------------------------ */

/* The standard mix: 45 % New-Order, 43 % Payment, 4 % each of the others
 * (the minimum percentages of clause 5.2.3, New-Order taking the rest). */
enum tpcc_tx_type tpcc_pick_type(const tpcc_db_t *db, bench_rng_t *r)
{
	if (db->mix != TPCC_MIX_STANDARD)
		return (enum tpcc_tx_type)(db->mix - TPCC_MIX_ONLY_FIRST);
	uint32_t p = tpcc_rand(r, 1, 100);
	if (p <= 45)
		return TPCC_NEW_ORDER;
	if (p <= 88)
		return TPCC_PAYMENT;
	if (p <= 92)
		return TPCC_ORDER_STATUS;
	if (p <= 96)
		return TPCC_DELIVERY;
	return TPCC_STOCK_LEVEL;
}

/* ---- requests ------------------------------------------------------------------------------- */

void tpcc_draw(const tpcc_db_t *db, tpcc_worker_t *me, bench_rng_t *r, unsigned id,
               uint32_t w, enum tpcc_tx_type type, int64_t now, tpcc_request_t *req)
{
	req->type = type;
	switch (type) {
	case TPCC_NEW_ORDER:
		draw_new_order(db, r, w, now, &req->in.new_order);
		break;
	case TPCC_PAYMENT:
		draw_payment(db, me, r, id, w, now, &req->in.payment);
		break;
	case TPCC_ORDER_STATUS:
		draw_order_status(db, r, w, &req->in.order_status);
		break;
	case TPCC_DELIVERY:
		draw_delivery(r, w, now, &req->in.delivery);
		break;
	case TPCC_STOCK_LEVEL:
	default:
		req->type = TPCC_STOCK_LEVEL;
		draw_stock_level(db, r, id, w, &req->in.stock_level);
		break;
	}
}

uint32_t tpcc_request_home(const tpcc_request_t *req)
{
	switch (req->type) {
	case TPCC_NEW_ORDER:
		return req->in.new_order.w;
	case TPCC_PAYMENT:
		return req->in.payment.w;
	case TPCC_ORDER_STATUS:
		return req->in.order_status.w;
	case TPCC_DELIVERY:
		return req->in.delivery.w;
	default:
		return req->in.stock_level.w;
	}
}

void tpcc_execute(tpcc_db_t *db, tpcc_worker_t *scratch, const tpcc_request_t *req,
                  tpcc_result_t *res)
{
	db = tpcc_home(db, tpcc_request_home(req));
	res->missing = NULL;
	res->rolled_back = false;
	switch (req->type) {
	case TPCC_NEW_ORDER:
		res->out.new_order.missing = NULL;
		run_new_order(db, &req->in.new_order, &res->out.new_order);
		res->rolled_back = tm_was_cancelled() || res->out.new_order.rolled_back;
		res->missing = res->rolled_back ? NULL : res->out.new_order.missing;
		break;
	case TPCC_PAYMENT:
		res->out.payment.missing = NULL;
		run_payment(db, scratch, &req->in.payment, &res->out.payment);
		res->missing = res->out.payment.missing;
		break;
	case TPCC_ORDER_STATUS:
		res->out.order_status.missing = NULL;
		run_order_status(db, scratch, &req->in.order_status, &res->out.order_status);
		res->missing = res->out.order_status.missing;
		break;
	case TPCC_DELIVERY:
		res->out.delivery.missing = NULL;
		run_delivery(db, &req->in.delivery, &res->out.delivery);
		res->missing = res->out.delivery.missing;
		break;
	case TPCC_STOCK_LEVEL:
	default:
		res->out.stock_level.missing = NULL;
		run_stock_level(db, scratch, &req->in.stock_level, &res->out.stock_level);
		res->missing = res->out.stock_level.missing;
		break;
	}
}

static bool in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

const char *tpcc_request_invalid(const tpcc_db_t *db, const tpcc_request_t *req)
{
	uint32_t W = db->warehouses, C = db->customers;
	switch (req->type) {
	case TPCC_NEW_ORDER: {
		const tpcc_new_order_in_t *in = &req->in.new_order;
		if (!in_range(in->w, 1, W) || !in_range(in->d, 1, TPCC_DISTRICTS) ||
		    !in_range(in->c, 1, C))
			return "New-Order: warehouse, district or customer out of range";
		if (!in_range(in->ol_cnt, 1, TPCC_MAX_OL))
			return "New-Order: 1 to 15 order lines";
		for (uint32_t i = 0; i < in->ol_cnt; i++) {
			/* items + 1, the unused id, only on the last line */
			uint32_t top = i + 1 == in->ol_cnt ? db->items + 1 : db->items;
			if (!in_range(in->line[i].i_id, 1, top) ||
			    !in_range(in->line[i].supply_w, 1, W) ||
			    !in_range(in->line[i].quantity, 1, 10))
				return "New-Order: an order line's item, supplying warehouse or "
				       "quantity is out of range";
		}
		return NULL;
	}
	case TPCC_PAYMENT: {
		const tpcc_payment_in_t *in = &req->in.payment;
		if (!in_range(in->w, 1, W) || !in_range(in->d, 1, TPCC_DISTRICTS) ||
		    !in_range(in->c_w, 1, W) || !in_range(in->c_d, 1, TPCC_DISTRICTS))
			return "Payment: warehouse or district out of range";
		if (in->c_id != 0 ? !in_range(in->c_id, 1, C) : in->name > tpcc_max_name(db))
			return "Payment: customer id or last name out of range";
		if (in->amount < 100 || in->amount > 500000)
			return "Payment: the amount must be 100..500000 cents";
		return NULL;
	}
	case TPCC_ORDER_STATUS: {
		const tpcc_order_status_in_t *in = &req->in.order_status;
		if (!in_range(in->w, 1, W) || !in_range(in->d, 1, TPCC_DISTRICTS))
			return "Order-Status: warehouse or district out of range";
		if (in->c_id != 0 ? !in_range(in->c_id, 1, C) : in->name > tpcc_max_name(db))
			return "Order-Status: customer id or last name out of range";
		return NULL;
	}
	case TPCC_DELIVERY: {
		const tpcc_delivery_in_t *in = &req->in.delivery;
		if (!in_range(in->w, 1, W) || in->carrier < 1 || in->carrier > 10)
			return "Delivery: warehouse or carrier out of range";
		return NULL;
	}
	case TPCC_STOCK_LEVEL: {
		const tpcc_stock_level_in_t *in = &req->in.stock_level;
		if (!in_range(in->w, 1, W) || !in_range(in->d, 1, TPCC_DISTRICTS) ||
		    in->threshold < 10 || in->threshold > 20)
			return "Stock-Level: warehouse, district or threshold out of range";
		return NULL;
	}
	default:
		return "unknown TPC-C transaction type";
	}
}

/* ---- the benchmark's worker ------------------------------------------------------------------ */

/* The tally after the transaction, as each type counts it. */
void tpcc_tally(tpcc_worker_t *me, const tpcc_request_t *req, const tpcc_result_t *res,
                uint32_t home)
{
	if (req->type == TPCC_NEW_ORDER && res->rolled_back) {
		me->rollbacks++;
		return;
	}
	if (res->missing != NULL) {
		const tpcc_order_status_in_t *os = &req->in.order_status;
		switch (req->type) {
		case TPCC_NEW_ORDER:
			worker_error(me, "%s (warehouse %" PRIu32 ", district %" PRIu32 ")",
			             res->missing, req->in.new_order.w, req->in.new_order.d);
			break;
		case TPCC_PAYMENT:
			worker_error(me, "%s (warehouse %" PRIu32 ", district %" PRIu32 ")",
			             res->missing, req->in.payment.c_w, req->in.payment.c_d);
			break;
		case TPCC_ORDER_STATUS:
			worker_error(me, "%s (warehouse %" PRIu32 ", district %" PRIu32 ")",
			             res->missing, os->w, os->d);
			break;
		case TPCC_DELIVERY:
			worker_error(me, "%s (warehouse %" PRIu32 ")", res->missing,
			             req->in.delivery.w);
			break;
		default:
			worker_error(me, "%s (warehouse %" PRIu32 ", district %" PRIu32 ")",
			             res->missing, req->in.stock_level.w, req->in.stock_level.d);
			break;
		}
		return;
	}
	me->committed[req->type]++;
	switch (req->type) {
	case TPCC_NEW_ORDER:
		me->remote_lines += remote_lines(&req->in.new_order);
		break;
	case TPCC_PAYMENT:
		me->remote_payments += req->in.payment.c_w != home;
		me->by_name += req->in.payment.c_id == 0;
		break;
	case TPCC_ORDER_STATUS:
		me->by_name += req->in.order_status.c_id == 0;
		break;
	case TPCC_DELIVERY:
		me->delivered += res->out.delivery.delivered;
		me->delivery_skipped += res->out.delivery.skipped;
		break;
	default:
		me->low_stock += res->out.stock_level.low;
		break;
	}
}

void tpcc_op(void *shared, bench_thread_t *self)
{
	tpcc_db_t *db = shared;
	tpcc_worker_t *me = &db->worker[self->id];
	bench_rng_t *r = &self->rng;
	uint32_t w = home_warehouse(db, self->id);
	enum tpcc_tx_type type = tpcc_pick_type(db, r);
	int64_t now = tpcc_now(db, self->id, me->clock++);

	uint64_t t0 = bench_now_ns();
	tpcc_request_t req;
	tpcc_result_t res;
	tpcc_draw(db, me, r, self->id, w, type, now, &req);
	uint64_t committed = me->committed[req.type];
	tpcc_execute(db, me, &req, &res);
	tpcc_tally(me, &req, &res, w);
	if (db->log != NULL && me->committed[req.type] != committed)
		tpcc_durable_note(db, me, req.type);
	bench_lat_add(&me->lat[req.type], bench_now_ns() - t0);
	me->done[req.type]++;
}
