/*
 * tpcc/tm1.c — Nokia's TM1 (TATP) on the record store, conventionally and
 * under DORA:
 *
 *   tm1-<b> [-s subscribers] [-e conventional|dora|dora-private|dora-inline]
 *           [-W window] [-A] [-t -d -n -S -H]
 *
 * The subscriber database of TM1 (a mobile carrier's home location
 * register), populated as the TATP description prescribes for P
 * subscribers:
 *   SUBSCRIBER        s_id 1..P; sub_nbr, s_id as 15 digits (a secondary
 *                     index); bit_1..10, hex_1..10, byte2_1..10 random;
 *                     msc_location, vlr_location random
 *   ACCESS_INFO       1..4 rows per subscriber, distinct ai_type 1..4;
 *                     data1, data2 0..255, data3 3 and data4 5 letters
 *   SPECIAL_FACILITY  1..4 rows per subscriber, distinct sf_type 1..4;
 *                     is_active 1 for 85 %; error_cntrl, data_a 0..255,
 *                     data_b 5 letters
 *   CALL_FORWARDING   0..3 rows per special facility, distinct start_time
 *                     in {0, 8, 16}; end_time start_time + 1..8; numberx
 *                     15 random digits
 * and its seven transactions in the standard mix (80 % reads):
 *   GET_SUBSCRIBER_DATA 35 %, GET_NEW_DESTINATION 10 %, GET_ACCESS_DATA
 *   35 %, UPDATE_SUBSCRIBER_DATA 2 %, UPDATE_LOCATION 14 %,
 *   INSERT_CALL_FORWARDING 2 %, DELETE_CALL_FORWARDING 2 %,
 * with subscriber ids uniform over 1..P.  A transaction that finds no row
 * to act on (no active facility, no access row of the type, no special
 * facility to update, a forwarding already there or not there) fails,
 * as the description counts it, and changes nothing.
 *
 * -e dora: the tables are routed by s_id (equal ranges over the
 * executors, which are the workers), and the transactions that know only
 * sub_nbr (UPDATE_LOCATION, INSERT_ and DELETE_CALL_FORWARDING) first run a
 * secondary action, routed by sub_nbr, that reads s_id from the index
 * (the index partitioned in equal ranges of sub_nbr's value: TM1's
 * sub_nbr is s_id in 15 digits, so its ranges are the subscribers', and
 * the primary actions follow on the executor the look-up ran on); UPDATE_SUBSCRIBER_DATA is the DORA report's parallel plan (the
 * subscriber and the special facility as two actions, the second failing
 * when the row is missing and the abort undoing the first).  Locks:
 * SUBSCRIBER (s_id), ACCESS_INFO (s_id, ai_type), SPECIAL_FACILITY (s_id,
 * sf_type), and the forwardings of a special facility (s_id, sf_type) as
 * one key-prefix lock.
 *
 * -e dora-inline: -e dora-private (tm1_private.c's tables and actions)
 * with inline executors (potm_dora_set_inline): each worker is an
 * executor generating its own transactions; what routes to itself runs
 * at once (inline_start), the rest goes through the rings, at most -W
 * transactions outstanding per executor.  -A (any DORA execution): each
 * executor draws its subscribers from the range it owns (tm1_affine).
 *
 * After the run: every table's structure, the forwarding count against
 * the population's plus the committed inserts minus the committed deletes,
 * and every forwarding's special facility present.
 */
#include "tm1.h"
#include "potm_bench.h"

#include <potm/dora.h>
#include <potm/store.h>
#include <potm/tm.h>

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

POTM_BENCH_EXPORT int potm_bench_tm1(int argc, char **argv);

#define TM1_DEFAULT_SUBSCRIBERS 100000
#define TM1_MAX_SUBSCRIBERS (1u << 22)
static const char *const tm1_keys[TM1_TYPES] = {
	"get_subscriber_data", "get_new_destination", "get_access_data",
	"update_subscriber_data", "update_location", "insert_call_forwarding",
	"delete_call_forwarding",
};

static uint64_t sub_nbr_key(const void *rec, uint64_t pkey)
{
	const tm1_subscriber_t *r = rec;   /* sub_nbr never changes */
	(void)pkey;
	return strtoull(r->sub_nbr, NULL, 10);
}

/* ---- the database and a run --------------------------------------------- */

static uint32_t rnd(bench_rng_t *r, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)bench_rng_below(r, (uint64_t)hi - lo + 1);
}

static void letters(bench_rng_t *r, char *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (char)('A' + rnd(r, 0, 25));
	out[n] = '\0';
}

static void digits(bench_rng_t *r, char *out)
{
	for (int i = 0; i < 15; i++)
		out[i] = (char)('0' + rnd(r, 0, 9));
	out[15] = '\0';
}

/* k distinct types of 1..4 (k in 1..4), in random order. */
static unsigned pick_types(bench_rng_t *r, uint32_t *types)
{
	uint32_t all[4] = { 1, 2, 3, 4 };
	for (unsigned i = 3; i > 0; i--) {
		unsigned j = rnd(r, 0, i);
		uint32_t t = all[i];
		all[i] = all[j];
		all[j] = t;
	}
	unsigned k = rnd(r, 1, 4);
	memcpy(types, all, k * sizeof *types);
	return k;
}

