/*
 * defs.h — ssca2's parameters, graph and the generated edge list.
 */
#ifndef SSCA2_DEFS_H
#define SSCA2_DEFS_H 1

#include "types.h"

typedef struct ssca2_params {
	long scale;                  /* -s: 2^scale vertices */
	double probInterClique;      /* -i */
	double probUnidirectional;   /* -u */
	double percentIntWeights;    /* -w */
	long maxParalEdges;          /* -p */
	long maxPathLength;          /* -l (kernel 3, not run) */
	long kernel3Structure;       /* -k (kernel 3, not run) */
	long numThread;              /* -t */
	/* derived */
	long totVertices;            /* 2^scale */
	long maxCliqueSize;          /* 2^(scale/3) */
	long maxIntWeight;           /* 2^scale */
	long maxStrLen;              /* scale */
	long maxClusterSize;         /* = maxCliqueSize */
} ssca2_params_t;

/* The generator's output: edges sorted by start, then end vertex. */
typedef struct graph_sdg {
	long numEdgesPlaced;
	long numIntraEdges;
	long numInterEdges;
	long *startVertex;
	long *endVertex;
	long *intWeight;             /* > 0: integer weight; <= 0: -index of a string */
	char *strWeight;             /* numStrWeight strings of maxStrLen chars */
	long numStrWeight;
	char *soughtString;
} graph_sdg_t;

/* Kernel 1's adjacency arrays. */
typedef struct graph {
	long numVertices;
	long numEdges;
	long numDirectedEdges;
	long numUndirectedEdges;
	long numIntEdges;
	long numStrEdges;
	long *outDegree;
	long *outVertexIndex;
	long *outVertexList;         /* distinct neighbours, ascending per vertex */
	long *paralEdgeIndex;        /* first edge of each neighbour's run */
	long *inDegree;
	long *inVertexIndex;
	long *inVertexList;          /* implied (reverse) neighbours */
	long *intWeight;
	char *strWeight;
} graph_t;

#endif /* SSCA2_DEFS_H */
