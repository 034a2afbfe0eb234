/*
 * tpcc/tpcc.h — TPC-C (revision 5.11, clauses 1–4) on the record store.
 *
 * The schema (clause 1.3): one C struct per table, fixed-size fields.
 *  - Numbers are int32_t or int64_t.  Money (numeric(n,2)) is an int64_t of
 *    cents; rates (numeric(4,4): W_TAX, D_TAX, C_DISCOUNT) are an int32_t
 *    of 1/10000.  Dates are int64_t ticks of the run's logical clock (see
 *    tpcc_now), 0 for a null date.
 *  - A string of up to n characters (variable text n, or fixed text n) is
 *    a char[n + 1], NUL-terminated and zero-padded, so that records with
 *    equal contents have equal bytes (store_digest hashes every byte).
 *  - Every record is zeroed before it is filled, for the same reason.
 *
 * Tables, their kinds and keys (the packing functions below):
 *   WAREHOUSE   hash     w
 *   DISTRICT    hash     (w, d)
 *   CUSTOMER    hash     (w, d, c); secondary index by last name:
 *                        (w, d, C_LAST's number 0..999, c) — the index keeps
 *                        a name's customers together, in c order
 *   HISTORY     hash     (worker slot, sequence): it has no primary key
 *                        (clause 1.3.1), and nothing looks a row up; the
 *                        slot is 0 for the population, 1 + the worker id
 *                        at run time, so the keys do not depend on timing
 *   NEW-ORDER   ordered  (w, d, o): Delivery takes a district's oldest
 *   ORDER       ordered  (w, d, o); secondary index by customer:
 *                        (w, d, c, o) — Order-Status takes the last one
 *   ORDER-LINE  ordered  (w, d, o, ol): Order-Status, Delivery and
 *                        Stock-Level read an order's (or 20 orders') lines
 *                        as one range
 *   ITEM        hash     i
 *   STOCK       hash     (w, i)
 * The ordered tables are ordered because a transaction scans them or
 * takes their first or last row in a district; the others are only ever
 * read by key.
 *
 * Bits of the packed keys: warehouse 12 (so -w is at most 4095), district
 * 4, customer 12 (at most 3000 per district), order 36, order line 4 (at
 * most 15), item 17 (at most 100000).  The widest, the order-by-customer
 * key, takes 12 + 4 + 12 + 36 = 64 bits.
 */
#ifndef POTM_TPCC_H
#define POTM_TPCC_H

#include "harness.h"

#include <potm/store.h>
#include <potm/tm.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- scale (clause 1.2, 4.3.3.1) ----------------------------------------------- */

#define TPCC_DISTRICTS 10         /* per warehouse */
#define TPCC_CUSTOMERS 3000       /* per district (the standard; -C lowers it) */
#define TPCC_ITEMS 100000         /* the standard; -I lowers it */
#define TPCC_MAX_OL 15            /* order lines per order: 5..15 */
#define TPCC_MIN_OL 5
#define TPCC_NAMES 1000           /* C_LAST numbers 0..999 */
/* The most LSD handles (<potm/lsd.h>: futures, constants, operators,
 * conditions) one transaction's body makes with -a lsd: Stock-Level's
 * two per distinct item of 20 orders of at most 15 lines, and a few. */
#define TPCC_LSD_HANDLES_MAX 1000

#define TPCC_W_BITS 12
#define TPCC_D_BITS 4
#define TPCC_C_BITS 12
#define TPCC_O_BITS 36
#define TPCC_OL_BITS 4
#define TPCC_I_BITS 17
#define TPCC_NAME_BITS 10
#define TPCC_MAX_WAREHOUSES ((1u << TPCC_W_BITS) - 1)
#define TPCC_O_ID_MAX ((UINT64_C(1) << TPCC_O_BITS) - 1)

/* History keys: 16 bits of worker slot, 48 of sequence. */
#define TPCC_HIST_SEQ_BITS 48

/* ---- the records (clause 1.3) ----------------------------------------------------- */

