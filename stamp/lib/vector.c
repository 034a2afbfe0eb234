/*
 * vector.c — see vector.h.
 */
#include <stdlib.h>
#include <string.h>

#include "vector.h"

vector_t *vector_alloc(long initCapacity)
{
	vector_t *v = malloc(sizeof *v);
	if (v == NULL)
		return NULL;
	v->size = 0;
	v->capacity = initCapacity > 1 ? initCapacity : 1;
	v->elements = malloc(v->capacity * sizeof *v->elements);
	if (v->elements == NULL) {
		free(v);
		return NULL;
	}
	return v;
}

void vector_free(vector_t *v)
{
	if (v == NULL)
		return;
	free(v->elements);
	free(v);
}

void *vector_at(vector_t *v, long i)
{
	if (i < 0 || i >= v->size)
		return NULL;
	return v->elements[i];
}

static bool_t vector_reserve(vector_t *v, long capacity)
{
	if (capacity <= v->capacity)
		return TRUE;
	long cap = v->capacity;
	while (cap < capacity)
		cap *= 2;
	void **grown = realloc(v->elements, cap * sizeof *grown);
	if (grown == NULL)
		return FALSE;
	v->elements = grown;
	v->capacity = cap;
	return TRUE;
}

bool_t vector_pushBack(vector_t *v, void *dataPtr)
{
	if (!vector_reserve(v, v->size + 1))
		return FALSE;
	v->elements[v->size++] = dataPtr;
	return TRUE;
}

void *vector_popBack(vector_t *v)
{
	if (v->size < 1)
		return NULL;
	return v->elements[--v->size];
}

long vector_getSize(vector_t *v)
{
	return v->size;
}

void vector_clear(vector_t *v)
{
	v->size = 0;
}

void vector_sort(vector_t *v, int (*compare)(const void *, const void *))
{
	qsort(v->elements, v->size, sizeof *v->elements, compare);
}

bool_t vector_copy(vector_t *dst, vector_t *src)
{
	if (!vector_reserve(dst, src->size))
		return FALSE;
	memcpy(dst->elements, src->elements, src->size * sizeof *src->elements);
	dst->size = src->size;
	return TRUE;
}
