/*
 * genScalData.c — SSCA#2's scalable data generator, following the
 * published kernel description and STAMP's order of random draws (one MT
 * stream, seed 0), so that a scale gives STAMP's graph:
 *
 *  1. a random permutation of the vertices (relabelling, applied last);
 *  2. cliques of 1..maxCliqueSize consecutive vertices covering them all;
 *  3. intra-clique edges: every pair gets an edge in one direction or
 *     both (-u), then a few random parallel edges;
 *  4. inter-clique edges: from each vertex to the vertices at distances
 *     1, 2, 4, ... on both sides, with probability -i halved per step,
 *     1..maxParalEdges of them when the target is in another clique;
 *  5. weights: integers, or (for 1 - -w of the edges) strings;
 *  6. relabel, and sort the edges by start then end vertex.
 *
 * Deviation: STAMP's last sort step mishandles the last run and vertices
 * without edges; here the edges end up fully sorted by (start, end).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genScalData.h"
#include "random.h"

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

typedef struct edge_list {
	long n, capacity;
	long *start, *end;
} edge_list_t;

static void addEdge(edge_list_t *e, long start, long end)
{
	if (e->n == e->capacity) {
		e->capacity = e->capacity ? 2 * e->capacity : 1024;
		e->start = realloc(e->start, e->capacity * sizeof *e->start);
		e->end = realloc(e->end, e->capacity * sizeof *e->end);
		if (e->start == NULL || e->end == NULL)
			outOfMemory();
	}
	e->start[e->n] = start;
	e->end[e->n] = end;
	e->n++;
}

static long draw(random_t *r, long range)
{
	return (long)(random_generate(r) % (unsigned long)range);
}

/* A probability drawn with 1/1000 resolution. */
static float drawProbability(random_t *r)
{
	return (float)(random_generate(r) % 1000) / 1000.0f;
}

