/*
 * manager.c — see manager.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "manager.h"
#include "report.h"

static const char *const tableNames[NUM_RESERVATION_TYPE] = { "car", "flight", "room" };

manager_t *manager_alloc(void)
{
	manager_t *m = malloc(sizeof *m);
	if (m == NULL)
		return NULL;
	for (int t = 0; t < NUM_RESERVATION_TYPE; t++)
		m->tablePtrs[t] = MAP_ALLOC(NULL, NULL);
	m->customerTablePtr = MAP_ALLOC(NULL, NULL);
	return m;
}

static bool_t freeReservation(void *key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	reservation_free(val);
	return TRUE;
}

static bool_t freeCustomer(void *key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	customer_free(val);
	return TRUE;
}

void manager_free(manager_t *m)
{
	for (int t = 0; t < NUM_RESERVATION_TYPE; t++) {
		rbtree_forEach(m->tablePtrs[t], freeReservation, NULL);
		MAP_FREE(m->tablePtrs[t]);
	}
	rbtree_forEach(m->customerTablePtr, freeCustomer, NULL);
	MAP_FREE(m->customerTablePtr);
	free(m);
}

/* ---- sequential set-up ------------------------------------------------------ */

bool_t manager_addItem(manager_t *m, reservation_type_t type, long id, long num, long price)
{
	reservation_t *r = MAP_FIND(m->tablePtrs[type], id);
	if (r != NULL) {
		r->numFree += num;
		r->numTotal += num;
		r->price = price;
		return TRUE;
	}
	if (num < 1 || price < 0)
		return FALSE;
	r = reservation_alloc(id, num, price);
	return r != NULL && MAP_INSERT(m->tablePtrs[type], id, r);
}

bool_t manager_addCustomer(manager_t *m, long customerId)
{
	if (MAP_CONTAINS(m->customerTablePtr, customerId))
		return FALSE;
	customer_t *c = customer_alloc(customerId);
	return c != NULL && MAP_INSERT(m->customerTablePtr, customerId, c);
}

/* ---- transactional operations ------------------------------------------------ */

bool_t TMmanager_addItem(TM_ARGDECL manager_t *m, reservation_type_t type, long id,
                         long num, long price)
{
	MAP_T *table = m->tablePtrs[type];
	reservation_t *r = TMMAP_FIND(table, id);
	if (r == NULL) {
		if (num < 1 || price < 0)
			return FALSE;
		r = TMreservation_alloc(TM_ARG id, num, price);
		if (r == NULL)
			return FALSE;
		if (!TMMAP_INSERT(table, id, r))
			TM_RESTART();   /* the lookup said it was absent */
		return TRUE;
	}
	if (!TMreservation_addToTotal(TM_ARG r, num))
		return FALSE;
	if ((long)TM_SHARED_READ(r->numTotal) == 0) {
		if (!TMMAP_REMOVE(table, id))
			TM_RESTART();
		TMreservation_free(TM_ARG r);
	} else {
		TMreservation_updatePrice(TM_ARG r, price);   /* no-op if price < 0 */
	}
	return TRUE;
}

bool_t TMmanager_deleteItem(TM_ARGDECL manager_t *m, reservation_type_t type, long id,
                            long num)
{
	return TMmanager_addItem(TM_ARG m, type, id, -num, -1);
}

bool_t TMmanager_deleteFlight(TM_ARGDECL manager_t *m, long flightId)
{
	reservation_t *r = TMMAP_FIND(m->tablePtrs[RESERVATION_FLIGHT], flightId);
	if (r == NULL)
		return FALSE;
	if ((long)TM_SHARED_READ(r->numUsed) > 0)
		return FALSE;   /* somebody holds a seat */
	long numTotal = (long)TM_SHARED_READ(r->numTotal);
	return TMmanager_addItem(TM_ARG m, RESERVATION_FLIGHT, flightId, -numTotal, -1);
}

long TMmanager_queryFree(TM_ARGDECL manager_t *m, reservation_type_t type, long id)
{
	reservation_t *r = TMMAP_FIND(m->tablePtrs[type], id);
	return r ? (long)TM_SHARED_READ(r->numFree) : -1;
}

