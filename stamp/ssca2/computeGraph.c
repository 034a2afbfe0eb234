/*
 * computeGraph.c — SSCA#2 kernel 1 (see computeGraph.h).
 *
 * Steps, separated by barriers:
 *  1. the vertex count: each thread's largest vertex, combined in a
 *     transaction;
 *  2. out-degrees (distinct neighbours) per vertex, their prefix sums
 *     (the out-list offsets) and the list size, added up in a
 *     transaction; then the out-lists;
 *  3. implied edges: for every edge u -> v without a reverse edge, u is
 *     appended to v's in-list in a transaction (concurrent appends to one
 *     vertex conflict on its in-degree); then the in-lists are compacted.
 *
 * Deviations from STAMP, both fixes: the vertex count is the largest
 * vertex plus one (STAMP adds one per thread, so it depends on the thread
 * count), and a vertex with more than maxClusterSize implied edges keeps
 * them all in an overflow array that grows by doubling (STAMP's overflow
 * arrays beyond the second overwrite each other).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "computeGraph.h"
#include "thread.h"
#include "tm.h"
#include "utility.h"

static void outOfMemory(void)
{
	fprintf(stderr, "ssca2: out of memory\n");
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		outOfMemory();
	return p;
}

/* Thread id's share of [0, total): chunks of max(1, round(total / T)),
 * the last thread taking the rest. */
static void partition(long total, long id, long numThread, long *startPtr, long *stopPtr)
{
	long chunk = MAX(1, (long)((double)total / (double)numThread + 0.5));
	long start = id * chunk;
	long stop = id == numThread - 1 ? total : start + chunk;
	*startPtr = MIN(start, total);
	*stopPtr = MIN(stop, total);
}

/* Prefix sums of values[] (exclusive) into offsets[], over all threads;
 * returns the total.  Every thread calls it. */
static long parallelPrefixSum(computeGraph_args_t *a, const long *values, long *offsets, long n, long id,
                              long numThread)
{
	long start, stop;
	partition(n, id, numThread, &start, &stop);
	long sum = 0;
	for (long i = start; i < stop; i++)
		sum += values[i];
	a->partialSums[id] = sum;
	thread_barrier_wait();
	long base = 0;
	for (long t = 0; t < id; t++)
		base += a->partialSums[t];
	for (long i = start; i < stop; i++) {
		offsets[i] = base;
		base += values[i];
	}
	long total = 0;
	for (long t = 0; t < numThread; t++)
		total += a->partialSums[t];
	thread_barrier_wait();   /* partial sums may be reused after this */
	return total;
}

