/*
 * data.h — bayes' input: records of numVar binary variables sampled from a
 * random Bayesian network.
 */
#ifndef BAYES_DATA_H
#define BAYES_DATA_H 1

#include "net.h"
#include "random.h"

#define DATA_PRECISION 100   /* probabilities in percent */

typedef struct data {
	long numVar;
	long numRecord;
	char *records;       /* numRecord rows of numVar bytes (0 or 1) */
	random_t *randomPtr;
} data_t;

data_t *data_alloc(long numVar, long numRecord, random_t *randomPtr);
void data_free(data_t *dataPtr);

/* Draw a random network (up to maxNumParent parents per variable, each
 * with percentParent % chance) and its conditional probability tables
 * from seed, then sample every record from it, parents before children.
 * Returns the network (the caller frees it). */
net_t *data_generate(data_t *dataPtr, long seed, long maxNumParent, long percentParent);

/* Sort records [start, start + num) by their bytes from offset on. */
void data_sort(data_t *dataPtr, long start, long num, long offset);

/* In records [start, start + num), sorted from offset on: how many have a
 * 0 at offset. */
long data_findSplit(data_t *dataPtr, long start, long num, long offset);

#endif /* BAYES_DATA_H */
