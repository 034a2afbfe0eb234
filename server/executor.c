/*
 * server/executor.c — the execution phase: committed log entries become
 * transactions, in the agreed order.
 *
 * The applier thread walks the entries in log order, on its own: each
 * request gets its position in the agreed order; a request id already
 * executed for its client is not executed again (its response is sent
 * again, or STALE for an older id), and the requests left are cut into
 * transactions (--requests-per-tx consecutive requests each, one by
 * default), each taking the next Pot slot.  Then they execute:
 *  - sequential: the applier runs them one by one;
 *  - pot, pot+lsd: the workers run them concurrently as preordered
 *    transactions, each claiming the next transaction and supplying its
 *    slot (tm_set_next_order) before it begins, so they commit in the
 *    agreed order whatever thread runs them; with --extend, a
 *    speculative transaction that would wait for its turn takes in the
 *    next ones (run_tx);
 *  - pot+fast, pot+lsd+fast: the same, each slot supplied with the
 *    request's commutativity key (state_key, tm_set_next_order_key), so
 *    that consecutive requests of different keys run in fast mode at once;
 *  - occ, 2pl: the same without slots, committing in any order.
 * The applier answers the requests in log order as they finish.
 *
 * Continuous execution (the default).  Walked requests sit in a window
 * (rings indexed by sequence numbers that only grow) until answered; the
 * applier walks the next entries while the workers still run earlier
 * ones, so a worker that finishes the last request of one entry claims
 * the next entry's at once, and a speculative transaction runs ahead
 * across entries, not only within one.  The applier stops walking only
 * where the state must be quiescent: before a digest (published when the
 * entries walked reach a multiple of digest_every, the digest of the state
 * after them, before their responses go out, so that a client that has
 * its response can read a digest that includes its request), before a
 * snapshot or restore, and, with --log-dir, before the group's responses
 * wait for the disk (group commit).  --barrier makes every walk pass such
 * a point: the workers finish all of its requests, the applier answers
 * them, and only then walks the entries that queued meanwhile (one
 * group): batch-at-a-time execution, kept to measure what the window saves.
 *
 * The sessions (client id -> last request id) change only in the
 * applier's walk, in log order, so every replica of the same log decides
 * the same duplicates.  A client's response, remembered for its retries,
 * is recorded when it is answered, in log order.
 */
#include "server.h"

#include <potm/durable.h>
#include <potm/lsd.h>

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
	uint8_t *frame;           /* the response to its last answered request */
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
		s->slot[j] = (session_t){ .client_id = client_id };
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
 * restore one, where everything walked before it is answered. */
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
	size_t requests;          /* its frames */
	/* once walked (the applier's): */
	uint64_t end;             /* the op sequence number after its last op */
	uint64_t ordinal;         /* the entries applied once it is */
	size_t len;
	uint8_t bytes[];
} entry_t;

/* One walked request. */
typedef struct batch_op {
	server_op_t op;
	potm_response_t resp;
	bool run;                 /* executed; else answered without executing */
	bool dup;                 /* a retry of its client's last request id */
	uint32_t done;            /* run: executed, resp final (atomic: release by
	                           * the worker, acquire by the applier) */
	uint64_t stamp;           /* --log-dir: its thread's last logged commit after it */
} batch_op_t;

/* A transaction: runs [first, first + n). */
typedef struct tx_span {
	uint64_t first;
	unsigned n;
} tx_span_t;

/* --extend: transactions one transaction took in after its own, at most. */
#define EXECUTOR_EXTEND_MAX 64

typedef struct worker {
	executor_t *ex;
	unsigned id;              /* logical id: 1.. */
	pthread_t thread;
	tpcc_worker_t *scratch;
	/* --extend: the transactions the running one took in (kept across
	 * its retries, which run them again) */
	uint64_t taken[EXECUTOR_EXTEND_MAX];
	unsigned ntaken;
} worker_t;

struct executor {
	server_state_t *st;
	server_options_t opt;
	bool ordered;
	bool barrier;             /* --barrier, or --log-dir: quiescent after every pass */
	executor_send_fn send;
	executor_flush_fn flush;  /* after each round of answers (NULL: none) */
	void *send_ctx;

	pthread_mutex_t lock;
	pthread_cond_t cv_entry, cv_work, cv_control;
	entry_t *head, *tail;     /* queued, not walked yet (under lock) */
	bool stopping;            /* no more entries: drain and stop (under lock) */
	bool kick;                /* the applier thread has work (under lock) */

