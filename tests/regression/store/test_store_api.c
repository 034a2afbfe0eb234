/*
 * The record store's API on every backend, one thread: creation errors
 * (NULL and a message from tm_last_error()), misuse that aborts (an
 * operation outside a transaction, a scan of a hash table, a secondary key
 * twice, a change a table's seal forbids, a bad seal level), sealed
 * tables answering every lookup as before their seal, and updated in
 * place under STORE_SEAL_KEYS, byte copies at every alignment and length touching nothing
 * outside their range, whole records read and written on guarded tables
 * (the attempt's own writes seen, one read-set entry a record where reads
 * are validated), digests (equal for equal contents reached in
 * different orders, different for different contents), the largest
 * record, a cancelled insert leaving no trace, and an ordered table
 * emptying back to an empty root.
 */
#include "store_test.h"
#include "store_internal.h"   /* white box: the empty root */

#include <signal.h>

#include "check_run.h"

typedef struct rec {
	uint64_t val;
	uint64_t key_copy;
	uint32_t grp;
	uint32_t tail;
} rec_t;

static store_table_t *make_table(const char *name, store_kind_t kind, size_t rs, size_t cap)
{
	store_table_def_t def = { .name = name, .record_size = rs, .kind = kind,
	                          .capacity = cap };
	store_table_t *t = store_table_create(&def);
	ck_assert_msg(t != NULL, "store_table_create(%s): %s", name, tm_last_error());
	return t;
}

/* ---- creation errors ---------------------------------------------------------- */

static void expect_create_error(const store_table_def_t *def, const char *words)
{
	ck_assert_ptr_null(store_table_create(def));
	ck_assert_msg(strstr(tm_last_error(), words) != NULL,
	              "expected \"%s\" in the message, got \"%s\"", words, tm_last_error());
}

static uint64_t grp_key(const void *rec, uint64_t pkey)
{
	const rec_t *r = rec;   /* grp never changes after the insert */
	return (uint64_t)r->grp << 40 | (pkey & ((1ull << 40) - 1));
}

START_TEST(creation_errors)
{
	store_test_start();
	expect_create_error(NULL, "def is NULL");
	store_table_def_t def = { .name = NULL, .record_size = 8, .kind = STORE_ORDERED };
	expect_create_error(&def, "name");
	def.name = "t";
	def.record_size = 0;
	expect_create_error(&def, "record_size 0");
	def.record_size = STORE_RECORD_MAX + 1;
	expect_create_error(&def, "record_size");
	def.record_size = 8;
	def.kind = (store_kind_t)7;
	expect_create_error(&def, "kind");
	def.kind = STORE_HASH;
	def.capacity = (size_t)STORE_CAPACITY_MAX + 1;
	expect_create_error(&def, "capacity");
	def.capacity = 0;
	expect_create_error(&def, "capacity 0");

	/* An index only on an empty table. */
	store_table_t *t = make_table("orders", STORE_ORDERED, sizeof(rec_t), 0);
	ck_assert_str_eq(store_table_name(t), "orders");
	ck_assert_uint_eq(store_record_size(t), sizeof(rec_t));
	rec_t r = { .val = 1, .key_copy = 5, .grp = 3 };
	TM_BEGIN();
	store_insert(t, 5, &r);
	TM_END();
	ck_assert_ptr_null(store_index_create(t, "by_grp", grp_key));
	ck_assert_msg(strstr(tm_last_error(), "empty tables only") != NULL, "%s", tm_last_error());
	ck_assert_ptr_null(store_index_create(t, "by_grp", NULL));
	ck_assert_msg(strstr(tm_last_error(), "key function") != NULL, "%s", tm_last_error());
	TM_BEGIN();
	store_delete(t, 5);
	TM_END();
	ck_assert_ptr_nonnull(store_index_create(t, "by_grp", grp_key));
	ck_assert_int_eq(store_check(t), 0);
	store_table_destroy(t);
	store_test_stop();
}
END_TEST

/* ---- misuse: reported, the process aborts --------------------------------------- */

START_TEST(get_outside_tx_aborts)
{
	store_test_start();
	store_table_t *t = make_table("t", STORE_ORDERED, 8, 0);
	store_get(t, 1);
}
END_TEST

START_TEST(insert_outside_tx_aborts)
{
	store_test_start();
	store_table_t *t = make_table("t", STORE_HASH, 8, 16);
	uint64_t v = 0;
	store_insert(t, 1, &v);
}
END_TEST

START_TEST(read_bytes_outside_tx_aborts)
{
	store_test_start();
	char buf[8];
	uint64_t word = 0;
	store_read_bytes(buf, &word, sizeof buf);
}
END_TEST

