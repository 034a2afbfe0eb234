/*
 * heap.c — binary max-heap (see heap.h).
 */
#include <stdlib.h>

#include "heap.h"

#define HEAP_FN(name)           heap_##name
#define HEAP_ARGDECL            /* none */
#define HEAP_ARG                /* none */
#define HEAP_LOAD(f)            (f)
#define HEAP_STORE(f, v)        ((f) = (v))
#define HEAP_LOAD_P(f)          (f)
#define HEAP_STORE_P(f, v)      ((f) = (v))
#define HEAP_MALLOC(n)          malloc(n)
#define HEAP_FREE(p)            free(p)
#include "heap_impl.h"
#undef HEAP_FN
#undef HEAP_ARGDECL
#undef HEAP_ARG
#undef HEAP_LOAD
#undef HEAP_STORE
#undef HEAP_LOAD_P
#undef HEAP_STORE_P
#undef HEAP_MALLOC
#undef HEAP_FREE

#define HEAP_FN(name)           TMheap_##name
#define HEAP_ARGDECL            TM_ARGDECL
#define HEAP_ARG                TM_ARG
#define HEAP_LOAD(f)            ((long)TM_SHARED_READ(f))
#define HEAP_STORE(f, v)        TM_SHARED_WRITE((f), (v))
#define HEAP_LOAD_P(f)          TM_SHARED_READ_P(f)
#define HEAP_STORE_P(f, v)      TM_SHARED_WRITE_P((f), (v))
#define HEAP_MALLOC(n)          TM_MALLOC(n)
#define HEAP_FREE(p)            TM_FREE(p)
#include "heap_impl.h"

heap_t *heap_alloc(long initCapacity, heap_compare_t compare)
{
	heap_t *h = malloc(sizeof *h);
	if (h == NULL)
		return NULL;
	h->capacity = (initCapacity > 0 ? initCapacity : 1) + 1;
	h->elements = malloc(h->capacity * sizeof *h->elements);
	if (h->elements == NULL) {
		free(h);
		return NULL;
	}
	h->size = 0;
	h->compare = compare;
	return h;
}

void heap_free(heap_t *h)
{
	if (h == NULL)
		return;
	free(h->elements);
	free(h);
}

long heap_getSize(heap_t *h)
{
	return h->size;
}

bool_t heap_isValid(heap_t *h)
{
	for (long i = 2; i <= h->size; i++)
		if (h->compare(h->elements[i], h->elements[i / 2]) > 0)
			return FALSE;
	return TRUE;
}