	/* The applier's role: walking, answering, releasing, under role.  The
	 * applier thread takes it to run controls and when it is the only
	 * executing thread; otherwise a worker takes it between two of its
	 * transactions (try_apply), so that no third thread has to be woken
	 * for every entry on two cores.  apply_req: a thread wanted the role
	 * and found it taken; its holder looks again after letting go. */
	pthread_mutex_t role;
	int apply_req;
	executor_status_t status; /* published under lock */

	pthread_t applier;
	bool applier_started;
	bool leave;               /* the workers' signal to exit (under lock) */
	tpcc_worker_t *applier_scratch;
	int start_rc;             /* the threads' registration: 0 or -1 */

	/* Under role.  The window: rings of cap slots (a power of two), indexed by
	 * sequence numbers.  ops: every request walked and not yet answered,
	 * in log order; runs: the sequence numbers of those that run; txs:
	 * the transactions they form.  Slots are reused only once answered,
	 * and a run is answered only once its worker is done with it, so
	 * with at most cap ops in the window no ring slot in use is
	 * overwritten (runs and transactions number no more than ops).  The
	 * rings grow only when the window is empty. */
	batch_op_t *ops;
	uint64_t *runs;
	tx_span_t *txs;
	size_t cap;
	uint64_t walked, answered;    /* op sequence numbers */
	uint64_t nruns, ntxs;         /* walked, closed */
	uint64_t open_first;          /* the transaction being walked into: */
	unsigned open_n;              /*   its first run and its runs so far */
	uint64_t tx_slot;             /*   and its Pot slot */
	entry_t *walk_head, *walk_tail;   /* walked entries not answered, in order */
	entry_t *blocked;             /* the queue's head, when it cannot be walked yet
	                               * (under lock: the workers sleep on it) */
	uint64_t batches_walked;
	uint64_t hold;                /* answers wait from this op on until the release */
	bool holding;                 /* a quiescent point is due: no walking until
	                               * every walked run is done and released */
	bool digest_due;              /* ... and the release publishes a digest */

	/* shared with the workers (atomics) */
	uint64_t published;           /* transactions that may be claimed */
	uint64_t claim;               /* the next one to claim */
	uint64_t runs_done;           /* runs finished */
	unsigned workers_sleeping;    /* (changed under lock) */
	uint64_t worker_idle_ns;      /* executor_status_t's */

	worker_t *workers;
	unsigned nworkers;

	sessions_t sessions;
	uint64_t position;            /* next position in the agreed order */
};

static void kick_locked(executor_t *ex)
{
	ex->kick = true;
	pthread_cond_signal(&ex->cv_entry);
}

static void kick_applier(executor_t *ex)
{
	pthread_mutex_lock(&ex->lock);
	kick_locked(ex);
	pthread_mutex_unlock(&ex->lock);
}

/* Append e (e->next NULL) to the queue.  The applier thread runs
 * controls, and everything when it executes requests itself; an entry is
 * otherwise walked by a worker: a sleeping one is woken, a busy one looks
 * after its transaction. */
static void enqueue(executor_t *ex, entry_t *e)
{
	pthread_mutex_lock(&ex->lock);
	if (ex->tail != NULL)
		ex->tail->next = e;
	else
		ex->head = e;
	ex->tail = e;
	if (e->control != NULL || ex->nworkers == 0 || ex->opt.applier_executes)
		kick_locked(ex);
	if (ex->workers_sleeping != 0)
		pthread_cond_signal(&ex->cv_work);
	pthread_mutex_unlock(&ex->lock);
}

/* The whole frames of an entry (net.c builds entries of whole frames). */
static size_t entry_requests(const uint8_t *bytes, size_t len)
{
	size_t n = 0;
	for (size_t off = 0; off + 4 <= len; n++) {
		uint32_t flen = potm_frame_length(bytes + off);
		if (flen > len - off - 4)
			break;
		off += 4 + flen;
	}
	return n;
}

