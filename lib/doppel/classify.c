/*
 * lib/doppel/classify.c — which records to split: the classifier and the
 * requests made by hand (dp_split/dp_join).
 *
 * Samples.  Each worker counts, in a small direct-mapped table of its own,
 * one in DP_SAMPLE_EVERY of its operations per (record, operation), and
 * every aborted attempt as a conflict of each operation that attempt made
 * (the backends do not say which address conflicted, so the abort is
 * blamed on the records the attempt used; hardware attempts roll the log
 * back with everything else, so on rtm and rot only aborts on the
 * software path are counted).
 *
 * Decision (the thesis's rule, §5): every t_c the coordinator adds up the
 * workers' tables.  For a record r and its best splittable operation op,
 *     savings = W_C * c_op + W_I * n_op - W_S * n_other
 *     impact  = 1000 * savings / (n - n_op + 1)          (per mille)
 * where n_op and c_op are r's sampled operations and conflicts of that
 * kind, n_other its operations of every other kind (each would be a
 * stashed transaction in a split phase) and n all sampled operations of
 * the window, on every record.  So impact weighs what splitting saves on r
 * against the rest of the work.  What a stash costs depends on its caller:
 * after dp_exec the worker goes on with other transactions (an abort and a
 * second run: W_S = 2), after dp_exec_wait it idles until the joined phase
 * (or, all workers blocked, forces an early phase change), which costs
 * far more than a second run.  So W_S grows by W_WAIT times the share of
 * transactions run by waiting callers.  r is split when impact reaches T_split
 * (POTM_DP_SPLIT_IMPACT; half of it once some record is split, since phase
 * changes are then paid for already) and joined again when it falls below
 * T_join.  With fewer than two online workers nothing is split: a lone
 * thread has neither conflicts nor cache lines to share.
 */
#include "doppel_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Weights: a conflict costs an aborted attempt and its retry, an
 * operation on a shared hot line a cache miss, a stash an abort plus a
 * second run in the joined phase. */
#define DP_W_CONFLICT 4
#define DP_W_OP 1
#define DP_W_STASH 2
#define DP_W_WAIT 1024

void dp_sample_conflicts(dp_worker_t *w)
{
	for (unsigned i = 0; i < w->nlog; i++) {
		dp_rec_t *r = w->log[i].rec;
		dp_sample_t *s = &w->samples[((uintptr_t)r >> 4) * 0x9E3779B97F4A7C15ull >> 54];
		if (__atomic_load_n(&s->rec, __ATOMIC_RELAXED) != r)
			continue;   /* not sampled yet: the next attempt may be */
		unsigned op = w->log[i].op;
		__atomic_store_n(&s->c[op], s->c[op] + 1, __ATOMIC_RELAXED);
	}
}

void dp_sample_reset_if_stale(dp_worker_t *w)
{
	uint64_t e = __atomic_load_n(&dp.sample_epoch, __ATOMIC_RELAXED);
	if (e == w->sample_epoch)
		return;
	__atomic_store_n(&w->sample_epoch, e, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < DP_SAMPLE_SLOTS; i++) {
		__atomic_store_n(&w->samples[i].rec, NULL, __ATOMIC_RELAXED);
		w->samples[i].hold = 0;
	}
}

/* ---- split and join ------------------------------------------------------- */

static bool dp_op_fits(const dp_rec_t *r, dp_op_t op)
{
	switch (r->kind) {
	case DP_INT: return op == DP_ADD || op == DP_MAX || op == DP_MIN;
	case DP_TUPLE: return op == DP_OPUT;
	case DP_TOPKSET: return op == DP_TOPK;
	}
	return false;
}

/* Coordinator, joined phase, every worker acknowledged it: no transaction
 * looks at split_op, and none runs in a split phase. */
bool dp_mark_split(dp_rec_t *r, dp_op_t op, bool by_hand)
{
	if (r->split_op == DP_GET) {
		unsigned slot = 0;
		while (slot < DP_MAX_SPLIT && dp.split[slot] != NULL)
			slot++;
		if (slot == DP_MAX_SPLIT)
			return false;
		dp.split[slot] = r;
		r->slot = slot;
		dp.nsplit++;
		DP_STAT_ADD(&dp.stats, splits, 1);
	}
	__atomic_store_n(&r->split_op, (uint8_t)op, __ATOMIC_RELAXED);
	r->by_hand = by_hand;
	return true;
}

