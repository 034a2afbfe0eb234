/*
 * The record store under concurrency, every backend but seq (one thread
 * at a time), at 2 threads and at 8 (oversubscribed on a small machine):
 *
 *  - bank: transfers between the records of a hash table and of an
 *    ordered table, some of them deleting a record and inserting it
 *    again; audits (half of them declared read-only: silo's snapshots)
 *    see the total and the number
 *    of accounts unchanged (checked inside the transaction: a doomed
 *    attempt must not see a wrong total either, opacity), and so does the
 *    end;
 *  - churn: inserts and deletes on an ordered table with a secondary
 *    index, each thread on the keys of its own residue class and on a
 *    range shared by all, beside scans of the table and of the index that
 *    check order, bounds and each record's payload (a function of its
 *    key) inside the transaction (half of them read-only: silo's
 *    snapshots, whose view of the B+-tree's slots, reused or never used,
 *    must be a committed state).  At the end store_check passes, the
 *    count and the keys are those the committed operations left, and the
 *    digest equals that of a table rebuilt sequentially from them.
 *
 *  - guarded records: transfers between the accounts of a table with
 *    record guards, half written as whole records, half field by field,
 *    beside audits that read every account with store_read_record and
 *    some of its columns again with store_read_fields (half of them
 *    silo's snapshots): no audit sees a torn record or a
 *    wrong total, inside the transaction, and the transfers' counter
 *    record ends equal to the commits;
 *  - guard (tl2, silo): a guarded read's guard (access.h, the B+-tree's
 *    plain reads of a node's slots, B6) holds while nothing is written
 *    and fails once another thread commits a write to its word.
 *
 * Workers register, meet at a tm barrier and only then run (deterministic
 * backends need that start); bounded in operations, not time.
 */
#include "store_test.h"

#include <sched.h>

#include "check_run.h"
#include "test_threads.h"

typedef test_work_fn work_fn;

static unsigned long violations;   /* bad views, counted inside transactions */

/* Run fn on n registered threads (the caller not registered); returns
 * after all have exited. */
static void run_threads(unsigned n, work_fn fn)
{
	test_run_threads(n, fn);
}

static void note_violation(void)
{
	__atomic_fetch_add(&violations, 1, __ATOMIC_RELAXED);
}

/* Operations per thread: fewer when oversubscribed, where a preempted
 * lock or turn holder stalls the others. */
static unsigned ops_per_thread(unsigned nthreads, unsigned at2, unsigned at8)
{
	return (nthreads <= 2 ? at2 : at8) / STORE_TEST_SCALE;
}

/* ---- bank ------------------------------------------------------------------------ */

#define ACCOUNTS 64
#define INITIAL 1000

typedef struct account {
	int64_t balance;
	uint64_t key_copy;
	uint64_t pad[2];
} account_t;

static store_table_t *bank_table;
static uint64_t bank_key[ACCOUNTS];

/* Keys spread over all of uint64_t, its ends included. */
static void bank_keys(void)
{
	for (unsigned i = 0; i < ACCOUNTS; i++)
		bank_key[i] = i == ACCOUNTS - 1 ? UINT64_MAX : i * (UINT64_MAX / ACCOUNTS);
}

typedef struct audit {
	int64_t sum;
	unsigned n;
	bool bad;
} audit_t;

static int audit_visit(uint64_t key, void *rec, void *arg)
{
	audit_t *a = arg;
	account_t *acc = rec;
	if (TM_LOAD(&acc->key_copy) != key || store_key_of(rec) != key)
		a->bad = true;
	a->sum += TM_LOAD(&acc->balance);
	a->n++;
	return 0;
}

/* The total and the number of accounts, in one read-only transaction;
 * a wrong view is counted inside it. */
static void bank_audit(bool ordered, int dir)
{
	audit_t a;
	TM_BEGIN();
	if (dir == STORE_DESC)
		tm_declare_read_only();   /* silo: a snapshot */
	memset(&a, 0, sizeof a);
	if (ordered) {
		store_scan(bank_table, 0, UINT64_MAX, dir, audit_visit, &a);
	} else {
		for (unsigned i = 0; i < ACCOUNTS; i++) {
			void *r = store_get(bank_table, bank_key[i]);
			if (r == NULL)
				a.bad = true;
			else
				audit_visit(bank_key[i], r, &a);
		}
	}
	if (a.bad || a.n != ACCOUNTS || a.sum != (int64_t)ACCOUNTS * INITIAL)
		note_violation();
	TM_END();
}