void executor_apply(void *executor, uint64_t index, const void *bytes, size_t len)
{
	executor_t *ex = executor;
	entry_t *e = malloc(sizeof *e + len);
	if (e == NULL) {
		fprintf(stderr, "potm-server: out of memory for a log entry\n");
		abort();   /* the state machine cannot skip an agreed entry */
	}
	*e = (entry_t){ .index = index, .len = len, .requests = entry_requests(bytes, len) };
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

/* ---- running a transaction -------------------------------------------------------- */

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

/* The op of run r (in the window). */
static inline batch_op_t *op_of_run(const executor_t *ex, uint64_t r)
{
	size_t mask = ex->cap - 1;
	return &ex->ops[ex->runs[r & mask] & mask];
}

/* Claim the next published transaction: its number, or UINT64_MAX when
 * every published one is taken.  Each number is claimed once: the
 * compare-and-swap only moves the claim word below published. */
static uint64_t claim_tx(executor_t *ex)
{
	uint64_t c = __atomic_load_n(&ex->claim, __ATOMIC_RELAXED);
	for (;;) {
		if (c >= __atomic_load_n(&ex->published, __ATOMIC_ACQUIRE))
			return UINT64_MAX;
		if (__atomic_compare_exchange_n(&ex->claim, &c, c + 1, false, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED))
			return c;
	}
}

/* Claim exactly transaction t: only if it is the next to claim and
 * published (--extend takes in the one after its own, or none). */
static bool claim_exact(executor_t *ex, uint64_t t)
{
	uint64_t c = t;
	return t < __atomic_load_n(&ex->published, __ATOMIC_ACQUIRE) &&
	       __atomic_compare_exchange_n(&ex->claim, &c, t + 1, false, __ATOMIC_ACQ_REL,
	                                   __ATOMIC_RELAXED);
}

/* Transaction t's requests, one after the other in the agreed order
 * (inside a transaction: each request's own one nests flat). */
static void run_requests(executor_t *ex, tpcc_worker_t *scratch, uint64_t t)
{
	tx_span_t span = ex->txs[t & (ex->cap - 1)];
	for (unsigned i = 0; i < span.n; i++) {
		batch_op_t *b = op_of_run(ex, span.first + i);
		state_execute(ex->st, scratch, &b->op, &b->resp);
	}
}

/* Mark transaction t's requests done: the applier may then answer them
 * and reuse their slots (a run's slot is read before its op is marked).
 * Returns how many. */
static unsigned mark_done(executor_t *ex, uint64_t t)
{
	tx_span_t span = ex->txs[t & (ex->cap - 1)];
	for (unsigned i = 0; i < span.n; i++)
		__atomic_store_n(&op_of_run(ex, span.first + i)->done, 1, __ATOMIC_RELEASE);
	return span.n;
}

/* pot+lsd: whether the running transaction may still make the LSD
 * handles of one more transaction of the order (LSD_MAX_NODES per
 * transaction; one transaction of the most requests always fits). */
_Static_assert(SERVER_REQUESTS_PER_TX_MAX * TPCC_LSD_HANDLES_MAX <= LSD_MAX_NODES,
               "a transaction of --requests-per-tx's most requests fits LSD's handles");

static bool lsd_room_for_tx(const executor_t *ex)
{
	return !ex->st->db.lsd || lsd_room() >= ex->opt.requests_per_tx * TPCC_LSD_HANDLES_MAX;
}

/* Run transaction t (claimed): its requests one after the other in the
 * agreed order, in the slot the walk gave them all.  With several
 * (--requests-per-tx), each request's own transaction joins the outer
 * one (flat nesting) and an abort re-runs all of them: fewer, longer
 * transactions mean fewer hand-offs of the turn, and the lengths of n
 * requests vary less than one's, so a speculative transaction waits less
 * for its turn; the price is that a conflict re-runs n requests.
 *
 * --extend N (w not NULL): a speculative transaction that has done its
 * requests before its turn came would wait for it; instead it takes in
 * the next transaction of the order, if nobody has claimed it yet, and
 * runs its requests too, up to N times while its turn has not come
 * (tm_order_reached).  The order is unchanged: the transactions taken in
 * follow this one's requests, in order, and nothing can run between them.
 * Their slots are then passed at once, each by an empty transaction in
 * its turn, which comes right after this commit. */
static void run_tx(executor_t *ex, tpcc_worker_t *scratch, uint64_t t, worker_t *w)
{
	size_t mask = ex->cap - 1;
	tx_span_t span = ex->txs[t & mask];
	batch_op_t *head = op_of_run(ex, span.first);
	unsigned most = w != NULL ? ex->opt.extend : 0;
	supply_slot(ex, head);
	if (span.n == 1 && most == 0) {
		state_execute(ex->st, scratch, &head->op, &head->resp);
		if (ex->st->log != NULL)
			head->stamp = potm_durable_last_stamp();
	} else {
		if (w != NULL)
			w->ntaken = 0;
		TM_BEGIN();
		run_requests(ex, scratch, t);
		for (unsigned i = 0; w != NULL && i < w->ntaken; i++)   /* a retry's */
			run_requests(ex, scratch, w->taken[i]);
		while (w != NULL && w->ntaken < most && tm_order_reached() == 0) {
			uint64_t next = (w->ntaken ? w->taken[w->ntaken - 1] : t) + 1;
			if (!lsd_room_for_tx(ex) || !claim_exact(ex, next))
				break;
			w->taken[w->ntaken++] = next;
			run_requests(ex, scratch, next);
		}
		TM_END();
	}
	unsigned n = mark_done(ex, t);
	for (unsigned i = 0; w != NULL && i < w->ntaken; i++) {
		uint64_t u = w->taken[i];
		supply_slot(ex, op_of_run(ex, ex->txs[u & mask].first));
		TM_BEGIN();
		TM_END();
		n += mark_done(ex, u);   /* committed with t */
	}
	__atomic_add_fetch(&ex->runs_done, n, __ATOMIC_SEQ_CST);
}

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static bool work_published(executor_t *ex)
{
	return __atomic_load_n(&ex->published, __ATOMIC_SEQ_CST) >
	       __atomic_load_n(&ex->claim, __ATOMIC_SEQ_CST);
}

/* ---- the walk ------------------------------------------------------------------------ */

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

/* Make room for n ops in an empty window. */
static int grow_window(executor_t *ex, size_t n)
{
	size_t cap = ex->cap ? ex->cap : 1024;
	while (cap < n)
		cap *= 2;
	if (cap == ex->cap)
		return 0;
	batch_op_t *ops = realloc(ex->ops, cap * sizeof *ops);
	if (ops != NULL)
		ex->ops = ops;
	uint64_t *runs = realloc(ex->runs, cap * sizeof *runs);
	if (runs != NULL)
		ex->runs = runs;
	tx_span_t *txs = realloc(ex->txs, cap * sizeof *txs);
	if (txs != NULL)
		ex->txs = txs;
	if (ops == NULL || runs == NULL || txs == NULL)
		return -1;
	ex->cap = cap;
	return 0;
}

static void close_tx(executor_t *ex)
{
	if (ex->open_n == 0)
		return;
	ex->txs[ex->ntxs++ & (ex->cap - 1)] = (tx_span_t){ ex->open_first, ex->open_n };
	ex->open_n = 0;
}

/* The transactions walked so far to the workers. */
static void publish(executor_t *ex)
{
	close_tx(ex);
	if (ex->ntxs == __atomic_load_n(&ex->published, __ATOMIC_RELAXED))
		return;
	/* Sequentially consistent against a worker's count of sleepers (its
	 * fence): either a worker about to sleep sees the transactions, or
	 * this sees it and wakes it. */
	__atomic_store_n(&ex->published, ex->ntxs, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ex->workers_sleeping, __ATOMIC_SEQ_CST) != 0 ||
	    ex->opt.applier_executes) {
		pthread_mutex_lock(&ex->lock);
		pthread_cond_broadcast(&ex->cv_work);
		if (ex->opt.applier_executes)
			kick_locked(ex);
		pthread_mutex_unlock(&ex->lock);
	}
}

