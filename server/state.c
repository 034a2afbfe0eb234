/*
 * server/state.c — the state machine's database and its requests' bodies.
 *
 * The state is TPC-C's nine tables (tpcc/) and a bank table of accounts
 * (the hot-key requests: transfers between accounts, every one of them on
 * one account when a client makes it hot).  Everything a request's effect
 * depends on is in the request or in its position in the agreed order:
 * TPC-C's dates are the position on the logical clock and its HISTORY
 * keys are (SERVER_HISTORY_SLOT, position), so the state after a log
 * prefix is a function of that prefix, whichever mode executed it.
 */
#include "server.h"

#include <potm/durable.h>

#include <errno.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct account {
	int64_t balance;
	int64_t transfers;
} account_t;

/* ---- population -------------------------------------------------------------- */

static int load_accounts(server_state_t *st)
{
	store_table_def_t def = { .name = "account", .record_size = sizeof(account_t),
	                          .kind = STORE_HASH, .capacity = st->naccounts };
	st->accounts = store_table_create(&def);
	if (st->accounts == NULL) {
		fprintf(stderr, "potm-server: cannot create the accounts: %s\n", tm_last_error());
		return -1;
	}
	for (uint32_t first = 0; first < st->naccounts; first += 64) {
		uint32_t last = first + 64 < st->naccounts ? first + 64 : st->naccounts;
		volatile unsigned failed = 0;
		tpcc_next_slot(&st->db);
		TM_BEGIN();
		failed = 0;
		for (uint32_t a = first; a < last; a++) {
			account_t rec = { .balance = SERVER_ACCOUNT_START, .transfers = 0 };
			failed += store_insert(st->accounts, a, &rec) == NULL;
		}
		TM_END();
		if (failed) {
			fprintf(stderr, "potm-server: account keys taken at population\n");
			return -1;
		}
	}
	return 0;
}

int state_load(server_state_t *st, unsigned loaders)
{
	st->db.explicit_slot = st->explicit_slot;
	/* Every request inserts only into its home warehouse's tables, so
	 * that requests of different warehouses share no structure and may
	 * commute (the +fast modes' keys, state_key); one layout in every
	 * mode, so that every mode's digest of the same prefix is the same. */
	st->db.partitioned = true;
	if (tm_thread_enter(0) != 0) {
		fprintf(stderr, "potm-server: tm_thread_enter: %s\n", tm_last_error());
		return -1;
	}
	bool ok = tpcc_create(&st->db) == 0 && tpcc_load_shared(&st->db) == 0 &&
	          load_accounts(st) == 0;
	tm_thread_exit();
	return ok && tpcc_load_warehouses(&st->db, loaders) == 0 ? 0 : -1;
}

void state_destroy(server_state_t *st)
{
	tpcc_destroy(&st->db);
	if (st->accounts != NULL)
		store_table_destroy(st->accounts);
	st->accounts = NULL;
	if (st->meta != NULL)
		store_table_destroy(st->meta);
	st->meta = NULL;
}

/* ---- the redo log (--log-dir) ------------------------------------------------ */

#define STATE_LOG_TABLES_MAX (6 + 4 * TPCC_MAX_WAREHOUSES + 1)

typedef struct meta_rec {
	uint64_t next_position;
} meta_rec_t;

/* Every table in its log order (the order is its identity in the log):
 * the shared TPC-C tables, each warehouse's partition, the accounts, the
 * position. */
static unsigned log_tables(const server_state_t *st, store_table_t **t)
{
	const tpcc_db_t *db = &st->db;
	unsigned n = 0;
	t[n++] = db->warehouse;
	t[n++] = db->district;
	t[n++] = db->customer;
	t[n++] = db->item;
	t[n++] = db->stock;
	for (uint32_t w = 1; w <= db->warehouses; w++) {
		const tpcc_db_t *p = tpcc_home(db, w);
		t[n++] = p->history;
		t[n++] = p->new_order;
		t[n++] = p->order;
		t[n++] = p->order_line;
	}
	t[n++] = st->accounts;
	t[n++] = st->meta;
	return n;
}

static int create_meta(server_state_t *st)
{
	store_table_def_t def = { .name = "server_meta", .record_size = sizeof(meta_rec_t),
	                          .kind = STORE_HASH, .capacity = 1 };
	st->meta = store_table_create(&def);
	if (st->meta == NULL) {
		fprintf(stderr, "potm-server: cannot create the position's table: %s\n",
		        tm_last_error());
		return -1;
	}
	return 0;
}

