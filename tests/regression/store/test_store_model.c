/*
 * The record store against a model, one thread, every backend: random
 * inserts, deletes, gets, scans (both directions, random bounds, stopped
 * early) and first/last, a few per transaction, compared with sorted
 * arrays; store_check and a full comparison every few hundred operations.
 *
 *  - ordered tables over tiny and small key ranges (many collisions, the
 *    root splitting and collapsing, leaves emptied and removed), over
 *    the whole uint64_t range (0 and UINT64_MAX among the keys), and as a
 *    queue (ascending inserts, deletes at the small end);
 *  - hash tables with far fewer buckets than records (long chains);
 *  - secondary indexes on both kinds, queried through get, scans,
 *    first/last;
 *  - on backends that roll back, some transactions cancelled after their
 *    operations: the model does not move.
 * Each run grows the table, then shrinks it, then deletes what is left:
 * the ordered tree ends as an empty root.
 */
#include "store_test.h"
#include "store_internal.h"   /* white box: the empty root, node shapes */

#include "check_run.h"

typedef struct rec {
	uint64_t val;        /* changes: rewritten in place */
	uint64_t key_copy;   /* the primary key */
	uint32_t grp;        /* frozen: a secondary key depends on it */
	uint8_t tail[4];
} rec_t;

/* ---- the model: a sorted array of (key, record) -------------------------------- */

typedef struct model {
	uint64_t *key;
	rec_t *rec;
	size_t n, cap;
} model_t;

/* The first index with key >= k. */
static size_t model_lower(const model_t *m, uint64_t k)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static rec_t *model_get(model_t *m, uint64_t k)
{
	size_t i = model_lower(m, k);
	return i < m->n && m->key[i] == k ? &m->rec[i] : NULL;
}

static bool model_insert(model_t *m, uint64_t k, const rec_t *r)
{
	size_t i = model_lower(m, k);
	if (i < m->n && m->key[i] == k)
		return false;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->key = realloc(m->key, m->cap * sizeof *m->key);
		m->rec = realloc(m->rec, m->cap * sizeof *m->rec);
	}
	memmove(&m->key[i + 1], &m->key[i], (m->n - i) * sizeof *m->key);
	memmove(&m->rec[i + 1], &m->rec[i], (m->n - i) * sizeof *m->rec);
	m->key[i] = k;
	m->rec[i] = *r;
	m->n++;
	return true;
}

static bool model_delete(model_t *m, uint64_t k)
{
	size_t i = model_lower(m, k);
	if (i == m->n || m->key[i] != k)
		return false;
	memmove(&m->key[i], &m->key[i + 1], (m->n - i - 1) * sizeof *m->key);
	memmove(&m->rec[i], &m->rec[i + 1], (m->n - i - 1) * sizeof *m->rec);
	m->n--;
	return true;
}

static void model_free(model_t *m)
{
	free(m->key);
	free(m->rec);
	memset(m, 0, sizeof *m);
}

/* ---- secondary keys ------------------------------------------------------------ */

/* By group, then primary key (keys below 2^40 in the tables indexed). */
static uint64_t by_grp(const void *rec, uint64_t pkey)
{
	const rec_t *r = rec;
	return (uint64_t)r->grp << 40 | (pkey & ((1ull << 40) - 1));
}

/* Descending primary key: a bijection. */
static uint64_t by_reverse(const void *rec, uint64_t pkey)
{
	return ~pkey;
}

/* ---- operations ------------------------------------------------------------------ */

enum op_kind { OP_INSERT, OP_DELETE, OP_GET, OP_UPDATE, OP_SCAN, OP_EDGE, OP_IX_GET,
               OP_IX_SCAN, OP_IX_EDGE };

#define SCAN_MAX 48

/* One operation and what the store answered. */
typedef struct op {
	enum op_kind kind;
	unsigned ix;              /* OP_IX_*: which index */
	uint64_t key, lo, hi;
	int dir;
	unsigned limit;           /* scans: stop after this many */
	rec_t rec;                /* insert: the record; update: the new val */
	/* answers */
	bool hit;
	rec_t got;
	uint64_t got_key;
	size_t visited;
	unsigned n;
	uint64_t keys[SCAN_MAX];
	rec_t recs[SCAN_MAX];
	bool bad_key;             /* a record's header key or key_copy differs */
} op_t;

typedef struct run {
	const char *what;
	store_table_t *t;
	store_index_t *ix[2];
	store_key_fn ixkey[2];
	unsigned nix;
	model_t m;
	model_t mix[2];           /* the indexes' models: skey -> record */
	uint64_t rng;
	uint64_t range;           /* keys in [0, range); 0: all of uint64_t */
	bool ordered;
	bool queue;               /* inserts append, deletes mostly take the
	                             smallest key (TPC-C's new-orders) */
	uint64_t next_key;
} run_t;

