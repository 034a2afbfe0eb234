/*
 * maze.c — see maze.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maze.h"
#include "report.h"

static void outOfMemory(void)
{
	fprintf(stderr, "labyrinth: out of memory\n");
	exit(1);
}

static long squaredDistance(const coordinate_t *a, const coordinate_t *b)
{
	long dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
	return dx * dx + dy * dy + dz * dz;
}

/* Longer pairs first: they are the hardest to route late. */
static long comparePairDistance(const void *aPtr, const void *bPtr)
{
	const route_pair_t *a = aPtr, *b = bPtr;
	long da = squaredDistance(&a->src, &a->dst);
	long db = squaredDistance(&b->src, &b->dst);
	return (da < db) - (da > db);
}

static void parseError(const char *fileName, long lineNumber, const char *what)
{
	fprintf(stderr, "labyrinth: %s:%ld: %s\n", fileName, lineNumber, what);
	exit(1);
}

long maze_read(maze_t **mazePtrPtr, const char *fileName)
{
	FILE *f = fopen(fileName, "r");
	if (f == NULL) {
		fprintf(stderr, "labyrinth: %s: %s\n", fileName, strerror(errno));
		exit(1);
	}
	maze_t *m = calloc(1, sizeof *m);
	list_t *sortedPairs = list_alloc(comparePairDistance);
	if (m == NULL || sortedPairs == NULL)
		outOfMemory();
	m->wallVectorPtr = vector_alloc(1);
	m->pairVectorPtr = vector_alloc(1);
	long width = -1, height = -1, depth = -1;
	char *line = NULL;
	size_t lineCap = 0;
	long lineNumber = 0;
	while (getline(&line, &lineCap, f) != -1) {
		lineNumber++;
		char code;
		if (sscanf(line, " %c", &code) != 1 || code == '#')
			continue;   /* blank line or comment */
		long v[6];
		char extra;
		switch (code) {
		case 'd':
			if (sscanf(line, " %c %ld %ld %ld %c", &code, &v[0], &v[1], &v[2], &extra) != 4 ||
			    v[0] < 1 || v[1] < 1 || v[2] < 1)
				parseError(fileName, lineNumber, "expected 'd <width> <height> <depth>'");
			width = v[0];
			height = v[1];
			depth = v[2];
			break;
		case 'p': {
			if (sscanf(line, " %c %ld %ld %ld %ld %ld %ld %c", &code, &v[0], &v[1], &v[2],
			           &v[3], &v[4], &v[5], &extra) != 7)
				parseError(fileName, lineNumber, "expected 'p x1 y1 z1 x2 y2 z2'");
			route_pair_t *p = malloc(sizeof *p);
			if (p == NULL)
				outOfMemory();
			p->src = (coordinate_t){ v[0], v[1], v[2] };
			p->dst = (coordinate_t){ v[3], v[4], v[5] };
			if (squaredDistance(&p->src, &p->dst) == 0)
				parseError(fileName, lineNumber, "source and destination are the same");
			vector_pushBack(m->pairVectorPtr, p);
			break;
		}
		case 'w': {
			if (sscanf(line, " %c %ld %ld %ld %c", &code, &v[0], &v[1], &v[2], &extra) != 4)
				parseError(fileName, lineNumber, "expected 'w x y z'");
			coordinate_t *c = malloc(sizeof *c);
			if (c == NULL)
				outOfMemory();
			*c = (coordinate_t){ v[0], v[1], v[2] };
			vector_pushBack(m->wallVectorPtr, c);
			break;
		}
		default:
			parseError(fileName, lineNumber, "unknown line type");
		}
	}
	free(line);
	fclose(f);
	if (width < 0)
		parseError(fileName, lineNumber, "no dimensions ('d') line");

	m->gridPtr = grid_alloc(width, height, depth);
	m->workQueuePtr = queue_alloc(vector_getSize(m->pairVectorPtr));
	if (m->gridPtr == NULL || m->workQueuePtr == NULL)
		outOfMemory();
	grid_t *g = m->gridPtr;
	for (long i = 0; i < vector_getSize(m->wallVectorPtr); i++) {
		coordinate_t *c = vector_at(m->wallVectorPtr, i);
		if (!grid_isPointValid(g, c->x, c->y, c->z))
			parseError(fileName, 0, "a wall lies outside the grid");
		g->points[grid_getIndex(g, c->x, c->y, c->z)] = GRID_POINT_FULL;
	}
	for (long i = 0; i < vector_getSize(m->pairVectorPtr); i++) {
		route_pair_t *p = vector_at(m->pairVectorPtr, i);
		if (!grid_isPointValid(g, p->src.x, p->src.y, p->src.z) ||
		    !grid_isPointValid(g, p->dst.x, p->dst.y, p->dst.z))
			parseError(fileName, 0, "a path endpoint lies outside the grid");
		g->points[grid_getIndex(g, p->src.x, p->src.y, p->src.z)] = GRID_POINT_FULL;
		g->points[grid_getIndex(g, p->dst.x, p->dst.y, p->dst.z)] = GRID_POINT_FULL;
		list_insert(sortedPairs, p);
	}
	list_iter_t it;
	list_iter_reset(&it, sortedPairs);
	while (list_iter_hasNext(&it, sortedPairs))
		queue_push(m->workQueuePtr, list_iter_next(&it, sortedPairs));
	list_free(sortedPairs);

	printf("Maze dimensions = %li x %li x %li\n", width, height, depth);
	printf("Paths to route  = %li\n", vector_getSize(m->pairVectorPtr));
	*mazePtrPtr = m;
	return vector_getSize(m->pairVectorPtr);
}

