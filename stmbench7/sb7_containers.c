/*
 * stmbench7/sb7_containers.c — transactional vec, skip-list map, string
 * map and id pool (see sb7_containers.h for why each looks as it does).
 */
#include "sb7_containers.h"

#include <limits.h>
#include <string.h>

/* ---- vec ------------------------------------------------------------------- */

void sb7_vec_init_fresh(sb7_vec_t *v, long capacity)
{
	if (capacity < 1)
		capacity = 1;
	v->items = sb7_alloc((size_t)capacity * sizeof(void *));
	v->count = 0;
	v->capacity = capacity;
}

void sb7_vec_push(sb7_vec_t *v, void *item)
{
	long n = SB7_LOAD(&v->count);
	long cap = SB7_LOAD(&v->capacity);
	void **items = SB7_LOAD(&v->items);
	if (n == cap) {
		/* The new array is ours until the pointer to it is stored. */
		void **bigger = sb7_alloc((size_t)(2 * cap) * sizeof(void *));
		for (long i = 0; i < n; i++)
			bigger[i] = SB7_LOAD(&items[i]);
		SB7_STORE(&v->items, bigger);
		SB7_STORE(&v->capacity, 2 * cap);
		sb7_free(items);
		items = bigger;
		items[n] = item;
	} else {
		SB7_STORE(&items[n], item);
	}
	SB7_STORE(&v->count, n + 1);
}

void sb7_vec_remove_at(sb7_vec_t *v, long i)
{
	long n = SB7_LOAD(&v->count);
	void **items = SB7_LOAD(&v->items);
	if (i != n - 1)
		SB7_STORE(&items[i], SB7_LOAD(&items[n - 1]));
	SB7_STORE(&v->count, n - 1);
}

bool sb7_vec_remove(sb7_vec_t *v, const void *item)
{
	long n = SB7_LOAD(&v->count);
	void **items = SB7_LOAD(&v->items);
	for (long i = 0; i < n; i++)
		if (SB7_LOAD(&items[i]) == item) {
			sb7_vec_remove_at(v, i);
			return true;
		}
	return false;
}

long sb7_vec_occurrences(const sb7_vec_t *v, const void *item)
{
	long n = SB7_LOAD(&v->count), found = 0;
	void **items = SB7_LOAD(&v->items);
	for (long i = 0; i < n; i++)
		found += SB7_LOAD(&items[i]) == item;
	return found;
}

void sb7_vec_release(sb7_vec_t *v)
{
	sb7_free(SB7_LOAD(&v->items));
}

/* ---- map (skip list) ------------------------------------------------------------ */

#define SB7_MAP_MAX_HEIGHT 32

static uint64_t sb7_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Height with probability 2^-h of exceeding h, from the key alone. */
static long sb7_map_height_of(const sb7_map_t *m, long key)
{
	uint64_t h = sb7_mix64((uint64_t)key + 0x9e3779b97f4a7c15ull);
	return 1 + __builtin_ctzll(h | (1ull << (m->max_height - 1)));
}

static sb7_map_node_t *sb7_map_node_alloc(long height)
{
	return sb7_alloc(sizeof(sb7_map_node_t) + (size_t)height * sizeof(sb7_map_node_t *));
}

void sb7_map_init(sb7_map_t *m, long expected_size)
{
	int h = 2;
	while (h < SB7_MAP_MAX_HEIGHT && (1L << (h - 1)) < expected_size)
		h++;
	m->max_height = h;
	m->head = sb7_map_node_alloc(h);
	m->head->key = LONG_MIN;
	m->head->value = NULL;
	m->head->height = h;
	for (int i = 0; i < h; i++)
		m->head->next[i] = NULL;
}

/* The last node with key < key at each level (preds may be NULL); returns
 * the first node with key >= key. */
static sb7_map_node_t *sb7_map_search(const sb7_map_t *m, long key, sb7_map_node_t **preds)
{
	sb7_map_node_t *x = m->head;
	for (int level = m->max_height - 1; level >= 0; level--) {
		for (;;) {
			sb7_map_node_t *n = SB7_LOAD(&x->next[level]);
			if (n == NULL || SB7_FROZEN(&n->key) >= key)
				break;
			x = n;
		}
		if (preds)
			preds[level] = x;
	}
	return SB7_LOAD(&x->next[0]);
}

void *sb7_map_get(const sb7_map_t *m, long key)
{
	sb7_map_node_t *n = sb7_map_search(m, key, NULL);
	if (n != NULL && SB7_FROZEN(&n->key) == key)
		return SB7_LOAD(&n->value);
	return NULL;
}