static char *log_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p != NULL)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

#define STATE_PARAMS_FILE "server.params"

int state_log_exists(const char *dir)
{
	char *p = log_path(dir, STATE_PARAMS_FILE);
	FILE *f = p != NULL ? fopen(p, "r") : NULL;
	free(p);
	if (f == NULL)
		return 0;
	fclose(f);
	return 1;
}

int state_recover(server_state_t *st, const char *dir)
{
	char *path = log_path(dir, STATE_PARAMS_FILE);
	FILE *f = path != NULL ? fopen(path, "r") : NULL;
	free(path);
	uint32_t w = 0, items = 0, customers = 0, accounts = 0;
	bool have = f != NULL && fscanf(f, "%" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32, &w,
	                                &items, &customers, &accounts) == 4;
	if (f != NULL)
		fclose(f);
	if (!have) {
		fprintf(stderr, "potm-server: --log-dir %s: %s is unreadable\n", dir,
		        STATE_PARAMS_FILE);
		return -1;
	}
	if (w != st->db.warehouses || items != st->db.items || customers != st->db.customers ||
	    accounts != st->naccounts) {
		fprintf(stderr, "potm-server: --log-dir %s: the log is of -w %" PRIu32 " -I %" PRIu32
		        " -C %" PRIu32 " --accounts %" PRIu32 ": restart with the same scale\n",
		        dir, w, items, customers, accounts);
		return -1;
	}
	st->db.explicit_slot = st->explicit_slot;
	st->db.partitioned = true;
	if (tm_thread_enter(0) != 0) {
		fprintf(stderr, "potm-server: tm_thread_enter: %s\n", tm_last_error());
		return -1;
	}
	store_table_def_t def = { .name = "account", .record_size = sizeof(account_t),
	                          .kind = STORE_HASH, .capacity = st->naccounts };
	int rc = -1;
	if (tpcc_create(&st->db) == 0 && (st->accounts = store_table_create(&def)) != NULL &&
	    create_meta(st) == 0) {
		store_table_t *t[STATE_LOG_TABLES_MAX];
		unsigned n = log_tables(st, t);
		potm_durable_info_t info;
		rc = potm_durable_recover(dir, t, n, 0, &info);
		if (rc != 0) {
			fprintf(stderr, "potm-server: --log-dir %s: %s\n", dir, tm_last_error());
		} else {
			tpcc_seal(&st->db);
			uint64_t next = 0;
			TM_BEGIN();
			meta_rec_t *m = store_get(st->meta, 0);
			next = m != NULL ? TM_LOAD(&m->next_position) : 0;
			TM_END();
			st->start_position = next;
			fprintf(stderr, "{\"event\": \"recovered\", \"log_file\": %u, "
			        "\"durable_stamp\": %" PRIu64 ", \"transactions\": %" PRIu64
			        ", \"discarded\": %" PRIu64 ", \"torn_bytes\": %" PRIu64
			        ", \"next_position\": %" PRIu64 "}\n", info.file, info.durable_stamp,
			        info.transactions, info.discarded, info.torn_bytes,
			        st->start_position);
		}
	} else {
		fprintf(stderr, "potm-server: cannot create the tables: %s\n", tm_last_error());
	}
	tm_thread_exit();
	return rc;
}

int state_log_open(server_state_t *st, const char *dir)
{
	if (tm_thread_enter(0) != 0) {
		fprintf(stderr, "potm-server: tm_thread_enter: %s\n", tm_last_error());
		return -1;
	}
	int rc = st->meta != NULL ? 0 : create_meta(st);
	if (rc == 0) {
		store_table_t *t[STATE_LOG_TABLES_MAX];
		unsigned n = log_tables(st, t);
		potm_durable_opts_t o = { .dir = dir };
		st->log = potm_durable_open(&o, t, n);
		if (st->log == NULL) {
			fprintf(stderr, "potm-server: --log-dir %s: %s\n", dir, tm_last_error());
			rc = -1;
		}
	}
	tm_thread_exit();
	if (rc != 0)
		return -1;
	/* After the checkpoint: a params file names a log that holds the
	 * whole state, so a crash before it leaves a directory that a restart
	 * populates afresh rather than one it recovers half of. */
	char *path = log_path(dir, STATE_PARAMS_FILE), *tmp = log_path(dir, "server.params.tmp");
	FILE *f = path && tmp ? fopen(tmp, "w") : NULL;
	bool ok = f != NULL;
	if (f != NULL) {
		ok = fprintf(f, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 "\n",
		             st->db.warehouses, st->db.items, st->db.customers, st->naccounts) > 0;
		ok = fflush(f) == 0 && ok;
		ok = fclose(f) == 0 && ok;
		ok = ok && rename(tmp, path) == 0;
	}
	if (!ok)
		fprintf(stderr, "potm-server: --log-dir %s: cannot write %s: %s\n", dir,
		        STATE_PARAMS_FILE, strerror(errno));
	free(path);
	free(tmp);
	return ok ? 0 : -1;
}

