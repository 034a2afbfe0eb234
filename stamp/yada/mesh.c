/*
 * mesh.c — see mesh.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

static void outOfMemory(void)
{
	fprintf(stderr, "yada: out of memory\n");
	exit(1);
}

mesh_t *mesh_alloc(void)
{
	mesh_t *m = calloc(1, sizeof *m);
	if (m == NULL)
		outOfMemory();
	m->initBadQueuePtr = queue_alloc(1);
	m->boundarySetPtr = SET_ALLOC(NULL, element_compareEdge);
	m->initElementsPtr = vector_alloc(1);
	if (m->initBadQueuePtr == NULL || m->boundarySetPtr == NULL || m->initElementsPtr == NULL)
		outOfMemory();
	return m;
}

void mesh_free(mesh_t *m)
{
	for (long i = 0; i < vector_getSize(m->initElementsPtr); i++)
		element_free(vector_at(m->initElementsPtr, i));
	vector_free(m->initElementsPtr);
	queue_free(m->initBadQueuePtr);
	SET_FREE(m->boundarySetPtr);
	free(m);
}

static double triangleArea(const element_t *e)
{
	const coordinate_t *c = e->coordinates;
	return fabs((c[1].x - c[0].x) * (c[2].y - c[0].y) - (c[1].y - c[0].y) * (c[2].x - c[0].x)) /
	       2.0;
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct reader {
	FILE *f;
	char name[4096];
	char *line;
	size_t cap;
	long lineNumber;
} reader_t;

static void reader_open(reader_t *r, const char *prefix, const char *ext)
{
	snprintf(r->name, sizeof r->name, "%s%s", prefix, ext);
	r->f = fopen(r->name, "r");
	if (r->f == NULL) {
		fprintf(stderr, "yada: %s: %s\n", r->name, strerror(errno));
		exit(1);
	}
	r->line = NULL;
	r->cap = 0;
	r->lineNumber = 0;
}

static void reader_fail(reader_t *r, const char *what)
{
	fprintf(stderr, "yada: %s:%ld: %s\n", r->name, r->lineNumber, what);
	exit(1);
}

/* The next line that is neither blank nor a comment. */
static const char *reader_next(reader_t *r)
{
	while (getline(&r->line, &r->cap, r->f) != -1) {
		r->lineNumber++;
		char c;
		if (sscanf(r->line, " %c", &c) == 1 && c != '#')
			return r->line;
	}
	reader_fail(r, "unexpected end of file");
	return NULL;
}

static void reader_close(reader_t *r)
{
	free(r->line);
	fclose(r->f);
}

/* Sequential insertion while reading (see TMmesh_insert). */
static void mesh_insertRead(mesh_t *m, element_t *e, MAP_T *edgeMap)
{
	if (m->rootElementPtr == NULL)
		m->rootElementPtr = e;
	for (long i = 0; i < e->numEdge; i++) {
		edge_t *edge = &e->edges[i];
		element_t *sharer = MAP_FIND(edgeMap, edge);
		if (sharer == NULL) {
			MAP_INSERT(edgeMap, edge, e);
			continue;
		}
		list_insert(e->neighborListPtr, sharer);
		list_insert(sharer->neighborListPtr, e);
		MAP_REMOVE(edgeMap, edge);
	}
	if (e->encroachedEdgePtr != NULL &&
	    !SET_CONTAINS(m->boundarySetPtr, e->encroachedEdgePtr))
		element_clearEncroached(e);
	vector_pushBack(m->initElementsPtr, e);
}