bool sb7_map_insert(sb7_map_t *m, long key, void *value)
{
	sb7_map_node_t *preds[SB7_MAP_MAX_HEIGHT];
	sb7_map_node_t *n = sb7_map_search(m, key, preds);
	if (n != NULL && SB7_FROZEN(&n->key) == key)
		return false;
	long height = sb7_map_height_of(m, key);
	sb7_map_node_t *fresh = sb7_map_node_alloc(height);
	fresh->key = key;
	fresh->value = value;
	fresh->height = height;
	for (long level = 0; level < height; level++) {
		fresh->next[level] = SB7_LOAD(&preds[level]->next[level]);
		SB7_STORE(&preds[level]->next[level], fresh);
	}
	return true;
}

void *sb7_map_remove(sb7_map_t *m, long key)
{
	sb7_map_node_t *preds[SB7_MAP_MAX_HEIGHT];
	sb7_map_node_t *n = sb7_map_search(m, key, preds);
	if (n == NULL || SB7_FROZEN(&n->key) != key)
		return NULL;
	long height = SB7_FROZEN(&n->height);
	for (long level = 0; level < height; level++)
		SB7_STORE(&preds[level]->next[level], SB7_LOAD(&n->next[level]));
	void *value = SB7_LOAD(&n->value);
	sb7_free(n);
	return value;
}

sb7_map_node_t *sb7_map_first_from(const sb7_map_t *m, long key)
{
	return sb7_map_search(m, key, NULL);
}

sb7_map_node_t *sb7_map_next(const sb7_map_node_t *n)
{
	return SB7_LOAD(&n->next[0]);
}

long sb7_map_node_key(const sb7_map_node_t *n)
{
	return SB7_FROZEN(&n->key);
}

void *sb7_map_node_value(const sb7_map_node_t *n)
{
	return SB7_LOAD(&n->value);
}

void sb7_map_destroy(sb7_map_t *m)
{
	sb7_map_node_t *n = SB7_LOAD(&m->head->next[0]);
	while (n != NULL) {
		sb7_map_node_t *next = SB7_LOAD(&n->next[0]);
		sb7_free(n);
		n = next;
	}
	sb7_free(m->head);
	m->head = NULL;
}

/* ---- strmap ------------------------------------------------------------------- */

/* FNV-1a, folded to a non-negative long so that it is a map key. */
static long sb7_string_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return (long)(sb7_mix64(h) >> 1);
}

static size_t sb7_words_for(size_t len)
{
	return (len + 7) / 8;
}

/* Compare an entry's key with s (already split into zero-padded words). */
static bool sb7_strmap_entry_matches(const sb7_strmap_entry_t *e, const uint64_t *words, long len)
{
	if (SB7_FROZEN(&e->length) != len)
		return false;
	for (size_t i = 0; i < sb7_words_for((size_t)len); i++)
		if (SB7_FROZEN(&e->words[i]) != words[i])
			return false;
	return true;
}

/* Longest key the stack buffers take; titles are about 25 bytes. */
#define SB7_STRMAP_MAX_KEY 255

static size_t sb7_key_words(const char *key, uint64_t *words)
{
	size_t len = strlen(key);
	if (len > SB7_STRMAP_MAX_KEY) {
		fprintf(stderr, "stmbench7: map key longer than %d bytes\n", SB7_STRMAP_MAX_KEY);
		abort();
	}
	memset(words, 0, sb7_words_for(len) * 8);
	memcpy(words, key, len);
	return len;
}

void sb7_strmap_init(sb7_strmap_t *m, long expected_size)
{
	sb7_map_init(&m->by_hash, expected_size);
}

void *sb7_strmap_get(const sb7_strmap_t *m, const char *key)
{
	uint64_t words[SB7_STRMAP_MAX_KEY / 8 + 1];
	size_t len = sb7_key_words(key, words);
	sb7_strmap_entry_t *e = sb7_map_get(&m->by_hash, sb7_string_hash(key, len));
	for (; e != NULL; e = SB7_LOAD(&e->next))
		if (sb7_strmap_entry_matches(e, words, (long)len))
			return SB7_LOAD(&e->value);
	return NULL;
}

