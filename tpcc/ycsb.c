/*
 * tpcc/ycsb.c — a YCSB-like key-value workload on the record store (the
 * workload of Silo's Figure 4):
 *
 *   ycsb-<b> [-k keys] [-r read%] [-e tm|plain|kv] [-W] [-t -d -n -S -H]
 *
 * One table of K records of 100 bytes under keys 0..K-1 (a hash table
 * sized for K), each record a 32-bit counter and 96 bytes of payload.  Every
 * operation picks a key uniformly and is, with probability -r (80 % by
 * default), a read of the whole record, otherwise a read-modify-write:
 * read the whole record, increment its counter, rewrite a payload byte,
 * write it all back.  Each operation is one transaction.  The keys are
fixed once loaded (the table is sealed by keys: lookups read the index
plainly) and the table keeps a guard word per record, so that a record
is read with one check around a copy (store_read_record; Silo's record
TID word); -W reads and writes records a word at a time instead
(store_read_bytes/store_write_bytes, a check per lock stripe).
 *
 * -e plain runs the same operations on a private table
 * (<potm/store_private.h>): plain loads and stores, no transaction, no
 * synchronization at all.  Nothing protects that table from a second
 * thread, so it runs one worker only.
 *
 * -e kv is a concurrent key-value store without transactions, Silo's
 * "Key-Value" baseline (Masstree without its transaction layer): the
 * private table's hash index, whose keys are fixed once loaded, so any
 * number of workers look keys up with plain loads (the loading thread
 * created them after it), and a version word per record, a sequence lock:
 * a read copies the record between two loads of an even, unchanged
 * version; a read-modify-write makes the version odd, rewrites the
 * record and makes it even again.  Each operation is atomic on its own
 * record, nothing more, and the record's words are copied with relaxed
 * atomic accesses (a reader may overlap a writer, and then retries).
 *
 * After the run: the table's structure, its record count, and the sum of
 * the counters against the read-modify-writes the workers saw commit
 * (each committed once, at its TM_END, so a lost or doubled update shows).
 */
#include "harness.h"
#include "potm_bench.h"

#include <potm/store.h>
#include <potm/store_private.h>
#include <potm/tm.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

POTM_BENCH_EXPORT int potm_bench_ycsb(int argc, char **argv);

#define YCSB_DEFAULT_KEYS 100000
#define YCSB_MAX_KEYS (1u << 26)
#define YCSB_LOAD_BATCH 256      /* inserts per loading transaction */
#define YCSB_CHECK_BATCH 1024    /* records summed per checking transaction */

/* 100 bytes, as in Silo's (and YCSB's) key-value experiment. */
typedef struct ycsb_rec {
	uint32_t count;              /* read-modify-writes applied */
	uint8_t payload[96];
} ycsb_rec_t;
_Static_assert(sizeof(ycsb_rec_t) == 100, "a record is 100 bytes");

/* -e kv: a record of the concurrent store: its version word, then the
 * record and a check word, ~count, in the record's last word, so that a
 * copy mixing two versions shows (the reads count those as torn). */
typedef struct ycsb_kv_body {
	ycsb_rec_t rec;
	uint32_t check;
} ycsb_kv_body_t;
#define YCSB_KV_WORDS (sizeof(ycsb_kv_body_t) / 8)
_Static_assert(sizeof(ycsb_kv_body_t) % 8 == 0, "whole words");
typedef struct ycsb_kv_rec {
	uint64_t version;            /* odd while a writer holds the record */
	uint64_t words[YCSB_KV_WORDS];   /* a ycsb_kv_body_t */
} ycsb_kv_rec_t;

enum { YCSB_READS, YCSB_RMWS, YCSB_MISSING, YCSB_TORN };

enum ycsb_execution { YCSB_EXEC_TM, YCSB_EXEC_PLAIN, YCSB_EXEC_KV };

