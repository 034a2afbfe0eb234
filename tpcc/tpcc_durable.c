/*
 * tpcc/tpcc_durable.c — TPC-C with the record store's redo log
 * (<potm/durable.h>): -D dir logs a run, -r -D dir recovers one.
 *
 * Acknowledgements.  A worker files each committed New-Order, Payment and
 * Delivery with its commit's stamp; once the durable stamp reaches it, the
 * commit counts as acknowledged (a client would have had its answer).  A
 * thread rewrites dir/acked (counts per type, by rename, so a reader
 * never sees half a file) every few milliseconds, from counts that only
 * ever include durable commits: after a crash, every commit the file
 * counts is in the log.
 *
 * Recovery rebuilds the tables, then checks the consistency conditions
 * and that the database holds at least as many New-Orders (orders beyond
 * the initial ones) and Payments (HISTORY rows beyond the initial ones) as
 * dir/acked counts.  dir/params holds -w, -I and -C, which a recovery must
 * repeat.
 */
#include "tpcc.h"

#include <potm/durable.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TPCC_ACK_PERIOD_MS 20

typedef struct tpcc_pending {
	uint64_t stamp;
	enum tpcc_tx_type type;
} tpcc_pending_t;

typedef struct tpcc_acker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	tpcc_db_t *db;
} tpcc_acker_t;

static const char *const ack_keys[TPCC_TX_TYPES] = {
	"new_order", "payment", "order_status", "delivery", "stock_level",
};

/* The tables in their log order (their identity in the log). */
static unsigned tpcc_tables(const tpcc_db_t *db, store_table_t **t)
{
	t[0] = db->warehouse;
	t[1] = db->district;
	t[2] = db->customer;
	t[3] = db->history;
	t[4] = db->new_order;
	t[5] = db->order;
	t[6] = db->order_line;
	t[7] = db->item;
	t[8] = db->stock;
	return 9;
}

static char *tpcc_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p != NULL)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Write dir/name with text, through a temporary file and a rename. */
static int tpcc_write_file(const char *dir, const char *name, const char *text)
{
	char *path = tpcc_path(dir, name), *tmp = tpcc_path(dir, "tmp.tpcc");
	int rc = -1;
	FILE *f = path && tmp ? fopen(tmp, "w") : NULL;
	if (f != NULL) {
		bool ok = fputs(text, f) >= 0;
		ok = fflush(f) == 0 && ok;
		ok = fclose(f) == 0 && ok;
		if (ok && rename(tmp, path) == 0)
			rc = 0;
	}
	free(path);
	free(tmp);
	return rc;
}

static void tpcc_write_acked(tpcc_db_t *db)
{
	uint64_t sum[TPCC_TX_TYPES] = { 0 };
	for (unsigned i = 0; i < db->threads; i++)
		for (int k = 0; k < TPCC_TX_TYPES; k++)
			sum[k] += __atomic_load_n(&db->worker[i].acked[k], __ATOMIC_ACQUIRE);
	char text[512];
	size_t n = 0;
	for (int k = 0; k < TPCC_TX_TYPES; k++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%s %" PRIu64 "\n", ack_keys[k],
		                      sum[k]);
	if (tpcc_write_file(db->log_dir, "acked", text) != 0)
		fprintf(stderr, "tpcc: cannot write %s/acked: %s\n", db->log_dir, strerror(errno));
}

static void *tpcc_acker_main(void *arg)
{
	tpcc_acker_t *a = arg;
	pthread_mutex_lock(&a->mu);
	while (!a->stop) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += TPCC_ACK_PERIOD_MS * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&a->cv, &a->mu, &t);
		if (!a->stop)
			tpcc_write_acked(a->db);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

int tpcc_durable_start(tpcc_db_t *db, const char *dir, uint64_t max_bytes)
{
	db->log_dir = dir;
	for (unsigned i = 0; i < db->threads; i++) {
		db->worker[i].pending = calloc(TPCC_PENDING_MIN, sizeof(tpcc_pending_t));
		db->worker[i].pending_cap = TPCC_PENDING_MIN;
		if (db->worker[i].pending == NULL) {
			fprintf(stderr, "tpcc: out of memory\n");
			return -1;
		}
	}
	store_table_t *t[9];
	unsigned n = tpcc_tables(db, t);
	potm_durable_opts_t o = { .dir = dir, .max_bytes = max_bytes };
	db->log = potm_durable_open(&o, t, n);
	if (db->log == NULL) {
		fprintf(stderr, "tpcc: -D %s: %s\n", dir, tm_last_error());
		return -1;
	}
	char params[128];
	snprintf(params, sizeof params, "%" PRIu32 " %" PRIu32 " %" PRIu32 "\n", db->warehouses,
	         db->items, db->customers);
	if (tpcc_write_file(dir, "params", params) != 0) {
		fprintf(stderr, "tpcc: cannot write %s/params: %s\n", dir, strerror(errno));
		return -1;
	}
	tpcc_write_acked(db);
	tpcc_acker_t *a = calloc(1, sizeof *a);
	if (a == NULL)
		return -1;
	a->db = db;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (pthread_create(&a->thread, NULL, tpcc_acker_main, a) != 0) {
		free(a);
		fprintf(stderr, "tpcc: cannot start the acknowledger\n");
		return -1;
	}
	db->acker = a;
	return 0;
}

