/*
 * The record store's redo log (<potm/durable.h>) on silo and tl2:
 *  - argument errors, one log per process, recovery's refusals (no log,
 *    a table not empty, a record size that differs), each with a message;
 *  - a bank (transfers between accounts of an ordered table, each
 *    transfer also inserting a row into a hash table and deleting an old
 *    one; every 97th cancelled after its writes) at 2 and 8 threads,
 *    logged: every wait for the thread's last
 *    stamp returns with the durable stamp at or above it, and recovery
 *    into new tables rebuilds exactly the final contents (digests);
 *  - a checkpoint in the middle: one log file afterwards, the same
 *    recovery;
 *  - a size limit: waits fail with "full", a commit after it has a stamp
 *    that never passes for durable, the log on disk recovers to a state
 *    whose balances still sum to the total, with sound tables;
 *  - partial updates of wide records at 2 and 4 threads: each thread
 *    writes runs of bytes (any offset, any length) and single fields in
 *    its own lane of records the others write at the same time (other
 *    lanes of the same records, and other records), inserts records and
 *    writes part of them, deletes them, and now and then writes its lane
 *    of every record in one transaction (on tl2 that one escalates and
 *    runs in place: it is the only path that logs from memory); every
 *    recovered record equals the committed one byte for byte.
 */
#include "store_test.h"
#include "test_threads.h"

#include <potm/durable.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"

#define ACCOUNTS 64
#define TOTAL (ACCOUNTS * 1000)

typedef struct acct {
	int64_t balance;
	uint64_t touched;
} acct_t;

typedef struct note {
	uint64_t from, to;
	int64_t amount;
} note_t;

static store_table_t *accounts, *notes;
static potm_durable_t *the_log;
static long transfers_per_thread;
static volatile int waits_failed;

static char dir[256];

static void make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/potm-t-store-log-%s-%d", POTM_BACKEND_NAME, (int)getpid());
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void remove_dir(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static unsigned count_logs(void)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, "log.", 4) == 0;
	closedir(d);
	return n;
}

static void make_tables(store_table_t **a, store_table_t **n)
{
	store_table_def_t da = { .name = "accounts", .record_size = sizeof(acct_t),
	                         .kind = STORE_ORDERED };
	store_table_def_t dn = { .name = "notes", .record_size = sizeof(note_t),
	                         .kind = STORE_HASH, .capacity = 1024 };
	*a = store_table_create(&da);
	*n = store_table_create(&dn);
	ck_assert_msg(*a != NULL && *n != NULL, "%s", tm_last_error());
}

static void fill_accounts(store_table_t *a)
{
	TM_BEGIN();
	for (uint64_t k = 0; k < ACCOUNTS; k++) {
		acct_t r = { 1000, 0 };
		store_insert(a, k, &r);
	}
	TM_END();
}

static void transfer_work(unsigned id, unsigned nthreads)
{
	(void)nthreads;
	uint64_t rng = 0x9e3779b97f4a7c15ull * (id + 1);
	for (long i = 0; i < transfers_per_thread; i++) {
		uint64_t from = rng_next(&rng) % ACCOUNTS, to = rng_next(&rng) % ACCOUNTS;
		int64_t amount = (int64_t)(rng_next(&rng) % 50);
		uint64_t nkey = (uint64_t)id << 32 | (uint64_t)i;
		TM_BEGIN();
		acct_t *f = store_get(accounts, from), *t = store_get(accounts, to);
		TM_STORE(&f->balance, TM_LOAD(&f->balance) - amount);
		TM_STORE(&f->touched, TM_LOAD(&f->touched) + 1);
		store_update(accounts, f);
		TM_STORE(&t->balance, TM_LOAD(&t->balance) + amount);
		store_update(accounts, t);
		note_t n = { from, to, amount };
		store_insert(notes, nkey, &n);
		if (i % 97 == 96)
			tm_cancel();   /* noted, then cancelled: nothing logged */
		if (i >= 8)   /* keep a window of notes: deletes are logged too */
			store_delete(notes, nkey - 8);
		TM_END();
		if (i % 64 == 63) {
			uint64_t s = potm_durable_last_stamp();
			/* None only if the log failed before this thread's
			 * first commit was taken. */
			ck_assert(s > 0 || potm_durable_failed(the_log));
			if (s == 0)
				waits_failed = 1;
			else if (potm_durable_wait(the_log, s) == 0)
				ck_assert_uint_ge(potm_durable_stamp(the_log), s);
			else
				waits_failed = 1;
		}
	}
}

