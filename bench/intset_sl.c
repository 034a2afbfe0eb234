/*
 * bench/intset_sl.c — skip list (Pugh) between two full-height sentinels.
 *
 * The head (key LONG_MIN) is the set and its level is the list's height;
 * the tail (LONG_MAX) ends every level without NULL tests.  A node's level
 * is drawn by the caller before the transaction (geometric, p = 1/2), so a
 * re-executed insertion builds the same node.  A search remembers the node
 * it stopped at on one level: the level below usually stops there again,
 * and its key need not be read twice.
 */
#include "intset.h"

#include <limits.h>

#define SL_LEVELS_MAX 32

typedef struct sl_node {
	long key;
	long level;                  /* number of next pointers, 1..height */
	struct sl_node *next[];
} sl_node_t;

static sl_node_t *sl_new_node(long key, long level)
{
	sl_node_t *n = intset_alloc(sizeof *n + (size_t)level * sizeof n->next[0]);
	TM_STORE(&n->key, key);
	TM_STORE(&n->level, level);
	return n;
}

/* Walk down to key: preds[i] is the last node on level i with a key below
 * key (filled if preds != NULL).  Returns the first node of level 0 with a
 * key >= key, its key in *found_key. */
static sl_node_t *sl_seek(sl_node_t *head, long key, sl_node_t **preds, long *found_key)
{
	long height = TM_LOAD(&head->level);
	sl_node_t *pred = head;
	sl_node_t *stop = NULL;     /* where the level above stopped */
	long stop_key = LONG_MAX;
	for (long lvl = height - 1; lvl >= 0; lvl--) {
		sl_node_t *n = TM_LOAD(&pred->next[lvl]);
		for (;;) {
			long k = n == stop ? stop_key : TM_LOAD(&n->key);
			if (k >= key) {
				stop = n;
				stop_key = k;
				break;
			}
			pred = n;
			n = TM_LOAD(&n->next[lvl]);
		}
		if (preds)
			preds[lvl] = pred;
	}
	*found_key = stop_key;
	return stop;
}

static POTM_BENCH_TX_FN bool sl_contains(void *set, long key)
{
	/* Like sl_seek, but done as soon as any level reaches the key. */
	sl_node_t *head = set;
	long height = TM_LOAD(&head->level);
	sl_node_t *pred = head;
	sl_node_t *stop = NULL;
	long stop_key = LONG_MAX;
	for (long lvl = height - 1; lvl >= 0; lvl--) {
		sl_node_t *n = TM_LOAD(&pred->next[lvl]);
		long k;
		while ((k = n == stop ? stop_key : TM_LOAD(&n->key)) < key) {
			pred = n;
			n = TM_LOAD(&n->next[lvl]);
		}
		if (k == key)
			return true;
		stop = n;
		stop_key = k;
	}
	return false;
}

static POTM_BENCH_TX_FN bool sl_insert(void *set, long key, uint64_t rnd)
{
	sl_node_t *head = set;
	sl_node_t *preds[SL_LEVELS_MAX];
	long k;
	sl_seek(head, key, preds, &k);
	if (k == key)
		return false;
	long height = TM_LOAD(&head->level);
	/* Trailing zeros of random bits: level l with probability 2^-l,
	 * capped at the height by the bit set at height - 1. */
	long level = 1 + __builtin_ctzll(rnd | (1ull << (height - 1)));
	sl_node_t *x = sl_new_node(key, level);
	for (long i = 0; i < level; i++) {
		TM_STORE(&x->next[i], TM_LOAD(&preds[i]->next[i]));
		TM_STORE(&preds[i]->next[i], x);
	}
	return true;
}

static POTM_BENCH_TX_FN bool sl_remove(void *set, long key)
{
	sl_node_t *preds[SL_LEVELS_MAX];
	long k;
	sl_node_t *x = sl_seek(set, key, preds, &k);
	if (k != key)
		return false;
	/* x is on every level below its own, right after preds[i]. */
	long level = TM_LOAD(&x->level);
	for (long i = 0; i < level; i++)
		TM_STORE(&preds[i]->next[i], TM_LOAD(&x->next[i]));
	tm_free(x);
	return true;
}

