/*
 * client.c — see client.h.  Each session's transaction is a function of
 * its own, so that locals assigned in the transaction never live across a
 * restart.
 */
#include <stdlib.h>

#include "client.h"
#include "thread.h"

client_t *client_alloc(long id, manager_t *managerPtr, long numOperation,
                       long numQueryPerTransaction, long queryRange, long percentUser)
{
	client_t *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->randomPtr = random_alloc();
	if (c->randomPtr == NULL) {
		free(c);
		return NULL;
	}
	random_seed(c->randomPtr, (unsigned long)id);
	c->id = id;
	c->managerPtr = managerPtr;
	c->numOperation = numOperation;
	c->numQueryPerTransaction = numQueryPerTransaction;
	c->queryRange = queryRange;
	c->percentUser = percentUser;
	return c;
}

void client_free(client_t *c)
{
	random_free(c->randomPtr);
	free(c);
}

static long draw(client_t *c, long range)
{
	return (long)(random_generate(c->randomPtr) % (unsigned long)range);
}

/* Query every requested item, then book the most expensive one of each
 * type for the customer (adding the customer if anything was found). */
static void makeReservation(TM_ARGDECL manager_t *m, long customerId, long numQuery,
                            const long *types, const long *ids)
{
	TM_BEGIN();
	{
		long maxPrices[NUM_RESERVATION_TYPE] = { -1, -1, -1 };
		long maxIds[NUM_RESERVATION_TYPE] = { -1, -1, -1 };
		bool_t isFound = FALSE;
		for (long n = 0; n < numQuery; n++) {
			reservation_type_t type = (reservation_type_t)types[n];
			long id = ids[n];
			long price = -1;
			if (TMMANAGER_QUERY_FREE(m, type, id) >= 0)
				price = TMMANAGER_QUERY_PRICE(m, type, id);
			if (price > maxPrices[type]) {
				maxPrices[type] = price;
				maxIds[type] = id;
				isFound = TRUE;
			}
		}
		if (isFound)
			TMMANAGER_ADD_CUSTOMER(m, customerId);
		for (int t = 0; t < NUM_RESERVATION_TYPE; t++)
			if (maxIds[t] > 0)
				TMMANAGER_RESERVE(m, (reservation_type_t)t, customerId, maxIds[t]);
	}
	TM_END();
}

static void deleteCustomer(TM_ARGDECL manager_t *m, long customerId)
{
	TM_BEGIN();
	{
		long bill = TMMANAGER_QUERY_CUSTOMER_BILL(m, customerId);
		if (bill >= 0)
			TMMANAGER_DELETE_CUSTOMER(m, customerId);
	}
	TM_END();
}

static void updateTables(TM_ARGDECL manager_t *m, long numUpdate, const long *types,
                         const long *ids, const long *doAdds, const long *prices)
{
	TM_BEGIN();
	for (long n = 0; n < numUpdate; n++) {
		reservation_type_t type = (reservation_type_t)types[n];
		if (doAdds[n])
			TMMANAGER_ADD_ITEM(m, type, ids[n], 100, prices[n]);
		else if (type == RESERVATION_FLIGHT)
			TMMANAGER_DELETE_FLIGHT(m, ids[n]);
		else
			TMMANAGER_DELETE_ITEM(m, type, ids[n], 100);
	}
	TM_END();
}

static client_action_t selectAction(long r, long percentUser)
{
	if (r < percentUser)
		return ACTION_MAKE_RESERVATION;
	return (r & 1) ? ACTION_DELETE_CUSTOMER : ACTION_UPDATE_TABLES;
}

void client_run(void *argPtr)
{
	TM_THREAD_ENTER();
	client_t *c = ((client_t **)argPtr)[thread_getId()];
	manager_t *m = c->managerPtr;
	long maxQuery = c->numQueryPerTransaction;
	long queryRange = c->queryRange;
	long *types = malloc(maxQuery * sizeof *types);
	long *ids = malloc(maxQuery * sizeof *ids);
	long *doAdds = malloc(maxQuery * sizeof *doAdds);
	long *prices = malloc(maxQuery * sizeof *prices);
	if (types == NULL || ids == NULL || doAdds == NULL || prices == NULL) {
		fprintf(stderr, "vacation: out of memory\n");
		exit(1);
	}

	for (long op = 0; op < c->numOperation; op++) {
		client_action_t action = selectAction(draw(c, 100), c->percentUser);
		c->numByAction[action]++;
		switch (action) {
		case ACTION_MAKE_RESERVATION: {
			long numQuery = draw(c, maxQuery) + 1;
			long customerId = draw(c, queryRange) + 1;
			for (long n = 0; n < numQuery; n++) {
				types[n] = draw(c, NUM_RESERVATION_TYPE);
				ids[n] = draw(c, queryRange) + 1;
			}
			makeReservation(TM_ARG m, customerId, numQuery, types, ids);
			break;
		}
		case ACTION_DELETE_CUSTOMER:
			deleteCustomer(TM_ARG m, draw(c, queryRange) + 1);
			break;
		case ACTION_UPDATE_TABLES: {
			long numUpdate = draw(c, maxQuery) + 1;
			for (long n = 0; n < numUpdate; n++) {
				types[n] = draw(c, NUM_RESERVATION_TYPE);
				ids[n] = draw(c, queryRange) + 1;
				doAdds[n] = draw(c, 2);
				if (doAdds[n])
					prices[n] = draw(c, 5) * 10 + 50;
			}
			updateTables(TM_ARG m, numUpdate, types, ids, doAdds, prices);
			break;
		}
		default:
			break;
		}
	}

	free(types);
	free(ids);
	free(doAdds);
	free(prices);
	TM_THREAD_EXIT();
}
