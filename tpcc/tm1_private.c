/*
 * tpcc/tm1_private.c — TM1 under DORA with private tables (tm1 -e
 * dora-private): DORA's physical partitioning.
 *
 * Each executor owns private tables (<potm/store_private.h>) holding the
 * SUBSCRIBER, ACCESS_INFO, SPECIAL_FACILITY and CALL_FORWARDING rows of
 * the subscribers its range rule (rule 0, by s_id) gives it, and a
 * private table from sub_nbr to s_id for the sub_nbrs that rule 1 (ranges
 * of sub_nbr) gives it: the secondary action of the transactions
 * that know only sub_nbr runs where that table is.  The flow graphs and
 * locks are those of -e dora (tm1.c); the actions read and write their
 * executor's tables with plain accesses and no backend transaction, and
 * an abort (UPDATE_SUBSCRIBER_DATA's missing facility) is undone from the
 * undo logs, all on the private store.
 *
 * Invariant E1: an action routed by s_id (or by sub_nbr) runs on the
 * executor that owns s_id (the sub_nbr) under rule 0 (rule 1), whose
 * tables hold every row of that subscriber (that sub_nbr); TM1 changes no
 * rule during a run, so the tables never change hands.
 */
#include "tm1.h"

#include <potm/store_private.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tm1_part {
	store_table_t *sub, *ai, *sf, *cf;
	store_table_t *nbr;       /* sub_nbr -> s_id (a uint64_t) */
} tm1_part_t;

typedef struct tm1_private {
	unsigned executors;
	tm1_part_t *part;         /* [executors] */
} tm1_private_t;

/* The tables of the executor running a (E1). */
static tm1_part_t *part_of(const tm1_slot_t *x, const potm_dora_act_t *a)
{
	return &x->db->priv->part[potm_dora_act_executor(a)];
}

/* ---- set-up ----------------------------------------------------------------- */

typedef struct copy_ctx {
	tm1_db_t *db;
	unsigned shift;           /* the key's s_id is key >> shift */
	size_t table;             /* offsetof in tm1_part_t */
	int failed;
} copy_ctx_t;

static store_table_t **slot_of(tm1_part_t *p, size_t off)
{
	return (store_table_t **)(void *)((char *)p + off);
}

static int copy_row(uint64_t key, void *rec, void *arg)
{
	copy_ctx_t *c = arg;
	tm1_private_t *pv = c->db->priv;
	unsigned e = potm_dora_owner(c->db->d, 0, key >> c->shift);
	if (store_private_insert(*slot_of(&pv->part[e], c->table), key, rec) == NULL)
		c->failed = 1;
	if (c->table == offsetof(tm1_part_t, sub)) {
		/* The sub_nbr entry on the executor rule 1 gives it. */
		const tm1_subscriber_t *su = rec;
		uint64_t nbr = strtoull(su->sub_nbr, NULL, 10);
		unsigned f = potm_dora_owner(c->db->d, 1, nbr);
		if (store_private_insert(pv->part[f].nbr, nbr, &key) == NULL)
			c->failed = 1;
	}
	return c->failed;
}

void tm1_private_free(tm1_db_t *db)
{
	tm1_private_t *pv = db->priv;
	if (pv == NULL)
		return;
	for (unsigned e = 0; pv->part != NULL && e < pv->executors; e++) {
		tm1_part_t *p = &pv->part[e];
		store_table_t *t[5] = { p->sub, p->ai, p->sf, p->cf, p->nbr };
		for (int i = 0; i < 5; i++)
			store_private_table_destroy(t[i]);
	}
	free(pv->part);
	free(pv);
	db->priv = NULL;
}

