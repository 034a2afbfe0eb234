/*
 * server/workload.c — the closed-loop clients' requests (workload.h).
 */
#include "workload.h"

/* splitmix64: each client's stream is independent of the others' and of
 * the thread that draws it. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t pick(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next_rand(s) % (uint64_t)(hi - lo + 1));
}

/* NURand(A, x, y) of clause 2.1.6, with C = 0. */
static int64_t nurand(uint64_t *s, int64_t a, int64_t x, int64_t y)
{
	return ((pick(s, 0, a) | pick(s, x, y))) % (y - x + 1) + x;
}

void workload_client_init(workload_client_t *c, const workload_opts_t *o, unsigned index)
{
	c->o = o;
	c->rng = o->seed * 1000003u + index;
	c->home = (int64_t)(index % o->warehouses) + 1;
}

/* A TPC-C request at the client's home warehouse, as clause 2 draws it. */
static uint16_t tpcc_request(workload_client_t *c, int64_t *p, unsigned *n)
{
	const workload_opts_t *o = c->o;
	uint64_t *s = &c->rng;
	int64_t home = c->home, w = o->warehouses, k = pick(s, 1, 100), d = pick(s, 1, 10);
	int64_t max_name = (o->customers < 1000 ? o->customers : 1000) - 1;
	int64_t other = w > 1 ? (home - 1 + pick(s, 1, w - 1)) % w + 1 : home;
	if (k <= 45) {
		int64_t lines = pick(s, 5, 15);
		p[0] = home, p[1] = d, p[2] = nurand(s, 1023, 1, o->customers), p[3] = lines;
		for (int64_t i = 0; i < lines; i++) {
			p[4 + 3 * i] = nurand(s, 8191, 1, o->items);
			p[5 + 3 * i] = w > 1 && pick(s, 1, 100) == 1 ? other : home;
			p[6 + 3 * i] = pick(s, 1, 10);
		}
		if (pick(s, 1, 100) == 1)
			p[4 + 3 * (lines - 1)] = (int64_t)o->items + 1;   /* rolls back */
		*n = 4 + 3 * (unsigned)lines;
		return POTM_TX_NEW_ORDER;
	}
	if (k <= 88) {
		bool remote = w > 1 && pick(s, 1, 100) > 85, by_name = pick(s, 1, 100) <= 60;
		p[0] = home, p[1] = d;
		p[2] = remote ? other : home, p[3] = remote ? pick(s, 1, 10) : d;
		p[4] = by_name ? 0 : nurand(s, 1023, 1, o->customers);
		p[5] = by_name ? nurand(s, 255, 0, max_name) : 0;
		p[6] = pick(s, 100, 500000);
		*n = 7;
		return POTM_TX_PAYMENT;
	}
	if (k <= 92) {
		bool by_name = pick(s, 1, 100) <= 60;
		p[0] = home, p[1] = d, p[2] = by_name ? 0 : nurand(s, 1023, 1, o->customers);
		p[3] = by_name ? nurand(s, 255, 0, max_name) : 0;
		*n = 4;
		return POTM_TX_ORDER_STATUS;
	}
	if (k <= 96) {
		p[0] = home, p[1] = pick(s, 1, 10);
		*n = 2;
		return POTM_TX_DELIVERY;
	}
	p[0] = home, p[1] = d, p[2] = pick(s, 10, 20);
	*n = 3;
	return POTM_TX_STOCK_LEVEL;
}

uint16_t workload_next(workload_client_t *c, int64_t *p, unsigned *n)
{
	if (!c->o->hot)
		return tpcc_request(c, p, n);
	p[0] = 0, p[1] = pick(&c->rng, 1, (int64_t)c->o->accounts - 1);
	p[2] = pick(&c->rng, 1, 10);
	*n = 3;
	return POTM_TX_TRANSFER;
}