static void expect_error(int failed, const char *words)
{
	ck_assert(failed);
	ck_assert_msg(strstr(tm_last_error(), words) != NULL, "expected \"%s\" in \"%s\"", words,
	              tm_last_error());
}

static int64_t sum_balances(store_table_t *a)
{
	volatile int64_t sum = 0;   /* set in the body, read after it */
	TM_BEGIN();
	sum = 0;
	for (uint64_t k = 0; k < ACCOUNTS; k++) {
		acct_t *r = store_get(a, k);
		ck_assert_ptr_nonnull(r);
		sum += TM_LOAD(&r->balance);
	}
	TM_END();
	return sum;
}

/* Recover dir into new tables: their digests, or the failure. */
static void recover_into(store_table_t **a, store_table_t **n, potm_durable_info_t *info)
{
	make_tables(a, n);
	store_table_t *t[2] = { *a, *n };
	ck_assert_msg(potm_durable_recover(dir, t, 2, 1, info) == 0, "%s", tm_last_error());
	ck_assert_int_eq(store_check(*a), 0);
	ck_assert_int_eq(store_check(*n), 0);
}

START_TEST(errors)
{
	store_test_start();
	make_dir();
	make_tables(&accounts, &notes);
	store_table_t *t[2] = { accounts, notes };
	expect_error(potm_durable_open(NULL, t, 2) == NULL, "opts is NULL");
	potm_durable_opts_t o = { .dir = dir, .quiet = 1 };
	expect_error(potm_durable_open(&o, t, 0) == NULL, "no tables");
	expect_error(potm_durable_recover(dir, t, 2, 1, NULL) != 0, "cannot read");
	the_log = potm_durable_open(&o, t, 2);
	ck_assert_msg(the_log != NULL, "%s", tm_last_error());
	expect_error(potm_durable_open(&o, t, 2) == NULL, "already open");
	expect_error(potm_durable_recover(dir, t, 2, 1, NULL) != 0, "a log is open");
	ck_assert_int_eq(potm_durable_close(the_log), 0);
	fill_accounts(accounts);
	expect_error(potm_durable_recover(dir, t, 2, 1, NULL) != 0, "not empty");
	/* Recovery into tables of other record sizes. */
	store_table_def_t d1 = { .name = "a2", .record_size = 8, .kind = STORE_ORDERED };
	store_table_def_t d2 = { .name = "n2", .record_size = sizeof(note_t), .kind = STORE_HASH,
	                         .capacity = 16 };
	store_table_t *u[2] = { store_table_create(&d1), store_table_create(&d2) };
	expect_error(potm_durable_recover(dir, u, 2, 1, NULL) != 0, "records of 16 bytes");
	expect_error(potm_durable_recover(dir, u, 1, 1, NULL) != 0, "logs 2 tables, 1 given");
	store_table_destroy(u[0]);
	store_table_destroy(u[1]);
	store_table_destroy(accounts);
	store_table_destroy(notes);
	remove_dir();
	store_test_stop();
}
END_TEST

