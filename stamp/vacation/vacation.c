/*
 * vacation.c — STAMP's travel reservation benchmark (OLTP-like), this
 * project's implementation.
 *
 * A database of cars, flights, rooms and customers (red-black trees) is
 * populated from a fixed seed; then -c client threads run -t sessions in
 * all, each one transaction: make a reservation (-u percent), delete a
 * customer or update the item tables.  -n bounds the items a session
 * touches, -q the fraction of ids it draws from (contention), -r the ids
 * per table.
 *
 * Self-check: every table is a valid red-black tree, every item's counts
 * are consistent, and every item's booked units equal the customers'
 * bookings of it (a lost or torn update breaks the last one).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "manager.h"
#include "random.h"
#include "args.h"
#include "report.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

enum {
	DEFAULT_CLIENTS = 1,
	DEFAULT_QUERIES = 10,          /* -n: max items per session */
	DEFAULT_QUERY_PERCENT = 90,    /* -q */
	DEFAULT_RELATIONS = 1 << 16,   /* -r */
	DEFAULT_TRANSACTIONS = 1 << 26,/* -t */
	DEFAULT_USER_PERCENT = 80,     /* -u */
};

typedef struct params {
	long numClient;
	long numQuery;
	long percentQuery;
	long numRelation;
	long numTransaction;
	long percentUser;
} params_t;

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options]\n"
	        "  -c <UINT>  number of clients = threads (%d)\n"
	        "  -n <UINT>  max number of queries per transaction (%d)\n"
	        "  -q <UINT>  percentage of relations queried (%d)\n"
	        "  -r <UINT>  number of possible relations per table (%d)\n"
	        "  -t <UINT>  number of transactions in all (%d)\n"
	        "  -u <UINT>  percentage of user (reservation) transactions (%d)\n",
	        prog, DEFAULT_CLIENTS, DEFAULT_QUERIES, DEFAULT_QUERY_PERCENT,
	        DEFAULT_RELATIONS, DEFAULT_TRANSACTIONS, DEFAULT_USER_PERCENT);
	exit(2);
}

static void parseArgs(int argc, char **argv, params_t *p)
{
	p->numClient = DEFAULT_CLIENTS;
	p->numQuery = DEFAULT_QUERIES;
	p->percentQuery = DEFAULT_QUERY_PERCENT;
	p->numRelation = DEFAULT_RELATIONS;
	p->numTransaction = DEFAULT_TRANSACTIONS;
	p->percentUser = DEFAULT_USER_PERCENT;
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "c:n:q:r:t:u:")) != -1) {
		switch (opt) {
		case 'c': p->numClient = args_long(argv[0], opt, optarg, 1, 4096); break;
		case 'n': p->numQuery = args_long(argv[0], opt, optarg, 1, 1L << 20); break;
		case 'q': p->percentQuery = args_long(argv[0], opt, optarg, 1, 100); break;
		case 'r': p->numRelation = args_long(argv[0], opt, optarg, 1, 1L << 30); break;
		case 't': p->numTransaction = args_long(argv[0], opt, optarg, 0, 1L << 40); break;
		case 'u': p->percentUser = args_long(argv[0], opt, optarg, 0, 100); break;
		default:
			args_bad_option(argv[0]);
			usage(argv[0]);
		}
	}
	args_no_operands(argc, argv, usage);
}

/* Fill every table with ids 1..numRelation in a shuffled order, each with
 * (1..5)*100 units at 50..90 (customers draw the numbers too, unused). */