typedef struct tpcc_warehouse {
	int64_t w_ytd;            /* cents */
	int32_t w_id;
	int32_t w_tax;            /* 1/10000 */
	char w_name[11];
	char w_street_1[21];
	char w_street_2[21];
	char w_city[21];
	char w_state[3];
	char w_zip[10];
} tpcc_warehouse_t;

typedef struct tpcc_district {
	int64_t d_ytd;            /* cents */
	int64_t d_next_o_id;
	int32_t d_id;
	int32_t d_w_id;
	int32_t d_tax;            /* 1/10000 */
	char d_name[11];
	char d_street_1[21];
	char d_street_2[21];
	char d_city[21];
	char d_state[3];
	char d_zip[10];
} tpcc_district_t;

typedef struct tpcc_customer {
	int64_t c_since;
	int64_t c_credit_lim;     /* cents */
	int64_t c_balance;        /* cents */
	int64_t c_ytd_payment;    /* cents */
	int32_t c_id;
	int32_t c_d_id;
	int32_t c_w_id;
	int32_t c_discount;       /* 1/10000 */
	int32_t c_payment_cnt;
	int32_t c_delivery_cnt;
	/* The number C_LAST was made from (clause 4.3.2.3), not a column of
	 * the spec: the last-name index's key is computed from it rather than
	 * by parsing the syllables back.  Never changes, like C_LAST. */
	int32_t c_last_number;
	char c_first[17];
	char c_middle[3];
	char c_last[17];
	char c_street_1[21];
	char c_street_2[21];
	char c_city[21];
	char c_state[3];
	char c_zip[10];
	char c_phone[17];
	char c_credit[3];         /* "GC" or "BC" */
	char c_data[501];
} tpcc_customer_t;

typedef struct tpcc_history {
	int64_t h_date;
	int64_t h_amount;         /* cents */
	int32_t h_c_id;
	int32_t h_c_d_id;
	int32_t h_c_w_id;
	int32_t h_d_id;
	int32_t h_w_id;
	char h_data[25];
} tpcc_history_t;

typedef struct tpcc_new_order {
	int64_t no_o_id;
	int32_t no_d_id;
	int32_t no_w_id;
} tpcc_new_order_t;

typedef struct tpcc_order {
	int64_t o_id;
	int64_t o_entry_d;
	int32_t o_c_id;
	int32_t o_d_id;
	int32_t o_w_id;
	int32_t o_carrier_id;     /* 1..10, 0 = null */
	int32_t o_ol_cnt;
	int32_t o_all_local;
} tpcc_order_t;

typedef struct tpcc_order_line {
	int64_t ol_o_id;
	int64_t ol_delivery_d;    /* 0 = null */
	int64_t ol_amount;        /* cents */
	int32_t ol_d_id;
	int32_t ol_w_id;
	int32_t ol_number;
	int32_t ol_i_id;
	int32_t ol_supply_w_id;
	int32_t ol_quantity;
	char ol_dist_info[25];
} tpcc_order_line_t;

typedef struct tpcc_item {
	int64_t i_price;          /* cents */
	int32_t i_id;
	int32_t i_im_id;
	char i_name[25];
	char i_data[51];
} tpcc_item_t;

typedef struct tpcc_stock {
	int32_t s_i_id;
	int32_t s_w_id;
	int32_t s_quantity;
	int32_t s_ytd;
	int32_t s_order_cnt;
	int32_t s_remote_cnt;
	char s_dist[TPCC_DISTRICTS][25];   /* S_DIST_01 .. S_DIST_10 */
	char s_data[51];
} tpcc_stock_t;

/* ---- key packing ------------------------------------------------------------------ */

static inline uint64_t tpcc_warehouse_key(uint32_t w)
{
	return w;
}

static inline uint64_t tpcc_district_key(uint32_t w, uint32_t d)
{
	return (uint64_t)w << TPCC_D_BITS | d;
}

static inline uint64_t tpcc_customer_key(uint32_t w, uint32_t d, uint32_t c)
{
	return tpcc_district_key(w, d) << TPCC_C_BITS | c;
}

/* The last-name index: a name's customers in one district are one range,
 * [name_key(w, d, n, 0), name_key(w, d, n, TPCC_C_MAX)]. */
