/*
 * server/server.h — the parts of potm-server and how they meet.
 *
 *   net.c        the I/O thread: connections (poll), frames, validation,
 *                batching requests into log entries, sending responses
 *   agreement.h  the agreed order (local now; Raft next)
 *   executor.c   the execution phase: applies committed entries in log
 *                order, runs their requests (sequentially, or concurrently
 *                as preordered transactions), executes each request id
 *                once, publishes a digest after each applied batch
 *   state.c      the state machine's database: TPC-C and the bank table,
 *                the requests' bodies, the digest
 *   main.c       options, modes, start and shutdown
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

typedef struct server_options {
	server_mode_t mode;
	unsigned workers;        /* executing threads besides the applier (0: sequential) */
	unsigned port;           /* 0: any free port, announced on stdout */
	uint32_t warehouses, items, customers, accounts;
	uint64_t seed;
	unsigned batch_max;      /* requests per log entry, at most */
	unsigned digest_every;   /* publish a digest every this many batches */
} server_options_t;

/* ---- the state machine's database (state.c) ------------------------------- */

#define SERVER_ACCOUNT_START INT64_C(1000)   /* each account's first balance */
#define SERVER_HISTORY_SLOT 0xffffu          /* HISTORY keys: (this, position) */

typedef struct server_state {
	tpcc_db_t db;
	store_table_t *accounts;
	uint32_t naccounts;
	uint64_t *explicit_slot;  /* the next Pot slot, when the order is explicit */
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
/* A thread's scratch buffers for tpcc_execute. */
tpcc_worker_t *state_scratch_new(const server_state_t *st);
void state_scratch_free(tpcc_worker_t *w);

/* ---- the execution phase (executor.c) --------------------------------------- */

typedef struct executor executor_t;

/* Where responses go: a frame for client_id (net.c's outbox). */
typedef void (*executor_send_fn)(void *ctx, uint64_t client_id, const uint8_t *frame,
                                 size_t len);

/* What the server publishes after each applied batch. */
typedef struct executor_status {
	uint64_t batches;         /* entries applied */
	uint64_t positions;       /* requests in them (the next position) */
	uint64_t executed;        /* requests executed (duplicates and errors not) */
	uint64_t digest;          /* of the state after the last digested batch */
	uint64_t digest_batches;  /* ... which was this many batches in */
} executor_status_t;

/* Start the applier (logical id 0) and the workers (1..workers), which
 * register with the TM themselves.  ordered: supply Pot slots from
 * *st->explicit_slot. */
executor_t *executor_start(server_state_t *st, const server_options_t *o, bool ordered,
                           executor_send_fn send, void *send_ctx);
/* agreement_apply_fn: queue a committed entry (copied) for execution. */
void executor_apply(void *executor, uint64_t index, const void *entry, size_t len);
void executor_status(executor_t *ex, executor_status_t *out);
/* Apply everything queued, then stop every thread (they exit the TM). */
void executor_stop(executor_t *ex);

/* ---- the I/O thread (net.c) ---------------------------------------------------- */

typedef struct net net_t;

/* Listen on 127.0.0.1:port (0: any); the port taken is *bound. */
net_t *net_create(unsigned port, unsigned *bound, const server_options_t *o,
                  const server_state_t *st);
void net_attach(net_t *n, agreement_t *ag, executor_t *ex);
/* executor_send_fn: queue a response for the I/O thread. */
void net_send(void *net, uint64_t client_id, const uint8_t *frame, size_t len);
/* Serve until net_request_stop; then propose what was read, wait until the
 * executor applied it and the responses are written.  Returns 0. */
int net_serve(net_t *n);
/* Async-signal-safe. */
void net_request_stop(net_t *n);
void net_destroy(net_t *n);

#endif /* POTM_SERVER_H */
