/*
 * server/agreement_raft.c — the agreement of a replicated server: one
 * replica of a Raft cluster, on Debian's libraft (raft.h, raft/uv.h) with
 * its libuv TCP transport and its on-disk log.
 *
 * Threads.  libraft is single-threaded: every raft_* call and every
 * callback runs on this replica's loop thread (uv_run on a loop of its
 * own).  The I/O thread proposes through a locked queue and a uv_async_t;
 * the loop thread turns each proposal into raft_apply on the leader.  The
 * role and the leader are cached in atomics after each loop iteration (a
 * uv_check_t) for the I/O thread to read.
 *
 * The state machine (struct raft_fsm):
 *  - apply: libraft calls it for each committed command entry, in index
 *    order, on every replica; it hands the entry to the executor's queue
 *    (which copies it) and returns at once.  Barrier and configuration
 *    entries never reach it, so positions (the executor's count of
 *    requests) have no gap for them.  The index is the last applied one
 *    plus one, libraft advancing it after the call.
 *  - snapshot: libraft asks for one every snapshot_every entries; the
 *    executor takes it between two batches, after every entry this
 *    callback handed over (its queue is in order), so it is the state at
 *    raft's last applied index, as libraft requires.  Where libraft's I/O
 *    has a thread pool (fsm version 3) a job collects it and the loop
 *    thread goes on meanwhile; otherwise the loop thread waits for it.
 *  - restore: at start (the data directory's last snapshot, then the log
 *    after it is replayed) and when the leader sends a snapshot to a
 *    replica too far behind its log; the executor replaces its state
 *    between two batches, while the loop thread waits (libraft's restore
 *    is synchronous).
 * The executor never waits for the loop thread, so these waits end.
 *
 * Bootstrap: every replica of a fresh cluster bootstraps the same
 * configuration (all peers voters); a data directory that already holds a
 * log refuses it (RAFT_CANTBOOTSTRAP) and starts from what it holds.
 */
#include "agreement.h"

#include <raft.h>
#include <raft/uv.h>
#include <uv.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct proposal {
	struct proposal *next;
	size_t len;
	unsigned char bytes[];
} proposal_t;

typedef struct agreement_raft {
	agreement_t base;
	agreement_raft_config_t cfg;
	agreement_peer_t *peers;

	uv_loop_t loop;
	struct raft_uv_transport transport;
	struct raft_io io;
	struct raft_fsm fsm;
	struct raft raft;
	uv_async_t wake;          /* proposals queued, or stop */
	uv_check_t check;         /* refreshes the cached role */
	pthread_t thread;
	bool closing;             /* loop thread only */

	pthread_mutex_t lock;     /* the proposals and stopping */
	proposal_t *head, *tail;
	bool stopping;

	int is_leader;            /* atomics, written by the loop thread */
	uint64_t leader_id;

	void *snap;               /* a snapshot asked for, not yet collected */
} agreement_raft_t;

/* ---- the state machine ---------------------------------------------------------- */

/* An entry's or a snapshot's payload: libraft pads what it stores and
 * sends to a multiple of 8 bytes, and what a replica reads back can be
 * shifted or padded when the length is not one, so every payload is
 * framed: a 64-bit little-endian byte count, the bytes, zeros to the next
 * multiple of 8. */
#define ENTRY_HEADER 8

static size_t entry_size(size_t len)
{
	return (ENTRY_HEADER + len + 7) & ~(size_t)7;
}

/* Write len in front of an entry or a snapshot at b. */
static void put_length(unsigned char *b, size_t len)
{
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)len >> (8 * i));
}

