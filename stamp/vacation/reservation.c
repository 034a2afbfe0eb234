/*
 * reservation.c — see reservation.h.
 */
#include <stdlib.h>

#include "reservation.h"

reservation_info_t *TMreservation_info_alloc(TM_ARGDECL reservation_type_t type,
                                             long id, long price)
{
	reservation_info_t *infoPtr = TM_MALLOC(sizeof *infoPtr);
	if (infoPtr != NULL) {
		infoPtr->type = type;
		infoPtr->id = id;
		infoPtr->price = price;
	}
	return infoPtr;
}

void TMreservation_info_free(TM_ARGDECL reservation_info_t *infoPtr)
{
	TM_FREE(infoPtr);
}

long reservation_info_compare(const void *aPtr, const void *bPtr)
{
	const reservation_info_t *a = aPtr;
	const reservation_info_t *b = bPtr;
	if (a->type != b->type)
		return (long)a->type - (long)b->type;
	return (a->id > b->id) - (a->id < b->id);
}

static void reservation_init(reservation_t *r, long id, long numTotal, long price)
{
	r->id = id;
	r->numUsed = 0;
	r->numFree = numTotal;
	r->numTotal = numTotal;
	r->price = price;
}

reservation_t *reservation_alloc(long id, long numTotal, long price)
{
	reservation_t *r = malloc(sizeof *r);
	if (r != NULL)
		reservation_init(r, id, numTotal, price);
	return r;
}

reservation_t *TMreservation_alloc(TM_ARGDECL long id, long numTotal, long price)
{
	reservation_t *r = TM_MALLOC(sizeof *r);
	if (r != NULL)
		reservation_init(r, id, numTotal, price);   /* not yet published */
	return r;
}

void reservation_free(reservation_t *r)
{
	free(r);
}

void TMreservation_free(TM_ARGDECL reservation_t *r)
{
	TM_FREE(r);
}

bool_t reservation_isConsistent(const reservation_t *r)
{
	return r->numUsed >= 0 && r->numFree >= 0 && r->numTotal >= 0 && r->price >= 0 &&
	       r->numUsed + r->numFree == r->numTotal;
}

/* A transaction that sees an inconsistent record has read data no
 * committed state contains: it must not go on. */
static void TMreservation_check(TM_ARGDECL reservation_t *r)
{
	long numUsed = (long)TM_SHARED_READ(r->numUsed);
	long numFree = (long)TM_SHARED_READ(r->numFree);
	long numTotal = (long)TM_SHARED_READ(r->numTotal);
	long price = (long)TM_SHARED_READ(r->price);
	if (numUsed < 0 || numFree < 0 || numTotal < 0 || price < 0 ||
	    numUsed + numFree != numTotal)
		TM_RESTART();
}

bool_t TMreservation_addToTotal(TM_ARGDECL reservation_t *r, long num)
{
	long numFree = (long)TM_SHARED_READ(r->numFree);
	if (numFree + num < 0)
		return FALSE;
	TM_SHARED_WRITE(r->numFree, numFree + num);
	TM_SHARED_WRITE(r->numTotal, (long)TM_SHARED_READ(r->numTotal) + num);
	TMreservation_check(TM_ARG r);
	return TRUE;
}

bool_t TMreservation_make(TM_ARGDECL reservation_t *r)
{
	long numFree = (long)TM_SHARED_READ(r->numFree);
	if (numFree < 1)
		return FALSE;
	TM_SHARED_WRITE(r->numUsed, (long)TM_SHARED_READ(r->numUsed) + 1);
	TM_SHARED_WRITE(r->numFree, numFree - 1);
	TMreservation_check(TM_ARG r);
	return TRUE;
}

bool_t TMreservation_cancel(TM_ARGDECL reservation_t *r)
{
	long numUsed = (long)TM_SHARED_READ(r->numUsed);
	if (numUsed < 1)
		return FALSE;
	TM_SHARED_WRITE(r->numUsed, numUsed - 1);
	TM_SHARED_WRITE(r->numFree, (long)TM_SHARED_READ(r->numFree) + 1);
	TMreservation_check(TM_ARG r);
	return TRUE;
}

bool_t TMreservation_updatePrice(TM_ARGDECL reservation_t *r, long newPrice)
{
	if (newPrice < 0)
		return FALSE;
	TM_SHARED_WRITE(r->price, newPrice);
	TMreservation_check(TM_ARG r);
	return TRUE;
}
