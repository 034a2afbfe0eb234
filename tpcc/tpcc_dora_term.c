/*
 * tpcc/tpcc_dora_term.c — the terminals of TPC-C under DORA, shared by
 * -e dora (tpcc_dora.c) and -e dora-private (tpcc_dora_private.c).
 *
 * The workers are the executors: worker e serves executor e and is also
 * terminal e, with up to db->dora_window (-W) of its transactions in
 * flight, one per slot.  A slot's transaction is built by the
 * execution's flow graph of its type (tpcc_dora_ops_t).  A transaction
 * that dies on a lock (POTM_DORA_CONFLICT) is submitted again with the
 * same input; the tallies and the latency (submission to the outcome's
 * reaping) are those of tpcc_op.
 */
#include "tpcc_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tpcc_dora_open(tpcc_dora_run_t *r, const char *what, bool private_tables)
{
	tpcc_db_t *db = r->db;
	r->d = potm_dora_create(db->threads, 1);
	if (r->d == NULL) {
		fprintf(stderr, "tpcc: %s: %s\n", what, tm_last_error());
		return BENCH_EXIT_USAGE;
	}
	if (potm_dora_rule_range(r->d, TPCC_DORA_RULE, 1, db->warehouses) != 0 ||
	    (private_tables && potm_dora_set_private(r->d, 1) != 0)) {
		fprintf(stderr, "tpcc: %s: %s\n", what, tm_last_error());
		tpcc_dora_close(r);
		return BENCH_EXIT_FAILED;
	}
	r->term = aligned_alloc(64, db->threads * sizeof *r->term);
	if (r->term == NULL) {
		fprintf(stderr, "tpcc: %s: out of memory for the DORA terminals\n", what);
		tpcc_dora_close(r);
		return BENCH_EXIT_FAILED;
	}
	memset(r->term, 0, db->threads * sizeof *r->term);
	for (unsigned i = 0; i < db->threads; i++)
		for (unsigned k = 0; k < TPCC_DORA_WINDOW_MAX; k++) {
			r->term[i].slot[k].run = r;
			r->term[i].slot[k].owner = i;
		}
	return 0;
}

void tpcc_dora_close(tpcc_dora_run_t *r)
{
	potm_dora_destroy(r->d);
	r->d = NULL;
	free(r->term);
	r->term = NULL;
}

static void slot_done(potm_dora_tx_t *tx, int outcome, void *ctx)
{
	tpcc_dora_slot_t *s = ctx;
	(void)tx;
	s->outcome = outcome;
	atomic_store_explicit(&s->state, TPCC_SLOT_DONE, memory_order_release);
	potm_dora_wake(s->run->d, s->owner);   /* its terminal may sleep in potm_dora_idle */
}

/* Build s's request as a new transaction and submit it (serving this
 * executor while admissions are held). */
static void slot_submit(tpcc_dora_run_t *r, tpcc_dora_slot_t *s)
{
	atomic_store(&s->missing, NULL);
	atomic_store(&s->rolled_back, false);
	memset(&s->res, 0, sizeof s->res);
	potm_dora_tx_t *tx = potm_dora_tx_new(r->d, slot_done, s);
	if (tx == NULL) {
		fprintf(stderr, "tpcc: out of memory for a DORA transaction\n");
		abort();
	}
	r->ops->graph[s->req.type](tx, s);
	atomic_store_explicit(&s->state, TPCC_SLOT_RUNNING, memory_order_relaxed);
	while (potm_dora_submit(tx) == POTM_DORA_PAUSED)
		potm_dora_serve(r->d, s->owner);
}

/* Tally the finished transactions of terminal id; submit again those
 * that died on a lock. */
static void reap(tpcc_dora_run_t *r, unsigned id)
{
	tpcc_db_t *db = r->db;
	tpcc_worker_t *me = &db->worker[id];
	for (unsigned k = 0; k < TPCC_DORA_WINDOW_MAX; k++) {
		tpcc_dora_slot_t *s = &r->term[id].slot[k];
		if (atomic_load_explicit(&s->state, memory_order_acquire) != TPCC_SLOT_DONE)
			continue;
		if (s->outcome == POTM_DORA_CONFLICT) {
			r->term[id].retries++;
			slot_submit(r, s);
			continue;
		}
		s->res.rolled_back = s->outcome != POTM_DORA_COMMITTED && atomic_load(&s->rolled_back);
		s->res.missing = s->res.rolled_back ? NULL : atomic_load(&s->missing);
		if (s->outcome != POTM_DORA_COMMITTED && !s->res.rolled_back && s->res.missing == NULL)
			s->res.missing = "an action aborted without a reason";
		if (s->req.type == TPCC_NEW_ORDER)
			s->res.out.new_order.rolled_back = s->res.rolled_back;
		tpcc_tally(me, &s->req, &s->res, id % db->warehouses + 1);
		bench_lat_add(&me->lat[s->req.type], bench_now_ns() - s->t0);
		me->done[s->req.type]++;
		atomic_store_explicit(&s->state, TPCC_SLOT_FREE, memory_order_relaxed);
	}
}