/* The walk of one entry in log order (see the head of this file): its
 * requests into the window, the requests that run into transactions. */
static void walk_entry(executor_t *ex, entry_t *e)
{
	size_t mask = ex->cap - 1;
	for (size_t off = 0; off + 4 <= e->len;) {
		uint32_t len = potm_frame_length(e->bytes + off);
		if (len > e->len - off - 4)
			break;   /* entries are built by net.c from whole frames */
		uint64_t seq = ex->walked++;
		batch_op_t *b = &ex->ops[seq & mask];
		potm_request_t req;
		const char *why = NULL;
		uint64_t pos = ex->position++;
		b->run = false;
		b->dup = false;
		b->done = 0;
		int rc = potm_decode_request(e->bytes + off + 4, len, &req, &why);
		off += 4 + len;
		if (rc == 0)
			rc = state_decode(ex->st, &req, &b->op, &why);
		if (rc != 0) {   /* net.c checked it; a follower checks again */
			error_response(&b->resp, &req, pos, rc, why);
			continue;
		}
		session_t *s = session_find(&ex->sessions, req.client_id, true);
		if (s == NULL) {
			fprintf(stderr, "potm-server: out of memory for the sessions\n");
			abort();
		}
		if (s->last_id != 0 && req.request_id == s->last_id) {
			/* A retry: the same response again, not a second
			 * execution.  Answered in log order, after the request
			 * it repeats: the session's response is then that one's
			 * (STALE if none is kept). */
			error_response(&b->resp, &req, pos, POTM_ERR_STALE,
			               "the response to this request id is no longer kept");
			b->dup = true;
			continue;
		}
		if (req.request_id < s->last_id || req.request_id == 0) {
			error_response(&b->resp, &req, pos, POTM_ERR_STALE,
			               "request id below the client's last one, or 0");
			continue;
		}
		s->last_id = req.request_id;
		b->run = true;
		b->op.position = pos;
		memset(&b->resp, 0, offsetof(potm_response_t, values));
		b->resp.client_id = req.client_id;
		b->resp.request_id = req.request_id;
		b->resp.position = pos;
		if (ex->open_n == 0) {
			/* one slot per transaction */
			ex->open_first = ex->nruns;
			if (ex->ordered)
				ex->tx_slot = (*ex->st->explicit_slot)++;
		}
		if (ex->ordered)
			b->op.slot = ex->tx_slot;
		ex->runs[ex->nruns++ & mask] = seq;
		if (++ex->open_n == ex->opt.requests_per_tx)
			close_tx(ex);
	}
	e->end = ex->walked;
	e->ordinal = ++ex->batches_walked;
	e->next = NULL;
	if (ex->walk_tail != NULL)
		ex->walk_tail->next = e;
	else
		ex->walk_head = e;
	ex->walk_tail = e;
}

