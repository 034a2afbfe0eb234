/*
 * server/server.h — the parts of potm-server and how they meet.
 *
 *   net.c        the I/O thread: connections (poll), frames, validation,
 *                batching requests into log entries, sending responses
 *   agreement.h  the agreed order (one server's, or a Raft replica's)
 *   executor.c   the execution phase: applies committed entries in log
 *                order, runs their requests (sequentially, or concurrently
 *                as preordered transactions), executes each request id
 *                once, publishes a digest after each applied batch
 *   state.c      the state machine's database: TPC-C and the bank table,
 *                the requests' bodies, the digest
 *   main.c       options, modes, start and shutdown
 *   stream.c     --stream: the execution phase alone, the requests of
 *                workload.c's clients proposed without sockets
 */
#ifndef POTM_SERVER_H
#define POTM_SERVER_H

#include "agreement.h"
#include "tpcc.h"

#include <potm/protocol.h>

#include <stdbool.h>
#include <stdint.h>

/* ---- modes (main.c) ------------------------------------------------------- */

typedef enum server_mode {
	SERVER_SEQUENTIAL,   /* one thread executes the agreed stream */
	SERVER_POT,          /* workers run it as preordered transactions */
	SERVER_POT_LSD,      /* ... with New-Order and Payment written with LSD */
	SERVER_OCC,          /* tl2, no order: the non-replicated upper bound */
	SERVER_2PL,          /* 2pl, no order */
	SERVER_POT_FAST,     /* pot, with each request's commutativity key */
	SERVER_POT_LSD_FAST, /* pot+lsd, with the keys */
} server_mode_t;

/* The +fast modes: each request's slot comes with its key (state_key),
 * so that consecutive commuting requests run in fast mode at once. */
static inline bool server_mode_keys(server_mode_t m)
{
	return m == SERVER_POT_FAST || m == SERVER_POT_LSD_FAST;
}

#define STREAM_BATCH_MAX 32u

/* --requests-per-tx's most. */
#define SERVER_REQUESTS_PER_TX_MAX 64

typedef struct server_options {
	server_mode_t mode;
	unsigned workers;        /* executing threads besides the applier (0: sequential) */
	unsigned port;           /* 0: any free port, announced on stdout */
	uint32_t warehouses, items, customers, accounts;
	uint64_t seed;
	unsigned batch_max;      /* requests per log entry, at most (--stream:
	                          * STREAM_BATCH_MAX unless given) */
	unsigned digest_every;   /* publish a digest every this many batches */
	/* replication (0: a single server, the local agreement) */
	uint64_t replica;         /* this replica's id among peers */
	agreement_peer_t peers[AGREEMENT_PEERS_MAX];
	unsigned npeers;
	const char *data_dir;
	unsigned snapshot_every;  /* log entries between snapshots (0: libraft's) */
	unsigned election_ms;     /* Raft's election timeout (0: libraft's) */
	/* --stream (stream.c): execute this many requests, then exit (0: serve) */
	uint64_t stream;
	unsigned stream_clients;  /* closed-loop clients: requests per round */
	bool stream_hot;          /* the hot-account workload, not TPC-C */
	/* execution */
	bool applier_executes;    /* the applier claims requests beside the workers */
	/* --log-dir (a single server): the store's redo log, recovered from
	 * at start when it holds one (NULL: no durability) */
	const char *log_dir;
	unsigned worker_spin;     /* polls of the claim word before sleeping */
	unsigned requests_per_tx;  /* consecutive requests run as one transaction,
	                              1..SERVER_REQUESTS_PER_TX_MAX */
	bool barrier;             /* execute entries pass by pass (executor.c) */
	unsigned extend;          /* pot, pot+lsd: transactions a waiting one may take in */
} server_options_t;

/* ---- the state machine's database (state.c) ------------------------------- */

#define SERVER_ACCOUNT_START INT64_C(1000)   /* each account's first balance */
#define SERVER_HISTORY_SLOT 0xffffu          /* HISTORY keys: (this, position) */

typedef struct server_state {
	tpcc_db_t db;
	store_table_t *accounts;
	uint32_t naccounts;
	uint64_t *explicit_slot;  /* the next Pot slot, when the order is explicit */
	/* --log-dir: the redo log (NULL: none), its one-record table holding
	 * the next position in the agreed order (written by the applier after
	 * each group, so that a recovered server continues the positions, and
	 * with them TPC-C's dates and HISTORY keys), and that position as
	 * recovered (0 after a population). */
	struct potm_durable *log;
	store_table_t *meta;
	uint64_t start_position;
} server_state_t;