static void bank_work(unsigned id, unsigned nthreads, bool ordered)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull * (id + 1);
	unsigned ops = ops_per_thread(nthreads, 15000, 3000);
	for (unsigned i = 0; i < ops; i++) {
		unsigned p = (unsigned)(rng_next(&rng) % 100);
		if (p < 10) {
			bank_audit(ordered, p % 2 ? STORE_DESC : STORE_ASC);
			continue;
		}
		uint64_t ka = bank_key[rng_next(&rng) % ACCOUNTS];
		uint64_t kb = bank_key[rng_next(&rng) % ACCOUNTS];
		int64_t amount = (int64_t)(rng_next(&rng) % 50);
		bool move = p < 30;
		TM_BEGIN();
		account_t *a = store_get(bank_table, ka);
		if (move) {
			/* The record of a leaves and comes back: another block. */
			account_t copy;
			store_read_bytes(&copy, a, sizeof copy);
			ck_assert_int_eq(store_delete(bank_table, ka), 1);
			copy.balance -= amount;
			a = store_insert(bank_table, ka, &copy);
		} else {
			TM_STORE(&a->balance, TM_LOAD(&a->balance) - amount);
		}
		account_t *b = store_get(bank_table, kb);
		TM_STORE(&b->balance, TM_LOAD(&b->balance) + amount);
		TM_END();
	}
}

static void bank_work_hash(unsigned id, unsigned n)
{
	bank_work(id, n, false);
}

static void bank_work_ordered(unsigned id, unsigned n)
{
	bank_work(id, n, true);
}

static void bank(store_kind_t kind, unsigned nthreads)
{
	store_test_init();
	bank_keys();
	store_table_def_t def = { .name = "bank", .record_size = sizeof(account_t),
	                          .kind = kind, .capacity = kind == STORE_HASH ? 32 : 0 };
	bank_table = store_table_create(&def);
	ck_assert_msg(bank_table != NULL, "%s", tm_last_error());
	ck_assert_int_eq(tm_thread_enter(0), 0);
	TM_BEGIN();
	for (unsigned i = 0; i < ACCOUNTS; i++) {
		account_t a = { .balance = INITIAL, .key_copy = bank_key[i] };
		ck_assert_ptr_nonnull(store_insert(bank_table, bank_key[i], &a));
	}
	TM_END();
	tm_thread_exit();
	violations = 0;
	run_threads(nthreads, kind == STORE_HASH ? bank_work_hash : bank_work_ordered);
	ck_assert_msg(violations == 0, "%lu audits saw a wrong total or account count",
	              violations);
	ck_assert_msg(store_check(bank_table) == 0, "%s", tm_last_error());
	ck_assert_uint_eq(store_count(bank_table), ACCOUNTS);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	bank_audit(kind == STORE_ORDERED, STORE_ASC);
	ck_assert_uint_eq(violations, 0);
	tm_thread_exit();
	store_table_destroy(bank_table);
	tm_shutdown();
}

START_TEST(bank_hash_2)
{
	bank(STORE_HASH, 2);
}
END_TEST

START_TEST(bank_hash_8)
{
	bank(STORE_HASH, 8);
}
END_TEST

START_TEST(bank_ordered_2)
{
	bank(STORE_ORDERED, 2);
}
END_TEST

START_TEST(bank_ordered_8)
{
	bank(STORE_ORDERED, 8);
}
END_TEST

/* ---- churn ----------------------------------------------------------------------- */

#define OWN_KEYS 4096u            /* [0, OWN_KEYS): key % nthreads is its owner */
#define SHARED_KEYS 512u          /* [OWN_KEYS, OWN_KEYS + SHARED_KEYS): anyone's */
#define ALL_KEYS (OWN_KEYS + SHARED_KEYS)
#define MAX_THREADS 8

