/*
 * bayes.c — STAMP's Bayesian network structure learning benchmark, this
 * project's implementation.
 *
 * Generates -r records of -v binary variables from a random network (-n
 * parents at most, -p percent chance each, seed -s), builds an AD-tree
 * of them, then -t threads learn a network structure by hill climbing
 * (learner.c; -i insert penalty, -e edges learned per variable, -q
 * quality factor).  Prints the learned and the actual network's scores.
 *
 * Self-check: the learned network is acyclic (STAMP's check), its parent
 * and child lists agree, the transactional parent count equals the
 * network's, and the AD-tree's counts equal counts over the records for a
 * sample of queries.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adtree.h"
#include "data.h"
#include "learner.h"
#include "net.h"
#include "query.h"
#include "random.h"
#include "args.h"
#include "report.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

typedef struct params {
	long maxNumEdgeLearned;
	long insertPenalty;
	long maxNumParent;
	long percentParent;
	float operationQualityFactor;
	long numRecord;
	long randomSeed;
	long numThread;
	long numVar;
} params_t;

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options]\n"
	        "  -e <INT>   max number of edges learned per variable, -1 = no limit (-1)\n"
	        "  -i <UINT>  edge insert penalty (1)\n"
	        "  -n <UINT>  max number of parents (4)\n"
	        "  -p <UINT>  percent chance of parent (10)\n"
	        "  -q <FLT>   operation quality factor (1.0)\n"
	        "  -r <UINT>  number of records (4096)\n"
	        "  -s <UINT>  random seed (1)\n"
	        "  -t <UINT>  number of threads (1)\n"
	        "  -v <UINT>  number of variables (32)\n", prog);
	exit(2);
}

static void parseArgs(int argc, char **argv, params_t *p)
{
	*p = (params_t){ -1, 1, 4, 10, 1.0f, 4096, 1, 1, 32 };
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "e:i:n:p:q:r:s:t:v:")) != -1) {
		switch (opt) {
		case 'e': p->maxNumEdgeLearned = args_long(argv[0], opt, optarg, -1, 1L << 20); break;
		case 'i': p->insertPenalty = args_long(argv[0], opt, optarg, 0, 1L << 20); break;
		case 'n': p->maxNumParent = args_long(argv[0], opt, optarg, 0, 30); break;
		case 'p': p->percentParent = args_long(argv[0], opt, optarg, 0, 100); break;
		case 'q':
			p->operationQualityFactor =
			        (float)args_double(argv[0], opt, optarg, 0.0, ARGS_NO_MAX, 1);
			break;
		case 'r': p->numRecord = args_long(argv[0], opt, optarg, 1, 1L << 30); break;
		case 's': p->randomSeed = args_long(argv[0], opt, optarg, 0, 0xffffffffL); break;
		case 't': p->numThread = args_long(argv[0], opt, optarg, 1, 4096); break;
		case 'v': p->numVar = args_long(argv[0], opt, optarg, 1, 4096); break;
		default:
			args_bad_option(argv[0]);
			usage(argv[0]);
		}
	}
	args_no_operands(argc, argv, usage);
}

/* Counts of random queries (2 to 4 terms) from the AD-tree against a scan
 * of the records. */
static bool_t checkAdtree(adtree_t *t, data_t *d, long seed)
{
	random_t *r = random_alloc();
	random_seed(r, (unsigned long)seed + 1);
	long numVar = d->numVar;
	query_t *queries = malloc(numVar * sizeof *queries);
	vector_t *queryVector = vector_alloc(numVar);
	char *chosen = calloc(numVar, 1);
	bool_t ok = TRUE;
	for (long k = 0; k < 200 && ok; k++) {
		vector_clear(queryVector);
		memset(chosen, 0, numVar);
		long numTerm = 1 + (long)(random_generate(r) % (numVar < 4 ? numVar : 4));
		for (long i = 0; i < numVar; i++)
			queries[i] = (query_t){ i, QUERY_VALUE_WILDCARD };
		for (long n = 0; n < numTerm; n++) {
			long v = (long)(random_generate(r) % (unsigned long)numVar);
			if (chosen[v])
				continue;
			chosen[v] = 1;
			queries[v].value = (long)(random_generate(r) % 2);
			vector_pushBack(queryVector, &queries[v]);
		}
		vector_sort(queryVector, query_compareByIndex);
		long expected = 0;
		for (long rec = 0; rec < d->numRecord; rec++) {
			const char *record = d->records + (size_t)rec * numVar;
			bool_t match = TRUE;
			for (long i = 0; i < vector_getSize(queryVector) && match; i++) {
				query_t *q = vector_at(queryVector, i);
				match = record[q->index] == q->value;
			}
			expected += match;
		}
		long count = adtree_getCount(t, queryVector);
		if (count != expected) {
			report_check_failed("bayes", "AD-tree count %ld, the records have %ld", count,
			                    expected);
			ok = FALSE;
		}
	}
	free(queries);
	free(chosen);
	vector_free(queryVector);
	random_free(r);
	return ok;
}