#define TPCC_C_MAX ((1u << TPCC_C_BITS) - 1)
static inline uint64_t tpcc_customer_name_key(uint32_t w, uint32_t d, uint32_t name,
                                              uint32_t c)
{
	return (tpcc_district_key(w, d) << TPCC_NAME_BITS | name) << TPCC_C_BITS | c;
}

static inline uint64_t tpcc_item_key(uint32_t i)
{
	return i;
}

static inline uint64_t tpcc_stock_key(uint32_t w, uint32_t i)
{
	return (uint64_t)w << TPCC_I_BITS | i;
}

/* ORDER and NEW-ORDER share it. */
static inline uint64_t tpcc_order_key(uint32_t w, uint32_t d, uint64_t o)
{
	return tpcc_district_key(w, d) << TPCC_O_BITS | o;
}

static inline uint64_t tpcc_order_id_of(uint64_t order_key)
{
	return order_key & TPCC_O_ID_MAX;
}

static inline uint64_t tpcc_order_line_key(uint32_t w, uint32_t d, uint64_t o, uint32_t ol)
{
	return tpcc_order_key(w, d, o) << TPCC_OL_BITS | ol;
}

/* The order-by-customer index: a customer's orders are one range, the
 * last one the newest. */
static inline uint64_t tpcc_order_customer_key(uint32_t w, uint32_t d, uint32_t c, uint64_t o)
{
	return tpcc_customer_key(w, d, c) << TPCC_O_BITS | o;
}

static inline uint64_t tpcc_history_key(uint32_t slot, uint64_t seq)
{
	return (uint64_t)slot << TPCC_HIST_SEQ_BITS | seq;
}

/* ---- random input (clause 2.1.5, 2.1.6, 4.3.2) ------------------------------------ */

/* Uniform in [lo, hi]. */
static inline uint32_t tpcc_rand(bench_rng_t *r, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)bench_rng_below(r, (uint64_t)hi - lo + 1);
}

/* NURand(A, x, y) of clause 2.1.6, with the run's constant c. */
static inline uint32_t tpcc_nurand(bench_rng_t *r, uint32_t a, uint32_t c, uint32_t x,
                                   uint32_t y)
{
	return ((tpcc_rand(r, 0, a) | tpcc_rand(r, x, y)) + c) % (y - x + 1) + x;
}

/* ---- the run ----------------------------------------------------------------------- */

enum tpcc_tx_type {
	TPCC_NEW_ORDER, TPCC_PAYMENT, TPCC_ORDER_STATUS, TPCC_DELIVERY, TPCC_STOCK_LEVEL,
	TPCC_TX_TYPES
};

/* -m: the standard mix, or one transaction type only. */
enum tpcc_mix {
	TPCC_MIX_STANDARD = 0,
	TPCC_MIX_ONLY_FIRST   /* + tpcc_tx_type */
};

/* The constants C of NURand (clause 2.1.6), drawn at population time. */
typedef struct tpcc_nurand_c {
	uint32_t c_last_load;     /* C_LAST in the population */
	uint32_t c_last_run;      /* C_LAST at run time (clause 2.1.6.1) */
	uint32_t c_id;            /* C_ID */
	uint32_t ol_i_id;         /* OL_I_ID */
} tpcc_nurand_c_t;

/* A customer found by last name: its first name and id, to be sorted. */
typedef struct tpcc_name_hit {
	char first[17];
	uint32_t c_id;
} tpcc_name_hit_t;

/* One worker's state: written by that worker only (its results cross
 * TM_END here, in heap memory, not in locals of the transaction's frame).
 * Padded so that workers do not share a cache line. */