/* Entries walked in one pass, at most. */
#define EXECUTOR_PASS_MAX 64

/* Walk the queued entries up to the next control entry, as many as the
 * window holds (EXECUTOR_PASS_MAX at most), and publish their
 * transactions: one pass.  It ends a transaction, so the requests of one
 * pass are never held back waiting for the next entry.  Returns whether
 * it walked any. */
static bool walk_pass(executor_t *ex)
{
	uint64_t first = ex->walked, before = ex->batches_walked;
	unsigned k = 0;
	while (k < EXECUTOR_PASS_MAX) {
		pthread_mutex_lock(&ex->lock);
		entry_t *e = ex->head;
		if (e == NULL) {
			pthread_mutex_unlock(&ex->lock);
			break;
		}
		/* A control waits until everything walked is answered; an
		 * entry, until the window has room for it (it grows when
		 * empty). */
		bool fits = e->control == NULL && ex->walked - ex->answered + e->requests <= ex->cap;
		if (!fits && e->control == NULL && ex->walked == ex->answered) {
			pthread_mutex_unlock(&ex->lock);
			if (grow_window(ex, e->requests) != 0) {
				fprintf(stderr, "potm-server: out of memory for a batch\n");
				abort();
			}
			continue;
		}
		if (!fits) {
			ex->blocked = e;
			pthread_mutex_unlock(&ex->lock);
			break;
		}
		ex->head = e->next;
		if (ex->head == NULL)
			ex->tail = NULL;
		ex->blocked = NULL;
		pthread_mutex_unlock(&ex->lock);
		walk_entry(ex, e);
		k++;
	}
	if (k == 0)
		return false;
	publish(ex);
	unsigned every = ex->opt.digest_every;
	bool digest = every != 0 && before / every != ex->batches_walked / every;
	if (ex->barrier || digest) {
		ex->holding = true;
		ex->hold = first;
		ex->digest_due = digest;
	}
	return true;
}

/* ---- answering ------------------------------------------------------------------------ */

static void respond(executor_t *ex, uint64_t client_id, const potm_response_t *resp)
{
	uint8_t frame[4 + POTM_FRAME_MAX];
	size_t len = potm_encode_response(resp, frame, sizeof frame);
	if (len)
		ex->send(ex->send_ctx, client_id, frame, len);
}

/* Send b's response.  A run's is remembered, encoded, as its client's
 * last (for the client's retries): answers go in log order, so a retry,
 * walked after the request it repeats, finds that request's response. */
static void answer_op(executor_t *ex, const batch_op_t *b)
{
	session_t *s = b->run || b->dup ? session_find(&ex->sessions, b->resp.client_id, false)
	                                : NULL;
	if (b->run) {
		uint8_t frame[4 + POTM_FRAME_MAX];
		size_t len = potm_encode_response(&b->resp, frame, sizeof frame);
		if (len == 0)
			return;
		if (s != NULL) {
			uint8_t *copy = s->frame != NULL && len <= s->len ? s->frame
			                                                  : realloc(s->frame, len);
			if (copy == NULL) {   /* no response kept: a retry gets STALE */
				free(s->frame);
				s->frame = NULL;
				s->len = 0;
			} else {
				memcpy(copy, frame, len);
				s->frame = copy;
				s->len = len;
			}
		}
		ex->send(ex->send_ctx, b->resp.client_id, frame, len);
	} else if (b->dup && s != NULL && s->frame != NULL) {
		ex->send(ex->send_ctx, b->resp.client_id, s->frame, s->len);
	} else {
		respond(ex, b->resp.client_id, &b->resp);
	}
}

