/*
 * tpcc/tpcc_dora_private.c — TPC-C under DORA with private tables
 * (-e dora-private): DORA's physical partitioning.
 *
 * The flow graphs, routing and local locks are those of -e dora
 * (tpcc_dora.c, which lists them); what differs is where the rows live.
 * Before the run every warehouse's rows are copied from the shared store
 * into private tables of that warehouse (<potm/store_private.h>: plain
 * accesses), and every action reads and writes only the private tables
 * of the warehouse it is routed by, on the executor that owns that
 * warehouse: no backend transaction, no TM access, plain C on the
 * records.  A cross-warehouse part of a transaction (a remote supplier's
 * stock in New-Order, a remote customer in Payment) is an action routed
 * to the owning executor, as under -e dora; the RVPs and the undo logs
 * make the whole transaction atomic, the local locks isolate it.
 *
 * Invariants:
 *  W1: warehouse w's private tables are touched only by actions routed by
 *      w, so only by the executor that owns w under the current rule; a
 *      routing change moves them with w, after potm_dora_reroute's
 *      quiescence (P1, Q1 in lib/dora/dora.c).
 *  W2: ITEM is one private table written only by the copy before the run
 *      and read by every executor (plain reads of memory nobody writes).
 *  W3: after the run the shared tables hold exactly the union of the
 *      private ones (tpcc_dora_private_finish), so the consistency checks
 *      and the digest read what the run did.
 *
 * The executors never call the TM (P1): the workers do not register
 * (bench_common_t.unregistered), and on `seq` any number of them run.
 */
#include "tpcc_internal.h"

#include <potm/dora.h>
#include <potm/store_private.h>

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TP_COPY_BATCH 256   /* rows per transaction when copying back */

/* One warehouse's private tables (W1; struct tpcc_private in
 * tpcc_internal.h). */
typedef tpcc_private_wh_t tp_wh_t;

/* The tables that have a warehouse: where each is in both descriptors,
 * and which field of its rows names the warehouse. */
typedef struct tp_table {
	const char *name;
	size_t shared, priv;      /* offsetof in tpcc_db_t, tp_wh_t */
	size_t w_field;           /* offsetof of the int32_t warehouse id in a row */
	size_t size;
	store_kind_t kind;
} tp_table_t;