typedef struct item {
	uint64_t key_copy;
	uint64_t grp;                 /* frozen: the secondary key's high part */
	uint64_t payload[3];
	uint8_t tail[4];              /* record_size 44: a partial last word */
} item_t;
#define ITEM_SIZE 44

static store_table_t *churn_table;
static store_index_t *churn_index;
/* Committed inserts minus committed deletes, per thread and key. */
static int churn_net[MAX_THREADS][ALL_KEYS];

static void item_of(uint64_t key, item_t *it)
{
	memset(it, 0, sizeof *it);
	it->key_copy = key;
	it->grp = test_mix(key) % 13;
	for (unsigned i = 0; i < 3; i++)
		it->payload[i] = test_mix(key * 4 + i);
	uint64_t t = test_mix(key ^ 0xabcdef);
	memcpy(it->tail, &t, sizeof it->tail);
}

static uint64_t churn_skey(const void *rec, uint64_t pkey)
{
	const item_t *it = rec;
	return it->grp << 32 | pkey;   /* keys below 2^32 */
}

typedef struct scan_ctx {
	uint64_t lo, hi, last;
	int dir;
	bool secondary;
	unsigned n, limit;
	bool bad;
} scan_ctx_t;

/* Order, bounds, and the record's bytes: the function of its key. */
static int churn_visit(uint64_t key, void *rec, void *arg)
{
	scan_ctx_t *c = arg;
	if (c->n > 0 && (c->dir == STORE_ASC ? key <= c->last : key >= c->last))
		c->bad = true;
	if (key < c->lo || key > c->hi)
		c->bad = true;
	c->last = key;
	c->n++;
	uint64_t pkey = store_key_of(rec);
	item_t got, want;
	memset(&got, 0, sizeof got);
	store_read_bytes(&got, rec, ITEM_SIZE);
	item_of(pkey, &want);
	if (memcmp(&got, &want, ITEM_SIZE) != 0)
		c->bad = true;
	if ((c->secondary ? churn_skey(&want, pkey) : pkey) != key)
		c->bad = true;
	return c->n >= c->limit;
}

static uint64_t churn_draw_key(unsigned id, unsigned nthreads, uint64_t *rng)
{
	uint64_t x = rng_next(rng);
	if (x % 4 == 0)
		return OWN_KEYS + (x >> 8) % SHARED_KEYS;
	uint64_t slot = (x >> 8) % (OWN_KEYS / nthreads);
	return slot * nthreads + id;
}

static void churn_scan(uint64_t *rng)
{
	scan_ctx_t c;
	uint64_t x = rng_next(rng);
	bool secondary = x & 1;
	int dir = x & 2 ? STORE_DESC : STORE_ASC;
	uint64_t lo = (x >> 8) % ALL_KEYS, hi = lo + (x >> 24) % 600;
	if (secondary) {
		uint64_t g = (x >> 40) % 13;
		lo |= g << 32;
		hi |= (x & 4 ? g : (g + 1) % 13) << 32;   /* some ranges span groups */
		if (hi < lo)
			hi = lo;
	}
	unsigned limit = 1 + (unsigned)((x >> 48) % 100);
	TM_BEGIN();
	if (x & 8)
		tm_declare_read_only();   /* silo: a snapshot of the tree */
	memset(&c, 0, sizeof c);
	c.lo = lo;
	c.hi = hi;
	c.dir = dir;
	c.secondary = secondary;
	c.limit = limit;
	size_t visited = secondary ? store_index_scan(churn_index, lo, hi, dir, churn_visit, &c)
	                           : store_scan(churn_table, lo, hi, dir, churn_visit, &c);
	if (visited != c.n)
		c.bad = true;
	if (c.bad)
		note_violation();
	TM_END();
}