static int count_visit(uint64_t key, void *rec, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

START_TEST(scan_of_hash_table_aborts)
{
	store_test_start();
	store_table_t *t = make_table("t", STORE_HASH, 8, 16);
	int n = 0;
	TM_BEGIN();
	store_scan(t, 0, UINT64_MAX, STORE_ASC, count_visit, &n);
	TM_END();
}
END_TEST

static uint64_t constant_key(const void *rec, uint64_t pkey)
{
	return 42;   /* not unique: a misuse */
}

START_TEST(duplicate_secondary_key_aborts)
{
	store_test_start();
	store_table_t *t = make_table("t", STORE_ORDERED, 8, 0);
	ck_assert_ptr_nonnull(store_index_create(t, "bad", constant_key));
	uint64_t v = 0;
	TM_BEGIN();
	store_insert(t, 1, &v);
	store_insert(t, 2, &v);
	TM_END();
}
END_TEST

/* ---- sealed tables ------------------------------------------------------------- */

/* What every lookup of seal_probe found (globals: read after the
 * transaction). */
typedef struct seal_seen {
	uint64_t gets, missing, scan_sum, scan_n, first, last, ix_get, ix_n, ix_first, ix_last;
	uint64_t hash_gets, hash_missing;
} seal_seen_t;

static seal_seen_t seen;

static int sum_visit(uint64_t key, void *rec, void *arg)
{
	(void)arg;
	seen.scan_sum += key * 31 + TM_LOAD(&((rec_t *)rec)->val);
	seen.scan_n++;
	return 0;
}

static int count_ix_visit(uint64_t key, void *rec, void *arg)
{
	(void)key;
	(void)arg;
	seen.ix_n += ((rec_t *)rec)->key_copy;   /* frozen: plain C */
	return 0;
}

/* Every lookup a sealed table answers, on t (ordered, index ix on grp)
 * and h (hash), in one transaction. */
static void seal_probe(store_table_t *t, store_index_t *ix, store_table_t *h)
{
	memset(&seen, 0, sizeof seen);
	TM_BEGIN();
	for (uint64_t k = 0; k < 1000; k++) {
		rec_t *r = store_get(t, k);
		if (r != NULL)
			seen.gets += k ^ TM_LOAD(&r->val);
		else
			seen.missing++;
		rec_t *q = store_get(h, k);
		if (q != NULL) {
			rec_t copy;
			store_read_frozen(&copy, q, sizeof copy);
			seen.hash_gets += k ^ copy.val;
		} else {
			seen.hash_missing++;
		}
	}
	store_scan(t, 100, 700, STORE_DESC, sum_visit, NULL);
	uint64_t key = 0;
	if (store_first(t, 10, 500, &key) != NULL)
		seen.first = key;
	if (store_last(t, 10, 500, &key) != NULL)
		seen.last = key;
	rec_t *g = store_index_get(ix, grp_key(&(rec_t){ .grp = 3 }, 3 * 3));
	seen.ix_get = g != NULL ? g->key_copy : UINT64_MAX;
	store_index_scan(ix, grp_key(&(rec_t){ .grp = 3 }, 0),
	                 grp_key(&(rec_t){ .grp = 3 }, (1ull << 40) - 1), STORE_ASC,
	                 count_ix_visit, NULL);
	if (store_index_first(ix, grp_key(&(rec_t){ .grp = 5 }, 0),
	                      grp_key(&(rec_t){ .grp = 5 }, (1ull << 40) - 1), &key) != NULL)
		seen.ix_first = key;
	if (store_index_last(ix, grp_key(&(rec_t){ .grp = 5 }, 0),
	                     grp_key(&(rec_t){ .grp = 5 }, (1ull << 40) - 1), &key) != NULL)
		seen.ix_last = key;
	TM_END();
}

static store_table_t *sealed_t, *sealed_h;
static store_index_t *sealed_ix;

/* An ordered table with an index and a hash table, 300 records each
 * (keys 0, 3, 6, ...), not sealed yet. */
static void seal_fill(void)
{
	sealed_t = make_table("sealed-ordered", STORE_ORDERED, sizeof(rec_t), 0);
	sealed_ix = store_index_create(sealed_t, "grp", grp_key);
	ck_assert_ptr_nonnull(sealed_ix);
	sealed_h = make_table("sealed-hash", STORE_HASH, sizeof(rec_t), 64);
	TM_BEGIN();
	for (uint64_t i = 0; i < 300; i++) {
		rec_t r = { .val = i * i + 1, .key_copy = 3 * i, .grp = (uint32_t)(i % 7) };
		store_insert(sealed_t, 3 * i, &r);
		store_insert(sealed_h, 3 * i, &r);
	}
	TM_END();
}

START_TEST(sealed_tables_answer_as_before)
{
	store_test_start();
	seal_fill();
	ck_assert_int_eq(store_table_sealed(sealed_t), STORE_UNSEALED);
	seal_probe(sealed_t, sealed_ix, sealed_h);
	seal_seen_t before = seen;
	ck_assert_uint_eq(before.missing, 700);   /* keys 0, 3, ..., 897 */
	ck_assert_uint_gt(before.scan_n, 0);
	ck_assert_uint_ne(before.ix_n, 0);
	store_table_seal(sealed_t, STORE_SEAL_KEYS);
	store_table_seal(sealed_h, STORE_SEAL_ALL);
	store_table_seal(sealed_h, STORE_SEAL_ALL);   /* twice: harmless */
	ck_assert_int_eq(store_table_sealed(sealed_t), STORE_SEAL_KEYS);
	ck_assert_int_eq(store_table_sealed(sealed_h), STORE_SEAL_ALL);
	seal_probe(sealed_t, sealed_ix, sealed_h);
	ck_assert_mem_eq(&seen, &before, sizeof seen);

	/* STORE_SEAL_KEYS: records are still updated in place, and the
	 * lookups see the update. */
	TM_BEGIN();
	rec_t *r = store_get(sealed_t, 9);
	TM_STORE(&r->val, TM_LOAD(&r->val) + 1000);
	store_update(sealed_t, r);
	TM_END();
	seal_probe(sealed_t, sealed_ix, sealed_h);
	ck_assert_uint_eq(seen.gets, before.gets - (9 ^ (3 * 3 + 1)) + (9 ^ (3 * 3 + 1 + 1000)));
	ck_assert_uint_eq(seen.scan_sum, before.scan_sum);   /* 9 is outside [100, 700] */

	/* Unsealed again: changes are allowed. */
	store_table_seal(sealed_h, STORE_UNSEALED);
	TM_BEGIN();
	ck_assert_int_eq(store_delete(sealed_h, 3), 1);
	TM_END();
	ck_assert_int_eq(store_check(sealed_t), 0);
	ck_assert_int_eq(store_check(sealed_h), 0);
	ck_assert_uint_eq(store_count(sealed_h), 299);
	store_table_destroy(sealed_t);
	store_table_destroy(sealed_h);
	store_test_stop();
}
END_TEST

START_TEST(insert_into_sealed_aborts)
{
	store_test_start();
	seal_fill();
	store_table_seal(sealed_t, STORE_SEAL_KEYS);
	rec_t r = { .val = 1 };
	TM_BEGIN();
	store_insert(sealed_t, 1, &r);
	TM_END();
}
END_TEST

START_TEST(delete_from_sealed_aborts)
{
	store_test_start();
	seal_fill();
	store_table_seal(sealed_h, STORE_SEAL_KEYS);
	TM_BEGIN();
	store_delete(sealed_h, 3);
	TM_END();
}
END_TEST

START_TEST(update_of_sealed_aborts)
{
	store_test_start();
	seal_fill();
	store_table_seal(sealed_t, STORE_SEAL_ALL);
	TM_BEGIN();
	store_update(sealed_t, store_get(sealed_t, 3));
	TM_END();
}
END_TEST

START_TEST(bad_seal_level_aborts)
{
	store_test_start();
	seal_fill();
	store_table_seal(sealed_t, (store_seal_t)7);
}
END_TEST

/* ---- byte copies --------------------------------------------------------------- */

/* Write every range [off, off + len) of a record of size rs from a source
 * at every misalignment, and read back the whole record and the range into
 * a misaligned buffer: the range changed, nothing else. */
static void byte_copies(size_t rs)
{
	store_table_t *t = make_table("bytes", STORE_HASH, rs, 4);
	unsigned char model[128], src[160], back[160];
	ck_assert_uint_le(rs, sizeof model);
	memset(model, 0xa5, rs);
	TM_BEGIN();
	store_insert(t, 7, model);
	TM_END();
	unsigned pattern = 1;
	for (size_t off = 0; off <= rs; off++) {
		for (size_t len = 0; off + len <= rs; len++) {
			size_t mis = (off + len) % 8;
			for (size_t i = 0; i < len; i++)
				src[mis + i] = (unsigned char)(pattern * 31 + i * 7);
			pattern++;
			memcpy(model + off, src + mis, len);
			memset(back, 0, sizeof back);
			TM_BEGIN();
			unsigned char *rec = store_get(t, 7);
			store_write_bytes(rec + off, src + mis, len);
			store_read_bytes(back, rec, rs);
			store_read_bytes(back + rs + 1 + mis, rec + off, len);
			TM_END();
			ck_assert_msg(memcmp(back, model, rs) == 0, "record differs after writing "
			              "[%zu, %zu) of %zu bytes", off, off + len, rs);
			ck_assert_msg(memcmp(back + rs + 1 + mis, model + off, len) == 0,
			              "range [%zu, %zu) read back wrong", off, off + len);
		}
	}
	ck_assert_int_eq(store_check(t), 0);
	store_table_destroy(t);
}

START_TEST(bytes_every_alignment)
{
	store_test_start();
	byte_copies(64);
	byte_copies(29);
	store_test_stop();
}
END_TEST

/* ---- whole records under a guard ------------------------------------------------ */

/* A record of rs bytes whose byte i is seed + i. */
static void pattern_fill(unsigned char *b, size_t rs, unsigned seed)
{
	for (size_t i = 0; i < rs; i++)
		b[i] = (unsigned char)(seed + i);
}

/* store_read_record and store_write_record on a guarded table and on a
 * plain one of record size rs: a read sees the committed record, the
 * attempt's own writes (a field written with TM_STORE before and after
 * store_update, a whole record written), and the bytes after the record
 * (the guard's padding) never leak into the copy; both tables end with
 * equal digests, so the guard is no part of the contents. */
static void records_under_guard(size_t rs)
{
	store_table_t *t[2];
	for (int g = 0; g < 2; g++) {
		store_table_def_t def = { .name = g ? "guarded" : "plain", .record_size = rs,
		                          .kind = g ? STORE_HASH : STORE_ORDERED,
		                          .capacity = g ? 8 : 0, .record_guard = g };
		t[g] = store_table_create(&def);
		ck_assert_msg(t[g] != NULL, "%s", tm_last_error());
	}
	unsigned char model[64], back[64 + 8];
	ck_assert_uint_le(rs, sizeof model);
	for (int g = 0; g < 2; g++) {
		pattern_fill(model, rs, 1);
		TM_BEGIN();
		store_insert(t[g], 5, model);
		TM_END();
		memset(back, 0xee, sizeof back);
		TM_BEGIN();
		store_read_record(t[g], store_get(t[g], 5), back);
		TM_END();
		ck_assert_msg(memcmp(back, model, rs) == 0, "%s: the inserted record read back wrong",
		              store_table_name(t[g]));
		ck_assert_msg(back[rs] == 0xee, "%s: a byte past the record was copied",
		              store_table_name(t[g]));

		/* A byte written before store_update, then one after it, then the
		 * whole record: each read sees what the attempt wrote. */
		unsigned char whole[64];
		pattern_fill(whole, rs, 77);
		TM_BEGIN();
		unsigned char *rec = store_get(t[g], 5);
		TM_STORE(&rec[0], (unsigned char)0x42);
		store_read_record(t[g], rec, back);
		ck_assert_uint_eq(back[0], 0x42);
		ck_assert(memcmp(back + 1, model + 1, rs - 1) == 0);
		store_update(t[g], rec);
		TM_STORE(&rec[rs - 1], (unsigned char)0x43);
		store_read_record(t[g], rec, back);
		ck_assert_uint_eq(back[0], rs > 1 ? 0x42 : 0x43);
		ck_assert_uint_eq(back[rs - 1], 0x43);
		store_write_record(t[g], rec, whole);
		store_read_record(t[g], rec, back);
		ck_assert(memcmp(back, whole, rs) == 0);
		TM_END();
		TM_BEGIN();
		store_read_record(t[g], store_get(t[g], 5), back);
		TM_END();
		ck_assert_msg(memcmp(back, whole, rs) == 0, "%s: the committed record differs",
		              store_table_name(t[g]));
	}
	ck_assert_uint_eq(store_digest(t[0]), store_digest(t[1]));
	for (int g = 0; g < 2; g++) {
		ck_assert_int_eq(store_check(t[g]), 0);
		store_table_destroy(t[g]);
	}
}

START_TEST(whole_records)
{
	store_test_start();
	records_under_guard(1);
	records_under_guard(13);
	records_under_guard(48);
	store_test_stop();
}
END_TEST

/* Ranges [off, off + n) of a guarded record of rs bytes read with
 * store_read_fields into a misaligned buffer: the model's bytes, and
 * nothing written around them; then the same in attempts that write a
 * byte first (read back through the write set). */
static void fields_under_guard(size_t rs)
{
	store_table_def_t def = { .name = "fields", .record_size = rs, .kind = STORE_HASH,
	                          .capacity = 4, .record_guard = 1 };
	store_table_t *t = store_table_create(&def);
	ck_assert_msg(t != NULL, "%s", tm_last_error());
	unsigned char model[300], back[300 + 16];
	ck_assert_uint_le(rs, sizeof model);
	pattern_fill(model, rs, 9);
	TM_BEGIN();
	store_insert(t, 1, model);
	TM_END();
	for (int written = 0; written < 2; written++) {
		/* Every offset and length of a small record; of a large one a
		 * stride of 7, which meets every alignment. */
		size_t step = rs > 64 ? 7 : 1;
		for (size_t off = 0; off <= rs; off += step) {
			for (size_t n = 0; off + n <= rs; n += step) {
				size_t mis = (off + n) % 8;
				memset(back, 0xee, sizeof back);
				TM_BEGIN();
				unsigned char *rec = store_get(t, 1);
				if (written) {
					TM_STORE(&rec[rs / 2], (unsigned char)0x77);
					store_update(t, rec);
				}
				store_read_fields(t, rec, off, n, back + mis);
				TM_END();
				unsigned char want[300];
				memcpy(want, model, rs);
				if (written)
					want[rs / 2] = 0x77;
				ck_assert_msg(memcmp(back + mis, want + off, n) == 0,
				              "bytes [%zu, %zu) of %zu read back wrong%s", off, off + n,
				              rs, written ? " after a write" : "");
				ck_assert_msg((mis == 0 || back[mis - 1] == 0xee) && back[mis + n] == 0xee,
				              "store_read_fields wrote outside [%zu, %zu)", off, off + n);
			}
		}
	}
	ck_assert_int_eq(store_check(t), 0);
	store_table_destroy(t);
}

START_TEST(fields_of_guarded_records)
{
	store_test_start();
	fields_under_guard(29);
	fields_under_guard(48);
	fields_under_guard(280);   /* ranges wider than the bounce buffer */
	store_test_stop();
}
END_TEST

START_TEST(fields_beyond_record_abort)
{
	store_test_start();
	store_table_def_t def = { .name = "r", .record_size = 12, .kind = STORE_HASH,
	                          .capacity = 4, .record_guard = 1 };
	store_table_t *t = store_table_create(&def);
	unsigned char buf[16];
	TM_BEGIN();
	store_read_fields(t, store_insert(t, 1, NULL), 8, 5, buf);
	TM_END();
}
END_TEST

#if defined(POTM_BACKEND_TL2) || defined(POTM_BACKEND_SILO)
/* Where reads are validated, a guarded record costs the transaction one
 * read-set entry (its guard's stripe), an unguarded one an entry per
 * stripe it spans. */
START_TEST(guarded_record_is_one_read)
{
	store_test_start();
	store_table_t *t[2];
	uint64_t reads[2];
	for (int g = 0; g < 2; g++) {
		store_table_def_t def = { .name = "r", .record_size = 200, .kind = STORE_HASH,
		                          .capacity = 64, .record_guard = g };
		t[g] = store_table_create(&def);
		ck_assert_ptr_nonnull(t[g]);
		TM_BEGIN();
		for (uint64_t k = 0; k < 16; k++)
			store_insert(t[g], k, NULL);
		TM_END();
		store_table_seal(t[g], STORE_SEAL_KEYS);   /* lookups read nothing */
		tm_stats_reset();
		unsigned char buf[200];
		TM_BEGIN();
		for (uint64_t k = 0; k < 16; k++)
			store_read_record(t[g], store_get(t[g], k), buf);
		TM_END();
		tm_stats_t st;
		tm_stats(&st);
		reads[g] = st.reads;
	}
	ck_assert_msg(reads[1] == 16, "16 guarded records took %llu reads",
	              (unsigned long long)reads[1]);
	ck_assert_msg(reads[0] >= 16 * 4, "16 records of 200 bytes took only %llu reads "
	              "without a guard", (unsigned long long)reads[0]);
	for (int g = 0; g < 2; g++)
		store_table_destroy(t[g]);
	store_test_stop();
}
END_TEST
#endif

START_TEST(read_record_outside_tx_aborts)
{
	store_test_start();
	store_table_def_t def = { .name = "r", .record_size = 8, .kind = STORE_HASH,
	                          .capacity = 4, .record_guard = 1 };
	store_table_t *t = store_table_create(&def);
	void *rec = NULL;
	TM_BEGIN();
	rec = store_insert(t, 1, NULL);
	TM_END();
	uint64_t v;
	store_read_record(t, rec, &v);
}
END_TEST

START_TEST(write_record_of_sealed_aborts)
{
	store_test_start();
	store_table_def_t def = { .name = "r", .record_size = 8, .kind = STORE_HASH,
	                          .capacity = 4, .record_guard = 1 };
	store_table_t *t = store_table_create(&def);
	TM_BEGIN();
	store_insert(t, 1, NULL);
	TM_END();
	store_table_seal(t, STORE_SEAL_ALL);
	uint64_t v = 3;
	TM_BEGIN();
	store_write_record(t, store_get(t, 1), &v);
	TM_END();
}
END_TEST

/* ---- digests ------------------------------------------------------------------- */

static void fill(rec_t *r, uint64_t key)
{
	memset(r, 0, sizeof *r);   /* the padding too: digests hash it */
	r->val = test_mix(key);
	r->key_copy = key;
	r->grp = (uint32_t)(key % 5);
}

/* Insert keys[0..n) in the order of a permutation drawn from seed, with
 * detours: a key inserted, deleted and inserted again, a key that never
 * stays. */
static void load_in_order(store_table_t *t, const uint64_t *keys, size_t n, uint64_t seed)
{
	size_t *perm = malloc(n * sizeof *perm);
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_next(&seed) % i;
		size_t tmp = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = tmp;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = keys[perm[i]];
		rec_t r, junk;
		fill(&r, k);
		fill(&junk, k);
		junk.val ^= 1;
		TM_BEGIN();
		if (i % 3 == 0) {
			ck_assert_ptr_nonnull(store_insert(t, k, &junk));
			ck_assert_int_eq(store_delete(t, k), 1);
		}
		ck_assert_ptr_nonnull(store_insert(t, k, &r));
		ck_assert_ptr_null(store_insert(t, k, &junk));   /* present: nothing changes */
		if (i % 5 == 0) {
			ck_assert_ptr_nonnull(store_insert(t, k + 1000000, &junk));
			ck_assert_int_eq(store_delete(t, k + 1000000), 1);
		}
		TM_END();
	}
	free(perm);
}

