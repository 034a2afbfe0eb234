/*
 * net.c — see net.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "net.h"

static long compareId(const void *a, const void *b)
{
	long x = (long)a, y = (long)b;
	return (x > y) - (x < y);
}

net_t *net_alloc(long numNode)
{
	net_t *n = malloc(sizeof *n);
	if (n == NULL)
		return NULL;
	n->numNode = numNode;
	n->nodeVectorPtr = vector_alloc(numNode);
	for (long i = 0; i < numNode; i++) {
		net_node_t *node = malloc(sizeof *node);
		if (node == NULL)
			return NULL;
		node->id = i;
		node->parentIdListPtr = list_alloc(compareId);
		node->childIdListPtr = list_alloc(compareId);
		vector_pushBack(n->nodeVectorPtr, node);
	}
	return n;
}

void net_free(net_t *n)
{
	for (long i = 0; i < n->numNode; i++) {
		net_node_t *node = vector_at(n->nodeVectorPtr, i);
		list_free(node->parentIdListPtr);
		list_free(node->childIdListPtr);
		free(node);
	}
	vector_free(n->nodeVectorPtr);
	free(n);
}

static net_node_t *nodeOf(net_t *n, long id)
{
	return vector_at(n->nodeVectorPtr, id);
}

list_t *net_getParentIdListPtr(net_t *n, long id)
{
	return nodeOf(n, id)->parentIdListPtr;
}

list_t *net_getChildIdListPtr(net_t *n, long id)
{
	return nodeOf(n, id)->childIdListPtr;
}

/* ---- structure changes ----------------------------------------------------------- */

static void insertEdge(net_t *n, long fromId, long toId)
{
	list_insert(nodeOf(n, toId)->parentIdListPtr, (void *)fromId);
	list_insert(nodeOf(n, fromId)->childIdListPtr, (void *)toId);
}

static void removeEdge(net_t *n, long fromId, long toId)
{
	list_remove(nodeOf(n, toId)->parentIdListPtr, (void *)fromId);
	list_remove(nodeOf(n, fromId)->childIdListPtr, (void *)toId);
}

void net_applyOperation(net_t *n, operation_t op, long fromId, long toId)
{
	switch (op) {
	case OPERATION_INSERT: insertEdge(n, fromId, toId); break;
	case OPERATION_REMOVE: removeEdge(n, fromId, toId); break;
	case OPERATION_REVERSE:
		removeEdge(n, fromId, toId);
		insertEdge(n, toId, fromId);
		break;
	default: break;
	}
}

static void TMinsertEdge(TM_ARGDECL net_t *n, long fromId, long toId)
{
	TMLIST_INSERT(nodeOf(n, toId)->parentIdListPtr, (void *)fromId);
	TMLIST_INSERT(nodeOf(n, fromId)->childIdListPtr, (void *)toId);
}

static void TMremoveEdge(TM_ARGDECL net_t *n, long fromId, long toId)
{
	TMLIST_REMOVE(nodeOf(n, toId)->parentIdListPtr, (void *)fromId);
	TMLIST_REMOVE(nodeOf(n, fromId)->childIdListPtr, (void *)toId);
}

void TMnet_applyOperation(TM_ARGDECL net_t *n, operation_t op, long fromId, long toId)
{
	switch (op) {
	case OPERATION_INSERT: TMinsertEdge(TM_ARG n, fromId, toId); break;
	case OPERATION_REMOVE: TMremoveEdge(TM_ARG n, fromId, toId); break;
	case OPERATION_REVERSE:
		TMremoveEdge(TM_ARG n, fromId, toId);
		TMinsertEdge(TM_ARG n, toId, fromId);
		break;
	default: break;
	}
}

/* (Iterates instead of list_find: id 0 is stored as a NULL pointer, which
 * list_find cannot tell from "absent".) */
bool_t net_hasEdge(net_t *n, long fromId, long toId)
{
	list_t *parents = nodeOf(n, toId)->parentIdListPtr;
	list_iter_t it;
	list_iter_reset(&it, parents);
	while (list_iter_hasNext(&it, parents))
		if ((long)list_iter_next(&it, parents) == fromId)
			return TRUE;
	return FALSE;
}

bool_t TMnet_hasEdge(TM_ARGDECL net_t *n, long fromId, long toId)
{
	list_t *parents = nodeOf(n, toId)->parentIdListPtr;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, parents);
	while (TMLIST_ITER_HASNEXT(&it, parents))
		if ((long)TMLIST_ITER_NEXT(&it, parents) == fromId)
			return TRUE;
	return FALSE;
}

/* ---- searches -------------------------------------------------------------------- */