static bool_t checkLearnedNet(learner_t *l)
{
	net_t *net = l->netPtr;
	bool_t ok = TRUE;
	if (net_isCycle(net)) {
		report_check_failed("bayes", "the learned network has a cycle");
		ok = FALSE;
	}
	long numParent = 0, numChild = 0;
	for (long v = 0; v < net->numNode && ok; v++) {
		list_t *parents = net_getParentIdListPtr(net, v);
		numParent += list_getSize(parents);
		numChild += list_getSize(net_getChildIdListPtr(net, v));
		list_iter_t it;
		list_iter_reset(&it, parents);
		while (list_iter_hasNext(&it, parents)) {
			long p = (long)list_iter_next(&it, parents);
			if (!net_hasEdge(net, p, v) ||
			    list_find(net_getChildIdListPtr(net, p), (void *)v) != (void *)v) {
				report_check_failed("bayes", "edge %ld -> %ld is only half there", p, v);
				ok = FALSE;
				break;
			}
		}
	}
	if (ok && numParent != numChild) {
		report_check_failed("bayes", "%ld parent links but %ld child links", numParent,
		                    numChild);
		ok = FALSE;
	}
	if (ok && numParent != l->numTotalParent) {
		report_check_failed("bayes", "the learner counted %ld parents, the network has %ld",
		                    l->numTotalParent, numParent);
		ok = FALSE;
	}
	return ok;
}

int main(int argc, char **argv)
{
	params_t p;
	parseArgs(argc, argv, &p);
	printf("Random seed                = %li\n", p.randomSeed);
	printf("Number of vars             = %li\n", p.numVar);
	printf("Number of records          = %li\n", p.numRecord);
	printf("Max num parents            = %li\n", p.maxNumParent);
	printf("%% chance of parent         = %li\n", p.percentParent);
	printf("Insert penalty             = %li\n", p.insertPenalty);
	printf("Max num edge learned / var = %li\n", p.maxNumEdgeLearned);
	printf("Operation quality factor   = %f\n", p.operationQualityFactor);
	fflush(stdout);

	TM_STARTUP(p.numThread);
	P_MEMORY_STARTUP(p.numThread);
	thread_startup(p.numThread);

	printf("Generating data... ");
	fflush(stdout);
	random_t *randomPtr = random_alloc();
	data_t *d = data_alloc(p.numVar, p.numRecord, randomPtr);
	net_t *actualNet = data_generate(d, p.randomSeed, p.maxNumParent, p.percentParent);
	puts("done.");

	printf("Generating adtree... ");
	fflush(stdout);
	TIMER_T start, stop;
	TIMER_READ(start);
	adtree_t *adtree = adtree_alloc();
	adtree_make(adtree, d);
	TIMER_READ(stop);
	puts("done.");
	printf("Adtree time = %f\n", TIMER_DIFF_SECONDS(start, stop));
	fflush(stdout);

	bool_t passed = checkAdtree(adtree, d, p.randomSeed);
	float actualScore = learner_scoreNet(actualNet, adtree);
	net_free(actualNet);
	learner_t *l = learner_alloc(adtree, p.insertPenalty, p.maxNumEdgeLearned,
	                             p.operationQualityFactor);
	data_free(d);

	printf("Learning structure...");
	fflush(stdout);
	TIMER_READ(start);
	learner_run(l);
	TIMER_READ(stop);
	puts("done.");
	double seconds = TIMER_DIFF_SECONDS(start, stop);
	printf("Learn time = %f\n", seconds);

	if (!checkLearnedNet(l))
		passed = FALSE;
	float learnScore = learner_scoreNet(l->netPtr, adtree);
	printf("Learn score  = %f\n", learnScore);
	printf("Actual score = %f\n", actualScore);

	unsigned long digest = REPORT_DIGEST_INIT;
	for (long v = 0; v < p.numVar; v++) {
		list_t *parents = net_getParentIdListPtr(l->netPtr, v);
		list_iter_t it;
		list_iter_reset(&it, parents);
		digest = report_digest_long(digest, -1 - v);
		while (list_iter_hasNext(&it, parents))
			digest = report_digest_long(digest, (long)list_iter_next(&it, parents));
	}
	report_set_digest(report_digest(digest, &learnScore, sizeof learnScore));
	report_print("bayes", argc, argv, p.numThread, seconds, passed);

	learner_free(l);
	adtree_free(adtree);
	random_free(randomPtr);

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