typedef struct walk_acc {
	size_t n, stop_at;
	uint64_t key_sum;
	uint64_t prev;            /* ordered tables: keys come in order */
	bool ordered, in_order;
} walk_acc_t;

static int walk_visit(uint64_t key, void *rec, void *arg)
{
	walk_acc_t *w = arg;
	ck_assert_uint_eq(((rec_t *)rec)->key_copy, key);
	if (w->ordered && w->n > 0 && key <= w->prev)
		w->in_order = false;
	w->prev = key;
	w->key_sum += key;
	return ++w->n == w->stop_at ? 7 : 0;
}

static void digests(store_kind_t kind)
{
	enum { N = 600 };
	uint64_t keys[N];
	uint64_t s = 12345;
	for (size_t i = 0; i < N; i++)
		keys[i] = i < 3 ? (uint64_t[]){ 0, UINT64_MAX, 1 }[i] : rng_next(&s) % 100000;
	/* distinct keys */
	for (size_t i = 3; i < N; i++)
		keys[i] = keys[i] * 1000 + i;
	store_table_t *a = make_table("a", kind, sizeof(rec_t), 64);
	store_table_t *b = make_table("b", kind, sizeof(rec_t), 1024);
	store_index_t *ix = store_index_create(b, "by_grp", grp_key);
	ck_assert_ptr_nonnull(ix);
	store_table_t *empty = make_table("empty", kind, sizeof(rec_t), 64);
	uint64_t d_empty = store_digest(empty);
	load_in_order(a, keys, N, 1);
	load_in_order(b, keys, N, 2);
	ck_assert_int_eq(store_check(a), 0);
	ck_assert_int_eq(store_check(b), 0);
	ck_assert_uint_eq(store_count(a), N);
	ck_assert_uint_eq(store_count(b), N);
	uint64_t d = store_digest(a);
	ck_assert_uint_eq(d, store_digest(b));
	ck_assert_uint_ne(d, d_empty);

	/* store_walk: every record once (in key order if ordered), and a
	 * visitor's non-zero value stops it and is returned. */
	uint64_t key_sum = 0;
	for (size_t i = 0; i < N; i++)
		key_sum += keys[i];
	walk_acc_t w = { .ordered = kind == STORE_ORDERED, .in_order = true };
	ck_assert_int_eq(store_walk(b, walk_visit, &w), 0);
	ck_assert_uint_eq(w.n, N);
	ck_assert_uint_eq(w.key_sum, key_sum);
	ck_assert(w.in_order);
	walk_acc_t stop = { .stop_at = 10 };
	ck_assert_int_eq(store_walk(a, walk_visit, &stop), 7);
	ck_assert_uint_eq(stop.n, 10);

	/* One byte of one record. */
	TM_BEGIN();
	rec_t *r = store_get(b, keys[7]);
	TM_STORE(&r->tail, 1u);
	TM_END();
	uint64_t d1 = store_digest(b);
	ck_assert_uint_ne(d1, d);
	TM_BEGIN();
	rec_t *r2 = store_get(b, keys[7]);
	TM_STORE(&r2->tail, 0u);
	TM_END();
	ck_assert_uint_eq(store_digest(b), d);

	/* One record fewer; the same bytes under another key. */
	rec_t moved;
	TM_BEGIN();
	rec_t *r3 = store_get(b, keys[9]);
	store_read_bytes(&moved, r3, sizeof moved);
	ck_assert_int_eq(store_delete(b, keys[9]), 1);
	TM_END();
	uint64_t d2 = store_digest(b);
	ck_assert_uint_ne(d2, d);
	ck_assert_uint_ne(d2, d1);
	TM_BEGIN();
	ck_assert_ptr_nonnull(store_insert(b, keys[9] + 1, &moved));
	TM_END();
	ck_assert_uint_ne(store_digest(b), d);
	ck_assert_uint_ne(store_digest(b), d2);
	ck_assert_int_eq(store_check(b), 0);

	store_table_destroy(a);
	store_table_destroy(b);
	store_table_destroy(empty);
}