int tm1_private_setup(tm1_db_t *db)
{
	unsigned n = potm_dora_executors(db->d);
	tm1_private_t *pv = calloc(1, sizeof *pv);
	if (pv == NULL)
		goto oom;
	db->priv = pv;
	pv->executors = n;
	pv->part = calloc(n, sizeof *pv->part);
	if (pv->part == NULL)
		goto oom;
	/* Each executor's share of the population, and a little room. */
	size_t share = db->subscribers / n + 1;
	for (unsigned e = 0; e < n; e++) {
		tm1_part_t *p = &pv->part[e];
		store_table_def_t defs[5] = {
			{ .name = "subscriber", .record_size = sizeof(tm1_subscriber_t),
			  .kind = STORE_HASH, .capacity = share },
			{ .name = "access_info", .record_size = sizeof(tm1_access_info_t),
			  .kind = STORE_HASH, .capacity = share * 5 / 2 },
			{ .name = "special_facility", .record_size = sizeof(tm1_special_facility_t),
			  .kind = STORE_HASH, .capacity = share * 5 / 2 },
			{ .name = "call_forwarding", .record_size = sizeof(tm1_call_forwarding_t),
			  .kind = STORE_ORDERED },
			{ .name = "sub_nbr", .record_size = sizeof(uint64_t), .kind = STORE_HASH,
			  .capacity = share },
		};
		store_table_t **t[5] = { &p->sub, &p->ai, &p->sf, &p->cf, &p->nbr };
		for (int i = 0; i < 5; i++)
			if ((*t[i] = store_private_table_create(&defs[i])) == NULL)
				goto oom;
	}
	struct { store_table_t *from; unsigned shift; size_t to; } copies[4] = {
		{ db->sub, 0, offsetof(tm1_part_t, sub) },
		{ db->ai, 2, offsetof(tm1_part_t, ai) },
		{ db->sf, 2, offsetof(tm1_part_t, sf) },
		{ db->cf, 4, offsetof(tm1_part_t, cf) },
	};
	for (int i = 0; i < 4; i++) {
		copy_ctx_t c = { .db = db, .shift = copies[i].shift, .table = copies[i].to };
		store_walk(copies[i].from, copy_row, &c);
		if (c.failed) {
			fprintf(stderr, "tm1: -e dora-private: a key of %s is present twice\n",
			        store_table_name(copies[i].from));
			tm1_private_free(db);
			return -1;
		}
	}
	return 0;
oom:
	fprintf(stderr, "tm1: -e dora-private: out of memory for the private tables\n");
	tm1_private_free(db);
	return -1;
}

/* ---- actions ------------------------------------------------------------------ */

static int act_read(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	tm1_part_t *p = part_of(x, a);
	const tm1_in_t *in = &x->in;
	x->found = 0;
	if (in->type == GET_SUBSCRIBER_DATA) {
		const tm1_subscriber_t *su = store_private_get(p->sub, in->s_id);
		if (su != NULL) {
			x->out.sub = *su;
			x->found = 1;
		}
	} else if (in->type == GET_ACCESS_DATA) {
		const tm1_access_info_t *ai = store_private_get(p->ai, ai_key(in->s_id, in->ai_type));
		if (ai != NULL) {
			x->out.ai = *ai;
			x->found = 1;
		}
	} else {
		const tm1_special_facility_t *f = store_private_get(p->sf,
		                                                    ai_key(in->s_id, in->sf_type));
		if (f == NULL || f->is_active != 1)
			return 0;
		for (uint32_t st = 0; st <= in->start_time; st += 8) {
			const tm1_call_forwarding_t *c =
				store_private_get(p->cf, cf_key(in->s_id, in->sf_type, st));
			if (c != NULL && (uint32_t)c->end_time > in->end_time) {
				memcpy(x->out.numberx, c->numberx, sizeof c->numberx);
				x->found = 1;
			}
		}
	}
	return 0;
}

static int act_upd_sub(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	tm1_part_t *p = part_of(x, a);
	tm1_subscriber_t *su = store_private_get(p->sub, x->in.s_id);
	if (su == NULL)
		return 1;
	potm_dora_save(a, p->sub, su, &su->bit[0], sizeof su->bit[0]);
	su->bit[0] = (uint8_t)x->in.bit_1;
	return 0;
}

/* Fails when the facility is missing: the abort undoes act_upd_sub. */
static int act_upd_sf(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	tm1_part_t *p = part_of(x, a);
	tm1_special_facility_t *f = store_private_get(p->sf, ai_key(x->in.s_id, x->in.sf_type));
	if (f == NULL)
		return 1;
	potm_dora_save(a, p->sf, f, &f->data_a, sizeof f->data_a);
	f->data_a = (int32_t)x->in.data_a;
	return 0;
}