static int tm1_create(tm1_db_t *db)
{
	store_table_def_t defs[4] = {
		{ .name = "subscriber", .record_size = sizeof(tm1_subscriber_t),
		  .kind = STORE_HASH, .capacity = db->subscribers },
		{ .name = "access_info", .record_size = sizeof(tm1_access_info_t),
		  .kind = STORE_HASH, .capacity = db->subscribers * 5 / 2 },
		{ .name = "special_facility", .record_size = sizeof(tm1_special_facility_t),
		  .kind = STORE_HASH, .capacity = db->subscribers * 5 / 2 },
		{ .name = "call_forwarding", .record_size = sizeof(tm1_call_forwarding_t),
		  .kind = STORE_ORDERED },
	};
	db->sub = store_table_create(&defs[0]);
	db->ai = store_table_create(&defs[1]);
	db->sf = store_table_create(&defs[2]);
	db->cf = store_table_create(&defs[3]);
	if (db->sub == NULL || db->ai == NULL || db->sf == NULL || db->cf == NULL)
		return -1;
	db->by_nbr = store_index_create(db->sub, "sub_nbr", sub_nbr_key);
	return db->by_nbr == NULL ? -1 : 0;
}

/* The population, 256 subscribers per transaction, on the registered
 * calling thread. */
static void tm1_load(tm1_db_t *db)
{
	bench_rng_t rng;
	bench_rng_seed(&rng, db->seed, 0x7e1000);
	bench_rng_t *volatile r = &rng;
	tm1_db_t *volatile vdb = db;
	volatile uint64_t batch_cf = 0;
	for (uint64_t base = 1; base <= db->subscribers; base += 256) {
		uint64_t top = base + 255 < db->subscribers ? base + 255 : db->subscribers;
		bench_rng_t at = rng;   /* an attempt re-runs from the same stream */
		TM_BEGIN();
		*r = at;
		uint64_t cf = 0;
		for (uint64_t s = base; s <= top; s++) {
			tm1_subscriber_t su;
			memset(&su, 0, sizeof su);
			su.s_id = (int64_t)s;
			snprintf(su.sub_nbr, sizeof su.sub_nbr, "%015" PRIu64, s);
			for (int i = 0; i < 10; i++) {
				su.bit[i] = (uint8_t)rnd(r, 0, 1);
				su.hex[i] = (uint8_t)rnd(r, 0, 15);
				su.byte2[i] = (uint8_t)rnd(r, 0, 255);
			}
			su.msc_location = rnd(r, 1, UINT32_MAX);
			su.vlr_location = rnd(r, 1, UINT32_MAX);
			store_insert(vdb->sub, s, &su);
			uint32_t types[4];
			unsigned k = pick_types(r, types);
			for (unsigned i = 0; i < k; i++) {
				tm1_access_info_t a;
				memset(&a, 0, sizeof a);
				a.s_id = (int64_t)s;
				a.ai_type = (int32_t)types[i];
				a.data1 = (int32_t)rnd(r, 0, 255);
				a.data2 = (int32_t)rnd(r, 0, 255);
				letters(r, a.data3, 3);
				letters(r, a.data4, 5);
				store_insert(vdb->ai, ai_key(s, types[i]), &a);
			}
			k = pick_types(r, types);
			for (unsigned i = 0; i < k; i++) {
				tm1_special_facility_t f;
				memset(&f, 0, sizeof f);
				f.s_id = (int64_t)s;
				f.sf_type = (int32_t)types[i];
				f.is_active = rnd(r, 1, 100) <= 85;
				f.error_cntrl = (int32_t)rnd(r, 0, 255);
				f.data_a = (int32_t)rnd(r, 0, 255);
				letters(r, f.data_b, 5);
				store_insert(vdb->sf, ai_key(s, types[i]), &f);
				unsigned n = rnd(r, 0, 3);
				uint32_t starts[3] = { 0, 8, 16 };
				for (unsigned j = 0; j < n; j++) {
					unsigned x = rnd(r, j, 2);
					uint32_t st = starts[x];
					starts[x] = starts[j];
					starts[j] = st;
					tm1_call_forwarding_t c;
					memset(&c, 0, sizeof c);
					c.s_id = (int64_t)s;
					c.sf_type = (int32_t)types[i];
					c.start_time = (int32_t)st;
					c.end_time = (int32_t)(st + rnd(r, 1, 8));
					digits(r, c.numberx);
					store_insert(vdb->cf, cf_key(s, types[i], st), &c);
					cf++;
				}
			}
		}
		batch_cf = cf;
		TM_END();
		db->cf_loaded += batch_cf;
	}
}

static void tm1_destroy(tm1_db_t *db)
{
	store_table_t *t[4] = { db->sub, db->ai, db->sf, db->cf };
	for (int i = 0; i < 4; i++)
		if (t[i] != NULL)
			store_table_destroy(t[i]);
}

/* The input of one transaction of the mix, its subscriber uniform over
 * me's range (all of them, or with -A the executor's own). */