START_TEST(digest_order_independent)
{
	store_test_start();
	digests(STORE_ORDERED);
	digests(STORE_HASH);
	store_test_stop();
}
END_TEST

/* Results of transactions, read after them (globals: no volatile needed). */
static void *out_ptr;
static uint64_t out_key;

/* ---- the largest record; a cancelled insert ------------------------------------ */

START_TEST(largest_record)
{
	store_test_start();
	store_table_t *t = make_table("big", STORE_ORDERED, STORE_RECORD_MAX, 0);
	unsigned char *src = malloc(STORE_RECORD_MAX), *back = malloc(STORE_RECORD_MAX);
	for (size_t i = 0; i < STORE_RECORD_MAX; i++)
		src[i] = (unsigned char)(i * 13);
	TM_BEGIN();
	for (uint64_t k = 0; k < 20; k++)
		ck_assert_ptr_nonnull(store_insert(t, k, src));
	store_read_bytes(back, store_get(t, 19), STORE_RECORD_MAX);
	TM_END();
	ck_assert(memcmp(src, back, STORE_RECORD_MAX) == 0);
	ck_assert_int_eq(store_check(t), 0);
	ck_assert_uint_eq(store_count(t), 20);
	free(src);
	free(back);
	store_table_destroy(t);
	store_test_stop();
}
END_TEST

