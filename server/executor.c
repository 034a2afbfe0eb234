/*
 * server/executor.c — the execution phase: committed log entries become
 * transactions, in the agreed order.
 *
 * The applier thread takes the entries in log order, every entry queued
 * when it looks (up to EXECUTOR_GROUP_MAX) as one group: an entry holds
 * what the I/O thread read in one poll round, often a single request,
 * and the workers overlap only the requests of one group.  For each
 * group it first walks the entries' requests in order, on its own: each
 * gets its position in the agreed order; a request id already executed for its
 * client is not executed again (its cached response is sent again, or
 * STALE for an older id), and the requests left take consecutive Pot
 * slots.  Then the group executes:
 *  - sequential: the applier runs them one by one;
 *  - pot, pot+lsd: the workers run them concurrently as preordered
 *    transactions, each taking the next request of the batch and
 *    supplying its slot (tm_set_next_order) before it begins, so they
 *    commit in the agreed order whatever thread runs them;
 *  - pot+fast, pot+lsd+fast: the same, each slot supplied with the
 *    request's commutativity key (state_key, tm_set_next_order_key), so
 *    that consecutive requests of different keys run in fast mode at once;
 *  - occ, 2pl: the same without slots, committing in any order.
 * When every request of the group has committed the state is quiescent:
 * the applier takes its digest (when the group reached a multiple of
 * digest_every entries: the digest after its last entry), publishes it,
 * and only then sends the group's responses, so that a client that has
 * its response can read a digest that includes its request.
 *
 * The sessions (client id -> last request id and its response) change
 * only in the applier's walk, in log order, so every replica of the same
 * log decides the same duplicates.
 */
#include "server.h"

#include <potm/durable.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- sessions: at-most-once execution per request id --------------------- */

typedef struct session {
	uint64_t client_id;       /* 0: free slot */
	uint64_t last_id;         /* the last request id seen in the log */
	int pending;              /* index of its op in the current batch, or -1 */
	uint8_t *frame;           /* the response to last_id, once executed */
	size_t len;
} session_t;

typedef struct sessions {
	session_t *slot;
	size_t cap, used;         /* open addressing, cap a power of two */
} sessions_t;