/* Index of the first edge starting at vertex v (edges sorted by start). */
static long firstEdgeOf(const graph_sdg_t *sdg, long v)
{
	long lo = 0, hi = sdg->numEdgesPlaced;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (sdg->startVertex[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool_t isOutNeighbour(const graph_t *g, long u, long v)
{
	const long *list = g->outVertexList + g->outVertexIndex[u];
	long lo = 0, hi = g->outDegree[u];
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (list[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->outDegree[u] && list[lo] == v;
}

/* ---- transactions ------------------------------------------------------------- */

static void raiseMaxVertex(TM_ARGDECL computeGraph_args_t *a, long localMax)
{
	TM_BEGIN();
	long globalMax = (long)TM_SHARED_READ(a->maxVertex);
	if (localMax > globalMax)
		TM_SHARED_WRITE(a->maxVertex, localMax);
	TM_END();
}

static void addOutVertexListSize(TM_ARGDECL computeGraph_args_t *a, long n)
{
	TM_BEGIN();
	TM_SHARED_WRITE(a->outVertexListSize,
	                (long)TM_SHARED_READ(a->outVertexListSize) + n);
	TM_END();
}

/* Append u to v's in-list: the first maxCluster in impliedEdgeList, the
 * rest in v's overflow array. */
static void addImpliedEdge(TM_ARGDECL computeGraph_args_t *a, graph_t *g, long v, long u,
                           long maxCluster)
{
	TM_BEGIN();
	long d = (long)TM_SHARED_READ(g->inDegree[v]);
	TM_SHARED_WRITE(g->inDegree[v], d + 1);
	if (d < maxCluster) {
		TM_SHARED_WRITE(a->impliedEdgeList[v * maxCluster + d], u);
	} else {
		long k = d - maxCluster;
		long *aux = TM_SHARED_READ_P(a->auxArr[v]);
		long capacity = (long)TM_SHARED_READ(a->auxCapacity[v]);
		if (k == capacity) {
			long newCapacity = capacity ? 2 * capacity : maxCluster;
			long *grown = TM_MALLOC(newCapacity * sizeof *grown);
			if (grown == NULL)
				outOfMemory();
			for (long i = 0; i < capacity; i++)
				grown[i] = (long)TM_SHARED_READ(aux[i]);
			if (aux != NULL)
				TM_FREE(aux);
			TM_SHARED_WRITE_P(a->auxArr[v], grown);
			TM_SHARED_WRITE(a->auxCapacity[v], newCapacity);
			aux = grown;
		}
		TM_SHARED_WRITE(aux[k], u);
	}
	TM_END();
}

/* ---- the kernel ------------------------------------------------------------------ */

void computeGraph(void *argPtr)
{
	TM_THREAD_ENTER();
	computeGraph_args_t *a = argPtr;
	graph_t *g = a->graphPtr;
	graph_sdg_t *sdg = a->sdgPtr;
	long maxCluster = a->paramsPtr->maxClusterSize;
	long id = thread_getId();
	long numThread = thread_getNumThread();
	long start, stop;

	/* 1. Vertex count. */
	if (id == 0) {
		a->maxVertex = -1;
		a->outVertexListSize = 0;
		a->partialSums = xmalloc(numThread * sizeof *a->partialSums);
	}
	thread_barrier_wait();
	partition(sdg->numEdgesPlaced, id, numThread, &start, &stop);
	long localMax = -1;
	for (long e = start; e < stop; e++)
		localMax = MAX(localMax, MAX(sdg->startVertex[e], sdg->endVertex[e]));
	raiseMaxVertex(TM_ARG a, localMax);
	thread_barrier_wait();

	if (id == 0) {
		g->numVertices = a->maxVertex + 1;
		g->numEdges = sdg->numEdgesPlaced;
		g->intWeight = sdg->intWeight;
		g->strWeight = sdg->strWeight;
		g->numStrEdges = 0;
		for (long e = 0; e < g->numEdges; e++)
			g->numStrEdges += sdg->intWeight[e] <= 0;
		g->numIntEdges = g->numEdges - g->numStrEdges;
		g->outDegree = xmalloc(g->numVertices * sizeof(long));
		g->outVertexIndex = xmalloc(g->numVertices * sizeof(long));
	}
	thread_barrier_wait();

	/* 2. Out-lists. */
	long numVertices = g->numVertices;
	partition(numVertices, id, numThread, &start, &stop);
	long localSize = 0;
	for (long v = start; v < stop; v++) {
		long degree = 0;
		for (long e = firstEdgeOf(sdg, v); e < g->numEdges && sdg->startVertex[e] == v; e++)
			if (e == 0 || sdg->startVertex[e - 1] != v ||
			    sdg->endVertex[e - 1] != sdg->endVertex[e])
				degree++;
		g->outDegree[v] = degree;
		localSize += degree;
	}
	thread_barrier_wait();
	parallelPrefixSum(a, g->outDegree, g->outVertexIndex, numVertices, id, numThread);
	addOutVertexListSize(TM_ARG a, localSize);
	thread_barrier_wait();
	if (id == 0) {
		g->numDirectedEdges = a->outVertexListSize;
		g->outVertexList = xmalloc(a->outVertexListSize * sizeof(long));
		g->paralEdgeIndex = xmalloc(a->outVertexListSize * sizeof(long));
	}
	thread_barrier_wait();
	for (long v = start; v < stop; v++) {
		long k = g->outVertexIndex[v];
		for (long e = firstEdgeOf(sdg, v); e < g->numEdges && sdg->startVertex[e] == v; e++) {
			if (e == 0 || sdg->startVertex[e - 1] != v ||
			    sdg->endVertex[e - 1] != sdg->endVertex[e]) {
				g->outVertexList[k] = sdg->endVertex[e];
				g->paralEdgeIndex[k] = e;
				k++;
			}
		}
	}
	thread_barrier_wait();

	/* 3. Implied edges. */
	if (id == 0) {
		g->inDegree = calloc(numVertices, sizeof(long));
		g->inVertexIndex = xmalloc(numVertices * sizeof(long));
		a->impliedEdgeList = xmalloc(numVertices * maxCluster * sizeof(long));
		a->auxArr = calloc(numVertices, sizeof(long *));
		a->auxCapacity = calloc(numVertices, sizeof(long));
		if (g->inDegree == NULL || a->auxArr == NULL || a->auxCapacity == NULL)
			outOfMemory();
	}
	thread_barrier_wait();
	for (long u = start; u < stop; u++) {
		for (long k = 0; k < g->outDegree[u]; k++) {
			long v = g->outVertexList[g->outVertexIndex[u] + k];
			if (!isOutNeighbour(g, v, u))
				addImpliedEdge(TM_ARG a, g, v, u, maxCluster);
		}
	}
	thread_barrier_wait();
	long numUndirected = parallelPrefixSum(a, g->inDegree, g->inVertexIndex, numVertices, id,
	                                       numThread);
	if (id == 0) {
		g->numUndirectedEdges = numUndirected;
		g->inVertexList = xmalloc(numUndirected * sizeof(long));
	}
	thread_barrier_wait();
	for (long v = start; v < stop; v++) {
		long *dst = g->inVertexList + g->inVertexIndex[v];
		long n = g->inDegree[v];
		long direct = MIN(n, maxCluster);
		memcpy(dst, a->impliedEdgeList + v * maxCluster, direct * sizeof(long));
		if (n > maxCluster)
			memcpy(dst + maxCluster, a->auxArr[v], (n - maxCluster) * sizeof(long));
	}
	thread_barrier_wait();
	if (id == 0) {
		for (long v = 0; v < numVertices; v++)
			free(a->auxArr[v]);
		free(a->auxArr);
		free(a->auxCapacity);
		free(a->impliedEdgeList);
		free(a->partialSums);
	}
	TM_THREAD_EXIT();
}

void graph_free(graph_t *g)
{
	free(g->outDegree);
	free(g->outVertexIndex);
	free(g->outVertexList);
	free(g->paralEdgeIndex);
	free(g->inDegree);
	free(g->inVertexIndex);
	free(g->inVertexList);
}