static void tm1_draw(const tm1_worker_t *me, bench_rng_t *r, tm1_in_t *in)
{
	memset(in, 0, sizeof *in);
	uint32_t p = rnd(r, 1, 100);
	in->type = p <= 35 ? GET_SUBSCRIBER_DATA : p <= 45 ? GET_NEW_DESTINATION
	         : p <= 80 ? GET_ACCESS_DATA : p <= 82 ? UPDATE_SUBSCRIBER_DATA
	         : p <= 96 ? UPDATE_LOCATION : p <= 98 ? INSERT_CALL_FORWARDING
	         : DELETE_CALL_FORWARDING;
	uint64_t s = rnd(r, (uint32_t)me->lo, (uint32_t)me->hi);
	if (in->type >= UPDATE_LOCATION)
		in->sub_nbr = s;   /* known by sub_nbr: a look-up first */
	else
		in->s_id = s;
	/* Only the parameters the type takes: the draw is the terminal's
	 * work, outside what the execution under test does, and a number a
	 * type ignores would be part of every transaction's cost. */
	switch (in->type) {
	case GET_SUBSCRIBER_DATA:
		break;
	case GET_NEW_DESTINATION:
		in->sf_type = rnd(r, 1, 4);
		in->start_time = 8 * rnd(r, 0, 2);
		in->end_time = rnd(r, 1, 24);
		break;
	case GET_ACCESS_DATA:
		in->ai_type = rnd(r, 1, 4);
		break;
	case UPDATE_SUBSCRIBER_DATA:
		in->bit_1 = rnd(r, 0, 1);
		in->sf_type = rnd(r, 1, 4);
		in->data_a = rnd(r, 0, 255);
		break;
	case UPDATE_LOCATION:
		in->vlr_location = rnd(r, 1, UINT32_MAX);
		break;
	case INSERT_CALL_FORWARDING:
		in->sf_type = rnd(r, 1, 4);
		in->start_time = 8 * rnd(r, 0, 2);
		in->end_time = in->start_time + rnd(r, 1, 8);
		digits(r, in->numberx);
		break;
	default:   /* DELETE_CALL_FORWARDING */
		in->sf_type = rnd(r, 1, 4);
		in->start_time = 8 * rnd(r, 0, 2);
		break;
	}
}

/* ---- the transactions' bodies (inside a transaction) --------------------
 *
 * Each returns 1 if it succeeded, 0 if it found nothing to act on (and
 * then changed nothing).  The same bodies serve both executions; under
 * DORA the writes log their undo through potm_dora_* (act != NULL). */

static int body_get_subscriber(tm1_db_t *db, const tm1_in_t *in)
{
	tm1_subscriber_t *su = store_get(db->sub, in->s_id);
	if (su == NULL)
		return 0;
	tm1_subscriber_t copy;
	store_read_bytes(&copy, su, sizeof copy);
	return 1;
}

static int body_get_new_destination(tm1_db_t *db, const tm1_in_t *in)
{
	tm1_special_facility_t *f = store_get(db->sf, ai_key(in->s_id, in->sf_type));
	if (f == NULL || TM_LOAD(&f->is_active) != 1)
		return 0;
	int found = 0;
	for (uint32_t st = 0; st <= in->start_time; st += 8) {
		tm1_call_forwarding_t *c = store_get(db->cf, cf_key(in->s_id, in->sf_type, st));
		if (c != NULL && (uint32_t)TM_LOAD(&c->end_time) > in->end_time) {
			char nbr[16];
			store_read_bytes(nbr, c->numberx, sizeof nbr);
			found = 1;
		}
	}
	return found;
}

static int body_get_access(tm1_db_t *db, const tm1_in_t *in)
{
	tm1_access_info_t *a = store_get(db->ai, ai_key(in->s_id, in->ai_type));
	if (a == NULL)
		return 0;
	tm1_access_info_t copy;
	store_read_bytes(&copy, a, sizeof copy);
	return 1;
}

static int body_update_subscriber(tm1_db_t *db, potm_dora_act_t *act, const tm1_in_t *in)
{
	tm1_subscriber_t *su = store_get(db->sub, in->s_id);
	if (su == NULL)
		return 0;
	if (act != NULL)
		potm_dora_save(act, db->sub, su, &su->bit[0], sizeof su->bit[0]);
	TM_STORE(&su->bit[0], (uint8_t)in->bit_1);
	return 1;
}

static int body_update_facility(tm1_db_t *db, potm_dora_act_t *act, const tm1_in_t *in)
{
	tm1_special_facility_t *f = store_get(db->sf, ai_key(in->s_id, in->sf_type));
	if (f == NULL)
		return 0;
	if (act != NULL)
		potm_dora_save(act, db->sf, f, &f->data_a, sizeof f->data_a);
	TM_STORE(&f->data_a, (int32_t)in->data_a);
	return 1;
}

static uint64_t lookup_nbr(tm1_db_t *db, uint64_t nbr)
{
	tm1_subscriber_t *su = store_index_get(db->by_nbr, nbr);
	return su == NULL ? 0 : store_key_of(su);
}

static int body_update_location(tm1_db_t *db, potm_dora_act_t *act, const tm1_in_t *in,
                                uint64_t s)
{
	tm1_subscriber_t *su = store_get(db->sub, s);
	if (su == NULL)
		return 0;
	if (act != NULL)
		potm_dora_save(act, db->sub, su, &su->vlr_location, sizeof su->vlr_location);
	TM_STORE(&su->vlr_location, in->vlr_location);
	return 1;
}

static int body_insert_cf(tm1_db_t *db, potm_dora_act_t *act, const tm1_in_t *in, uint64_t s)
{
	if (store_get(db->sf, ai_key(s, in->sf_type)) == NULL)
		return 0;
	uint64_t key = cf_key(s, in->sf_type, in->start_time);
	if (store_get(db->cf, key) != NULL)
		return 0;
	tm1_call_forwarding_t c;
	memset(&c, 0, sizeof c);
	c.s_id = (int64_t)s;
	c.sf_type = (int32_t)in->sf_type;
	c.start_time = (int32_t)in->start_time;
	c.end_time = (int32_t)in->end_time;
	memcpy(c.numberx, in->numberx, sizeof c.numberx);
	return (act != NULL ? potm_dora_insert(act, db->cf, key, &c)
	                    : store_insert(db->cf, key, &c)) != NULL;
}