START_TEST(cancelled_insert_leaves_nothing)
{
	store_test_start();
	store_table_t *t = make_table("c", STORE_ORDERED, sizeof(rec_t), 0);
	store_index_t *ix = store_index_create(t, "by_grp", grp_key);
	rec_t r;
	TM_BEGIN();
	for (uint64_t k = 0; k < 100; k++) {
		fill(&r, k);
		store_insert(t, k, &r);
	}
	TM_END();
	uint64_t d = store_digest(t);
	/* Splits, a new root level, deletes emptying leaves: all undone. */
	TM_BEGIN();
	for (uint64_t k = 100; k < 400; k++) {
		fill(&r, k);
		store_insert(t, k, &r);
	}
	for (uint64_t k = 0; k < 50; k++)
		store_delete(t, k);
	tm_cancel();
	TM_END();
	ck_assert(tm_was_cancelled());
	ck_assert_int_eq(store_check(t), 0);
	ck_assert_uint_eq(store_count(t), 100);
	ck_assert_uint_eq(store_digest(t), d);
	rec_t probe;
	fill(&probe, 300);
	TM_BEGIN();
	out_ptr = store_index_get(ix, grp_key(&probe, 300));
	TM_END();
	ck_assert_ptr_null(out_ptr);
	store_table_destroy(t);
	store_test_stop();
}
END_TEST