uint64_t state_log_position(server_state_t *st, uint64_t position)
{
	TM_BEGIN();
	meta_rec_t *m = store_get(st->meta, 0);
	if (m == NULL) {
		meta_rec_t rec = { .next_position = position };
		store_insert(st->meta, 0, &rec);
	} else {
		TM_STORE(&m->next_position, position);
		store_update(st->meta, m);
	}
	TM_END();
	return potm_durable_last_stamp();
}

int state_log_close(server_state_t *st)
{
	if (st->log == NULL)
		return 0;
	int rc = potm_durable_close(st->log);
	if (rc != 0)
		fprintf(stderr, "potm-server: the redo log: %s\n", tm_last_error());
	st->log = NULL;
	return rc;
}

tpcc_worker_t *state_scratch_new(const server_state_t *st)
{
	tpcc_worker_t *w = aligned_alloc(64, sizeof *w);
	if (w == NULL)
		return NULL;
	memset(w, 0, sizeof *w);
	w->names = malloc(st->db.customers * sizeof(tpcc_name_hit_t));
	if (w->names == NULL) {
		free(w);
		return NULL;
	}
	return w;
}

void state_scratch_free(tpcc_worker_t *w)
{
	if (w != NULL)
		free(w->names);
	free(w);
}

/* ---- decoding ---------------------------------------------------------------- */

/* The parameter lists of server/PROTOCOL.md. */
static int decode_tpcc(const server_state_t *st, const potm_request_t *req, server_op_t *op,
                       const char **why)
{
	const int64_t *p = req->params;
	unsigned n = req->nparams;
	tpcc_request_t *t = &op->tpcc;
	memset(t, 0, sizeof *t);
	/* Every TPC-C parameter is a small non-negative number. */
	for (unsigned i = 0; i < n; i++)
		if (p[i] < 0 || p[i] > INT32_MAX) {
			*why = "a parameter is negative or too large";
			return POTM_ERR_BAD_PARAMS;
		}
#define U(i) ((uint32_t)p[i])
	switch (req->type) {
	case POTM_TX_NEW_ORDER:
		t->type = TPCC_NEW_ORDER;
		if (n < 4 || p[3] < 1 || p[3] > TPCC_MAX_OL || n != 4 + 3 * (unsigned)p[3]) {
			*why = "New-Order takes w, d, c, ol_cnt (1..15), then i_id, supply_w, "
			       "quantity per line";
			return POTM_ERR_BAD_PARAMS;
		}
		t->in.new_order.w = U(0);
		t->in.new_order.d = U(1);
		t->in.new_order.c = U(2);
		t->in.new_order.ol_cnt = U(3);
		t->in.new_order.all_local = 1;
		for (uint32_t i = 0; i < U(3); i++) {
			t->in.new_order.line[i].i_id = U(4 + 3 * i);
			t->in.new_order.line[i].supply_w = U(5 + 3 * i);
			t->in.new_order.line[i].quantity = U(6 + 3 * i);
			if (U(5 + 3 * i) != U(0))
				t->in.new_order.all_local = 0;
		}
		break;
	case POTM_TX_PAYMENT:
		t->type = TPCC_PAYMENT;
		if (n != 7) {
			*why = "Payment takes w, d, c_w, c_d, c_id (0: by name), name, amount";
			return POTM_ERR_BAD_PARAMS;
		}
		t->in.payment = (tpcc_payment_in_t){ .w = U(0), .d = U(1), .c_w = U(2),
			.c_d = U(3), .c_id = U(4), .name = U(5), .amount = p[6] };
		break;
	case POTM_TX_ORDER_STATUS:
		t->type = TPCC_ORDER_STATUS;
		if (n != 4) {
			*why = "Order-Status takes w, d, c_id (0: by name), name";
			return POTM_ERR_BAD_PARAMS;
		}
		t->in.order_status = (tpcc_order_status_in_t){ .w = U(0), .d = U(1),
			.c_id = U(2), .name = U(3) };
		break;
	case POTM_TX_DELIVERY:
		t->type = TPCC_DELIVERY;
		if (n != 2) {
			*why = "Delivery takes w, carrier";
			return POTM_ERR_BAD_PARAMS;
		}
		t->in.delivery = (tpcc_delivery_in_t){ .w = U(0), .carrier = (int32_t)p[1] };
		break;
	default:   /* POTM_TX_STOCK_LEVEL */
		t->type = TPCC_STOCK_LEVEL;
		if (n != 3) {
			*why = "Stock-Level takes w, d, threshold";
			return POTM_ERR_BAD_PARAMS;
		}
		t->in.stock_level = (tpcc_stock_level_in_t){ .w = U(0), .d = U(1),
			.threshold = (int32_t)p[2] };
		break;
	}
#undef U
	const char *bad = tpcc_request_invalid(&st->db, t);
	if (bad != NULL) {
		*why = bad;
		return POTM_ERR_BAD_PARAMS;
	}
	return POTM_OK;
}