void maze_free(maze_t *m)
{
	for (long i = 0; i < vector_getSize(m->wallVectorPtr); i++)
		free(vector_at(m->wallVectorPtr, i));
	for (long i = 0; i < vector_getSize(m->pairVectorPtr); i++)
		free(vector_at(m->pairVectorPtr, i));
	vector_free(m->wallVectorPtr);
	vector_free(m->pairVectorPtr);
	queue_free(m->workQueuePtr);
	grid_free(m->gridPtr);
	free(m);
}

static bool_t checkFail(const char *what, long a)
{
	fprintf(stderr, "labyrinth check: %s (%ld)\n", what, a);
	return FALSE;
}

bool_t maze_checkPaths(maze_t *m, list_t *pathVectorListPtr, long *numRoutedPtr,
                       bool_t doPrint)
{
	grid_t *shared = m->gridPtr;
	/* A fresh grid: walls FULL, endpoints 0; each path then claims its
	 * interior cells, which must still be EMPTY. */
	grid_t *test = grid_alloc(shared->width, shared->height, shared->depth);
	if (test == NULL)
		outOfMemory();
	long numFull = 0;
	for (long i = 0; i < vector_getSize(m->wallVectorPtr); i++) {
		coordinate_t *c = vector_at(m->wallVectorPtr, i);
		test->points[grid_getIndex(test, c->x, c->y, c->z)] = GRID_POINT_FULL;
	}
	for (long i = 0; i < vector_getSize(m->pairVectorPtr); i++) {
		route_pair_t *p = vector_at(m->pairVectorPtr, i);
		test->points[grid_getIndex(test, p->src.x, p->src.y, p->src.z)] = 0;
		test->points[grid_getIndex(test, p->dst.x, p->dst.y, p->dst.z)] = 0;
	}
	long numCell = shared->width * shared->height * shared->depth;
	for (long i = 0; i < numCell; i++)
		numFull += test->points[i] != GRID_POINT_EMPTY;

	bool_t ok = TRUE;
	long numRouted = 0;
	long pathId = 1;
	list_iter_t it;
	list_iter_reset(&it, pathVectorListPtr);
	while (ok && list_iter_hasNext(&it, pathVectorListPtr)) {
		vector_t *paths = list_iter_next(&it, pathVectorListPtr);
		for (long i = 0; ok && i < vector_getSize(paths); i++, pathId++) {
			routed_path_t *path = vector_at(paths, i);
			vector_t *cells = path->cellsPtr;
			long n = vector_getSize(cells);
			route_pair_t *p = path->pairPtr;
			long first = (long *)vector_at(cells, 0) - shared->points;
			long last = (long *)vector_at(cells, n - 1) - shared->points;
			if (n < 2 || first != grid_getIndex(test, p->dst.x, p->dst.y, p->dst.z) ||
			    last != grid_getIndex(test, p->src.x, p->src.y, p->src.z)) {
				ok = checkFail("a path does not join its own pair", pathId);
				break;
			}
			if (test->points[first] != 0 || test->points[last] != 0) {
				ok = checkFail("a path does not end on endpoints", pathId);
				break;
			}
			long px = 0, py = 0, pz = 0;
			for (long k = 0; k < n; k++) {
				long index = (long *)vector_at(cells, k) - shared->points;
				long x, y, z;
				if (index < 0 || index >= numCell) {
					ok = checkFail("a path leaves the grid", pathId);
					break;
				}
				grid_getCoordinates(test, index, &x, &y, &z);
				if (k > 0 && (x - px) * (x - px) + (y - py) * (y - py) +
				                     (z - pz) * (z - pz) != 1) {
					ok = checkFail("a path makes a jump", pathId);
					break;
				}
				px = x;
				py = y;
				pz = z;
				if (k == 0 || k == n - 1)
					continue;
				if (test->points[index] != GRID_POINT_EMPTY) {
					ok = checkFail("paths overlap or cross an endpoint", pathId);
					break;
				}
				test->points[index] = pathId;
				numFull++;
				if (shared->points[index] != GRID_POINT_FULL) {
					ok = checkFail("a path cell was not claimed in the grid", pathId);
					break;
				}
			}
			numRouted++;
		}
	}
	if (ok) {
		long sharedFull = 0;
		for (long i = 0; i < numCell; i++)
			sharedFull += shared->points[i] == GRID_POINT_FULL;
		if (sharedFull != numFull)
			ok = checkFail("the grid has claimed cells no path owns", sharedFull - numFull);
	}
	if (ok && numRouted > vector_getSize(m->pairVectorPtr))
		ok = checkFail("more paths than pairs", numRouted);
	if (doPrint)
		grid_print(test);
	grid_free(test);
	*numRoutedPtr = numRouted;
	return ok;
}

unsigned long maze_digest(maze_t *m, list_t *pathVectorListPtr)
{
	long numPair = vector_getSize(m->pairVectorPtr);
	routed_path_t **byPair = calloc(numPair + 1, sizeof *byPair);
	if (byPair == NULL)
		outOfMemory();
	list_iter_t it;
	list_iter_reset(&it, pathVectorListPtr);
	while (list_iter_hasNext(&it, pathVectorListPtr)) {
		vector_t *paths = list_iter_next(&it, pathVectorListPtr);
		for (long i = 0; i < vector_getSize(paths); i++) {
			routed_path_t *path = vector_at(paths, i);
			for (long k = 0; k < numPair; k++)
				if (vector_at(m->pairVectorPtr, k) == path->pairPtr)
					byPair[k] = path;
		}
	}
	unsigned long d = REPORT_DIGEST_INIT;
	for (long k = 0; k < numPair; k++) {
		if (byPair[k] == NULL) {
			d = report_digest_long(d, -1);
			continue;
		}
		vector_t *cells = byPair[k]->cellsPtr;
		for (long i = 0; i < vector_getSize(cells); i++)
			d = report_digest_long(d, (long *)vector_at(cells, i) - m->gridPtr->points);
	}
	free(byPair);
	return d;
}
