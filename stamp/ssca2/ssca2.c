/*
 * ssca2.c — STAMP's SSCA#2 benchmark (kernel 1 only), this project's
 * implementation.
 *
 * The scalable data generator builds a directed multigraph of 2^-s
 * vertices (cliques plus inter-clique edges; -i, -u, -p, -w), then -t
 * threads run kernel 1 (computeGraph.c), which builds the adjacency
 * arrays with short transactions on shared counters.  -l and -k belong to
 * kernel 3, which STAMP does not run either.
 *
 * Self-check: the out-lists are the distinct neighbours of each vertex,
 * and each vertex's in-list holds exactly the vertices with an edge to it
 * that it has no edge back to.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "computeGraph.h"
#include "genScalData.h"
#include "args.h"
#include "report.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

static void usage(const char *prog)
{
	fprintf(stderr,
	        "Usage: %s [options]\n"
	        "  -i <FLT>   probability of inter-clique edges (0.5)\n"
	        "  -k <UINT>  kernel 3 data structure, 0..2 (2; kernel 3 is not run)\n"
	        "  -l <UINT>  max path length (3; kernel 3 is not run)\n"
	        "  -p <UINT>  max number of parallel edges (3)\n"
	        "  -s <UINT>  problem scale: 2^s vertices (20)\n"
	        "  -t <UINT>  number of threads (1)\n"
	        "  -u <FLT>   probability of unidirectional edges (0.1)\n"
	        "  -w <FLT>   fraction of integer weights (0.6)\n", prog);
	exit(2);
}

static void parseArgs(int argc, char **argv, ssca2_params_t *p)
{
	memset(p, 0, sizeof *p);
	p->probInterClique = 0.5;
	p->kernel3Structure = 2;
	p->maxPathLength = 3;
	p->maxParalEdges = 3;
	p->scale = 20;
	p->numThread = 1;
	p->probUnidirectional = 0.1;
	p->percentIntWeights = 0.6;
	int opt;
	opterr = 0;
	while ((opt = getopt(argc, argv, "i:k:l:p:s:t:u:w:")) != -1) {
		switch (opt) {
		case 'i': p->probInterClique = args_double(argv[0], opt, optarg, 0.0, 1.0, 0); break;
		case 'k': p->kernel3Structure = args_long(argv[0], opt, optarg, 0, 2); break;
		case 'l': p->maxPathLength = args_long(argv[0], opt, optarg, 1, 1L << 20); break;
		case 'p': p->maxParalEdges = args_long(argv[0], opt, optarg, 1, 1L << 10); break;
		case 's': p->scale = args_long(argv[0], opt, optarg, 2, 30); break;
		case 't': p->numThread = args_long(argv[0], opt, optarg, 1, 4096); break;
		case 'u': p->probUnidirectional = args_double(argv[0], opt, optarg, 0.0, 1.0, 0); break;
		case 'w': p->percentIntWeights = args_double(argv[0], opt, optarg, 0.0, 1.0, 0); break;
		default:
			args_bad_option(argv[0]);
			usage(argv[0]);
		}
	}
	args_no_operands(argc, argv, usage);
	p->totVertices = 1L << p->scale;
	p->maxCliqueSize = 1L << (p->scale / 3);
	p->maxIntWeight = 1L << p->scale;
	p->maxStrLen = p->scale;
	p->maxClusterSize = p->maxCliqueSize;
}

static int compareLongs(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* Recompute kernel 1's results sequentially and compare. */
static bool_t check(const graph_t *g, const graph_sdg_t *sdg)
{
	long numEdge = sdg->numEdgesPlaced;
	long maxVertex = -1;
	for (long e = 0; e < numEdge; e++) {
		if (sdg->startVertex[e] > maxVertex)
			maxVertex = sdg->startVertex[e];
		if (sdg->endVertex[e] > maxVertex)
			maxVertex = sdg->endVertex[e];
		if (e > 0 && (sdg->startVertex[e - 1] > sdg->startVertex[e] ||
		              (sdg->startVertex[e - 1] == sdg->startVertex[e] &&
		               sdg->endVertex[e - 1] > sdg->endVertex[e]))) {
			report_check_failed("ssca2", "the edges are not sorted at %ld", e);
			return FALSE;
		}
	}
	if (g->numVertices != maxVertex + 1) {
		report_check_failed("ssca2", "%ld vertices, expected %ld", g->numVertices,
		                    maxVertex + 1);
		return FALSE;
	}
	long n = g->numVertices;
	/* Out-lists: the distinct end vertices of each start vertex's run. */
	long k = 0;
	for (long e = 0; e < numEdge; e++) {
		if (e > 0 && sdg->startVertex[e - 1] == sdg->startVertex[e] &&
		    sdg->endVertex[e - 1] == sdg->endVertex[e])
			continue;
		long u = sdg->startVertex[e];
		if (k >= g->numDirectedEdges || g->outVertexList[k] != sdg->endVertex[e] ||
		    g->paralEdgeIndex[k] != e || k < g->outVertexIndex[u] ||
		    k >= g->outVertexIndex[u] + g->outDegree[u]) {
			report_check_failed("ssca2", "out-list of vertex %ld is wrong", u);
			return FALSE;
		}
		k++;
	}
	if (k != g->numDirectedEdges) {
		report_check_failed("ssca2", "%ld directed edges, expected %ld",
		                    g->numDirectedEdges, k);
		return FALSE;
	}
	/* In-lists: sorted, they must equal the implied edges into each
	 * vertex, which are found by scanning every out-list. */
	long *expectedDegree = calloc(n, sizeof *expectedDegree);
	long *sortedIn = malloc((g->numUndirectedEdges + 1) * sizeof *sortedIn);
	if (expectedDegree == NULL || sortedIn == NULL) {
		fprintf(stderr, "ssca2: out of memory\n");
		exit(1);
	}
	memcpy(sortedIn, g->inVertexList, g->numUndirectedEdges * sizeof *sortedIn);
	bool_t ok = TRUE;
	for (long v = 0; v < n && ok; v++)
		qsort(sortedIn + g->inVertexIndex[v], g->inDegree[v], sizeof *sortedIn, compareLongs);
	for (long u = 0; u < n && ok; u++) {
		for (long i = 0; i < g->outDegree[u] && ok; i++) {
			long v = g->outVertexList[g->outVertexIndex[u] + i];
			const long *back = g->outVertexList + g->outVertexIndex[v];
			if (bsearch(&u, back, g->outDegree[v], sizeof *back, compareLongs) != NULL)
				continue;   /* v -> u exists: no implied edge */
			expectedDegree[v]++;
			const long *in = sortedIn + g->inVertexIndex[v];
			if (bsearch(&u, in, g->inDegree[v], sizeof *in, compareLongs) == NULL) {
				report_check_failed("ssca2", "implied edge %ld -> %ld missing", v, u);
				ok = FALSE;
			}
		}
	}
	for (long v = 0; v < n && ok; v++) {
		if (expectedDegree[v] != g->inDegree[v]) {
			report_check_failed("ssca2", "vertex %ld has %ld implied edges, expected %ld",
			                    v, g->inDegree[v], expectedDegree[v]);
			ok = FALSE;
		}
		const long *in = sortedIn + g->inVertexIndex[v];
		for (long i = 1; i < g->inDegree[v] && ok; i++) {
			if (in[i - 1] == in[i]) {
				report_check_failed("ssca2", "implied edge %ld -> %ld twice", v, in[i]);
				ok = FALSE;
			}
		}
	}
	free(expectedDegree);
	free(sortedIn);
	return ok;
}