static void churn_work(unsigned id, unsigned nthreads)
{
	uint64_t rng = 0x51ed270b27f0a9e3ull * (id + 1);
	unsigned ops = ops_per_thread(nthreads, 12000, 2500);
	int *net = churn_net[id];
	for (unsigned i = 0; i < ops; i++) {
		unsigned p = (unsigned)(rng_next(&rng) % 100);
		if (p < 20) {
			churn_scan(&rng);
			continue;
		}
		/* Inserts outweigh deletes in the first half, then the other way
		 * round: leaves fill, split, then empty and go. */
		bool first_half = i < ops / 2;
		unsigned n = 1 + (unsigned)(rng_next(&rng) % 3);
		uint64_t key[3];
		bool ins[3];
		for (unsigned j = 0; j < n; j++) {
			key[j] = churn_draw_key(id, nthreads, &rng);
			ins[j] = rng_next(&rng) % 100 < (first_half ? 65u : 30u);
		}
		static __thread int done[3];
		TM_BEGIN();
		for (unsigned j = 0; j < n; j++) {
			if (ins[j]) {
				item_t it;
				item_of(key[j], &it);
				done[j] = store_insert(churn_table, key[j], &it) != NULL;
			} else {
				done[j] = store_delete(churn_table, key[j]);
			}
		}
		TM_END();
		for (unsigned j = 0; j < n; j++)
			if (done[j])
				net[key[j]] += ins[j] ? 1 : -1;
	}
}

static void churn(unsigned nthreads)
{
	store_test_init();
	store_table_def_t def = { .name = "churn", .record_size = ITEM_SIZE,
	                          .kind = STORE_ORDERED };
	churn_table = store_table_create(&def);
	ck_assert_msg(churn_table != NULL, "%s", tm_last_error());
	churn_index = store_index_create(churn_table, "by_grp", churn_skey);
	ck_assert_msg(churn_index != NULL, "%s", tm_last_error());
	memset(churn_net, 0, sizeof churn_net);
	violations = 0;
	run_threads(nthreads, churn_work);
	ck_assert_msg(violations == 0, "%lu scans saw keys out of order or range, or a wrong "
	              "record", violations);
	ck_assert_msg(store_check(churn_table) == 0, "%s", tm_last_error());

	/* The survivors: keys whose committed inserts and deletes leave one. */
	static bool present[ALL_KEYS];
	size_t survivors = 0;
	for (unsigned k = 0; k < ALL_KEYS; k++) {
		int net = 0;
		for (unsigned t = 0; t < nthreads; t++)
			net += churn_net[t][k];
		ck_assert_msg(net == 0 || net == 1, "key %u: %d more inserts than deletes", k, net);
		present[k] = net == 1;
		survivors += present[k];
	}
	ck_assert_uint_eq(store_count(churn_table), survivors);

	store_table_t *rebuilt = store_table_create(&def);
	ck_assert_ptr_nonnull(rebuilt);
	ck_assert_ptr_nonnull(store_index_create(rebuilt, "by_grp", churn_skey));
	ck_assert_int_eq(tm_thread_enter(0), 0);
	static unsigned wrong;
	TM_BEGIN();
	wrong = 0;
	for (unsigned k = 0; k < ALL_KEYS; k++) {
		if ((store_get(churn_table, k) != NULL) != present[k])
			wrong++;
		if (present[k]) {
			item_t it;
			item_of(k, &it);
			store_insert(rebuilt, k, &it);
		}
	}
	TM_END();
	tm_thread_exit();
	ck_assert_msg(wrong == 0, "%u keys present where the operations left none or absent "
	              "where they left one", wrong);
	ck_assert_int_eq(store_check(rebuilt), 0);
	ck_assert_uint_eq(store_digest(churn_table), store_digest(rebuilt));
	store_table_destroy(rebuilt);
	store_table_destroy(churn_table);
	tm_shutdown();
}

START_TEST(churn_2)
{
	churn(2);
}
END_TEST

START_TEST(churn_8)
{
	churn(8);
}
END_TEST

/* ---- whole records under their guards (store_read_record, G1) ------------------ */

#define GRECS 16   /* accounts; record GRECS counts the transfers */

/* 100 bytes: six copies of a balance, so that a copy mixing two versions
 * of a record shows, then words no transaction writes (the record's last
 * stripe usually holds its guard too; writes kept out of it leave the
 * guard's stripe to store_update alone). */
typedef struct grec {
	int64_t w[6];
	uint64_t fixed[6];
	uint32_t tail;
} grec_t;
#define GREC_SIZE (offsetof(grec_t, tail) + sizeof(uint32_t))   /* no padding */
#define GREC_FIXED 0x5a5a5a5a5a5a5a5aull