long mesh_read(mesh_t *m, const char *prefix)
{
	reader_t r;
	long n, dim, numAttr, numMarker;

	reader_open(&r, prefix, ".node");
	if (sscanf(reader_next(&r), "%ld %ld %ld %ld", &n, &dim, &numAttr, &numMarker) < 2 ||
	    n < 3 || dim != 2)
		reader_fail(&r, "expected '<nodes> 2 <attributes> <markers>'");
	/* Ids start at 0 or 1. */
	coordinate_t *coordinates = malloc((n + 1) * sizeof *coordinates);
	char *defined = calloc(n + 1, 1);
	if (coordinates == NULL || defined == NULL)
		outOfMemory();
	for (long i = 0; i < n; i++) {
		long id;
		double x, y;
		if (sscanf(reader_next(&r), "%ld %lf %lf", &id, &x, &y) != 3 || id < 0 || id > n)
			reader_fail(&r, "expected '<id> <x> <y>'");
		coordinates[id] = (coordinate_t){ x, y };
		defined[id] = 1;
	}
	reader_close(&r);

	MAP_T *edgeMap = MAP_ALLOC(NULL, element_compareEdge);
	if (edgeMap == NULL)
		outOfMemory();
	long numElement = 0;

	reader_open(&r, prefix, ".poly");
	long zero, numSegment;
	if (sscanf(reader_next(&r), "%ld", &zero) != 1 || zero != 0)
		reader_fail(&r, "expected '0 2 0 1' (the vertices come from .node)");
	if (sscanf(reader_next(&r), "%ld", &numSegment) != 1 || numSegment < 0)
		reader_fail(&r, "expected '<segments> <markers>'");
	for (long i = 0; i < numSegment; i++) {
		long id, a, b;
		if (sscanf(reader_next(&r), "%ld %ld %ld", &id, &a, &b) != 3 || a < 0 || a > n ||
		    b < 0 || b > n || !defined[a] || !defined[b])
			reader_fail(&r, "expected '<id> <node> <node>' of defined nodes");
		coordinate_t ends[2] = { coordinates[a], coordinates[b] };
		element_t *e = element_alloc(ends, 2);
		if (e == NULL)
			outOfMemory();
		SET_INSERT(m->boundarySetPtr, &e->edges[0]);
		mesh_insertRead(m, e, edgeMap);
		numElement++;
	}
	reader_close(&r);

	reader_open(&r, prefix, ".ele");
	long numTriangle, three;
	if (sscanf(reader_next(&r), "%ld %ld", &numTriangle, &three) != 2 || three != 3)
		reader_fail(&r, "expected '<triangles> 3 <attributes>'");
	for (long i = 0; i < numTriangle; i++) {
		long id, a, b, c;
		if (sscanf(reader_next(&r), "%ld %ld %ld %ld", &id, &a, &b, &c) != 4 || a < 0 ||
		    a > n || b < 0 || b > n || c < 0 || c > n || !defined[a] || !defined[b] ||
		    !defined[c])
			reader_fail(&r, "expected '<id> <node> <node> <node>' of defined nodes");
		coordinate_t corners[3] = { coordinates[a], coordinates[b], coordinates[c] };
		element_t *e = element_alloc(corners, 3);
		if (e == NULL)
			outOfMemory();
		mesh_insertRead(m, e, edgeMap);
		m->initArea += triangleArea(e);
		if (element_isBad(e))
			queue_push(m->initBadQueuePtr, e);
		numElement++;
	}
	reader_close(&r);

	MAP_FREE(edgeMap);
	free(coordinates);
	free(defined);
	return numElement;
}

void mesh_shuffleBad(mesh_t *m, random_t *randomPtr)
{
	queue_shuffle(m->initBadQueuePtr, randomPtr);
}

/* ---- transactional updates ---------------------------------------------------------- */

void TMmesh_insert(TM_ARGDECL mesh_t *m, element_t *e, MAP_T *edgeMap)
{
	if (TM_SHARED_READ_P(m->rootElementPtr) == NULL)
		TM_SHARED_WRITE_P(m->rootElementPtr, e);
	for (long i = 0; i < e->numEdge; i++) {
		edge_t *edge = &e->edges[i];
		element_t *sharer = MAP_FIND(edgeMap, edge);   /* private map */
		if (sharer == NULL) {
			MAP_INSERT(edgeMap, edge, e);
			continue;
		}
		TMELEMENT_ADDNEIGHBOR(e, sharer);
		TMELEMENT_ADDNEIGHBOR(sharer, e);
		MAP_REMOVE(edgeMap, edge);
	}
	/* Only encroaching a boundary edge counts. */
	if (e->encroachedEdgePtr != NULL &&
	    !TMSET_CONTAINS(m->boundarySetPtr, e->encroachedEdgePtr))
		element_clearEncroached(e);   /* e is still private */
}