#define TP_TABLE(n, row, wf, k)                                                         \
	{ #n, offsetof(tpcc_db_t, n), offsetof(tp_wh_t, n), offsetof(row, wf), sizeof(row), k }

static const tp_table_t tp_tables[] = {
	TP_TABLE(warehouse, tpcc_warehouse_t, w_id, STORE_HASH),
	TP_TABLE(district, tpcc_district_t, d_w_id, STORE_HASH),
	TP_TABLE(customer, tpcc_customer_t, c_w_id, STORE_HASH),
	TP_TABLE(history, tpcc_history_t, h_w_id, STORE_HASH),
	TP_TABLE(new_order, tpcc_new_order_t, no_w_id, STORE_ORDERED),
	TP_TABLE(order, tpcc_order_t, o_w_id, STORE_ORDERED),
	TP_TABLE(order_line, tpcc_order_line_t, ol_w_id, STORE_ORDERED),
	TP_TABLE(stock, tpcc_stock_t, s_w_id, STORE_HASH),
};
#define TP_TABLES (sizeof tp_tables / sizeof tp_tables[0])

static store_table_t **shared_slot(tpcc_db_t *db, const tp_table_t *t)
{
	return (store_table_t **)(void *)((char *)db + t->shared);
}

static store_table_t **priv_slot(tp_wh_t *w, const tp_table_t *t)
{
	return (store_table_t **)(void *)((char *)w + t->priv);
}

/* The secondary keys of tpcc_load.c's indexes, from a row's fields that
 * never change. */
static uint64_t tp_customer_name_skey(const void *rec, uint64_t pkey)
{
	const tpcc_customer_t *c = rec;
	(void)pkey;
	return tpcc_customer_name_key((uint32_t)c->c_w_id, (uint32_t)c->c_d_id,
	                              (uint32_t)c->c_last_number, (uint32_t)c->c_id);
}

static uint64_t tp_order_customer_skey(const void *rec, uint64_t pkey)
{
	const tpcc_order_t *o = rec;
	return tpcc_order_customer_key((uint32_t)o->o_w_id, (uint32_t)o->o_d_id,
	                               (uint32_t)o->o_c_id, tpcc_order_id_of(pkey));
}

/* ---- copying in and out ------------------------------------------------------------------- */

typedef struct tp_copy_in {
	tpcc_private_t *p;
	const tp_table_t *t;      /* NULL: ITEM */
	const char *error;
} tp_copy_in_t;

static int copy_in_row(uint64_t key, void *rec, void *arg)
{
	tp_copy_in_t *c = arg;
	store_table_t *dst = c->p->item;
	if (c->t != NULL) {
		int32_t w;
		memcpy(&w, (const char *)rec + c->t->w_field, sizeof w);
		if (w < 1 || (uint32_t)w > c->p->warehouses) {
			c->error = "a row's warehouse id is out of range";
			return 1;
		}
		dst = *priv_slot(&c->p->wh[w - 1], c->t);
	}
	if (store_private_insert(dst, key, rec) == NULL) {
		c->error = "a row's key is present twice";
		return 1;
	}
	return 0;
}

void tpcc_dora_private_free(tpcc_private_t *p)
{
	if (p == NULL)
		return;
	for (uint32_t w = 0; p->wh != NULL && w < p->warehouses; w++)
		for (size_t k = 0; k < TP_TABLES; k++)
			store_private_table_destroy(*priv_slot(&p->wh[w], &tp_tables[k]));
	store_private_table_destroy(p->item);
	free(p->wh);
	free(p);
}

/* Every warehouse's rows into its private tables, ITEM into the shared
 * private one; the shared tables are quiescent (store_walk's plain
 * reads). */
tpcc_private_t *tpcc_private_copy_in(tpcc_db_t *db)
{
	tpcc_private_t *p = calloc(1, sizeof *p);
	if (p == NULL)
		return NULL;
	p->warehouses = db->warehouses;
	p->wh = calloc(db->warehouses, sizeof *p->wh);
	store_table_def_t idef = { .name = "item", .record_size = sizeof(tpcc_item_t),
	                           .kind = STORE_HASH, .capacity = db->items };
	p->item = store_private_table_create(&idef);
	if (p->wh == NULL || p->item == NULL)
		goto fail;
	uint64_t customers = (uint64_t)TPCC_DISTRICTS * db->customers;
	for (uint32_t w = 0; w < db->warehouses; w++) {
		tp_wh_t *x = &p->wh[w];
		for (size_t k = 0; k < TP_TABLES; k++) {
			const tp_table_t *t = &tp_tables[k];
			size_t cap = t->kind == STORE_ORDERED ? 0
			           : t->shared == offsetof(tpcc_db_t, warehouse) ? 1
			           : t->shared == offsetof(tpcc_db_t, district) ? TPCC_DISTRICTS
			           : t->shared == offsetof(tpcc_db_t, stock) ? db->items
			           : t->shared == offsetof(tpcc_db_t, history) ? 2 * customers
			           : customers;
			store_table_def_t def = { .name = t->name, .record_size = t->size,
			                          .kind = t->kind, .capacity = cap };
			*priv_slot(x, t) = store_private_table_create(&def);
			if (*priv_slot(x, t) == NULL)
				goto fail;
		}
		x->customer_by_name = store_private_index_create(x->customer, "customer_by_name",
		                                                 tp_customer_name_skey);
		x->order_by_customer = store_private_index_create(x->order, "order_by_customer",
		                                                  tp_order_customer_skey);
		if (x->customer_by_name == NULL || x->order_by_customer == NULL)
			goto fail;
	}
	tp_copy_in_t c = { .p = p };
	store_walk(db->item, copy_in_row, &c);
	for (size_t k = 0; k < TP_TABLES && c.error == NULL; k++) {
		c.t = &tp_tables[k];
		store_walk(*shared_slot(db, c.t), copy_in_row, &c);
	}
	if (c.error != NULL) {
		fprintf(stderr, "tpcc: -e dora-private: copying %s: %s\n",
		        c.t != NULL ? c.t->name : "item", c.error);
		goto fail;
	}
	return p;
fail:
	tpcc_dora_private_free(p);
	return NULL;
}

/* A batch of rows for one transaction of the copy back. */
typedef struct tp_batch {
	store_table_t *table;
	uint64_t *key;
	const void **rec;         /* NULL: delete the keys */
	size_t n, cap;
	size_t failed;
} tp_batch_t;

static void batch_apply(void *arg)
{
	tp_batch_t *b = arg;
	for (size_t i = 0; i < b->n; i++) {
		if (b->rec == NULL)
			store_delete(b->table, b->key[i]);
		else if (store_insert(b->table, b->key[i], b->rec[i]) == NULL)
			b->failed++;
	}
}

static int batch_flush(tp_batch_t *b)
{
	if (b->n == 0)
		return 0;
	b->failed = 0;
	if (tm_atomic(batch_apply, b) != 0) {
		fprintf(stderr, "tpcc: -e dora-private: copying back: %s\n", tm_last_error());
		return -1;
	}
	if (b->failed != 0) {
		fprintf(stderr, "tpcc: -e dora-private: copying back %zu rows under taken keys\n",
		        b->failed);
		return -1;
	}
	b->n = 0;
	return 0;
}

static int batch_row(uint64_t key, void *rec, void *arg)
{
	tp_batch_t *b = arg;
	b->key[b->n] = key;
	if (b->rec != NULL)
		b->rec[b->n] = rec;
	if (++b->n == b->cap)
		return batch_flush(b) != 0;
	return 0;
}

typedef struct tp_keys {
	uint64_t *key;
	size_t n;
} tp_keys_t;

static int collect_key(uint64_t key, void *rec, void *arg)
{
	tp_keys_t *k = arg;
	(void)rec;
	k->key[k->n++] = key;
	return 0;
}

/* W3: every shared table emptied and refilled from the private ones, in
 * transactions of the calling registered thread (quiescent). */
int tpcc_dora_private_finish(tpcc_db_t *db, tpcc_private_t *p)
{
	uint64_t keys[TP_COPY_BATCH];
	const void *recs[TP_COPY_BATCH];
	int rc = 0;
	/* The private tables' own structure first (B1-B4, T1 of the store). */
	for (uint32_t w = 0; w < p->warehouses && rc == 0; w++)
		for (size_t k = 0; k < TP_TABLES && rc == 0; k++)
			if (store_private_check(*priv_slot(&p->wh[w], &tp_tables[k])) != 0) {
				fprintf(stderr, "tpcc: -e dora-private: warehouse %" PRIu32 ": %s\n",
				        w + 1, tm_last_error());
				rc = -1;
			}
	for (size_t k = 0; k < TP_TABLES && rc == 0; k++) {
		const tp_table_t *t = &tp_tables[k];
		store_table_t *shared = *shared_slot(db, t);
		tp_keys_t all = { .key = malloc((store_count(shared) + 1) * sizeof(uint64_t)) };
		if (all.key == NULL) {
			fprintf(stderr, "tpcc: -e dora-private: out of memory copying back\n");
			rc = -1;
			break;
		}
		store_walk(shared, collect_key, &all);
		/* Replaced whole, sealed or not (quiescent), and sealed again. */
		store_seal_t sealed = store_table_sealed(shared);
		store_table_seal(shared, STORE_UNSEALED);
		tp_batch_t del = { .table = shared, .key = keys, .cap = TP_COPY_BATCH };
		for (size_t i = 0; i < all.n && rc == 0; i++)
			rc = batch_row(all.key[i], NULL, &del);
		free(all.key);
		if (rc == 0)
			rc = batch_flush(&del);
		tp_batch_t ins = { .table = shared, .key = keys, .rec = recs, .cap = TP_COPY_BATCH };
		for (uint32_t w = 0; w < p->warehouses && rc == 0; w++)
			rc = store_private_walk(*priv_slot(&p->wh[w], t), batch_row, &ins) != 0 ? -1 : 0;
		if (rc == 0)
			rc = batch_flush(&ins);
		store_table_seal(shared, sealed);
	}
	tpcc_dora_private_free(p);
	return rc;
}

/* ---- the run ---------------------------------------------------------------------------- */

static tp_wh_t *wh_of(const tpcc_dora_slot_t *s, uint32_t w)
{
	return &s->run->p->wh[w - 1];
}

/* ---- the secondary action: a customer by last name ---------------------------------------- */

typedef struct tp_names {
	tpcc_name_hit_t *hit;
	uint32_t n, cap;
} tp_names_t;

static int name_hit(uint64_t skey, void *rec, void *arg)
{
	tp_names_t *s = arg;
	const tpcc_customer_t *c = rec;
	if (s->n == s->cap)
		return 1;   /* never: a district has no more customers */
	memcpy(s->hit[s->n].first, c->c_first, sizeof c->c_first);
	s->hit[s->n].c_id = (uint32_t)(skey & TPCC_C_MAX);
	s->n++;
	return 0;
}

static int hit_order(const void *x, const void *y)
{
	const tpcc_name_hit_t *a = x, *b = y;
	int c = strcmp(a->first, b->first);
	if (c != 0)
		return c;
	return a->c_id < b->c_id ? -1 : a->c_id > b->c_id;
}

uint32_t tpcc_private_customer_by_name(tpcc_private_t *p, tpcc_name_hit_t *hits, uint32_t cap,
                                       uint32_t w, uint32_t d, uint32_t name)
{
	tp_names_t s = { .hit = hits, .cap = cap };
	store_private_index_scan(p->wh[w - 1].customer_by_name,
	                         tpcc_customer_name_key(w, d, name, 0),
	                         tpcc_customer_name_key(w, d, name, TPCC_C_MAX), STORE_ASC,
	                         name_hit, &s);
	if (s.n == 0)
		return 0;
	qsort(hits, s.n, sizeof *hits, hit_order);
	return hits[(s.n - 1) / 2].c_id;
}

/* Clause 2.5.2.2: the middle one, by first name, of the district's
 * customers of the name (the index and names never change: no lock). */
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
	tpcc_name_hit_t *hits = db->worker[potm_dora_act_executor(a)].names;
	s->c_id = tpcc_private_customer_by_name(s->run->p, hits, db->customers, w, d, name);
	if (s->c_id == 0) {
		tpcc_dora_set_missing(s, "no customer has the last name");
		return 1;
	}
	return 0;
}

