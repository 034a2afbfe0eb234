/*
 * tpcc/tpcc_internal.h — what the conventional transactions (tpcc_tx.c)
 * and the DORA flow graphs (tpcc_dora.c) share: the rows they build the
 * same way and the reads they make alike; and the DORA terminals
 * (tpcc_dora_term.c) that both DORA executions drive.  Private to tpcc/.
 *
 * None of these takes a lock or saves an undo image: run inside a
 * transaction they are its reads and writes; run in a DORA action, the
 * action's local locks cover the rows they touch, and the action saves
 * what they change before calling them.
 */
#ifndef POTM_TPCC_INTERNAL_H
#define POTM_TPCC_INTERNAL_H

#include "tpcc.h"

#include <potm/dora.h>

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/* Clause 2.4.2.2: brand 'B' when both the item's and the stock's data
 * contain "ORIGINAL", else generic 'G'. */
static inline char tpcc_brand(const char *i_data, const char *s_data)
{
	return strstr(i_data, "ORIGINAL") != NULL && strstr(s_data, "ORIGINAL") != NULL ? 'B'
	                                                                                 : 'G';
}

/* Clause 2.4.2.2: S_QUANTITY after taking qty, restocked by 91 when
 * fewer than 10 would remain. */
static inline int32_t tpcc_restock(int32_t s_qty, uint32_t qty)
{
	return s_qty >= (int32_t)qty + 10 ? s_qty - (int32_t)qty : s_qty - (int32_t)qty + 91;
}

/* The order total: sum * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX), rates in
 * 1/10000. */
static inline int64_t tpcc_order_total(int64_t sum, int32_t c_discount, int32_t w_tax,
                                       int32_t d_tax)
{
	return sum * (10000 - c_discount) / 10000 * (10000 + w_tax + d_tax) / 10000;
}

/* The customers of district (w, d) named name (C_LAST's number), sorted
 * by C_FIRST into hits (room for db->customers): the id of the one at
 * position n / 2 rounded up, from 1 (clauses 2.5.2.2, 2.6.2.2); 0 if
 * there is none.  Reads names and the last-name index only, which no
 * transaction changes. */
uint32_t tpcc_customer_by_name(tpcc_db_t *db, tpcc_name_hit_t *hits, uint32_t w, uint32_t d,
                               uint32_t name);

/* What New-Order reads of its warehouse, district and customer. */
typedef struct tpcc_new_order_rows {
	tpcc_district_t *di;
	int32_t w_tax, d_tax, c_discount;
} tpcc_new_order_rows_t;

/* The rows into r and the customer's name and credit into out; false
 * (out->missing set) if one of the rows is missing. */
bool tpcc_new_order_rows(tpcc_db_t *db, const tpcc_new_order_in_t *in, tpcc_new_order_out_t *out,
                         tpcc_new_order_rows_t *r);

/* The ORDER and NEW-ORDER rows of New-Order's order o_id. */
void tpcc_order_rows(const tpcc_new_order_in_t *in, int64_t o_id, tpcc_order_t *o,
                     tpcc_new_order_t *no);

/* Line i's ORDER-LINE row but its order id and OL_DIST_INFO (from the
 * stock row, read by the caller): the amount is the quantity times
 * price. */
void tpcc_order_line_row(const tpcc_new_order_in_t *in, uint32_t i, int64_t price,
                         tpcc_order_line_t *ol);

/* Clause 2.5.2.2: a bad-credit customer's C_DATA gets the payment's
 * C_ID, C_D_ID, C_W_ID, D_ID, W_ID and H_AMOUNT at its left, the old
 * content shifted right and cut at 500 characters. */
void tpcc_payment_bad_credit(tpcc_customer_t *cu, const tpcc_payment_in_t *in, uint32_t c_id);

/* Clause 2.5.2.2: Payment's HISTORY row; H_DATA is W_NAME and D_NAME
 * separated by 4 spaces. */
void tpcc_history_row(const tpcc_payment_in_t *in, uint32_t c_id, const char *w_name,
                      const char *d_name, tpcc_history_t *h);

