/*
 * customer.c — see customer.h.
 */
#include <stdlib.h>

#include "customer.h"

customer_t *customer_alloc(long id)
{
	customer_t *c = malloc(sizeof *c);
	if (c == NULL)
		return NULL;
	c->id = id;
	c->reservationInfoListPtr = list_alloc(reservation_info_compare);
	if (c->reservationInfoListPtr == NULL) {
		free(c);
		return NULL;
	}
	return c;
}

customer_t *TMcustomer_alloc(TM_ARGDECL long id)
{
	customer_t *c = TM_MALLOC(sizeof *c);
	if (c == NULL)
		return NULL;
	c->id = id;
	c->reservationInfoListPtr = TMLIST_ALLOC(reservation_info_compare);
	if (c->reservationInfoListPtr == NULL) {
		TM_FREE(c);
		return NULL;
	}
	return c;
}

void customer_free(customer_t *c)
{
	list_iter_t it;
	list_iter_reset(&it, c->reservationInfoListPtr);
	while (list_iter_hasNext(&it, c->reservationInfoListPtr))
		free(list_iter_next(&it, c->reservationInfoListPtr));
	list_free(c->reservationInfoListPtr);
	free(c);
}

void TMcustomer_free(TM_ARGDECL customer_t *c)
{
	list_t *listPtr = c->reservationInfoListPtr;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, listPtr);
	while (TMLIST_ITER_HASNEXT(&it, listPtr))
		TMreservation_info_free(TM_ARG (reservation_info_t *)TMLIST_ITER_NEXT(&it, listPtr));
	TMLIST_FREE(listPtr);
	TM_FREE(c);
}

bool_t TMcustomer_addReservationInfo(TM_ARGDECL customer_t *c,
                                     reservation_type_t type, long id, long price)
{
	reservation_info_t *infoPtr = TMreservation_info_alloc(TM_ARG type, id, price);
	if (infoPtr == NULL)
		return FALSE;
	if (!TMLIST_INSERT(c->reservationInfoListPtr, infoPtr)) {
		TMreservation_info_free(TM_ARG infoPtr);
		return FALSE;
	}
	return TRUE;
}

long TMcustomer_getBill(TM_ARGDECL customer_t *c)
{
	long bill = 0;
	list_t *listPtr = c->reservationInfoListPtr;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, listPtr);
	while (TMLIST_ITER_HASNEXT(&it, listPtr)) {
		reservation_info_t *infoPtr = TMLIST_ITER_NEXT(&it, listPtr);
		bill += infoPtr->price;   /* immutable */
	}
	return bill;
}
