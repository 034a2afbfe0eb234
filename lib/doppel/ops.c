/*
 * lib/doppel/ops.c — Doppel records: their operations inside transactions,
 * the per-thread slices of split records, and reconciliation.
 *
 * In a joined phase every operation is an ordinary transactional access
 * (tm_read/tm_write on the record's fields).  In a split phase the
 * selected operation on a split record is only logged (dp_pending_t) and,
 * once the transaction commits, folded into the thread's slice; the
 * record itself is not touched, so the updates of all threads run without
 * conflicts.  Reconciliation merges each slice into its record under the
 * record's lock.  The merge is the operation itself, so the result is the
 * same as applying every committed operation to the record one by one in
 * any order: add, max and min commute; an ordered put keeps the largest
 * (order, thread id), a top-K set the K largest (order, value) — both
 * total orders, so which thread reconciles first does not matter.
 *
 * Invariant (R1): while a record is split, no transaction reads or writes
 * its fields (split-phase transactions only log the selected operation and
 * stash on anything else; joined-phase stragglers finish before the
 * reconcile phase begins, and the joined phase begins only once every
 * slice is merged).  So reconciliation may use plain loads and stores.
 */
#include "doppel_internal.h"

#include <stdlib.h>

/* ---- records ------------------------------------------------------------ */

static void dp_rec_clear(dp_rec_t *r, dp_kind_t kind)
{
	memset(r, 0, sizeof *r);
	r->kind = (uint8_t)kind;
	r->split_op = DP_GET;
}

void dp_rec_init_int(dp_rec_t *r, int64_t v)
{
	dp_rec_clear(r, DP_INT);
	r->value = v;
}

void dp_rec_init_tuple(dp_rec_t *r)
{
	dp_rec_clear(r, DP_TUPLE);
	r->order = INT64_MIN;
	r->tid = -1;
}

int dp_rec_init_topk(dp_rec_t *r, unsigned k)
{
	if (k < 1 || k > DP_TOPK_MAX)
		return potm_error("dp_rec_init_topk: k = %u; allowed: 1..%d", k, DP_TOPK_MAX);
	dp_rec_clear(r, DP_TOPKSET);
	r->topk = calloc(k, sizeof *r->topk);
	if (r->topk == NULL)
		return potm_error("dp_rec_init_topk: out of memory");
	r->k = (uint8_t)k;
	return 0;
}

void dp_rec_destroy(dp_rec_t *r)
{
	if (r->kind == DP_TOPKSET)
		free(r->topk);
	r->topk = NULL;
}

static const char *const dp_kind_names[] = { "DP_INT", "DP_TUPLE", "DP_TOPKSET" };

/* The record's kind must be want; the operation runs inside dp_exec. */
static inline dp_worker_t *dp_op_check(dp_rec_t *r, dp_kind_t want, const char *which)
{
	dp_worker_t *w = dp_me;
	if (unlikely(w == NULL || !w->in_exec || !tm_in_tx()))
		potm_fatal("%s outside a transaction run by dp_exec()%s", which,
		           w == NULL ? " (the thread did not call dp_thread_enter())" : "");
	if (unlikely(r->kind != want))
		potm_fatal("%s on a %s record (it needs a %s record)", which,
		           r->kind <= DP_TOPKSET ? dp_kind_names[r->kind] : "corrupt",
		           dp_kind_names[want]);
	return w;
}

/* Abort the transaction and stash it for the next joined phase.  On the
 * hardware path of an HTM backend the flag would be rolled back with the
 * transaction, so restart instead: the backend retries, eventually on its
 * software path, where the same operation lands here again and the flag
 * survives tm_cancel. */
static void dp_stash_now(dp_worker_t *w) __attribute__((noreturn));
static void dp_stash_now(dp_worker_t *w)
{
	w->stash_req = true;
	if (dp.htm && !(tm_self_->flags & TM_TXD_UNDO))
		tm_restart();
	tm_cancel();
}

/* Split phase routing: true if op on r goes to the slice.  Any other
 * operation on a split record stashes the transaction (does not return). */
static inline bool dp_route(dp_worker_t *w, dp_rec_t *r, dp_op_t op)
{
	dp_sample_op(w, r, op);
	if (likely(dp_phase_of(w->phase) != DP_PHASE_SPLIT))
		return false;
	unsigned s = r->split_op;   /* stable for the whole split phase */
	if (likely(s == DP_GET))
		return false;
	if (s == (unsigned)op)
		return true;
	dp_stash_now(w);
}

static void dp_log_pending(dp_worker_t *w, dp_rec_t *r, dp_op_t op, int64_t x, int64_t y)
{
	if (unlikely(w->npending == w->pending_cap)) {
		/* Outside the hardware path the growth survives an abort; on it
		 * the realloc may abort the transaction, which then retries. */
		w->pending_cap = w->pending_cap ? 2 * w->pending_cap : 16;
		w->pending = potm_xrealloc(w->pending, w->pending_cap * sizeof *w->pending);
	}
	w->pending[w->npending++] = (dp_pending_t){ r->slot, op, x, y };
}