/* The payload's length at buf, or -1 if it does not fit in buf. */
static int64_t get_length(const struct raft_buffer *buf)
{
	const unsigned char *p = buf->base;
	uint64_t len = 0;
	for (int i = 7; buf->len >= ENTRY_HEADER && i >= 0; i--)
		len = len << 8 | p[i];
	return buf->len < ENTRY_HEADER || len > buf->len - ENTRY_HEADER ? -1 : (int64_t)len;
}

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf, void **result)
{
	agreement_raft_t *a = fsm->data;
	int64_t len = get_length(buf);
	*result = NULL;
	if (len < 0) {
		fprintf(stderr, "potm-server: raft: entry %llu of %zu bytes is not a batch\n",
		        raft_last_applied(&a->raft) + 1, buf->len);
		return RAFT_MALFORMED;
	}
	a->base.apply(a->base.ctx, raft_last_applied(&a->raft) + 1,
	              (const unsigned char *)buf->base + ENTRY_HEADER, (size_t)len);
	return 0;
}

/* A snapshot in three steps (fsm version 3, where libraft's I/O has a
 * thread pool: async_work), so that the loop thread does not wait while
 * the executor drains its queue and serializes:
 *  - snapshot, on the loop thread: ask the executor for the state after
 *    every entry handed over so far (it queues the request behind them);
 *  - snapshot_async, on libuv's thread pool: wait for it, frame it;
 *  - snapshot_finalize, on the loop thread, once libraft stored it (or
 *    gave up): free it.  These buffers are ours, not libraft's. */
static int fsm_snapshot_async(struct raft_fsm *fsm, struct raft_buffer *bufs[], unsigned *n);

static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[], unsigned *n)
{
	agreement_raft_t *a = fsm->data;
	*bufs = NULL;
	*n = 0;
	a->snap = a->cfg.snapshot_begin(a->base.ctx);
	if (a->snap == NULL)
		return RAFT_NOMEM;
	/* Without a thread pool (an I/O of version 1: fsm version 2), the
	 * loop thread collects it here. */
	return fsm->version >= 3 ? 0 : fsm_snapshot_async(fsm, bufs, n);
}

static int fsm_snapshot_async(struct raft_fsm *fsm, struct raft_buffer *bufs[], unsigned *n)
{
	agreement_raft_t *a = fsm->data;
	void *snap = a->snap, *bytes = NULL;
	size_t len = 0;
	a->snap = NULL;
	if (a->cfg.snapshot_end(a->base.ctx, snap, &bytes, &len) != 0)
		return RAFT_NOMEM;
	struct raft_buffer *b = malloc(sizeof *b);
	unsigned char *framed = malloc(entry_size(len));
	if (b == NULL || framed == NULL) {
		free(b);
		free(framed);
		free(bytes);
		return RAFT_NOMEM;
	}
	memset(framed, 0, entry_size(len));
	put_length(framed, len);
	memcpy(framed + ENTRY_HEADER, bytes, len);
	free(bytes);
	b->base = framed;
	b->len = entry_size(len);
	*bufs = b;
	*n = 1;
	return 0;
}

static int fsm_snapshot_finalize(struct raft_fsm *fsm, struct raft_buffer *bufs[], unsigned *n)
{
	agreement_raft_t *a = fsm->data;
	if (*bufs != NULL) {
		for (unsigned i = 0; i < *n; i++)
			free((*bufs)[i].base);
		free(*bufs);
	}
	*bufs = NULL;
	*n = 0;
	if (a->snap != NULL) {   /* asked for, never collected: collect and drop it */
		void *bytes = NULL;
		size_t len = 0;
		if (a->cfg.snapshot_end(a->base.ctx, a->snap, &bytes, &len) == 0)
			free(bytes);
		a->snap = NULL;
	}
	return 0;
}

static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	agreement_raft_t *a = fsm->data;
	int64_t len = get_length(buf);
	if (len < 0 || a->cfg.restore(a->base.ctx, (const unsigned char *)buf->base + ENTRY_HEADER,
	                              (size_t)len) != 0)
		return RAFT_MALFORMED;
	raft_free(buf->base);   /* the FSM owns a restored buffer */
	return 0;
}

