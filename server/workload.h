/*
 * server/workload.h — the requests of potm-server's closed-loop clients,
 * drawn in one place for the two drivers: potm-load (load.c) sends them
 * over TCP, potm-server --stream (stream.c) proposes them to the local
 * agreement without sockets.  Both draw the same requests for the same
 * seed and client index, so the stream mode's figures are the load
 * generator's workload.
 *
 * TPC-C: the mix 45/43/4/4/4 % New-Order, Payment, Order-Status,
 * Delivery, Stock-Level, inputs drawn as clause 2 draws them (1 % of
 * New-Orders roll back), client i at home warehouse i mod W + 1.  Hot:
 * transfers from account 0 to a random other account.
 */
#ifndef POTM_SERVER_WORKLOAD_H
#define POTM_SERVER_WORKLOAD_H

#include <potm/protocol.h>

#include <stdbool.h>
#include <stdint.h>

typedef struct workload_opts {
	uint32_t warehouses, items, customers, accounts;
	uint64_t seed;
	bool hot;                 /* transfers from account 0, not TPC-C */
} workload_opts_t;

/* One client's stream of requests. */
typedef struct workload_client {
	const workload_opts_t *o;
	uint64_t rng;
	int64_t home;             /* TPC-C home warehouse, 1.. */
} workload_client_t;

/* Client index (0..) of a run with options o (o must outlive c). */
void workload_client_init(workload_client_t *c, const workload_opts_t *o, unsigned index);
/* The client's next request: its type, and its parameters in
 * p[0..*n) (p has POTM_PARAMS_MAX slots). */
uint16_t workload_next(workload_client_t *c, int64_t *p, unsigned *n);

#endif /* POTM_SERVER_WORKLOAD_H */