int state_decode(const server_state_t *st, const potm_request_t *req, server_op_t *op,
                 const char **why)
{
	op->type = req->type;
	switch (req->type) {
	case POTM_TX_NEW_ORDER:
	case POTM_TX_PAYMENT:
	case POTM_TX_ORDER_STATUS:
	case POTM_TX_DELIVERY:
	case POTM_TX_STOCK_LEVEL:
		return decode_tpcc(st, req, op, why);
	case POTM_TX_TRANSFER:
		if (req->nparams != 3 || req->params[0] < 0 || req->params[0] >= st->naccounts ||
		    req->params[1] < 0 || req->params[1] >= st->naccounts ||
		    req->params[2] < 0 || req->params[2] > INT32_MAX) {
			*why = "Transfer takes from, to (accounts 0..accounts-1), amount "
			       "(0..2^31-1)";
			return POTM_ERR_BAD_PARAMS;
		}
		memcpy(op->bank, req->params, sizeof op->bank);
		return POTM_OK;
	case POTM_TX_BALANCE:
		if (req->nparams != 1 || req->params[0] < 0 || req->params[0] >= st->naccounts) {
			*why = "Balance takes an account (0..accounts-1)";
			return POTM_ERR_BAD_PARAMS;
		}
		op->bank[0] = req->params[0];
		return POTM_OK;
	default:
		*why = "unknown transaction type";
		return POTM_ERR_UNKNOWN_TYPE;
	}
}

/* ---- execution ------------------------------------------------------------------ */

uint64_t state_key(const server_state_t *st, const server_op_t *op)
{
	(void)st;
	const tpcc_request_t *t = &op->tpcc;
	switch (op->type) {
	case POTM_TX_TRANSFER:
		return op->bank[0] == op->bank[1] ? (uint64_t)op->bank[0] : TM_KEY_NONE;
	case POTM_TX_BALANCE:
		return (uint64_t)op->bank[0];
	case POTM_TX_NEW_ORDER:
		return t->in.new_order.all_local ? t->in.new_order.w : TM_KEY_NONE;
	case POTM_TX_PAYMENT:
		return t->in.payment.c_w == t->in.payment.w ? t->in.payment.w : TM_KEY_NONE;
	default:   /* Order-Status, Delivery, Stock-Level: their home's rows */
		return tpcc_request_home(t);
	}
}

typedef struct transfer_out {
	int64_t done, from, to;
	bool missing;
} transfer_out_t;

/* Move amount from one account to another if the first holds it: the
 * result depends on the order, which is what the tests want of it. */