/* Acknowledge the worker's filed commits whose stamps are durable. */
static void tpcc_ack_durable(tpcc_db_t *db, tpcc_worker_t *me)
{
	uint64_t d = potm_durable_stamp(db->log);
	while (me->pending_head != me->pending_tail) {
		tpcc_pending_t *p = &me->pending[me->pending_head & (me->pending_cap - 1)];
		if (p->stamp > d)
			break;
		__atomic_fetch_add(&me->acked[p->type], 1, __ATOMIC_RELEASE);
		me->pending_head++;
	}
}

/* Double the worker's ring, its entries kept in order; 0, or -1 if out of
 * memory.  The ring holds every commit not yet durable: a log's lag (a
 * round, and on silo the epoch the bound waits for) times the commit
 * rate.  A ring smaller than that made the worker wait for the durable
 * stamp, a client's answer held up by the log's latency, which Silo's
 * group commit hands off instead (its workers never wait for the
 * disk).  TPCC_PENDING_MAX bounds the memory while a log stalls. */
static int tpcc_pending_grow(tpcc_worker_t *me)
{
	uint64_t n = me->pending_tail - me->pending_head, cap = me->pending_cap * 2;
	tpcc_pending_t *q = malloc(cap * sizeof *q);
	if (q == NULL)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		q[i] = me->pending[(me->pending_head + i) & (me->pending_cap - 1)];
	free(me->pending);
	me->pending = q;
	me->pending_cap = cap;
	me->pending_head = 0;
	me->pending_tail = n;
	return 0;
}

void tpcc_durable_note(tpcc_db_t *db, tpcc_worker_t *me, enum tpcc_tx_type type)
{
	if (type != TPCC_NEW_ORDER && type != TPCC_PAYMENT && type != TPCC_DELIVERY)
		return;
	uint64_t stamp = potm_durable_last_stamp();
	me->last_stamp = stamp;
	if (me->pending_tail - me->pending_head == me->pending_cap &&
	    (me->pending_cap == TPCC_PENDING_MAX || tpcc_pending_grow(me) != 0)) {
		/* Full: wait for the oldest (a failed log acknowledges
		 * nothing more; the run goes on and fails at the end). */
		me->ack_waits++;
		tpcc_pending_t *p = &me->pending[me->pending_head & (me->pending_cap - 1)];
		if (potm_durable_wait(db->log, p->stamp) == 0)
			tpcc_ack_durable(db, me);
		else
			me->pending_head++;
	}
	me->pending[me->pending_tail++ & (me->pending_cap - 1)] = (tpcc_pending_t){ stamp, type };
	tpcc_ack_durable(db, me);
}

int tpcc_durable_finish(tpcc_db_t *db)
{
	if (db->log == NULL)
		return 0;
	uint64_t last = 0;
	for (unsigned i = 0; i < db->threads; i++)
		if (db->worker[i].last_stamp > last)
			last = db->worker[i].last_stamp;
	int rc = potm_durable_wait(db->log, last);
	for (unsigned i = 0; rc == 0 && i < db->threads; i++)
		tpcc_ack_durable(db, &db->worker[i]);
	if (db->acker != NULL) {
		tpcc_acker_t *a = db->acker;
		pthread_mutex_lock(&a->mu);
		a->stop = true;
		pthread_cond_signal(&a->cv);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->thread, NULL);
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		free(a);
		db->acker = NULL;
	}
	tpcc_write_acked(db);
	if (potm_durable_close(db->log) != 0)
		rc = -1;
	db->log = NULL;
	if (rc != 0)
		fprintf(stderr, "tpcc: -D %s: %s\n", db->log_dir, tm_last_error());
	for (unsigned i = 0; i < db->threads; i++) {
		free(db->worker[i].pending);
		db->worker[i].pending = NULL;
	}
	return rc;
}

