/*
 * tpcc/tpcc_load.c — the tables and their initial population (clause 4.3).
 *
 * The population is a function of the seed and the scale alone: the items
 * and the NURand constants come from the set-up stream of the seed, each
 * warehouse's rows (its stock, districts, customers, history, orders,
 * order lines and new orders) from a stream of its own, drawn in a fixed
 * order.  So the database is the same however the warehouses are spread
 * over loading threads, and store_digest (order-independent) agrees.
 * The warehouses are loaded in parallel, by up to one thread per worker
 * (tpcc_load_warehouses), each registered with the TM like a worker.
 */
#include "tpcc.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Random streams of the population (bench_rng_seed's stream argument).
 * The workers use 1..threads (harness), so the warehouses take streams
 * above 2^32. */
#define LOAD_STREAM_SETUP 0
#define LOAD_STREAM_WAREHOUSE (UINT64_C(1) << 32)

/* ---- text (clause 4.3.2) ---------------------------------------------------------- */

static const char alnum[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* A random a-string of lo..hi characters (clause 4.3.2.2) into out, which
 * is zeroed beyond it (the record was); returns its length. */
static size_t load_astring(bench_rng_t *r, char *out, uint32_t lo, uint32_t hi)
{
	size_t n = tpcc_rand(r, lo, hi);
	for (size_t i = 0; i < n; i++)
		out[i] = alnum[bench_rng_below(r, sizeof alnum - 1)];
	return n;
}

/* A random n-string (digits) of exactly n characters. */
static void load_nstring(bench_rng_t *r, char *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (char)('0' + bench_rng_below(r, 10));
}

/* Clause 4.3.2.7: a random n-string of 4 digits followed by "11111". */
static void load_zip(bench_rng_t *r, char *out)
{
	load_nstring(r, out, 4);
	memcpy(out + 4, "11111", 5);
}

/* A state: two random letters (an a-string of 2 characters, in capitals). */
static void load_state(bench_rng_t *r, char *out)
{
	out[0] = (char)('A' + bench_rng_below(r, 26));
	out[1] = (char)('A' + bench_rng_below(r, 26));
}

/* I_DATA and S_DATA (clause 4.3.3.1): a random a-string of 26..50
 * characters; in 10 % of the rows, chosen at random, "ORIGINAL" replaces
 * 8 consecutive characters at a random position. */
static void load_data_original(bench_rng_t *r, char *out)
{
	size_t n = load_astring(r, out, 26, 50);
	if (tpcc_rand(r, 1, 10) == 1)
		memcpy(out + tpcc_rand(r, 0, (uint32_t)n - 8), "ORIGINAL", 8);
}

static const char *const syllables[10] = {
	"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
};

/* Clause 4.3.2.3: the three digits of number, each a syllable. */
void tpcc_last_name(uint32_t number, char *out)
{
	out[0] = '\0';
	strcat(out, syllables[number / 100 % 10]);
	strcat(out, syllables[number / 10 % 10]);
	strcat(out, syllables[number % 10]);
}

/* ---- tables ------------------------------------------------------------------------ */

static uint64_t customer_name_skey(const void *rec, uint64_t pkey)
{
	const tpcc_customer_t *c = rec;
	(void)pkey;
	return tpcc_customer_name_key((uint32_t)c->c_w_id, (uint32_t)c->c_d_id,
	                              (uint32_t)c->c_last_number, (uint32_t)c->c_id);
}

static uint64_t order_customer_skey(const void *rec, uint64_t pkey)
{
	const tpcc_order_t *o = rec;
	return tpcc_order_customer_key((uint32_t)o->o_w_id, (uint32_t)o->o_d_id,
	                               (uint32_t)o->o_c_id, tpcc_order_id_of(pkey));
}

static store_table_t *create_table(const char *name, size_t size, store_kind_t kind,
                                   uint64_t capacity)
{
	if (kind == STORE_HASH && capacity > STORE_CAPACITY_MAX)
		capacity = STORE_CAPACITY_MAX;
	store_table_def_t def = { .name = name, .record_size = size, .kind = kind,
	                          .capacity = kind == STORE_HASH ? (size_t)capacity : 0 };
	store_table_t *t = store_table_create(&def);
	if (t == NULL)
		fprintf(stderr, "tpcc: cannot create table %s: %s\n", name, tm_last_error());
	return t;
}

/* The partitions' copies of everything but their own tables (tpcc.h):
 * after the descriptor changes (the shared tables, the population's
 * constants). */
static void parts_refresh(tpcc_db_t *db)
{
	for (uint32_t i = 0; db->part != NULL && i < db->warehouses; i++) {
		tpcc_db_t own = db->part[i];
		tpcc_db_t *p = &db->part[i];
		*p = *db;
		p->part = NULL;
		p->history = own.history;
		p->new_order = own.new_order;
		p->order = own.order;
		p->order_line = own.order_line;
		p->order_by_customer = own.order_by_customer;
	}
}

int tpcc_create(tpcc_db_t *db)
{
	uint64_t w = db->warehouses, districts = w * TPCC_DISTRICTS,
	         customers = districts * db->customers;
	/* HISTORY grows by one row per Payment: room for as many again. */
	db->warehouse = create_table("warehouse", sizeof(tpcc_warehouse_t), STORE_HASH, w);
	db->district = create_table("district", sizeof(tpcc_district_t), STORE_HASH, districts);
	db->customer = create_table("customer", sizeof(tpcc_customer_t), STORE_HASH, customers);
	db->history = create_table("history", sizeof(tpcc_history_t), STORE_HASH, 2 * customers);
	db->new_order = create_table("new_order", sizeof(tpcc_new_order_t), STORE_ORDERED, 0);
	db->order = create_table("order", sizeof(tpcc_order_t), STORE_ORDERED, 0);
	db->order_line = create_table("order_line", sizeof(tpcc_order_line_t), STORE_ORDERED, 0);
	db->item = create_table("item", sizeof(tpcc_item_t), STORE_HASH, db->items);
	db->stock = create_table("stock", sizeof(tpcc_stock_t), STORE_HASH, w * db->items);
	if (!db->warehouse || !db->district || !db->customer || !db->history || !db->new_order ||
	    !db->order || !db->order_line || !db->item || !db->stock)
		return -1;
	db->customer_by_name = store_index_create(db->customer, "customer_by_name",
	                                          customer_name_skey);
	db->order_by_customer = store_index_create(db->order, "order_by_customer",
	                                           order_customer_skey);
	if (db->customer_by_name == NULL || db->order_by_customer == NULL) {
		fprintf(stderr, "tpcc: cannot create an index: %s\n", tm_last_error());
		return -1;
	}
	if (!db->partitioned)
		return 0;
	db->part = calloc(w, sizeof *db->part);
	if (db->part == NULL)
		return -1;
	for (uint64_t i = 0; i < w; i++) {
		tpcc_db_t *p = &db->part[i];
		p->history = create_table("history", sizeof(tpcc_history_t), STORE_HASH,
		                          2 * TPCC_DISTRICTS * (uint64_t)db->customers);
		p->new_order = create_table("new_order", sizeof(tpcc_new_order_t), STORE_ORDERED, 0);
		p->order = create_table("order", sizeof(tpcc_order_t), STORE_ORDERED, 0);
		p->order_line = create_table("order_line", sizeof(tpcc_order_line_t),
		                             STORE_ORDERED, 0);
		if (!p->history || !p->new_order || !p->order || !p->order_line)
			return -1;
		p->order_by_customer = store_index_create(p->order, "order_by_customer",
		                                          order_customer_skey);
		if (p->order_by_customer == NULL) {
			fprintf(stderr, "tpcc: cannot create an index: %s\n", tm_last_error());
			return -1;
		}
	}
	parts_refresh(db);
	return 0;
}

void tpcc_destroy(tpcc_db_t *db)
{
	for (uint32_t i = 0; db->part != NULL && i < db->warehouses; i++) {
		tpcc_db_t *p = &db->part[i];
		store_table_t **own[] = { &p->history, &p->new_order, &p->order, &p->order_line };
		for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
			if (*own[k] != NULL)
				store_table_destroy(*own[k]);
	}
	free(db->part);
	db->part = NULL;
	store_table_t **tables[] = { &db->warehouse, &db->district, &db->customer, &db->history,
	                             &db->new_order, &db->order, &db->order_line, &db->item,
	                             &db->stock };
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		if (*tables[i] != NULL) {
			store_table_destroy(*tables[i]);
			*tables[i] = NULL;
		}
	db->customer_by_name = NULL;
	db->order_by_customer = NULL;
}

/* ---- inserting ---------------------------------------------------------------------- */

/* Up to LOAD_BATCH rows go into a table in one transaction: fewer
 * transactions than rows, and none large. */
#define LOAD_BATCH 32

typedef struct load_batch {
	const tpcc_db_t *db;
	store_table_t *table;
	size_t size, n;
	uint64_t key[LOAD_BATCH];
	unsigned char *rec;       /* [LOAD_BATCH][size] */
	unsigned failed;          /* keys found present: a loader bug */
} load_batch_t;

static int batch_init(load_batch_t *b, const tpcc_db_t *db, store_table_t *t, size_t size)
{
	*b = (load_batch_t){ .db = db, .table = t, .size = size };
	b->rec = calloc(LOAD_BATCH, size);
	if (b->rec == NULL) {
		fprintf(stderr, "tpcc: out of memory loading %s\n", store_table_name(t));
		return -1;
	}
	return 0;
}

static void batch_flush(load_batch_t *b)
{
	if (b->n == 0)
		return;
	volatile unsigned failed = 0;
	tpcc_next_slot(b->db);
	TM_BEGIN();
	failed = 0;
	for (size_t i = 0; i < b->n; i++)
		failed += store_insert(b->table, b->key[i], b->rec + i * b->size) == NULL;
	TM_END();
	b->failed += failed;
	b->n = 0;
}

/* The next row's buffer, zeroed (records are hashed byte for byte). */
static void *batch_next(load_batch_t *b, uint64_t key)
{
	if (b->n == LOAD_BATCH)
		batch_flush(b);
	void *rec = b->rec + b->n * b->size;
	memset(rec, 0, b->size);
	b->key[b->n++] = key;
	return rec;
}

static int batch_done(load_batch_t *b)
{
	batch_flush(b);
	free(b->rec);
	b->rec = NULL;
	if (b->failed) {
		fprintf(stderr, "tpcc: %u rows of %s were loaded under a key already present\n",
		        b->failed, store_table_name(b->table));
		return -1;
	}
	return 0;
}

/* ---- the population (clause 4.3.3.1) --------------------------------------------------- */

static int load_items(tpcc_db_t *db, bench_rng_t *r)
{
	load_batch_t b;
	if (batch_init(&b, db, db->item, sizeof(tpcc_item_t)) != 0)
		return -1;
	for (uint32_t i = 1; i <= db->items; i++) {
		tpcc_item_t *it = batch_next(&b, tpcc_item_key(i));
		it->i_id = (int32_t)i;
		it->i_im_id = (int32_t)tpcc_rand(r, 1, 10000);
		load_astring(r, it->i_name, 14, 24);
		it->i_price = tpcc_rand(r, 100, 10000);       /* 1.00 .. 100.00 */
		load_data_original(r, it->i_data);
	}
	return batch_done(&b);
}

static void load_address(bench_rng_t *r, char *street_1, char *street_2, char *city,
                         char *state, char *zip)
{
	load_astring(r, street_1, 10, 20);
	load_astring(r, street_2, 10, 20);
	load_astring(r, city, 10, 20);
	load_state(r, state);
	load_zip(r, zip);
}

/* Warehouse w's STOCK rows. */
static int load_stock(tpcc_db_t *db, uint32_t w, bench_rng_t *r)
{
	load_batch_t b;
	if (batch_init(&b, db, db->stock, sizeof(tpcc_stock_t)) != 0)
		return -1;
	for (uint32_t i = 1; i <= db->items; i++) {
		tpcc_stock_t *s = batch_next(&b, tpcc_stock_key(w, i));
		s->s_i_id = (int32_t)i;
		s->s_w_id = (int32_t)w;
		s->s_quantity = (int32_t)tpcc_rand(r, 10, 100);
		for (unsigned d = 0; d < TPCC_DISTRICTS; d++)
			load_astring(r, s->s_dist[d], 24, 24);
		load_data_original(r, s->s_data);
	}
	return batch_done(&b);
}

/* District (w, d)'s customers and their HISTORY rows. */
static int load_customers(tpcc_db_t *db, uint32_t w, uint32_t d, bench_rng_t *r)
{
	load_batch_t bc, bh;
	if (batch_init(&bc, db, db->customer, sizeof(tpcc_customer_t)) != 0)
		return -1;
	if (batch_init(&bh, db, db->history, sizeof(tpcc_history_t)) != 0) {
		free(bc.rec);
		return -1;
	}
	uint32_t max_name = tpcc_max_name(db);
	for (uint32_t c = 1; c <= db->customers; c++) {
		tpcc_customer_t *cu = batch_next(&bc, tpcc_customer_key(w, d, c));
		cu->c_id = (int32_t)c;
		cu->c_d_id = (int32_t)d;
		cu->c_w_id = (int32_t)w;
		/* The first 1000 customers take the names 0..999 in turn, the
		 * rest NURand(255, 0, 999) (with fewer customers, only the
		 * names that the first ones take). */
		uint32_t name = c <= TPCC_NAMES ? c - 1
		              : tpcc_nurand(r, 255, db->nurand.c_last_load, 0, max_name);
		cu->c_last_number = (int32_t)name;
		tpcc_last_name(name, cu->c_last);
		memcpy(cu->c_middle, "OE", 2);
		load_astring(r, cu->c_first, 8, 16);
		load_address(r, cu->c_street_1, cu->c_street_2, cu->c_city, cu->c_state,
		             cu->c_zip);
		load_nstring(r, cu->c_phone, 16);
		cu->c_since = TPCC_LOAD_TIME;
		memcpy(cu->c_credit, tpcc_rand(r, 1, 10) == 1 ? "BC" : "GC", 2);   /* 10 % BC */
		cu->c_credit_lim = 5000000;                    /* 50,000.00 */
		cu->c_discount = (int32_t)tpcc_rand(r, 0, 5000);   /* 0.0000 .. 0.5000 */
		cu->c_balance = -1000;                         /* -10.00 */
		cu->c_ytd_payment = 1000;                      /* 10.00 */
		cu->c_payment_cnt = 1;
		cu->c_delivery_cnt = 0;
		load_astring(r, cu->c_data, 300, 500);

		/* One HISTORY row per customer. */
		uint64_t seq = ((uint64_t)(w - 1) * TPCC_DISTRICTS + (d - 1)) * db->customers + (c - 1);
		tpcc_history_t *h = batch_next(&bh, tpcc_history_key(0, seq));
		h->h_c_id = (int32_t)c;
		h->h_c_d_id = h->h_d_id = (int32_t)d;
		h->h_c_w_id = h->h_w_id = (int32_t)w;
		h->h_date = TPCC_LOAD_TIME;
		h->h_amount = 1000;                            /* 10.00 */
		load_astring(r, h->h_data, 12, 24);
	}
	int rc = batch_done(&bc);
	return batch_done(&bh) != 0 ? -1 : rc;
}

/* District (w, d)'s orders, their lines, and the NEW-ORDER rows of the
 * undelivered ones.  perm has room for the customers. */
static int load_orders(tpcc_db_t *db, uint32_t w, uint32_t d, bench_rng_t *r, uint32_t *perm)
{
	/* O_C_ID runs through a random permutation of the customers. */
	uint32_t n = db->customers;
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i + 1;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = tpcc_rand(r, 0, i);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	/* The last 900 of 3000 orders are undelivered: 30 % at any scale. */
	uint32_t undelivered = n * 900 / TPCC_CUSTOMERS;
	uint32_t last_delivered = n - undelivered;

	load_batch_t bo, bl, bn;
	if (batch_init(&bo, db, db->order, sizeof(tpcc_order_t)) != 0)
		return -1;
	if (batch_init(&bl, db, db->order_line, sizeof(tpcc_order_line_t)) != 0) {
		free(bo.rec);
		return -1;
	}
	if (batch_init(&bn, db, db->new_order, sizeof(tpcc_new_order_t)) != 0) {
		free(bo.rec);
		free(bl.rec);
		return -1;
	}
	for (uint32_t o = 1; o <= n; o++) {
		bool delivered = o <= last_delivered;
		tpcc_order_t *ord = batch_next(&bo, tpcc_order_key(w, d, o));
		ord->o_id = o;
		ord->o_c_id = (int32_t)perm[o - 1];
		ord->o_d_id = (int32_t)d;
		ord->o_w_id = (int32_t)w;
		ord->o_entry_d = TPCC_LOAD_TIME;
		ord->o_carrier_id = delivered ? (int32_t)tpcc_rand(r, 1, 10) : 0;
		ord->o_ol_cnt = (int32_t)tpcc_rand(r, TPCC_MIN_OL, TPCC_MAX_OL);
		ord->o_all_local = 1;
		for (int32_t ol = 1; ol <= ord->o_ol_cnt; ol++) {
			tpcc_order_line_t *l = batch_next(&bl,
				tpcc_order_line_key(w, d, o, (uint32_t)ol));
			l->ol_o_id = o;
			l->ol_d_id = (int32_t)d;
			l->ol_w_id = (int32_t)w;
			l->ol_number = ol;
			l->ol_i_id = (int32_t)tpcc_rand(r, 1, db->items);
			l->ol_supply_w_id = (int32_t)w;
			l->ol_delivery_d = delivered ? ord->o_entry_d : 0;
			l->ol_quantity = 5;
			/* 0.00 if delivered, else 0.01 .. 9,999.99 */
			l->ol_amount = delivered ? 0 : tpcc_rand(r, 1, 999999);
			load_astring(r, l->ol_dist_info, 24, 24);
		}
		if (!delivered) {
			tpcc_new_order_t *no = batch_next(&bn, tpcc_order_key(w, d, o));
			no->no_o_id = o;
			no->no_d_id = (int32_t)d;
			no->no_w_id = (int32_t)w;
		}
	}
	int rc = batch_done(&bo);
	rc |= batch_done(&bl);
	rc |= batch_done(&bn);
	return rc;
}

static int load_warehouse(tpcc_db_t *db, uint32_t w, uint32_t *perm)
{
	db = tpcc_home(db, w);
	bench_rng_t rng, *r = &rng;
	bench_rng_seed(r, db->seed, LOAD_STREAM_WAREHOUSE + w);

	load_batch_t b;
	if (batch_init(&b, db, db->warehouse, sizeof(tpcc_warehouse_t)) != 0)
		return -1;
	tpcc_warehouse_t *wh = batch_next(&b, tpcc_warehouse_key(w));
	wh->w_id = (int32_t)w;
	load_astring(r, wh->w_name, 6, 10);
	load_address(r, wh->w_street_1, wh->w_street_2, wh->w_city, wh->w_state, wh->w_zip);
	wh->w_tax = (int32_t)tpcc_rand(r, 0, 2000);       /* 0.0000 .. 0.2000 */
	wh->w_ytd = 30000000;                              /* 300,000.00 */
	if (batch_done(&b) != 0)
		return -1;

	if (load_stock(db, w, r) != 0)
		return -1;

	if (batch_init(&b, db, db->district, sizeof(tpcc_district_t)) != 0)
		return -1;
	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++) {
		tpcc_district_t *di = batch_next(&b, tpcc_district_key(w, d));
		di->d_id = (int32_t)d;
		di->d_w_id = (int32_t)w;
		load_astring(r, di->d_name, 6, 10);
		load_address(r, di->d_street_1, di->d_street_2, di->d_city, di->d_state,
		             di->d_zip);
		di->d_tax = (int32_t)tpcc_rand(r, 0, 2000);
		di->d_ytd = 3000000;                       /* 30,000.00 */
		di->d_next_o_id = db->customers + 1;      /* 3,001 at full scale */
	}
	if (batch_done(&b) != 0)
		return -1;

	for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++)
		if (load_customers(db, w, d, r) != 0 || load_orders(db, w, d, r, perm) != 0)
			return -1;
	return 0;
}