/* One request of the log, decoded, with where it stands in the order. */
typedef struct server_op {
	uint16_t type;            /* enum potm_type */
	uint64_t position;        /* in the agreed order, from 0 */
	uint64_t slot;            /* its Pot slot (explicit order) */
	tpcc_request_t tpcc;
	int64_t bank[3];          /* from, to, amount; or account */
} server_op_t;

/* Populate (the TPC-C tables with tpcc_load, the accounts).  The calling
 * thread is not registered.  Returns 0 or -1 after printing why. */
int state_load(server_state_t *st, unsigned loaders);
/* Check a request against the scale and decode it into op (position and
 * slot are the caller's).  Returns POTM_OK, POTM_ERR_UNKNOWN_TYPE or
 * POTM_ERR_BAD_PARAMS with *why. */
int state_decode(const server_state_t *st, const potm_request_t *req, server_op_t *op,
                 const char **why);
/* The commutativity key of a decoded request (tm_set_next_order_key):
 * requests with different keys touch disjoint data.  TPC-C: the home
 * warehouse, for a request that touches no other warehouse's rows (a
 * New-Order with a remote supply warehouse, a Payment of another
 * warehouse's customer: TM_KEY_NONE); the database is partitioned by
 * warehouse (tpcc.h), so their inserts share no structure.  Bank: the
 * account, for a transfer from an account to itself and a balance; a
 * transfer between two accounts touches both: TM_KEY_NONE. */
uint64_t state_key(const server_state_t *st, const server_op_t *op);
/* Run op as one transaction on the calling registered thread (its slot
 * already supplied); fill resp's status and values. */
void state_execute(server_state_t *st, tpcc_worker_t *scratch, const server_op_t *op,
                   potm_response_t *resp);
/* The digest of the whole state (quiescent: no transaction runs). */
uint64_t state_digest(const server_state_t *st);
/* The consistency checks (registered thread, quiescent): TPC-C's clause
 * 3.3.2.1-4 and the store's structure, and the bank's total.  True if all
 * hold; else v says why. */
bool state_check(server_state_t *st, bench_verdict_t *v);
void state_destroy(server_state_t *st);
/* --log-dir: 1 if dir holds a server's log (its params file), 0 if not. */
int state_log_exists(const char *dir);
/* Create the tables empty and rebuild them from dir's log (the calling
 * thread is not registered); the scale must be the logged server's.
 * Sets st->start_position.  0, or -1 after printing why. */
int state_recover(server_state_t *st, const char *dir);
/* Open the redo log on every table (a checkpoint of them) and record the
 * scale in dir.  0, or -1 after printing why. */
int state_log_open(server_state_t *st, const char *dir);
/* On the applier, between groups: log the next position in one
 * transaction; its stamp (every commit before it has a smaller one). */
uint64_t state_log_position(server_state_t *st, uint64_t position);
/* Make everything logged durable and close the log (quiescent). */
int state_log_close(server_state_t *st);
/* A thread's scratch buffers for tpcc_execute. */
tpcc_worker_t *state_scratch_new(const server_state_t *st);
void state_scratch_free(tpcc_worker_t *w);

/* ---- snapshots (state.c, executor.c) --------------------------------------- */

/* A snapshot is bytes: little-endian 64-bit words and records' bytes. */
typedef struct snap_writer {
	uint8_t *p;               /* malloc'd */
	size_t len, cap;
	bool failed;              /* out of memory: the snapshot is not taken */
} snap_writer_t;

typedef struct snap_reader {
	const uint8_t *p;
	size_t len, off;
	bool bad;                 /* read past the end */
} snap_reader_t;

void snap_put(snap_writer_t *w, const void *bytes, size_t n);
void snap_put64(snap_writer_t *w, uint64_t v);
const uint8_t *snap_get(snap_reader_t *r, size_t n);   /* NULL past the end */
uint64_t snap_get64(snap_reader_t *r);
/* Every table's records (quiescent).  0, or -1 out of memory. */
int state_save(const server_state_t *st, snap_writer_t *w);
/* Replace every table's records with the snapshot's (registered thread,
 * quiescent; each change a transaction taking the next explicit slot).
 * The snapshot is checked first: -1 with *why and nothing changed if it
 * does not fit this server's tables; a failure past the check (out of
 * memory) aborts the process, which has half a state. */
