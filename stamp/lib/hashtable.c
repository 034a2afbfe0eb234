/*
 * hashtable.c — see hashtable.h.
 */
#include <stdlib.h>

#include "hashtable.h"

hashtable_t *hashtable_alloc(long initNumBucket, hashtable_hash_t hash,
                             hashtable_compare_t comparePairs, long resizeRatio,
                             long growthFactor)
{
	(void)resizeRatio;
	(void)growthFactor;
	hashtable_t *h = malloc(sizeof *h);
	if (h == NULL)
		return NULL;
	h->numBucket = initNumBucket > 0 ? initNumBucket : 1;
	h->hash = hash;
	h->comparePairs = comparePairs;
	h->buckets = malloc(h->numBucket * sizeof *h->buckets);
	if (h->buckets == NULL) {
		free(h);
		return NULL;
	}
	for (long i = 0; i < h->numBucket; i++) {
		h->buckets[i] = list_alloc(comparePairs);
		if (h->buckets[i] == NULL)
			return NULL;
	}
	return h;
}

void hashtable_free(hashtable_t *h)
{
	for (long i = 0; i < h->numBucket; i++) {
		list_iter_t it;
		list_iter_reset(&it, h->buckets[i]);
		while (list_iter_hasNext(&it, h->buckets[i]))
			pair_free(list_iter_next(&it, h->buckets[i]));
		list_free(h->buckets[i]);
	}
	free(h->buckets);
	free(h);
}

static list_t *bucketOf(hashtable_t *h, void *keyPtr)
{
	return h->buckets[h->hash(keyPtr) % (ulong_t)h->numBucket];
}

bool_t hashtable_isEmpty(hashtable_t *h)
{
	for (long i = 0; i < h->numBucket; i++)
		if (!list_isEmpty(h->buckets[i]))
			return FALSE;
	return TRUE;
}

long hashtable_getSize(hashtable_t *h)
{
	long size = 0;
	for (long i = 0; i < h->numBucket; i++)
		size += list_getSize(h->buckets[i]);
	return size;
}

bool_t hashtable_containsKey(hashtable_t *h, void *keyPtr)
{
	pair_t probe = { keyPtr, NULL };
	return list_find(bucketOf(h, keyPtr), &probe) != NULL;
}

bool_t TMhashtable_containsKey(TM_ARGDECL hashtable_t *h, void *keyPtr)
{
	pair_t probe = { keyPtr, NULL };
	return TMLIST_FIND(bucketOf(h, keyPtr), &probe) != NULL;
}

void *hashtable_find(hashtable_t *h, void *keyPtr)
{
	pair_t probe = { keyPtr, NULL };
	pair_t *p = list_find(bucketOf(h, keyPtr), &probe);
	return p ? p->secondPtr : NULL;
}

void *TMhashtable_find(TM_ARGDECL hashtable_t *h, void *keyPtr)
{
	pair_t probe = { keyPtr, NULL };
	pair_t *p = TMLIST_FIND(bucketOf(h, keyPtr), &probe);
	return p ? p->secondPtr : NULL;   /* pairs never change once listed */
}

bool_t hashtable_insert(hashtable_t *h, void *keyPtr, void *dataPtr)
{
	list_t *bucket = bucketOf(h, keyPtr);
	pair_t probe = { keyPtr, NULL };
	if (list_find(bucket, &probe) != NULL)
		return FALSE;
	pair_t *p = pair_alloc(keyPtr, dataPtr);
	if (p == NULL)
		return FALSE;
	if (!list_insert(bucket, p)) {
		pair_free(p);
		return FALSE;
	}
	return TRUE;
}

bool_t TMhashtable_insert(TM_ARGDECL hashtable_t *h, void *keyPtr, void *dataPtr)
{
	list_t *bucket = bucketOf(h, keyPtr);
	pair_t probe = { keyPtr, NULL };
	if (TMLIST_FIND(bucket, &probe) != NULL)
		return FALSE;
	pair_t *p = TMPAIR_ALLOC(keyPtr, dataPtr);
	if (p == NULL)
		return FALSE;
	if (!TMLIST_INSERT(bucket, p)) {
		TMPAIR_FREE(p);
		return FALSE;
	}
	return TRUE;
}

bool_t hashtable_remove(hashtable_t *h, void *keyPtr)
{
	list_t *bucket = bucketOf(h, keyPtr);
	pair_t probe = { keyPtr, NULL };
	pair_t *p = list_find(bucket, &probe);
	if (p == NULL || !list_remove(bucket, &probe))
		return FALSE;
	pair_free(p);
	return TRUE;
}

bool_t TMhashtable_remove(TM_ARGDECL hashtable_t *h, void *keyPtr)
{
	list_t *bucket = bucketOf(h, keyPtr);
	pair_t probe = { keyPtr, NULL };
	pair_t *p = TMLIST_FIND(bucket, &probe);
	if (p == NULL || !TMLIST_REMOVE(bucket, &probe))
		return FALSE;
	TMPAIR_FREE(p);
	return TRUE;
}
