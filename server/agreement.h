/*
 * server/agreement.h — the agreement stage: it turns proposed batches into
 * one agreed log, the order every replica executes.
 *
 * The server's I/O thread batches the requests it read into a log entry
 * (a concatenation of request frames, potm/protocol.h) and proposes it.
 * The agreement commits entries in one order and hands each committed
 * entry, with its log index, to the apply callback, in index order and on
 * one thread at a time.  The executor numbers the requests of the applied
 * entries consecutively (a request's position in the agreed order), and
 * that position, not the entry's index, becomes the request's Pot slot:
 * entries that carry no requests (a consensus engine's own: leader no-ops,
 * configuration changes) leave no gap in Pot's order.
 *
 * Implementations:
 *  - local (agreement_local.c): one server; an entry is committed as soon
 *    as it is proposed, in the order of proposal (the order of arrival).
 *  - raft (agreement_raft.c): a replica of a cluster, on Debian's
 *    libraft (the C library with its libuv transport): the leader's
 *    proposals become log entries, committed once a majority stored them;
 *    every replica applies the committed entries in index order.  A
 *    replica restarted from its data directory, or one too far behind,
 *    starts from a snapshot of the state machine (executor_snapshot,
 *    executor_restore), then the log after it.
 */
#ifndef POTM_SERVER_AGREEMENT_H
#define POTM_SERVER_AGREEMENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct agreement agreement_t;

/* Called for each committed entry, in log order (index grows by one per
 * entry the callback sees, possibly with gaps for the engine's own
 * entries).  entry is valid during the call only. */
typedef void (*agreement_apply_fn)(void *ctx, uint64_t index, const void *entry, size_t len);

typedef struct agreement_ops {
	const char *name;
	/* Propose an entry.  Returns 0 once it is queued (it may commit
	 * later, or, with replication, never: the client then retries), -1 if
	 * this replica cannot propose (not the leader). */
	int (*propose)(agreement_t *ag, const void *entry, size_t len);
	/* 1 if this replica's proposals can commit (the leader). */
	int (*is_leader)(agreement_t *ag);
	/* The leader as far as this replica knows: its replica id (0: none
	 * known, or not replicated), its host (NULL: unknown) and the port its
	 * clients connect to (0: unknown). */
	void (*leader)(agreement_t *ag, uint64_t *id, const char **host, unsigned *client_port);
	/* Stop: no apply call begins after it returns. */
	void (*destroy)(agreement_t *ag);
} agreement_ops_t;

struct agreement {
	const agreement_ops_t *ops;
	agreement_apply_fn apply;
	void *ctx;
};

static inline int agreement_propose(agreement_t *ag, const void *entry, size_t len)
{
	return ag->ops->propose(ag, entry, len);
}

static inline int agreement_is_leader(agreement_t *ag)
{
	return ag->ops->is_leader(ag);
}

static inline void agreement_leader(agreement_t *ag, uint64_t *id, const char **host,
                                    unsigned *client_port)
{
	ag->ops->leader(ag, id, host, client_port);
}

static inline void agreement_destroy(agreement_t *ag)
{
	ag->ops->destroy(ag);
}

/* The single-server agreement: every proposal commits at once, in order. */
agreement_t *agreement_local_create(agreement_apply_fn apply, void *ctx);

/* One replica of a Raft cluster. */
#define AGREEMENT_PEERS_MAX 9
typedef struct agreement_peer {
	uint64_t id;              /* 1.. */
	char host[64];            /* numeric IPv4 */
	unsigned raft_port;       /* Raft's own traffic */
	unsigned client_port;     /* the replica's clients (0: not known) */
} agreement_peer_t;

typedef struct agreement_raft_config {
	uint64_t self;            /* this replica's id, among peers */
	const agreement_peer_t *peers;
	unsigned npeers;
	const char *data_dir;     /* the log, metadata and snapshots; created if missing */
	unsigned snapshot_every;  /* entries between snapshots (0: libraft's default) */
	unsigned election_ms;     /* election timeout (0: libraft's default) */
	/* The state machine's snapshots: begin asks for one of the state
	 * after every entry applied so far (it returns at once, NULL: out of
	 * memory); end waits for it and hands over its bytes (malloc'd), 0 or
	 * -1; restore replaces the state, 0 or -1 (not a snapshot).  The
	 * executor's executor_snapshot_begin/_end and executor_restore. */
	void *(*snapshot_begin)(void *ctx);
	int (*snapshot_end)(void *ctx, void *snap, void **bytes, size_t *len);
	int (*restore)(void *ctx, const void *bytes, size_t len);
} agreement_raft_config_t;

/* False where the server is built without libraft (agreement_raft_none.c). */
extern const int agreement_raft_available;

/* Start this replica: open (or bootstrap) its data directory, restore its
 * last snapshot through cfg->restore, then run libraft on its own thread.
 * NULL after printing why. */
agreement_t *agreement_raft_create(const agreement_raft_config_t *cfg,
                                   agreement_apply_fn apply, void *ctx);

#endif /* POTM_SERVER_AGREEMENT_H */