static size_t session_hash(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

static session_t *session_find(sessions_t *s, uint64_t client_id, bool create)
{
	if (create && (s->used + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		session_t *old = s->slot, *neu = calloc(cap, sizeof *neu);
		if (neu == NULL)
			return NULL;
		for (size_t i = 0; i < s->cap; i++)
			if (old[i].client_id != 0) {
				size_t j = session_hash(old[i].client_id, cap);
				while (neu[j].client_id != 0)
					j = (j + 1) & (cap - 1);
				neu[j] = old[i];
			}
		free(old);
		s->slot = neu;
		s->cap = cap;
	}
	if (s->cap == 0)
		return NULL;
	size_t j = session_hash(client_id, s->cap);
	while (s->slot[j].client_id != 0 && s->slot[j].client_id != client_id)
		j = (j + 1) & (s->cap - 1);
	if (s->slot[j].client_id == 0) {
		if (!create)
			return NULL;
		s->slot[j] = (session_t){ .client_id = client_id, .pending = -1 };
		s->used++;
	}
	return &s->slot[j];
}

static void sessions_free(sessions_t *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slot[i].frame);
	free(s->slot);
}

/* ---- the queue of committed entries ------------------------------------------ */

/* A request to the applier that is not a log entry: take a snapshot, or
 * restore one, at the quiescent point between two batches. */
typedef struct control {
	enum { CONTROL_SNAPSHOT, CONTROL_RESTORE } kind;
	snap_writer_t w;          /* snapshot: the bytes written */
	const void *bytes;        /* restore: what to read */
	size_t len;
	int rc;
	bool done;                /* under the executor's lock */
} control_t;

typedef struct entry {
	struct entry *next;
	control_t *control;       /* NULL: a committed log entry */
	uint64_t index;
	size_t len;
	uint8_t bytes[];
} entry_t;

/* One request of the batch being applied. */
typedef struct batch_op {
	server_op_t op;
	potm_response_t resp;
	int run;                  /* 1: execute it; 0: answered without executing */
	int dup_of;               /* answered with this op's response, or -1 */
	const uint8_t *cached;    /* its response, encoded (the session's frame) */
	size_t cached_len;
	uint64_t stamp;           /* --log-dir: its thread's last logged commit after it */
} batch_op_t;

typedef struct worker {
	executor_t *ex;
	unsigned id;              /* logical id: 1.. */
	pthread_t thread;
	tpcc_worker_t *scratch;
} worker_t;

struct executor {
	server_state_t *st;
	server_options_t opt;
	bool ordered;
	executor_send_fn send;
	void *send_ctx;

	pthread_mutex_t lock;
	pthread_cond_t cv_entry, cv_work, cv_done, cv_control;
	entry_t *head, *tail;
	bool stopping;            /* no more entries: drain and stop */
	executor_status_t status; /* published under lock */

	pthread_t applier;
	bool applier_started;
	bool leave;               /* the workers' signal to exit (under lock) */
	tpcc_worker_t *applier_scratch;
	int start_rc;             /* the threads' registration: 0 or -1 */

	/* the batch being executed by the workers */
	batch_op_t *ops;
	size_t ops_cap;
	unsigned *run_list;       /* indexes of the ops to execute */
	unsigned nrun;
	/* The batch's claim word (atomic): its generation (low 32 bits) in
	 * the high half, the next run_list index to take in the low half.
	 * A worker claims by compare-and-swap only while the generation is
	 * the one it saw, below that generation's batch_n: one still leaving
	 * an earlier batch, while the applier already walks the next group
	 * into ops and run_list, can neither take an op of the next batch
	 * (run twice) nor use up its index (never run). */
	uint64_t claim;
	unsigned batch_n;         /* the batch's ops (under lock, with generation):
	                           * nrun changes as the next group is walked */
	unsigned done;            /* ops finished (under lock) */
	uint64_t generation;      /* a new batch for the workers (under lock) */
	uint64_t worker_idle_ns;  /* executor_status_t's (atomic adds) */

	worker_t *workers;
	unsigned nworkers;

	sessions_t sessions;
	uint64_t position;        /* next position in the agreed order */
	uint64_t tx_slot;         /* the slot of the transaction being walked into
	                           * (--requests-per-tx) */
};

/* Append e (e->next NULL) to the applier's queue and wake the applier. */
static void enqueue(executor_t *ex, entry_t *e)
{
	pthread_mutex_lock(&ex->lock);
	if (ex->tail != NULL)
		ex->tail->next = e;
	else
		ex->head = e;
	ex->tail = e;
	pthread_cond_signal(&ex->cv_entry);
	pthread_mutex_unlock(&ex->lock);
}

void executor_apply(void *executor, uint64_t index, const void *bytes, size_t len)
{
	executor_t *ex = executor;
	entry_t *e = malloc(sizeof *e + len);
	if (e == NULL) {
		fprintf(stderr, "potm-server: out of memory for a log entry\n");
		abort();   /* the state machine cannot skip an agreed entry */
	}
	e->next = NULL;
	e->control = NULL;
	e->index = index;
	e->len = len;
	memcpy(e->bytes, bytes, len);
	enqueue(ex, e);
}

void executor_status(executor_t *ex, executor_status_t *out)
{
	pthread_mutex_lock(&ex->lock);
	*out = ex->status;
	pthread_mutex_unlock(&ex->lock);
	out->worker_idle_ns = __atomic_load_n(&ex->worker_idle_ns, __ATOMIC_RELAXED);
}

/* ---- running one request ------------------------------------------------------------ */

/* Supply b's slot (with its key in the keyed modes) for the calling
 * thread's next transaction; nothing when the order is not ours. */
static void supply_slot(executor_t *ex, batch_op_t *b)
{
	int rc = 0;
	if (ex->ordered)
		rc = server_mode_keys(ex->opt.mode) ?
		     tm_set_next_order_key(b->op.slot, state_key(ex->st, &b->op)) :
		     tm_set_next_order(b->op.slot);
	if (rc != 0) {
		fprintf(stderr, "potm-server: slot %" PRIu64 ": %s\n", b->op.slot,
		        tm_last_error());
		abort();   /* the slots are the executor's own: a bug */
	}
}

static void run_op(executor_t *ex, tpcc_worker_t *scratch, batch_op_t *b)
{
	supply_slot(ex, b);
	state_execute(ex->st, scratch, &b->op, &b->resp);
	if (ex->st->log != NULL)
		b->stamp = potm_durable_last_stamp();
}

/* --requests-per-tx: the n ops from run_list[first] as one transaction,
 * in the slot walk_entry gave them all, their requests one after the
 * other inside it in the agreed order: each request's own transaction
 * joins it (flat nesting).  An abort re-runs all n.  Fewer, longer
 * transactions mean fewer hand-offs of the turn, and the lengths of n
 * requests vary less than one's, so a speculative transaction waits less
 * for its turn; the price is that a conflict re-runs n requests. */
static void run_requests(executor_t *ex, tpcc_worker_t *scratch, unsigned first, unsigned n)
{
	batch_op_t *head = &ex->ops[ex->run_list[first]];
	if (n == 1) {
		run_op(ex, scratch, head);
		return;
	}
	supply_slot(ex, head);
	TM_BEGIN();
	for (unsigned i = 0; i < n; i++) {
		batch_op_t *b = &ex->ops[ex->run_list[first + i]];
		state_execute(ex->st, scratch, &b->op, &b->resp);
	}
	TM_END();
}

/* Claim and run the ops of the batch of generation seen (its batch_n is
 * nrun), a transaction's worth (--requests-per-tx consecutive ops) at a
 * time: the claim word counts transactions.  Until none is left; returns
 * how many ops this thread ran. */
static unsigned claim_and_run(executor_t *ex, tpcc_worker_t *scratch, uint64_t seen,
                              unsigned nrun)
{
	unsigned per = ex->opt.requests_per_tx, ntx = (nrun + per - 1) / per;
	unsigned finished = 0;
	for (;;) {
		uint64_t c = __atomic_load_n(&ex->claim, __ATOMIC_ACQUIRE);
		if (c >> 32 != (uint32_t)seen || (uint32_t)c >= ntx)
			break;
		if (!__atomic_compare_exchange_n(&ex->claim, &c, c + 1, false,
		                                 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		unsigned first = (uint32_t)c * per, n = nrun - first < per ? nrun - first : per;
		run_requests(ex, scratch, first, n);
		finished += n;
	}
	return finished;
}

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static void *worker_main(void *arg)
{
	worker_t *w = arg;
	executor_t *ex = w->ex;
	uint64_t seen = 0;
	uint64_t idle_from = 0;   /* when this worker ran out of requests (0: before the first batch) */
	for (;;) {
		/* --worker-spin: the next batch's generation shows in the claim
		 * word before the worker would be woken; polling it for a while
		 * saves the sleep and the wake-up between small batches.  The
		 * generation itself is still read under the lock below. */
		for (unsigned i = 0; i < ex->opt.worker_spin; i++) {
			if (__atomic_load_n(&ex->claim, __ATOMIC_ACQUIRE) >> 32 != (uint32_t)seen)
				break;
			spin_pause();
		}
		pthread_mutex_lock(&ex->lock);
		while (ex->generation == seen && !ex->leave)
			pthread_cond_wait(&ex->cv_work, &ex->lock);
		if (ex->generation == seen) {   /* stopping */
			pthread_mutex_unlock(&ex->lock);
			break;
		}
		seen = ex->generation;
		unsigned nrun = ex->batch_n;   /* this generation's, read with it */
		pthread_mutex_unlock(&ex->lock);
		if (idle_from != 0)
			__atomic_fetch_add(&ex->worker_idle_ns, bench_now_ns() - idle_from,
			                   __ATOMIC_RELAXED);
		unsigned finished = claim_and_run(ex, w->scratch, seen, nrun);
		idle_from = bench_now_ns();
		if (finished) {
			pthread_mutex_lock(&ex->lock);
			ex->done += finished;
			if (ex->done == ex->batch_n)
				pthread_cond_signal(&ex->cv_done);
			pthread_mutex_unlock(&ex->lock);
		}
	}
	tm_thread_exit();
	return NULL;
}

/* ---- applying one entry -------------------------------------------------------------- */

static int grow_ops(executor_t *ex, size_t n)
{
	if (n <= ex->ops_cap)
		return 0;
	size_t cap = ex->ops_cap ? ex->ops_cap : 64;
	while (cap < n)
		cap *= 2;
	batch_op_t *ops = realloc(ex->ops, cap * sizeof *ops);
	unsigned *run = realloc(ex->run_list, cap * sizeof *run);
	if (ops != NULL)
		ex->ops = ops;
	if (run != NULL)
		ex->run_list = run;
	if (ops == NULL || run == NULL)
		return -1;
	ex->ops_cap = cap;
	return 0;
}

static void respond(executor_t *ex, uint64_t client_id, const potm_response_t *resp)
{
	uint8_t frame[4 + POTM_FRAME_MAX];
	size_t len = potm_encode_response(resp, frame, sizeof frame);
	if (len)
		ex->send(ex->send_ctx, client_id, frame, len);
}

static void error_response(potm_response_t *resp, const potm_request_t *req, uint64_t pos,
                           int status, const char *why)
{
	memset(resp, 0, offsetof(potm_response_t, values));
	resp->status = (uint16_t)status;
	resp->client_id = req->client_id;
	resp->request_id = req->request_id;
	resp->position = pos;
	snprintf(resp->message, sizeof resp->message, "%s", why);
}

/* The walk in log order (see the head of this file), appending to the
ops from n on.  Returns the ops. */
static size_t walk_entry(executor_t *ex, const entry_t *e, size_t n)
{
	for (size_t off = 0; off + 4 <= e->len;) {
		uint32_t len = potm_frame_length(e->bytes + off);
		if (len > e->len - off - 4)
			break;   /* entries are built by net.c from whole frames */
		if (grow_ops(ex, n + 1) != 0) {
			fprintf(stderr, "potm-server: out of memory for a batch\n");
			abort();
		}
		batch_op_t *b = &ex->ops[n];
		potm_request_t req;
		const char *why = NULL;
		uint64_t pos = ex->position++;
		b->run = 0;
		b->dup_of = -1;
		b->cached = NULL;
		int rc = potm_decode_request(e->bytes + off + 4, len, &req, &why);
		off += 4 + len;
		if (rc == 0)
			rc = state_decode(ex->st, &req, &b->op, &why);
		if (rc != 0) {   /* net.c checked it; a follower checks again */
			error_response(&b->resp, &req, pos, rc, why);
			n++;
			continue;
		}
		session_t *s = session_find(&ex->sessions, req.client_id, true);
		if (s == NULL) {
			fprintf(stderr, "potm-server: out of memory for the sessions\n");
			abort();
		}
		if (s->last_id != 0 && req.request_id == s->last_id) {
			/* A retry: the same response again, not a second execution. */
			error_response(&b->resp, &req, pos, POTM_ERR_STALE,
			               "the response to this request id is no longer kept");
			/* The session's frame is decoded, not pointed at: a newer
			 * request of the client later in this group replaces that
			 * frame before the group's responses are sent. */
			potm_response_t kept;
			if (s->pending >= 0)
				b->dup_of = s->pending;
			else if (s->frame != NULL && s->len > 4 &&
			         potm_decode_response(s->frame + 4, s->len - 4, &kept, NULL) == 0)
				b->resp = kept;
			n++;
			continue;
		}
		if (req.request_id < s->last_id || req.request_id == 0) {
			error_response(&b->resp, &req, pos, POTM_ERR_STALE,
			               "request id below the client's last one, or 0");
			n++;
			continue;
		}
		s->last_id = req.request_id;
		s->pending = (int)n;
		b->run = 1;
		b->op.position = pos;
		if (ex->ordered) {
			/* one slot per transaction: --requests-per-tx runs */
			if (ex->nrun % ex->opt.requests_per_tx == 0)
				ex->tx_slot = (*ex->st->explicit_slot)++;
			b->op.slot = ex->tx_slot;
		}
		memset(&b->resp, 0, offsetof(potm_response_t, values));
		b->resp.client_id = req.client_id;
		b->resp.request_id = req.request_id;
		b->resp.position = pos;
		ex->run_list[ex->nrun++] = (unsigned)n;
		n++;
	}
	return n;
}

static void execute_batch(executor_t *ex)
{
	if (ex->nrun == 0)
		return;
	if (ex->nworkers == 0) {
		for (unsigned i = 0; i < ex->nrun; i++)
			run_op(ex, ex->applier_scratch, &ex->ops[ex->run_list[i]]);
		return;
	}
	pthread_mutex_lock(&ex->lock);
	ex->done = 0;
	ex->batch_n = ex->nrun;
	uint64_t gen = ++ex->generation;
	__atomic_store_n(&ex->claim, (uint64_t)(uint32_t)gen << 32, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&ex->cv_work);
	if (ex->opt.applier_executes) {
		/* The applier is a worker too until the batch is claimed: it is
		 * registered (logical id 0) and would otherwise only wait. */
		pthread_mutex_unlock(&ex->lock);
		unsigned finished = claim_and_run(ex, ex->applier_scratch, gen, ex->nrun);
		pthread_mutex_lock(&ex->lock);
		ex->done += finished;
	}
	while (ex->done < ex->batch_n)
		pthread_cond_wait(&ex->cv_done, &ex->lock);
	pthread_mutex_unlock(&ex->lock);
}

static void publish_digest(executor_t *ex)
{
	uint64_t d = state_digest(ex->st);
	pthread_mutex_lock(&ex->lock);
	ex->status.digest = d;
	ex->status.digest_batches = ex->status.batches;
	pthread_mutex_unlock(&ex->lock);
}

/* Apply k consecutive entries as one execution batch: their requests take
 * consecutive positions and slots as if applied one by one (the walk is
 * the same), and run together, so that the workers have more than one
 * entry's requests to overlap when each entry holds few (one poll round's
 * worth).  The state after the group is the state after its last entry. */
static void apply_entries(executor_t *ex, entry_t *const *es, size_t k)
{
	ex->nrun = 0;
	size_t n = 0;
	for (size_t i = 0; i < k; i++)
		n = walk_entry(ex, es[i], n);
	execute_batch(ex);

	uint64_t executed = ex->nrun;
	/* Remember each client's last response, for its retries, encoded
	 * once: that frame is also what is sent.  It is the client's last op
	 * of the group (pending), so no later op of the group reallocates it
	 * before the sends below. */
	uint8_t frame[4 + POTM_FRAME_MAX];
	for (size_t i = 0; i < n; i++) {
		batch_op_t *b = &ex->ops[i];
		if (!b->run)
			continue;
		session_t *s = session_find(&ex->sessions, b->resp.client_id, false);
		if (s == NULL || (int)i != s->pending)
			continue;
		s->pending = -1;
		size_t len = potm_encode_response(&b->resp, frame, sizeof frame);
		uint8_t *copy = len && len <= s->len ? s->frame : len ? realloc(s->frame, len) : NULL;
		if (copy != NULL) {
			memcpy(copy, frame, len);
			s->frame = copy;
			s->len = len;
			b->cached = copy;
			b->cached_len = len;
		}
	}

	/* --log-dir: group commit.  The group's responses go out only once
	 * every commit they may depend on is durable: the applier logs the
	 * next position (a commit after all of the group's) and waits for the
	 * largest stamp once per group, not per request, while the next
	 * entries queue up and become one larger group.  A read-only request
	 * waits as well: it may have read a write of this group. */
	if (ex->st->log != NULL && n > 0) {
		uint64_t stamp = state_log_position(ex->st, ex->position);
		for (size_t i = 0; i < n; i++)
			if (ex->ops[i].run && ex->ops[i].stamp > stamp)
				stamp = ex->ops[i].stamp;
		if (potm_durable_wait(ex->st->log, stamp) != 0) {
			/* Nothing later can become durable: answering would
			 * acknowledge results a restart loses. */
			fprintf(stderr, "potm-server: the redo log failed (%s): stopping "
			        "without answering\n", potm_durable_error(ex->st->log));
			fflush(stderr);
			_exit(1);
		}
	}

	pthread_mutex_lock(&ex->lock);
	uint64_t before = ex->status.batches;
	ex->status.batches += k;
	ex->status.positions = ex->position;
	ex->status.executed += executed;
	pthread_mutex_unlock(&ex->lock);
	/* A digest whenever the group reached a multiple of digest_every: the
	 * digest of the state after its last entry, labelled with that count
	 * (digest_batches), so that replicas compare equal prefixes. */
	if (ex->opt.digest_every &&
	    before / ex->opt.digest_every != ex->status.batches / ex->opt.digest_every)
		publish_digest(ex);

	for (size_t i = 0; i < n; i++) {
		batch_op_t *b = &ex->ops[i];
		if (b->cached != NULL)
			ex->send(ex->send_ctx, b->resp.client_id, b->cached, b->cached_len);
		else if (b->dup_of >= 0)
			respond(ex, b->resp.client_id, &ex->ops[b->dup_of].resp);
		else
			respond(ex, b->resp.client_id, &b->resp);
	}
}

/* ---- snapshots ------------------------------------------------------------------------ */

#define SNAPSHOT_MAGIC 0x31504e534d544f50ull   /* "POTMSNP1" */

/* On the applier, between batches: no request runs and no session is
 * pending, so the tables, the sessions and the counters are those after
 * the last applied entry. */
static int take_snapshot(executor_t *ex, snap_writer_t *w)
{
	snap_put64(w, SNAPSHOT_MAGIC);
	snap_put64(w, ex->status.batches);
	snap_put64(w, ex->position);
	snap_put64(w, ex->status.executed);
	snap_put64(w, ex->sessions.used);
	for (size_t i = 0; i < ex->sessions.cap; i++) {
		const session_t *s = &ex->sessions.slot[i];
		if (s->client_id == 0)
			continue;
		snap_put64(w, s->client_id);
		snap_put64(w, s->last_id);
		snap_put64(w, s->frame != NULL ? s->len : 0);
		if (s->frame != NULL)
			snap_put(w, s->frame, s->len);
	}
	int rc = state_save(ex->st, w);
	pthread_mutex_lock(&ex->lock);
	ex->status.snapshots += rc == 0;
	pthread_mutex_unlock(&ex->lock);
	return rc;
}

static int restore_snapshot(executor_t *ex, const void *bytes, size_t len)
{
	snap_reader_t r = { .p = bytes, .len = len };
	const char *why = "not a snapshot of potm-server";
	sessions_t fresh = { NULL, 0, 0 };
	if (snap_get64(&r) != SNAPSHOT_MAGIC)
		goto bad;
	uint64_t batches = snap_get64(&r), position = snap_get64(&r);
	uint64_t executed = snap_get64(&r), nsessions = snap_get64(&r);
	for (uint64_t i = 0; i < nsessions && !r.bad; i++) {
		uint64_t client = snap_get64(&r), last = snap_get64(&r), flen = snap_get64(&r);
		const uint8_t *frame = flen <= 4 + POTM_FRAME_MAX ? snap_get(&r, flen) : NULL;
		session_t *s = client != 0 && frame != NULL
		               ? session_find(&fresh, client, true) : NULL;
		if (s == NULL || s->last_id != 0) {
			why = "a session does not parse, or twice";
			goto bad;
		}
		s->last_id = last;
		if (flen > 0) {
			s->frame = malloc(flen);
			if (s->frame == NULL)
				goto bad;
			memcpy(s->frame, frame, flen);
			s->len = flen;
		}
	}
	if (r.bad || state_restore(ex->st, &r, &why) != 0)
		goto bad;
	sessions_free(&ex->sessions);
	ex->sessions = fresh;
	ex->position = position;
	pthread_mutex_lock(&ex->lock);
	ex->status.batches = batches;
	ex->status.positions = position;
	ex->status.executed = executed;
	ex->status.restores++;
	pthread_mutex_unlock(&ex->lock);
	publish_digest(ex);
	return 0;
bad:
	fprintf(stderr, "potm-server: cannot restore a snapshot: %s\n", why);
	sessions_free(&fresh);
	return -1;
}

/* Queue c behind the entries applied so far. */
static int queue_control(executor_t *ex, control_t *c)
{
	entry_t *e = malloc(sizeof *e);
	if (e == NULL)
		return -1;
	*e = (entry_t){ .control = c };
	enqueue(ex, e);
	return 0;
}

static int wait_control(executor_t *ex, control_t *c)
{
	pthread_mutex_lock(&ex->lock);
	while (!c->done)
		pthread_cond_wait(&ex->cv_control, &ex->lock);
	pthread_mutex_unlock(&ex->lock);
	return c->rc;
}

executor_snap_t *executor_snapshot_begin(executor_t *ex)
{
	control_t *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->kind = CONTROL_SNAPSHOT;
	if (queue_control(ex, c) != 0) {
		free(c);
		return NULL;
	}
	return (executor_snap_t *)c;
}

int executor_snapshot_end(executor_t *ex, executor_snap_t *snap, void **bytes, size_t *len)
{
	control_t *c = (control_t *)snap;
	int rc = wait_control(ex, c);
	if (rc == 0) {
		*bytes = c->w.p;
		*len = c->w.len;
	} else {
		free(c->w.p);
	}
	free(c);
	return rc;
}

int executor_restore(executor_t *ex, const void *bytes, size_t len)
{
	control_t c = { .kind = CONTROL_RESTORE, .bytes = bytes, .len = len };
	return queue_control(ex, &c) == 0 ? wait_control(ex, &c) : -1;
}

/* Entries applied as one group, at most (apply_entries). */
#define EXECUTOR_GROUP_MAX 64

/* Run a snapshot or restore request between two groups. */
static void run_control(executor_t *ex, control_t *c)
{
	c->rc = c->kind == CONTROL_SNAPSHOT ? take_snapshot(ex, &c->w)
	                                    : restore_snapshot(ex, c->bytes, c->len);
	pthread_mutex_lock(&ex->lock);
	c->done = true;
	pthread_cond_broadcast(&ex->cv_control);
	pthread_mutex_unlock(&ex->lock);
}

/* Take the queued entries up to the next control entry (a group), or that
 * control entry alone. */
static void *applier_main(void *arg)
{
	executor_t *ex = arg;
	entry_t *group[EXECUTOR_GROUP_MAX];
	for (;;) {
		pthread_mutex_lock(&ex->lock);
		while (ex->head == NULL && !ex->stopping)
			pthread_cond_wait(&ex->cv_entry, &ex->lock);
		size_t k = 0;
		bool control = ex->head != NULL && ex->head->control != NULL;
		size_t most = control ? 1 : EXECUTOR_GROUP_MAX;
		while (ex->head != NULL && k < most && (ex->head->control != NULL) == control) {
			group[k++] = ex->head;
			ex->head = ex->head->next;
		}
		if (ex->head == NULL)
			ex->tail = NULL;
		pthread_mutex_unlock(&ex->lock);
		if (k == 0)
			break;
		if (control)
			run_control(ex, group[0]->control);
		else
			apply_entries(ex, group, k);
		for (size_t i = 0; i < k; i++)
			free(group[i]);
	}
	tm_thread_exit();
	return NULL;
}

/* ---- start and stop ------------------------------------------------------------------------ */

typedef struct start_arg {
	executor_t *ex;
	unsigned id;
	void *(*main)(void *);
	void *arg;
	pthread_mutex_t *lock;
	pthread_cond_t *cv;
	int *registered;          /* threads done registering */
} start_arg_t;

/* Every thread registers before any request runs, so that a failure to
 * register is a failure to start. */
static void *thread_start(void *p)
{
	start_arg_t a = *(start_arg_t *)p;
	int rc = tm_thread_enter(a.id);
	if (rc != 0)
		fprintf(stderr, "potm-server: thread %u: tm_thread_enter: %s\n", a.id,
		        tm_last_error());
	pthread_mutex_lock(a.lock);
	if (rc != 0)
		a.ex->start_rc = -1;
	(*a.registered)++;
	pthread_cond_broadcast(a.cv);
	pthread_mutex_unlock(a.lock);
	if (rc != 0)
		return NULL;
	return a.main(a.arg);
}

executor_t *executor_start(server_state_t *st, const server_options_t *o, bool ordered,
                           executor_send_fn send, void *send_ctx)
{
	executor_t *ex = calloc(1, sizeof *ex);
	if (ex == NULL)
		return NULL;
	ex->st = st;
	ex->opt = *o;
	ex->ordered = ordered;
	ex->send = send;
	ex->send_ctx = send_ctx;
	ex->nworkers = o->workers;
	ex->position = st->start_position;
	ex->status.positions = st->start_position;
	pthread_mutex_init(&ex->lock, NULL);
	pthread_cond_init(&ex->cv_entry, NULL);
	pthread_cond_init(&ex->cv_work, NULL);
	pthread_cond_init(&ex->cv_done, NULL);
	pthread_cond_init(&ex->cv_control, NULL);
	ex->applier_scratch = state_scratch_new(st);
	ex->workers = calloc(o->workers ? o->workers : 1, sizeof *ex->workers);
	if (ex->applier_scratch == NULL || ex->workers == NULL || grow_ops(ex, 64) != 0) {
		fprintf(stderr, "potm-server: out of memory\n");
		executor_stop(ex);
		return NULL;
	}
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	int registered = 0, started = 0;
	start_arg_t args[1 + o->workers];
	for (unsigned i = 0; i <= o->workers; i++) {
		worker_t *w = i ? &ex->workers[i - 1] : NULL;
		if (w != NULL) {
			*w = (worker_t){ .ex = ex, .id = i, .scratch = state_scratch_new(st) };
			if (w->scratch == NULL)
				break;
		}
		args[i] = (start_arg_t){ .ex = ex, .id = i, .main = w ? worker_main : applier_main,
		                         .arg = w ? (void *)w : (void *)ex, .lock = &lock,
		                         .cv = &cv, .registered = &registered };
		pthread_t *t = w ? &w->thread : &ex->applier;
		if (pthread_create(t, NULL, thread_start, &args[i]) != 0)
			break;
		if (w == NULL)
			ex->applier_started = true;
		started++;
	}
	pthread_mutex_lock(&lock);
	while (registered < started)
		pthread_cond_wait(&cv, &lock);
	pthread_mutex_unlock(&lock);
	/* Workers are counted once started (executor_stop joins them). */
	ex->nworkers = started > 0 ? (unsigned)started - 1 : 0;
	if (started != (int)o->workers + 1 || ex->start_rc != 0) {
		fprintf(stderr, "potm-server: could not start %u executing threads\n",
		        o->workers + 1);
		executor_stop(ex);
		return NULL;
	}
	return ex;
}

void executor_stop(executor_t *ex)
{
	if (ex == NULL)
		return;
	pthread_mutex_lock(&ex->lock);
	ex->stopping = true;
	pthread_cond_broadcast(&ex->cv_entry);
	pthread_mutex_unlock(&ex->lock);
	if (ex->applier_started)
		pthread_join(ex->applier, NULL);
	pthread_mutex_lock(&ex->lock);
	ex->leave = true;
	pthread_cond_broadcast(&ex->cv_work);
	pthread_mutex_unlock(&ex->lock);
	for (unsigned i = 0; i < ex->nworkers; i++)
		pthread_join(ex->workers[i].thread, NULL);
	for (unsigned i = 0; ex->workers != NULL && i < ex->opt.workers; i++)
		state_scratch_free(ex->workers[i].scratch);
	free(ex->workers);
	state_scratch_free(ex->applier_scratch);
	for (entry_t *e = ex->head, *next; e != NULL; e = next) {
		next = e->next;
		free(e);
	}
	sessions_free(&ex->sessions);
	free(ex->ops);
	free(ex->run_list);
	pthread_mutex_destroy(&ex->lock);
	pthread_cond_destroy(&ex->cv_entry);
	pthread_cond_destroy(&ex->cv_work);
	pthread_cond_destroy(&ex->cv_done);
	pthread_cond_destroy(&ex->cv_control);
	free(ex);
}
