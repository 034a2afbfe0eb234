/*
 * net.h — a Bayesian network's structure: a DAG over numNode variables,
 * each node with the sorted lists of its parents' and children's ids.
 * The node array never changes; the lists are shared and transactional
 * in TMnet_* (learning changes them concurrently).
 */
#ifndef BAYES_NET_H
#define BAYES_NET_H 1

#include "bitmap.h"
#include "list.h"
#include "queue.h"
#include "random.h"
#include "tm.h"
#include "vector.h"

typedef enum operation {
	OPERATION_INSERT = 0,
	OPERATION_REMOVE,
	OPERATION_REVERSE,
	NUM_OPERATION
} operation_t;

typedef struct net_node {
	long id;
	list_t *parentIdListPtr;   /* ids as (void *)id, ascending */
	list_t *childIdListPtr;
} net_node_t;

typedef struct net {
	vector_t *nodeVectorPtr;   /* net_node_t *, by id */
	long numNode;
} net_t;

net_t *net_alloc(long numNode);
void net_free(net_t *netPtr);

list_t *net_getParentIdListPtr(net_t *netPtr, long id);
list_t *net_getChildIdListPtr(net_t *netPtr, long id);

/* INSERT from -> to, REMOVE it, or REVERSE it into to -> from. */
void net_applyOperation(net_t *netPtr, operation_t op, long fromId, long toId);
void TMnet_applyOperation(TM_ARGDECL net_t *netPtr, operation_t op, long fromId, long toId);

bool_t net_hasEdge(net_t *netPtr, long fromId, long toId);
bool_t TMnet_hasEdge(TM_ARGDECL net_t *netPtr, long fromId, long toId);

/* TRUE if a directed path leads from fromId to toId (breadth-first over
 * child lists; visited and work queue are the caller's scratch). */
bool_t net_isPath(net_t *netPtr, long fromId, long toId, bitmap_t *visitedPtr,
                  queue_t *workQueuePtr);
bool_t TMnet_isPath(TM_ARGDECL net_t *netPtr, long fromId, long toId, bitmap_t *visitedPtr,
                    queue_t *workQueuePtr);

/* Marks every descendant of id in descendantBitmap. */
void TMnet_findDescendants(TM_ARGDECL net_t *netPtr, long id, bitmap_t *descendantBitmapPtr,
                           queue_t *workQueuePtr);

/* TRUE if the structure has a directed cycle (depth-first colouring). */
bool_t net_isCycle(net_t *netPtr);

/* For each node, up to maxNumParent attempts at adding a random parent
 * (each taken with percentParent % chance), skipping those that would
 * duplicate an edge or close a cycle. */
void net_generateRandomEdges(net_t *netPtr, long maxNumParent, long percentParent,
                             random_t *randomPtr);

#endif /* BAYES_NET_H */
