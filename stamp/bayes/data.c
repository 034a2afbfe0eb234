/*
 * data.c — see data.h.  The random draws follow STAMP's order, so a seed
 * gives STAMP's network and records.
 */
#define _GNU_SOURCE 1   /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

static void outOfMemory(void)
{
	fprintf(stderr, "bayes: out of memory\n");
	exit(1);
}

data_t *data_alloc(long numVar, long numRecord, random_t *randomPtr)
{
	data_t *d = malloc(sizeof *d);
	if (d == NULL)
		outOfMemory();
	d->numVar = numVar;
	d->numRecord = numRecord;
	d->records = malloc((size_t)numVar * numRecord);
	if (d->records == NULL)
		outOfMemory();
	d->randomPtr = randomPtr;
	return d;
}

void data_free(data_t *d)
{
	free(d->records);
	free(d);
}

/* The order in which to sample variables: parents before children.  From
 * each not yet handled variable without children (in id order), walk its
 * ancestors breadth-first (repeats allowed), then take them in reverse,
 * each the first time it appears. */
static long *dependencyOrder(net_t *net)
{
	long numVar = net->numNode;
	long *order = malloc(numVar * sizeof *order);
	bitmap_t *done = bitmap_alloc(numVar);
	bitmap_t *ordered = bitmap_alloc(numVar);
	queue_t *workQueue = queue_alloc(numVar);
	vector_t *dependencies = vector_alloc(numVar);
	if (order == NULL || done == NULL || ordered == NULL || workQueue == NULL ||
	    dependencies == NULL)
		outOfMemory();
	long numOrder = 0;
	for (long v = bitmap_findClear(done, 0); v >= 0; v = bitmap_findClear(done, v + 1)) {
		if (list_getSize(net_getChildIdListPtr(net, v)) != 0)
			continue;
		queue_clear(workQueue);
		queue_push(workQueue, (void *)v);
		while (!queue_isEmpty(workQueue)) {
			long id = (long)queue_pop(workQueue);
			bitmap_set(done, id);
			vector_pushBack(dependencies, (void *)id);
			list_t *parents = net_getParentIdListPtr(net, id);
			list_iter_t it;
			list_iter_reset(&it, parents);
			while (list_iter_hasNext(&it, parents))
				queue_push(workQueue, list_iter_next(&it, parents));
		}
		while (vector_getSize(dependencies) > 0) {
			long id = (long)vector_popBack(dependencies);
			if (!bitmap_isSet(ordered, id)) {
				bitmap_set(ordered, id);
				order[numOrder++] = id;
			}
		}
	}
	if (numOrder != numVar) {
		fprintf(stderr, "bayes: the generated network has a cycle\n");
		exit(1);
	}
	bitmap_free(done);
	bitmap_free(ordered);
	queue_free(workQueue);
	vector_free(dependencies);
	return order;
}

net_t *data_generate(data_t *d, long seed, long maxNumParent, long percentParent)
{
	random_t *r = d->randomPtr;
	random_seed(r, (unsigned long)seed);
	long numVar = d->numVar;
	net_t *net = net_alloc(numVar);
	if (net == NULL)
		outOfMemory();
	net_generateRandomEdges(net, maxNumParent, percentParent, r);

	/* A threshold per combination of parent values. */
	long **thresholds = malloc(numVar * sizeof *thresholds);
	if (thresholds == NULL)
		outOfMemory();
	for (long v = 0; v < numVar; v++) {
		long numThreshold = 1L << list_getSize(net_getParentIdListPtr(net, v));
		thresholds[v] = malloc(numThreshold * sizeof **thresholds);
		if (thresholds[v] == NULL)
			outOfMemory();
		for (long t = 0; t < numThreshold; t++)
			thresholds[v][t] = (long)(random_generate(r) % (DATA_PRECISION + 1));
	}

	long *order = dependencyOrder(net);
	for (long rec = 0; rec < d->numRecord; rec++) {
		char *record = d->records + (size_t)rec * numVar;
		for (long o = 0; o < numVar; o++) {
			long v = order[o];
			/* The parents' values as bits, lowest id most significant. */
			long index = 0;
			list_t *parents = net_getParentIdListPtr(net, v);
			list_iter_t it;
			list_iter_reset(&it, parents);
			while (list_iter_hasNext(&it, parents))
				index = (index << 1) + record[(long)list_iter_next(&it, parents)];
			long x = (long)(random_generate(r) % DATA_PRECISION);
			record[v] = x < thresholds[v][index] ? 1 : 0;
		}
	}

	free(order);
	for (long v = 0; v < numVar; v++)
		free(thresholds[v]);
	free(thresholds);
	return net;
}

/* qsort_r context: rows compare on their bytes [offset, offset + width). */
typedef struct tail_compare {
	size_t offset;
	size_t width;
} tail_compare_t;

static int compareRecordTails(const void *a, const void *b, void *ctxPtr)
{
	const tail_compare_t *ctx = ctxPtr;
	return memcmp((const char *)a + ctx->offset, (const char *)b + ctx->offset, ctx->width);
}

void data_sort(data_t *d, long start, long num, long offset)
{
	tail_compare_t ctx = { (size_t)offset, (size_t)(d->numVar - offset) };
	if (num < 2 || ctx.width == 0)
		return;
	qsort_r(d->records + (size_t)start * d->numVar, num, d->numVar, compareRecordTails, &ctx);
}

long data_findSplit(data_t *d, long start, long num, long offset)
{
	/* The first row with a 1 at offset. */
	long lo = 0, hi = num;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (d->records[(size_t)(start + mid) * d->numVar + offset] == 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