/* ---- the loop thread ------------------------------------------------------------------ */

static void refresh_role(agreement_raft_t *a)
{
	raft_id id = 0;
	const char *address = NULL;
	raft_leader(&a->raft, &id, &address);
	__atomic_store_n(&a->leader_id, (uint64_t)id, __ATOMIC_RELAXED);
	__atomic_store_n(&a->is_leader, raft_state(&a->raft) == RAFT_LEADER, __ATOMIC_RELEASE);
}

static void on_check(uv_check_t *h)
{
	refresh_role(h->data);
}

static void on_applied(struct raft_apply *req, int status, void *result)
{
	/* Committed (0) or not (leadership lost): the clients learn it from
	 * the executor's response, or retry after their timeout. */
	(void)status;
	(void)result;
	free(req);
}

static void submit(agreement_raft_t *a, proposal_t *p)
{
	if (raft_state(&a->raft) != RAFT_LEADER)
		return;   /* no longer the leader: dropped, the clients retry */
	struct raft_apply *req = malloc(sizeof *req);
	struct raft_buffer buf = { .base = raft_malloc(entry_size(p->len)),
	                           .len = entry_size(p->len) };
	if (req == NULL || buf.base == NULL) {
		free(req);
		raft_free(buf.base);
		return;
	}
	memset(buf.base, 0, buf.len);
	put_length(buf.base, p->len);
	memcpy((unsigned char *)buf.base + ENTRY_HEADER, p->bytes, p->len);
	if (raft_apply(&a->raft, req, &buf, 1, on_applied) != 0) {
		raft_free(buf.base);   /* ownership passes only on success */
		free(req);
	}
}

static void on_raft_closed(struct raft *r)
{
	agreement_raft_t *a = r->data;
	raft_uv_close(&a->io);
	raft_uv_tcp_close(&a->transport);
}

static void on_wake(uv_async_t *h)
{
	agreement_raft_t *a = h->data;
	pthread_mutex_lock(&a->lock);
	proposal_t *p = a->head;
	a->head = a->tail = NULL;
	bool stopping = a->stopping;
	pthread_mutex_unlock(&a->lock);
	while (p != NULL) {
		proposal_t *next = p->next;
		if (!stopping)
			submit(a, p);
		free(p);
		p = next;
	}
	if (stopping && !a->closing) {
		a->closing = true;
		uv_close((uv_handle_t *)&a->check, NULL);
		uv_close((uv_handle_t *)&a->wake, NULL);
		raft_close(&a->raft, on_raft_closed);
	}
}

static void *loop_main(void *arg)
{
	agreement_raft_t *a = arg;
	uv_run(&a->loop, UV_RUN_DEFAULT);
	return NULL;
}

/* ---- agreement_ops_t ------------------------------------------------------------------ */

static int raft_propose(agreement_t *ag, const void *entry, size_t len)
{
	agreement_raft_t *a = (agreement_raft_t *)ag;
	if (!__atomic_load_n(&a->is_leader, __ATOMIC_ACQUIRE))
		return -1;
	proposal_t *p = malloc(sizeof *p + len);
	if (p == NULL)
		return -1;
	p->next = NULL;
	p->len = len;
	memcpy(p->bytes, entry, len);
	pthread_mutex_lock(&a->lock);
	if (a->tail != NULL)
		a->tail->next = p;
	else
		a->head = p;
	a->tail = p;
	pthread_mutex_unlock(&a->lock);
	uv_async_send(&a->wake);
	return 0;
}

static int raft_is_leader(agreement_t *ag)
{
	agreement_raft_t *a = (agreement_raft_t *)ag;
	return __atomic_load_n(&a->is_leader, __ATOMIC_ACQUIRE);
}