/* Answer the walked ops that are done, in log order, up to the hold.
 * They are counted first, so that STATUS (positions, executed) includes a
 * request before its client has the response, as a client that asks
 * after its response expects; an entry counts as applied (batches) once
 * all of its requests are.  The status's answered moves only after the
 * responses went out: net.c's shutdown waits for it, then for its outbox.
 * Returns whether any op was answered. */
static bool answer_ready(executor_t *ex)
{
	uint64_t from = ex->answered, end = from, executed = 0;
	size_t mask = ex->cap - 1;
	while (end < ex->walked && end < ex->hold) {
		const batch_op_t *b = &ex->ops[end & mask];
		if (b->run && !__atomic_load_n(&b->done, __ATOMIC_ACQUIRE))
			break;
		executed += b->run;
		end++;
	}
	if (end == from && (ex->walk_head == NULL || ex->walk_head->end > end))
		return false;
	pthread_mutex_lock(&ex->lock);
	/* every op's response carries its position, errors' too */
	uint64_t position = end != from ? ex->ops[(end - 1) & mask].resp.position + 1 : 0;
	if (end != from) {
		ex->status.positions = position;
		ex->status.executed += executed;
	}
	while (ex->walk_head != NULL && ex->walk_head->end <= end) {
		entry_t *e = ex->walk_head;
		ex->walk_head = e->next;
		if (ex->walk_head == NULL)
			ex->walk_tail = NULL;
		ex->status.batches = e->ordinal;
		free(e);
	}
	pthread_mutex_unlock(&ex->lock);
	if (end == from)
		return false;
	for (uint64_t i = from; i < end; i++)
		answer_op(ex, &ex->ops[i & mask]);
	ex->answered = end;
	if (ex->flush != NULL)
		ex->flush(ex->send_ctx);
	pthread_mutex_lock(&ex->lock);
	ex->status.answered = position;
	pthread_mutex_unlock(&ex->lock);
	return true;
}

/* Published with the entry count it belongs to: replicas compare digests
 * of equal counts. */
static void publish_digest(executor_t *ex)
{
	uint64_t d = state_digest(ex->st);
	pthread_mutex_lock(&ex->lock);
	ex->status.digest = d;
	ex->status.digest_batches = ex->batches_walked;
	pthread_mutex_unlock(&ex->lock);
}

/* The quiescent point a pass ended with: every run walked is done, none
 * answered past the hold.  --log-dir: group commit.  The pass's
 * responses go out only once every commit they may depend on is durable:
 * the applier logs the next position (a commit after all of the pass's)
 * and waits for the largest stamp once per pass, not per request, while
 * the next entries queue up and become one larger pass.  A read-only
 * request waits as well: it may have read a write of this pass.  Then
 * the digest, if one is due, and the answers may go on. */
static void release(executor_t *ex)
{
	if (ex->st->log != NULL && ex->hold < ex->walked) {
		uint64_t stamp = state_log_position(ex->st, ex->position);
		for (uint64_t i = ex->hold; i < ex->walked; i++) {
			const batch_op_t *b = &ex->ops[i & (ex->cap - 1)];
			if (b->run && b->stamp > stamp)
				stamp = b->stamp;
		}
		if (potm_durable_wait(ex->st->log, stamp) != 0) {
			/* Nothing later can become durable: answering would
			 * acknowledge results a restart loses. */
			fprintf(stderr, "potm-server: the redo log failed (%s): stopping "
			        "without answering\n", potm_durable_error(ex->st->log));
			fflush(stderr);
			_exit(1);
		}
	}
	if (ex->digest_due)
		publish_digest(ex);
	ex->holding = false;
	ex->digest_due = false;
	ex->hold = UINT64_MAX;
}

/* ---- snapshots ------------------------------------------------------------------------ */

#define SNAPSHOT_MAGIC 0x31504e534d544f50ull   /* "POTMSNP1" */

/* On the applier, with everything walked answered: no request runs, so
 * the tables, the sessions and the counters are those after the last
 * applied entry. */
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
	ex->batches_walked = batches;
	pthread_mutex_lock(&ex->lock);
	ex->status.batches = batches;
	ex->status.positions = position;
	ex->status.answered = position;
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

/* Run a snapshot or restore request, everything walked before it answered. */
static void run_control(executor_t *ex, control_t *c)
{
	c->rc = c->kind == CONTROL_SNAPSHOT ? take_snapshot(ex, &c->w)
	                                    : restore_snapshot(ex, c->bytes, c->len);
	pthread_mutex_lock(&ex->lock);
	c->done = true;
	pthread_cond_broadcast(&ex->cv_control);
	pthread_mutex_unlock(&ex->lock);
}


/* ---- the applier's role ------------------------------------------------------------------ */

/* The head of the queue cannot be walked until the next release: the
 * workers need not wake for it. */