typedef struct ycsb_db {
	store_table_t *t;
	uint64_t keys;
	uint64_t read_pct;
	enum ycsb_execution execution;
	bool words;                  /* -W: no record guards */
	uint64_t seed;
} ycsb_db_t;

/* A private table (-e plain or -e kv), not a transactional one. */
static inline bool ycsb_private(const ycsb_db_t *db)
{
	return db->execution != YCSB_EXEC_TM;
}

/* The initial record under key k. */
static void ycsb_initial(ycsb_rec_t *r, uint64_t k)
{
	memset(r, 0, sizeof *r);
	memset(r->payload, (int)(k & 0xff), sizeof r->payload);
}

/* ---- loading and checking (thread 0, registered) --------------------------- */

static int ycsb_load(ycsb_db_t *db)
{
	bool kv = db->execution == YCSB_EXEC_KV;
	store_table_def_t def = { .name = "usertable",
	                          .record_size = kv ? sizeof(ycsb_kv_rec_t) : sizeof(ycsb_rec_t),
	                          .kind = STORE_HASH, .capacity = db->keys,
	                          .record_guard = !db->words };
	db->t = ycsb_private(db) ? store_private_table_create(&def) : store_table_create(&def);
	if (db->t == NULL)
		return -1;
	ycsb_db_t *volatile vdb = db;
	for (uint64_t base = 0; base < db->keys; base += YCSB_LOAD_BATCH) {
		uint64_t top = base + YCSB_LOAD_BATCH < db->keys ? base + YCSB_LOAD_BATCH
		                                                 : db->keys;
		if (ycsb_private(db)) {
			for (uint64_t k = base; k < top; k++) {
				ycsb_kv_body_t b;
				ycsb_initial(&b.rec, k);
				b.check = ~b.rec.count;
				ycsb_kv_rec_t kr = { .version = 0 };
				memcpy(kr.words, &b, sizeof b);
				const void *rec = kv ? (const void *)&kr : (const void *)&b.rec;
				if (store_private_insert(db->t, k, rec) == NULL)
					return -1;
			}
			continue;
		}
		volatile int failed = 0;
		TM_BEGIN();
		failed = 0;
		for (uint64_t k = base; k < top; k++) {
			ycsb_rec_t r;
			ycsb_initial(&r, k);
			if (store_insert(vdb->t, k, &r) == NULL)
				failed = 1;
		}
		TM_END();
		if (failed)
			return -1;
	}
	/* Keys fixed from here on (the workers start after this). */
	if (!ycsb_private(db))
		store_table_seal(db->t, STORE_SEAL_KEYS);
	return 0;
}

static void ycsb_destroy(ycsb_db_t *db)
{
	if (db->t == NULL)
		return;
	if (ycsb_private(db))
		store_private_table_destroy(db->t);
	else
		store_table_destroy(db->t);
	db->t = NULL;
}

/* One checking transaction: the counters' sum and the records present
 * among keys [base, top).  Its own function, so that nothing the caller
 * keeps in registers lives across the transaction's resume point. */
static __attribute__((noinline)) void ycsb_sum_batch(ycsb_db_t *db, uint64_t base,
                                                      uint64_t top, uint64_t *sum,
                                                      uint64_t *present)
{
	volatile uint64_t vs = 0, vn = 0;
	ycsb_db_t *volatile vdb = db;
	volatile uint64_t vbase = base, vtop = top;
	TM_BEGIN();
	uint64_t ls = 0, ln = 0;
	for (uint64_t k = vbase; k < vtop; k++) {
		ycsb_rec_t *r = store_get(vdb->t, k);
		if (r != NULL) {
			ls += (uint64_t)TM_LOAD(&r->count);
			ln++;
		}
	}
	vs = ls;
	vn = ln;
	TM_END();
	*sum = vs;
	*present = vn;
}