long TMmanager_queryPrice(TM_ARGDECL manager_t *m, reservation_type_t type, long id)
{
	reservation_t *r = TMMAP_FIND(m->tablePtrs[type], id);
	return r ? (long)TM_SHARED_READ(r->price) : -1;
}

bool_t TMmanager_addCustomer(TM_ARGDECL manager_t *m, long customerId)
{
	if (TMMAP_CONTAINS(m->customerTablePtr, customerId))
		return FALSE;
	customer_t *c = TMcustomer_alloc(TM_ARG customerId);
	if (c == NULL)
		return FALSE;
	if (!TMMAP_INSERT(m->customerTablePtr, customerId, c))
		TM_RESTART();
	return TRUE;
}

bool_t TMmanager_deleteCustomer(TM_ARGDECL manager_t *m, long customerId)
{
	customer_t *c = TMMAP_FIND(m->customerTablePtr, customerId);
	if (c == NULL)
		return FALSE;
	/* Give every booked unit back; a booking whose item is gone or has
	 * nothing booked means this transaction saw an inconsistent state. */
	list_t *listPtr = c->reservationInfoListPtr;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, listPtr);
	while (TMLIST_ITER_HASNEXT(&it, listPtr)) {
		reservation_info_t *infoPtr = TMLIST_ITER_NEXT(&it, listPtr);
		reservation_t *r = TMMAP_FIND(m->tablePtrs[infoPtr->type], infoPtr->id);
		if (r == NULL)
			TM_RESTART();
		if (!TMreservation_cancel(TM_ARG r))
			TM_RESTART();
	}
	if (!TMMAP_REMOVE(m->customerTablePtr, customerId))
		TM_RESTART();
	TMcustomer_free(TM_ARG c);
	return TRUE;
}

long TMmanager_queryCustomerBill(TM_ARGDECL manager_t *m, long customerId)
{
	customer_t *c = TMMAP_FIND(m->customerTablePtr, customerId);
	return c ? TMcustomer_getBill(TM_ARG c) : -1;
}

bool_t TMmanager_reserve(TM_ARGDECL manager_t *m, reservation_type_t type,
                         long customerId, long id)
{
	customer_t *c = TMMAP_FIND(m->customerTablePtr, customerId);
	if (c == NULL)
		return FALSE;
	reservation_t *r = TMMAP_FIND(m->tablePtrs[type], id);
	if (r == NULL)
		return FALSE;
	if (!TMreservation_make(TM_ARG r))
		return FALSE;
	long price = (long)TM_SHARED_READ(r->price);
	if (!TMcustomer_addReservationInfo(TM_ARG c, type, id, price)) {
		/* Already held: undo the booking. */
		if (!TMreservation_cancel(TM_ARG r))
			TM_RESTART();
		return FALSE;
	}
	return TRUE;
}

/* ---- self-check ------------------------------------------------------------------ */

typedef struct check_state {
	long numRelation;
	long *expectedUsed[NUM_RESERVATION_TYPE];   /* from the customers' lists */
	reservation_type_t type;
	long numBad;
} check_state_t;