/* ---- New-Order ------------------------------------------------------------------------------ */

static int no_district(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_new_order_in_t *in = &s->req.in.new_order;
	tpcc_new_order_out_t *out = &s->res.out.new_order;
	tp_wh_t *x = wh_of(s, in->w);
	tpcc_warehouse_t *wh = store_private_get(x->warehouse, tpcc_warehouse_key(in->w));
	tpcc_district_t *di = store_private_get(x->district, tpcc_district_key(in->w, in->d));
	tpcc_customer_t *cu = store_private_get(x->customer,
	                                        tpcc_customer_key(in->w, in->d, in->c));
	if (wh == NULL || di == NULL || cu == NULL) {
		tpcc_dora_set_missing(s, "New-Order: its warehouse, district or customer is missing");
		return 1;
	}
	s->w_tax = wh->w_tax;
	s->d_tax = di->d_tax;
	s->c_discount = cu->c_discount;
	memcpy(out->c_last, cu->c_last, sizeof cu->c_last);
	memcpy(out->c_credit, cu->c_credit, sizeof cu->c_credit);
	int64_t o_id = di->d_next_o_id;
	if ((uint64_t)o_id > TPCC_O_ID_MAX) {
		tpcc_dora_set_missing(s, "New-Order: the district's order ids are exhausted");
		return 1;
	}
	/* D_NEXT_O_ID alone: Payment changes D_YTD under another lock. */
	potm_dora_save(a, x->district, di, &di->d_next_o_id, sizeof di->d_next_o_id);
	di->d_next_o_id = o_id + 1;
	s->o_id = o_id;
	return 0;
}