static void transfer_body(server_state_t *st, const server_op_t *op, transfer_out_t *out)
{
	account_t *a = store_get(st->accounts, (uint64_t)op->bank[0]);
	account_t *b = store_get(st->accounts, (uint64_t)op->bank[1]);
	out->missing = a == NULL || b == NULL;
	if (out->missing)
		return;
	int64_t from = TM_LOAD(&a->balance);
	out->done = from >= op->bank[2];
	if (out->done && a != b) {
		TM_STORE(&a->balance, from - op->bank[2]);
		TM_STORE(&b->balance, TM_LOAD(&b->balance) + op->bank[2]);
		store_update(st->accounts, b);
	}
	TM_STORE(&a->transfers, TM_LOAD(&a->transfers) + 1);
	store_update(st->accounts, a);
	out->from = TM_LOAD(&a->balance);
	out->to = TM_LOAD(&b->balance);
}

static void run_transfer(server_state_t *st, const server_op_t *op, transfer_out_t *out)
{
	TM_BEGIN();
	transfer_body(st, op, out);
	TM_END();
}

static void run_balance(server_state_t *st, const server_op_t *op, transfer_out_t *out)
{
	TM_BEGIN();
	account_t *a = store_get(st->accounts, (uint64_t)op->bank[0]);
	out->missing = a == NULL;
	out->from = a != NULL ? TM_LOAD(&a->balance) : 0;
	TM_END();
}

static void set_values(potm_response_t *resp, unsigned n, const int64_t *v)
{
	resp->nvalues = (uint16_t)n;
	memcpy(resp->values, v, n * sizeof *v);
}

static void execute_tpcc(server_state_t *st, tpcc_worker_t *scratch, const server_op_t *op,
                         potm_response_t *resp)
{
	tpcc_request_t req = op->tpcc;
	/* The agreed order is the clock (tpcc.h's logical clock). */
	int64_t now = TPCC_LOAD_TIME + 1 + (int64_t)op->position;
	if (req.type == TPCC_NEW_ORDER)
		req.in.new_order.entry_d = now;
	else if (req.type == TPCC_PAYMENT) {
		req.in.payment.date = now;
		req.in.payment.history_key = tpcc_history_key(SERVER_HISTORY_SLOT, op->position);
	} else if (req.type == TPCC_DELIVERY)
		req.in.delivery.date = now;
	tpcc_result_t res;
	tpcc_execute(&st->db, scratch, &req, &res);
	if (res.rolled_back) {
		resp->status = POTM_ROLLED_BACK;
		return;
	}
	if (res.missing != NULL) {
		resp->status = POTM_ERR_FAILED;
		snprintf(resp->message, sizeof resp->message, "%s", res.missing);
		return;
	}
	resp->status = POTM_OK;
	switch (req.type) {
	case TPCC_NEW_ORDER: {
		const tpcc_new_order_out_t *o = &res.out.new_order;
		int64_t v[] = { (int64_t)o->o_id, o->total, req.in.new_order.ol_cnt };
		set_values(resp, 3, v);
		break;
	}
	case TPCC_PAYMENT: {
		const tpcc_payment_out_t *o = &res.out.payment;
		int64_t v[] = { o->c_id, o->c_balance };
		set_values(resp, 2, v);
		break;
	}
	case TPCC_ORDER_STATUS: {
		const tpcc_order_status_out_t *o = &res.out.order_status;
		int64_t v[] = { o->c_id, o->c_balance, (int64_t)o->o_id, o->o_carrier_id,
		                o->lines };
		set_values(resp, 5, v);
		break;
	}
	case TPCC_DELIVERY: {
		const tpcc_delivery_out_t *o = &res.out.delivery;
		int64_t v[2 + TPCC_DISTRICTS] = { o->delivered, o->skipped };
		for (int d = 0; d < TPCC_DISTRICTS; d++)
			v[2 + d] = (int64_t)o->o_id[d];
		set_values(resp, 2 + TPCC_DISTRICTS, v);
		break;
	}
	default: {
		int64_t v[] = { res.out.stock_level.low };
		set_values(resp, 1, v);
		break;
	}
	}
}

void state_execute(server_state_t *st, tpcc_worker_t *scratch, const server_op_t *op,
                   potm_response_t *resp)
{
	resp->nvalues = 0;
	resp->message[0] = '\0';
	if (op->type == POTM_TX_TRANSFER || op->type == POTM_TX_BALANCE) {
		transfer_out_t out = { .missing = false };
		if (op->type == POTM_TX_TRANSFER)
			run_transfer(st, op, &out);
		else
			run_balance(st, op, &out);
		if (out.missing) {
			resp->status = POTM_ERR_FAILED;
			snprintf(resp->message, sizeof resp->message, "an account is missing");
			return;
		}
		resp->status = POTM_OK;
		int64_t v[] = { out.done, out.from, out.to };
		if (op->type == POTM_TX_TRANSFER)
			set_values(resp, 3, v);
		else
			set_values(resp, 1, &out.from);
		return;
	}
	execute_tpcc(st, scratch, op, resp);
}