int state_restore(server_state_t *st, snap_reader_t *r, const char **why);

/* ---- the execution phase (executor.c) --------------------------------------- */

typedef struct executor executor_t;

/* Where responses go: a frame for client_id (net.c's outbox).  The
 * executor sends the responses it has, then flushes once (NULL: nothing
 * to flush): net.c wakes its I/O thread then, not at every frame. */
typedef void (*executor_send_fn)(void *ctx, uint64_t client_id, const uint8_t *frame,
                                 size_t len);
typedef void (*executor_flush_fn)(void *ctx);

/* What the server publishes after each applied batch. */
typedef struct executor_status {
	uint64_t batches;         /* entries applied */
	uint64_t positions;       /* requests in them (the next position), counted
	                           * before their responses are sent */
	uint64_t answered;        /* the position after the last request whose
	                           * response was sent */
	uint64_t executed;        /* requests executed (duplicates and errors not) */
	uint64_t digest;          /* of the state after the last digested batch */
	uint64_t digest_batches;  /* ... which was this many batches in */
	uint64_t snapshots;       /* snapshots taken by this process (not replicated state) */
	uint64_t restores;        /* snapshots restored by this process */
	uint64_t worker_idle_ns;  /* the workers' time with no request to claim:
	                           * waiting for entries, for the walk, and
	                           * (--barrier) for a pass's tail */
} executor_status_t;

/* Start the applier (logical id 0) and the workers (1..workers), which
 * register with the TM themselves.  ordered: supply Pot slots from
 * *st->explicit_slot. */
executor_t *executor_start(server_state_t *st, const server_options_t *o, bool ordered,
                           executor_send_fn send, executor_flush_fn flush, void *send_ctx);
/* agreement_apply_fn: queue a committed entry (copied) for execution. */
void executor_apply(void *executor, uint64_t index, const void *entry, size_t len);
void executor_status(executor_t *ex, executor_status_t *out);
/* The state machine's snapshot, taken by the applier between two batches
 * after every entry applied before executor_snapshot_begin: the position,
 * the counters, the sessions and the tables.  begin returns at once (NULL:
 * out of memory); end, on any thread, waits until it is taken and hands
 * over its bytes (malloc'd: the caller frees them).  0, or -1 (out of
 * memory). */
typedef struct executor_snap executor_snap_t;
executor_snap_t *executor_snapshot_begin(executor_t *ex);
int executor_snapshot_end(executor_t *ex, executor_snap_t *snap, void **bytes, size_t *len);
/* Replace the state machine with a snapshot's, on the applier between two
 * batches; blocks until done.  0, or -1 if the bytes are not a snapshot
 * of this server (nothing changed). */
int executor_restore(executor_t *ex, const void *bytes, size_t len);
/* Apply everything queued, then stop every thread (they exit the TM);
 * last (if not NULL): the status once everything is applied. */
void executor_stop(executor_t *ex, executor_status_t *last);

/* ---- the execution phase alone (stream.c) ------------------------------------ */

/* Propose o->stream requests of o->stream_clients closed-loop clients to
 * the local agreement, execute them, print the run's JSON line, check and
 * destroy the state (registered as logical id 0 for that).  0, or 1 if a
 * request failed or a check did not hold. */
int stream_run(server_state_t *st, const server_options_t *o, bool ordered,
               const char *mode_name);

/* ---- the I/O thread (net.c) ---------------------------------------------------- */

typedef struct net net_t;

/* Listen on 127.0.0.1:port (0: any); the port taken is *bound. */
net_t *net_create(unsigned port, unsigned *bound, const server_options_t *o,
                  const server_state_t *st);
void net_attach(net_t *n, agreement_t *ag, executor_t *ex);
/* executor_send_fn: queue a response for the I/O thread; executor_flush_fn:
 * wake it if a response was queued into an empty outbox since the last. */
void net_send(void *net, uint64_t client_id, const uint8_t *frame, size_t len);
void net_flush(void *net);
/* Serve until net_request_stop; then propose what was read, wait until the
 * executor applied it and the responses are written.  Returns 0. */
int net_serve(net_t *n);
/* Async-signal-safe. */
void net_request_stop(net_t *n);
void net_destroy(net_t *n);

#endif /* POTM_SERVER_H */