typedef struct tpcc_worker {
	uint64_t done[TPCC_TX_TYPES];       /* transactions run, by type */
	uint64_t committed[TPCC_TX_TYPES];  /* ... that committed */
	uint64_t rollbacks;                 /* New-Orders rolled back (unused item) */
	uint64_t remote_lines;              /* New-Order lines from another warehouse */
	uint64_t remote_payments;           /* Payments of another warehouse's customer */
	uint64_t by_name;                   /* customers selected by last name */
	uint64_t delivered;                 /* orders delivered */
	uint64_t delivery_skipped;          /* districts with no new order to deliver */
	uint64_t low_stock;                 /* Stock-Level: items below threshold */
	uint64_t errors;                    /* impossible outcomes (a missing row) */
	char error[160];                    /* the first of them */
	uint64_t clock;                     /* transactions begun: the logical time */
	uint64_t history_seq;               /* HISTORY rows inserted */
	bench_lat_t lat[TPCC_TX_TYPES];     /* latency of each type, ns */
	tpcc_name_hit_t *names;             /* [customers]: by-name scratch */
	/* -D (tpcc_durable.c): commits waiting for their stamp to be
	 * durable, and those acknowledged (read by the acknowledger). */
	struct tpcc_pending *pending;       /* a ring of pending_cap (a power of 2) */
	uint64_t pending_head, pending_tail;
	uint64_t pending_cap;
	uint64_t ack_waits;                 /* times the ring was full: the worker waited */
	uint64_t acked[TPCC_TX_TYPES];
	uint64_t last_stamp;                /* of its last logged commit */
	uint32_t items[TPCC_MAX_OL * 20];   /* Stock-Level scratch */
} __attribute__((aligned(64))) tpcc_worker_t;

#define TPCC_DORA_WINDOW_MAX 4

typedef struct tpcc_db {
	/* parameters */
	uint32_t warehouses;
	uint32_t items;           /* -I */
	uint32_t customers;       /* -C, per district */
	uint32_t threads;
	unsigned mix;             /* enum tpcc_mix */
	bool can_cancel;          /* the backend can roll back (tm_cancel): not seq */
	bool lsd;                 /* -a lsd: lazy counters, futures, conditions */
	uint32_t remote_pct;      /* -x: New-Order lines from a remote warehouse, % (1) */
	uint32_t dora_window;     /* -W: a DORA terminal's transactions in flight,
	                           * 1..TPCC_DORA_WINDOW_MAX (1: one at a time, its
	                           * latency the response time of one transaction) */
	uint64_t seed;
	tpcc_nurand_c_t nurand;
	/* tables */
	store_table_t *warehouse, *district, *customer, *history, *new_order, *order,
		*order_line, *item, *stock;
	store_index_t *customer_by_name, *order_by_customer;
	tpcc_worker_t *worker;    /* [threads] */
	/* Under the explicit order (POTM_SEQUENCER=explicit, a server's
	 * agreed order) every transaction needs its slot: when set, each
	 * transaction of the population and of the checks takes slot
	 * (*explicit_slot)++ (they run on one thread at a time then). */
	uint64_t *explicit_slot;
	/* Partitioned by warehouse (set before tpcc_create; a server's
	 * choice): HISTORY, NEW-ORDER, ORDER, ORDER-LINE and the index of
	 * orders by customer exist once per warehouse, in part[w - 1], a copy
	 * of this descriptor whose other tables are the shared ones.  Every
	 * transaction inserts and deletes only in its home warehouse's
	 * partition (tpcc_home), so transactions of different home
	 * warehouses that touch no other warehouse's rows share no data,
	 * structures included: they commute (tm_set_next_order_key). */
	bool partitioned;
	struct tpcc_db *part;     /* [warehouses], or NULL */
	/* -D: the redo log and its directory (tpcc_durable.c), or NULL */
	struct potm_durable *log;
	const char *log_dir;
	struct tpcc_acker *acker;
} tpcc_db_t;

/* The descriptor a transaction of home warehouse w works on. */
static inline tpcc_db_t *tpcc_home(const tpcc_db_t *db, uint32_t w)
{
	return db->part != NULL ? &db->part[w - 1] : (tpcc_db_t *)(uintptr_t)db;
}

/* Supply the next slot of db's explicit order, if it has one. */
static inline void tpcc_next_slot(const tpcc_db_t *db)
{
	if (db->explicit_slot != NULL && tm_set_next_order((*db->explicit_slot)++) != 0) {
		fprintf(stderr, "tpcc: %s\n", tm_last_error());
		abort();   /* one thread at a time takes these slots: a bug */
	}
}

