/*
 * manager.h — vacation's database: three item tables (cars, flights,
 * rooms: id -> reservation_t) and the customer table (id -> customer_t),
 * each a red-black tree map.
 *
 * The manager_* functions are for sequential set-up and checking; the
 * TMmanager_* ones run inside the clients' transactions.
 */
#ifndef VACATION_MANAGER_H
#define VACATION_MANAGER_H 1

#include "customer.h"
#include "map.h"
#include "reservation.h"
#include "tm.h"
#include "types.h"

typedef struct manager {
	MAP_T *tablePtrs[NUM_RESERVATION_TYPE];   /* by reservation_type_t */
	MAP_T *customerTablePtr;
} manager_t;

manager_t *manager_alloc(void);
/* Frees every record too. */
void manager_free(manager_t *managerPtr);

/* Sequential set-up: add num units at price (creating the item). */
bool_t manager_addItem(manager_t *managerPtr, reservation_type_t type, long id,
                       long num, long price);
bool_t manager_addCustomer(manager_t *managerPtr, long customerId);

/* Add num units at price to an item, creating it if absent; the price of
 * an existing item is overwritten.  FALSE if the item is absent and num or
 * price is not positive. */
bool_t TMmanager_addItem(TM_ARGDECL manager_t *managerPtr, reservation_type_t type,
                         long id, long num, long price);
/* Remove num free units (cars and rooms); the item goes away when none is
 * left.  FALSE if it is absent or has fewer than num free units. */
bool_t TMmanager_deleteItem(TM_ARGDECL manager_t *managerPtr, reservation_type_t type,
                            long id, long num);
/* Remove a whole flight, only if nobody has booked a seat on it. */
bool_t TMmanager_deleteFlight(TM_ARGDECL manager_t *managerPtr, long flightId);

/* Free units of an item, or -1 if it is absent. */
long TMmanager_queryFree(TM_ARGDECL manager_t *managerPtr, reservation_type_t type, long id);
/* Price of an item, or -1 if it is absent. */
long TMmanager_queryPrice(TM_ARGDECL manager_t *managerPtr, reservation_type_t type, long id);

/* FALSE if the customer exists already. */
bool_t TMmanager_addCustomer(TM_ARGDECL manager_t *managerPtr, long customerId);
/* Cancel all of a customer's bookings and remove it; FALSE if absent. */
bool_t TMmanager_deleteCustomer(TM_ARGDECL manager_t *managerPtr, long customerId);
/* Sum of a customer's booked prices, or -1 if the customer is absent. */
long TMmanager_queryCustomerBill(TM_ARGDECL manager_t *managerPtr, long customerId);

/* Book one unit of an item for a customer; FALSE if either is absent, the
 * item is sold out or the customer holds it already. */
bool_t TMmanager_reserve(TM_ARGDECL manager_t *managerPtr, reservation_type_t type,
                         long customerId, long id);

/* The self-check: every tree is a valid red-black tree, every item is
 * consistent, and every item's numUsed equals the number of customers
 * that hold it.  numRelation bounds the item ids.  Messages go to stderr;
 * returns TRUE if all holds. */
bool_t manager_check(manager_t *managerPtr, long numRelation);

/* A digest of every record, in key order (see report_set_digest). */
unsigned long manager_digest(manager_t *managerPtr);

#define TMMANAGER_ADD_ITEM(m, t, id, n, p)   TMmanager_addItem(TM_ARG (m), (t), (id), (n), (p))
#define TMMANAGER_DELETE_ITEM(m, t, id, n)   TMmanager_deleteItem(TM_ARG (m), (t), (id), (n))
#define TMMANAGER_DELETE_FLIGHT(m, id)       TMmanager_deleteFlight(TM_ARG (m), (id))
#define TMMANAGER_QUERY_FREE(m, t, id)       TMmanager_queryFree(TM_ARG (m), (t), (id))
#define TMMANAGER_QUERY_PRICE(m, t, id)      TMmanager_queryPrice(TM_ARG (m), (t), (id))
#define TMMANAGER_ADD_CUSTOMER(m, id)        TMmanager_addCustomer(TM_ARG (m), (id))
#define TMMANAGER_DELETE_CUSTOMER(m, id)     TMmanager_deleteCustomer(TM_ARG (m), (id))
#define TMMANAGER_QUERY_CUSTOMER_BILL(m, id) TMmanager_queryCustomerBill(TM_ARG (m), (id))
#define TMMANAGER_RESERVE(m, t, c, id)       TMmanager_reserve(TM_ARG (m), (t), (c), (id))

#endif /* VACATION_MANAGER_H */
