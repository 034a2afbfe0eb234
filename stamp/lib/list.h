/*
 * list.h — sorted singly linked list of the STAMP interface.
 *
 * Elements are kept in ascending order of compare(a, b) (NULL compares the
 * element pointers themselves).  With -DLIST_NO_DUPLICATES an insert of an
 * element equal to one present fails; otherwise it goes before the equal
 * ones.  Elements are the caller's: the list stores and compares pointers,
 * never frees them, and reads them without transactional barriers (keys
 * must not change while listed).
 *
 * Three flavours: list_* (sequential or private), Plist_* (private to a
 * thread inside a parallel region) and TMlist_* (shared, inside
 * transactions: every link and the size are transactional, so two
 * concurrent updates of one list always conflict through its size).
 */
#ifndef LIST_H
#define LIST_H 1

#include "tm.h"
#include "types.h"

typedef long (*list_compare_t)(const void *, const void *);

typedef struct list_node {
	void *dataPtr;
	struct list_node *nextPtr;
} list_node_t;

/* Points at the node last returned; starts at the sentinel head. */
typedef list_node_t *list_iter_t;

typedef struct list {
	list_node_t head;     /* sentinel: head.nextPtr is the first node */
	list_compare_t compare;
	long size;
} list_t;

list_t *list_alloc(list_compare_t compare);
list_t *TMlist_alloc(TM_ARGDECL list_compare_t compare);
void list_free(list_t *listPtr);            /* frees nodes, not elements */
void TMlist_free(TM_ARGDECL list_t *listPtr);

bool_t list_isEmpty(list_t *listPtr);
bool_t TMlist_isEmpty(TM_ARGDECL list_t *listPtr);
long list_getSize(list_t *listPtr);
long TMlist_getSize(TM_ARGDECL list_t *listPtr);

/* The listed element equal to dataPtr, or NULL. */
void *list_find(list_t *listPtr, void *dataPtr);
void *TMlist_find(TM_ARGDECL list_t *listPtr, void *dataPtr);

bool_t list_insert(list_t *listPtr, void *dataPtr);
bool_t TMlist_insert(TM_ARGDECL list_t *listPtr, void *dataPtr);

/* Remove the first element equal to dataPtr; FALSE if there is none. */
bool_t list_remove(list_t *listPtr, void *dataPtr);
bool_t TMlist_remove(TM_ARGDECL list_t *listPtr, void *dataPtr);

void list_clear(list_t *listPtr);

void list_iter_reset(list_iter_t *itPtr, list_t *listPtr);
bool_t list_iter_hasNext(list_iter_t *itPtr, list_t *listPtr);
void *list_iter_next(list_iter_t *itPtr, list_t *listPtr);
/* The iterator is a thread-local variable written with TM_LOCAL_WRITE, so
 * an aborted attempt leaves it where the committed one put it. */
void TMlist_iter_reset(TM_ARGDECL list_iter_t *itPtr, list_t *listPtr);
bool_t TMlist_iter_hasNext(TM_ARGDECL list_iter_t *itPtr, list_t *listPtr);
void *TMlist_iter_next(TM_ARGDECL list_iter_t *itPtr, list_t *listPtr);

/* Private lists allocate with P_MALLOC, which natively is malloc. */
#define Plist_alloc(c)               list_alloc(c)
#define Plist_free(l)                list_free(l)
#define Plist_insert(l, d)           list_insert((l), (d))
#define Plist_remove(l, d)           list_remove((l), (d))
#define Plist_clear(l)               list_clear(l)

#define PLIST_ALLOC(c)               Plist_alloc(c)
#define PLIST_FREE(l)                Plist_free(l)
#define PLIST_GETSIZE(l)             list_getSize(l)
#define PLIST_INSERT(l, d)           Plist_insert((l), (d))
#define PLIST_REMOVE(l, d)           Plist_remove((l), (d))
#define PLIST_CLEAR(l)               Plist_clear(l)

#define TMLIST_ALLOC(c)              TMlist_alloc(TM_ARG (c))
#define TMLIST_FREE(l)               TMlist_free(TM_ARG (l))
#define TMLIST_ISEMPTY(l)            TMlist_isEmpty(TM_ARG (l))
#define TMLIST_GETSIZE(l)            TMlist_getSize(TM_ARG (l))
#define TMLIST_FIND(l, d)            TMlist_find(TM_ARG (l), (d))
#define TMLIST_INSERT(l, d)          TMlist_insert(TM_ARG (l), (d))
#define TMLIST_REMOVE(l, d)          TMlist_remove(TM_ARG (l), (d))
#define TMLIST_ITER_RESET(i, l)      TMlist_iter_reset(TM_ARG (i), (l))
#define TMLIST_ITER_HASNEXT(i, l)    TMlist_iter_hasNext(TM_ARG (i), (l))
#define TMLIST_ITER_NEXT(i, l)       TMlist_iter_next(TM_ARG (i), (l))

#endif /* LIST_H */