/* dir/name's "key value" lines: value of key, or -1 if missing. */
static int tpcc_read_count(const char *dir, const char *key, uint64_t *v)
{
	char *path = tpcc_path(dir, "acked");
	FILE *f = path ? fopen(path, "r") : NULL;
	free(path);
	if (f == NULL)
		return -1;
	char k[64];
	uint64_t x;
	int rc = -1;
	while (fscanf(f, "%63s %" SCNu64, k, &x) == 2)
		if (strcmp(k, key) == 0) {
			*v = x;
			rc = 0;
		}
	fclose(f);
	return rc;
}

int tpcc_durable_recover(tpcc_db_t *db, const char *dir, const char *backend)
{
	char *path = tpcc_path(dir, "params");
	FILE *f = path ? fopen(path, "r") : NULL;
	uint32_t w = 0, items = 0, customers = 0;
	bool have = f != NULL && fscanf(f, "%" SCNu32 " %" SCNu32 " %" SCNu32, &w, &items,
	                                &customers) == 3;
	if (f != NULL)
		fclose(f);
	if (!have) {
		fprintf(stderr, "tpcc: -r -D %s: no TPC-C run logged there (%s unreadable)\n", dir,
		        path ? path : dir);
		free(path);
		return -1;
	}
	free(path);
	if (w != db->warehouses || items != db->items || customers != db->customers) {
		fprintf(stderr, "tpcc: -r -D %s: the log is of -w %" PRIu32 " -I %" PRIu32
		        " -C %" PRIu32 "; recover with the same options (given -w %" PRIu32
		        " -I %" PRIu32 " -C %" PRIu32 ")\n", dir, w, items, customers,
		        db->warehouses, db->items, db->customers);
		return -1;
	}
	store_table_t *t[9];
	unsigned n = tpcc_tables(db, t);
	potm_durable_info_t info;
	if (potm_durable_recover(dir, t, n, 0, &info) != 0) {
		fprintf(stderr, "tpcc: -r -D %s: %s\n", dir, tm_last_error());
		return -1;
	}
	tpcc_seal(db);
	bool ok[TPCC_CONDITIONS];
	bench_verdict_t verdict = { .failed = false };
	tpcc_check(db, ok, &verdict);
	uint64_t initial = (uint64_t)w * TPCC_DISTRICTS * customers;
	uint64_t orders = store_count(db->order), history = store_count(db->history);
	uint64_t new_orders = orders - initial, payments = history - initial;
	uint64_t acked_no = 0, acked_pay = 0;
	bool acked = tpcc_read_count(dir, "new_order", &acked_no) == 0 &&
	             tpcc_read_count(dir, "payment", &acked_pay) == 0;
	bool present = acked && new_orders >= acked_no && payments >= acked_pay;
	bool good = present && !verdict.failed;
	for (int i = 0; i < TPCC_CONDITIONS; i++)
		good = good && ok[i];
	printf("{\"workload\":\"tpcc-recover\",\"backend\":\"%s\",\"file\":%u,"
	       "\"checkpoint_records\":%" PRIu64 ",\"durable_stamp\":%" PRIu64
	       ",\"transactions\":%" PRIu64 ",\"discarded\":%" PRIu64 ",\"torn_bytes\":%" PRIu64
	       ",\"new_orders\":%" PRIu64 ",\"acked_new_orders\":%" PRIu64
	       ",\"payments\":%" PRIu64 ",\"acked_payments\":%" PRIu64
	       ",\"consistency_1\":\"%s\",\"consistency_2\":\"%s\",\"consistency_3\":\"%s\","
	       "\"consistency_4\":\"%s\",\"acked_present\":\"%s\",\"digest\":\"%016" PRIx64
	       "\",\"verdict\":\"%s\"}\n",
	       backend, info.file, info.checkpoint_records, info.durable_stamp,
	       info.transactions, info.discarded, info.torn_bytes, new_orders, acked_no,
	       payments, acked_pay, ok[0] ? "ok" : "failed", ok[1] ? "ok" : "failed",
	       ok[2] ? "ok" : "failed", ok[3] ? "ok" : "failed",
	       !acked ? "no acked file" : present ? "ok" : "failed", tpcc_digest(db),
	       good ? "ok" : "failed");
	fflush(stdout);
	if (!acked)
		fprintf(stderr, "tpcc: -r -D %s: no readable acked file\n", dir);
	else if (!present)
		fprintf(stderr, "tpcc: -r -D %s: acknowledged transactions are missing: %" PRIu64
		        " New-Orders for %" PRIu64 " acknowledged, %" PRIu64 " Payments for %"
		        PRIu64 "\n", dir, new_orders, acked_no, payments, acked_pay);
	if (verdict.failed)
		fprintf(stderr, "tpcc: -r -D %s: %s\n", dir, verdict.msg);
	return good ? 0 : -1;
}
