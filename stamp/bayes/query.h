/*
 * query.h — one term of a count query: variable index = value (0, 1, or
 * a wildcard while unused).
 */
#ifndef BAYES_QUERY_H
#define BAYES_QUERY_H 1

#define QUERY_VALUE_WILDCARD (-1L)

typedef struct query {
	long index;
	long value;
} query_t;

/* Orders query_t * elements of a vector (vector_sort) by index. */
int query_compareByIndex(const void *aPtrPtr, const void *bPtrPtr);

#endif /* BAYES_QUERY_H */