/* A logged bank at n threads; with a checkpoint halfway if asked. */
static void bank(unsigned n, bool checkpoint)
{
	store_test_start();
	make_dir();
	make_tables(&accounts, &notes);
	fill_accounts(accounts);
	store_table_t *t[2] = { accounts, notes };
	potm_durable_opts_t o = { .dir = dir, .period_ms = 2, .quiet = 1 };
	the_log = potm_durable_open(&o, t, 2);
	ck_assert_msg(the_log != NULL, "%s", tm_last_error());
	transfers_per_thread = 2000 / STORE_TEST_SCALE / (n > 2 ? 4 : 1) / test_handoff_divisor();
	tm_thread_exit();
	test_run_threads(n, transfer_work);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	if (checkpoint) {
		ck_assert_int_eq(potm_durable_checkpoint(the_log), 0);
		ck_assert_uint_eq(count_logs(), 1);
		tm_thread_exit();
		test_run_threads(n, transfer_work);
		ck_assert_int_eq(tm_thread_enter(0), 0);
	}
	ck_assert_int_eq(waits_failed, 0);
	ck_assert_int_eq(potm_durable_close(the_log), 0);
	ck_assert_uint_eq(count_logs(), 1);
	uint64_t da = store_digest(accounts), dn = store_digest(notes);
	size_t nn = store_count(notes);
	ck_assert_int_eq(sum_balances(accounts), TOTAL);

	store_table_t *ra, *rn;
	potm_durable_info_t info;
	recover_into(&ra, &rn, &info);
	ck_assert_uint_eq(store_digest(ra), da);
	ck_assert_uint_eq(store_digest(rn), dn);
	ck_assert_uint_eq(store_count(rn), nn);
	ck_assert_uint_eq(info.torn_bytes, 0);
	ck_assert_uint_eq(info.discarded, 0);
	ck_assert_uint_eq(info.file, checkpoint ? 2 : 1);
	ck_assert_uint_eq(info.transactions,
	                  (uint64_t)(transfers_per_thread - transfers_per_thread / 97) * n);
	store_table_destroy(ra);
	store_table_destroy(rn);
	store_table_destroy(accounts);
	store_table_destroy(notes);
	remove_dir();
	store_test_stop();
}

START_TEST(bank_2)
{
	bank(2, false);
}
END_TEST

START_TEST(bank_8)
{
	bank(8, false);
}
END_TEST

START_TEST(bank_checkpoint_2)
{
	bank(2, true);
}
END_TEST

START_TEST(full)
{
	store_test_start();
	make_dir();
	make_tables(&accounts, &notes);
	fill_accounts(accounts);
	store_table_t *t[2] = { accounts, notes };
	potm_durable_opts_t o = { .dir = dir, .period_ms = 2, .max_bytes = 20000, .quiet = 1 };
	the_log = potm_durable_open(&o, t, 2);
	ck_assert_msg(the_log != NULL, "%s", tm_last_error());
	transfers_per_thread = 2000 / STORE_TEST_SCALE / test_handoff_divisor();
	waits_failed = 0;
	tm_thread_exit();
	test_run_threads(2, transfer_work);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(waits_failed, 1);
	ck_assert(potm_durable_failed(the_log));
	ck_assert_msg(strstr(potm_durable_error(the_log), "full") != NULL, "%s",
	              potm_durable_error(the_log));
	expect_error(potm_durable_wait(the_log, UINT64_MAX) != 0, "full");
	/* A commit after the failure is logged nowhere: its stamp must not
	 * pass for a durable one (a thread's last logged stamp may be). */
	TM_BEGIN();
	acct_t *r = store_get(accounts, 0);
	TM_STORE(&r->touched, TM_LOAD(&r->touched) + 1);
	store_update(accounts, r);
	TM_END();
	ck_assert_uint_gt(potm_durable_last_stamp(), potm_durable_stamp(the_log));
	expect_error(potm_durable_wait(the_log, potm_durable_last_stamp()) != 0, "full");
	expect_error(potm_durable_close(the_log) != 0, "full");
	store_table_t *ra, *rn;
	potm_durable_info_t info;
	recover_into(&ra, &rn, &info);
	ck_assert_uint_eq(info.torn_bytes, 0);
	ck_assert_int_eq(sum_balances(ra), TOTAL);
	ck_assert_uint_lt(info.transactions, (uint64_t)transfers_per_thread * 2);
	store_table_destroy(ra);
	store_table_destroy(rn);
	store_table_destroy(accounts);
	store_table_destroy(notes);
	remove_dir();
	store_test_stop();
}
END_TEST