/* Order-Status once its customer cu (id c_id) is found: the customer's
 * balance and names, its most recent order (the largest O_ID of its
 * orders) and that order's lines into out.  NULL, or why not (the
 * customer has no order). */
const char *tpcc_order_status_read(tpcc_db_t *db, const tpcc_order_status_in_t *in,
                                   uint32_t c_id, const tpcc_customer_t *cu,
                                   tpcc_order_status_out_t *out);

/* Stock-Level's items (clause 2.8.2.2): the distinct item ids of the
 * lines of district (w, d)'s orders next - 20 .. next - 1 (next being
 * D_NEXT_O_ID), ascending, into items (room for TPCC_MAX_OL * 20); their
 * number. */
uint32_t tpcc_recent_items(tpcc_db_t *db, uint32_t w, uint32_t d, uint64_t next,
                           uint32_t *items);

/* ---- tpcc_dora_term.c: the DORA graphs and terminals of -e dora and -e dora-private ----
 * A slot is reused only once its transaction is reaped (state back to
 * FREE), so the actions of one transaction own the slot's fields. */

#define TPCC_DORA_RULE 0   /* the warehouse rule */

/* The local locks' spaces (tpcc_dora.c lists what each covers). */
enum { TPCC_LK_WAREHOUSE = 1, TPCC_LK_DISTRICT, TPCC_LK_ORDERS, TPCC_LK_CUSTOMER, TPCC_LK_STOCK };
enum { TPCC_SLOT_FREE, TPCC_SLOT_RUNNING, TPCC_SLOT_DONE };

typedef struct tpcc_dora_slot tpcc_dora_slot_t;
typedef struct tpcc_dora_run tpcc_dora_run_t;

/* One stock action of New-Order: the lines of one supplying warehouse. */
typedef struct tpcc_dora_group {
	tpcc_dora_slot_t *s;
	uint32_t supply_w;
} tpcc_dora_group_t;

/* One transaction in flight of a terminal.  state is written by the
 * terminal (FREE -> RUNNING) and by the completion (RUNNING -> DONE,
 * release), so the terminal reads what the actions left after an acquire
 * load of DONE. */
struct tpcc_dora_slot {
	_Atomic int state;
	int outcome;
	tpcc_dora_run_t *run;
	unsigned owner;                /* the terminal (executor) */
	uint64_t t0;
	tpcc_request_t req;
	tpcc_result_t res;
	/* what the actions leave for later phases and the tally */
	_Atomic(const char *) missing;
	atomic_bool rolled_back;
	uint32_t c_id;
	int64_t o_id;
	int32_t w_tax, d_tax, c_discount;
	char w_name[11], d_name[11];
	struct {
		int64_t price;
		int32_t s_quantity;
		char dist_info[25];
	} line[TPCC_MAX_OL];
	tpcc_dora_group_t group[TPCC_MAX_OL];
	uint32_t delivered_c[TPCC_DISTRICTS];
	int64_t delivered_sum[TPCC_DISTRICTS];
	uint32_t nitems;
	uint32_t items[TPCC_MAX_OL * 20];
};

typedef struct tpcc_dora_term {
	tpcc_dora_slot_t slot[TPCC_DORA_WINDOW_MAX];   /* -W uses the first */
	uint64_t retries;
} __attribute__((aligned(64))) tpcc_dora_term_t;

/* What differs between the executions: the actions, where each reads
 * and writes its rows (the shared store or the warehouse's private
 * tables); the flow graphs over them, with their locks and phases, are
 * one (tpcc_dora_term.c).  Every action's arg is its slot but no_stock's,
 * which is its tpcc_dora_group_t.  reroute_seed keeps each execution's
 * own stream of reroutes. */
typedef struct tpcc_dora_ops {
	potm_dora_fn by_name;                      /* the secondary action: c_id by last name */
	potm_dora_fn no_district, no_stock, no_insert;                  /* New-Order */
	potm_dora_fn pay_warehouse, pay_district, pay_customer, pay_history;   /* Payment */
	potm_dora_fn os_read;                                          /* Order-Status */
	potm_dora_fn dl_orders, dl_customers;                          /* Delivery */
	potm_dora_fn sl_items, sl_stock;                               /* Stock-Level */
	uint64_t reroute_seed;
} tpcc_dora_ops_t;