static void raft_leader_of(agreement_t *ag, uint64_t *id, const char **host,
                           unsigned *client_port)
{
	agreement_raft_t *a = (agreement_raft_t *)ag;
	uint64_t leader = __atomic_load_n(&a->leader_id, __ATOMIC_RELAXED);
	*id = leader;
	*host = NULL;
	*client_port = 0;
	for (unsigned i = 0; i < a->cfg.npeers; i++)
		if (a->peers[i].id == leader) {
			*host = a->peers[i].host;
			*client_port = a->peers[i].client_port;
		}
}

static void raft_destroy(agreement_t *ag)
{
	agreement_raft_t *a = (agreement_raft_t *)ag;
	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	pthread_mutex_unlock(&a->lock);
	uv_async_send(&a->wake);
	pthread_join(a->thread, NULL);
	uv_loop_close(&a->loop);
	for (proposal_t *p = a->head, *next; p != NULL; p = next) {
		next = p->next;
		free(p);
	}
	pthread_mutex_destroy(&a->lock);
	free(a->peers);
	free(a);
}

static const agreement_ops_t raft_ops = {
	.name = "raft", .propose = raft_propose, .is_leader = raft_is_leader,
	.leader = raft_leader_of, .destroy = raft_destroy,
};

const int agreement_raft_available = 1;

static int fail(const char *what, int rv, const char *detail)
{
	fprintf(stderr, "potm-server: raft: %s: %s%s%s\n", what, raft_strerror(rv),
	        detail && *detail ? ": " : "", detail ? detail : "");
	return -1;
}

/* How far agreement_raft_create got, for abandon. */
enum raft_stage { STAGE_LOOP, STAGE_TRANSPORT, STAGE_IO, STAGE_RAFT, STAGE_HANDLES };

/* A start that failed at stage: close what was opened, in reverse, run
 * the loop until every close has completed (libuv frees a handle's
 * resources in its close callback), then free the replica. */
static agreement_t *abandon(agreement_raft_t *a, enum raft_stage stage)
{
	if (stage >= STAGE_HANDLES) {
		uv_close((uv_handle_t *)&a->check, NULL);
		uv_close((uv_handle_t *)&a->wake, NULL);
	}
	if (stage >= STAGE_RAFT) {
		raft_close(&a->raft, on_raft_closed);   /* then io and transport */
	} else {
		if (stage >= STAGE_IO)
			raft_uv_close(&a->io);
		if (stage >= STAGE_TRANSPORT)
			raft_uv_tcp_close(&a->transport);
	}
	uv_run(&a->loop, UV_RUN_DEFAULT);
	uv_loop_close(&a->loop);
	pthread_mutex_destroy(&a->lock);
	free(a->peers);
	free(a);
	return NULL;
}