int main(int argc, char **argv)
{
	ssca2_params_t p;
	parseArgs(argc, argv, &p);

	puts("\nHPCS SSCA #2 Graph Analysis Executable Specification:");
	puts("\nRunning...\n");
	printf("Number of processors:       %ld\n", p.numThread);
	printf("Problem Scale:              %ld\n", p.scale);
	printf("Max parallel edges:         %ld\n", p.maxParalEdges);
	printf("Percent int weights:        %f\n", p.percentIntWeights);
	printf("Probability unidirectional: %f\n", p.probUnidirectional);
	printf("Probability inter-clique:   %f\n", p.probInterClique);
	printf("Subgraph edge length:       %ld\n", p.maxPathLength);
	printf("Kernel 3 data structure:    %ld\n", p.kernel3Structure);
	fflush(stdout);

	TM_STARTUP(p.numThread);
	P_MEMORY_STARTUP(p.numThread);
	thread_startup(p.numThread);

	puts("\nScalable Data Generator - genScalData() beginning execution...");
	TIMER_T start, stop;
	TIMER_READ(start);
	graph_sdg_t *sdg = genScalData(&p);
	TIMER_READ(stop);
	double generationSeconds = TIMER_DIFF_SECONDS(start, stop);
	puts("Finished generating edges");
	printf("No. of intra-clique edges - %ld\n", sdg->numIntraEdges);
	printf("No. of inter-clique edges - %ld\n", sdg->numInterEdges);
	printf("Total no. of edges        - %ld\n", sdg->numEdgesPlaced);
	printf("\n\tTime taken for Scalable Data Generation is %9.6f sec.\n\n",
	       generationSeconds);

	puts("\nKernel 1 - computeGraph() beginning execution...");
	fflush(stdout);
	graph_t g = { 0 };
	computeGraph_args_t args = { .graphPtr = &g, .sdgPtr = sdg, .paramsPtr = &p };
	TIMER_READ(start);
	thread_start(computeGraph, &args);
	TIMER_READ(stop);
	double kernelSeconds = TIMER_DIFF_SECONDS(start, stop);
	printf("\n\tTime taken for kernel 1 is %9.6f sec.\n\n", kernelSeconds);
	printf("\n\tTime taken for all is %9.6f sec.\n\n", generationSeconds + kernelSeconds);
	printf("Implied edges: %ld\n", g.numUndirectedEdges);

	bool_t passed = check(&g, sdg);
	/* The order of each vertex's in-list is the order of the commits. */
	unsigned long digest = report_digest_long(REPORT_DIGEST_INIT, g.numVertices);
	digest = report_digest(digest, g.inVertexList, g.numUndirectedEdges * sizeof(long));
	report_set_digest(digest);
	report_print("ssca2", argc, argv, p.numThread, kernelSeconds, passed);

	graph_free(&g);
	graph_sdg_free(sdg);

	TM_SHUTDOWN();
	P_MEMORY_SHUTDOWN();
	thread_shutdown();
	return passed ? 0 : 1;
}
