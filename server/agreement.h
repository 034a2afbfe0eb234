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
 *  - raft (next): Debian's libraft (the C library with its libuv
 *    transport); see docs/DESIGN.md, "The server", for how it plugs in.
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

static inline void agreement_destroy(agreement_t *ag)
{
	ag->ops->destroy(ag);
}

/* The single-server agreement: every proposal commits at once, in order. */
agreement_t *agreement_local_create(agreement_apply_fn apply, void *ctx);

#endif /* POTM_SERVER_AGREEMENT_H */
