/*
 * server/agreement_raft_none.c — the replicated agreement where libraft
 * or libuv is missing at build time: --replica is refused.
 */
#include "agreement.h"

#include <stdio.h>

const int agreement_raft_available = 0;

agreement_t *agreement_raft_create(const agreement_raft_config_t *cfg,
                                   agreement_apply_fn apply, void *ctx)
{
	(void)cfg;
	(void)apply;
	(void)ctx;
	fprintf(stderr, "potm-server: built without libraft and libuv: no --replica "
	        "(scripts/deps.sh installs libraft-dev and libuv1-dev)\n");
	return NULL;
}
