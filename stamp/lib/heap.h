/*
 * heap.h — binary max-heap of pointers of the STAMP interface: the element
 * that compares greatest is on top.  TMheap_* access every field and slot
 * transactionally (the top is every remover's hot spot).
 */
#ifndef HEAP_H
#define HEAP_H 1

#include "tm.h"
#include "types.h"

typedef long (*heap_compare_t)(const void *, const void *);

typedef struct heap {
	void **elements;     /* 1-based: elements[1] is the top */
	long size;
	long capacity;
	heap_compare_t compare;
} heap_t;

heap_t *heap_alloc(long initCapacity, heap_compare_t compare);
void heap_free(heap_t *heapPtr);
bool_t heap_insert(heap_t *heapPtr, void *dataPtr);
bool_t TMheap_insert(TM_ARGDECL heap_t *heapPtr, void *dataPtr);
/* The top element, or NULL if the heap is empty. */
void *heap_remove(heap_t *heapPtr);
void *TMheap_remove(TM_ARGDECL heap_t *heapPtr);
long heap_getSize(heap_t *heapPtr);
/* TRUE if no element compares greater than its parent. */
bool_t heap_isValid(heap_t *heapPtr);

#define TMHEAP_INSERT(h, d)      TMheap_insert(TM_ARG (h), (d))
#define TMHEAP_REMOVE(h)         TMheap_remove(TM_ARG (h))

#endif /* HEAP_H */