static int collect(uint64_t key, void *rec, void *arg)
{
	op_t *o = arg;
	rec_t *r = rec;
	if (o->n < SCAN_MAX) {
		o->keys[o->n] = key;
		store_read_bytes(&o->recs[o->n], r, sizeof *r);
		o->n++;
	}
	return o->n >= o->limit;
}

static void read_rec(op_t *o, rec_t *r)
{
	o->hit = r != NULL;
	if (r != NULL) {
		store_read_bytes(&o->got, r, sizeof o->got);
		if (o->got.key_copy != store_key_of(r))
			o->bad_key = true;
	}
}

/* Carry out o inside the caller's transaction. */
static void op_run(run_t *R, op_t *o)
{
	o->hit = false;
	o->n = 0;
	o->visited = 0;
	o->bad_key = false;
	switch (o->kind) {
	case OP_INSERT: {
		rec_t *r = store_insert(R->t, o->key, &o->rec);
		o->hit = r != NULL;
		if (r != NULL && (store_key_of(r) != o->key ||
		                  TM_LOAD(&r->key_copy) != o->key))
			o->bad_key = true;
		break;
	}
	case OP_DELETE:
		o->hit = store_delete(R->t, o->key) == 1;
		break;
	case OP_GET:
		read_rec(o, store_get(R->t, o->key));
		break;
	case OP_UPDATE: {
		rec_t *r = store_get(R->t, o->key);
		o->hit = r != NULL;
		if (r != NULL)
			TM_STORE(&r->val, o->rec.val);
		break;
	}
	case OP_SCAN:
		o->visited = store_scan(R->t, o->lo, o->hi, o->dir, collect, o);
		break;
	case OP_EDGE: {
		uint64_t k = 0;
		rec_t *r = o->dir == STORE_ASC ? store_first(R->t, o->lo, o->hi, &k)
		                               : store_last(R->t, o->lo, o->hi, &k);
		read_rec(o, r);
		o->got_key = k;
		break;
	}
	case OP_IX_GET:
		read_rec(o, store_index_get(R->ix[o->ix], o->key));
		break;
	case OP_IX_SCAN:
		o->visited = store_index_scan(R->ix[o->ix], o->lo, o->hi, o->dir, collect, o);
		break;
	case OP_IX_EDGE: {
		uint64_t k = 0;
		rec_t *r = o->dir == STORE_ASC ? store_index_first(R->ix[o->ix], o->lo, o->hi, &k)
		                               : store_index_last(R->ix[o->ix], o->lo, o->hi, &k);
		read_rec(o, r);
		o->got_key = k;
		break;
	}
	}
}

/* Check o's answers against the model, then apply it to the model. */
static void op_check(run_t *R, const op_t *o, unsigned step)
{
	ck_assert_msg(!o->bad_key, "%s step %u: a record's key differs from its key_copy",
	              R->what, step);
	model_t *m = &R->m;
	switch (o->kind) {
	case OP_INSERT: {
		bool added = model_insert(m, o->key, &o->rec);
		ck_assert_msg(o->hit == added, "%s step %u: insert %#llx: store %d, model %d",
		              R->what, step, (unsigned long long)o->key, o->hit, added);
		for (unsigned i = 0; added && i < R->nix; i++)
			ck_assert(model_insert(&R->mix[i], R->ixkey[i](&o->rec, o->key), &o->rec));
		return;
	}
	case OP_DELETE: {
		rec_t *r = model_get(m, o->key);
		for (unsigned i = 0; r != NULL && i < R->nix; i++)
			ck_assert(model_delete(&R->mix[i], R->ixkey[i](r, o->key)));
		bool gone = model_delete(m, o->key);
		ck_assert_msg(o->hit == gone, "%s step %u: delete %#llx: store %d, model %d",
		              R->what, step, (unsigned long long)o->key, o->hit, gone);
		return;
	}
	case OP_UPDATE: {
		rec_t *r = model_get(m, o->key);
		ck_assert_int_eq(o->hit, r != NULL);
		if (r != NULL) {
			r->val = o->rec.val;
			for (unsigned i = 0; i < R->nix; i++)
				model_get(&R->mix[i], R->ixkey[i](r, o->key))->val = o->rec.val;
		}
		return;
	}
	default:
		break;
	}
	model_t *q = o->kind >= OP_IX_GET ? &R->mix[o->ix] : m;
	if (o->kind == OP_GET || o->kind == OP_IX_GET) {
		rec_t *r = model_get(q, o->key);
		ck_assert_msg(o->hit == (r != NULL), "%s step %u: get %#llx: store %d, model %d",
		              R->what, step, (unsigned long long)o->key, o->hit, r != NULL);
		if (r != NULL)
			ck_assert_msg(memcmp(r, &o->got, sizeof *r) == 0, "%s step %u: get %#llx: "
			              "record differs", R->what, step, (unsigned long long)o->key);
		return;
	}
	/* Scans and edges: the model's entries in [lo, hi], in order. */
	size_t first = model_lower(q, o->lo);
	size_t end = o->hi == UINT64_MAX ? q->n : model_lower(q, o->hi + 1);
	size_t avail = o->lo > o->hi || end < first ? 0 : end - first;
	if (o->kind == OP_EDGE || o->kind == OP_IX_EDGE) {
		ck_assert_msg(o->hit == (avail > 0), "%s step %u: %s [%#llx, %#llx]: store %d, "
		              "model %zu entries", R->what, step,
		              o->dir == STORE_ASC ? "first" : "last", (unsigned long long)o->lo,
		              (unsigned long long)o->hi, o->hit, avail);
		if (avail > 0) {
			size_t i = o->dir == STORE_ASC ? first : end - 1;
			ck_assert_uint_eq(o->got_key, q->key[i]);
			ck_assert(memcmp(&q->rec[i], &o->got, sizeof o->got) == 0);
		}
		return;
	}
	size_t want = avail < o->limit ? avail : o->limit;
	ck_assert_msg(o->visited == want && o->n == want, "%s step %u: scan %s [%#llx, %#llx] "
	              "limit %u: visited %zu (collected %u), model %zu", R->what, step,
	              o->dir == STORE_ASC ? "asc" : "desc", (unsigned long long)o->lo,
	              (unsigned long long)o->hi, o->limit, o->visited, o->n, want);
	for (size_t j = 0; j < want; j++) {
		size_t i = o->dir == STORE_ASC ? first + j : end - 1 - j;
		ck_assert_msg(o->keys[j] == q->key[i], "%s step %u: scan entry %zu: key %#llx, "
		              "model %#llx", R->what, step, j, (unsigned long long)o->keys[j],
		              (unsigned long long)q->key[i]);
		ck_assert(memcmp(&q->rec[i], &o->recs[j], sizeof o->recs[j]) == 0);
	}
}