/* ---- runs of inserts in one transaction (btree.c's finger) ------------------
 * Ascending, descending and gap-filling inserts in one transaction, with
 * splits and deletes among them and an attempt restarted after it
 * inserted (its leaves are freed): the next insert into a tree may go
 * straight to the leaf the last one went to, and must not where the key
 * lies outside that leaf or the structure has changed. */

#define RUN_KEYS 3000
static bool run_present[RUN_KEYS];
static volatile unsigned run_attempts;

static void run_insert(store_table_t *t, uint64_t k)
{
	rec_t r;
	fill(&r, k);
	ck_assert_ptr_nonnull(store_insert(t, k, &r));
	ck_assert_ptr_null(store_insert(t, k, &r));   /* now present */
	run_present[k] = true;
}

START_TEST(insert_runs_in_one_transaction)
{
	store_test_start();
	/* No secondary index: its inserts would take the finger away from
	 * the table's tree after each insert. */
	store_table_t *t = make_table("runs", STORE_ORDERED, sizeof(rec_t), 0);
	memset(run_present, 0, sizeof run_present);
	TM_BEGIN();
	for (uint64_t k = 1000; k < 2000; k += 2)
		run_insert(t, k);
	for (uint64_t k = 2999; k >= 2000; k--)
		run_insert(t, k);
	for (uint64_t k = 1001; k < 2000; k += 2)
		run_insert(t, k);
	for (uint64_t k = 998; k > 900; k -= 7)   /* below the last leaf's range */
		run_insert(t, k);
	for (uint64_t k = 1000; k < 3000; k += 7) {
		ck_assert_int_eq(store_delete(t, k), 1);
		run_present[k] = false;
	}
	for (uint64_t k = 0; k < 1000; k += 3)
		if (!run_present[k])
			run_insert(t, k);
	for (uint64_t k = 1000; k < 3000; k += 14)
		run_insert(t, k);
	TM_END();
	/* A retried attempt: the first one inserts, then restarts. */
	if (!single_thread_backend()) {
		run_attempts = 0;
		TM_BEGIN();
		for (uint64_t k = 1; k < 900; k += 3) {
			rec_t r;
			fill(&r, k);
			ck_assert_ptr_nonnull(store_insert(t, k, &r));
		}
		if (run_attempts++ == 0)
			tm_restart();
		for (uint64_t k = 2; k < 900; k += 3) {
			rec_t r;
			fill(&r, k);
			ck_assert_ptr_nonnull(store_insert(t, k, &r));
		}
		TM_END();
		for (uint64_t k = 1; k < 900; k += 3)
			run_present[k] = run_present[k + 1] = true;
	}
	/* A leaf with room, then a key below its range (and one above). */
	TM_BEGIN();
	for (uint64_t k = 1500; k < 1530; k++)
		if (run_present[k])
			store_delete(t, k);
	store_delete(t, 60);
	store_delete(t, 2990);
	TM_END();
	for (uint64_t k = 1500; k < 1530; k++)
		run_present[k] = false;
	run_present[60] = run_present[2990] = false;
	TM_BEGIN();
	run_insert(t, 1505);
	run_insert(t, 60);
	run_insert(t, 1507);
	run_insert(t, 2990);
	TM_END();
	ck_assert_int_eq(store_check(t), 0);
	size_t n = 0;
	for (uint64_t k = 0; k < RUN_KEYS; k++)
		n += run_present[k];
	ck_assert_uint_eq(store_count(t), n);
	for (uint64_t k = 0; k < RUN_KEYS; k++) {
		rec_t want;
		fill(&want, k);
		TM_BEGIN();
		out_ptr = store_get(t, k);
		TM_END();
		if (run_present[k])
			ck_assert_msg(out_ptr != NULL && memcmp(out_ptr, &want, sizeof want) == 0,
			              "key %llu", (unsigned long long)k);
		else
			ck_assert_msg(out_ptr == NULL, "key %llu", (unsigned long long)k);
	}
	store_table_destroy(t);
	store_test_stop();
}
END_TEST

