/*
 * map.h — the STAMP interface's map: a red-black tree (MAP_USE_RBTREE is
 * the only implementation here, so it is also the default).
 */
#ifndef MAP_H
#define MAP_H 1

#include "rbtree.h"

#define MAP_T                       rbtree_t
#define MAP_ALLOC(hash, cmp)        rbtree_alloc(cmp)
#define MAP_FREE(map)               rbtree_free(map)
#define MAP_CONTAINS(map, key)      rbtree_contains((map), (void *)(key))
#define MAP_FIND(map, key)          rbtree_get((map), (void *)(key))
#define MAP_INSERT(map, key, data)  rbtree_insert((map), (void *)(key), (void *)(data))
#define MAP_REMOVE(map, key)        rbtree_delete((map), (void *)(key))

#define PMAP_ALLOC(hash, cmp)       MAP_ALLOC((hash), (cmp))
#define PMAP_FREE(map)              MAP_FREE(map)
#define PMAP_INSERT(map, key, data) MAP_INSERT((map), (key), (data))
#define PMAP_REMOVE(map, key)       MAP_REMOVE((map), (key))

#define TMMAP_ALLOC(hash, cmp)      TMrbtree_alloc(TM_ARG (cmp))
#define TMMAP_FREE(map)             TMrbtree_free(TM_ARG (map))
#define TMMAP_CONTAINS(map, key)    TMrbtree_contains(TM_ARG (map), (void *)(key))
#define TMMAP_FIND(map, key)        TMrbtree_get(TM_ARG (map), (void *)(key))
#define TMMAP_INSERT(map, key, data) \
	TMrbtree_insert(TM_ARG (map), (void *)(key), (void *)(data))
#define TMMAP_REMOVE(map, key)      TMrbtree_delete(TM_ARG (map), (void *)(key))

#endif /* MAP_H */