/* ---- integer records --------------------------------------------------- */

static inline int64_t dp_tm_get(int64_t *a)
{
	return (int64_t)tm_read_u64((uint64_t *)a);
}

static inline void dp_tm_set(int64_t *a, int64_t v)
{
	tm_write_u64((uint64_t *)a, (uint64_t)v);
}

int64_t dp_get(dp_rec_t *r)
{
	dp_worker_t *w = dp_op_check(r, DP_INT, "dp_get");
	dp_route(w, r, DP_GET);
	return dp_tm_get(&r->value);
}

void dp_put(dp_rec_t *r, int64_t v)
{
	dp_worker_t *w = dp_op_check(r, DP_INT, "dp_put");
	dp_route(w, r, DP_PUT);
	dp_tm_set(&r->value, v);
}

/* add, max and min: to the slice while the record is split for op, else a
 * transactional read-modify-write. */
static void dp_int_update(dp_rec_t *r, dp_op_t op, int64_t v, const char *what)
{
	dp_worker_t *w = dp_op_check(r, DP_INT, what);
	if (dp_route(w, r, op)) {
		dp_log_pending(w, r, op, v, 0);
		return;
	}
	int64_t cur = dp_tm_get(&r->value);
	if (op == DP_ADD)
		dp_tm_set(&r->value, cur + v);
	else if (op == DP_MAX ? v > cur : v < cur)
		dp_tm_set(&r->value, v);
}

void dp_add(dp_rec_t *r, int64_t v)
{
	dp_int_update(r, DP_ADD, v, "dp_add");
}

void dp_max(dp_rec_t *r, int64_t v)
{
	dp_int_update(r, DP_MAX, v, "dp_max");
}

void dp_min(dp_rec_t *r, int64_t v)
{
	dp_int_update(r, DP_MIN, v, "dp_min");
}

/* ---- ordered tuples ------------------------------------------------------ */

/* Does (order, tid) beat the tuple's (cur_order, cur_tid)?  A total order,
 * so merging slices in any order gives the serial result. */
static inline bool dp_oput_wins(int64_t order, int64_t tid, int64_t cur_order, int64_t cur_tid)
{
	return order > cur_order || (order == cur_order && tid > cur_tid);
}

void dp_oput(dp_rec_t *r, int64_t order, int64_t value)
{
	dp_worker_t *w = dp_op_check(r, DP_TUPLE, "dp_oput");
	if (dp_route(w, r, DP_OPUT)) {
		dp_log_pending(w, r, DP_OPUT, order, value);
		return;
	}
	if (dp_oput_wins(order, w->id, dp_tm_get(&r->order), dp_tm_get(&r->tid))) {
		dp_tm_set(&r->order, order);
		dp_tm_set(&r->tid, w->id);
		dp_tm_set(&r->value, value);
	}
}

bool dp_get_tuple(dp_rec_t *r, int64_t *order, int64_t *value, int64_t *tid)
{
	dp_worker_t *w = dp_op_check(r, DP_TUPLE, "dp_get_tuple");
	dp_route(w, r, DP_GET);
	int64_t t = dp_tm_get(&r->tid);
	if (t < 0)
		return false;
	if (order)
		*order = dp_tm_get(&r->order);
	if (value)
		*value = dp_tm_get(&r->value);
	if (tid)
		*tid = t;
	return true;
}

/* ---- top-K sets ---------------------------------------------------------- */

static inline int dp_topk_cmp(int64_t o1, int64_t v1, int64_t o2, int64_t v2)
{
	if (o1 != o2)
		return o1 > o2 ? 1 : -1;
	return v1 > v2 ? 1 : v1 < v2 ? -1 : 0;
}

/* Insert into e[0..*n), largest first, capacity k.  Returns the index of
 * the first entry that changed, or -1 if nothing did (present already, or
 * smaller than all of a full set).  Shared by transactions (on a copy),
 * slices and reconciliation. */
static int dp_topk_put(dp_topk_entry_t *e, unsigned *n, unsigned k, int64_t order, int64_t value)
{
	unsigned i = 0;
	while (i < *n && dp_topk_cmp(e[i].order, e[i].value, order, value) > 0)
		i++;
	if (i < *n && e[i].order == order && e[i].value == value)
		return -1;
	if (i == k)
		return -1;
	unsigned last = *n < k ? *n : k - 1;   /* the entry that falls off, if full */
	for (unsigned j = last; j > i; j--)
		e[j] = e[j - 1];
	e[i] = (dp_topk_entry_t){ order, value };
	if (*n < k)
		(*n)++;
	return (int)i;
}

