/*
 * server/load.c — potm-load: a closed-loop load generator for potm-server
 * in C, for measurements where Python's clients (potm.serverload, one
 * interpreter lock for all of them) would be the bottleneck.
 *
 *   potm-load --port P --clients N --requests R [-w W] [-I I] [-C C]
 *             [--seed S] [--workload tpcc|hot] [--accounts A]
 *
 * N client threads, each on its own connection, send one request at a
 * time with no think time, R each.  The requests are potm.serverload's:
 * TPC-C's mix (45/43/4/4/4 % New-Order, Payment, Order-Status, Delivery,
 * Stock-Level, inputs drawn as clause 2 draws them, client i at home
 * warehouse i mod W + 1), or transfers from the hot account 0.  Prints one
 * JSON line: clients, requests, errors, elapsed_s, throughput (responses
 * per second), mean_latency_ms, p99_latency_ms.  Exit status 0, 1 if a
 * client lost its connection, 2 for a bad option.
 */
#define _GNU_SOURCE
#include <potm/client.h>

#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct load_opts {
	unsigned port, clients, requests;
	uint32_t warehouses, items, customers, accounts;
	uint64_t seed;
	bool hot;
} load_opts_t;

typedef struct load_client {
	const load_opts_t *o;
	unsigned index;
	uint64_t rng;
	double *lat_ms;           /* [requests] */
	unsigned done, errors;
	bool lost;
	pthread_t thread;
} load_client_t;

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

static int64_t nurand(uint64_t *s, int64_t a, int64_t x, int64_t y)
{
	return ((pick(s, 0, a) | pick(s, x, y))) % (y - x + 1) + x;
}

/* A TPC-C request at warehouse home, as clause 2 draws it. */
static uint16_t tpcc_request(load_client_t *c, int64_t home, int64_t *p, unsigned *n)
{
	const load_opts_t *o = c->o;
	uint64_t *s = &c->rng;
	int64_t w = o->warehouses, k = pick(s, 1, 100), d = pick(s, 1, 10);
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

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *client_main(void *arg)
{
	load_client_t *c = arg;
	const load_opts_t *o = c->o;
	potm_client_t *conn = potm_client_connect("127.0.0.1", o->port, 0, 60000);
	if (conn == NULL) {
		c->lost = true;
		return NULL;
	}
	int64_t home = (int64_t)(c->index % o->warehouses) + 1;
	for (unsigned i = 0; i < o->requests; i++) {
		int64_t p[POTM_PARAMS_MAX];
		unsigned n;
		uint16_t type;
		if (o->hot) {
			p[0] = 0, p[1] = pick(&c->rng, 1, (int64_t)o->accounts - 1);
			p[2] = pick(&c->rng, 1, 10);
			n = 3;
			type = POTM_TX_TRANSFER;
		} else {
			type = tpcc_request(c, home, p, &n);
		}
		potm_response_t r;
		double t0 = now_ms();
		if (potm_client_call(conn, type, p, n, &r) != 0) {
			c->lost = true;
			break;
		}
		c->lat_ms[c->done++] = now_ms() - t0;
		if (r.status != POTM_OK && r.status != POTM_ROLLED_BACK)
			c->errors++;
	}
	potm_client_close(conn);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int bad(const char *what)
{
	fprintf(stderr, "potm-load: %s\n", what);
	return 2;
}

int main(int argc, char **argv)
{
	load_opts_t o = { .clients = 1, .requests = 100, .warehouses = 1, .items = 1000,
	                  .customers = 30, .accounts = 16, .seed = 1 };
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "clients", required_argument, NULL, 'c' },
		{ "requests", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'k' },
		{ "accounts", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "w:I:C:", longs, NULL)) != -1) {
		unsigned long v = optarg ? strtoul(optarg, NULL, 10) : 0;
		switch (ch) {
		case 'p': o.port = (unsigned)v; break;
		case 'c': o.clients = (unsigned)v; break;
		case 'r': o.requests = (unsigned)v; break;
		case 's': o.seed = v; break;
		case 'a': o.accounts = (uint32_t)v; break;
		case 'w': o.warehouses = (uint32_t)v; break;
		case 'I': o.items = (uint32_t)v; break;
		case 'C': o.customers = (uint32_t)v; break;
		case 'k':
			if (strcmp(optarg, "tpcc") != 0 && strcmp(optarg, "hot") != 0)
				return bad("--workload: tpcc or hot");
			o.hot = strcmp(optarg, "hot") == 0;
			break;
		default:
			return bad("usage: potm-load --port P --clients N --requests R [-w W] "
			           "[-I I] [-C C] [--seed S] [--workload tpcc|hot] [--accounts A]");
		}
	}
	if (o.port == 0 || o.port > 65535 || o.clients == 0 || o.clients > 1024 ||
	    o.requests == 0 || o.warehouses == 0 || o.items == 0 || o.customers == 0 ||
	    o.accounts < 2)
		return bad("--port, --clients (1..1024), --requests, -w, -I, -C must be > 0, "
		           "--accounts >= 2");
	load_client_t *cl = calloc(o.clients, sizeof *cl);
	if (cl == NULL)
		return bad("out of memory");
	for (unsigned i = 0; i < o.clients; i++) {
		cl[i] = (load_client_t){ .o = &o, .index = i, .rng = o.seed * 1000003u + i,
		                         .lat_ms = calloc(o.requests, sizeof(double)) };
		if (cl[i].lat_ms == NULL)
			return bad("out of memory");
	}
	double t0 = now_ms();
	unsigned started = 0;
	for (; started < o.clients; started++)
		if (pthread_create(&cl[started].thread, NULL, client_main, &cl[started]) != 0)
			break;
	for (unsigned i = 0; i < started; i++)
		pthread_join(cl[i].thread, NULL);
	double elapsed_s = (now_ms() - t0) / 1e3;
	size_t total = 0;
	unsigned errors = 0;
	bool lost = started < o.clients;
	for (unsigned i = 0; i < o.clients; i++) {
		total += cl[i].done;
		errors += cl[i].errors;
		lost |= cl[i].lost;
	}
	double *all = malloc((total ? total : 1) * sizeof *all), sum = 0;
	if (all == NULL)
		return bad("out of memory");
	size_t k = 0;
	for (unsigned i = 0; i < o.clients; i++)
		for (unsigned j = 0; j < cl[i].done; j++) {
			all[k++] = cl[i].lat_ms[j];
			sum += cl[i].lat_ms[j];
		}
	qsort(all, total, sizeof *all, cmp_double);
	/* Nearest rank, as potm.serverload's _percentile. */
	size_t rank = total ? (size_t)((99 * total + 99) / 100) : 0;
	double p99 = total ? all[rank ? rank - 1 : 0] : 0;
	printf("{\"clients\": %u, \"requests\": %zu, \"errors\": %u, \"elapsed_s\": %.6f, "
	       "\"throughput\": %.3f, \"mean_latency_ms\": %.4f, \"p99_latency_ms\": %.4f}\n",
	       o.clients, total, errors, elapsed_s, elapsed_s > 0 ? (double)total / elapsed_s : 0,
	       total ? sum / (double)total : 0, p99);
	for (unsigned i = 0; i < o.clients; i++)
		free(cl[i].lat_ms);
	free(cl);
	free(all);
	return lost ? 1 : 0;
}
