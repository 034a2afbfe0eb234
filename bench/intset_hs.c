/*
 * bench/intset_hs.c — hash set: a fixed array of buckets, each a sorted
 * singly linked list (NULL-terminated, no sentinels).
 *
 * With about one key per bucket a transaction reads the bucket count, one
 * bucket head and a node or two, so transactions are short and conflict
 * only on the same bucket: the low-contention case of the benchmark.
 */
#include "intset.h"

typedef struct hs_node {
	long key;
	struct hs_node *next;
} hs_node_t;

typedef struct hs_set {
	uint64_t nbuckets;
	hs_node_t *bucket[];
} hs_set_t;

/* Fibonacci hashing, then multiply-shift onto [0, nbuckets): any bucket
 * count works, no division (nbuckets < 2^32). */
static inline uint64_t hs_bucket_of(long key, uint64_t nbuckets)
{
	uint64_t h = ((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32;
	return (h * nbuckets) >> 32;
}

/* The link that points at the first node with key >= key in its bucket,
 * that node (or NULL) in *node and its key in *found_key. */
static hs_node_t **hs_seek(hs_set_t *s, long key, hs_node_t **node, long *found_key)
{
	uint64_t nb = TM_LOAD(&s->nbuckets);
	hs_node_t **link = &s->bucket[hs_bucket_of(key, nb)];
	hs_node_t *n = TM_LOAD(link);
	long k = 0;
	while (n && (k = TM_LOAD(&n->key)) < key) {
		link = &n->next;
		n = TM_LOAD(link);
	}
	*node = n;
	*found_key = k;
	return link;
}

static POTM_BENCH_TX_FN bool hs_contains(void *set, long key)
{
	hs_node_t *n;
	long k;
	hs_seek(set, key, &n, &k);
	return n && k == key;
}

static POTM_BENCH_TX_FN bool hs_insert(void *set, long key, uint64_t rnd)
{
	(void)rnd;
	hs_node_t *n;
	long k;
	hs_node_t **link = hs_seek(set, key, &n, &k);
	if (n && k == key)
		return false;
	hs_node_t *x = intset_alloc(sizeof *x);
	TM_STORE(&x->key, key);
	TM_STORE(&x->next, n);
	TM_STORE(link, x);
	return true;
}

static POTM_BENCH_TX_FN bool hs_remove(void *set, long key)
{
	hs_node_t *n;
	long k;
	hs_node_t **link = hs_seek(set, key, &n, &k);
	if (!n || k != key)
		return false;
	TM_STORE(link, TM_LOAD(&n->next));
	tm_free(n);
	return true;
}

static POTM_BENCH_TX_FN void *hs_create(const intset_config_t *cfg)
{
	uint64_t nb = cfg->buckets;
	hs_set_t *s = intset_alloc(sizeof *s + nb * sizeof s->bucket[0]);
	TM_STORE(&s->nbuckets, nb);
	for (uint64_t b = 0; b < nb; b++)
		TM_STORE(&s->bucket[b], (hs_node_t *)NULL);
	return s;
}

static POTM_BENCH_TX_FN bool hs_verify(void *set, uint64_t *size, bench_verdict_t *v)
{
	hs_set_t *s = set;
	uint64_t nb = TM_LOAD(&s->nbuckets);
	*size = 0;
	for (uint64_t b = 0; b < nb; b++) {
		bool first = true;
		long last = 0;
		for (hs_node_t *n = TM_LOAD(&s->bucket[b]); n; n = TM_LOAD(&n->next)) {
			long k = TM_LOAD(&n->key);
			if (!first && k <= last)
				return bench_fail(v, "hs: bucket %lu: key %ld follows %ld: not "
				                  "sorted", (unsigned long)b, k, last);
			if (hs_bucket_of(k, nb) != b)
				return bench_fail(v, "hs: key %ld is in bucket %lu, belongs in %lu",
				                  k, (unsigned long)b,
				                  (unsigned long)hs_bucket_of(k, nb));
			first = false;
			last = k;
			(*size)++;
		}
	}
	return true;
}

static POTM_BENCH_TX_FN void hs_destroy(void *set)
{
	hs_set_t *s = set;
	uint64_t nb = TM_LOAD(&s->nbuckets);
	for (uint64_t b = 0; b < nb; b++) {
		hs_node_t *n = TM_LOAD(&s->bucket[b]);
		while (n) {
			hs_node_t *next = TM_LOAD(&n->next);
			tm_free(n);
			n = next;
		}
	}
	tm_free(s);
}

const intset_ops_t intset_hs_ops = {
	.name = "hs",
	.create = hs_create,
	.contains = hs_contains,
	.insert = hs_insert,
	.remove = hs_remove,
	.verify = hs_verify,
	.destroy = hs_destroy,
};