/* ---- drawing operations ----------------------------------------------------------- */

static uint64_t draw_key(run_t *R)
{
	uint64_t x = rng_next(&R->rng);
	if (R->m.n > 0 && x % 8 < 3)   /* often a present key */
		return R->m.key[(x >> 8) % R->m.n];
	if (R->range != 0)
		return rng_next(&R->rng) % R->range;
	static const uint64_t special[] = { 0, 1, 2, UINT64_MAX, UINT64_MAX - 1, 1ull << 63,
	                                    (1ull << 63) - 1 };
	if (x % 8 == 3)
		return special[(x >> 8) % (sizeof special / sizeof special[0])];
	return rng_next(&R->rng);
}

/* A bound near a key, or an end of the range. */
static uint64_t draw_bound(run_t *R, bool low)
{
	uint64_t x = rng_next(&R->rng);
	if (x % 10 == 0)
		return low ? 0 : UINT64_MAX;
	uint64_t k = draw_key(R);
	uint64_t d = (x >> 8) % 5;
	return x & (1 << 4) ? (k > UINT64_MAX - d ? UINT64_MAX : k + d) : (k < d ? 0 : k - d);
}

/* A secondary key near an entry of index i, or anywhere. */
static uint64_t draw_skey(run_t *R, unsigned i)
{
	model_t *q = &R->mix[i];
	uint64_t x = rng_next(&R->rng);
	if (q->n > 0 && x % 4 != 0) {
		uint64_t k = q->key[(x >> 8) % q->n];
		return x & (1 << 4) ? k : k + ((x >> 5) % 3) - 1;
	}
	return rng_next(&R->rng);
}

static void draw_op(run_t *R, op_t *o, int insert_pct, int delete_pct)
{
	memset(o, 0, offsetof(op_t, hit));
	int p = (int)(rng_next(&R->rng) % 100);
	o->key = draw_key(R);
	o->dir = rng_next(&R->rng) & 1 ? STORE_DESC : STORE_ASC;
	o->limit = 1 + (unsigned)(rng_next(&R->rng) % SCAN_MAX);
	if (R->queue && p < insert_pct + delete_pct) {
		if (p < insert_pct) {
			R->next_key += 1 + rng_next(&R->rng) % 3;
			o->key = R->next_key;
		} else if (R->m.n > 0 && p % 4 != 0) {
			o->key = R->m.key[0];
		}
	}
	if (p < insert_pct) {
		o->kind = OP_INSERT;
		o->rec.val = rng_next(&R->rng);
		o->rec.key_copy = o->key;
		o->rec.grp = (uint32_t)(rng_next(&R->rng) % 4);
		memcpy(o->rec.tail, &o->rec.val, sizeof o->rec.tail);
		return;
	}
	p -= insert_pct;
	if (p < delete_pct) {
		o->kind = OP_DELETE;
		return;
	}
	p = (int)(rng_next(&R->rng) % 100);
	if (R->nix > 0 && p < 35) {
		o->ix = (unsigned)(rng_next(&R->rng) % R->nix);
		o->kind = p < 10 ? OP_IX_GET : p < 25 ? OP_IX_SCAN : OP_IX_EDGE;
		o->key = draw_skey(R, o->ix);
		o->lo = draw_skey(R, o->ix);
		o->hi = p % 2 ? draw_skey(R, o->ix) : o->lo + rng_next(&R->rng) % (1ull << 41);
		if (o->hi < o->lo && p % 3 != 0) {
			uint64_t t = o->lo;
			o->lo = o->hi;
			o->hi = t;
		}
		return;
	}
	if (!R->ordered || p < 50) {
		o->kind = p % 3 == 0 ? OP_UPDATE : OP_GET;
		o->rec.val = rng_next(&R->rng);
		return;
	}
	o->kind = p < 80 ? OP_SCAN : OP_EDGE;
	o->lo = draw_bound(R, true);
	o->hi = draw_bound(R, false);
	if (o->hi < o->lo && p % 4 != 0) {   /* mostly proper ranges, some empty */
		uint64_t t = o->lo;
		o->lo = o->hi;
		o->hi = t;
	}
}

