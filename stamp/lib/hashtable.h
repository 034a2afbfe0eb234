/*
 * hashtable.h — chained hash map of the STAMP interface: numBucket sorted
 * lists of pair_t {key, value}, bucket = hash(key) % numBucket.
 *
 * Keys are immutable and compared without barriers; each bucket list's
 * links and size are transactional in TMhashtable_*, so inserts into one
 * bucket conflict while different buckets do not.  The table does not
 * resize (STAMP resizes only in non-transactional builds, and none of its
 * applications uses it): resizeRatio and growthFactor are accepted and
 * ignored.
 */
#ifndef HASHTABLE_H
#define HASHTABLE_H 1

#include "list.h"
#include "pair.h"
#include "tm.h"
#include "types.h"

typedef ulong_t (*hashtable_hash_t)(const void *key);
/* Compares two pairs (it receives pair_t pointers) by key: <0, 0, >0. */
typedef list_compare_t hashtable_compare_t;

typedef struct hashtable {
	list_t **buckets;
	long numBucket;
	hashtable_hash_t hash;
	hashtable_compare_t comparePairs;
} hashtable_t;

hashtable_t *hashtable_alloc(long initNumBucket, hashtable_hash_t hash,
                             hashtable_compare_t comparePairs, long resizeRatio,
                             long growthFactor);
/* Frees the pairs and buckets, not the keys and values. */
void hashtable_free(hashtable_t *hashtablePtr);

bool_t hashtable_isEmpty(hashtable_t *hashtablePtr);
long hashtable_getSize(hashtable_t *hashtablePtr);
bool_t hashtable_containsKey(hashtable_t *hashtablePtr, void *keyPtr);
bool_t TMhashtable_containsKey(TM_ARGDECL hashtable_t *hashtablePtr, void *keyPtr);
/* The value stored under keyPtr, or NULL. */
void *hashtable_find(hashtable_t *hashtablePtr, void *keyPtr);
void *TMhashtable_find(TM_ARGDECL hashtable_t *hashtablePtr, void *keyPtr);
/* FALSE (and no change) if the key is present. */
bool_t hashtable_insert(hashtable_t *hashtablePtr, void *keyPtr, void *dataPtr);
bool_t TMhashtable_insert(TM_ARGDECL hashtable_t *hashtablePtr, void *keyPtr, void *dataPtr);
/* FALSE if the key is absent. */
bool_t hashtable_remove(hashtable_t *hashtablePtr, void *keyPtr);
bool_t TMhashtable_remove(TM_ARGDECL hashtable_t *hashtablePtr, void *keyPtr);

#define TMHASHTABLE_CONTAINSKEY(h, k)  TMhashtable_containsKey(TM_ARG (h), (k))
#define TMHASHTABLE_FIND(h, k)         TMhashtable_find(TM_ARG (h), (k))
#define TMHASHTABLE_INSERT(h, k, d)    TMhashtable_insert(TM_ARG (h), (k), (d))
#define TMHASHTABLE_REMOVE(h, k)       TMhashtable_remove(TM_ARG (h), (k))

#endif /* HASHTABLE_H */