/* Inserts into the gaps of one leaf, ascending: each goes right after
 * the one before without a search while its key lies below the key
 * ranked after that one, and a key equal to that next key is found
 * present there (the insert changes nothing). */
static volatile void *gap_got[16];

START_TEST(insert_into_gaps_after_the_last)
{
	store_test_start();
	store_table_t *t = make_table("gaps", STORE_ORDERED, sizeof(rec_t), 0);
	rec_t r;
	TM_BEGIN();
	for (uint64_t k = 0; k <= 100; k += 10) {   /* one leaf: 11 keys */
		fill(&r, k);
		ck_assert_ptr_nonnull(store_insert(t, k, &r));
	}
	TM_END();
	/* Present keys (multiples of 10) come back NULL, the others go in. */
	static const uint64_t keys[] = { 5, 7, 10, 12, 15, 20, 99, 100, 101, 103 };
	TM_BEGIN();
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		fill(&r, keys[i]);
		gap_got[i] = store_insert(t, keys[i], &r);
	}
	TM_END();
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		ck_assert_msg((gap_got[i] == NULL) == (keys[i] % 10 == 0 && keys[i] <= 100),
		              "insert of %llu", (unsigned long long)keys[i]);
	ck_assert_int_eq(store_check(t), 0);
	ck_assert_uint_eq(store_count(t), 11 + 7);
	uint64_t want[] = { 0, 5, 7, 10, 12, 15, 20, 30, 40, 50, 60, 70, 80, 90, 99, 100, 101, 103 };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		rec_t w;
		fill(&w, want[i]);
		TM_BEGIN();
		out_ptr = store_get(t, want[i]);
		TM_END();
		ck_assert_msg(out_ptr != NULL && memcmp(out_ptr, &w, sizeof w) == 0, "key %llu",
		              (unsigned long long)want[i]);
	}
	store_table_destroy(t);
	store_test_stop();
}
END_TEST