/* ---- whole-table comparisons --------------------------------------------------------- */

static int check_all_visit(uint64_t key, void *rec, void *arg)
{
	const model_t *m = ((void **)arg)[0];
	size_t *i = ((void **)arg)[1];
	bool *bad = ((void **)arg)[2];
	rec_t r;
	store_read_bytes(&r, rec, sizeof r);
	if (*i >= m->n || m->key[*i] != key || memcmp(&m->rec[*i], &r, sizeof r) != 0)
		*bad = true;
	(*i)++;
	return 0;
}

/* store_check, store_count, and every entry of every index in order. */
static void compare_all(run_t *R, unsigned step)
{
	ck_assert_msg(store_check(R->t) == 0, "%s step %u: %s", R->what, step, tm_last_error());
	ck_assert_uint_eq(store_count(R->t), R->m.n);
	for (int which = R->ordered ? -1 : 0; which < (int)R->nix; which++) {
		model_t *q = which < 0 ? &R->m : &R->mix[which];
		static size_t i;
		static bool bad;
		void *arg[3] = { q, &i, &bad };
		TM_BEGIN();
		i = 0;
		bad = false;
		if (which < 0)
			store_scan(R->t, 0, UINT64_MAX, STORE_ASC, check_all_visit, arg);
		else
			store_index_scan(R->ix[which], 0, UINT64_MAX, STORE_ASC, check_all_visit, arg);
		TM_END();
		ck_assert_msg(!bad && i == q->n, "%s step %u: full scan of %s differs from the "
		              "model (%zu entries, model %zu)", R->what, step,
		              which < 0 ? "the table" : "an index", i, q->n);
	}
	if (!R->ordered) {
		static bool bad;
		TM_BEGIN();
		bad = false;
		for (size_t i = 0; i < R->m.n; i++) {
			rec_t *r = store_get(R->t, R->m.key[i]);
			if (r == NULL || TM_LOAD(&r->val) != R->m.rec[i].val)
				bad = true;
		}
		TM_END();
		ck_assert_msg(!bad, "%s step %u: a record differs from the model", R->what, step);
	}
}

/* ---- a run ------------------------------------------------------------------------- */