int tpcc_load_shared(tpcc_db_t *db)
{
	bench_rng_t setup;
	bench_rng_seed(&setup, db->seed, LOAD_STREAM_SETUP);

	/* Clause 2.1.6: C is a constant in [0, A] chosen once; for C_LAST the
	 * run-time value differs from the population's by 65..119, but not
	 * by 96 or 112 (clause 2.1.6.1). */
	tpcc_nurand_c_t *nc = &db->nurand;
	nc->c_last_load = tpcc_rand(&setup, 0, 255);
	for (;;) {
		nc->c_last_run = tpcc_rand(&setup, 0, 255);
		uint32_t delta = nc->c_last_run > nc->c_last_load
		               ? nc->c_last_run - nc->c_last_load
		               : nc->c_last_load - nc->c_last_run;
		if (delta >= 65 && delta <= 119 && delta != 96 && delta != 112)
			break;
	}
	nc->c_id = tpcc_rand(&setup, 0, 1023);
	nc->ol_i_id = tpcc_rand(&setup, 0, 8191);
	return load_items(db, &setup);
}

void tpcc_seal(tpcc_db_t *db)
{
	store_table_seal(db->item, STORE_SEAL_ALL);
	store_table_seal(db->warehouse, STORE_SEAL_KEYS);
	store_table_seal(db->district, STORE_SEAL_KEYS);
	store_table_seal(db->customer, STORE_SEAL_KEYS);
	store_table_seal(db->stock, STORE_SEAL_KEYS);
}

