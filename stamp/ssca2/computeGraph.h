/*
 * computeGraph.h — SSCA#2 kernel 1: build the graph's adjacency arrays
 * from the sorted edge list, in parallel.
 */
#ifndef SSCA2_COMPUTEGRAPH_H
#define SSCA2_COMPUTEGRAPH_H 1

#include "defs.h"

typedef struct computeGraph_args {
	graph_t *graphPtr;
	graph_sdg_t *sdgPtr;
	const ssca2_params_t *paramsPtr;
	/* Shared by the threads of one run (set up by thread 0). */
	long maxVertex;             /* transactional */
	long outVertexListSize;     /* transactional */
	long *partialSums;          /* per thread, for prefix sums */
	long *impliedEdgeList;      /* numVertices * maxCluster, transactional */
	long **auxArr;              /* per vertex: overflow in-edges (transactional) */
	long *auxCapacity;          /* per vertex: their capacity (transactional) */
} computeGraph_args_t;

/* Parallel region body; argPtr is a computeGraph_args_t. */
void computeGraph(void *argPtr);

void graph_free(graph_t *graphPtr);

#endif /* SSCA2_COMPUTEGRAPH_H */