/* The counters' sum and the records present, in batches. */
static void ycsb_sum(ycsb_db_t *db, uint64_t *sum, uint64_t *present)
{
	*sum = *present = 0;
	for (uint64_t base = 0; base < db->keys; base += YCSB_CHECK_BATCH) {
		uint64_t top = base + YCSB_CHECK_BATCH < db->keys ? base + YCSB_CHECK_BATCH
		                                                  : db->keys;
		uint64_t s = 0, n = 0;
		if (ycsb_private(db)) {
			/* After the run (the workers joined): plain reads. */
			for (uint64_t k = base; k < top; k++) {
				const void *r = store_private_get(db->t, k);
				if (r == NULL)
					continue;
				if (db->execution == YCSB_EXEC_KV)
					r = ((const ycsb_kv_rec_t *)r)->words;
				s += ((const ycsb_rec_t *)r)->count;
				n++;
			}
		} else {
			ycsb_sum_batch(db, base, top, &s, &n);
		}
		*sum += s;
		*present += n;
	}
}

static void ycsb_check(ycsb_db_t *db, uint64_t rmws, bench_verdict_t *v)
{
	if ((ycsb_private(db) ? store_private_check(db->t) : store_check(db->t)) != 0)
		bench_fail(v, "%s", tm_last_error());
	uint64_t sum, present;
	ycsb_sum(db, &sum, &present);
	if (present != db->keys)
		bench_fail(v, "%" PRIu64 " records found, %" PRIu64 " loaded", present, db->keys);
	if (sum != rmws)
		bench_fail(v, "the counters sum to %" PRIu64 ", %" PRIu64
		           " read-modify-writes committed", sum, rmws);
}

/* ---- the operations -------------------------------------------------------- */

/* One transaction: read the record, and with rmw write it back with its
 * counter incremented and one payload byte changed.  Returns 0 if the key
 * is missing (never, with the loaded table). */
static int ycsb_tx(ycsb_db_t *db, uint64_t key, bool rmw, uint8_t mark)
{
	volatile int found = 0;
	TM_BEGIN();
	ycsb_rec_t *r = store_get(db->t, key);
	found = r != NULL;
	if (r != NULL) {
		ycsb_rec_t copy;
		if (db->words)
			store_read_bytes(&copy, r, sizeof copy);
		else
			store_read_record(db->t, r, &copy);
		if (rmw) {
			copy.count++;
			copy.payload[copy.count % sizeof copy.payload] = mark;
			if (db->words)
				store_write_bytes(r, &copy, sizeof copy);
			else
				store_write_record(db->t, r, &copy);
		}
	}
	TM_END();
	return found;
}

/* The same on the private table: plain accesses. */
static int ycsb_plain(ycsb_db_t *db, uint64_t key, bool rmw, uint8_t mark)
{
	ycsb_rec_t *r = store_private_get(db->t, key);
	if (r == NULL)
		return 0;
	ycsb_rec_t copy;
	store_private_read_bytes(&copy, r, sizeof copy);
	if (rmw) {
		copy.count++;
		copy.payload[copy.count % sizeof copy.payload] = mark;
		store_private_write_bytes(r, &copy, sizeof copy);
	}
	return 1;
}

