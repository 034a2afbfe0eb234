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
 *  - a size limit: waits fail with "full", the log on disk recovers to a
 *    state whose balances still sum to the total, with sound tables.
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
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
