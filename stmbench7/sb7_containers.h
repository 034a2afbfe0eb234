/*
 * stmbench7/sb7_containers.h — the transactional containers the structure
 * is built from.
 *
 *  sb7_vec_t    a growable array of pointers: the sets and bags of the
 *               specification (sub-assemblies, components, usedIn, parts,
 *               connections, same-date atomic parts).  Order is insertion
 *               order, and removal moves the last element into the hole,
 *               so the order is a deterministic function of the operations
 *               applied (the original orders by address, which is not).
 *  sb7_map_t    a skip list from long keys to pointers, ordered by key: the
 *               id and build-date indexes.  A node's height is a hash of
 *               its key, so the shape of the list depends only on the set
 *               of keys, never on the order of insertions or on a random
 *               generator (deterministic backends, structure hash).  An
 *               update writes only the links of its neighbours: no
 *               rebalancing writes that would make unrelated updates
 *               conflict, as a red-black tree's rotations would.
 *  sb7_strmap_t string keys (the document-title index): a skip list keyed
 *               by a 63-bit hash of the string, each node holding the
 *               chain of entries whose strings share that hash.
 *  sb7_idpool_t the FIFO pools of free ids: a ring of capacity ids.
 *
 * All of them are accessed only inside a transaction (or, in the lock
 * builds, under the lock of their level), through SB7_LOAD/SB7_STORE.
 * Functions named *_init_fresh initialise memory that no other thread can
 * see yet with plain stores.
 */
#ifndef SB7_CONTAINERS_H
#define SB7_CONTAINERS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb7_tm.h"

/* ---- vec: set / bag of pointers ------------------------------------------ */

typedef struct sb7_vec {
	void **items;
	long count;
	long capacity;
} sb7_vec_t;

void sb7_vec_init_fresh(sb7_vec_t *v, long capacity);

/* Inline: the traversals call these for every element they visit. */
static inline long sb7_vec_count(const sb7_vec_t *v)
{
	return SB7_LOAD(&v->count);
}

static inline void *sb7_vec_get(const sb7_vec_t *v, long i)
{
	void **items = SB7_LOAD(&v->items);
	return SB7_LOAD(&items[i]);
}

void sb7_vec_push(sb7_vec_t *v, void *item);
/* Remove the element at i (the last one takes its place). */
void sb7_vec_remove_at(sb7_vec_t *v, long i);
/* Remove one occurrence of item; false if absent. */
bool sb7_vec_remove(sb7_vec_t *v, const void *item);
long sb7_vec_occurrences(const sb7_vec_t *v, const void *item);
/* Free the array (the vec itself is part of its owner). */
void sb7_vec_release(sb7_vec_t *v);

/* ---- map: long -> pointer, ordered --------------------------------------- */

typedef struct sb7_map_node {
	long key;
	void *value;
	long height;                  /* links in next[] */
	struct sb7_map_node *next[];
} sb7_map_node_t;

typedef struct sb7_map {
	int max_height;               /* of the head; fixed at init */
	sb7_map_node_t *head;         /* sentinel, key unused */
} sb7_map_t;

/* expected_size sizes the head (log2 of it, plus slack); more keys only
 * make searches a little longer. */
void sb7_map_init(sb7_map_t *m, long expected_size);
void *sb7_map_get(const sb7_map_t *m, long key);
/* false (and nothing changed) if the key is present. */
bool sb7_map_insert(sb7_map_t *m, long key, void *value);
/* The removed value, or NULL if the key was absent. */
void *sb7_map_remove(sb7_map_t *m, long key);
/* In-order iteration: the first node with key >= key, and its successor. */
sb7_map_node_t *sb7_map_first_from(const sb7_map_t *m, long key);
sb7_map_node_t *sb7_map_next(const sb7_map_node_t *n);
long sb7_map_node_key(const sb7_map_node_t *n);
void *sb7_map_node_value(const sb7_map_node_t *n);
/* Free every node and the head (values are the caller's). */
void sb7_map_destroy(sb7_map_t *m);

#define SB7_MAP_FOREACH(node, map)                                          \
	for (sb7_map_node_t *node = sb7_map_first_from((map), LONG_MIN); node; \
	     node = sb7_map_next(node))

/* ---- strmap: string -> pointer -------------------------------------------- */

typedef struct sb7_strmap_entry {
	void *value;
	struct sb7_strmap_entry *next;   /* same hash */
	long length;
	uint64_t words[];                /* the key, zero padded */
} sb7_strmap_entry_t;

typedef struct sb7_strmap {
	sb7_map_t by_hash;               /* hash -> first entry */
} sb7_strmap_t;

void sb7_strmap_init(sb7_strmap_t *m, long expected_size);
void *sb7_strmap_get(const sb7_strmap_t *m, const char *key);
bool sb7_strmap_insert(sb7_strmap_t *m, const char *key, void *value);
void *sb7_strmap_remove(sb7_strmap_t *m, const char *key);
/* Entries in hash order (for counting and checking). */
void sb7_strmap_foreach(const sb7_strmap_t *m,
                        void (*fn)(void *ctx, const sb7_strmap_entry_t *e), void *ctx);
void sb7_strmap_destroy(sb7_strmap_t *m);
/* The entry's key copied into buf (size >= length + 1). */
void sb7_strmap_entry_key(const sb7_strmap_entry_t *e, char *buf, size_t size);

/* ---- id pool ---------------------------------------------------------------- */

typedef struct sb7_idpool {
	long capacity;     /* ids are 1..capacity */
	long *slots;       /* ring of capacity slots */
	long head;         /* total ids taken (next to take: slots[head % capacity]) */
	long tail;         /* total ids given back, plus capacity */
} sb7_idpool_t;

/* Holds 1..capacity, in that order. */
void sb7_idpool_init(sb7_idpool_t *p, long capacity);
long sb7_idpool_available(const sb7_idpool_t *p);
/* The oldest free id; the caller has checked sb7_idpool_available. */
long sb7_idpool_take(sb7_idpool_t *p);
void sb7_idpool_give_back(sb7_idpool_t *p, long id);
/* The i-th free id, oldest first (0 <= i < available). */
long sb7_idpool_peek(const sb7_idpool_t *p, long i);
void sb7_idpool_destroy(sb7_idpool_t *p);

#endif /* SB7_CONTAINERS_H */