static int no_stock(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_group_t *g = arg;
	tpcc_dora_slot_t *s = g->s;
	const tpcc_new_order_in_t *in = &s->req.in.new_order;
	tpcc_new_order_out_t *out = &s->res.out.new_order;
	tp_wh_t *x = wh_of(s, g->supply_w);
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		if (in->line[i].supply_w != g->supply_w)
			continue;
		uint32_t qty = in->line[i].quantity;
		const tpcc_item_t *it = store_private_get(s->run->p->item,
		                                          tpcc_item_key(in->line[i].i_id));
		if (it == NULL) {
			/* Clause 2.4.2.3: the unused item rolls the whole
			 * New-Order back. */
			atomic_store(&s->rolled_back, true);
			return 1;
		}
		memcpy(out->line[i].i_name, it->i_name, sizeof it->i_name);
		tpcc_stock_t *st = store_private_get(x->stock,
		                                     tpcc_stock_key(g->supply_w, in->line[i].i_id));
		if (st == NULL) {
			tpcc_dora_set_missing(s, "New-Order: a STOCK row of an item is missing");
			return 1;
		}
		/* S_QUANTITY, S_YTD, S_ORDER_CNT, S_REMOTE_CNT: adjacent. */
		potm_dora_save(a, x->stock, st, &st->s_quantity,
		               offsetof(tpcc_stock_t, s_remote_cnt) + sizeof st->s_remote_cnt -
		               offsetof(tpcc_stock_t, s_quantity));
		st->s_quantity = tpcc_restock(st->s_quantity, qty);
		st->s_ytd += (int32_t)qty;
		st->s_order_cnt++;
		if (g->supply_w != in->w)
			st->s_remote_cnt++;
		memcpy(s->line[i].dist_info, st->s_dist[in->d - 1], sizeof s->line[i].dist_info);
		s->line[i].price = it->i_price;
		s->line[i].s_quantity = st->s_quantity;
		out->line[i].brand = tpcc_brand(it->i_data, st->s_data);
	}
	return 0;
}

