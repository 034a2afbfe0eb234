/*
 * client.h — a vacation client: a thread that runs numOperation random
 * sessions against the manager, each session one transaction.
 *
 * All random draws of a session happen before its transaction, from the
 * client's own generator (seeded with its id), so the offered workload is
 * a fixed function of the parameters and the number of clients.
 */
#ifndef VACATION_CLIENT_H
#define VACATION_CLIENT_H 1

#include "manager.h"
#include "random.h"

typedef enum client_action {
	ACTION_MAKE_RESERVATION = 0,
	ACTION_DELETE_CUSTOMER,
	ACTION_UPDATE_TABLES,
	NUM_ACTION
} client_action_t;

typedef struct client {
	long id;
	manager_t *managerPtr;
	random_t *randomPtr;
	long numOperation;
	long numQueryPerTransaction;
	long queryRange;
	long percentUser;
	long numByAction[NUM_ACTION];   /* sessions run, by kind */
} client_t;

client_t *client_alloc(long id, manager_t *managerPtr, long numOperation,
                       long numQueryPerTransaction, long queryRange, long percentUser);
void client_free(client_t *clientPtr);

/* Parallel region body: argPtr is the client_t *array, indexed by thread. */
void client_run(void *argPtr);

#endif /* VACATION_CLIENT_H */