static void block_head(executor_t *ex)
{
	pthread_mutex_lock(&ex->lock);
	ex->blocked = ex->head;
	pthread_mutex_unlock(&ex->lock);
}

/* The next control entry, taken off the queue, if it heads it and every
 * entry walked before it is answered. */
static entry_t *take_control(executor_t *ex)
{
	entry_t *c = NULL;
	pthread_mutex_lock(&ex->lock);
	if (ex->head != NULL && ex->head->control != NULL && ex->answered == ex->walked) {
		c = ex->head;
		ex->head = c->next;
		if (ex->head == NULL)
			ex->tail = NULL;
		ex->blocked = NULL;
	}
	pthread_mutex_unlock(&ex->lock);
	return c;
}

/* One round of the applier's work, under role: answer what is done,
 * release a quiescent point once it is reached, walk what is queued.  On
 * a worker (applier false) the applier thread is kicked for what only it
 * does: a control, whose turn has come; the release of a group commit
 * (its transaction logs on the applier's thread); the end, once stopping
 * and everything is answered.  Returns whether anything was done. */
static bool apply_step(executor_t *ex, bool applier)
{
	bool did = false;
	for (;;) {
		bool progress = answer_ready(ex);
		if (ex->holding) {
			if (__atomic_load_n(&ex->runs_done, __ATOMIC_SEQ_CST) != ex->nruns) {
				block_head(ex);
				return did || progress;
			}
			if (ex->st->log != NULL && !applier) {
				block_head(ex);
				kick_applier(ex);
				return did || progress;
			}
			release(ex);
			did = true;
			continue;
		}
		if (applier) {
			entry_t *c = take_control(ex);
			if (c != NULL) {
				run_control(ex, c->control);
				free(c);
				did = true;
				continue;
			}
		}
		/* the requests walked that do not run are answered at once */
		progress |= walk_pass(ex);
		if (!progress)
			break;
		did = true;
	}
	if (!applier && ex->answered == ex->walked) {
		pthread_mutex_lock(&ex->lock);
		if (ex->head != NULL ? ex->head->control != NULL : ex->stopping)
			kick_locked(ex);
		pthread_mutex_unlock(&ex->lock);
	}
	return did;
}

