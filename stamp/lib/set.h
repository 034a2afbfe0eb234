/*
 * set.h — the STAMP interface's set: a red-black tree with no values
 * (SET_USE_RBTREE).
 */
#ifndef SET_H
#define SET_H 1

#include "rbtree.h"

#define SET_T                       rbtree_t
#define SET_ALLOC(hash, cmp)        rbtree_alloc(cmp)
#define SET_FREE(set)               rbtree_free(set)
#define SET_CONTAINS(set, key)      rbtree_contains((set), (void *)(key))
#define SET_INSERT(set, key)        rbtree_insert((set), (void *)(key), NULL)
#define SET_REMOVE(set, key)        rbtree_delete((set), (void *)(key))

#define TMSET_CONTAINS(set, key)    TMrbtree_contains(TM_ARG (set), (void *)(key))
#define TMSET_INSERT(set, key)      TMrbtree_insert(TM_ARG (set), (void *)(key), NULL)
#define TMSET_REMOVE(set, key)      TMrbtree_delete(TM_ARG (set), (void *)(key))

#endif /* SET_H */