static int body_delete_cf(tm1_db_t *db, potm_dora_act_t *act, const tm1_in_t *in, uint64_t s)
{
	uint64_t key = cf_key(s, in->sf_type, in->start_time);
	return act != NULL ? potm_dora_delete(act, db->cf, key) : store_delete(db->cf, key);
}

/* ---- conventional: one transaction each ---------------------------------- */

static int run_conventional(tm1_db_t *db, const tm1_in_t *in)
{
	volatile int ok = 0;
	TM_BEGIN();
	uint64_t s = in->s_id ? in->s_id : lookup_nbr(db, in->sub_nbr);
	switch (in->type) {
	case GET_SUBSCRIBER_DATA:
		ok = body_get_subscriber(db, in);
		break;
	case GET_NEW_DESTINATION:
		ok = body_get_new_destination(db, in);
		break;
	case GET_ACCESS_DATA:
		ok = body_get_access(db, in);
		break;
	case UPDATE_SUBSCRIBER_DATA:
		/* The facility first: a missing one changes nothing (the
		 * outcome of the rollback, also on seq). */
		ok = store_get(db->sf, ai_key(s, in->sf_type)) != NULL &&
		     body_update_subscriber(db, NULL, in) && body_update_facility(db, NULL, in);
		break;
	case UPDATE_LOCATION:
		ok = s != 0 && body_update_location(db, NULL, in, s);
		break;
	case INSERT_CALL_FORWARDING:
		ok = s != 0 && body_insert_cf(db, NULL, in, s);
		break;
	default:
		ok = s != 0 && body_delete_cf(db, NULL, in, s);
		break;
	}
	TM_END();
	return ok;
}

static void tm1_op(void *shared, bench_thread_t *self)
{
	tm1_db_t *db = shared;
	tm1_worker_t *me = &db->worker[self->id];
	tm1_in_t in;
	tm1_draw(me, &self->rng, &in);
	uint64_t t0 = bench_now_ns();
	int ok = run_conventional(db, &in);
	bench_lat_add(&me->lat[in.type], bench_now_ns() - t0);
	me->done[in.type]++;
	me->ok[in.type] += ok != 0;
}

/* ---- DORA ------------------------------------------------------------------ */

static int act_read(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	(void)a;
	switch (x->in.type) {
	case GET_SUBSCRIBER_DATA:
		x->found = body_get_subscriber(x->db, &x->in);
		break;
	case GET_NEW_DESTINATION:
		x->found = body_get_new_destination(x->db, &x->in);
		break;
	default:
		x->found = body_get_access(x->db, &x->in);
		break;
	}
	return 0;
}

static int act_upd_sub(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	return body_update_subscriber(x->db, a, &x->in) ? 0 : 1;
}

static int act_upd_sf(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	return body_update_facility(x->db, a, &x->in) ? 0 : 1;
}

/* The secondary action: s_id from the sub_nbr index (no lock: sub_nbr
 * and the set of subscribers never change). */
static int act_lookup(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	(void)a;
	x->s = lookup_nbr(x->db, x->in.sub_nbr);
	return x->s == 0;
}

static int act_by_nbr(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	int ok = x->in.type == UPDATE_LOCATION ? body_update_location(x->db, a, &x->in, x->s)
	       : x->in.type == INSERT_CALL_FORWARDING ? body_insert_cf(x->db, a, &x->in, x->s)
	       : body_delete_cf(x->db, a, &x->in, x->s);
	return ok ? 0 : 1;
}

/* The locks of the second phase of a transaction known by sub_nbr. */
static unsigned by_nbr_locks(const tm1_slot_t *x, potm_dora_lock_t *lk)
{
	unsigned n = 0;
	if (x->in.type == UPDATE_LOCATION) {
		lk[n++] = (potm_dora_lock_t){ LK_SUB, POTM_DORA_X, x->s };
	} else {
		if (x->in.type == INSERT_CALL_FORWARDING)
			lk[n++] = (potm_dora_lock_t){ LK_SF, POTM_DORA_S, ai_key(x->s, x->in.sf_type) };
		lk[n++] = (potm_dora_lock_t){ LK_CF, POTM_DORA_X, ai_key(x->s, x->in.sf_type) };
	}
	return n;
}

static void by_nbr_phase(potm_dora_tx_t *tx, void *ctx)
{
	tm1_slot_t *x = ctx;
	potm_dora_lock_t lk[2];
	unsigned n = by_nbr_locks(x, lk);
	potm_dora_add(tx, 0, x->s, x->db->acts->by_nbr, x, lk, n);
}

/* The locks of a read transaction's one action. */
static inline unsigned read_locks(const tm1_in_t *in, potm_dora_lock_t *lk)
{
	if (in->type == GET_SUBSCRIBER_DATA) {
		lk[0] = (potm_dora_lock_t){ LK_SUB, POTM_DORA_S, in->s_id };
		return 1;
	}
	if (in->type == GET_ACCESS_DATA) {
		lk[0] = (potm_dora_lock_t){ LK_AI, POTM_DORA_S, ai_key(in->s_id, in->ai_type) };
		return 1;
	}
	lk[0] = (potm_dora_lock_t){ LK_SF, POTM_DORA_S, ai_key(in->s_id, in->sf_type) };
	lk[1] = (potm_dora_lock_t){ LK_CF, POTM_DORA_S, ai_key(in->s_id, in->sf_type) };
	return 2;
}

/* The actions over the shared tables (-e dora). */
static const tm1_acts_t tm1_shared_acts = {
	.read = act_read, .upd_sub = act_upd_sub, .upd_sf = act_upd_sf,
	.lookup = act_lookup, .by_nbr = act_by_nbr,
};