void dp_topk_insert(dp_rec_t *r, int64_t order, int64_t value)
{
	dp_worker_t *w = dp_op_check(r, DP_TOPKSET, "dp_topk_insert");
	if (dp_route(w, r, DP_TOPK)) {
		dp_log_pending(w, r, DP_TOPK, order, value);
		return;
	}
	dp_topk_entry_t e[DP_TOPK_MAX];
	unsigned n = (unsigned)dp_tm_get(&r->order);
	for (unsigned i = 0; i < n; i++) {
		e[i].order = dp_tm_get(&r->topk[i].order);
		e[i].value = dp_tm_get(&r->topk[i].value);
	}
	unsigned n0 = n;
	int from = dp_topk_put(e, &n, r->k, order, value);
	if (from < 0)
		return;
	for (unsigned i = (unsigned)from; i < n; i++) {
		dp_tm_set(&r->topk[i].order, e[i].order);
		dp_tm_set(&r->topk[i].value, e[i].value);
	}
	if (n != n0)
		dp_tm_set(&r->order, n);
}

unsigned dp_topk_get(dp_rec_t *r, dp_topk_entry_t *out, unsigned max)
{
	dp_worker_t *w = dp_op_check(r, DP_TOPKSET, "dp_topk_get");
	dp_route(w, r, DP_GET);
	unsigned n = (unsigned)dp_tm_get(&r->order);
	for (unsigned i = 0; i < n && i < max; i++) {
		out[i].order = dp_tm_get(&r->topk[i].order);
		out[i].value = dp_tm_get(&r->topk[i].value);
	}
	return n;
}

/* ---- slices -------------------------------------------------------------- */

/* Fold one committed split operation into the thread's slice. */
static void dp_slice_apply(dp_worker_t *w, const dp_pending_t *p)
{
	dp_slice_t *s = &w->slices[p->slot];
	if (!s->used) {
		s->used = true;
		w->used[w->nused++] = (uint16_t)p->slot;
		s->n = 0;
		switch (p->op) {
		case DP_ADD: s->a = 0; break;
		case DP_MAX: s->a = INT64_MIN; break;
		case DP_MIN: s->a = INT64_MAX; break;
		case DP_OPUT: s->a = p->x; s->c = p->y; return;
		case DP_TOPK:
			if (s->topk == NULL)
				s->topk = potm_xmalloc(DP_TOPK_MAX * sizeof *s->topk);
			break;
		}
	}
	switch (p->op) {
	case DP_ADD: s->a += p->x; break;
	case DP_MAX: if (p->x > s->a) s->a = p->x; break;
	case DP_MIN: if (p->x < s->a) s->a = p->x; break;
	/* Same thread, same tid: a later put wins only with a larger order,
	 * as it would on the record. */
	case DP_OPUT: if (p->x > s->a) { s->a = p->x; s->c = p->y; } break;
	case DP_TOPK: dp_topk_put(s->topk, &s->n, dp.split[p->slot]->k, p->x, p->y); break;
	}
}

void dp_apply_pending(dp_worker_t *w)
{
	for (unsigned i = 0; i < w->npending; i++)
		dp_slice_apply(w, &w->pending[i]);
	DP_STAT_ADD(&w->stats, split_ops, w->npending);
	DP_STAT_ADD(&w->stats, split_txs, 1);
	w->npending = 0;
}

static void dp_rec_lock(dp_rec_t *r)
{
	while (__atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE) != 0)
		while (__atomic_load_n(&r->lock, __ATOMIC_RELAXED) != 0)
			potm_cpu_relax();
}

static void dp_rec_unlock(dp_rec_t *r)
{
	__atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE);
}

/* Merge one slice into its record (R1: plain accesses). */
static void dp_reconcile_slice(dp_worker_t *w, dp_rec_t *r, dp_slice_t *s)
{
	dp_rec_lock(r);
	switch (r->split_op) {
	case DP_ADD: r->value += s->a; break;
	case DP_MAX: if (s->a > r->value) r->value = s->a; break;
	case DP_MIN: if (s->a < r->value) r->value = s->a; break;
	case DP_OPUT:
		if (dp_oput_wins(s->a, w->id, r->order, r->tid)) {
			r->order = s->a;
			r->tid = w->id;
			r->value = s->c;
		}
		break;
	case DP_TOPK: {
		unsigned n = (unsigned)r->order;
		for (unsigned i = 0; i < s->n; i++)
			dp_topk_put(r->topk, &n, r->k, s->topk[i].order, s->topk[i].value);
		r->order = n;
		break;
	}
	}
	dp_rec_unlock(r);
}

void dp_reconcile_slices(dp_worker_t *w)
{
	for (unsigned i = 0; i < w->nused; i++) {
		dp_slice_t *s = &w->slices[w->used[i]];
		dp_reconcile_slice(w, dp.split[w->used[i]], s);
		s->used = false;
	}
	DP_STAT_ADD(&w->stats, reconciled, w->nused);
	w->nused = 0;
}

void dp_slices_free(dp_worker_t *w)
{
	for (unsigned i = 0; i < DP_MAX_SPLIT; i++)
		free(w->slices[i].topk);
	free(w->pending);
}
