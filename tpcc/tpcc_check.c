/*
 * tpcc/tpcc_check.c — the consistency conditions of clause 3.3.2.1–4,
 * checked after the run, and the database's digest.
 *
 * The checks read the tables in transactions (one per warehouse or
 * district) while no worker runs, so they see the committed state.
 */
#include "tpcc.h"

#include <inttypes.h>
#include <stdio.h>

/* ---- condition 1 (clause 3.3.2.1): W_YTD = sum(D_YTD) ------------------------------------ */

typedef struct ytd_sums {
	bool missing;
	int64_t w_ytd, d_ytd;
} ytd_sums_t;

static void read_ytd(const tpcc_db_t *db, uint32_t w, ytd_sums_t *s)
{
	tpcc_next_slot(db);
	TM_BEGIN();
	s->missing = false;
	s->w_ytd = s->d_ytd = 0;
	tpcc_warehouse_t *wh = store_get(db->warehouse, tpcc_warehouse_key(w));
	if (wh == NULL)
		s->missing = true;
	else
		s->w_ytd = TM_LOAD(&wh->w_ytd);
	for (uint32_t d = 1; d <= TPCC_DISTRICTS && !s->missing; d++) {
		tpcc_district_t *di = store_get(db->district, tpcc_district_key(w, d));
		if (di == NULL)
			s->missing = true;
		else
			s->d_ytd += TM_LOAD(&di->d_ytd);
	}
	TM_END();
}

static bool check_ytd(const tpcc_db_t *db, bench_verdict_t *v)
{
	for (uint32_t w = 1; w <= db->warehouses; w++) {
		ytd_sums_t s = { .missing = false };
		read_ytd(db, w, &s);
		if (s.missing)
			return bench_fail(v, "condition 1: warehouse %" PRIu32 " or one of its "
			                  "districts is missing", w);
		if (s.w_ytd != s.d_ytd)
			return bench_fail(v, "condition 1: warehouse %" PRIu32 ": W_YTD %" PRId64
			                  " but its districts' D_YTD sum to %" PRId64, w, s.w_ytd,
			                  s.d_ytd);
	}
	return true;
}

/* ---- conditions 2–4, per district ----------------------------------------------------------- */

typedef struct district_facts {
	bool missing;
	int64_t next_o_id;
	uint64_t max_o_id;                /* 0: no order */
	uint64_t min_no_id, max_no_id;    /* 0: no new order */
	uint64_t new_orders;
	int64_t ol_cnt_sum;
	uint64_t order_lines;
} district_facts_t;

static int sum_ol_cnt(uint64_t key, void *rec, void *arg)
{
	const tpcc_order_t *o = rec;
	(void)key;
	*(int64_t *)arg += TM_LOAD(&o->o_ol_cnt);
	return 0;
}

static int count_row(uint64_t key, void *rec, void *arg)
{
	(void)key;
	(void)rec;
	(void)arg;
	return 0;
}

static __attribute__((noinline)) void read_district_in(const tpcc_db_t *db, uint32_t w,
                                                        uint32_t d, district_facts_t *f)
{
	uint64_t lo = tpcc_order_key(w, d, 0), hi = tpcc_order_key(w, d, TPCC_O_ID_MAX);
	tpcc_next_slot(db);
	TM_BEGIN();
	f->missing = false;
	f->max_o_id = f->min_no_id = f->max_no_id = 0;
	f->ol_cnt_sum = 0;
	tpcc_district_t *di = store_get(db->district, tpcc_district_key(w, d));
	f->missing = di == NULL;
	f->next_o_id = di ? TM_LOAD(&di->d_next_o_id) : 0;
	uint64_t key;
	if (store_last(db->order, lo, hi, &key) != NULL)
		f->max_o_id = tpcc_order_id_of(key);
	if (store_first(db->new_order, lo, hi, &key) != NULL)
		f->min_no_id = tpcc_order_id_of(key);
	if (store_last(db->new_order, lo, hi, &key) != NULL)
		f->max_no_id = tpcc_order_id_of(key);
	f->new_orders = store_scan(db->new_order, lo, hi, STORE_ASC, count_row, NULL);
	store_scan(db->order, lo, hi, STORE_ASC, sum_ol_cnt, &f->ol_cnt_sum);
	f->order_lines = store_scan(db->order_line, tpcc_order_line_key(w, d, 0, 0),
	                            tpcc_order_line_key(w, d, TPCC_O_ID_MAX, TPCC_MAX_OL),
	                            STORE_ASC, count_row, NULL);
	TM_END();
}