void dp_mark_joined(dp_rec_t *r)
{
	if (r->split_op == DP_GET)
		return;
	dp.split[r->slot] = NULL;
	dp.nsplit--;
	__atomic_store_n(&r->split_op, DP_GET, __ATOMIC_RELAXED);
	r->by_hand = 0;
	DP_STAT_ADD(&dp.stats, joins, 1);
}

dp_op_t dp_split_op(const dp_rec_t *r)
{
	return (dp_op_t)__atomic_load_n(&r->split_op, __ATOMIC_RELAXED);
}

static int dp_request(dp_rec_t *r, dp_op_t op)
{
	if (!dp.up)
		return potm_error("%s before dp_init()", op == DP_GET ? "dp_join" : "dp_split");
	pthread_mutex_lock(&dp.req_lock);
	if (dp.nreq == dp.req_cap) {
		dp.req_cap = dp.req_cap ? 2 * dp.req_cap : 16;
		dp.req = potm_xrealloc(dp.req, dp.req_cap * sizeof *dp.req);
	}
	dp.req[dp.nreq++] = (struct dp_request){ r, op };
	pthread_mutex_unlock(&dp.req_lock);
	return 0;
}

int dp_split(dp_rec_t *r, dp_op_t op)
{
	static const char *const names[] = { "DP_GET", "DP_PUT", "DP_ADD", "DP_MAX",
	                                     "DP_MIN", "DP_OPUT", "DP_TOPK" };
	if ((unsigned)op >= DP_NOPS || !dp_op_fits(r, op))
		return potm_error("dp_split: %s is not a splittable operation of this "
		                  "record's kind (DP_INT: DP_ADD, DP_MAX, DP_MIN; DP_TUPLE: "
		                  "DP_OPUT; DP_TOPKSET: DP_TOPK)",
		                  (unsigned)op < DP_NOPS ? names[op] : "an unknown operation");
	if (strcmp(tm_backend_name(), "seq") == 0)
		return potm_error("dp_split: the seq backend cannot roll back a transaction, "
		                  "which stashing needs (and runs one thread: nothing to split)");
	return dp_request(r, op);
}

int dp_join(dp_rec_t *r)
{
	return dp_request(r, DP_GET);
}

void dp_apply_requests(void)
{
	pthread_mutex_lock(&dp.req_lock);
	for (unsigned i = 0; i < dp.nreq; i++) {
		struct dp_request q = dp.req[i];
		if (q.op == DP_GET)
			dp_mark_joined(q.rec);
		else if (!dp_mark_split(q.rec, q.op, true) && potm_cfg.verbose)
			fprintf(stderr, "potm: dp_split: %d records are split already\n", DP_MAX_SPLIT);
	}
	dp.nreq = 0;
	pthread_mutex_unlock(&dp.req_lock);
}

/* ---- the classifier --------------------------------------------------------- */

typedef struct dp_tally {
	dp_rec_t *rec;
	uint64_t n[DP_NOPS], c[DP_NOPS];
} dp_tally_t;

/* Open addressing over the workers' samples. */
static dp_tally_t *dp_tally_slot(dp_tally_t *t, size_t cap, dp_rec_t *r)
{
	size_t i = ((uintptr_t)r >> 4) * 0x9E3779B97F4A7C15ull >> 20 & (cap - 1);
	while (t[i].rec != NULL && t[i].rec != r)
		i = (i + 1) & (cap - 1);
	t[i].rec = r;
	return &t[i];
}

/* W_S in 1/64ths (see the top). */
static int64_t dp_stash_weight64(uint64_t calls, uint64_t wait_calls)
{
	return 64 * DP_W_STASH + (calls ? (int64_t)(64 * DP_W_WAIT * wait_calls / calls) : 0);
}

