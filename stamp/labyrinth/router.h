/*
 * router.h — labyrinth's router: Lee's algorithm (breadth-first expansion
 * from the source, then a traceback from the destination) on a private
 * copy of the grid, the chosen path claimed in the shared grid in the same
 * transaction.
 */
#ifndef LABYRINTH_ROUTER_H
#define LABYRINTH_ROUTER_H 1

#include "list.h"
#include "maze.h"

typedef struct router {
	long xCost, yCost, zCost;   /* cost of a step along each axis */
	long bendCost;              /* extra cost of a change of direction */
} router_t;

typedef struct router_solve_arg {
	router_t *routerPtr;
	maze_t *mazePtr;
	list_t *pathVectorListPtr;  /* shared: each thread adds its vector of
	                               routed_path_t * at the end */
} router_solve_arg_t;

/* Parallel region body; argPtr is a router_solve_arg_t. */
void router_solve(void *argPtr);

#endif /* LABYRINTH_ROUTER_H */
