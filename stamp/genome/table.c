/*
 * table.c — see table.h.
 */
#include <stdlib.h>

#include "table.h"

table_t *table_alloc(long numBucket)
{
	table_t *t = malloc(sizeof *t);
	if (t == NULL)
		return NULL;
	t->numBucket = numBucket;
	t->buckets = malloc(numBucket * sizeof *t->buckets);
	if (t->buckets == NULL) {
		free(t);
		return NULL;
	}
	for (long i = 0; i < numBucket; i++)
		if ((t->buckets[i] = list_alloc(NULL)) == NULL)
			return NULL;
	return t;
}

void table_free(table_t *t)
{
	for (long i = 0; i < t->numBucket; i++)
		list_free(t->buckets[i]);
	free(t->buckets);
	free(t);
}

bool_t TMtable_insert(TM_ARGDECL table_t *t, ulong_t hash, void *dataPtr)
{
	return TMLIST_INSERT(t->buckets[hash % (ulong_t)t->numBucket], dataPtr);
}

long table_getSize(table_t *t)
{
	long n = 0;
	for (long i = 0; i < t->numBucket; i++)
		n += list_getSize(t->buckets[i]);
	return n;
}
