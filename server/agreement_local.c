/*
 * server/agreement_local.c — the agreement of a single server: the order
 * of proposal is the agreed order.  An entry commits when it is proposed
 * and is applied (handed to the executor's queue) on the proposing thread,
 * so proposals made by one thread are applied in the order made.
 */
#include "agreement.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct agreement_local {
	agreement_t base;
	pthread_mutex_t lock;    /* proposals from several threads stay in one order */
	uint64_t next_index;     /* Raft's log starts at 1; so does this one */
} agreement_local_t;

static int local_propose(agreement_t *ag, const void *entry, size_t len)
{
	agreement_local_t *l = (agreement_local_t *)ag;
	pthread_mutex_lock(&l->lock);
	ag->apply(ag->ctx, l->next_index++, entry, len);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

static int local_is_leader(agreement_t *ag)
{
	(void)ag;
	return 1;
}

static void local_leader(agreement_t *ag, uint64_t *id, const char **host,
                         unsigned *client_port)
{
	(void)ag;
	*id = 0;
	*host = NULL;
	*client_port = 0;
}

static void local_destroy(agreement_t *ag)
{
	agreement_local_t *l = (agreement_local_t *)ag;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

static const agreement_ops_t local_ops = {
	.name = "local", .propose = local_propose, .is_leader = local_is_leader,
	.leader = local_leader,
	.destroy = local_destroy,
};

agreement_t *agreement_local_create(agreement_apply_fn apply, void *ctx)
{
	agreement_local_t *l = calloc(1, sizeof *l);
	if (l == NULL)
		return NULL;
	l->base = (agreement_t){ .ops = &local_ops, .apply = apply, .ctx = ctx };
	pthread_mutex_init(&l->lock, NULL);
	l->next_index = 1;
	return &l->base;
}