static manager_t *initializeManager(long numRelation)
{
	printf("Initializing manager... ");
	fflush(stdout);
	manager_t *m = manager_alloc();
	random_t *r = random_alloc();
	long *ids = malloc(numRelation * sizeof *ids);
	if (m == NULL || r == NULL || ids == NULL) {
		fprintf(stderr, "vacation: out of memory\n");
		exit(1);
	}
	for (long i = 0; i < numRelation; i++)
		ids[i] = i + 1;
	/* Order of tables: car, flight, room, customer. */
	for (int table = 0; table < NUM_RESERVATION_TYPE + 1; table++) {
		for (long i = 0; i < numRelation; i++) {
			long x = (long)(random_generate(r) % (unsigned long)numRelation);
			long y = (long)(random_generate(r) % (unsigned long)numRelation);
			long t = ids[x];
			ids[x] = ids[y];
			ids[y] = t;
		}
		for (long i = 0; i < numRelation; i++) {
			long id = ids[i];
			long num = (long)(random_generate(r) % 5 + 1) * 100;
			long price = (long)(random_generate(r) % 5) * 10 + 50;
			bool_t ok = table < NUM_RESERVATION_TYPE
			            ? manager_addItem(m, (reservation_type_t)table, id, num, price)
			            : manager_addCustomer(m, id);
			if (!ok) {
				fprintf(stderr, "vacation: cannot populate the tables\n");
				exit(1);
			}
		}
	}
	free(ids);
	random_free(r);
	puts("done.");
	return m;
}

static client_t **initializeClients(manager_t *m, const params_t *p)
{
	printf("Initializing clients... ");
	fflush(stdout);
	client_t **clients = malloc(p->numClient * sizeof *clients);
	long numTransactionPerClient =
	        (long)((double)p->numTransaction / (double)p->numClient + 0.5);
	long queryRange = (long)((double)p->percentQuery / 100.0 * (double)p->numRelation + 0.5);
	if (queryRange < 1)
		queryRange = 1;
	for (long i = 0; clients != NULL && i < p->numClient; i++) {
		clients[i] = client_alloc(i, m, numTransactionPerClient, p->numQuery, queryRange,
		                          p->percentUser);
		if (clients[i] == NULL)
			clients = NULL;
	}
	if (clients == NULL) {
		fprintf(stderr, "vacation: out of memory\n");
		exit(1);
	}
	puts("done.");
	printf("Transactions        = %li\n", p->numTransaction);
	printf("Clients             = %li\n", p->numClient);
	printf("Transactions/client = %li\n", numTransactionPerClient);
	printf("Queries/transaction = %li\n", p->numQuery);
	printf("Relations           = %li\n", p->numRelation);
	printf("Query percent       = %li\n", p->percentQuery);
	printf("Query range         = %li\n", queryRange);
	printf("Percent user        = %li\n", p->percentUser);
	fflush(stdout);
	return clients;
}

int main(int argc, char **argv)
{
	params_t p;
	parseArgs(argc, argv, &p);

	manager_t *m = initializeManager(p.numRelation);
	client_t **clients = initializeClients(m, &p);

	TM_STARTUP(p.numClient);
	P_MEMORY_STARTUP(p.numClient);
	thread_startup(p.numClient);

	printf("Running clients... ");
	fflush(stdout);
	TIMER_T start, stop;
	TIMER_READ(start);
	thread_start(client_run, clients);
	TIMER_READ(stop);
	puts("done.");
	double seconds = TIMER_DIFF_SECONDS(start, stop);
	printf("Time = %0.6lf\n", seconds);

	printf("Checking tables... ");
	fflush(stdout);
	bool_t passed = manager_check(m, p.numRelation);
	long numSession = 0;
	for (long i = 0; i < p.numClient; i++)
		for (int a = 0; a < NUM_ACTION; a++)
			numSession += clients[i]->numByAction[a];
	if (numSession != clients[0]->numOperation * p.numClient) {
		report_check_failed("vacation", "%ld sessions ran, %ld expected", numSession,
		                    clients[0]->numOperation * p.numClient);
		passed = FALSE;
	}
	if (passed) {
		puts("done.");
	} else {
		puts("FAILED.");
		report_check_failed("vacation", "the database is inconsistent (see above)");
	}

	report_set_digest(manager_digest(m));
	report_print("vacation", argc, argv, p.numClient, seconds, passed);

	printf("Deallocating memory... ");
	fflush(stdout);
	for (long i = 0; i < p.numClient; i++)
		client_free(clients[i]);
	free(clients);
	manager_free(m);
	puts("done.");

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