/* ---- requests: one transaction, run by any thread ----------------------------------- */

/* Each transaction's input (clauses 2.4.1 to 2.8.1), drawn before it
 * begins, and its output (what a terminal would display), filled by its
 * body.  A request pairs a type with its input, so that a server can run
 * a client's transaction on whichever thread executes it. */
typedef struct tpcc_new_order_in {
	uint32_t w, d, c, ol_cnt;
	int32_t all_local;
	int64_t entry_d;
	struct {
		uint32_t i_id, supply_w, quantity;
	} line[TPCC_MAX_OL];
} tpcc_new_order_in_t;

typedef struct tpcc_new_order_out {
	const char *missing;      /* an impossible outcome, or NULL */
	bool rolled_back;         /* seq only: see new_order_body */
	uint64_t o_id;
	int64_t total;            /* cents, tax and discount applied */
	char c_last[17], c_credit[3];
	struct {
		int32_t s_quantity;
		int64_t amount;
		char brand;           /* 'B'rand or 'G'eneric */
		char i_name[25];
	} line[TPCC_MAX_OL];
} tpcc_new_order_out_t;

typedef struct tpcc_payment_in {
	uint32_t w, d, c_w, c_d;
	uint32_t c_id;            /* 0: by name */
	uint32_t name;
	int64_t amount;           /* cents */
	int64_t date;
	uint64_t history_key;
} tpcc_payment_in_t;

typedef struct tpcc_payment_out {
	const char *missing;
	uint32_t c_id;
	int64_t c_balance;
	char c_credit[3];
	char w_name[11], d_name[11];
	char w_street_1[21], w_city[21], d_street_1[21], d_city[21];
	char c_first[17];
} tpcc_payment_out_t;

typedef struct tpcc_order_status_in {
	uint32_t w, d;
	uint32_t c_id;            /* 0: by name */
	uint32_t name;
} tpcc_order_status_in_t;

typedef struct tpcc_order_status_out {
	const char *missing;
	uint32_t c_id;
	int64_t c_balance;
	char c_first[17], c_middle[3], c_last[17];
	uint64_t o_id;
	int64_t o_entry_d;
	int32_t o_carrier_id;
	uint32_t lines;
	struct {
		int32_t i_id, supply_w, quantity;
		int64_t amount, delivery_d;
	} line[TPCC_MAX_OL];
} tpcc_order_status_out_t;

typedef struct tpcc_delivery_in {
	uint32_t w;
	int32_t carrier;
	int64_t date;
} tpcc_delivery_in_t;

typedef struct tpcc_delivery_out {
	const char *missing;
	uint32_t delivered, skipped;
	uint64_t o_id[TPCC_DISTRICTS];   /* 0: skipped */
} tpcc_delivery_out_t;

typedef struct tpcc_stock_level_in {
	uint32_t w, d;
	int32_t threshold;
} tpcc_stock_level_in_t;

typedef struct tpcc_stock_level_out {
	const char *missing;
	uint32_t low;             /* distinct items below the threshold */
} tpcc_stock_level_out_t;

typedef struct tpcc_request {
	enum tpcc_tx_type type;
	union {
		tpcc_new_order_in_t new_order;
		tpcc_payment_in_t payment;
		tpcc_order_status_in_t order_status;
		tpcc_delivery_in_t delivery;
		tpcc_stock_level_in_t stock_level;
	} in;
} tpcc_request_t;

/* A request's home warehouse (the w of its input). */
uint32_t tpcc_request_home(const tpcc_request_t *req);

typedef struct tpcc_result {
	const char *missing;      /* an impossible outcome (a missing row), or NULL */
	bool rolled_back;         /* a New-Order rolled back (unused item) */
	union {
		tpcc_new_order_out_t new_order;
		tpcc_payment_out_t payment;
		tpcc_order_status_out_t order_status;
		tpcc_delivery_out_t delivery;
		tpcc_stock_level_out_t stock_level;
	} out;
} tpcc_result_t;