static int no_insert(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	tp_wh_t *x = wh_of(s, s->req.in.new_order.w);
	return tpcc_dora_no_insert(a, s, x->order, x->new_order, x->order_line);
}

/* ---- Payment -------------------------------------------------------------------------------- */

static int pay_warehouse(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_payment_out_t *out = &s->res.out.payment;
	tp_wh_t *x = wh_of(s, in->w);
	tpcc_warehouse_t *wh = store_private_get(x->warehouse, tpcc_warehouse_key(in->w));
	if (wh == NULL) {
		tpcc_dora_set_missing(s, "Payment: its warehouse is missing");
		return 1;
	}
	potm_dora_save(a, x->warehouse, wh, &wh->w_ytd, sizeof wh->w_ytd);
	wh->w_ytd += in->amount;
	memcpy(s->w_name, wh->w_name, sizeof wh->w_name);
	memcpy(out->w_street_1, wh->w_street_1, sizeof wh->w_street_1);
	memcpy(out->w_city, wh->w_city, sizeof wh->w_city);
	return 0;
}

static int pay_district(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_payment_out_t *out = &s->res.out.payment;
	tp_wh_t *x = wh_of(s, in->w);
	tpcc_district_t *di = store_private_get(x->district, tpcc_district_key(in->w, in->d));
	if (di == NULL) {
		tpcc_dora_set_missing(s, "Payment: its district is missing");
		return 1;
	}
	/* D_YTD alone: New-Order changes D_NEXT_O_ID under another lock. */
	potm_dora_save(a, x->district, di, &di->d_ytd, sizeof di->d_ytd);
	di->d_ytd += in->amount;
	memcpy(s->d_name, di->d_name, sizeof di->d_name);
	memcpy(out->d_street_1, di->d_street_1, sizeof di->d_street_1);
	memcpy(out->d_city, di->d_city, sizeof di->d_city);
	return 0;
}