/* ---- emptying ---------------------------------------------------------------- */

START_TEST(empties_back_to_empty_root)
{
	store_test_start();
	store_table_t *t = make_table("e", STORE_ORDERED, sizeof(rec_t), 0);
	store_index_t *ix = store_index_create(t, "by_grp", grp_key);
	ck_assert_ptr_nonnull(ix);
	uint64_t d0 = store_digest(t);
	rec_t r;
	/* Three levels at least (15 x 15 entries per two levels). */
	for (uint64_t k = 0; k < 3000; k += 10) {
		TM_BEGIN();
		for (uint64_t j = k; j < k + 10; j++) {
			fill(&r, j * 3);
			store_insert(t, j * 3, &r);
		}
		TM_END();
	}
	ck_assert_int_eq(store_check(t), 0);
	ck_assert_uint_ge(t->tree.root->level, 2);
	/* From the left end (as TPC-C's new-orders go), then the rest from the
	 * right. */
	for (uint64_t k = 0; k < 3000; k += 10) {
		TM_BEGIN();
		for (uint64_t j = k; j < k + 10 && j < 1500; j++)
			ck_assert_int_eq(store_delete(t, j * 3), 1);
		TM_END();
		if (k % 500 == 0)
			ck_assert_int_eq(store_check(t), 0);
	}
	TM_BEGIN();
	out_ptr = store_first(t, 0, UINT64_MAX, &out_key);
	TM_END();
	ck_assert_ptr_nonnull(out_ptr);
	ck_assert_uint_eq(out_key, 1500 * 3);
	for (uint64_t k = 3000; k > 1500; k--) {
		TM_BEGIN();
		ck_assert_int_eq(store_delete(t, (k - 1) * 3), 1);
		TM_END();
	}
	ck_assert_int_eq(store_check(t), 0);
	ck_assert_uint_eq(store_count(t), 0);
	ck_assert(btree_is_empty_root(&t->tree));
	ck_assert(btree_is_empty_root(&ix->tree));
	ck_assert_uint_eq(store_digest(t), d0);
	TM_BEGIN();
	out_ptr = store_first(t, 0, UINT64_MAX, NULL);
	TM_END();
	ck_assert_ptr_null(out_ptr);
	store_table_destroy(t);
	store_test_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store-api-" POTM_BACKEND_NAME);
	TCase *tc = tcase_create("api");
	tcase_add_test(tc, creation_errors);
	tcase_add_test_raise_signal(tc, get_outside_tx_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, insert_outside_tx_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, read_bytes_outside_tx_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, scan_of_hash_table_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, duplicate_secondary_key_aborts, SIGABRT);
	tcase_add_test(tc, sealed_tables_answer_as_before);
	tcase_add_test_raise_signal(tc, insert_into_sealed_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, delete_from_sealed_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, update_of_sealed_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, bad_seal_level_aborts, SIGABRT);
	tcase_add_test(tc, bytes_every_alignment);
	tcase_add_test(tc, whole_records);
	tcase_add_test(tc, fields_of_guarded_records);
	tcase_add_test_raise_signal(tc, fields_beyond_record_abort, SIGABRT);
#if defined(POTM_BACKEND_TL2) || defined(POTM_BACKEND_SILO)
	tcase_add_test(tc, guarded_record_is_one_read);
#endif
	tcase_add_test_raise_signal(tc, read_record_outside_tx_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, write_record_of_sealed_aborts, SIGABRT);
	tcase_add_test(tc, digest_order_independent);
	tcase_add_test(tc, largest_record);
	if (!single_thread_backend())   /* seq cannot roll back a cancel */
		tcase_add_test(tc, cancelled_insert_leaves_nothing);
	tcase_add_test(tc, empties_back_to_empty_root);
	tcase_add_test(tc, insert_runs_in_one_transaction);
	tcase_add_test(tc, insert_into_gaps_after_the_last);
	suite_add_tcase(s, tc);
	return potm_check_run(s);
}
