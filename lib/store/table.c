/*
 * lib/store/table.c — tables and their secondary indexes: the API of
 * <potm/store.h> on the B+-tree (btree.c) and the hash index (hash.c).
 *
 * A record is one tm_malloc'd block (store_rec_hdr_t, then the bytes).
 * store_insert fills the new block with plain stores, links it into the
 * primary index and into every secondary index with transactional writes,
 * all in the caller's transaction; store_delete unlinks it from all of
 * them and tm_free's it, so readers that still hold it read valid memory
 * until their transactions end.
 *
 * Invariant T1: a record is in the primary index under its key and in each
 * secondary index under ix->key(record, key), and nowhere else.  It holds
 * between operations because a secondary key depends only on fields that
 * never change after the insert (store.h), so store_delete recomputes the
 * very key store_insert used.
 */
#include "store_internal.h"

#include <potm/store_private.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void store_abort(const char *call, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "potm store: %s: ", call);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* ---- tables and indexes ------------------------------------------------------- */

/* A zeroed block whose first member may ask for a cache line's alignment. */
static void *store_alloc_aligned(size_t size)
{
	void *p = NULL;
	if (posix_memalign(&p, STORE_CACHELINE, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

store_table_t *store_table_create(const store_table_def_t *def)
{
	if (def == NULL) {
		potm_error("store_table_create: def is NULL");
		return NULL;
	}
	if (def->name == NULL) {
		potm_error("store_table_create: def->name is NULL");
		return NULL;
	}
	if (def->record_size < 1 || def->record_size > STORE_RECORD_MAX) {
		potm_error("store_table_create(\"%s\"): record_size %zu out of range (1..%u)",
		           def->name, def->record_size, STORE_RECORD_MAX);
		return NULL;
	}
	if (def->kind != STORE_ORDERED && def->kind != STORE_HASH) {
		potm_error("store_table_create(\"%s\"): unknown kind %d (STORE_ORDERED or STORE_HASH)",
		           def->name, (int)def->kind);
		return NULL;
	}
	/* An ordered table has no capacity to size: the field is ignored. */
	if (def->kind == STORE_HASH && (def->capacity < 1 || def->capacity > STORE_CAPACITY_MAX)) {
		potm_error("store_table_create(\"%s\"): capacity %zu out of range for a hash table "
		           "(1..%u)", def->name, def->capacity, STORE_CAPACITY_MAX);
		return NULL;
	}
	store_table_t *t = store_alloc_aligned(sizeof *t);
	char *name = strdup(def->name);
	if (t == NULL || name == NULL) {
		free(t);
		free(name);
		potm_error("store_table_create(\"%s\"): out of memory", def->name);
		return NULL;
	}
	t->kind = def->kind;
	t->record_size = def->record_size;
	t->record_guard = def->record_guard != 0;
	t->name = name;
	int rc;
	if (t->kind == STORE_ORDERED) {
		rc = btree_init(&t->tree);
		if (rc != 0)
			potm_error("store_table_create(\"%s\"): out of memory", name);
	} else {
		rc = hash_init(&t->hash, def->capacity, name);
	}
	if (rc != 0) {
		free(name);
		free(t);
		return NULL;
	}
	return t;
}

static void store_free_record(void *bytes)
{
	free(store_hdr_of(bytes));
}

/* No transaction uses the table (the API's precondition): every block goes
 * straight back to the allocator, with no grace period to wait for. */
void store_table_destroy(store_table_t *t)
{
	if (t == NULL)
		return;
	store_index_t *ix = t->indexes;
	while (ix != NULL) {
		store_index_t *next = ix->next;
		btree_destroy(&ix->tree, NULL);
		free(ix->name);
		free(ix);
		ix = next;
	}
	if (t->kind == STORE_ORDERED)
		btree_destroy(&t->tree, store_free_record);
	else
		hash_destroy(&t->hash);
	free(t->name);
	free(t);
}

store_index_t *store_index_create(store_table_t *t, const char *name, store_key_fn key)
{
	if (t == NULL || name == NULL || key == NULL) {
		potm_error("store_index_create: %s is NULL",
		           t == NULL ? "the table" : name == NULL ? "the name" : "the key function");
		return NULL;
	}
	size_t n = store_count(t);
	if (n != 0) {
		potm_error("store_index_create(\"%s\", \"%s\"): the table holds %zu records; "
		           "indexes are added to empty tables only", t->name, name, n);
		return NULL;
	}
	store_index_t *ix = store_alloc_aligned(sizeof *ix);
	char *copy = strdup(name);
	if (ix == NULL || copy == NULL || btree_init(&ix->tree) != 0) {
		free(ix);
		free(copy);
		potm_error("store_index_create(\"%s\", \"%s\"): out of memory", t->name, name);
		return NULL;
	}
	ix->table = t;
	ix->key = key;
	ix->name = copy;
	/* Appended, so that indexes are kept (and checked) in creation order. */
	store_index_t **link = &t->indexes;
	while (*link != NULL)
		link = &(*link)->next;
	*link = ix;
	return ix;
}

const char *store_table_name(const store_table_t *t)
{
	return t->name;
}

size_t store_record_size(const store_table_t *t)
{
	return t->record_size;
}

/* ---- sealed tables --------------------------------------------------------------
 *
 * A sealed table's indexes never change again (store.h), so its lookups
 * need no transaction's view: they run as the private store's (the same
 * sources compiled with plain accesses, private.c), whose functions take
 * the same table struct.  The private copy itself reads plainly anyway. */
#if defined(POTM_PRIVATE_ACCESS) || defined(POTM_PLAIN_ACCESS)
#define store_read_plainly(t) false   /* every access is a plain one here */
#else
#define store_read_plainly(t) ((t)->sealed != STORE_UNSEALED)
#endif

/* Misuse unless the table's seal allows the change: keys (inserts and
 * deletes) from STORE_SEAL_KEYS, record bytes (updates) from
 * STORE_SEAL_ALL. */
static void store_require_unsealed(const store_table_t *t, store_seal_t from, const char *call)
{
	if (store_unlikely(t->sealed >= from))
		store_abort(call, "table \"%s\" is sealed (store_table_seal, %s): no transaction "
		            "may %s", t->name,
		            t->sealed == STORE_SEAL_ALL ? "STORE_SEAL_ALL" : "STORE_SEAL_KEYS",
		            from == STORE_SEAL_ALL ? "change it" : "insert or delete its records");
}

void store_table_seal(store_table_t *t, store_seal_t level)
{
	if (store_unlikely(level != STORE_UNSEALED && level != STORE_SEAL_KEYS &&
	                   level != STORE_SEAL_ALL))
		store_abort("store_table_seal", "table \"%s\": level %d (STORE_UNSEALED, "
		            "STORE_SEAL_KEYS or STORE_SEAL_ALL)", t->name, (int)level);
	t->sealed = level;
}

store_seal_t store_table_sealed(const store_table_t *t)
{
	return t->sealed;
}

/* ---- contents ----------------------------------------------------------------- */

void *store_get(store_table_t *t, uint64_t key)
{
	store_require_tx("store_get");
	if (store_read_plainly(t))
		return store_private_get(t, key);
	if (t->kind == STORE_ORDERED)
		return btree_get(&t->tree, key);
	store_rec_hdr_t *r = hash_get(&t->hash, key);
	return r != NULL ? store_bytes_of(r) : NULL;
}

void *store_insert(store_table_t *t, uint64_t key, const void *rec)
{
	store_require_tx("store_insert");
	store_require_unsealed(t, STORE_SEAL_KEYS, "store_insert");
	/* Allocated before the search for the key, so that the index is
	 * searched once; a duplicate frees it again (at commit).  The block is
	 * unpublished until the index links it: plain stores fill it (a NULL
	 * rec gives a zeroed record). */
	store_rec_hdr_t *r = tm_malloc(store_block_size(t));
	if (store_unlikely(r == NULL))
		store_abort("store_insert", "table \"%s\": out of memory for a record", t->name);
	r->key = key;
	r->next = NULL;
	void *bytes = store_bytes_of(r);
	if (rec != NULL)
		memcpy(bytes, rec, t->record_size);
	else
		memset(bytes, 0, t->record_size);
	if (t->record_guard) {
		/* The padding up to the guard is copied by guarded reads: zero
		 * it, as the guard. */
		memset((char *)bytes + t->record_size, 0,
		       store_guard_offset(t->record_size) - t->record_size + sizeof(uint64_t));
	}
	bool added = t->kind == STORE_ORDERED ? btree_insert(&t->tree, key, bytes)
	                                      : hash_insert(&t->hash, r);
	if (!added) {
		tm_free(r);
		return NULL;
	}
	if (store_unlikely(t->log_id != 0))
		store_log_note(t, key, bytes, STORE_LOG_INSERT);
	for (store_index_t *ix = t->indexes; ix != NULL; ix = ix->next) {
		uint64_t skey = ix->key(bytes, key);
		if (store_unlikely(!btree_insert(&ix->tree, skey, bytes)))
			store_abort("store_insert", "table \"%s\", index \"%s\": secondary key %#llx "
			            "(of key %#llx) is already present: secondary keys must be unique",
			            t->name, ix->name, (unsigned long long)skey,
			            (unsigned long long)key);
	}
	return bytes;
}

int store_delete(store_table_t *t, uint64_t key)
{
	store_require_tx("store_delete");
	store_require_unsealed(t, STORE_SEAL_KEYS, "store_delete");
	void *bytes;
	if (t->kind == STORE_ORDERED) {
		bytes = btree_delete(&t->tree, key);
	} else {
		store_rec_hdr_t *r = hash_delete(&t->hash, key);
		bytes = r != NULL ? store_bytes_of(r) : NULL;
	}
	if (bytes == NULL)
		return 0;
	if (store_unlikely(t->log_id != 0))
		store_log_note(t, key, NULL, STORE_LOG_DELETE);
	for (store_index_t *ix = t->indexes; ix != NULL; ix = ix->next) {
		uint64_t skey = ix->key(bytes, key);
		if (store_unlikely(btree_delete(&ix->tree, skey) != bytes))
			store_abort("store_delete", "table \"%s\", index \"%s\": no entry for key %#llx "
			            "under its secondary key %#llx (did a field the secondary key "
			            "depends on change?)", t->name, ix->name,
			            (unsigned long long)key, (unsigned long long)skey);
	}
	tm_free(store_hdr_of(bytes));
	return 1;
}

void store_update(store_table_t *t, void *rec)
{
	store_require_tx("store_update");
	store_require_unsealed(t, STORE_SEAL_ALL, "store_update");
	store_touch_guard(t, rec);
	if (store_unlikely(t->log_id != 0))
		store_log_note(t, store_hdr_of(rec)->key, rec, STORE_LOG_UPDATE);
}

uint64_t store_key_of(const void *rec)
{
	return store_hdr_of(rec)->key;   /* frozen */
}

/* The checks of a scan or an edge lookup of an ordered table. */
static void store_require_ordered(const store_table_t *t, const char *call, int dir)
{
	store_require_tx(call);
	if (store_unlikely(t->kind != STORE_ORDERED))
		store_abort(call, "table \"%s\" is a hash table: no order to scan (STORE_ORDERED "
		            "tables only)", t->name);
	if (store_unlikely(dir != STORE_ASC && dir != STORE_DESC))
		store_abort(call, "table \"%s\": direction %d (STORE_ASC or STORE_DESC)", t->name, dir);
}

size_t store_scan(store_table_t *t, uint64_t lo, uint64_t hi, int dir,
                  store_visit_fn fn, void *arg)
{
	store_require_ordered(t, "store_scan", dir);
	if (store_read_plainly(t))
		return store_private_scan(t, lo, hi, dir, fn, arg);
	return btree_scan(&t->tree, lo, hi, dir, fn, arg);
}

void *store_first(store_table_t *t, uint64_t lo, uint64_t hi, uint64_t *key)
{
	store_require_ordered(t, "store_first", STORE_ASC);
	if (store_read_plainly(t))
		return store_private_first(t, lo, hi, key);
	return btree_edge(&t->tree, lo, hi, STORE_ASC, key);
}

void *store_last(store_table_t *t, uint64_t lo, uint64_t hi, uint64_t *key)
{
	store_require_ordered(t, "store_last", STORE_DESC);
	if (store_read_plainly(t))
		return store_private_last(t, lo, hi, key);
	return btree_edge(&t->tree, lo, hi, STORE_DESC, key);
}

void *store_index_get(store_index_t *ix, uint64_t skey)
{
	store_require_tx("store_index_get");
	if (store_read_plainly(ix->table))
		return store_private_index_get(ix, skey);
	return btree_get(&ix->tree, skey);
}

size_t store_index_scan(store_index_t *ix, uint64_t lo, uint64_t hi, int dir,
                        store_visit_fn fn, void *arg)
{
	store_require_tx("store_index_scan");
	if (store_unlikely(dir != STORE_ASC && dir != STORE_DESC))
		store_abort("store_index_scan", "index \"%s\": direction %d (STORE_ASC or STORE_DESC)",
		            ix->name, dir);
	if (store_read_plainly(ix->table))
		return store_private_index_scan(ix, lo, hi, dir, fn, arg);
	return btree_scan(&ix->tree, lo, hi, dir, fn, arg);
}

void *store_index_first(store_index_t *ix, uint64_t lo, uint64_t hi, uint64_t *skey)
{
	store_require_tx("store_index_first");
	if (store_read_plainly(ix->table))
		return store_private_index_first(ix, lo, hi, skey);
	return btree_edge(&ix->tree, lo, hi, STORE_ASC, skey);
}

void *store_index_last(store_index_t *ix, uint64_t lo, uint64_t hi, uint64_t *skey)
{
	store_require_tx("store_index_last");
	if (store_read_plainly(ix->table))
		return store_private_index_last(ix, lo, hi, skey);
	return btree_edge(&ix->tree, lo, hi, STORE_DESC, skey);
}

/* ---- byte copies ----------------------------------------------------------------
 *
 * The backend's tm_read_bytes and tm_write_bytes (tl2 and silo check and
 * log a stripe at a time, and buffer a word per write-set entry; sub-word
 * writes never touch their neighbours, tm.h); the private side may have
 * any alignment.
 */

void store_read_bytes(void *dst, const void *rec_src, size_t n)
{
	store_require_tx("store_read_bytes");
	tm_read_bytes(dst, rec_src, n);
}

void store_write_bytes(void *rec_dst, const void *src, size_t n)
{
	store_require_tx("store_write_bytes");
	tm_write_bytes(rec_dst, src, n);
}

/* The widest unaligned group of columns copied under the guard through
 * a buffer of whole words; a wider one reads through the TM. */
#define STORE_FIELDS_BOUNCE 256

/* [off, off + n) of rec: a guarded record (G1) under its guard where that
 * can hold, a frozen one (STORE_SEAL_ALL) plainly, as store_read_frozen
 * would.  tm_read_guarded_ copies from a word boundary: an unaligned
 * start copies the words around the range into a buffer (readable up
 * to the guard, G1's layout). */
static void store_copy_fields(store_table_t *t, const void *rec, size_t off, size_t n, void *dst)
{
	const char *src = (const char *)rec + off;
	if (t->sealed == STORE_SEAL_ALL) {
		memcpy(dst, src, n);
		return;
	}
	if (t->record_guard && n != 0) {
		const uint64_t *g = store_guard_of(t, rec);
		size_t lead = off & 7;
		if (lead == 0) {
			if (tm_read_guarded_(dst, src, n, g))
				return;
		} else if (lead + n <= STORE_FIELDS_BOUNCE) {
			uint64_t b[STORE_FIELDS_BOUNCE / 8];
			if (tm_read_guarded_(b, src - lead, lead + n, g)) {
				memcpy(dst, (const char *)b + lead, n);
				return;
			}
		}
	}
	tm_read_bytes(dst, src, n);
}

void store_read_record(store_table_t *t, const void *rec, void *dst)
{
	store_require_tx("store_read_record");
	store_copy_fields(t, rec, 0, t->record_size, dst);
}

void store_read_fields(store_table_t *t, const void *rec, size_t off, size_t n, void *dst)
{
	store_require_tx("store_read_fields");
	if (store_unlikely(off > t->record_size || n > t->record_size - off))
		store_abort("store_read_fields", "table \"%s\": bytes [%zu, %zu + %zu) lie beyond its "
		            "records of %zu bytes", t->name, off, off, n, t->record_size);
	store_copy_fields(t, rec, off, n, dst);
}

void store_write_record(store_table_t *t, void *rec, const void *src)
{
	store_update(t, rec);   /* checks the transaction and the seal */
	tm_write_bytes(rec, src, t->record_size);
}

/* ---- whole tables (quiescent: plain reads) ---------------------------------------- */

/* Visit every record of t (its bytes and key); non-zero from fn stops. */
typedef int (*store_record_fn)(uint64_t key, void *bytes, void *arg);

typedef struct store_walk {
	store_record_fn fn;
	void *arg;
} store_walk_t;

static int store_walk_hash_rec(store_rec_hdr_t *r, void *arg)
{
	store_walk_t *w = arg;
	return w->fn(r->key, store_bytes_of(r), w->arg);
}

static int store_walk_records(const store_table_t *t, store_record_fn fn, void *arg)
{
	if (t->kind == STORE_ORDERED)
		return btree_walk(&t->tree, fn, arg);
	store_walk_t w = { fn, arg };
	return hash_walk(&t->hash, store_walk_hash_rec, &w);
}

typedef struct store_digest_acc {
	size_t record_size;
	uint64_t sum;
	uint64_t count;
} store_digest_acc_t;

/* One record's hash: the key, then the bytes a word at a time (the tail
 * zero-padded), each step through the mix. */
static uint64_t store_record_hash(uint64_t key, const unsigned char *b, size_t n)
{
	uint64_t h = store_mix64(key ^ 0x6a09e667f3bcc909ull);
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		h = store_mix64(h ^ w) + 0x9e3779b97f4a7c15ull;
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, b + i, n - i);
		h = store_mix64(h ^ w) + 0x9e3779b97f4a7c15ull;
	}
	return store_mix64(h ^ n);
}

static int store_digest_rec(uint64_t key, void *bytes, void *arg)
{
	store_digest_acc_t *acc = arg;
	/* A sum: the same whatever order the records are met in. */
	acc->sum += store_record_hash(key, bytes, acc->record_size);
	acc->count++;
	return 0;
}

uint64_t store_digest(const store_table_t *t)
{
	store_digest_acc_t acc = { t->record_size, 0, 0 };
	store_walk_records(t, store_digest_rec, &acc);
	return store_mix64(acc.sum ^ store_mix64(acc.count + 0xbb67ae8584caa73bull));
}

int store_walk(const store_table_t *t, store_visit_fn fn, void *arg)
{
	return store_walk_records(t, fn, arg);
}

static int store_count_rec(uint64_t key, void *bytes, void *arg)
{
	(*(size_t *)arg)++;
	return 0;
}

size_t store_count(const store_table_t *t)
{
	if (t->kind == STORE_ORDERED)
		return btree_count(&t->tree);
	size_t n = 0;
	store_walk_records(t, store_count_rec, &n);
	return n;
}

/* ---- store_check --------------------------------------------------------------- */

typedef struct store_check_ctx {
	const store_table_t *t;
	const store_index_t *ix;   /* the index being checked */
	void **recs;               /* the table's records, sorted by address */
	size_t n, cap;
	size_t entries;            /* the index's entries met */
} store_check_ctx_t;

/* A primary entry: the record carries the key it is filed under. */
static int store_check_primary_rec(uint64_t key, void *bytes, void *arg)
{
	store_check_ctx_t *c = arg;
	if (store_hdr_of(bytes)->key != key)
		return potm_error("store_check(\"%s\"): the record filed under key %#llx carries "
		                  "key %#llx", c->t->name, (unsigned long long)key,
		                  (unsigned long long)store_hdr_of(bytes)->key);
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		void **v = realloc(c->recs, c->cap * sizeof *v);
		if (v == NULL)
			return potm_error("store_check(\"%s\"): out of memory", c->t->name);
		c->recs = v;
	}
	c->recs[c->n++] = bytes;
	return 0;
}