void TMmesh_remove(TM_ARGDECL mesh_t *m, element_t *e)
{
	/* The next insertion names a new root. */
	if (TM_SHARED_READ_P(m->rootElementPtr) == e)
		TM_SHARED_WRITE_P(m->rootElementPtr, (element_t *)NULL);
	list_t *neighbors = e->neighborListPtr;
	list_iter_t it;
	TMLIST_ITER_RESET(&it, neighbors);
	while (TMLIST_ITER_HASNEXT(&it, neighbors)) {
		element_t *neighbor = TMLIST_ITER_NEXT(&it, neighbors);
		TMELEMENT_REMOVENEIGHBOR(neighbor, e);
	}
	TMELEMENT_SETISGARBAGE(e, TRUE);
	/* Elements are never freed while the mesh is refined (a work list
	 * may still hold them); all are freed at the end. */
}

bool_t TMmesh_insertBoundary(TM_ARGDECL mesh_t *m, edge_t *boundary)
{
	return TMSET_INSERT(m->boundarySetPtr, boundary);
}

bool_t TMmesh_removeBoundary(TM_ARGDECL mesh_t *m, edge_t *boundary)
{
	return TMSET_REMOVE(m->boundarySetPtr, boundary);
}

/* ---- self-check ---------------------------------------------------------------------- */

static bool_t checkFail(const char *what, double value)
{
	fprintf(stderr, "yada check: %s (%g)\n", what, value);
	return FALSE;
}

bool_t mesh_check(mesh_t *m, long expectedSize)
{
	if (m->rootElementPtr == NULL)
		return checkFail("the mesh has no root", 0);
	rbtree_t *visited = rbtree_alloc(NULL);   /* element addresses */
	queue_t *pending = queue_alloc(1024);
	if (visited == NULL || pending == NULL)
		outOfMemory();
	bool_t ok = TRUE;
	long numElement = 0, numBad = 0, numSegment = 0;
	double area = 0.0;
	rbtree_insert(visited, m->rootElementPtr, NULL);
	queue_push(pending, m->rootElementPtr);
	while (ok && !queue_isEmpty(pending)) {
		element_t *e = queue_pop(pending);
		numElement++;
		if (e->isGarbage) {
			ok = checkFail("a removed element is still linked", numElement);
			break;
		}
		if (element_isBad(e))
			numBad++;
		if (e->numCoordinate == 2) {
			numSegment++;
			if (!SET_CONTAINS(m->boundarySetPtr, &e->edges[0]))
				ok = checkFail("a segment is missing from the boundary set", numSegment);
		} else {
			area += triangleArea(e);
		}
		long numNeighbor = list_getSize(e->neighborListPtr);
		if (numNeighbor > e->numEdge || (e->numCoordinate == 2 && numNeighbor != 1))
			ok = checkFail("an element has too many or too few neighbours",
			               (double)numNeighbor);
		list_iter_t it;
		list_iter_reset(&it, e->neighborListPtr);
		while (ok && list_iter_hasNext(&it, e->neighborListPtr)) {
			element_t *n = list_iter_next(&it, e->neighborListPtr);
			if (list_find(n->neighborListPtr, e) != e)
				ok = checkFail("a neighbour link is one-way", numElement);
			else if (element_getCommonEdge(e, n) == NULL)
				ok = checkFail("neighbours share no edge", numElement);
			else if (rbtree_insert(visited, n, NULL))
				queue_push(pending, n);
		}
	}
	long numBoundary = rbtree_verify(m->boundarySetPtr, "boundary");
	if (ok && numElement != expectedSize)
		ok = checkFail("reachable elements differ from the final size",
		               (double)(numElement - expectedSize));
	if (ok && numBad != 0)
		ok = checkFail("bad elements remain", (double)numBad);
	if (ok && numBoundary != numSegment)
		ok = checkFail("boundary set and boundary segments differ",
		               (double)(numBoundary - numSegment));
	if (ok && fabs(area - m->initArea) > 1e-9 * m->initArea)
		ok = checkFail("the triangles no longer cover the domain", area - m->initArea);
	rbtree_free(visited);
	queue_free(pending);
	return ok;
}
