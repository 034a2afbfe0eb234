/*
 * pair.h — two pointers, the STAMP interface's tuple.
 */
#ifndef PAIR_H
#define PAIR_H 1

#include "tm.h"

typedef struct pair {
	void *firstPtr;
	void *secondPtr;
} pair_t;

pair_t *pair_alloc(void *firstPtr, void *secondPtr);
pair_t *TMpair_alloc(TM_ARGDECL void *firstPtr, void *secondPtr);
void pair_free(pair_t *pairPtr);
void TMpair_free(TM_ARGDECL pair_t *pairPtr);
void pair_swap(pair_t *pairPtr);

#define Ppair_alloc(a, b)     pair_alloc((a), (b))
#define Ppair_free(p)         pair_free(p)

#define PPAIR_ALLOC(a, b)     Ppair_alloc((a), (b))
#define PPAIR_FREE(p)         Ppair_free(p)
#define TMPAIR_ALLOC(a, b)    TMpair_alloc(TM_ARG (a), (b))
#define TMPAIR_FREE(p)        TMpair_free(TM_ARG (p))

#endif /* PAIR_H */