bool_t net_isPath(net_t *n, long fromId, long toId, bitmap_t *visited, queue_t *workQueue)
{
	bitmap_clearAll(visited);
	queue_clear(workQueue);
	queue_push(workQueue, (void *)fromId);
	while (!queue_isEmpty(workQueue)) {
		long id = (long)queue_pop(workQueue);
		if (id == toId)
			return TRUE;
		if (bitmap_isSet(visited, id))
			continue;
		bitmap_set(visited, id);
		list_t *children = nodeOf(n, id)->childIdListPtr;
		list_iter_t it;
		list_iter_reset(&it, children);
		while (list_iter_hasNext(&it, children))
			queue_push(workQueue, list_iter_next(&it, children));
	}
	return FALSE;
}

bool_t TMnet_isPath(TM_ARGDECL net_t *n, long fromId, long toId, bitmap_t *visited,
                    queue_t *workQueue)
{
	bitmap_clearAll(visited);
	queue_clear(workQueue);
	queue_push(workQueue, (void *)fromId);
	while (!queue_isEmpty(workQueue)) {
		long id = (long)queue_pop(workQueue);
		if (id == toId)
			return TRUE;
		if (bitmap_isSet(visited, id))
			continue;
		bitmap_set(visited, id);
		list_t *children = nodeOf(n, id)->childIdListPtr;
		list_iter_t it;
		TMLIST_ITER_RESET(&it, children);
		while (TMLIST_ITER_HASNEXT(&it, children))
			queue_push(workQueue, TMLIST_ITER_NEXT(&it, children));
	}
	return FALSE;
}

void TMnet_findDescendants(TM_ARGDECL net_t *n, long id, bitmap_t *descendants,
                           queue_t *workQueue)
{
	bitmap_clearAll(descendants);
	queue_clear(workQueue);
	list_t *children = nodeOf(n, id)->childIdListPtr;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, children);
	while (TMLIST_ITER_HASNEXT(&it, children))
		queue_push(workQueue, TMLIST_ITER_NEXT(&it, children));
	while (!queue_isEmpty(workQueue)) {
		long childId = (long)queue_pop(workQueue);
		if (bitmap_isSet(descendants, childId))
			continue;
		bitmap_set(descendants, childId);
		list_t *grandChildren = nodeOf(n, childId)->childIdListPtr;
		TMLIST_ITER_RESET(&it, grandChildren);
		while (TMLIST_ITER_HASNEXT(&it, grandChildren))
			queue_push(workQueue, TMLIST_ITER_NEXT(&it, grandChildren));
	}
}

enum { COLOR_WHITE, COLOR_GREY, COLOR_BLACK };

static bool_t hasCycleFrom(net_t *n, long id, char *color)
{
	color[id] = COLOR_GREY;
	list_t *children = nodeOf(n, id)->childIdListPtr;
	list_iter_t it;
	list_iter_reset(&it, children);
	while (list_iter_hasNext(&it, children)) {
		long child = (long)list_iter_next(&it, children);
		if (color[child] == COLOR_GREY)
			return TRUE;
		if (color[child] == COLOR_WHITE && hasCycleFrom(n, child, color))
			return TRUE;
	}
	color[id] = COLOR_BLACK;
	return FALSE;
}

bool_t net_isCycle(net_t *n)
{
	char *color = calloc(n->numNode, 1);
	if (color == NULL) {
		fprintf(stderr, "bayes: out of memory\n");
		exit(1);
	}
	bool_t cycle = FALSE;
	for (long id = 0; id < n->numNode && !cycle; id++)
		if (color[id] == COLOR_WHITE)
			cycle = hasCycleFrom(n, id, color);
	free(color);
	return cycle;
}

void net_generateRandomEdges(net_t *n, long maxNumParent, long percentParent,
                             random_t *randomPtr)
{
	bitmap_t *visited = bitmap_alloc(n->numNode);
	queue_t *workQueue = queue_alloc(n->numNode);
	if (visited == NULL || workQueue == NULL) {
		fprintf(stderr, "bayes: out of memory\n");
		exit(1);
	}
	for (long id = 0; id < n->numNode; id++) {
		for (long p = 0; p < maxNumParent; p++) {
			if ((long)(random_generate(randomPtr) % 100) >= percentParent)
				continue;
			long parent = (long)(random_generate(randomPtr) % (unsigned long)n->numNode);
			if (parent != id && !net_hasEdge(n, parent, id) &&
			    !net_isPath(n, id, parent, visited, workQueue))
				insertEdge(n, parent, id);
		}
	}
	bitmap_free(visited);
	queue_free(workQueue);
}