/* Serve; with nothing to do, sleep until work arrives (a queued action
 * or completion, or one of this terminal's transactions finishing:
 * slot_done wakes it). */
static void serve_or_idle(tpcc_dora_run_t *r, unsigned id)
{
	if (potm_dora_serve(r->d, id) == 0)
		potm_dora_idle(r->d, id);
}

/* One operation: one transaction of terminal self->id submitted. */
static void term_op(void *shared, bench_thread_t *self)
{
	tpcc_dora_run_t *r = shared;
	tpcc_db_t *db = r->db;
	unsigned id = self->id;
	tpcc_worker_t *me = &db->worker[id];
	tpcc_dora_slot_t *s = NULL;
	for (;;) {
		reap(r, id);
		for (unsigned k = 0; k < db->dora_window && s == NULL; k++)
			if (atomic_load_explicit(&r->term[id].slot[k].state, memory_order_relaxed) ==
			    TPCC_SLOT_FREE)
				s = &r->term[id].slot[k];
		if (s != NULL)
			break;
		serve_or_idle(r, id);
	}
	uint32_t w = id % db->warehouses + 1;
	enum tpcc_tx_type type = tpcc_pick_type(db, &self->rng);
	int64_t now = tpcc_now(db, id, me->clock++);
	s->t0 = bench_now_ns();
	tpcc_draw(db, me, &self->rng, id, w, type, now, &s->req);
	slot_submit(r, s);
	potm_dora_serve(r->d, id);
}

/* After the last operation: finish this terminal's transactions, then
 * serve until every terminal has finished and nothing is in flight (the
 * others may still route actions here; serving with a sleep's timeout
 * notices the end). */
static void term_leave(void *shared, bench_thread_t *self)
{
	tpcc_dora_run_t *r = shared;
	unsigned id = self->id;
	for (;;) {
		reap(r, id);
		bool idle = true;
		for (unsigned k = 0; k < TPCC_DORA_WINDOW_MAX; k++)
			idle &= atomic_load_explicit(&r->term[id].slot[k].state,
			                             memory_order_relaxed) == TPCC_SLOT_FREE;
		if (idle)
			break;
		serve_or_idle(r, id);
	}
	atomic_fetch_add(&r->finished, 1);
	for (unsigned e = 0; e < r->db->threads; e++)
		potm_dora_wake(r->d, e);
	while (atomic_load(&r->finished) < r->db->threads || potm_dora_in_flight(r->d) != 0)
		serve_or_idle(r, id);
}

/* The resource manager (-R): every reroute_ms, a random range of
 * warehouses goes to a random executor, behind potm_dora_reroute's
 * quiescence (private tables go with their warehouse), until the run
 * ends. */
static void *resource_manager(void *arg)
{
	tpcc_dora_run_t *r = arg;
	bench_rng_t rng;
	bench_rng_seed(&rng, r->db->seed, r->ops->reroute_seed);
	uint32_t w = r->db->warehouses;
	while (!atomic_load(&r->stop)) {
		struct timespec ts = { .tv_sec = (time_t)(r->reroute_ms / 1000),
		                       .tv_nsec = (long)(r->reroute_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
		if (atomic_load(&r->stop))
			break;
		uint32_t lo = tpcc_rand(&rng, 1, w), hi = tpcc_rand(&rng, lo, w);
		unsigned e = (unsigned)bench_rng_below(&rng, r->db->threads);
		if (potm_dora_reroute(r->d, TPCC_DORA_RULE, lo, hi, e) == 0)
			r->reroutes++;
	}
	return NULL;
}

int tpcc_dora_drive(tpcc_dora_run_t *r, const bench_common_t *c, bench_run_result_t *run,
                    potm_dora_stats_t *st)
{
	pthread_t rm;
	bool rm_running =
		r->reroute_ms != 0 && pthread_create(&rm, NULL, resource_manager, r) == 0;
	int rc = bench_run_with(c, term_op, NULL, term_leave, r, run);
	if (rm_running) {
		atomic_store(&r->stop, 1);
		pthread_join(rm, NULL);
	}
	potm_dora_stats(r->d, st);
	tpcc_dora_close(r);
	return rc;
}