static void run_model(const char *what, store_kind_t kind, uint64_t range, size_t capacity,
                      unsigned nix, unsigned ops, uint64_t seed)
{
	static run_t R;
	memset(&R, 0, sizeof R);
	R.queue = strstr(what, "queue") != NULL;
	R.next_key = range / 2;
	R.what = what;
	R.rng = seed;
	R.range = range;
	R.ordered = kind == STORE_ORDERED;
	store_table_def_t def = { .name = what, .record_size = sizeof(rec_t), .kind = kind,
	                          .capacity = capacity };
	R.t = store_table_create(&def);
	ck_assert_msg(R.t != NULL, "%s", tm_last_error());
	store_key_fn fns[2] = { by_grp, by_reverse };
	for (unsigned i = 0; i < nix; i++) {
		R.ix[i] = store_index_create(R.t, i == 0 ? "by_grp" : "by_reverse", fns[i]);
		ck_assert_msg(R.ix[i] != NULL, "%s", tm_last_error());
		R.ixkey[i] = fns[i];
	}
	R.nix = nix;
	uint64_t empty_digest = store_digest(R.t);
	bool can_cancel = !single_thread_backend();
	static op_t batch[4];
	unsigned step = 0;
	/* Grow for the first half, shrink in the second. */
	while (step < ops) {
		bool grow = step < ops / 2;
		unsigned n = 1 + (unsigned)(rng_next(&R.rng) % 4);
		for (unsigned j = 0; j < n; j++)
			draw_op(&R, &batch[j], grow ? 50 : 20, grow ? 20 : 50);
		bool cancel = can_cancel && rng_next(&R.rng) % 16 == 0;
		static unsigned nb;
		static bool cancel_it;
		nb = n;
		cancel_it = cancel;
		TM_BEGIN();
		for (unsigned j = 0; j < nb; j++)
			op_run(&R, &batch[j]);
		if (cancel_it)
			tm_cancel();
		TM_END();
		if (!cancel) {
			for (unsigned j = 0; j < n; j++)
				op_check(&R, &batch[j], step + j);
		}
		unsigned before = step;
		step += n;
		if (step / 300 != before / 300 || step >= ops)
			compare_all(&R, step);
	}
	/* Delete what is left, a few keys per transaction, alternating ends. */
	while (R.m.n > 0) {
		static uint64_t keys[5];
		static unsigned nk;
		nk = 0;
		for (size_t j = 0; j < 5 && j < R.m.n; j++)
			keys[nk++] = R.m.key[j % 2 ? R.m.n - 1 - j / 2 : j / 2];
		static int deleted;
		TM_BEGIN();
		deleted = 0;
		for (unsigned j = 0; j < nk; j++)
			deleted += store_delete(R.t, keys[j]);
		TM_END();
		ck_assert_int_eq(deleted, (int)nk);
		for (unsigned j = 0; j < nk; j++) {
			rec_t *r = model_get(&R.m, keys[j]);
			for (unsigned i = 0; i < nix; i++)
				ck_assert(model_delete(&R.mix[i], R.ixkey[i](r, keys[j])));
			ck_assert(model_delete(&R.m, keys[j]));
		}
		if (R.m.n % 97 == 0)
			compare_all(&R, step);
	}
	compare_all(&R, step);
	ck_assert_uint_eq(store_count(R.t), 0);
	ck_assert_uint_eq(store_digest(R.t), empty_digest);
	if (R.ordered)
		ck_assert_msg(btree_is_empty_root(&R.t->tree), "%s: not back to an empty root", what);
	for (unsigned i = 0; i < nix; i++)
		ck_assert(btree_is_empty_root(&R.ix[i]->tree));
	store_table_destroy(R.t);
	model_free(&R.m);
	for (unsigned i = 0; i < nix; i++)
		model_free(&R.mix[i]);
}

/* ---- nodes with permuted slots (white box) ---------------------------------------
 *
 * A node's entries sit in unsorted slots ranked by its permutation word
 * (store_internal.h).  These runs build nodes whose slots are out of key
 * order and whose free slots lie between used ones, then insert at every
 * rank, split such nodes at every position, and delete down to the empty
 * root, with store_check and a full comparison after every transaction.
 */

static rec_t perm_rec(uint64_t k)
{
	rec_t r;
	memset(&r, 0, sizeof r);
	r.val = test_mix(k);
	r.key_copy = k;
	return r;
}

/* Insert (or delete) each of keys[0..n-1] in one transaction; every one
 * must succeed, as the model says. */
static void perm_apply(store_table_t *t, model_t *m, const uint64_t *keys, unsigned n, bool ins)
{
	static const uint64_t *tk;
	static unsigned tn;
	static bool tins;
	static unsigned done;
	tk = keys;
	tn = n;
	tins = ins;
	TM_BEGIN();
	done = 0;
	for (unsigned j = 0; j < tn; j++) {
		rec_t r = perm_rec(tk[j]);
		if (tins ? store_insert(t, tk[j], &r) != NULL : store_delete(t, tk[j]) == 1)
			done++;
	}
	TM_END();
	ck_assert_uint_eq(done, n);
	for (unsigned j = 0; j < n; j++) {
		rec_t r = perm_rec(keys[j]);
		ck_assert(ins ? model_insert(m, keys[j], &r) : model_delete(m, keys[j]));
	}
}

static int perm_collect(uint64_t key, void *rec, void *arg)
{
	model_t *got = arg;
	rec_t r;
	store_read_bytes(&r, rec, sizeof r);
	if (got->n < got->cap) {
		got->key[got->n] = key;
		got->rec[got->n] = r;
	}
	got->n++;
	return 0;
}

/* The table holds exactly the model: store_check, count, full scans both
 * ways, gets of some 32 keys spread over it and of the key after each,
 * bounded scans and first/last. */