static void check_fail(check_state_t *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Count a violation; print the first few. */
static void check_fail(check_state_t *s, const char *fmt, ...)
{
	if (s->numBad++ < 10) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "vacation check: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
}

static bool_t checkCustomer(void *key, void *val, void *ctx)
{
	check_state_t *s = ctx;
	customer_t *c = val;
	if (c->id != (long)key)
		check_fail(s, "customer %ld filed under key %ld", c->id, (long)key);
	const reservation_info_t *prevPtr = NULL;
	long n = 0;
	list_iter_t it;
	list_iter_reset(&it, c->reservationInfoListPtr);
	while (list_iter_hasNext(&it, c->reservationInfoListPtr)) {
		const reservation_info_t *infoPtr = list_iter_next(&it, c->reservationInfoListPtr);
		n++;
		if (prevPtr != NULL && reservation_info_compare(prevPtr, infoPtr) >= 0)
			check_fail(s, "customer %ld: bookings out of order (item %ld)", c->id,
			           infoPtr->id);
		if ((unsigned long)infoPtr->type >= NUM_RESERVATION_TYPE ||
		    infoPtr->id < 1 || infoPtr->id > s->numRelation)
			check_fail(s, "customer %ld: booking of a bad item %ld", c->id, infoPtr->id);
		else
			s->expectedUsed[infoPtr->type][infoPtr->id]++;
		prevPtr = infoPtr;
	}
	if (n != list_getSize(c->reservationInfoListPtr))
		check_fail(s, "customer %ld: list size is not its length %ld", c->id, n);
	return TRUE;
}

static bool_t checkItem(void *key, void *val, void *ctx)
{
	check_state_t *s = ctx;
	reservation_t *r = val;
	if (r->id != (long)key || r->id < 1 || r->id > s->numRelation) {
		check_fail(s, "item %ld filed under key %ld", r->id, (long)key);
		return TRUE;
	}
	if (!reservation_isConsistent(r))
		check_fail(s, "item %ld: inconsistent counts (used %ld free %ld total %ld price %ld)",
		           r->id, r->numUsed, r->numFree, r->numTotal, r->price);
	if (r->numTotal == 0)
		check_fail(s, "item %ld: empty item left in the table", r->id);
	if (r->numUsed != s->expectedUsed[s->type][r->id])
		check_fail(s, "item %ld: numUsed %ld differs from the bookings", r->id, r->numUsed);
	s->expectedUsed[s->type][r->id] = -1;   /* seen */
	return TRUE;
}

bool_t manager_check(manager_t *m, long numRelation)
{
	check_state_t s = { .numRelation = numRelation, .numBad = 0 };
	for (int t = 0; t < NUM_RESERVATION_TYPE; t++) {
		s.expectedUsed[t] = calloc(numRelation + 1, sizeof(long));
		if (s.expectedUsed[t] == NULL) {
			fprintf(stderr, "vacation check: out of memory\n");
			return FALSE;
		}
	}
	if (rbtree_verify(m->customerTablePtr, "customer") < 0)
		s.numBad++;
	rbtree_forEach(m->customerTablePtr, checkCustomer, &s);
	for (int t = 0; t < NUM_RESERVATION_TYPE; t++) {
		if (rbtree_verify(m->tablePtrs[t], tableNames[t]) < 0)
			s.numBad++;
		s.type = t;
		rbtree_forEach(m->tablePtrs[t], checkItem, &s);
		/* A booking of an item that is not in the table. */
		for (long id = 1; id <= numRelation; id++)
			if (s.expectedUsed[t][id] > 0)
				check_fail(&s, "%ld booking(s) of missing item %ld",
				           s.expectedUsed[t][id], id);
	}
	for (int t = 0; t < NUM_RESERVATION_TYPE; t++)
		free(s.expectedUsed[t]);
	return s.numBad == 0;
}

/* ---- digest ---------------------------------------------------------------------- */

static bool_t digestItem(void *key, void *val, void *ctx)
{
	unsigned long *d = ctx;
	reservation_t *r = val;
	(void)key;
	*d = report_digest_long(*d, r->id);
	*d = report_digest_long(*d, r->numUsed);
	*d = report_digest_long(*d, r->numFree);
	*d = report_digest_long(*d, r->numTotal);
	*d = report_digest_long(*d, r->price);
	return TRUE;
}

static bool_t digestCustomer(void *key, void *val, void *ctx)
{
	unsigned long *d = ctx;
	customer_t *c = val;
	(void)key;
	*d = report_digest_long(*d, c->id);
	list_iter_t it;
	list_iter_reset(&it, c->reservationInfoListPtr);
	while (list_iter_hasNext(&it, c->reservationInfoListPtr)) {
		reservation_info_t *info = list_iter_next(&it, c->reservationInfoListPtr);
		*d = report_digest_long(*d, (long)info->type);
		*d = report_digest_long(*d, info->id);
		*d = report_digest_long(*d, info->price);
	}
	return TRUE;
}

unsigned long manager_digest(manager_t *m)
{
	unsigned long d = REPORT_DIGEST_INIT;
	for (int t = 0; t < NUM_RESERVATION_TYPE; t++)
		rbtree_forEach(m->tablePtrs[t], digestItem, &d);
	rbtree_forEach(m->customerTablePtr, digestCustomer, &d);
	return d;
}