static void slot_done(potm_dora_tx_t *tx, int outcome, void *ctx)
{
	tm1_slot_t *x = ctx;
	(void)tx;
	x->outcome = outcome;
	if (x->db->inline_mode) {
		/* On the submitter's own thread (potm_dora_set_inline): a
		 * plain list, no wake. */
		tm1_worker_t *me = &x->db->worker[x->owner];
		x->next = me->finished;
		me->finished = x;
		return;
	}
	atomic_store_explicit(&x->state, SLOT_DONE, memory_order_release);
	potm_dora_wake(x->db->d, x->owner);   /* its terminal may be idle */
}

static void slot_send(tm1_db_t *db, tm1_slot_t *x, potm_dora_tx_t *tx);
static void tally(tm1_worker_t *me, const tm1_slot_t *x);

static void slot_submit(tm1_db_t *db, tm1_slot_t *x)
{
	potm_dora_tx_t *tx = potm_dora_tx_new(db->d, slot_done, x);
	if (tx == NULL) {
		fprintf(stderr, "tm1: out of memory for a DORA transaction\n");
		abort();
	}
	const tm1_in_t *in = &x->in;
	x->found = 0;
	x->s = in->s_id;
	potm_dora_lock_t lk[2];
	const tm1_acts_t *f = db->acts;
	switch (in->type) {
	case GET_SUBSCRIBER_DATA:
	case GET_NEW_DESTINATION:
	case GET_ACCESS_DATA:
		potm_dora_add(tx, 0, in->s_id, f->read, x, lk, read_locks(in, lk));
		break;
	case UPDATE_SUBSCRIBER_DATA: {
		/* DORA's parallel plan: both actions in one phase. */
		potm_dora_lock_t ls = { LK_SUB, POTM_DORA_X, in->s_id };
		potm_dora_lock_t lf = { LK_SF, POTM_DORA_X, ai_key(in->s_id, in->sf_type) };
		potm_dora_add(tx, 0, in->s_id, f->upd_sub, x, &ls, 1);
		potm_dora_add(tx, 0, in->s_id, f->upd_sf, x, &lf, 1);
		break;
	}
	default:
		potm_dora_add(tx, 1, in->sub_nbr, f->lookup, x, NULL, 0);
		potm_dora_then(tx, by_nbr_phase, x);
		break;
	}
	slot_send(db, x, tx);
}

static inline void slot_send(tm1_db_t *db, tm1_slot_t *x, potm_dora_tx_t *tx)
{
	atomic_store_explicit(&x->state, SLOT_RUNNING, memory_order_relaxed);
	if (db->inline_mode) {
		db->worker[x->owner].outstanding++;
		while (potm_dora_submit_on(tx, x->owner) == POTM_DORA_PAUSED)
			potm_dora_serve(db->d, x->owner);
		return;
	}
	while (potm_dora_submit(tx) == POTM_DORA_PAUSED)
		potm_dora_serve(db->d, x->owner);
}

/* -e dora-inline: what of x's flow graph routes to its own executor runs
 * here and now (potm_dora_run_here); the rest is submitted.  The look-up
 * of a transaction known by sub_nbr takes no lock and reads what no
 * transaction changes, so running it before the second phase is built
 * is the flow graph's first phase; a second phase that routes elsewhere
 * is then submitted alone. */
static void inline_start(tm1_db_t *db, tm1_slot_t *x)
{
	potm_dora_t *d = db->d;
	const tm1_in_t *in = &x->in;
	const tm1_acts_t *f = db->acts;
	tm1_worker_t *me = &db->worker[x->owner];
	potm_dora_lock_t lk[2];
	int rc = POTM_DORA_NOT_HERE;
	x->found = 0;
	x->s = in->s_id;
	if (in->type <= GET_ACCESS_DATA) {
		rc = potm_dora_run_here(d, x->owner, 0, in->s_id, f->read, x, lk, read_locks(in, lk));
	} else if (in->type != UPDATE_SUBSCRIBER_DATA) {
		rc = potm_dora_run_here(d, x->owner, 1, in->sub_nbr, f->lookup, x, NULL, 0);
		if (rc == POTM_DORA_COMMITTED) {
			unsigned n = by_nbr_locks(x, lk);
			rc = potm_dora_run_here(d, x->owner, 0, x->s, f->by_nbr, x, lk, n);
			if (rc == POTM_DORA_NOT_HERE) {
				potm_dora_tx_t *tx = potm_dora_tx_new(d, slot_done, x);
				if (tx == NULL) {
					fprintf(stderr, "tm1: out of memory for a DORA transaction\n");
					abort();
				}
				potm_dora_add(tx, 0, x->s, f->by_nbr, x, lk, n);
				slot_send(db, x, tx);
				return;
			}
		}
	}
	if (rc == POTM_DORA_NOT_HERE) {
		slot_submit(db, x);
		return;
	}
	x->outcome = rc;
	tally(me, x);
	x->next = me->free;
	me->free = x;
}

static inline __attribute__((always_inline)) void tally(tm1_worker_t *me,
                                                      const tm1_slot_t *x)
{
	int ok = x->outcome == POTM_DORA_COMMITTED && (x->in.type > GET_ACCESS_DATA || x->found);
	bench_lat_add(&me->lat[x->in.type], bench_now_ns() - x->t0);
	me->done[x->in.type]++;
	me->ok[x->in.type] += ok;
}