typedef struct loader {
	tpcc_db_t *db;
	unsigned id, count;       /* loads warehouses w with (w - 1) % count == id */
	int rc;
	pthread_t thread;
} loader_t;

static void *loader_main(void *p)
{
	loader_t *l = p;
	l->rc = -1;
	if (tm_thread_enter(l->id) != 0) {
		fprintf(stderr, "tpcc: loader %u: tm_thread_enter: %s\n", l->id, tm_last_error());
		return NULL;
	}
	uint32_t *perm = malloc(l->db->customers * sizeof *perm);
	if (perm == NULL) {
		fprintf(stderr, "tpcc: out of memory for the population\n");
	} else {
		l->rc = 0;
		for (uint32_t w = 1 + l->id; w <= l->db->warehouses && l->rc == 0; w += l->count)
			l->rc = load_warehouse(l->db, w, perm);
		free(perm);
	}
	tm_thread_exit();
	return NULL;
}

int tpcc_load_warehouses(tpcc_db_t *db, unsigned loaders)
{
	parts_refresh(db);   /* the shared population's constants */
	if (loaders > db->warehouses)
		loaders = db->warehouses;
	if (loaders == 0)
		loaders = 1;
	loader_t *l = calloc(loaders, sizeof *l);
	if (l == NULL) {
		fprintf(stderr, "tpcc: out of memory for %u loaders\n", loaders);
		return -1;
	}
	unsigned started = 0;
	for (; started < loaders; started++) {
		l[started] = (loader_t){ .db = db, .id = started, .count = loaders, .rc = -1 };
		int err = pthread_create(&l[started].thread, NULL, loader_main, &l[started]);
		if (err != 0) {
			fprintf(stderr, "tpcc: cannot create loader thread %u: %s\n", started,
			        strerror(err));
			break;
		}
	}
	int rc = started == loaders ? 0 : -1;
	for (unsigned i = 0; i < started; i++) {
		pthread_join(l[i].thread, NULL);
		if (l[i].rc != 0)
			rc = -1;
	}
	free(l);
	if (rc == 0)
		tpcc_seal(db);
	return rc;
}
