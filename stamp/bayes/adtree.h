/*
 * adtree.h — an AD-tree (Moore & Lee's all-dimensions tree) over bayes'
 * records: it answers "how many records have these variables at these
 * values" without scanning them.  Built once, sequentially; read-only
 * (and read without barriers) while learning.
 *
 * A node stands for the records matching a conjunction of terms on
 * variables up to its index; for each later variable it has a "vary"
 * with children for the values 0 and 1, except that the child for the
 * value most common there is not stored: its count is the parent's minus
 * the other value's.
 */
#ifndef BAYES_ADTREE_H
#define BAYES_ADTREE_H 1

#include "data.h"
#include "vector.h"

typedef struct adtree_node {
	long index;               /* the variable this node fixes (-1: root) */
	long value;
	long count;
	vector_t *varyVectorPtr;  /* adtree_vary_t * for index+1 .. numVar-1 */
} adtree_node_t;

typedef struct adtree_vary {
	long index;
	long mostCommonValue;
	adtree_node_t *zeroNodePtr;   /* NULL if 0 is most common or absent */
	adtree_node_t *oneNodePtr;
} adtree_vary_t;

typedef struct adtree {
	long numVar;
	long numRecord;
	adtree_node_t *rootNodePtr;
} adtree_t;

adtree_t *adtree_alloc(void);
void adtree_free(adtree_t *adtreePtr);

/* Build from the records (which it sorts in place). */
void adtree_make(adtree_t *adtreePtr, data_t *dataPtr);

/* The number of records matching every term of queryVector (query_t *,
 * sorted by index, no wildcards). */
long adtree_getCount(const adtree_t *adtreePtr, vector_t *queryVectorPtr);

#endif /* BAYES_ADTREE_H */