static store_table_t *grec_table;
static unsigned long grec_transfers;   /* committed, counted after TM_END */

static bool grec_sound(const grec_t *r)
{
	for (unsigned i = 1; i < 6; i++)
		if (r->w[i] != r->w[0])
			return false;
	for (unsigned i = 0; i < 6; i++)
		if (r->fixed[i] != GREC_FIXED)
			return false;
	return r->tail == (uint32_t)GREC_FIXED;
}

static void grec_set(grec_t *r, int64_t v)
{
	for (unsigned i = 0; i < 6; i++)
		r->w[i] = v;
}

/* Add d to record k: as a whole record (store_read_record,
 * store_write_record) or field by field with TM_STORE, store_update
 * called between the fields (before or after the writes, store.h). */
static void grec_add(uint64_t k, int64_t d, bool whole)
{
	grec_t *rec = store_get(grec_table, k);
	if (whole) {
		grec_t c;
		store_read_record(grec_table, rec, &c);
		if (!grec_sound(&c))
			note_violation();
		grec_set(&c, c.w[0] + d);
		store_write_record(grec_table, rec, &c);
		return;
	}
	int64_t v = TM_LOAD(&rec->w[0]) + d;
	for (unsigned i = 0; i < 6; i++) {
		TM_STORE(&rec->w[i], v);
		if (i == 2)
			store_update(grec_table, rec);
	}
}

/* Every account read as a whole record: each sound, the balances summing
 * to 0 (checked inside the transaction: opacity). */
static void grec_audit(bool snapshot)
{
	TM_BEGIN();
	if (snapshot)
		tm_declare_read_only();   /* silo: a snapshot */
	int64_t sum = 0;
	bool bad = false;
	for (uint64_t k = 0; k < GRECS; k++) {
		grec_t c;
		const grec_t *rec = store_get(grec_table, k);
		store_read_record(grec_table, rec, &c);
		bad |= !grec_sound(&c);
		sum += c.w[0];
		/* Columns read again, aligned and not: the same view. */
		int64_t w[4];
		unsigned char u[50];
		store_read_fields(grec_table, rec, 8, sizeof w, w);
		store_read_fields(grec_table, rec, 3, sizeof u, u);
		for (unsigned i = 0; i < 4; i++)
			bad |= w[i] != c.w[0];
		bad |= memcmp(u, (const unsigned char *)&c + 3, sizeof u) != 0;
	}
	if (bad || sum != 0)
		note_violation();
	TM_END();
}

static void grec_work(unsigned id, unsigned nthreads)
{
	uint64_t rng = 0x2545f4914f6cdd1dull * (id + 1);
	unsigned ops = ops_per_thread(nthreads, 10000, 2000);
	for (unsigned i = 0; i < ops; i++) {
		unsigned p = (unsigned)(rng_next(&rng) % 100);
		if (p < 20) {
			grec_audit(p % 2);
			continue;
		}
		uint64_t a = rng_next(&rng) % GRECS, b = rng_next(&rng) % GRECS;
		int64_t d = (int64_t)(rng_next(&rng) % 100);
		bool whole = p < 60;
		TM_BEGIN();
		grec_add(a, -d, whole);
		grec_add(b, d, !whole);
		grec_add(GRECS, 1, whole);
		TM_END();
		__atomic_fetch_add(&grec_transfers, 1, __ATOMIC_RELAXED);
	}
}