/* ---- partial updates of wide records ------------------------------------ */

#define WIDE_KEYS 40
#define WIDE_HOT 2
#define WIDE_LONE (1ull << 62)  /* deleted alone, the log's first transaction */
#define WIDE_LANES 4
#define WIDE_LANE 48            /* bytes: a lane spans two or more stripes */
#define WIDE_HEAD 8             /* bytes nobody writes after the fill */
#define WIDE_SIZE (WIDE_HEAD + WIDE_LANES * WIDE_LANE)

static store_table_t *wide;
static long wide_iters;

static void wide_fill(store_table_t *t)
{
	TM_BEGIN();
	for (uint64_t k = 0; k < WIDE_KEYS; k++) {
		unsigned char r[WIDE_SIZE];
		for (unsigned b = 0; b < WIDE_SIZE; b++)
			r[b] = (unsigned char)(k * 31 + b);
		store_insert(t, k, r);
	}
	store_insert(t, WIDE_LONE, NULL);
	TM_END();
}

/* Write the whole lane of every record: more words than the escalation
 * mark (64, see partial()). */
static void wide_all_lanes(unsigned lane, unsigned char v)
{
	unsigned char bytes[WIDE_LANE];
	memset(bytes, v, sizeof bytes);
	TM_BEGIN();
	for (uint64_t k = 0; k < WIDE_KEYS; k++) {
		unsigned char *r = store_get(wide, k);
		store_write_bytes(r + WIDE_HEAD + lane * WIDE_LANE, bytes, WIDE_LANE);
		store_update(wide, r);
	}
	TM_END();
}

static void wide_work(unsigned id, unsigned nthreads)
{
	(void)nthreads;
	unsigned lane = id % WIDE_LANES;
	unsigned char *mine = NULL;
	uint64_t rng = 0x2545f4914f6cdd1dull * (id + 1);
	for (long i = 0; i < wide_iters; i++) {
		/* k1 among a few hot records: lanes of one record written
		 * by several threads at the same time. */
		uint64_t k1 = rng_next(&rng) % WIDE_HOT, k2 = rng_next(&rng) % WIDE_KEYS;
		unsigned off = (unsigned)(rng_next(&rng) % WIDE_LANE);
		unsigned len = 1 + (unsigned)(rng_next(&rng) % 20);
		if (len > WIDE_LANE - off)
			len = WIDE_LANE - off;
		unsigned field = (unsigned)(rng_next(&rng) % (WIDE_LANE / 4));
		unsigned char v[WIDE_LANE];
		for (unsigned b = 0; b < sizeof v; b++)
			v[b] = (unsigned char)rng_next(&rng);
		uint64_t nkey = WIDE_KEYS + ((uint64_t)id << 32) + (uint64_t)i;
		if (i % 64 == 63) {
			wide_all_lanes(lane, v[0]);
			continue;
		}
		TM_BEGIN();
		unsigned char *r1 = store_get(wide, k1);
		store_write_bytes(r1 + WIDE_HEAD + lane * WIDE_LANE + off, v, len);
		store_update(wide, r1);
		/* A field of the lane (the lane starts 8-aligned). */
		unsigned char *r2 = store_get(wide, k2);
		uint32_t *f = (uint32_t *)(void *)(r2 + WIDE_HEAD + lane * WIDE_LANE + 4 * field);
		TM_STORE(f, TM_LOAD(f) + 1);
		store_update(wide, r2);
		store_update(wide, r1);   /* noted again: logged once */
		/* Inserted zeroed, then partly written: the image is both. */
		mine = store_insert(wide, nkey, NULL);
		store_write_bytes(mine + off, v, len);
		store_update(wide, mine);
		if (i >= 4)
			store_delete(wide, nkey - 4);
		TM_END();
	}
}