/* ---- digest and checks --------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t state_digest(const server_state_t *st)
{
	return mix64(tpcc_digest(&st->db) ^ mix64(store_digest(st->accounts)));
}

typedef struct bank_sum {
	int64_t total;
	uint64_t missing;
} bank_sum_t;

static void read_bank(server_state_t *st, bank_sum_t *s)
{
	tpcc_next_slot(&st->db);
	TM_BEGIN();
	s->total = 0;
	s->missing = 0;
	for (uint32_t a = 0; a < st->naccounts; a++) {
		account_t *r = store_get(st->accounts, a);
		if (r == NULL)
			s->missing++;
		else
			s->total += TM_LOAD(&r->balance);
	}
	TM_END();
}

bool state_check(server_state_t *st, bench_verdict_t *v)
{
	bool ok[TPCC_CONDITIONS];
	tpcc_check(&st->db, ok, v);
	bank_sum_t s = { 0, 0 };
	read_bank(st, &s);
	if (s.missing)
		bench_fail(v, "%" PRIu64 " accounts are missing", s.missing);
	if (s.total != (int64_t)st->naccounts * SERVER_ACCOUNT_START)
		bench_fail(v, "the accounts hold %" PRId64 " in all, not %" PRId64, s.total,
		           (int64_t)st->naccounts * SERVER_ACCOUNT_START);
	if (store_check(st->accounts) != 0)
		bench_fail(v, "table account is malformed: %s", tm_last_error());
	return !v->failed;
}

/* ---- snapshots --------------------------------------------------------------- */

void snap_put(snap_writer_t *w, const void *bytes, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 65536;
		while (cap < w->len + n)
			cap *= 2;
		uint8_t *p = realloc(w->p, cap);
		if (p == NULL) {
			w->failed = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, bytes, n);
	w->len += n;
}

void snap_put64(snap_writer_t *w, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	snap_put(w, b, 8);
}

const uint8_t *snap_get(snap_reader_t *r, size_t n)
{
	if (r->bad || n > r->len - r->off) {
		r->bad = true;
		return NULL;
	}
	const uint8_t *p = r->p + r->off;
	r->off += n;
	return p;
}

