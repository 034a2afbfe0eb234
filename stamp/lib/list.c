/*
 * list.c — sorted singly linked list (see list.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "list.h"

/* The default order: by element address. */
static long compareAddresses(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
	return (x > y) - (x < y);
}

/* ---- sequential / private ------------------------------------------------ */

#define LIST_FN(name)              list_##name
#define LIST_ARGDECL               /* none */
#define LIST_ARG                   /* none */
#define LIST_LOAD_NEXT(n)          ((n)->nextPtr)
#define LIST_STORE_NEXT(n, v)      ((n)->nextPtr = (v))
#define LIST_LOAD_SIZE(l)          ((l)->size)
#define LIST_STORE_SIZE(l, v)      ((l)->size = (v))
#define LIST_NODE_MALLOC(n)        malloc(n)
#define LIST_NODE_FREE(p)          free(p)
#include "list_impl.h"
#undef LIST_FN
#undef LIST_ARGDECL
#undef LIST_ARG
#undef LIST_LOAD_NEXT
#undef LIST_STORE_NEXT
#undef LIST_LOAD_SIZE
#undef LIST_STORE_SIZE
#undef LIST_NODE_MALLOC
#undef LIST_NODE_FREE

/* ---- transactional ---------------------------------------------------------- */

#define LIST_FN(name)              TMlist_##name
#define LIST_ARGDECL               TM_ARGDECL
#define LIST_ARG                   TM_ARG
#define LIST_LOAD_NEXT(n)          ((list_node_t *)TM_SHARED_READ_P((n)->nextPtr))
#define LIST_STORE_NEXT(n, v)      TM_SHARED_WRITE_P((n)->nextPtr, (v))
#define LIST_LOAD_SIZE(l)          ((long)TM_SHARED_READ((l)->size))
#define LIST_STORE_SIZE(l, v)      TM_SHARED_WRITE((l)->size, (v))
#define LIST_NODE_MALLOC(n)        TM_MALLOC(n)
#define LIST_NODE_FREE(p)          TM_FREE(p)
#include "list_impl.h"

/* ---- allocation, clearing, iteration ---------------------------------------- */

static void list_init(list_t *listPtr, list_compare_t compare)
{
	listPtr->head.dataPtr = NULL;
	listPtr->head.nextPtr = NULL;
	listPtr->compare = compare ? compare : compareAddresses;
	listPtr->size = 0;
}

list_t *list_alloc(list_compare_t compare)
{
	list_t *listPtr = malloc(sizeof *listPtr);
	if (listPtr != NULL)
		list_init(listPtr, compare);
	return listPtr;
}

list_t *TMlist_alloc(TM_ARGDECL list_compare_t compare)
{
	list_t *listPtr = TM_MALLOC(sizeof *listPtr);
	if (listPtr != NULL)
		list_init(listPtr, compare);   /* private until published */
	return listPtr;
}

void list_clear(list_t *listPtr)
{
	list_node_t *nodePtr = listPtr->head.nextPtr;
	while (nodePtr != NULL) {
		list_node_t *nextPtr = nodePtr->nextPtr;
		free(nodePtr);
		nodePtr = nextPtr;
	}
	listPtr->head.nextPtr = NULL;
	listPtr->size = 0;
}

void list_iter_reset(list_iter_t *itPtr, list_t *listPtr)
{
	*itPtr = &listPtr->head;
}

bool_t list_iter_hasNext(list_iter_t *itPtr, list_t *listPtr)
{
	(void)listPtr;
	return (*itPtr)->nextPtr != NULL;
}

void *list_iter_next(list_iter_t *itPtr, list_t *listPtr)
{
	(void)listPtr;
	*itPtr = (*itPtr)->nextPtr;
	return (*itPtr)->dataPtr;
}

void TMlist_iter_reset(TM_ARGDECL list_iter_t *itPtr, list_t *listPtr)
{
	TM_LOCAL_WRITE_P(*itPtr, &listPtr->head);
}

bool_t TMlist_iter_hasNext(TM_ARGDECL list_iter_t *itPtr, list_t *listPtr)
{
	(void)listPtr;
	return TM_SHARED_READ_P((*itPtr)->nextPtr) != NULL;
}

void *TMlist_iter_next(TM_ARGDECL list_iter_t *itPtr, list_t *listPtr)
{
	(void)listPtr;
	list_node_t *nextPtr = TM_SHARED_READ_P((*itPtr)->nextPtr);
	TM_LOCAL_WRITE_P(*itPtr, nextPtr);
	return nextPtr->dataPtr;
}
