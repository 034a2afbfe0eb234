/*
 * server/load.c — potm-load: a closed-loop load generator for potm-server
 * in C, for measurements where Python's clients (potm.serverload, one
 * interpreter lock for all of them) would be the bottleneck.
 *
 *   potm-load --port P --clients N --requests R [-w W] [-I I] [-C C]
 *             [--seed S] [--workload tpcc|hot] [--accounts A]
 *
 * N client threads, each on its own connection, send one request at a
 * time with no think time, R each.  The requests are workload.c's (the
 * same as potm.serverload's and potm-server --stream's): TPC-C's mix, or
 * transfers from the hot account 0.  Prints one
 * JSON line: clients, requests, errors, elapsed_s, throughput (responses
 * per second), mean_latency_ms, p99_latency_ms.  Exit status 0, 1 if a
 * client lost its connection, 2 for a bad option.
 */
#define _GNU_SOURCE
#include "workload.h"

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
	workload_opts_t w;
} load_opts_t;

typedef struct load_client {
	const load_opts_t *o;
	workload_client_t gen;
	double *lat_ms;           /* [requests] */
	unsigned done, errors;
	bool lost;
	pthread_t thread;
} load_client_t;

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
	for (unsigned i = 0; i < o->requests; i++) {
		int64_t p[POTM_PARAMS_MAX];
		unsigned n;
		uint16_t type = workload_next(&c->gen, p, &n);
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
	load_opts_t o = { .clients = 1, .requests = 100,
	                  .w = { .warehouses = 1, .items = 1000, .customers = 30,
	                         .accounts = 16, .seed = 1 } };
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
		case 's': o.w.seed = v; break;
		case 'a': o.w.accounts = (uint32_t)v; break;
		case 'w': o.w.warehouses = (uint32_t)v; break;
		case 'I': o.w.items = (uint32_t)v; break;
		case 'C': o.w.customers = (uint32_t)v; break;
		case 'k':
			if (strcmp(optarg, "tpcc") != 0 && strcmp(optarg, "hot") != 0)
				return bad("--workload: tpcc or hot");
			o.w.hot = strcmp(optarg, "hot") == 0;
			break;
		default:
			return bad("usage: potm-load --port P --clients N --requests R [-w W] "
			           "[-I I] [-C C] [--seed S] [--workload tpcc|hot] [--accounts A]");
		}
	}
	if (o.port == 0 || o.port > 65535 || o.clients == 0 || o.clients > 1024 ||
	    o.requests == 0 || o.w.warehouses == 0 || o.w.items == 0 || o.w.customers == 0 ||
	    o.w.accounts < 2)
		return bad("--port, --clients (1..1024), --requests, -w, -I, -C must be > 0, "
		           "--accounts >= 2");
	load_client_t *cl = calloc(o.clients, sizeof *cl);
	if (cl == NULL)
		return bad("out of memory");
	for (unsigned i = 0; i < o.clients; i++) {
		cl[i] = (load_client_t){ .o = &o, .lat_ms = calloc(o.requests, sizeof(double)) };
		workload_client_init(&cl[i].gen, &o.w, i);
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