/* A pause in a spin loop. */
static inline void ycsb_spin(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* The same on the concurrent store (-e kv): the record's sequence lock.
 * A reader's copy counts when the version was even before it and the
 * same after it (the acquire load orders the copy after the first load,
 * the acquire fence the copy before the second).  A writer takes the lock
 * with a compare-and-swap to odd, and the release fence after it keeps
 * its stores behind that; the release store of the next even version
 * publishes them. */
static int ycsb_kv(ycsb_db_t *db, uint64_t key, bool rmw, uint8_t mark, bool *torn)
{
	ycsb_kv_rec_t *r = store_private_get(db->t, key);
	if (r == NULL)
		return 0;
	uint64_t w[YCSB_KV_WORDS];
	ycsb_kv_body_t copy;
	if (!rmw) {
		for (;;) {
			uint64_t v1 = __atomic_load_n(&r->version, __ATOMIC_ACQUIRE);
			for (size_t i = 0; i < YCSB_KV_WORDS; i++)
				w[i] = __atomic_load_n(&r->words[i], __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (!(v1 & 1) && __atomic_load_n(&r->version, __ATOMIC_RELAXED) == v1)
				break;
			ycsb_spin();
		}
		memcpy(&copy, w, sizeof copy);
		*torn = copy.check != ~copy.rec.count;
		return 1;
	}
	uint64_t v = __atomic_load_n(&r->version, __ATOMIC_RELAXED);
	while ((v & 1) || !__atomic_compare_exchange_n(&r->version, &v, v + 1, false,
	                                               __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		ycsb_spin();
		v = __atomic_load_n(&r->version, __ATOMIC_RELAXED);
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < YCSB_KV_WORDS; i++)
		w[i] = __atomic_load_n(&r->words[i], __ATOMIC_RELAXED);
	memcpy(&copy, w, sizeof copy);
	copy.rec.count++;
	copy.rec.payload[copy.rec.count % sizeof copy.rec.payload] = mark;
	copy.check = ~copy.rec.count;
	memcpy(w, &copy, sizeof copy);
	for (size_t i = 0; i < YCSB_KV_WORDS; i++)
		__atomic_store_n(&r->words[i], w[i], __ATOMIC_RELAXED);
	__atomic_store_n(&r->version, v + 2, __ATOMIC_RELEASE);
	return 1;
}

static void ycsb_op(void *shared, bench_thread_t *self)
{
	ycsb_db_t *db = shared;
	uint64_t key = bench_rng_below(&self->rng, db->keys);
	bool rmw = bench_rng_below(&self->rng, 100) >= db->read_pct;
	uint8_t mark = (uint8_t)self->id;
	bool torn = false;
	int found = db->execution == YCSB_EXEC_TM      ? ycsb_tx(db, key, rmw, mark)
	            : db->execution == YCSB_EXEC_PLAIN ? ycsb_plain(db, key, rmw, mark)
	                                               : ycsb_kv(db, key, rmw, mark, &torn);
	if (torn)
		self->count[YCSB_TORN]++;
	if (!found)
		self->count[YCSB_MISSING]++;
	else
		self->count[rmw ? YCSB_RMWS : YCSB_READS]++;
}

/* ---- the benchmark --------------------------------------------------------- */

static const char *const ycsb_executions[] = { "tm", "plain", "kv", NULL };

int potm_bench_ycsb(int argc, char **argv)
{
	bench_common_t c = { .name = "ycsb" };
	uint64_t keys = YCSB_DEFAULT_KEYS, read_pct = 80;
	unsigned execution = 0;
	bool words = false;
	const bench_option_t opts[] = {
		{ 'k', BENCH_OPT_UINT, "key count", "keys, the table's records (default 100000)",
		  1, YCSB_MAX_KEYS, NULL, &keys, NULL },
		{ 'r', BENCH_OPT_UINT, "read percentage",
		  "reads in percent; the rest are read-modify-writes (default 80)", 0, 100, NULL,
		  &read_pct, NULL },
		{ 'e', BENCH_OPT_CHOICE, "execution",
		  "tm: each operation a transaction; plain: a private table, plain accesses, "
		  "no transaction, one thread only; kv: a concurrent key-value store, no "
		  "transaction, a sequence lock per record (default tm)", 0, 0, ycsb_executions,
		  &execution, NULL },
		{ 'W', BENCH_OPT_FLAG, NULL,
		  "-e tm: read and write records a word at a time, without the record guard "
		  "(a check per lock stripe)", 0, 0, NULL, &words, NULL },
	};
	int rc = bench_parse(&c, "ycsb: a YCSB-like key-value workload: 100-byte records, "
	                     "uniform keys, reads and read-modify-writes", opts,
	                     sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	ycsb_db_t db = { .keys = keys, .read_pct = read_pct,
	                 .execution = (enum ycsb_execution)execution, .words = words,
	                 .seed = c.seed };
	_Static_assert(YCSB_EXEC_PLAIN == 1 && YCSB_EXEC_KV == 2, "ycsb_executions' order");
	if (db.execution == YCSB_EXEC_PLAIN && c.threads != 1)
		return bench_usage_error(&c, "-e plain: a private table serves one thread; "
		                         "-t %" PRIu64 " needs -e tm", c.threads);
	if (words && db.execution != YCSB_EXEC_TM)
		return bench_usage_error(&c, "-W: word-at-a-time transactional accesses need -e tm");
	/* -e plain and -e kv: the workers call no TM function. */
	c.unregistered = ycsb_private(&db);
	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK)
		return rc;
	rc = bench_enter_main(&c);
	if (rc != BENCH_EXIT_OK)
		goto out_stop;
	uint64_t t0 = bench_now_ns();
	if (ycsb_load(&db) != 0) {
		fprintf(stderr, "ycsb: loading %" PRIu64 " records: %s\n", keys, tm_last_error());
		ycsb_destroy(&db);
		tm_thread_exit();
		rc = BENCH_EXIT_FAILED;
		goto out_stop;
	}
	uint64_t load_ns = bench_now_ns() - t0;
	tm_thread_exit();

	tm_stats_reset();
	bench_run_result_t run;
	rc = bench_run(&c, ycsb_op, &db, &run);
	tm_stats_t stats;
	tm_stats(&stats);

	bench_verdict_t verdict = { .failed = false };
	int enter_rc = bench_enter_main(&c);
	if (enter_rc == BENCH_EXIT_OK) {
		if (rc == BENCH_EXIT_OK)
			ycsb_check(&db, run.count[YCSB_RMWS], &verdict);
		ycsb_destroy(&db);
		tm_thread_exit();
	}
	if (rc == BENCH_EXIT_OK)
		rc = enter_rc;
	if (rc != BENCH_EXIT_OK)
		goto out_stop;
	if (run.count[YCSB_MISSING] != 0)
		bench_fail(&verdict, "%" PRIu64 " operations found no record",
		           run.count[YCSB_MISSING]);
	if (run.count[YCSB_TORN] != 0)
		bench_fail(&verdict, "%" PRIu64 " reads copied a record mixing two versions",
		           run.count[YCSB_TORN]);
	if (run.count[YCSB_READS] + run.count[YCSB_RMWS] != run.ops)
		bench_fail(&verdict, "the workers counted %" PRIu64 " operations, the run %" PRIu64,
		           run.count[YCSB_READS] + run.count[YCSB_RMWS], run.ops);

	const bench_kv_t counts[] = {
		BENCH_U64("reads", run.count[YCSB_READS]),
		BENCH_U64("rmws", run.count[YCSB_RMWS]),
		BENCH_U64("load_ms", load_ns / 1000000),
	};
	const bench_kv_t params[] = {
		BENCH_STR("workload", "ycsb"),
		BENCH_U64("keys", keys),
		BENCH_U64("read_pct", read_pct),
		BENCH_STR("execution", ycsb_executions[execution]),
		BENCH_U64("record_guard", !words && execution == YCSB_EXEC_TM),
	};
	rc = BENCH_FINISH(&c, params, counts, &run, &stats, &verdict);
out_stop:
	bench_tm_stop();
	return rc;
}

#ifdef POTM_YCSB_MAIN
int main(int argc, char **argv)
{
	return potm_bench_ycsb(argc, argv);
}
#endif

BENCH_REGISTER("ycsb", potm_bench_ycsb,
               "YCSB-like key-value workload: 100-byte records, 80 % reads, "
               "20 % read-modify-writes");