/* The logical clock (clause 4.3.3.1's "current date and time", O_ENTRY_D,
 * H_DATE, OL_DELIVERY_D): the population happens at TPCC_LOAD_TIME; a
 * worker's n-th transaction (from 0) happens at
 * TPCC_LOAD_TIME + 1 + n * threads + its id, so times are distinct across
 * workers and grow with each worker's transactions, and a run's dates
 * depend only on what each worker did, never on the wall clock. */
#define TPCC_LOAD_TIME INT64_C(1000000)
static inline int64_t tpcc_now(const tpcc_db_t *db, unsigned id, uint64_t n)
{
	return TPCC_LOAD_TIME + 1 + (int64_t)(n * db->threads + id);
}

/* C_LAST's number range at this scale: 0..999, or 0..customers-1 when a
 * district has fewer than 1000 customers (only those names exist). */
static inline uint32_t tpcc_max_name(const tpcc_db_t *db)
{
	return db->customers < TPCC_NAMES ? db->customers - 1 : TPCC_NAMES - 1;
}

/* C_LAST from its number (clause 4.3.2.3); out has room for 16 + 1. */
void tpcc_last_name(uint32_t number, char *out);

/* tpcc_load.c: create the tables and populate them (clause 4.3.3.1).
 * tpcc_create, tpcc_load_shared (the NURand constants and ITEM) and
 * tpcc_destroy run on a registered thread, outside transactions;
 * tpcc_load_warehouses (the rest) on `loaders` threads of its own, logical
 * ids 0..loaders-1, so no other thread may be registered then.  Each
 * returns 0, or -1 after printing why. */
int tpcc_create(tpcc_db_t *db);
int tpcc_load_shared(tpcc_db_t *db);
int tpcc_load_warehouses(tpcc_db_t *db, unsigned loaders);
void tpcc_destroy(tpcc_db_t *db);

/* Seal the tables of fixed cardinality (store_table_seal; clause 1.2's
 * WAREHOUSE, DISTRICT, CUSTOMER, STOCK: keys; ITEM, which no transaction
 * writes: all), whose lookups then read their indexes plainly: done by
 * tpcc_load_warehouses, after tpcc_load_shared; a database filled another
 * way (a recovery) calls it once filled, before its workers start. */
void tpcc_seal(tpcc_db_t *db);

/* tpcc_durable.c: -D and -r.  tpcc_durable_start opens the log on the
 * loaded tables (a registered thread, before the run) and starts writing
 * dir/acked: per type, the commits whose stamps are durable;
 * tpcc_durable_note files a worker's commit for acknowledgement;
 * tpcc_durable_finish waits for every commit to be durable, writes the
 * final dir/acked and closes the log (0, or -1 with the log's error on
 * stderr).  tpcc_durable_recover fills the created, empty tables from dir
 * and checks them: the consistency conditions in ok[], and every
 * acknowledged New-Order and Payment present (-1 on failure, after
 * printing its report). */
#define TPCC_PENDING_MIN 1024
#define TPCC_PENDING_MAX ((uint64_t)1 << 20)
int tpcc_durable_start(tpcc_db_t *db, const char *dir, uint64_t max_bytes);
void tpcc_durable_note(tpcc_db_t *db, tpcc_worker_t *me, enum tpcc_tx_type type);
int tpcc_durable_finish(tpcc_db_t *db);
int tpcc_durable_recover(tpcc_db_t *db, const char *dir, const char *backend);

/* tpcc_tx.c: one transaction of the worker's mix (a bench_op_fn). */
void tpcc_op(void *shared, bench_thread_t *self);

/* tpcc_tx.c: the type of a worker's next transaction (-m: the standard
 * mix, or one type). */
enum tpcc_tx_type tpcc_pick_type(const tpcc_db_t *db, bench_rng_t *r);

/* tpcc_tx.c: count a finished transaction in me (its type's commits, a
 * rollback, an impossible outcome as an error, the per-type extras);
 * home is the worker's warehouse. */
void tpcc_tally(tpcc_worker_t *me, const tpcc_request_t *req, const tpcc_result_t *res,
                uint32_t home);