/* db's, or w's partition's (tpcc_home). */
static void read_district(const tpcc_db_t *db, uint32_t w, uint32_t d, district_facts_t *f)
{
	read_district_in(tpcc_home(db, w), w, d, f);
}

static void check_district(const tpcc_db_t *db, uint32_t w, uint32_t d,
                           bool ok[TPCC_CONDITIONS], bench_verdict_t *v)
{
	district_facts_t f = { .missing = false };
	read_district(db, w, d, &f);
	if (f.missing) {
		ok[1] = bench_fail(v, "condition 2: district (%" PRIu32 ", %" PRIu32 ") is missing",
		                   w, d);
		return;
	}
	/* Clause 3.3.2.2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID); a
	 * district whose orders are all delivered has no NO_O_ID to compare. */
	if ((uint64_t)f.next_o_id - 1 != f.max_o_id ||
	    (f.new_orders > 0 && f.max_no_id != f.max_o_id))
		ok[1] = bench_fail(v, "condition 2: district (%" PRIu32 ", %" PRIu32 "): "
		                   "D_NEXT_O_ID - 1 = %" PRId64 ", max(O_ID) = %" PRIu64
		                   ", max(NO_O_ID) = %" PRIu64 " (%" PRIu64 " new orders)", w, d,
		                   f.next_o_id - 1, f.max_o_id, f.max_no_id, f.new_orders);
	/* Clause 3.3.2.3: the undelivered orders are one run of ids. */
	if (f.new_orders > 0 && f.max_no_id - f.min_no_id + 1 != f.new_orders)
		ok[2] = bench_fail(v, "condition 3: district (%" PRIu32 ", %" PRIu32 "): "
		                   "max(NO_O_ID) - min(NO_O_ID) + 1 = %" PRIu64 " but it has %"
		                   PRIu64 " NEW-ORDER rows", w, d,
		                   f.max_no_id - f.min_no_id + 1, f.new_orders);
	/* Clause 3.3.2.4: sum(O_OL_CNT) = the number of ORDER-LINE rows. */
	if (f.ol_cnt_sum < 0 || (uint64_t)f.ol_cnt_sum != f.order_lines)
		ok[3] = bench_fail(v, "condition 4: district (%" PRIu32 ", %" PRIu32 "): "
		                   "sum(O_OL_CNT) = %" PRId64 " but it has %" PRIu64
		                   " ORDER-LINE rows", w, d, f.ol_cnt_sum, f.order_lines);
}

void tpcc_check(const tpcc_db_t *db, bool ok[TPCC_CONDITIONS], bench_verdict_t *v)
{
	for (int i = 0; i < TPCC_CONDITIONS; i++)
		ok[i] = true;
	ok[0] = check_ytd(db, v);
	for (uint32_t w = 1; w <= db->warehouses; w++)
		for (uint32_t d = 1; d <= TPCC_DISTRICTS; d++)
			check_district(db, w, d, ok, v);

	/* And the store's own structure, table by table. */
	const store_table_t *tables[] = { db->warehouse, db->district, db->customer,
	                                  db->history, db->new_order, db->order,
	                                  db->order_line, db->item, db->stock };
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		if (store_check(tables[i]) != 0)
			bench_fail(v, "table %s is malformed: %s", store_table_name(tables[i]),
			           tm_last_error());
	for (uint32_t w = 1; db->part != NULL && w <= db->warehouses; w++) {
		const tpcc_db_t *p = &db->part[w - 1];
		const store_table_t *own[] = { p->history, p->new_order, p->order, p->order_line };
		for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
			if (store_check(own[i]) != 0)
				bench_fail(v, "table %s of warehouse %u is malformed: %s",
				           store_table_name(own[i]), w, tm_last_error());
	}
}

/* ---- the digest ------------------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t tpcc_digest(const tpcc_db_t *db)
{
	const store_table_t *tables[] = { db->warehouse, db->district, db->customer,
	                                  db->history, db->new_order, db->order,
	                                  db->order_line, db->item, db->stock };
	uint64_t h = 0;
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		h = mix64(h ^ store_digest(tables[i]) ^ (uint64_t)(i + 1) << 56);
	for (uint32_t w = 1; db->part != NULL && w <= db->warehouses; w++) {
		const tpcc_db_t *p = &db->part[w - 1];
		const store_table_t *own[] = { p->history, p->new_order, p->order, p->order_line };
		for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
			h = mix64(h ^ store_digest(own[i]) ^ (uint64_t)w << 32 ^ (i + 1) << 56);
	}
	return h;
}
