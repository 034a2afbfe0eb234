/*
 * customer.h — a vacation customer: an id and the sorted list of its
 * bookings (reservation_info_t, by type then id, no duplicates).
 */
#ifndef VACATION_CUSTOMER_H
#define VACATION_CUSTOMER_H 1

#include "list.h"
#include "reservation.h"
#include "tm.h"
#include "types.h"

typedef struct customer {
	long id;
	list_t *reservationInfoListPtr;
} customer_t;

customer_t *customer_alloc(long id);
customer_t *TMcustomer_alloc(TM_ARGDECL long id);
/* Frees the customer, its list and its bookings. */
void customer_free(customer_t *customerPtr);
void TMcustomer_free(TM_ARGDECL customer_t *customerPtr);

/* FALSE if the customer already holds this item. */
bool_t TMcustomer_addReservationInfo(TM_ARGDECL customer_t *customerPtr,
                                     reservation_type_t type, long id, long price);
/* Sum of the booked prices. */
long TMcustomer_getBill(TM_ARGDECL customer_t *customerPtr);

#endif /* VACATION_CUSTOMER_H */