agreement_t *agreement_raft_create(const agreement_raft_config_t *cfg,
                                   agreement_apply_fn apply, void *ctx)
{
	const agreement_peer_t *self = NULL;
	for (unsigned i = 0; i < cfg->npeers; i++)
		if (cfg->peers[i].id == cfg->self)
			self = &cfg->peers[i];
	if (self == NULL) {
		fprintf(stderr, "potm-server: replica %llu is not among the peers\n",
		        (unsigned long long)cfg->self);
		return NULL;
	}
	if (mkdir(cfg->data_dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "potm-server: cannot create %s: %s\n", cfg->data_dir,
		        strerror(errno));
		return NULL;
	}
	agreement_raft_t *a = calloc(1, sizeof *a);
	if (a == NULL)
		return NULL;
	a->base = (agreement_t){ .ops = &raft_ops, .apply = apply, .ctx = ctx };
	a->cfg = *cfg;
	a->peers = malloc(cfg->npeers * sizeof *a->peers);
	if (a->peers == NULL) {
		free(a);
		return NULL;
	}
	memcpy(a->peers, cfg->peers, cfg->npeers * sizeof *a->peers);
	a->cfg.peers = a->peers;
	pthread_mutex_init(&a->lock, NULL);
	char address[96];
	snprintf(address, sizeof address, "%s:%u", self->host, self->raft_port);

	int rv = uv_loop_init(&a->loop);
	if (rv != 0) {
		fprintf(stderr, "potm-server: uv_loop_init: %s\n", uv_strerror(rv));
		pthread_mutex_destroy(&a->lock);
		free(a->peers);
		free(a);
		return NULL;
	}
	if ((rv = raft_uv_tcp_init(&a->transport, &a->loop)) != 0) {
		fail("raft_uv_tcp_init", rv, NULL);
		return abandon(a, STAGE_LOOP);
	}
	if ((rv = raft_uv_init(&a->io, &a->loop, cfg->data_dir, &a->transport)) != 0) {
		fail("raft_uv_init", rv, a->io.errmsg);
		return abandon(a, STAGE_TRANSPORT);
	}
	raft_uv_set_connect_retry_delay(&a->io, 100);
	raft_uv_set_snapshot_compression(&a->io, false);
	bool pool = a->io.version >= 2 && a->io.async_work != NULL;
	a->fsm = (struct raft_fsm){ .version = pool ? 3 : 2, .data = a, .apply = fsm_apply,
	                            .snapshot = fsm_snapshot, .restore = fsm_restore,
	                            .snapshot_finalize = fsm_snapshot_finalize,
	                            .snapshot_async = pool ? fsm_snapshot_async : NULL };
	if ((rv = raft_init(&a->raft, &a->io, &a->fsm, self->id, address)) != 0) {
		fail("raft_init", rv, raft_errmsg(&a->raft));
		return abandon(a, STAGE_IO);
	}
	a->raft.data = a;
	if (cfg->election_ms) {
		raft_set_election_timeout(&a->raft, cfg->election_ms);
		raft_set_heartbeat_timeout(&a->raft, cfg->election_ms / 10 ? cfg->election_ms / 10 : 1);
	}
	if (cfg->snapshot_every) {
		/* Keep half as many entries after a snapshot: a replica further
		 * behind than that is sent the snapshot. */
		raft_set_snapshot_threshold(&a->raft, cfg->snapshot_every);
		raft_set_snapshot_trailing(&a->raft, cfg->snapshot_every / 2 ? cfg->snapshot_every / 2 : 1);
	}
	/* A replica back from a crash does not depose a working leader. */
	raft_set_pre_vote(&a->raft, true);

	struct raft_configuration conf;
	raft_configuration_init(&conf);
	for (unsigned i = 0; i < cfg->npeers; i++) {
		char peer[96];
		snprintf(peer, sizeof peer, "%s:%u", cfg->peers[i].host, cfg->peers[i].raft_port);
		if ((rv = raft_configuration_add(&conf, cfg->peers[i].id, peer, RAFT_VOTER)) != 0) {
			raft_configuration_close(&conf);
			fail("raft_configuration_add", rv, peer);
			return abandon(a, STAGE_RAFT);
		}
	}
	rv = raft_bootstrap(&a->raft, &conf);
	raft_configuration_close(&conf);
	if (rv != 0 && rv != RAFT_CANTBOOTSTRAP) {
		fail("raft_bootstrap", rv, raft_errmsg(&a->raft));
		return abandon(a, STAGE_RAFT);
	}
	uv_async_init(&a->loop, &a->wake, on_wake);
	a->wake.data = a;
	uv_check_init(&a->loop, &a->check);
	a->check.data = a;
	uv_check_start(&a->check, on_check);
	/* Loads the data directory: its last snapshot is restored here. */
	if ((rv = raft_start(&a->raft)) != 0) {
		fail("raft_start", rv, raft_errmsg(&a->raft));
		return abandon(a, STAGE_HANDLES);
	}
	refresh_role(a);
	if (pthread_create(&a->thread, NULL, loop_main, a) != 0) {
		fprintf(stderr, "potm-server: cannot start the raft thread\n");
		return abandon(a, STAGE_HANDLES);
	}
	return &a->base;
}