static void reap(tm1_db_t *db, unsigned id)
{
	tm1_worker_t *me = &db->worker[id];
	for (unsigned k = 0; k < db->window; k++) {
		tm1_slot_t *x = &db->slots[id * db->window + k];
		if (atomic_load_explicit(&x->state, memory_order_acquire) != SLOT_DONE)
			continue;
		if (x->outcome == POTM_DORA_CONFLICT) {
			me->retries++;
			slot_submit(db, x);
			continue;
		}
		tally(me, x);
		atomic_store_explicit(&x->state, SLOT_FREE, memory_order_relaxed);
	}
}

/* -e dora-inline: the outcomes that arrived (a resubmission may finish
 * at once and land on the list again: taken whole first). */
static void inline_reap(tm1_db_t *db, unsigned id)
{
	tm1_worker_t *me = &db->worker[id];
	while (me->finished != NULL) {
		tm1_slot_t *x = me->finished;
		me->finished = NULL;
		for (tm1_slot_t *n; x != NULL; x = n) {
			n = x->next;
			me->outstanding--;
			if (x->outcome == POTM_DORA_CONFLICT) {
				me->retries++;
				slot_submit(db, x);
				continue;
			}
			tally(me, x);
			x->next = me->free;
			me->free = x;
		}
	}
}

/* With nothing to serve, sleep until an action or completion arrives or
 * one of this terminal's transactions finishes (slot_done wakes it). */
static void serve_or_idle(tm1_db_t *db, unsigned id)
{
	if (potm_dora_serve(db->d, id) == 0)
		potm_dora_idle(db->d, id);
}

static void tm1_dora_op(void *shared, bench_thread_t *self)
{
	tm1_db_t *db = shared;
	unsigned id = self->id;
	tm1_slot_t *x = NULL;
	for (;;) {
		reap(db, id);
		for (unsigned k = 0; k < db->window && x == NULL; k++)
			if (atomic_load_explicit(&db->slots[id * db->window + k].state,
			                         memory_order_relaxed) == SLOT_FREE)
				x = &db->slots[id * db->window + k];
		if (x != NULL)
			break;
		serve_or_idle(db, id);
	}
	tm1_draw(&db->worker[id], &self->rng, &x->in);
	x->t0 = bench_now_ns();
	slot_submit(db, x);
	potm_dora_serve(db->d, id);
}

static void tm1_dora_leave(void *shared, bench_thread_t *self)
{
	tm1_db_t *db = shared;
	unsigned id = self->id;
	for (;;) {
		reap(db, id);
		bool idle = true;
		for (unsigned k = 0; k < db->window; k++)
			idle &= atomic_load(&db->slots[id * db->window + k].state) == SLOT_FREE;
		if (idle)
			break;
		serve_or_idle(db, id);
	}
	atomic_fetch_add(&db->finished, 1);
	for (unsigned e = 0; e < db->threads; e++)
		potm_dora_wake(db->d, e);
	while (atomic_load(&db->finished) < db->threads || potm_dora_in_flight(db->d) != 0)
		serve_or_idle(db, id);
}

/* -e dora-inline: the executor is the terminal.  Its transactions on
 * its own subscribers finish inside the submission; the others take a
 * slot of the window until their outcome comes back through the rings,
 * which it polls between its own transactions: it never waits for a
 * remote answer while a slot is free. */
static void tm1_inline_op(void *shared, bench_thread_t *self)
{
	tm1_db_t *db = shared;
	unsigned id = self->id;
	tm1_worker_t *me = &db->worker[id];
	for (;;) {
		inline_reap(db, id);
		if (me->free != NULL)
			break;
		serve_or_idle(db, id);
	}
	tm1_slot_t *x = me->free;
	me->free = x->next;
	tm1_draw(&db->worker[id], &self->rng, &x->in);
	x->t0 = bench_now_ns();
	inline_start(db, x);
	potm_dora_serve(db->d, id);
}

static void tm1_inline_leave(void *shared, bench_thread_t *self)
{
	tm1_db_t *db = shared;
	unsigned id = self->id;
	for (;;) {
		inline_reap(db, id);
		if (db->worker[id].outstanding == 0)
			break;
		serve_or_idle(db, id);
	}
	atomic_fetch_add(&db->finished, 1);
	while (atomic_load(&db->finished) < db->threads || potm_dora_in_flight(db->d) != 0)
		serve_or_idle(db, id);
}

/* ---- checks ------------------------------------------------------------- */

typedef struct cf_walk {
	tm1_db_t *db;
	uint64_t n, orphans;
} cf_walk_t;

static int cf_visit(uint64_t key, void *rec, void *arg)
{
	cf_walk_t *w = arg;
	(void)rec;
	uint64_t s = key >> 4;
	uint32_t sf = (uint32_t)((key >> 2) & 3) + 1;
	w->n++;
	w->orphans += store_get(w->db->sf, ai_key(s, sf)) == NULL;
	return 0;
}

static void tm1_check(tm1_db_t *db, uint64_t inserted, uint64_t deleted, bench_verdict_t *v)
{
	store_table_t *t[4] = { db->sub, db->ai, db->sf, db->cf };
	for (int i = 0; i < 4; i++)
		if (store_check(t[i]) != 0)
			bench_fail(v, "%s", tm_last_error());
	cf_walk_t w = { .db = db };
	cf_walk_t *volatile vw = &w;
	TM_BEGIN();
	vw->n = vw->orphans = 0;
	store_scan(vw->db->cf, 0, UINT64_MAX, STORE_ASC, cf_visit, vw);
	TM_END();
	if (store_count(db->sub) != db->subscribers)
		bench_fail(v, "%zu subscribers, populated %" PRIu64, store_count(db->sub),
		           db->subscribers);
	if (w.n != db->cf_loaded + inserted - deleted)
		bench_fail(v, "%" PRIu64 " call forwardings: populated %" PRIu64 ", %" PRIu64
		           " inserted, %" PRIu64 " deleted", w.n, db->cf_loaded, inserted, deleted);
	if (w.orphans)
		bench_fail(v, "%" PRIu64 " call forwardings without their special facility",
		           w.orphans);
}