static void perm_verify(store_table_t *t, const model_t *m, const char *what)
{
	ck_assert_msg(store_check(t) == 0, "%s: %s", what, tm_last_error());
	ck_assert_uint_eq(store_count(t), m->n);
	static model_t got[2];
	static unsigned bad;
	for (int dir = 0; dir < 2; dir++) {
		got[dir].cap = m->n + 1;
		got[dir].key = realloc(got[dir].key, got[dir].cap * sizeof(uint64_t));
		got[dir].rec = realloc(got[dir].rec, got[dir].cap * sizeof(rec_t));
		got[dir].n = 0;
	}
	TM_BEGIN();
	got[0].n = got[1].n = 0;
	bad = 0;
	store_scan(t, 0, UINT64_MAX, STORE_ASC, perm_collect, &got[0]);
	store_scan(t, 0, UINT64_MAX, STORE_DESC, perm_collect, &got[1]);
	for (size_t i = 0; i < m->n; i += m->n / 32 + 1) {
		rec_t *r = store_get(t, m->key[i]);
		if (r == NULL || TM_LOAD(&r->val) != test_mix(m->key[i]))
			bad++;
		uint64_t next = m->key[i] + 1;
		if (next != 0 && (i + 1 == m->n || m->key[i + 1] != next) && store_get(t, next) != NULL)
			bad++;
	}
	TM_END();
	ck_assert_msg(bad == 0, "%s: %u gets differ from the model", what, bad);
	/* Plain comparisons, one assertion each: Check's assertions are slow. */
	const char *diff = NULL;
	for (int dir = 0; dir < 2 && diff == NULL; dir++) {
		if (got[dir].n != m->n)
			diff = dir == 0 ? "full scan up: count" : "full scan down: count";
		for (size_t i = 0; i < m->n && diff == NULL; i++) {
			size_t j = dir == 0 ? i : m->n - 1 - i;
			if (got[dir].key[i] != m->key[j] || got[dir].rec[i].val != test_mix(m->key[j]))
				diff = dir == 0 ? "full scan up" : "full scan down";
		}
	}
	ck_assert_msg(diff == NULL, "%s: %s differs from the model", what, diff);
	/* Bounded scans (the bounds between keys: moves to the next leaf
	 * stop on the separators) and first/last over the gaps. */
	size_t stride = m->n / 8 + 1, span = 20;
	for (size_t i = 0; i < m->n && diff == NULL; i += stride) {
		size_t j = i + span < m->n ? i + span : m->n - 1;
		static uint64_t lo, hi, first, last, before, after;
		static bool has_first, has_last, has_before, has_after;
		lo = m->key[i] - (m->key[i] > 0 && (i == 0 || m->key[i - 1] < m->key[i] - 1));
		hi = m->key[j] + (m->key[j] < UINT64_MAX &&
		                  (j + 1 == m->n || m->key[j + 1] > m->key[j] + 1));
		TM_BEGIN();
		got[0].n = got[1].n = 0;
		store_scan(t, m->key[i], m->key[j], STORE_ASC, perm_collect, &got[0]);
		store_scan(t, lo, hi, STORE_DESC, perm_collect, &got[1]);
		has_first = store_first(t, lo, hi, &first) != NULL;
		has_last = store_last(t, lo, hi, &last) != NULL;
		has_before = m->key[i] > 0 && store_last(t, 0, m->key[i] - 1, &before) != NULL;
		has_after = m->key[j] < UINT64_MAX &&
		            store_first(t, m->key[j] + 1, UINT64_MAX, &after) != NULL;
		TM_END();
		if (got[0].n != j - i + 1 || got[1].n != j - i + 1)
			diff = "a bounded scan's count";
		for (size_t x = 0; x <= j - i && diff == NULL; x++)
			if (got[0].key[x] != m->key[i + x] || got[1].key[x] != m->key[j - x])
				diff = "a bounded scan";
		if (diff == NULL && (!has_first || first != m->key[i] || !has_last || last != m->key[j]))
			diff = "first/last in a range";
		if (diff == NULL && (has_before != (i > 0) || (i > 0 && before != m->key[i - 1])))
			diff = "last below a key";
		if (diff == NULL && (has_after != (j + 1 < m->n) || (j + 1 < m->n && after != m->key[j + 1])))
			diff = "first above a key";
		ck_assert_msg(diff == NULL, "%s: %s differs from the model, keys %#llx..%#llx", what,
		              diff, (unsigned long long)m->key[i], (unsigned long long)m->key[j]);
	}
}

/* Whether n's entries sit in slots out of key order, and whether a free
 * slot lies below a used one. */
static bool node_permuted(const btree_node_t *n)
{
	for (unsigned r = 0; r < btree_perm_count(n->perm); r++)
		if (btree_perm_slot(n->perm, r) != r)
			return true;
	return false;
}

static bool node_scattered(const btree_node_t *n)
{
	unsigned c = btree_perm_count(n->perm);
	for (unsigned r = 0; r < c; r++)
		if (btree_perm_slot(n->perm, r) >= c)
			return true;
	return false;
}

static void shuffle(uint64_t *k, unsigned n, uint64_t *rng)
{
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)(rng_next(rng) % i);
		uint64_t x = k[i - 1];
		k[i - 1] = k[j];
		k[j] = x;
	}
}

/* Delete the model's keys in random order, one per transaction, down to
 * the empty root. */
static void perm_empty(store_table_t *t, model_t *m, uint64_t *rng, const char *what)
{
	size_t n = m->n;
	uint64_t *keys = malloc(n * sizeof *keys);
	memcpy(keys, m->key, n * sizeof *keys);
	shuffle(keys, (unsigned)n, rng);
	for (size_t i = 0; i < n; i++) {
		perm_apply(t, m, &keys[i], 1, false);
		perm_verify(t, m, what);
	}
	free(keys);
	ck_assert_msg(btree_is_empty_root(&t->tree), "%s: not back to an empty root", what);
}

