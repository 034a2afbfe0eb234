/*
 * maze.h — labyrinth's problem: the shared grid, the walls and the
 * source/destination pairs to route (a work queue, longest pairs first).
 */
#ifndef LABYRINTH_MAZE_H
#define LABYRINTH_MAZE_H 1

#include "grid.h"
#include "list.h"
#include "queue.h"
#include "types.h"
#include "vector.h"

typedef struct coordinate {
	long x, y, z;
} coordinate_t;

typedef struct route_pair {
	coordinate_t src;
	coordinate_t dst;
} route_pair_t;

/* A routed path: the shared-grid cells from dst back to src. */
typedef struct routed_path {
	route_pair_t *pairPtr;
	vector_t *cellsPtr;      /* long * into the shared grid */
} routed_path_t;

typedef struct maze {
	grid_t *gridPtr;         /* shared: walls and endpoints FULL */
	queue_t *workQueuePtr;   /* route_pair_t *, longest first */
	vector_t *wallVectorPtr; /* coordinate_t * */
	vector_t *pairVectorPtr; /* route_pair_t *, for freeing and checking */
} maze_t;

/* Parse an input file (d, p, w and # lines); exits with a message on a
 * malformed one.  Returns the number of pairs. */
long maze_read(maze_t **mazePtrPtr, const char *fileName);
void maze_free(maze_t *mazePtr);

/* Verify the routed paths (a list of vectors of routed_path_t *): each
 * joins its own pair through adjacent cells, no two share a cell, and the
 * shared grid holds exactly the walls, endpoints and path cells as FULL.
 * Sets *numRoutedPtr; messages on stderr; TRUE if all holds. */
bool_t maze_checkPaths(maze_t *mazePtr, list_t *pathVectorListPtr, long *numRoutedPtr,
                       bool_t doPrint);

/* A digest of which pairs were routed and along which cells, in input
 * order (see report_set_digest). */
unsigned long maze_digest(maze_t *mazePtr, list_t *pathVectorListPtr);

#endif /* LABYRINTH_MAZE_H */
