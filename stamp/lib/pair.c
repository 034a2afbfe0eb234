/*
 * pair.c — see pair.h.
 */
#include <stdlib.h>

#include "pair.h"

pair_t *pair_alloc(void *firstPtr, void *secondPtr)
{
	pair_t *p = malloc(sizeof *p);
	if (p != NULL) {
		p->firstPtr = firstPtr;
		p->secondPtr = secondPtr;
	}
	return p;
}

pair_t *TMpair_alloc(TM_ARGDECL void *firstPtr, void *secondPtr)
{
	pair_t *p = TM_MALLOC(sizeof *p);
	if (p != NULL) {   /* private until the caller publishes it */
		p->firstPtr = firstPtr;
		p->secondPtr = secondPtr;
	}
	return p;
}

void pair_free(pair_t *p)
{
	free(p);
}

void TMpair_free(TM_ARGDECL pair_t *p)
{
	TM_FREE(p);
}

void pair_swap(pair_t *p)
{
	void *t = p->firstPtr;
	p->firstPtr = p->secondPtr;
	p->secondPtr = t;
}