static int store_ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
	return (x > y) - (x < y);
}

/* A secondary entry (T1): a record of the table, filed under its own
 * secondary key.  Distinct keys of one function are distinct records, so
 * with as many entries as records the index holds each record once. */
static int store_check_index_entry(uint64_t skey, void *bytes, void *arg)
{
	store_check_ctx_t *c = arg;
	if (c->n == 0 || bsearch(&bytes, c->recs, c->n, sizeof *c->recs, store_ptr_cmp) == NULL)
		return potm_error("store_check(\"%s\"): index \"%s\" has an entry (secondary key "
		                  "%#llx) for no record of the table (T1)", c->t->name, c->ix->name,
		                  (unsigned long long)skey);
	uint64_t key = store_hdr_of(bytes)->key;
	uint64_t want = c->ix->key(bytes, key);
	if (want != skey)
		return potm_error("store_check(\"%s\"): index \"%s\" files key %#llx under "
		                  "secondary key %#llx, its secondary key is %#llx (T1)", c->t->name,
		                  c->ix->name, (unsigned long long)key, (unsigned long long)skey,
		                  (unsigned long long)want);
	c->entries++;
	return 0;
}

int store_check(const store_table_t *t)
{
	char what[160];
	snprintf(what, sizeof what, "store_check(\"%s\")", t->name);
	if (t->kind == STORE_ORDERED) {
		if (btree_check(&t->tree, what) != 0)
			return -1;
	} else if (hash_check(&t->hash, t->name) != 0) {
		return -1;
	}
	store_check_ctx_t c = { .t = t };
	int rc = store_walk_records(t, store_check_primary_rec, &c);
	if (rc == 0 && t->indexes != NULL && c.n > 1)
		qsort(c.recs, c.n, sizeof *c.recs, store_ptr_cmp);
	for (const store_index_t *ix = t->indexes; ix != NULL && rc == 0; ix = ix->next) {
		snprintf(what, sizeof what, "store_check(\"%s\"), index \"%s\"", t->name, ix->name);
		if (btree_check(&ix->tree, what) != 0) {
			rc = -1;
			break;
		}
		c.ix = ix;
		c.entries = 0;
		rc = btree_walk(&ix->tree, store_check_index_entry, &c);
		if (rc == 0 && c.entries != c.n)
			rc = potm_error("store_check(\"%s\"): index \"%s\" has %zu entries for %zu "
			                "records (T1)", t->name, ix->name, c.entries, c.n);
	}
	free(c.recs);
	return rc == 0 ? 0 : -1;
}