/* One leaf: 14 entries inserted in random order (slots out of key
 * order), 4 deleted (free slots between used ones), then an insert at
 * rank r; refilled and split with the new entry at rank r, for every
 * rank a put and a split can take. */
START_TEST(permuted_leaf)
{
	store_test_start();
	store_table_def_t def = { .name = "perm-leaf", .record_size = sizeof(rec_t),
	                          .kind = STORE_ORDERED };
	uint64_t rng = 0xfeedbeefull;
	for (unsigned r = 0; r <= BTREE_FANOUT; r++) {
		store_table_t *t = store_table_create(&def);
		ck_assert_msg(t != NULL, "%s", tm_last_error());
		model_t m = { 0 };
		uint64_t keys[14];
		for (unsigned j = 0; j < 14; j++)
			keys[j] = 1000 + 100 * j;
		shuffle(keys, 14, &rng);
		for (unsigned j = 0; j < 14; j++) {
			perm_apply(t, &m, &keys[j], 1, true);
			perm_verify(t, &m, "perm-leaf fill");
		}
		btree_node_t *leaf = t->tree.root;
		ck_assert_uint_eq(leaf->level, 0);
		ck_assert(node_permuted(leaf));
		/* Delete 4, none the first key inserted: it sits in the last
		 * slot, so some free slots now lie below a used one. */
		uint64_t del[4];
		memcpy(del, &keys[1], sizeof del);
		perm_apply(t, &m, del, 4, false);
		perm_verify(t, &m, "perm-leaf delete");
		ck_assert(node_scattered(leaf));
		/* An insert at rank min(r, 10).  Every key is a multiple of 4,
		 * so that a key 1 below any other has its rank. */
		unsigned rank = r < m.n ? r : (unsigned)m.n;
		uint64_t k = rank < m.n ? m.key[rank] - 8 : m.key[m.n - 1] + 8;
		perm_apply(t, &m, &k, 1, true);
		perm_verify(t, &m, "perm-leaf put");
		ck_assert_ptr_eq(t->tree.root, leaf);
		ck_assert_uint_eq(leaf->key[btree_perm_slot(leaf->perm, rank)], k);
		/* Refill to 15 at random places, then the 16th at rank r. */
		while (m.n < BTREE_FANOUT) {
			uint64_t x = 900 + 4 * (rng_next(&rng) % 375);
			if (model_get(&m, x) == NULL) {
				perm_apply(t, &m, &x, 1, true);
				perm_verify(t, &m, "perm-leaf refill");
			}
		}
		ck_assert(node_permuted(leaf));
		k = r < m.n ? m.key[r] - 1 : m.key[m.n - 1] + 1;
		perm_apply(t, &m, &k, 1, true);
		perm_verify(t, &m, "perm-leaf split");
		ck_assert_uint_eq(t->tree.root->level, 1);
		/* Insert into both halves again: puts into permuted nodes after
		 * a split, then empty the tree. */
		for (unsigned j = 0; j < 6; j++) {
			uint64_t x = 900 + rng_next(&rng) % 1500;
			if (model_get(&m, x) == NULL) {
				perm_apply(t, &m, &x, 1, true);
				perm_verify(t, &m, "perm-leaf after split");
			}
		}
		perm_empty(t, &m, &rng, "perm-leaf empty");
		store_table_destroy(t);
		model_free(&m);
	}
	store_test_stop();
}
END_TEST

/* Whether some inner node below n (n included) is scattered, permuted
 * and full; the depth. */
typedef struct shape {
	bool inner_scattered, inner_permuted_full, inner_rank0_moved;
	unsigned depth;
} shape_t;

static void shape_of(const btree_node_t *n, unsigned d, shape_t *sh)
{
	if (d + 1 > sh->depth)
		sh->depth = d + 1;
	if (n->level == 0)
		return;
	unsigned c = btree_perm_count(n->perm);
	sh->inner_scattered |= node_scattered(n);
	sh->inner_permuted_full |= c == BTREE_FANOUT && node_permuted(n);
	/* The slot of rank 0 is not slot 0: a child of rank 0 was removed, or
	 * one was put before it. */
	sh->inner_rank0_moved |= btree_perm_slot(n->perm, 0) != 0;
	for (unsigned r = 0; r < c; r++)
		shape_of(n->ptr[btree_perm_slot(n->perm, r)], d + 1, sh);
}

/* Inner nodes: keys inserted in random order (children put at every rank
 * of their parents), then bursts of inserts into gaps and deletes of runs
 * of keys that empty leaves (children removed at any rank, rank 0 too,
 * leaving free slots between used ones, inner nodes emptied and the root
 * collapsed), until the inner nodes are permuted, scattered and split. */