struct tpcc_dora_run {
	tpcc_db_t *db;
	const tpcc_dora_ops_t *ops;
	tpcc_private_t *p;        /* -e dora-private's tables; NULL under -e dora */
	potm_dora_t *d;
	tpcc_dora_term_t *term;   /* [threads] */
	atomic_uint finished;     /* terminals done submitting */
	/* the resource manager */
	uint64_t reroute_ms;
	atomic_int stop;
	uint64_t reroutes;
};

/* An action's reason to abort, the first one set winning (the actions
 * of one transaction may run at once on several executors). */
static inline void tpcc_dora_set_missing(tpcc_dora_slot_t *s, const char *why)
{
	const char *none = NULL;
	atomic_compare_exchange_strong(&s->missing, &none, why);
}

int tpcc_dora_no_insert(potm_dora_act_t *a, tpcc_dora_slot_t *s, store_table_t *order,
                        store_table_t *new_order, store_table_t *order_line);

/* Save what Payment and Delivery change of a customer before they change
 * it: C_BALANCE through C_DELIVERY_CNT (adjacent), and C_DATA if asked. */
static inline void tpcc_dora_save_customer(potm_dora_act_t *a, store_table_t *t,
                                           tpcc_customer_t *cu, bool data)
{
	potm_dora_save(a, t, cu, &cu->c_balance,
	               offsetof(tpcc_customer_t, c_delivery_cnt) + sizeof cu->c_delivery_cnt -
	               offsetof(tpcc_customer_t, c_balance));
	if (data)
		potm_dora_save(a, t, cu, cu->c_data, sizeof cu->c_data);
}

/* The executors of r->db's workers with the warehouse rule over 1..W
 * (and private tables if asked) into r->d, and their terminals into
 * r->term: 0, or a bench exit code after saying why under the
 * execution's name what (nothing left to close). */
int tpcc_dora_open(tpcc_dora_run_t *r, const char *what, bool private_tables);

/* Destroy what tpcc_dora_open made (either may be NULL). */
void tpcc_dora_close(tpcc_dora_run_t *r);

/* Run the terminals of r (opened) until c's operations are done, with
 * the resource manager every r->reroute_ms if not 0; the executors'
 * counters into st, then tpcc_dora_close.  bench_run_with's code. */
int tpcc_dora_drive(tpcc_dora_run_t *r, const bench_common_t *c, bench_run_result_t *run,
                    potm_dora_stats_t *st);

/* ---- private tables per warehouse (tpcc_dora_private.c) ---------------------------------- */

/* One warehouse's private tables (<potm/store_private.h>: plain
 * accesses); whoever runs on them keeps them to one thread at a time
 * (-e dora-private: the warehouse's executor; -e partitioned: the holder
 * of the warehouse's lock). */
typedef struct tpcc_private_wh {
	store_table_t *warehouse, *district, *customer, *history, *new_order, *order,
		*order_line, *stock;
	store_index_t *customer_by_name, *order_by_customer;
} tpcc_private_wh_t;

struct tpcc_private {
	uint32_t warehouses;
	tpcc_private_wh_t *wh;    /* [warehouses] */
	store_table_t *item;      /* never written after the copy: read by all */
};

/* Every warehouse's rows copied into its private tables, ITEM into one
 * private table, the shared tables quiescent; NULL (after printing why)
 * on failure.  tpcc_dora_private_finish copies them back and frees them. */
tpcc_private_t *tpcc_private_copy_in(tpcc_db_t *db);

/* tpcc_customer_by_name over warehouse w's private tables (hits: room
 * for cap = db->customers); the customer's id, or 0 if there is none. */
uint32_t tpcc_private_customer_by_name(tpcc_private_t *p, tpcc_name_hit_t *hits, uint32_t cap,
                                       uint32_t w, uint32_t d, uint32_t name);

/* tpcc_payment_bad_credit with plain accesses, on a private customer
 * row. */
void tpcc_private_bad_credit(tpcc_customer_t *cu, const tpcc_payment_in_t *in, uint32_t c_id);

#endif /* POTM_TPCC_INTERNAL_H */
