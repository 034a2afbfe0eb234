/*
 * rbtree.h — red-black tree map of the STAMP interface (keys and values are
 * pointers; by default keys are longs cast to pointers).
 *
 * No nil sentinel: leaves are NULL, so two transactions working in
 * different parts of the tree never meet on a shared sentinel.  Removing a
 * node with two children moves its successor's key and value into it, so
 * keys change in place and transactional readers read them with barriers.
 * TMrbtree_* read and write every link, colour, key and value
 * transactionally: a lookup costs about two reads per level, and
 * rebalancing writes along the path.
 */
#ifndef RBTREE_H
#define RBTREE_H 1

#include "tm.h"
#include "types.h"

/* <0, 0, >0 like strcmp; NULL orders keys as longs. */
typedef long (*rbtree_compare_t)(const void *, const void *);

typedef struct rbtree_node {
	void *k;
	void *v;
	struct rbtree_node *p;   /* parent */
	struct rbtree_node *l;
	struct rbtree_node *r;
	long c;                  /* RBTREE_RED or RBTREE_BLACK */
} rbtree_node_t;

#define RBTREE_RED 0L
#define RBTREE_BLACK 1L

typedef struct rbtree {
	rbtree_node_t *root;
	rbtree_compare_t compare;
} rbtree_t;

rbtree_t *rbtree_alloc(rbtree_compare_t compare);
rbtree_t *TMrbtree_alloc(TM_ARGDECL rbtree_compare_t compare);
/* Frees the nodes and the tree, not the keys and values. */
void rbtree_free(rbtree_t *treePtr);
void TMrbtree_free(TM_ARGDECL rbtree_t *treePtr);

/* FALSE (and no change) if the key is present. */
bool_t rbtree_insert(rbtree_t *treePtr, void *key, void *val);
bool_t TMrbtree_insert(TM_ARGDECL rbtree_t *treePtr, void *key, void *val);
/* FALSE if the key is absent. */
bool_t rbtree_delete(rbtree_t *treePtr, void *key);
bool_t TMrbtree_delete(TM_ARGDECL rbtree_t *treePtr, void *key);
/* Insert, or overwrite the value; TRUE if the key was present. */
bool_t rbtree_update(rbtree_t *treePtr, void *key, void *val);
bool_t TMrbtree_update(TM_ARGDECL rbtree_t *treePtr, void *key, void *val);
/* The value, or NULL if the key is absent. */
void *rbtree_get(rbtree_t *treePtr, void *key);
void *TMrbtree_get(TM_ARGDECL rbtree_t *treePtr, void *key);
bool_t rbtree_contains(rbtree_t *treePtr, void *key);
bool_t TMrbtree_contains(TM_ARGDECL rbtree_t *treePtr, void *key);

/* Sequential checks and traversal. */

/* Remove (and free) every node; the tree stays usable. */
void rbtree_clear(rbtree_t *treePtr);

/* Number of nodes if the tree is a valid red-black search tree (order,
 * parent links, no red node with a red child, equal black heights); -1 and
 * a message on stderr otherwise. */
long rbtree_verify(rbtree_t *treePtr, const char *name);

/* Calls visit(key, val, ctx) in ascending key order until it returns
 * FALSE; returns FALSE if it was stopped. */
bool_t rbtree_forEach(rbtree_t *treePtr,
                      bool_t (*visit)(void *key, void *val, void *ctx), void *ctx);

#define TMRBTREE_ALLOC(c)          TMrbtree_alloc(TM_ARG (c))
#define TMRBTREE_FREE(t)           TMrbtree_free(TM_ARG (t))
#define TMRBTREE_INSERT(t, k, v)   TMrbtree_insert(TM_ARG (t), (k), (v))
#define TMRBTREE_DELETE(t, k)      TMrbtree_delete(TM_ARG (t), (k))
#define TMRBTREE_UPDATE(t, k, v)   TMrbtree_update(TM_ARG (t), (k), (v))
#define TMRBTREE_GET(t, k)         TMrbtree_get(TM_ARG (t), (k))
#define TMRBTREE_CONTAINS(t, k)    TMrbtree_contains(TM_ARG (t), (k))

#endif /* RBTREE_H */