void tpcc_private_bad_credit(tpcc_customer_t *cu, const tpcc_payment_in_t *in, uint32_t c_id)
{
	char data[sizeof cu->c_data];
	int n = snprintf(data, sizeof data, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32
	                 " %" PRIu32 " %" PRId64 ".%02" PRId64 " | ", c_id, in->c_d, in->c_w,
	                 in->d, in->w, in->amount / 100, in->amount % 100);
	size_t room = sizeof data - 1 - (size_t)n;
	size_t old = strnlen(cu->c_data, sizeof cu->c_data - 1);
	memset(data + n, 0, sizeof data - (size_t)n);
	memcpy(data + n, cu->c_data, old < room ? old : room);
	memcpy(cu->c_data, data, sizeof data);
}

static int pay_customer(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_payment_out_t *out = &s->res.out.payment;
	tp_wh_t *x = wh_of(s, in->c_w);
	tpcc_customer_t *cu = store_private_get(x->customer,
	                                        tpcc_customer_key(in->c_w, in->c_d, s->c_id));
	if (cu == NULL) {
		tpcc_dora_set_missing(s, "Payment: the customer is missing");
		return 1;
	}
	memcpy(out->c_credit, cu->c_credit, sizeof cu->c_credit);
	bool bad = cu->c_credit[0] == 'B' && cu->c_credit[1] == 'C';
	tpcc_dora_save_customer(a, x->customer, cu, bad);
	out->c_id = s->c_id;
	cu->c_balance -= in->amount;
	cu->c_ytd_payment += in->amount;
	cu->c_payment_cnt++;
	memcpy(out->c_first, cu->c_first, sizeof cu->c_first);
	if (bad)
		tpcc_private_bad_credit(cu, in, s->c_id);
	out->c_balance = cu->c_balance;
	return 0;
}

static int pay_history(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_payment_in_t *in = &s->req.in.payment;
	tpcc_history_t h;
	tpcc_history_row(in, s->c_id, s->w_name, s->d_name, &h);
	if (potm_dora_insert(a, wh_of(s, in->w)->history, in->history_key, &h) == NULL) {
		tpcc_dora_set_missing(s, "Payment: the history row's key is taken");
		return 1;
	}
	memcpy(s->res.out.payment.w_name, s->w_name, sizeof s->w_name);
	memcpy(s->res.out.payment.d_name, s->d_name, sizeof s->d_name);
	return 0;
}

/* ---- Order-Status ----------------------------------------------------------------------------- */

static int os_line(uint64_t key, void *rec, void *arg)
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
	out->line[out->lines].delivery_d = ol->ol_delivery_d;
	out->lines++;
	return 0;
}

static int os_read(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_order_status_in_t *in = &s->req.in.order_status;
	tpcc_order_status_out_t *out = &s->res.out.order_status;
	tp_wh_t *x = wh_of(s, in->w);
	(void)a;
	out->lines = 0;
	const tpcc_customer_t *cu = store_private_get(x->customer,
	                                              tpcc_customer_key(in->w, in->d, s->c_id));
	if (cu == NULL) {
		tpcc_dora_set_missing(s, "Order-Status: the customer is missing");
		return 1;
	}
	out->c_id = s->c_id;
	out->c_balance = cu->c_balance;
	memcpy(out->c_first, cu->c_first, sizeof cu->c_first);
	memcpy(out->c_middle, cu->c_middle, sizeof cu->c_middle);
	memcpy(out->c_last, cu->c_last, sizeof cu->c_last);
	uint64_t skey;
	const tpcc_order_t *o = store_private_index_last(
		x->order_by_customer, tpcc_order_customer_key(in->w, in->d, s->c_id, 0),
		tpcc_order_customer_key(in->w, in->d, s->c_id, TPCC_O_ID_MAX), &skey);
	if (o == NULL) {
		tpcc_dora_set_missing(s, "Order-Status: the customer has no order");
		return 1;
	}
	out->o_id = tpcc_order_id_of(skey);
	out->o_entry_d = o->o_entry_d;
	out->o_carrier_id = o->o_carrier_id;
	store_private_scan(x->order_line, tpcc_order_line_key(in->w, in->d, out->o_id, 0),
	                   tpcc_order_line_key(in->w, in->d, out->o_id, TPCC_MAX_OL), STORE_ASC,
	                   os_line, out);
	return 0;
}

