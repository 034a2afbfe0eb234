/*
 * normal.c — kmeans' clustering loop (see normal.h).
 *
 * Shared during the parallel step: one accumulator record per cluster
 * {int count; float sums[numFeature]} (each padded to a multiple of 32
 * bytes, so neighbouring clusters do not share a line), the next chunk of
 * points to take (globalIndex) and the number of points that changed
 * cluster (globalDelta).  Each point's assignment is one short
 * transaction adding it to its cluster's record; threads take chunks of
 * CHUNK points in a transaction of their own.
 *
 * Self-check, every iteration: the records must equal what the final
 * assignments imply (counts exactly, sums up to float rounding) and
 * globalDelta the number of points whose cluster changed.  A lost or torn
 * transactional update fails it.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normal.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

#define CHUNK 3
#define MAX_LOOP 500

typedef struct cluster_record {
	int count;
	float sums[];
} cluster_record_t;

typedef struct work_args {
	float **attributes;
	long numObject;
	long numFeature;
	long k;
	float **centers;
	int *membership;
	char *records;          /* k records of recordSize bytes */
	size_t recordSize;
	long globalIndex;       /* next chunk start (transactional) */
	float globalDelta;      /* changed points (transactional) */
} work_args_t;

static cluster_record_t *recordOf(work_args_t *a, long c)
{
	return (cluster_record_t *)(a->records + (size_t)c * a->recordSize);
}

static float squaredDistance(const float *a, const float *b, long numFeature)
{
	float d = 0.0f;
	for (long j = 0; j < numFeature; j++) {
		float x = a[j] - b[j];
		d += x * x;
	}
	return d;
}

/* The closest centre; a later centre must be closer by a relative margin
 * (as STAMP does), which keeps ties with the first one found. */
static long nearestCenter(const float *point, float **centers, long k, long numFeature)
{
	long index = 0;
	float best = FLT_MAX;
	for (long c = 0; c < k; c++) {
		float d = squaredDistance(point, centers[c], numFeature);
		if (d / best < 0.99999f) {
			best = d;
			index = c;
			if (d == 0.0f)
				break;
		}
	}
	return index;
}

static void addPoint(TM_ARGDECL work_args_t *a, long c, const float *point)
{
	cluster_record_t *r = recordOf(a, c);
	long numFeature = a->numFeature;
	TM_BEGIN();
	TM_SHARED_WRITE(r->count, (int)TM_SHARED_READ(r->count) + 1);
	for (long j = 0; j < numFeature; j++)
		TM_SHARED_WRITE_F(r->sums[j], TM_SHARED_READ_F(r->sums[j]) + point[j]);
	TM_END();
}

static long takeChunk(TM_ARGDECL work_args_t *a)
{
	volatile long start = 0;
	TM_BEGIN();
	long s = (long)TM_SHARED_READ(a->globalIndex);
	TM_SHARED_WRITE(a->globalIndex, s + CHUNK);
	start = s;
	TM_END();
	return start;
}

static void addDelta(TM_ARGDECL work_args_t *a, float delta)
{
	TM_BEGIN();
	TM_SHARED_WRITE_F(a->globalDelta, TM_SHARED_READ_F(a->globalDelta) + delta);
	TM_END();
}

static void work(void *argPtr)
{
	TM_THREAD_ENTER();
	work_args_t *a = argPtr;
	long numObject = a->numObject;
	float delta = 0.0f;
	long start = thread_getId() * CHUNK;
	while (start < numObject) {
		long stop = start + CHUNK < numObject ? start + CHUNK : numObject;
		for (long i = start; i < stop; i++) {
			long c = nearestCenter(a->attributes[i], a->centers, a->k, a->numFeature);
			if (a->membership[i] != c)
				delta += 1.0f;
			a->membership[i] = (int)c;   /* each point has one owner */
			addPoint(TM_ARG a, c, a->attributes[i]);
		}
		if (start + CHUNK >= numObject)
			break;
		start = takeChunk(TM_ARG a);
	}
	addDelta(TM_ARG a, delta);
	TM_THREAD_EXIT();
}