static void guarded_records(unsigned nthreads)
{
	store_test_init();
	store_table_def_t def = { .name = "guarded", .record_size = GREC_SIZE,
	                          .kind = STORE_HASH, .capacity = GRECS + 1, .record_guard = 1 };
	_Static_assert(GREC_SIZE % 8 != 0, "a record ending inside a word");
	grec_table = store_table_create(&def);
	ck_assert_msg(grec_table != NULL, "%s", tm_last_error());
	ck_assert_int_eq(tm_thread_enter(0), 0);
	TM_BEGIN();
	for (uint64_t k = 0; k <= GRECS; k++) {
		grec_t r;
		memset(&r, 0, sizeof r);
		grec_set(&r, 0);
		for (unsigned i = 0; i < 6; i++)
			r.fixed[i] = GREC_FIXED;
		r.tail = (uint32_t)GREC_FIXED;
		ck_assert_ptr_nonnull(store_insert(grec_table, k, &r));
	}
	TM_END();
	tm_thread_exit();
	violations = 0;
	grec_transfers = 0;
	run_threads(nthreads, grec_work);
	ck_assert_msg(violations == 0, "%lu views of a torn record or a wrong total", violations);
	ck_assert_int_eq(tm_thread_enter(0), 0);
	grec_audit(false);
	grec_t count;
	TM_BEGIN();
	store_read_record(grec_table, store_get(grec_table, GRECS), &count);
	TM_END();
	tm_thread_exit();
	ck_assert_uint_eq(violations, 0);
	ck_assert(grec_sound(&count));
	ck_assert_uint_eq((uint64_t)count.w[0], grec_transfers);
	ck_assert_int_eq(store_check(grec_table), 0);
	store_table_destroy(grec_table);
	tm_shutdown();
}

START_TEST(guarded_records_2)
{
	guarded_records(2);
}
END_TEST

START_TEST(guarded_records_8)
{
	guarded_records(8);
}
END_TEST

/* ---- the guard of a node's word (access.h's guarded reads, B6) ------------------- */

#if defined(POTM_BACKEND_TL2) || defined(POTM_BACKEND_SILO)
static uint64_t guard_word[8] __attribute__((aligned(64)));
static unsigned guard_step;
static int guard_on, guard_before, guard_after;
static volatile int guard_attempts;

static void guard_await(unsigned step)
{
	while (__atomic_load_n(&guard_step, __ATOMIC_ACQUIRE) < step)
		sched_yield();
}

/* Thread 0 takes a guard on guard_word[0] and, in the first attempt,
 * looks at it before and after thread 1 commits a write to that word. */
static void guard_work(unsigned id, unsigned n)
{
	(void)n;
	if (id == 1) {
		guard_await(1);
		TM_BEGIN();
		TM_STORE(&guard_word[0], TM_LOAD(&guard_word[0]) + 1);
		TM_END();
		__atomic_store_n(&guard_step, 2, __ATOMIC_RELEASE);
		return;
	}
	TM_BEGIN();
	tm_guard_t g;
	(void)tm_read_guard_u64_(&guard_word[0], &g);
	if (guard_attempts++ == 0) {
		guard_on = g.lock != NULL;
		if (g.lock != NULL) {
			(void)__atomic_load_n(&guard_word[1], __ATOMIC_RELAXED);   /* a plain read */
			guard_before = tm_guard_holds_(&g);
		}
		__atomic_store_n(&guard_step, 1, __ATOMIC_RELEASE);
		guard_await(2);
		if (g.lock != NULL)
			guard_after = tm_guard_holds_(&g);
	}
	TM_END();
}

/* A guard taken by a transaction's read of a word it has not written
 * holds until another commit writes that word, and no longer. */
START_TEST(guard_word_moves)
{
	store_test_init();
	guard_step = 0;
	guard_attempts = 0;
	guard_on = guard_before = guard_after = -1;
	run_threads(2, guard_work);
	ck_assert_msg(guard_on == 1, "no guard on an unwritten word");
	ck_assert_msg(guard_before == 1, "the guard failed with nothing written");
	ck_assert_msg(guard_after == 0, "the guard held across a commit that wrote its word");
	ck_assert_uint_eq(guard_word[0], 1);
	tm_shutdown();
}
END_TEST
#endif

int main(void)
{
	if (single_thread_backend()) {
		printf("skipped: seq runs one thread only\n");
		return 77;
	}
	Suite *s = suite_create("store-conc-" POTM_BACKEND_NAME);
	TCase *tc = tcase_create("threads");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, bank_hash_2);
	tcase_add_test(tc, bank_hash_8);
	tcase_add_test(tc, bank_ordered_2);
	tcase_add_test(tc, bank_ordered_8);
	tcase_add_test(tc, churn_2);
	tcase_add_test(tc, churn_8);
	tcase_add_test(tc, guarded_records_2);
	tcase_add_test(tc, guarded_records_8);
#if defined(POTM_BACKEND_TL2) || defined(POTM_BACKEND_SILO)
	tcase_add_test(tc, guard_word_moves);
#endif
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