static int64_t dp_impact(const dp_tally_t *e, dp_op_t op, uint64_t n_all, int64_t w_stash64)
{
	uint64_t other = 0;
	for (unsigned k = 0; k < DP_NOPS; k++)
		if (k != (unsigned)op)
			other += e->n[k];
	int64_t savings64 = 64 * (DP_W_CONFLICT * (int64_t)e->c[op] + DP_W_OP * (int64_t)e->n[op]) -
	                    w_stash64 * (int64_t)other;
	return 1000 * savings64 / 64 / (int64_t)(n_all - e->n[op] + 1);
}

void dp_classify(void)
{
	unsigned online = 0, nworkers = 0;
	pthread_mutex_lock(&dp.reg_lock);
	for (unsigned i = 0; i < dp.max_workers; i++)
		if (dp.workers[i] != NULL)
			nworkers++;
	size_t cap = 1024;
	while (cap < 2 * (size_t)(nworkers + 1) * DP_SAMPLE_SLOTS)
		cap *= 2;
	dp_tally_t *t = calloc(cap, sizeof *t);
	if (t == NULL) {
		pthread_mutex_unlock(&dp.reg_lock);
		return;   /* no memory for statistics: keep the current splits */
	}
	uint64_t n_all = 0, calls = 0, wait_calls = 0;
	for (unsigned i = 0; i < dp.max_workers; i++) {
		dp_worker_t *w = dp.workers[i];
		if (w == NULL)
			continue;
		calls += __atomic_load_n(&w->calls, __ATOMIC_RELAXED);
		wait_calls += __atomic_load_n(&w->wait_calls, __ATOMIC_RELAXED);
		if (__atomic_load_n(&w->seen, __ATOMIC_ACQUIRE) != DP_OFFLINE)
			online++;
		if (__atomic_load_n(&w->sample_epoch, __ATOMIC_RELAXED) != dp.sample_epoch)
			continue;   /* has not cleared the last window's samples */
		for (unsigned j = 0; j < DP_SAMPLE_SLOTS; j++) {
			dp_sample_t *s = &w->samples[j];
			dp_rec_t *r = __atomic_load_n(&s->rec, __ATOMIC_RELAXED);
			if (r == NULL)
				continue;
			dp_tally_t *e = dp_tally_slot(t, cap, r);
			for (unsigned k = 0; k < DP_NOPS; k++) {
				uint64_t n = __atomic_load_n(&s->n[k], __ATOMIC_RELAXED);
				e->n[k] += n;
				e->c[k] += __atomic_load_n(&s->c[k], __ATOMIC_RELAXED);
				n_all += n;
			}
		}
	}
	pthread_mutex_unlock(&dp.reg_lock);
	int64_t w_stash64 = dp_stash_weight64(calls, wait_calls);

	/* Join first: split records that fell below T_join (or were not
	 * used at all in the window). */
	for (unsigned slot = 0; slot < DP_MAX_SPLIT; slot++) {
		dp_rec_t *r = dp.split[slot];
		if (r == NULL || r->by_hand)
			continue;
		dp_tally_t *e = dp_tally_slot(t, cap, r);
		if (online < 2 || dp_impact(e, (dp_op_t)r->split_op, n_all, w_stash64) < dp.join_impact)
			dp_mark_joined(r);
	}
	if (online >= 2) {
		for (size_t i = 0; i < cap; i++) {
			dp_tally_t *e = &t[i];
			if (e->rec == NULL || e->rec->split_op != DP_GET)
				continue;
			dp_op_t best = DP_GET;
			int64_t best_impact = INT64_MIN;
			for (dp_op_t op = DP_ADD; op < DP_NOPS; op++) {
				if (!dp_op_fits(e->rec, op) || e->n[op] + e->c[op] == 0)
					continue;
				int64_t im = dp_impact(e, op, n_all, w_stash64);
				if (im > best_impact) {
					best = op;
					best_impact = im;
				}
			}
			int64_t threshold = dp.nsplit ? dp.split_impact / 2 : dp.split_impact;
			if (best != DP_GET && best_impact >= threshold)
				dp_mark_split(e->rec, best, false);
		}
	}
	free(t);
	__atomic_store_n(&dp.sample_epoch, dp.sample_epoch + 1, __ATOMIC_RELAXED);
	DP_STAT_ADD(&dp.stats, classified, 1);
}