/* The secondary action, on the executor rule 1 gives sub_nbr (no lock: the
 * subscribers and their numbers never change). */
static int act_lookup(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	const uint64_t *s = store_private_get(part_of(x, a)->nbr, x->in.sub_nbr);
	x->s = s != NULL ? *s : 0;
	return x->s == 0;
}

static int act_by_nbr(potm_dora_act_t *a, void *arg)
{
	tm1_slot_t *x = arg;
	tm1_part_t *p = part_of(x, a);
	const tm1_in_t *in = &x->in;
	if (in->type == UPDATE_LOCATION) {
		tm1_subscriber_t *su = store_private_get(p->sub, x->s);
		if (su == NULL)
			return 1;
		potm_dora_save(a, p->sub, su, &su->vlr_location, sizeof su->vlr_location);
		su->vlr_location = in->vlr_location;
		return 0;
	}
	uint64_t key = cf_key(x->s, in->sf_type, in->start_time);
	if (in->type == DELETE_CALL_FORWARDING)
		return potm_dora_delete(a, p->cf, key) ? 0 : 1;
	if (store_private_get(p->sf, ai_key(x->s, in->sf_type)) == NULL ||
	    store_private_get(p->cf, key) != NULL)
		return 1;
	tm1_call_forwarding_t c;
	memset(&c, 0, sizeof c);
	c.s_id = (int64_t)x->s;
	c.sf_type = (int32_t)in->sf_type;
	c.start_time = (int32_t)in->start_time;
	c.end_time = (int32_t)in->end_time;
	memcpy(c.numberx, in->numberx, sizeof c.numberx);
	return potm_dora_insert(a, p->cf, key, &c) != NULL ? 0 : 1;
}

/* The actions of tm1.c's flow graphs (same locks) over the private
 * tables. */
const tm1_acts_t tm1_private_acts = {
	.read = act_read, .upd_sub = act_upd_sub, .upd_sf = act_upd_sf,
	.lookup = act_lookup, .by_nbr = act_by_nbr,
};

/* ---- checks ------------------------------------------------------------------------ */

typedef struct cf_count {
	const tm1_part_t *p;
	uint64_t n, orphans;
} cf_count_t;

static int cf_row(uint64_t key, void *rec, void *arg)
{
	cf_count_t *c = arg;
	(void)rec;
	c->n++;
	/* Its facility: the same subscriber, so the same executor (E1). */
	c->orphans += store_private_get(c->p->sf, ai_key(key >> 4, (uint32_t)((key >> 2) & 3) + 1))
	              == NULL;
	return 0;
}

void tm1_private_check(tm1_db_t *db, uint64_t inserted, uint64_t deleted, bench_verdict_t *v)
{
	tm1_private_t *pv = db->priv;
	uint64_t subs = 0, nbrs = 0;
	cf_count_t c = { .n = 0 };
	for (unsigned e = 0; e < pv->executors; e++) {
		const tm1_part_t *p = &pv->part[e];
		store_table_t *t[5] = { p->sub, p->ai, p->sf, p->cf, p->nbr };
		for (int i = 0; i < 5; i++)
			if (store_private_check(t[i]) != 0)
				bench_fail(v, "executor %u: %s", e, tm_last_error());
		subs += store_private_count(p->sub);
		nbrs += store_private_count(p->nbr);
		c.p = p;
		store_private_walk(p->cf, cf_row, &c);
	}
	if (subs != db->subscribers || nbrs != db->subscribers)
		bench_fail(v, "%" PRIu64 " subscribers and %" PRIu64 " numbers, populated %" PRIu64,
		           subs, nbrs, db->subscribers);
	if (c.n != db->cf_loaded + inserted - deleted)
		bench_fail(v, "%" PRIu64 " call forwardings: populated %" PRIu64 ", %" PRIu64
		           " inserted, %" PRIu64 " deleted", c.n, db->cf_loaded, inserted, deleted);
	if (c.orphans)
		bench_fail(v, "%" PRIu64 " call forwardings without their special facility", c.orphans);
}
