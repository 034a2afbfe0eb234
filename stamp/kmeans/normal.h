/*
 * normal.h — kmeans' clustering of one k: the parallel assignment step and
 * the sequential centre update, iterated until few points move.
 */
#ifndef KMEANS_NORMAL_H
#define KMEANS_NORMAL_H 1

#include "random.h"
#include "types.h"

typedef struct kmeans_result {
	float **centers;     /* [k][numFeature] */
	int *membership;     /* [numObject] final cluster of each point */
	long numIteration;
	bool_t checkPassed;  /* every iteration's accumulators matched */
} kmeans_result_t;

/* Cluster attributes[numObject][numFeature] into k clusters with
 * numThread threads (thread_startup done).  Initial centres are k points
 * drawn from randomPtr.  Stops when at most threshold * numObject points
 * changed cluster in an iteration, or after 501 iterations.  *secondsPtr
 * accumulates the time of the parallel steps. */
kmeans_result_t normal_exec(long numThread, float **attributes, long numObject,
                            long numFeature, long k, float threshold,
                            random_t *randomPtr, double *secondsPtr);

void normal_result_free(kmeans_result_t *resultPtr, long k);

#endif /* KMEANS_NORMAL_H */
