/*
 * grid.h — labyrinth's 3-D grid of cells.  A cell is EMPTY, FULL (a wall,
 * an endpoint or a routed path) or, in a router's private copy, the cost
 * of reaching it from the current source.
 */
#ifndef LABYRINTH_GRID_H
#define LABYRINTH_GRID_H 1

#include "tm.h"
#include "types.h"

#define GRID_POINT_EMPTY (-1L)
#define GRID_POINT_FULL (-2L)

typedef struct grid {
	long width;
	long height;
	long depth;
	long *points;        /* (z * height + y) * width + x; 32-byte aligned */
	long epoch;          /* shared grid, deterministic backends only: paths
	                        claimed so far (see route() in router.c) */
} grid_t;

grid_t *grid_alloc(long width, long height, long depth);   /* all EMPTY */
void grid_free(grid_t *gridPtr);
/* Plain copy of every cell (the router copies the shared grid inside its
 * transaction without barriers, as STAMP does). */
void grid_copy(grid_t *dstPtr, const grid_t *srcPtr);
bool_t grid_isPointValid(const grid_t *gridPtr, long x, long y, long z);
long grid_getIndex(const grid_t *gridPtr, long x, long y, long z);
void grid_getCoordinates(const grid_t *gridPtr, long index, long *x, long *y, long *z);
/* Print the grid, one layer after the other (-p). */
void grid_print(const grid_t *gridPtr);

#endif /* LABYRINTH_GRID_H */