/* A worker's turn at the role, if nobody has it: see apply_req. */
static void try_apply(executor_t *ex)
{
	/* Either this trylock sees the holder's lock, and the holder, after
	 * its unlock, sees the flag; or this thread takes the role.  Both
	 * sides are a store then a load of the other's word, so each needs a
	 * full fence in between (a mutex's unlock is only a release, and a
	 * failed trylock only a load, on POWER). */
	__atomic_store_n(&ex->apply_req, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	while (__atomic_load_n(&ex->apply_req, __ATOMIC_SEQ_CST) &&
	       pthread_mutex_trylock(&ex->role) == 0) {
		__atomic_store_n(&ex->apply_req, 0, __ATOMIC_SEQ_CST);
		apply_step(ex, false);
		pthread_mutex_unlock(&ex->role);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
}

static void *worker_main(void *arg)
{
	worker_t *w = arg;
	executor_t *ex = w->ex;
	uint64_t idle_from = 0;   /* when this worker ran out of requests (0: running,
	                           * or before its first) */
	for (;;) {
		uint64_t t = claim_tx(ex);
		if (t != UINT64_MAX) {
			if (idle_from != 0)
				__atomic_fetch_add(&ex->worker_idle_ns, bench_now_ns() - idle_from,
				                   __ATOMIC_RELAXED);
			idle_from = 0;
			run_tx(ex, w->scratch, t, w);
			try_apply(ex);
			if (!work_published(ex))
				idle_from = bench_now_ns();
			continue;
		}
		try_apply(ex);
		/* --worker-spin: polling the published count for a while saves
		 * the sleep and the wake-up when the next transactions come
		 * soon. */
		bool found = work_published(ex);
		for (unsigned i = 0; i < ex->opt.worker_spin && !found; i++) {
			spin_pause();
			found = work_published(ex);
		}
		if (found)
			continue;
		pthread_mutex_lock(&ex->lock);
		/* Sequentially consistent against publish's look at the
		 * sleepers; the queue is read under the lock enqueue takes. */
		__atomic_add_fetch(&ex->workers_sleeping, 1, __ATOMIC_SEQ_CST);
		while (!work_published(ex) && !ex->leave &&
		       (ex->head == NULL || ex->head == ex->blocked))
			pthread_cond_wait(&ex->cv_work, &ex->lock);
		__atomic_sub_fetch(&ex->workers_sleeping, 1, __ATOMIC_SEQ_CST);
		bool leave = ex->leave && !work_published(ex);
		pthread_mutex_unlock(&ex->lock);
		if (leave)
			break;
	}
	tm_thread_exit();
	return NULL;
}

/* The applier thread: controls, the end, group commit's release, and all
 * of the role when no worker executes (sequential) or when it executes
 * requests beside them (--applier-executes). */
static void *applier_main(void *arg)
{
	executor_t *ex = arg;
	bool runs_txs = ex->nworkers == 0 || ex->opt.applier_executes;
	for (;;) {
		pthread_mutex_lock(&ex->role);
		__atomic_store_n(&ex->apply_req, 0, __ATOMIC_SEQ_CST);
		bool did = apply_step(ex, true);
		pthread_mutex_lock(&ex->lock);
		bool finished = ex->stopping && ex->head == NULL && ex->answered == ex->walked &&
		                !ex->holding;
		pthread_mutex_unlock(&ex->lock);
		pthread_mutex_unlock(&ex->role);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* as try_apply's, before apply_req */
		if (finished)
			break;
		if (runs_txs) {
			/* one transaction, then the role again */
			uint64_t t = claim_tx(ex);
			if (t != UINT64_MAX) {
				run_tx(ex, ex->applier_scratch, t, NULL);
				continue;
			}
		}
		if (did || __atomic_load_n(&ex->apply_req, __ATOMIC_SEQ_CST))
			continue;
		pthread_mutex_lock(&ex->lock);
		while (!ex->kick && !(runs_txs && work_published(ex)))
			pthread_cond_wait(&ex->cv_entry, &ex->lock);
		ex->kick = false;
		pthread_mutex_unlock(&ex->lock);
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
                           executor_send_fn send, executor_flush_fn flush, void *send_ctx)
{
	executor_t *ex = calloc(1, sizeof *ex);
	if (ex == NULL)
		return NULL;
	ex->st = st;
	ex->opt = *o;
	ex->ordered = ordered;
	ex->send = send;
	ex->flush = flush;
	ex->send_ctx = send_ctx;
	ex->barrier = o->barrier || st->log != NULL;
	ex->hold = UINT64_MAX;
	ex->nworkers = o->workers;
	ex->position = st->start_position;
	ex->status.positions = st->start_position;
	ex->status.answered = st->start_position;
	pthread_mutex_init(&ex->lock, NULL);
	pthread_mutex_init(&ex->role, NULL);
	pthread_cond_init(&ex->cv_entry, NULL);
	pthread_cond_init(&ex->cv_work, NULL);
	pthread_cond_init(&ex->cv_control, NULL);
	ex->applier_scratch = state_scratch_new(st);
	ex->workers = calloc(o->workers ? o->workers : 1, sizeof *ex->workers);
	if (ex->applier_scratch == NULL || ex->workers == NULL || grow_window(ex, 1024) != 0) {
		fprintf(stderr, "potm-server: out of memory\n");
		executor_stop(ex, NULL);
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
		executor_stop(ex, NULL);
		return NULL;
	}
	return ex;
}

void executor_stop(executor_t *ex, executor_status_t *last)
{
	if (ex == NULL)
		return;
	pthread_mutex_lock(&ex->lock);
	ex->stopping = true;
	kick_locked(ex);
	pthread_mutex_unlock(&ex->lock);
	if (ex->applier_started)
		pthread_join(ex->applier, NULL);
	pthread_mutex_lock(&ex->lock);
	ex->leave = true;
	pthread_cond_broadcast(&ex->cv_work);
	pthread_mutex_unlock(&ex->lock);
	for (unsigned i = 0; i < ex->nworkers; i++)
		pthread_join(ex->workers[i].thread, NULL);
	if (last != NULL)
		executor_status(ex, last);
	for (unsigned i = 0; ex->workers != NULL && i < ex->opt.workers; i++)
		state_scratch_free(ex->workers[i].scratch);
	free(ex->workers);
	state_scratch_free(ex->applier_scratch);
	for (entry_t *e = ex->head, *next; e != NULL; e = next) {
		next = e->next;
		free(e);
	}
	for (entry_t *e = ex->walk_head, *next; e != NULL; e = next) {
		next = e->next;
		free(e);
	}
	sessions_free(&ex->sessions);
	free(ex->ops);
	free(ex->runs);
	free(ex->txs);
	pthread_mutex_destroy(&ex->lock);
	pthread_mutex_destroy(&ex->role);
	pthread_cond_destroy(&ex->cv_entry);
	pthread_cond_destroy(&ex->cv_work);
	pthread_cond_destroy(&ex->cv_control);
	free(ex);
}