START_TEST(permuted_inner)
{
	store_test_start();
	store_table_def_t def = { .name = "perm-inner", .record_size = sizeof(rec_t),
	                          .kind = STORE_ORDERED };
	store_table_t *t = store_table_create(&def);
	ck_assert_msg(t != NULL, "%s", tm_last_error());
	model_t m = { 0 };
	uint64_t rng = 0xabad1deaull;
	enum { N = 400, GAP = 64 };
	static uint64_t keys[N];
	for (unsigned j = 0; j < N; j++)
		keys[j] = GAP * (j + 1);
	shuffle(keys, N, &rng);
	shape_t sh = { 0 };
	for (unsigned j = 0; j < N; j += 3) {
		unsigned n = N - j < 3 ? N - j : 3;
		perm_apply(t, &m, &keys[j], n, true);
		perm_verify(t, &m, "perm-inner fill");
		shape_of(t->tree.root, 0, &sh);
	}
	ck_assert_msg(sh.depth >= 3, "perm-inner: depth %u", sh.depth);
	ck_assert(sh.inner_permuted_full);
	for (unsigned step = 0; step < 600 / STORE_TEST_SCALE; step++) {
		uint64_t batch[24];
		unsigned n = 0;
		unsigned what = (unsigned)(rng_next(&rng) % 8);
		if (what < 3 && m.n > 0) {
			/* A run of keys, from the lowest ones at times. */
			size_t at = what == 0 ? 0 : rng_next(&rng) % m.n;
			unsigned len = 1 + (unsigned)(rng_next(&rng) % 24);
			for (; n < len && at + n < m.n; n++)
				batch[n] = m.key[at + n];
			shuffle(batch, n, &rng);
			perm_apply(t, &m, batch, n, false);
		} else {
			/* A burst into one region: puts into the same leaves, and
			 * splits, within one transaction. */
			uint64_t base = GAP + rng_next(&rng) % (GAP * N);
			unsigned len = 1 + (unsigned)(rng_next(&rng) % 12);
			for (unsigned tries = 0; n < len && tries < 64; tries++) {
				uint64_t x = base + rng_next(&rng) % (4 * GAP);
				bool dup = model_get(&m, x) != NULL;
				for (unsigned j = 0; j < n && !dup; j++)
					dup = batch[j] == x;
				if (!dup)
					batch[n++] = x;
			}
			perm_apply(t, &m, batch, n, true);
		}
		perm_verify(t, &m, "perm-inner churn");
		shape_of(t->tree.root, 0, &sh);
	}
	ck_assert(sh.inner_scattered);
	ck_assert(sh.inner_rank0_moved);
	perm_empty(t, &m, &rng, "perm-inner empty");
	store_table_destroy(t);
	model_free(&m);
	store_test_stop();
}
END_TEST

#define OPS(n) ((n) / STORE_TEST_SCALE)

START_TEST(ordered_tiny_range)
{
	store_test_start();
	run_model("ordered-tiny", STORE_ORDERED, 64, 0, 0, OPS(20000), 0x1234567ull);
	store_test_stop();
}
END_TEST

START_TEST(ordered_small_range)
{
	store_test_start();
	run_model("ordered-small", STORE_ORDERED, 3000, 0, 0, OPS(20000), 0x2345678ull);
	store_test_stop();
}
END_TEST

START_TEST(ordered_full_range)
{
	store_test_start();
	run_model("ordered-full", STORE_ORDERED, 0, 0, 0, OPS(20000), 0x3456789ull);
	store_test_stop();
}
END_TEST

START_TEST(ordered_queue)
{
	store_test_start();
	run_model("ordered-queue", STORE_ORDERED, 1u << 20, 0, 1, OPS(12000), 0x89abcdeull);
	store_test_stop();
}
END_TEST

START_TEST(hash_long_chains)
{
	store_test_start();
	run_model("hash-small", STORE_HASH, 2000, 64, 0, OPS(10000), 0x456789aull);
	run_model("hash-full", STORE_HASH, 0, 1000, 0, OPS(10000), 0x56789abull);
	store_test_stop();
}
END_TEST

START_TEST(secondary_indexes)
{
	store_test_start();
	run_model("ordered-2ix", STORE_ORDERED, 2000, 0, 2, OPS(12000), 0x6789abcull);
	run_model("hash-2ix", STORE_HASH, 1u << 20, 256, 2, OPS(8000), 0x789abcdull);
	store_test_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store-model-" POTM_BACKEND_NAME);
	TCase *tc = tcase_create("model");
	tcase_add_test(tc, ordered_tiny_range);
	tcase_add_test(tc, ordered_small_range);
	tcase_add_test(tc, ordered_full_range);
	tcase_add_test(tc, ordered_queue);
	tcase_add_test(tc, hash_long_chains);
	tcase_add_test(tc, secondary_indexes);
	suite_add_tcase(s, tc);
	TCase *perm = tcase_create("permuted");
	tcase_add_test(perm, permuted_leaf);
	tcase_add_test(perm, permuted_inner);
	suite_add_tcase(s, perm);
	return potm_check_run(s);
}