/* The records must be what the assignments imply. */
static bool_t checkIteration(work_args_t *a, const int *oldMembership, long iteration)
{
	long numFeature = a->numFeature;
	long *counts = calloc(a->k, sizeof *counts);
	double *sums = calloc((size_t)a->k * numFeature, sizeof *sums);
	double *absSums = calloc((size_t)a->k * numFeature, sizeof *absSums);
	if (counts == NULL || sums == NULL || absSums == NULL) {
		fprintf(stderr, "kmeans: out of memory\n");
		exit(1);
	}
	long changed = 0;
	for (long i = 0; i < a->numObject; i++) {
		int c = a->membership[i];
		changed += c != oldMembership[i];
		counts[c]++;
		for (long j = 0; j < numFeature; j++) {
			sums[c * numFeature + j] += a->attributes[i][j];
			absSums[c * numFeature + j] += fabs(a->attributes[i][j]);
		}
	}
	bool_t ok = TRUE;
	if ((long)a->globalDelta != changed) {
		fprintf(stderr, "kmeans check: iteration %ld: delta %.0f, but %ld points moved\n",
		        iteration, a->globalDelta, changed);
		ok = FALSE;
	}
	for (long c = 0; c < a->k && ok; c++) {
		cluster_record_t *r = recordOf(a, c);
		if (r->count != counts[c]) {
			fprintf(stderr, "kmeans check: iteration %ld: cluster %ld counts %d points, "
			        "%ld are assigned to it\n", iteration, c, r->count, counts[c]);
			ok = FALSE;
			break;
		}
		for (long j = 0; j < numFeature; j++) {
			/* Float sums in any order: within a few ulps per term. */
			double expected = sums[c * numFeature + j];
			double tolerance = 1e-5 * absSums[c * numFeature + j] + 1e-6;
			if (fabs(r->sums[j] - expected) > tolerance) {
				fprintf(stderr, "kmeans check: iteration %ld: cluster %ld feature %ld "
				        "sum %g, expected %g\n", iteration, c, j, r->sums[j], expected);
				ok = FALSE;
				break;
			}
		}
	}
	free(counts);
	free(sums);
	free(absSums);
	return ok;
}

kmeans_result_t normal_exec(long numThread, float **attributes, long numObject,
                            long numFeature, long k, float threshold,
                            random_t *randomPtr, double *secondsPtr)
{
	kmeans_result_t result = { 0 };
	work_args_t a = { 0 };
	a.attributes = attributes;
	a.numObject = numObject;
	a.numFeature = numFeature;
	a.k = k;
	a.recordSize = (sizeof(cluster_record_t) + numFeature * sizeof(float) + 31) / 32 * 32;
	a.records = calloc(k, a.recordSize);
	a.centers = malloc(k * sizeof *a.centers);
	a.membership = malloc(numObject * sizeof *a.membership);
	int *oldMembership = malloc(numObject * sizeof *oldMembership);
	if (a.records == NULL || a.centers == NULL || a.membership == NULL ||
	    oldMembership == NULL) {
		fprintf(stderr, "kmeans: out of memory\n");
		exit(1);
	}
	for (long c = 0; c < k; c++) {
		a.centers[c] = malloc(numFeature * sizeof(float));
		if (a.centers[c] == NULL) {
			fprintf(stderr, "kmeans: out of memory\n");
			exit(1);
		}
		long n = (long)(random_generate(randomPtr) % (unsigned long)numObject);
		memcpy(a.centers[c], attributes[n], numFeature * sizeof(float));
	}
	for (long i = 0; i < numObject; i++)
		a.membership[i] = -1;

	bool_t ok = TRUE;
	long loop = 0;
	long numIteration = 0;
	float delta;
	do {
		numIteration++;
		memcpy(oldMembership, a.membership, numObject * sizeof *oldMembership);
		a.globalIndex = numThread * CHUNK;
		a.globalDelta = 0.0f;
		TIMER_T start, stop;
		TIMER_READ(start);
		thread_start(work, &a);
		TIMER_READ(stop);
		*secondsPtr += TIMER_DIFF_SECONDS(start, stop);
		if (ok && !checkIteration(&a, oldMembership, loop))
			ok = FALSE;
		delta = a.globalDelta;
		/* New centres: the mean of each cluster.  An empty cluster keeps
		 * its centre (STAMP divides by zero and makes it NaN). */
		for (long c = 0; c < k; c++) {
			cluster_record_t *r = recordOf(&a, c);
			if (r->count > 0)
				for (long j = 0; j < numFeature; j++)
					a.centers[c][j] = r->sums[j] / (float)r->count;
		}
		memset(a.records, 0, (size_t)k * a.recordSize);
	} while (delta / (float)numObject > threshold && loop++ < MAX_LOOP);

	free(a.records);
	free(oldMembership);
	result.centers = a.centers;
	result.membership = a.membership;
	result.numIteration = numIteration;
	result.checkPassed = ok;
	return result;
}

void normal_result_free(kmeans_result_t *r, long k)
{
	for (long c = 0; c < k; c++)
		free(r->centers[c]);
	free(r->centers);
	free(r->membership);
}