/* ---- the benchmark --------------------------------------------------------- */

/* -A: each executor's own range of subscribers under rule 0 (equal
 * contiguous ranges); 0, or -1 (a message printed) when one owns none. */
static int tm1_affine(tm1_db_t *db)
{
	for (unsigned e = 0; e < db->threads; e++)
		db->worker[e].lo = db->worker[e].hi = 0;
	for (uint64_t v = 1; v <= db->subscribers; v++) {
		tm1_worker_t *w = &db->worker[potm_dora_owner(db->d, 0, v)];
		if (w->lo == 0)
			w->lo = v;
		w->hi = v;
	}
	for (unsigned e = 0; e < db->threads; e++)
		if (db->worker[e].lo == 0) {
			fprintf(stderr, "tm1: -A: executor %u owns no subscriber (%u executors, "
			        "%" PRIu64 " subscribers)\n", e, db->threads, db->subscribers);
			return -1;
		}
	return 0;
}

static const char *const tm1_executions[] = { "conventional", "dora", "dora-private",
	                                       "dora-inline", NULL };

int potm_bench_tm1(int argc, char **argv)
{
	bench_common_t c = { .name = "tm1" };
	uint64_t subscribers = TM1_DEFAULT_SUBSCRIBERS, window = 0;
	unsigned execution = 0;
	bool affine = false;
	const bench_option_t opts[] = {
		{ 's', BENCH_OPT_UINT, "subscriber count",
		  "subscribers, the population's scale (default 100000)", 1,
		  TM1_MAX_SUBSCRIBERS, NULL, &subscribers, NULL },
		{ 'e', BENCH_OPT_CHOICE, "execution",
		  "conventional: each worker runs whole transactions; dora: the workers are "
		  "DORA executors owning ranges of subscribers; dora-private: the same over "
		  "private tables per executor, plain accesses, no TM; dora-inline: "
		  "dora-private with each executor running its own transactions on its own "
		  "subscribers at once and exchanging the rest through rings, no sleep "
		  "(default conventional)",
		  0, 0, tm1_executions, &execution, NULL },
		{ 'W', BENCH_OPT_UINT, "DORA window",
		  "-e dora, dora-private, dora-inline: transactions each terminal keeps "
		  "outstanding (default 4)", 1, TM1_WINDOW_MAX, NULL, &window, NULL },
		{ 'A', BENCH_OPT_FLAG, "affine terminals",
		  "-e dora, dora-private, dora-inline: each executor draws its transactions' "
		  "subscribers from the range it owns, as clients routed to their partition "
		  "(uniform over all of them when the executors run alike; default: every "
		  "executor draws from all)", 0, 0, NULL, &affine, NULL },
	};
	int rc = bench_parse(&c, "tm1: Nokia's TM1 (TATP): the subscriber database and its "
	                     "seven transactions in the standard mix, conventionally or "
	                     "under DORA", opts, sizeof opts / sizeof opts[0], argc, argv);
	if (rc != BENCH_EXIT_OK || c.help)
		return rc;
	if (execution == 0 && window != 0)
		return bench_usage_error(&c, "-W: the window needs -e dora, dora-private or "
		                         "dora-inline");
	if (window == 0)
		window = TM1_WINDOW;
	if (execution == 0 && affine)
		return bench_usage_error(&c, "-A: affine terminals need -e dora, dora-private or "
		                         "dora-inline");
	/* -e dora-private, dora-inline: the workers (executors) call no TM
	 * function. */
	c.unregistered = execution >= 2;
	tm1_db_t db = { .subscribers = subscribers, .threads = (unsigned)c.threads,
	                .seed = c.seed, .window = (unsigned)window,
	                .inline_mode = execution == 3 };
	db.worker = aligned_alloc(64, db.threads * sizeof *db.worker);
	db.slots = calloc((size_t)db.threads * db.window, sizeof *db.slots);
	if (db.worker == NULL || db.slots == NULL) {
		free(db.worker);
		free(db.slots);
		fprintf(stderr, "tm1: out of memory\n");
		return BENCH_EXIT_FAILED;
	}
	memset(db.worker, 0, db.threads * sizeof *db.worker);
	for (unsigned i = 0; i < db.threads; i++) {
		db.worker[i].lo = 1;
		db.worker[i].hi = subscribers;
	}
	rc = bench_tm_start(&c);
	if (rc != BENCH_EXIT_OK)
		goto out_free;
	rc = bench_enter_main(&c);
	if (rc != BENCH_EXIT_OK)
		goto out_stop;
	uint64_t t0 = bench_now_ns();
	if (tm1_create(&db) != 0) {
		fprintf(stderr, "tm1: %s\n", tm_last_error());
		tm1_destroy(&db);
		tm_thread_exit();
		rc = BENCH_EXIT_FAILED;
		goto out_stop;
	}
	tm1_load(&db);
	uint64_t load_ns = bench_now_ns() - t0;
	if (execution != 0) {
		db.d = potm_dora_create(db.threads, 2);
		db.acts = execution >= 2 ? &tm1_private_acts : &tm1_shared_acts;
		if (db.d == NULL || potm_dora_rule_range(db.d, 0, 1, subscribers) != 0 ||
		    potm_dora_rule_range(db.d, 1, 1, subscribers) != 0 ||
		    potm_dora_set_private(db.d, execution >= 2) != 0 ||
		    potm_dora_set_inline(db.d, execution == 3) != 0) {
			fprintf(stderr, "tm1: -e %s: %s\n", tm1_executions[execution],
			        tm_last_error());
			potm_dora_destroy(db.d);
			tm1_destroy(&db);
			tm_thread_exit();
			rc = BENCH_EXIT_USAGE;
			goto out_stop;
		}
		for (unsigned i = 0; i < db.threads; i++)
			for (unsigned k = 0; k < db.window; k++) {
				tm1_slot_t *x = &db.slots[i * db.window + k];
				x->db = &db;
				x->owner = i;
				x->next = db.worker[i].free;
				db.worker[i].free = x;
			}
		if (affine && tm1_affine(&db) != 0) {
			potm_dora_destroy(db.d);
			tm1_destroy(&db);
			tm_thread_exit();
			rc = BENCH_EXIT_USAGE;
			goto out_stop;
		}
		if (execution >= 2 && tm1_private_setup(&db) != 0) {
			potm_dora_destroy(db.d);
			tm1_destroy(&db);
			tm_thread_exit();
			rc = BENCH_EXIT_FAILED;
			goto out_stop;
		}
	}
	tm_thread_exit();

	tm_stats_reset();
	bench_run_result_t run;
	if (execution == 3)
		rc = bench_run_with(&c, tm1_inline_op, NULL, tm1_inline_leave, &db, &run);
	else if (execution != 0)
		rc = bench_run_with(&c, tm1_dora_op, NULL, tm1_dora_leave, &db, &run);
	else
		rc = bench_run(&c, tm1_op, &db, &run);
	tm_stats_t stats;
	tm_stats(&stats);
	potm_dora_stats_t dst;
	memset(&dst, 0, sizeof dst);
	if (db.d != NULL) {
		potm_dora_stats(db.d, &dst);
		potm_dora_destroy(db.d);
	}

	uint64_t done[TM1_TYPES] = { 0 }, ok[TM1_TYPES] = { 0 }, retries = 0, all = 0;
	bench_lat_t lat[TM1_TYPES];
	memset(lat, 0, sizeof lat);
	for (unsigned i = 0; i < db.threads; i++) {
		for (int k = 0; k < TM1_TYPES; k++) {
			done[k] += db.worker[i].done[k];
			ok[k] += db.worker[i].ok[k];
			bench_lat_merge(&lat[k], &db.worker[i].lat[k]);
		}
		retries += db.worker[i].retries;
	}
	bench_verdict_t verdict = { .failed = false };
	int enter_rc = bench_enter_main(&c);
	if (enter_rc == BENCH_EXIT_OK) {
		if (rc == BENCH_EXIT_OK && db.priv != NULL)
			tm1_private_check(&db, ok[INSERT_CALL_FORWARDING],
			                  ok[DELETE_CALL_FORWARDING], &verdict);
		else if (rc == BENCH_EXIT_OK)
			tm1_check(&db, ok[INSERT_CALL_FORWARDING], ok[DELETE_CALL_FORWARDING],
			          &verdict);
		tm1_destroy(&db);
		tm_thread_exit();
	}
	if (rc == BENCH_EXIT_OK)
		rc = enter_rc;
	if (rc != BENCH_EXIT_OK)
		goto out_stop;
	for (int k = 0; k < TM1_TYPES; k++)
		all += done[k];
	if (all != run.ops)
		bench_fail(&verdict, "the workers counted %" PRIu64 " transactions, the run %"
		           PRIu64, all, run.ops);

	bench_kv_t counts[2 * TM1_TYPES + 6];
	char names[2 * TM1_TYPES][48];
	size_t n = 0;
	for (int k = 0; k < TM1_TYPES; k++) {
		counts[n++] = BENCH_U64(tm1_keys[k], done[k]);
		snprintf(names[k], sizeof names[k], "%s_ok", tm1_keys[k]);
		counts[n++] = BENCH_U64(names[k], ok[k]);
	}
	counts[n++] = BENCH_U64("load_ms", load_ns / 1000000);
	counts[n++] = BENCH_U64("dora_actions", dst.actions);
	counts[n++] = BENCH_U64("dora_lock_waits", dst.lock_waits);
	counts[n++] = BENCH_U64("dora_retries", retries);
	counts[n++] = BENCH_U64("dora_undone_actions", dst.undone);
	counts[n++] = BENCH_U64("dora_inline_runs", dst.inline_runs);
	const bench_kv_t params[] = {
		BENCH_STR("workload", "tm1"),
		BENCH_U64("subscribers", subscribers),
		BENCH_STR("execution", tm1_executions[execution]),
		BENCH_U64("dora_window", execution != 0 ? window : 0),
		BENCH_U64("affine", affine),
	};
	rc = bench_finish(&c, params, sizeof params / sizeof params[0], counts, n, &run, &stats,
	                  &verdict);
out_stop:
	tm1_private_free(&db);
	bench_tm_stop();
out_free:
	free(db.worker);
	free(db.slots);
	return rc;
}

#ifdef POTM_TM1_MAIN
int main(int argc, char **argv)
{
	return potm_bench_tm1(argc, argv);
}
#endif

BENCH_REGISTER("tm1", potm_bench_tm1,
               "TM1 (TATP): the subscriber database's seven transactions, "
               "conventionally or under DORA");