static POTM_BENCH_TX_FN void *sl_create(const intset_config_t *cfg)
{
	/* About log2(expected size) + 1 levels: the top one stays sparse. */
	long height = 2;
	while (height < SL_LEVELS_MAX && ((uint64_t)1 << (height - 1)) < cfg->range / 2)
		height++;
	sl_node_t *tail = sl_new_node(LONG_MAX, height);
	sl_node_t *head = sl_new_node(LONG_MIN, height);
	for (long i = 0; i < height; i++) {
		TM_STORE(&tail->next[i], (sl_node_t *)NULL);
		TM_STORE(&head->next[i], tail);
	}
	return head;
}

static POTM_BENCH_TX_FN bool sl_verify(void *set, uint64_t *size, bench_verdict_t *v)
{
	sl_node_t *head = set;
	long height = TM_LOAD(&head->level);
	*size = 0;
	if (height < 1 || height > SL_LEVELS_MAX)
		return bench_fail(v, "sl: head height %ld out of 1..%d", height, SL_LEVELS_MAX);

	/* Level 0: every node once, sorted, with a sane level; count how many
	 * links the upper levels must hold. */
	uint64_t links_expected = 0;
	long last = LONG_MIN;
	sl_node_t *tail = NULL;
	for (sl_node_t *n = TM_LOAD(&head->next[0]); n; n = TM_LOAD(&n->next[0])) {
		long k = TM_LOAD(&n->key);
		if (k <= last)
			return bench_fail(v, "sl: level 0: key %ld follows %ld: not sorted", k, last);
		long level = TM_LOAD(&n->level);
		if (k == LONG_MAX) {
			if (level != height)
				return bench_fail(v, "sl: tail has %ld levels, head %ld", level, height);
			tail = n;
			break;
		}
		if (level < 1 || level > height)
			return bench_fail(v, "sl: node %ld has level %ld (height %ld)", k, level, height);
		links_expected += (uint64_t)(level - 1);
		last = k;
		(*size)++;
	}
	if (tail == NULL)
		return bench_fail(v, "sl: level 0 ends without the tail sentinel");

	/* Upper levels: each is a sublist of the one below, holds only nodes
	 * tall enough, and ends at the tail. */
	uint64_t links = 0;
	for (long lvl = 1; lvl < height; lvl++) {
		sl_node_t *below = head;
		sl_node_t *n = TM_LOAD(&head->next[lvl]);
		for (; n != tail; n = TM_LOAD(&n->next[lvl])) {
			if (n == NULL)
				return bench_fail(v, "sl: level %ld ends without the tail", lvl);
			long k = TM_LOAD(&n->key);
			if (TM_LOAD(&n->level) <= lvl)
				return bench_fail(v, "sl: node %ld is linked on level %ld above "
				                  "its height", k, lvl);
			while (below != n) {
				below = TM_LOAD(&below->next[lvl - 1]);
				if (below == NULL || below == tail)
					return bench_fail(v, "sl: node %ld on level %ld is missing "
					                  "or out of order on level %ld", k, lvl, lvl - 1);
			}
			links++;
		}
	}
	if (links != links_expected)
		return bench_fail(v, "sl: upper levels hold %lu links, node levels say %lu",
		                  (unsigned long)links, (unsigned long)links_expected);
	return true;
}

static POTM_BENCH_TX_FN void sl_destroy(void *set)
{
	sl_node_t *n = set;
	while (n) {
		sl_node_t *next = TM_LOAD(&n->next[0]);
		tm_free(n);
		n = next;
	}
}

const intset_ops_t intset_sl_ops = {
	.name = "sl",
	.create = sl_create,
	.contains = sl_contains,
	.insert = sl_insert,
	.remove = sl_remove,
	.verify = sl_verify,
	.destroy = sl_destroy,
};
