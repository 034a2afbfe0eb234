/*
 * adtree.c — see adtree.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "adtree.h"
#include "query.h"

static void outOfMemory(void)
{
	fprintf(stderr, "bayes: out of memory\n");
	exit(1);
}

adtree_t *adtree_alloc(void)
{
	adtree_t *t = calloc(1, sizeof *t);
	if (t == NULL)
		outOfMemory();
	return t;
}

static void freeNode(adtree_node_t *node);

static void freeVary(adtree_vary_t *vary)
{
	if (vary->zeroNodePtr != NULL)
		freeNode(vary->zeroNodePtr);
	if (vary->oneNodePtr != NULL)
		freeNode(vary->oneNodePtr);
	free(vary);
}

static void freeNode(adtree_node_t *node)
{
	for (long i = 0; i < vector_getSize(node->varyVectorPtr); i++)
		freeVary(vector_at(node->varyVectorPtr, i));
	vector_free(node->varyVectorPtr);
	free(node);
}

void adtree_free(adtree_t *t)
{
	if (t->rootNodePtr != NULL)
		freeNode(t->rootNodePtr);
	free(t);
}

static adtree_node_t *makeNode(long index, long start, long numRecord, data_t *d);

/* The vary of variable index under a node fixing parentIndex, over the
 * node's records [start, start + numRecord). */
static adtree_vary_t *makeVary(long parentIndex, long index, long start, long numRecord,
                               data_t *d)
{
	adtree_vary_t *vary = malloc(sizeof *vary);
	if (vary == NULL)
		outOfMemory();
	vary->index = index;
	vary->zeroNodePtr = NULL;
	vary->oneNodePtr = NULL;
	/* The node's records are already in order from parentIndex + 1 on. */
	if (parentIndex + 1 != index && numRecord > 1)
		data_sort(d, start, numRecord, index);
	long num0 = data_findSplit(d, start, numRecord, index);
	long num1 = numRecord - num0;
	vary->mostCommonValue = num0 >= num1 ? 0 : 1;
	if (num0 > 0 && vary->mostCommonValue != 0) {
		vary->zeroNodePtr = makeNode(index, start, num0, d);
		vary->zeroNodePtr->value = 0;
	}
	if (num1 > 0 && vary->mostCommonValue != 1) {
		vary->oneNodePtr = makeNode(index, start + num0, num1, d);
		vary->oneNodePtr->value = 1;
	}
	return vary;
}

static adtree_node_t *makeNode(long index, long start, long numRecord, data_t *d)
{
	adtree_node_t *node = malloc(sizeof *node);
	if (node == NULL)
		outOfMemory();
	node->index = index;
	node->value = -1;
	node->count = numRecord;
	node->varyVectorPtr = vector_alloc(d->numVar - index - 1);
	if (node->varyVectorPtr == NULL)
		outOfMemory();
	for (long v = index + 1; v < d->numVar; v++)
		vector_pushBack(node->varyVectorPtr, makeVary(index, v, start, numRecord, d));
	return node;
}

void adtree_make(adtree_t *t, data_t *d)
{
	t->numVar = d->numVar;
	t->numRecord = d->numRecord;
	data_sort(d, 0, d->numRecord, 0);
	t->rootNodePtr = makeNode(-1, 0, d->numRecord, d);
}

/* The count of query terms q.. under node (terms before q are matched by
 * the path to node). */
static long getCount(const adtree_t *t, const adtree_node_t *node, long q,
                     vector_t *queryVector, long lastQueryIndex)
{
	if (node == NULL)
		return 0;
	if (node->index >= lastQueryIndex)
		return node->count;
	query_t *query = vector_at(queryVector, q);
	if (query == NULL)
		return node->count;
	adtree_vary_t *vary = vector_at(node->varyVectorPtr, query->index - node->index - 1);
	if (query->value != vary->mostCommonValue) {
		const adtree_node_t *child = query->value == 0 ? vary->zeroNodePtr : vary->oneNodePtr;
		return getCount(t, child, q + 1, queryVector, lastQueryIndex);
	}
	/* The most common value is not stored: count(query without this term)
	 * minus count(query with this term flipped). */
	long numQuery = vector_getSize(queryVector);
	void *superTerms[numQuery];   /* at most numVar terms */
	vector_t superQuery = { 0, numQuery, superTerms };
	for (long i = 0; i < numQuery; i++)
		if (i != q)
			superTerms[superQuery.size++] = vector_at(queryVector, i);
	long superCount = adtree_getCount(t, &superQuery);
	long value = query->value;
	query->value = 1 - value;
	long invertCount = getCount(t, node, q, queryVector, lastQueryIndex);
	query->value = value;
	return superCount - invertCount;
}

long adtree_getCount(const adtree_t *t, vector_t *queryVector)
{
	if (t->rootNodePtr == NULL)
		return 0;
	long lastQueryIndex = -1;
	long numQuery = vector_getSize(queryVector);
	if (numQuery > 0)
		lastQueryIndex = ((query_t *)vector_at(queryVector, numQuery - 1))->index;
	return getCount(t, t->rootNodePtr, 0, queryVector, lastQueryIndex);
}