/* The bytes of every record of keys 0..WIDE_KEYS-1 of t into out. */
static void wide_copy(store_table_t *t, unsigned char (*out)[WIDE_SIZE])
{
	TM_BEGIN();
	for (uint64_t k = 0; k < WIDE_KEYS; k++) {
		const unsigned char *r = store_get(t, k);
		ck_assert_ptr_nonnull(r);
		store_read_record(t, r, out[k]);   /* guarded: G1 in the recovery too */
	}
	TM_END();
}

static void partial(unsigned n)
{
	/* Escalation (tl2, I4) at 64 words: wide_all_lanes runs in place. */
	tm_config_t cfg;
	tm_config_default(&cfg);
	cfg.promote_writes = 64;
	int rc = tm_init(&cfg);
	if (rc == TM_ERR_UNSUPPORTED)
		return;
	ck_assert_msg(rc == 0, "tm_init: %s", tm_last_error());
	ck_assert_int_eq(tm_thread_enter(0), 0);
	make_dir();
	store_table_def_t d = { .name = "wide", .record_size = WIDE_SIZE, .kind = STORE_ORDERED,
	                        .record_guard = 1 };
	wide = store_table_create(&d);
	ck_assert_msg(wide != NULL, "%s", tm_last_error());
	wide_fill(wide);
	potm_durable_opts_t o = { .dir = dir, .period_ms = 2, .quiet = 1 };
	the_log = potm_durable_open(&o, &wide, 1);
	ck_assert_msg(the_log != NULL, "%s", tm_last_error());
	/* A transaction that only deletes: no record to take bytes of. */
	TM_BEGIN();
	ck_assert_int_eq(store_delete(wide, WIDE_LONE), 1);
	TM_END();
	/* Alone: on tl2 it surely escalates (nobody holds the token). */
	wide_all_lanes(WIDE_LANES - 1, 0x5a);
	if (strcmp(POTM_BACKEND_NAME, "tl2") == 0) {
		tm_stats_t st;
		ck_assert_int_eq(tm_stats(&st), 0);
		ck_assert_uint_ge(st.irrevocable, 1);
	}
	wide_iters = 1200 / STORE_TEST_SCALE / n / test_handoff_divisor();
	tm_thread_exit();
	test_run_threads(n, wide_work);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	ck_assert_int_eq(potm_durable_close(the_log), 0);
	static unsigned char want[WIDE_KEYS][WIDE_SIZE], got[WIDE_KEYS][WIDE_SIZE];
	wide_copy(wide, want);
	uint64_t digest = store_digest(wide);
	size_t count = store_count(wide);

	store_table_def_t d2 = { .name = "wide2", .record_size = WIDE_SIZE, .kind = STORE_ORDERED,
	                         .record_guard = 1 };
	store_table_t *r = store_table_create(&d2);
	potm_durable_info_t info;
	ck_assert_msg(potm_durable_recover(dir, &r, 1, 1, &info) == 0, "%s", tm_last_error());
	ck_assert_int_eq(store_check(r), 0);
	wide_copy(r, got);
	for (unsigned k = 0; k < WIDE_KEYS; k++)
		for (unsigned b = 0; b < WIDE_SIZE; b++)
			ck_assert_msg(got[k][b] == want[k][b],
			              "record %u, byte %u: recovered %#x, committed %#x", k, b,
			              got[k][b], want[k][b]);
	ck_assert_uint_eq(store_count(r), count);
	ck_assert_uint_eq(store_digest(r), digest);   /* the inserted records too */
	ck_assert_uint_eq(info.discarded, 0);
	ck_assert_uint_eq(info.transactions, 2 + (uint64_t)wide_iters * n);
	store_table_destroy(r);
	store_table_destroy(wide);
	remove_dir();
	store_test_stop();
}

START_TEST(partial_2)
{
	partial(2);
}
END_TEST

START_TEST(partial_4)
{
	partial(4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store-log-" POTM_BACKEND_NAME);
	TCase *tc = tcase_create("log");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, bank_2);
	tcase_add_test(tc, bank_8);
	tcase_add_test(tc, bank_checkpoint_2);
	tcase_add_test(tc, full);
	tcase_add_test(tc, partial_2);
	tcase_add_test(tc, partial_4);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