/* tpcc_dora.c: the run under DORA (-e dora): the workers are the
 * executors (worker i serves executor i and submits its terminal's
 * transactions, a few at a time), warehouses routed to executors in equal
 * ranges; with reroute_ms, a resource manager moves a random range of
 * warehouses to a random executor that often.  The same tallies in
 * db->worker as tpcc_op's; the executor's counters in *st.  BENCH_EXIT_OK, BENCH_EXIT_USAGE (a backend DORA
 * cannot run on) or BENCH_EXIT_FAILED. */
struct potm_dora_stats;
int tpcc_dora_run(tpcc_db_t *db, const bench_common_t *c, uint64_t reroute_ms,
                  bench_run_result_t *run, struct potm_dora_stats *st);

/* tpcc_dora_private.c: the run under DORA with private tables (-e
 * dora-private): every warehouse's rows copied into private tables
 * (<potm/store_private.h>) that only its executor touches, actions with
 * plain accesses and no TM, the workers unregistered (c->unregistered
 * must be set before bench_tm_start).  Otherwise as tpcc_dora_run.  The
 * private tables in *p (NULL on failure): tpcc_dora_private_finish, on a
 * registered thread after the run, copies them back into the shared
 * tables (for the checks and the digest) and frees them; 0 or -1. */
typedef struct tpcc_private tpcc_private_t;
int tpcc_dora_private_run(tpcc_db_t *db, const bench_common_t *c, uint64_t reroute_ms,
                          bench_run_result_t *run, struct potm_dora_stats *st,
                          tpcc_private_t **p);
int tpcc_dora_private_finish(tpcc_db_t *db, tpcc_private_t *p);
void tpcc_dora_private_free(tpcc_private_t *p);

/* tpcc_partitioned.c: the run on a partitioned store (-e partitioned):
 * the private tables of -e dora-private, one lock per warehouse; each
 * worker takes the locks of the warehouses its transaction touches, in
 * ascending order, runs it with plain accesses and releases them.
 * New-Order or Payment alone (db->mix), the workers unregistered as for
 * tpcc_dora_private_run; the tables in *p for tpcc_dora_private_finish.
 * BENCH_EXIT_OK, BENCH_EXIT_USAGE or BENCH_EXIT_FAILED. */
int tpcc_partitioned_run(tpcc_db_t *db, const bench_common_t *c, bench_run_result_t *run,
                         tpcc_private_t **p);

/* tpcc_tx.c: draw the input of a transaction of type as the benchmark's
 * worker id does (home warehouse w, the logical time now; a Payment's
 * HISTORY key from me's sequence), from r. */
void tpcc_draw(const tpcc_db_t *db, tpcc_worker_t *me, bench_rng_t *r, unsigned id,
               uint32_t w, enum tpcc_tx_type type, int64_t now, tpcc_request_t *req);

/* Run req as one transaction on the calling registered thread (the
 * execution phase of a server's request).  scratch holds the thread's
 * buffers (by-name lookups, Stock-Level's items); only its names and
 * items are used.  res tells what happened: committed, rolled back, or
 * an impossible outcome in res->missing. */
void tpcc_execute(tpcc_db_t *db, tpcc_worker_t *scratch, const tpcc_request_t *req,
                  tpcc_result_t *res);

/* NULL if req's input is within the database's scale (ids in range, as
 * clause 2 draws them; a New-Order's last item may be the unused id
 * items + 1), else why not.  A server checks a client's request with it
 * before running it. */
const char *tpcc_request_invalid(const tpcc_db_t *db, const tpcc_request_t *req);

/* tpcc_check.c: the consistency conditions of clause 3.3.2.1–4 after the
 * run (registered thread, quiescent).  ok[i] tells condition i + 1;
 * failures are recorded in v.  Also checks every table's structure. */
#define TPCC_CONDITIONS 4
void tpcc_check(const tpcc_db_t *db, bool ok[TPCC_CONDITIONS], bench_verdict_t *v);

/* The whole database's digest: every table's store_digest, in a fixed
 * table order. */
uint64_t tpcc_digest(const tpcc_db_t *db);

#endif /* POTM_TPCC_H */