/* ---- Delivery ------------------------------------------------------------------------------------ */

typedef struct tp_deliver {
	potm_dora_act_t *a;
	store_table_t *t;
	int64_t date, sum;
} tp_deliver_t;

static int deliver_line(uint64_t key, void *rec, void *arg)
{
	tp_deliver_t *dl = arg;
	tpcc_order_line_t *ol = rec;
	(void)key;
	potm_dora_save(dl->a, dl->t, ol, &ol->ol_delivery_d, sizeof ol->ol_delivery_d);
	ol->ol_delivery_d = dl->date;
	dl->sum += ol->ol_amount;
	return 0;
}

static int dl_orders(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_delivery_in_t *in = &s->req.in.delivery;
	tpcc_delivery_out_t *out = &s->res.out.delivery;
	uint32_t w = in->w;
	tp_wh_t *x = wh_of(s, w);
	out->delivered = out->skipped = 0;
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++) {
		out->o_id[d - 1] = 0;
		s->delivered_c[d - 1] = 0;
		uint64_t key;
		if (store_private_first(x->new_order, tpcc_order_key(w, d, 0),
		                        tpcc_order_key(w, d, TPCC_O_ID_MAX), &key) == NULL) {
			out->skipped++;
			continue;
		}
		uint64_t o_id = tpcc_order_id_of(key);
		potm_dora_delete(a, x->new_order, key);
		tpcc_order_t *o = store_private_get(x->order, key);
		if (o == NULL) {
			tpcc_dora_set_missing(s, "Delivery: the order of a NEW-ORDER row is missing");
			return 1;
		}
		potm_dora_save(a, x->order, o, &o->o_carrier_id, sizeof o->o_carrier_id);
		o->o_carrier_id = (int32_t)in->carrier;
		tp_deliver_t dl = { .a = a, .t = x->order_line, .date = in->date };
		store_private_scan(x->order_line, tpcc_order_line_key(w, d, o_id, 0),
		                   tpcc_order_line_key(w, d, o_id, TPCC_MAX_OL), STORE_ASC,
		                   deliver_line, &dl);
		s->delivered_c[d - 1] = (uint32_t)o->o_c_id;
		s->delivered_sum[d - 1] = dl.sum;
		out->o_id[d - 1] = o_id;
		out->delivered++;
	}
	return 0;
}

static int dl_customers(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	uint32_t w = s->req.in.delivery.w;
	tp_wh_t *x = wh_of(s, w);
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++) {
		if (s->delivered_c[d - 1] == 0)
			continue;
		tpcc_customer_t *cu = store_private_get(
			x->customer, tpcc_customer_key(w, d, s->delivered_c[d - 1]));
		if (cu == NULL) {
			tpcc_dora_set_missing(s, "Delivery: the customer of an order is missing");
			return 1;
		}
		tpcc_dora_save_customer(a, x->customer, cu, false);
		cu->c_balance += s->delivered_sum[d - 1];
		cu->c_delivery_cnt++;
	}
	return 0;
}

/* ---- Stock-Level ----------------------------------------------------------------------------------- */

typedef struct tp_items {
	uint32_t *item;
	uint32_t n;
} tp_items_t;