uint64_t snap_get64(snap_reader_t *r)
{
	const uint8_t *b = snap_get(r, 8);
	uint64_t v = 0;
	for (int i = 7; b != NULL && i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/* The tables of the state, in the snapshot's order: the shared ones, then
 * each warehouse partition's own (tpcc.h: the database is partitioned). */
#define STATE_SHARED_TABLES 10
#define STATE_PART_TABLES 4

static size_t state_table_count(const server_state_t *st)
{
	const tpcc_db_t *db = &st->db;
	return STATE_SHARED_TABLES + (db->part != NULL ? STATE_PART_TABLES * db->warehouses : 0);
}

/* Fill t[state_table_count(st)]. */
static void state_tables(const server_state_t *st, store_table_t **t)
{
	const tpcc_db_t *db = &st->db;
	store_table_t *shared[STATE_SHARED_TABLES] = { db->warehouse, db->district,
		db->customer, db->history, db->new_order, db->order, db->order_line, db->item,
		db->stock, st->accounts };
	memcpy(t, shared, sizeof shared);
	t += STATE_SHARED_TABLES;
	for (uint32_t i = 0; db->part != NULL && i < db->warehouses; i++) {
		const tpcc_db_t *p = &db->part[i];
		*t++ = p->history;
		*t++ = p->new_order;
		*t++ = p->order;
		*t++ = p->order_line;
	}
}

typedef struct save_ctx {
	snap_writer_t *w;
	size_t record_size;
} save_ctx_t;

static int save_record(uint64_t key, void *rec, void *arg)
{
	save_ctx_t *c = arg;
	snap_put64(c->w, key);
	snap_put(c->w, rec, c->record_size);
	return c->w->failed;
}

int state_save(const server_state_t *st, snap_writer_t *w)
{
	size_t n = state_table_count(st);
	store_table_t **t = malloc(n * sizeof *t);
	if (t == NULL)
		return -1;
	state_tables(st, t);
	snap_put64(w, n);
	for (size_t i = 0; i < n; i++) {
		save_ctx_t c = { w, store_record_size(t[i]) };
		snap_put64(w, c.record_size);
		snap_put64(w, store_count(t[i]));
		store_walk(t[i], save_record, &c);
	}
	free(t);
	return w->failed ? -1 : 0;
}

typedef struct keys {
	uint64_t *k;
	size_t n, cap;
} keys_t;

static int collect_key(uint64_t key, void *rec, void *arg)
{
	(void)rec;
	keys_t *ks = arg;
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? 2 * ks->cap : 1024;
		uint64_t *k = realloc(ks->k, cap * sizeof *k);
		if (k == NULL)
			return -1;
		ks->k = k;
		ks->cap = cap;
	}
	ks->k[ks->n++] = key;
	return 0;
}

/* Records changed per transaction while restoring: each takes a slot. */
#define RESTORE_CHUNK 64

static int restore_table_contents(server_state_t *st, store_table_t *t, snap_reader_t *r,
                                  uint64_t count)
{
	keys_t ks = { NULL, 0, 0 };
	if (store_walk(t, collect_key, &ks) != 0) {
		free(ks.k);
		return -1;
	}
	for (size_t first = 0; first < ks.n; first += RESTORE_CHUNK) {
		size_t last = first + RESTORE_CHUNK < ks.n ? first + RESTORE_CHUNK : ks.n;
		tpcc_next_slot(&st->db);
		TM_BEGIN();
		for (size_t i = first; i < last; i++)
			store_delete(t, ks.k[i]);
		TM_END();
	}
	free(ks.k);
	size_t size = store_record_size(t);
	for (uint64_t first = 0; first < count; first += RESTORE_CHUNK) {
		uint64_t last = first + RESTORE_CHUNK < count ? first + RESTORE_CHUNK : count;
		size_t off = r->off;
		volatile unsigned failed = 0;
		tpcc_next_slot(&st->db);
		TM_BEGIN();
		r->off = off;   /* a re-execution reads the same records again */
		failed = 0;
		for (uint64_t i = first; i < last; i++) {
			uint64_t key = snap_get64(r);
			const uint8_t *rec = snap_get(r, size);
			failed += store_insert(t, key, rec) == NULL;
		}
		TM_END();
		if (failed)
			return -1;
	}
	return 0;
}

/* Replace table t's contents with the count records at r (a sealed
 * table too: no worker runs meanwhile, and it is sealed again after). */
static int restore_table(server_state_t *st, store_table_t *t, snap_reader_t *r,
                         uint64_t count)
{
	store_seal_t sealed = store_table_sealed(t);
	store_table_seal(t, STORE_UNSEALED);
	int rc = restore_table_contents(st, t, r, count);
	store_table_seal(t, sealed);
	return rc;
}

int state_restore(server_state_t *st, snap_reader_t *r, const char **why)
{
	size_t n = state_table_count(st);
	store_table_t **t = malloc(n * sizeof *t);
	if (t == NULL) {
		*why = "out of memory";
		return -1;
	}
	state_tables(st, t);
	int rc = -1;
	/* Check the whole snapshot before changing anything. */
	size_t start = r->off;
	if (snap_get64(r) != n) {
		*why = "not this server's tables (another number of warehouses?)";
		goto out;
	}
	for (size_t i = 0; i < n && !r->bad; i++) {
		uint64_t size = snap_get64(r), count = snap_get64(r);
		if (size != store_record_size(t[i]) ||
		    count > (r->len - r->off) / (8 + size)) {
			*why = "a table's record size or count does not fit";
			goto out;
		}
		r->off += count * (8 + size);
	}
	if (r->bad || r->off != r->len) {
		*why = "the snapshot's length does not match its tables";
		goto out;
	}
	r->off = start + 8;
	for (size_t i = 0; i < n; i++) {
		snap_get64(r);
		uint64_t count = snap_get64(r);
		if (restore_table(st, t[i], r, count) != 0) {
			/* Half the tables replaced: no state to go on from. */
			fprintf(stderr, "potm-server: restoring table %s: out of memory, or a "
			        "key twice\n", store_table_name(t[i]));
			abort();
		}
	}
	rc = 0;
out:
	free(t);
	return rc;
}