/* The clique holding vertex v: the last one starting at or before it. */
static long cliqueOf(const long *firstVertex, long numClique, long v)
{
	long lo = 0, hi = numClique - 1;
	while (lo < hi) {
		long mid = (lo + hi + 1) / 2;
		if (firstVertex[mid] <= v)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Stable counting sort of the edges by key[] (< numKey). */
static void sortEdgesBy(long *key, long *other, long numEdge, long numKey)
{
	long *count = calloc(numKey + 1, sizeof *count);
	long *key2 = xmalloc(numEdge * sizeof *key2);
	long *other2 = xmalloc(numEdge * sizeof *other2);
	if (count == NULL)
		outOfMemory();
	for (long i = 0; i < numEdge; i++)
		count[key[i] + 1]++;
	for (long k = 0; k < numKey; k++)
		count[k + 1] += count[k];
	for (long i = 0; i < numEdge; i++) {
		long at = count[key[i]]++;
		key2[at] = key[i];
		other2[at] = other[i];
	}
	memcpy(key, key2, numEdge * sizeof *key);
	memcpy(other, other2, numEdge * sizeof *other);
	free(count);
	free(key2);
	free(other2);
}

graph_sdg_t *genScalData(const ssca2_params_t *p)
{
	long tot = p->totVertices;
	long maxClique = p->maxCliqueSize;
	long maxParal = p->maxParalEdges;
	random_t *r = random_alloc();
	if (r == NULL)
		outOfMemory();
	random_seed(r, 0);

	/* 1. Permutation. */
	long *permV = xmalloc(tot * sizeof *permV);
	for (long i = 0; i < tot; i++)
		permV[i] = i;
	for (long i = 0; i < tot; i++) {
		long t = i + draw(r, tot - i);
		if (t != i) {
			long x = permV[i];
			permV[i] = permV[t];
			permV[t] = x;
		}
	}

	/* 2. Cliques: sizes drawn for an estimated count, then cut to fit. */
	long estTotClique = (long)ceil(1.5 * (double)tot / (double)((1 + maxClique) / 2));
	long *cliqueSize = xmalloc(estTotClique * sizeof *cliqueSize);
	long *firstVertex = xmalloc(estTotClique * sizeof *firstVertex);
	for (long c = 0; c < estTotClique; c++)
		cliqueSize[c] = 1 + draw(r, maxClique);
	long numClique = 0;
	for (long c = 0, first = 0; c < estTotClique; c++) {
		firstVertex[c] = first;
		numClique = c + 1;
		if (first + cliqueSize[c] - 1 >= tot - 1) {
			cliqueSize[c] = tot - first;
			break;
		}
		first += cliqueSize[c];
	}
	if (firstVertex[numClique - 1] + cliqueSize[numClique - 1] != tot) {
		fprintf(stderr, "ssca2: the cliques do not cover the vertices\n");
		exit(1);
	}

	/* 3. Intra-clique edges, with a multiplicity matrix per clique. */
	edge_list_t edges = { 0 };
	long *counter = xmalloc(maxClique * maxClique * sizeof *counter);
	for (long c = 0; c < numClique; c++) {
		long size = cliqueSize[c];
		long base = firstVertex[c];
		memset(counter, 0, size * size * sizeof *counter);
		for (long i = 0; i < size; i++) {
			for (long j = 0; j < i; j++) {
				float x = drawProbability(r);
				if (x >= p->probUnidirectional) {
					addEdge(&edges, base + i, base + j);
					addEdge(&edges, base + j, base + i);
					counter[i * size + j]++;
					counter[j * size + i]++;
				} else if (x >= 0.5f) {
					addEdge(&edges, base + i, base + j);
					counter[i * size + j]++;
				} else {
					addEdge(&edges, base + j, base + i);
					counter[j * size + i]++;
				}
			}
		}
		if (size != 1) {
			long numAttempt = draw(r, 2 * size * maxParal);
			for (long k = 0; k < numAttempt; k++) {
				long i = draw(r, size);
				long j = draw(r, size);
				if (i != j && counter[i * size + j] < maxParal) {
					if (drawProbability(r) >= p->probUnidirectional) {
						addEdge(&edges, base + i, base + j);
						counter[i * size + j]++;
					}
				}
			}
		}
	}
	free(counter);
	long numIntra = edges.n;

	/* 4. Inter-clique edges. */
	for (long i = 0; i < tot; i++) {
		long c1 = cliqueOf(firstVertex, numClique, i);
		double prob = p->probInterClique;
		for (long d = 1; d < tot; d *= 2, prob /= 2) {
			float x = drawProbability(r);
			long j = (i + d) % tot;
			if (x <= prob && cliqueOf(firstVertex, numClique, j) != c1) {
				long n = draw(r, maxParal) + 1;
				for (long k = 0; k < n; k++)
					addEdge(&edges, i, j);
			}
			x = drawProbability(r);
			j = (i - d + tot) % tot;   /* wraps around, like an unsigned difference */
			if (x <= prob && cliqueOf(firstVertex, numClique, j) != c1) {
				long n = draw(r, maxParal) + 1;
				for (long k = 0; k < n; k++)
					addEdge(&edges, i, j);
			}
		}
	}
	long numEdge = edges.n;

	/* 5. Weights, in generation order. */
	graph_sdg_t *sdg = xmalloc(sizeof *sdg);
	sdg->numIntraEdges = numIntra;
	sdg->numInterEdges = numEdge - numIntra;
	sdg->numEdgesPlaced = numEdge;
	sdg->intWeight = xmalloc(numEdge * sizeof *sdg->intWeight);
	long numStr = 0;
	for (long e = 0; e < numEdge; e++) {
		if (drawProbability(r) <= p->percentIntWeights) {
			sdg->intWeight[e] = 1 + draw(r, p->maxIntWeight - 1);
		} else {
			sdg->intWeight[e] = -numStr;   /* string number numStr */
			numStr++;
		}
	}
	sdg->numStrWeight = numStr;
	sdg->strWeight = xmalloc(numStr * p->maxStrLen);
	for (long s = 0; s < numStr; s++)
		for (long k = 0; k < p->maxStrLen; k++)
			sdg->strWeight[s * p->maxStrLen + k] = (char)(1 + draw(r, 127));
	sdg->soughtString = xmalloc(p->maxStrLen);
	if (numStr > 0)
		memcpy(sdg->soughtString, sdg->strWeight + draw(r, numStr) * p->maxStrLen,
		       p->maxStrLen);

	/* 6. Relabel; sort by end, then (stably) by start. */
	for (long e = 0; e < numEdge; e++) {
		edges.start[e] = permV[edges.start[e]];
		edges.end[e] = permV[edges.end[e]];
	}
	sortEdgesBy(edges.end, edges.start, numEdge, tot);
	sortEdgesBy(edges.start, edges.end, numEdge, tot);
	sdg->startVertex = edges.start;
	sdg->endVertex = edges.end;

	free(permV);
	free(cliqueSize);
	free(firstVertex);
	random_free(r);
	return sdg;
}

void graph_sdg_free(graph_sdg_t *sdg)
{
	free(sdg->startVertex);
	free(sdg->endVertex);
	free(sdg->intWeight);
	free(sdg->strWeight);
	free(sdg->soughtString);
	free(sdg);
}
