/*
 * reservation.h — the records of vacation's database.
 *
 * A reservation_t is one bookable item (a car, flight or room offer) with
 * its unit counts; every update re-checks numUsed + numFree == numTotal
 * and non-negative fields, and restarts the transaction if they fail: a
 * TM that lets a doomed transaction run on inconsistent data (a zombie)
 * must not make it corrupt anything.
 *
 * A reservation_info_t is a customer's booking of one item; it never
 * changes after it is created.
 */
#ifndef VACATION_RESERVATION_H
#define VACATION_RESERVATION_H 1

#include "tm.h"
#include "types.h"

typedef enum reservation_type {
	RESERVATION_CAR = 0,
	RESERVATION_FLIGHT = 1,
	RESERVATION_ROOM = 2,
	NUM_RESERVATION_TYPE = 3
} reservation_type_t;

typedef struct reservation_info {
	reservation_type_t type;
	long id;
	long price;      /* the item's price when it was booked */
} reservation_info_t;

typedef struct reservation {
	long id;
	long numUsed;
	long numFree;
	long numTotal;
	long price;
} reservation_t;

reservation_info_t *TMreservation_info_alloc(TM_ARGDECL reservation_type_t type,
                                             long id, long price);
void TMreservation_info_free(TM_ARGDECL reservation_info_t *infoPtr);
/* Orders by type, then id (a customer holds each item at most once). */
long reservation_info_compare(const void *aPtr, const void *bPtr);

reservation_t *reservation_alloc(long id, long numTotal, long price);
reservation_t *TMreservation_alloc(TM_ARGDECL long id, long numTotal, long price);
void reservation_free(reservation_t *reservationPtr);
void TMreservation_free(TM_ARGDECL reservation_t *reservationPtr);

/* Add num (may be negative) units to the free and total counts; FALSE if
 * fewer than -num units are free. */
bool_t TMreservation_addToTotal(TM_ARGDECL reservation_t *reservationPtr, long num);
/* Book one unit; FALSE if none is free. */
bool_t TMreservation_make(TM_ARGDECL reservation_t *reservationPtr);
/* Give one booked unit back; FALSE if none is booked. */
bool_t TMreservation_cancel(TM_ARGDECL reservation_t *reservationPtr);
/* Set the price; FALSE (and no change) if it is negative. */
bool_t TMreservation_updatePrice(TM_ARGDECL reservation_t *reservationPtr, long newPrice);

/* TRUE if the record's counts are consistent (sequential check). */
bool_t reservation_isConsistent(const reservation_t *reservationPtr);

#endif /* VACATION_RESERVATION_H */
