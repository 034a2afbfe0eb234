/*
 * bench/intset_ll.c — sorted singly linked list between two sentinels.
 *
 * The head sentinel (key LONG_MIN) is the set; the tail (LONG_MAX) ends
 * every walk without a NULL test.  A walk reads one key and one next
 * pointer per node, so a transaction's read set grows with the position of
 * its key: the list is the long-transaction case of the benchmark.
 */
#include "intset.h"

#include <limits.h>

typedef struct ll_node {
	long key;
	struct ll_node *next;
} ll_node_t;

static ll_node_t *ll_new_node(long key, ll_node_t *next)
{
	ll_node_t *n = intset_alloc(sizeof *n);
	TM_STORE(&n->key, key);
	TM_STORE(&n->next, next);
	return n;
}

/* The first node whose key is >= key, its key in *found_key, and the node
 * before it in *prev. */
static ll_node_t *ll_seek(ll_node_t *head, long key, ll_node_t **prev, long *found_key)
{
	ll_node_t *p = head;
	ll_node_t *n = TM_LOAD(&p->next);
	long k;
	while ((k = TM_LOAD(&n->key)) < key) {
		p = n;
		n = TM_LOAD(&n->next);
	}
	*prev = p;
	*found_key = k;
	return n;
}

static POTM_BENCH_TX_FN bool ll_contains(void *set, long key)
{
	ll_node_t *prev;
	long k;
	ll_seek(set, key, &prev, &k);
	return k == key;
}

static POTM_BENCH_TX_FN bool ll_insert(void *set, long key, uint64_t rnd)
{
	(void)rnd;
	ll_node_t *prev;
	long k;
	ll_node_t *n = ll_seek(set, key, &prev, &k);
	if (k == key)
		return false;
	TM_STORE(&prev->next, ll_new_node(key, n));
	return true;
}

static POTM_BENCH_TX_FN bool ll_remove(void *set, long key)
{
	ll_node_t *prev;
	long k;
	ll_node_t *n = ll_seek(set, key, &prev, &k);
	if (k != key)
		return false;
	TM_STORE(&prev->next, TM_LOAD(&n->next));
	tm_free(n);
	return true;
}

static POTM_BENCH_TX_FN void *ll_create(const intset_config_t *cfg)
{
	(void)cfg;
	ll_node_t *tail = ll_new_node(LONG_MAX, NULL);
	return ll_new_node(LONG_MIN, tail);
}

static POTM_BENCH_TX_FN bool ll_verify(void *set, uint64_t *size, bench_verdict_t *v)
{
	ll_node_t *head = set;
	*size = 0;
	if (TM_LOAD(&head->key) != LONG_MIN)
		return bench_fail(v, "ll: the head sentinel's key changed");
	long last = LONG_MIN;
	for (ll_node_t *n = TM_LOAD(&head->next); n; n = TM_LOAD(&n->next)) {
		long k = TM_LOAD(&n->key);
		if (k <= last)
			return bench_fail(v, "ll: key %ld follows %ld: not sorted", k, last);
		if (k == LONG_MAX) {
			if (TM_LOAD(&n->next) != NULL)
				return bench_fail(v, "ll: nodes after the tail sentinel");
			return true;
		}
		last = k;
		(*size)++;
	}
	return bench_fail(v, "ll: the list ends without its tail sentinel");
}

static POTM_BENCH_TX_FN void ll_destroy(void *set)
{
	ll_node_t *n = set;
	while (n) {
		ll_node_t *next = TM_LOAD(&n->next);
		tm_free(n);
		n = next;
	}
}

const intset_ops_t intset_ll_ops = {
	.name = "ll",
	.create = ll_create,
	.contains = ll_contains,
	.insert = ll_insert,
	.remove = ll_remove,
	.verify = ll_verify,
	.destroy = ll_destroy,
};