static int item_of_line(uint64_t key, void *rec, void *arg)
{
	tp_items_t *s = arg;
	const tpcc_order_line_t *ol = rec;
	(void)key;
	if (s->n == TPCC_MAX_OL * 20)
		return 1;   /* never: 20 orders of at most 15 lines */
	s->item[s->n++] = (uint32_t)ol->ol_i_id;
	return 0;
}

static int u32_order(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

static int sl_items(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_stock_level_in_t *in = &s->req.in.stock_level;
	tp_wh_t *x = wh_of(s, in->w);
	(void)a;
	s->nitems = 0;
	const tpcc_district_t *di = store_private_get(x->district,
	                                              tpcc_district_key(in->w, in->d));
	if (di == NULL) {
		tpcc_dora_set_missing(s, "Stock-Level: the district is missing");
		return 1;
	}
	/* Clause 2.8.2.2: the distinct items of the last 20 orders. */
	uint64_t next = (uint64_t)di->d_next_o_id, first = next > 20 ? next - 20 : 1;
	tp_items_t it = { .item = s->items };
	store_private_scan(x->order_line, tpcc_order_line_key(in->w, in->d, first, 0),
	                   tpcc_order_line_key(in->w, in->d, next - 1, TPCC_MAX_OL), STORE_ASC,
	                   item_of_line, &it);
	qsort(it.item, it.n, sizeof *it.item, u32_order);
	uint32_t n = 0;
	for (uint32_t i = 0; i < it.n; i++)
		if (n == 0 || it.item[i] != it.item[n - 1])
			it.item[n++] = it.item[i];
	s->nitems = n;
	return 0;
}

static int sl_stock(potm_dora_act_t *a, void *arg)
{
	tpcc_dora_slot_t *s = arg;
	const tpcc_stock_level_in_t *in = &s->req.in.stock_level;
	tpcc_stock_level_out_t *out = &s->res.out.stock_level;
	tp_wh_t *x = wh_of(s, in->w);
	(void)a;
	out->low = 0;
	for (uint32_t i = 0; i < s->nitems; i++) {
		const tpcc_stock_t *st = store_private_get(x->stock,
		                                           tpcc_stock_key(in->w, s->items[i]));
		if (st == NULL) {
			tpcc_dora_set_missing(s, "Stock-Level: the STOCK row of an ordered item is missing");
			return 1;
		}
		out->low += st->s_quantity < in->threshold;
	}
	return 0;
}

/* ---- the run: these actions in tpcc_dora_term.c's graphs and terminals ----------------- */

static const tpcc_dora_ops_t tp_ops = {
	.by_name = act_by_name,
	.no_district = no_district, .no_stock = no_stock, .no_insert = no_insert,
	.pay_warehouse = pay_warehouse, .pay_district = pay_district,
	.pay_customer = pay_customer, .pay_history = pay_history,
	.os_read = os_read,
	.dl_orders = dl_orders, .dl_customers = dl_customers,
	.sl_items = sl_items, .sl_stock = sl_stock,
	.reroute_seed = 0xd0b,
};

int tpcc_dora_private_run(tpcc_db_t *db, const bench_common_t *c, uint64_t reroute_ms,
                          bench_run_result_t *run, struct potm_dora_stats *st,
                          tpcc_private_t **out)
{
	*out = NULL;
	if (db->part != NULL || db->lsd) {
		fprintf(stderr, "tpcc: -e dora-private: neither partitioned tables nor -a lsd\n");
		return BENCH_EXIT_USAGE;
	}
	tpcc_dora_run_t r = { .db = db, .ops = &tp_ops, .reroute_ms = reroute_ms };
	int rc = tpcc_dora_open(&r, "-e dora-private", true);
	if (rc != 0)
		return rc;
	r.p = tpcc_private_copy_in(db);
	if (r.p == NULL) {
		tpcc_dora_close(&r);
		fprintf(stderr, "tpcc: -e dora-private: out of memory for the private tables\n");
		return BENCH_EXIT_FAILED;
	}
	rc = tpcc_dora_drive(&r, c, run, st);
	*out = r.p;
	return rc;
}
