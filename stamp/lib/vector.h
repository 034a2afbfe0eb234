/*
 * vector.h — growable array of pointers of the STAMP interface.  Never
 * shared between threads while it changes, so it has no transactional
 * flavour.
 */
#ifndef VECTOR_H
#define VECTOR_H 1

#include "tm.h"
#include "types.h"

typedef struct vector {
	long size;
	long capacity;
	void **elements;
} vector_t;

vector_t *vector_alloc(long initCapacity);
void vector_free(vector_t *vectorPtr);
/* The element at i, or NULL if i is out of range. */
void *vector_at(vector_t *vectorPtr, long i);
bool_t vector_pushBack(vector_t *vectorPtr, void *dataPtr);
void *vector_popBack(vector_t *vectorPtr);      /* NULL if empty */
long vector_getSize(vector_t *vectorPtr);
void vector_clear(vector_t *vectorPtr);
/* qsort over the element pointers; compare receives pointers to them. */
void vector_sort(vector_t *vectorPtr, int (*compare)(const void *, const void *));
/* dst becomes a copy of src (dst's storage grows as needed). */
bool_t vector_copy(vector_t *dstPtr, vector_t *srcPtr);

#define Pvector_alloc(n)        vector_alloc(n)
#define Pvector_free(v)         vector_free(v)
#define Pvector_pushBack(v, d)  vector_pushBack((v), (d))
#define Pvector_copy(d, s)      vector_copy((d), (s))

#define PVECTOR_ALLOC(n)        Pvector_alloc(n)
#define PVECTOR_FREE(v)         Pvector_free(v)
#define PVECTOR_PUSHBACK(v, d)  Pvector_pushBack((v), (d))
#define PVECTOR_COPY(d, s)      Pvector_copy((d), (s))

#endif /* VECTOR_H */