bool sb7_strmap_insert(sb7_strmap_t *m, const char *key, void *value)
{
	uint64_t words[SB7_STRMAP_MAX_KEY / 8 + 1];
	size_t len = sb7_key_words(key, words);
	long h = sb7_string_hash(key, len);
	sb7_strmap_entry_t *first = sb7_map_get(&m->by_hash, h);
	for (sb7_strmap_entry_t *e = first; e != NULL; e = SB7_LOAD(&e->next))
		if (sb7_strmap_entry_matches(e, words, (long)len))
			return false;
	size_t nwords = sb7_words_for(len);
	sb7_strmap_entry_t *fresh = sb7_alloc(sizeof *fresh + nwords * 8);
	fresh->value = value;
	fresh->next = first;
	fresh->length = (long)len;
	memcpy(fresh->words, words, nwords * 8);
	if (first == NULL) {
		sb7_map_insert(&m->by_hash, h, fresh);
	} else {
		/* A collision: the new entry heads the chain. */
		sb7_map_node_t *node = sb7_map_first_from(&m->by_hash, h);
		SB7_STORE(&node->value, fresh);
	}
	return true;
}

void *sb7_strmap_remove(sb7_strmap_t *m, const char *key)
{
	uint64_t words[SB7_STRMAP_MAX_KEY / 8 + 1];
	size_t len = sb7_key_words(key, words);
	long h = sb7_string_hash(key, len);
	sb7_map_node_t *node = sb7_map_first_from(&m->by_hash, h);
	if (node == NULL || sb7_map_node_key(node) != h)
		return NULL;
	sb7_strmap_entry_t *prev = NULL;
	for (sb7_strmap_entry_t *e = sb7_map_node_value(node); e != NULL;
	     prev = e, e = SB7_LOAD(&e->next)) {
		if (!sb7_strmap_entry_matches(e, words, (long)len))
			continue;
		sb7_strmap_entry_t *next = SB7_LOAD(&e->next);
		if (prev != NULL)
			SB7_STORE(&prev->next, next);
		else if (next != NULL)
			SB7_STORE(&node->value, next);
		else
			sb7_map_remove(&m->by_hash, h);
		void *value = SB7_LOAD(&e->value);
		sb7_free(e);
		return value;
	}
	return NULL;
}

void sb7_strmap_foreach(const sb7_strmap_t *m,
                        void (*fn)(void *ctx, const sb7_strmap_entry_t *e), void *ctx)
{
	SB7_MAP_FOREACH(node, &m->by_hash)
		for (sb7_strmap_entry_t *e = sb7_map_node_value(node); e != NULL;
		     e = SB7_LOAD(&e->next))
			fn(ctx, e);
}

void sb7_strmap_entry_key(const sb7_strmap_entry_t *e, char *buf, size_t size)
{
	long len = SB7_FROZEN(&e->length);
	size_t copied = 0;
	for (size_t i = 0; i < sb7_words_for((size_t)len) && copied + 1 < size; i++) {
		uint64_t w = SB7_FROZEN(&e->words[i]);
		size_t take = (size_t)len - copied < 8 ? (size_t)len - copied : 8;
		if (copied + take + 1 > size)
			take = size - 1 - copied;
		memcpy(buf + copied, &w, take);
		copied += take;
	}
	buf[copied] = '\0';
}

void sb7_strmap_destroy(sb7_strmap_t *m)
{
	SB7_MAP_FOREACH(node, &m->by_hash) {
		sb7_strmap_entry_t *e = sb7_map_node_value(node);
		while (e != NULL) {
			sb7_strmap_entry_t *next = SB7_LOAD(&e->next);
			sb7_free(e);
			e = next;
		}
	}
	sb7_map_destroy(&m->by_hash);
}

/* ---- id pool ------------------------------------------------------------------- */

void sb7_idpool_init(sb7_idpool_t *p, long capacity)
{
	p->capacity = capacity;
	p->slots = sb7_alloc((size_t)(capacity > 0 ? capacity : 1) * sizeof(long));
	for (long i = 0; i < capacity; i++)
		p->slots[i] = i + 1;
	p->head = 0;
	p->tail = capacity;
}

long sb7_idpool_available(const sb7_idpool_t *p)
{
	return SB7_LOAD(&p->tail) - SB7_LOAD(&p->head);
}

long sb7_idpool_take(sb7_idpool_t *p)
{
	long head = SB7_LOAD(&p->head);
	long id = SB7_LOAD(&p->slots[head % p->capacity]);
	SB7_STORE(&p->head, head + 1);
	return id;
}

void sb7_idpool_give_back(sb7_idpool_t *p, long id)
{
	long tail = SB7_LOAD(&p->tail);
	SB7_STORE(&p->slots[tail % p->capacity], id);
	SB7_STORE(&p->tail, tail + 1);
}

long sb7_idpool_peek(const sb7_idpool_t *p, long i)
{
	long head = SB7_LOAD(&p->head);
	return SB7_LOAD(&p->slots[(head + i) % p->capacity]);
}

void sb7_idpool_destroy(sb7_idpool_t *p)
{
	sb7_free(p->slots);
	p->slots = NULL;
}
