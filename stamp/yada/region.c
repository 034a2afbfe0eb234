/*
 * region.c — see region.h.
 *
 * The region's lists, map and vectors are private and reused; they are
 * cleared at the start of each use, so an aborted attempt leaves nothing
 * behind that matters.  Elements live in the shared mesh: their neighbour
 * lists and flags are read and written transactionally, their geometry
 * plainly.
 */
#include <stdio.h>
#include <stdlib.h>

#include "region.h"

static void outOfMemory(void)
{
	fprintf(stderr, "yada: out of memory\n");
	exit(1);
}

region_t *region_alloc(void)
{
	region_t *r = calloc(1, sizeof *r);
	if (r == NULL)
		outOfMemory();
	r->expandQueuePtr = queue_alloc(64);
	r->beforeListPtr = list_alloc(element_compare);
	r->borderListPtr = list_alloc(element_compareEdge);
	r->edgeMapPtr = MAP_ALLOC(NULL, element_compareEdge);
	r->badVectorPtr = vector_alloc(64);
	r->allocatedPtr = vector_alloc(1024);
	if (r->expandQueuePtr == NULL || r->beforeListPtr == NULL || r->borderListPtr == NULL ||
	    r->edgeMapPtr == NULL || r->badVectorPtr == NULL || r->allocatedPtr == NULL)
		outOfMemory();
	return r;
}

void region_free(region_t *r)
{
	for (long i = 0; i < r->numCommittedAlloc; i++)
		element_free(vector_at(r->allocatedPtr, i));
	queue_free(r->expandQueuePtr);
	list_free(r->beforeListPtr);
	list_free(r->borderListPtr);
	MAP_FREE(r->edgeMapPtr);
	vector_free(r->badVectorPtr);
	vector_free(r->allocatedPtr);
	free(r);
}

void region_beginAttempt(region_t *r)
{
	vector_clear(r->badVectorPtr);
	/* The elements of an aborted attempt were freed by the TM. */
	r->allocatedPtr->size = r->numCommittedAlloc;
}

void region_commitAttempt(region_t *r)
{
	r->numCommittedAlloc = vector_getSize(r->allocatedPtr);
}

/* TRUE if p lies on segment's line or on its far side from the triangle
 * current (which borders it), i.e. outside the domain.
 *
 * Deviation from STAMP, a fix: STAMP splits a segment only when the new
 * point lies in its diametral circle.  That is enough when no segment is
 * encroached while a skinny triangle is refined (then every circumcentre
 * lies inside the domain), which a single thread ensures by taking
 * encroached elements first; with several threads a skinny triangle can
 * be refined while an encroached segment waits, and its circumcentre can
 * lie beyond the boundary: STAMP then inserts it outside the domain and
 * corrupts the mesh (its mesh check is compiled out).  Here such a
 * segment counts as encroached and is split instead. */
static bool_t isBeyondSegment(const element_t *segment, const element_t *current,
                              const coordinate_t *p)
{
	const coordinate_t *a = &segment->coordinates[0], *b = &segment->coordinates[1];
	const coordinate_t *inside = NULL;
	for (long k = 0; k < current->numCoordinate; k++)
		if (coordinate_compare(&current->coordinates[k], a) != 0 &&
		    coordinate_compare(&current->coordinates[k], b) != 0)
			inside = &current->coordinates[k];
	if (inside == NULL)
		return FALSE;
	double sideInside = (b->x - a->x) * (inside->y - a->y) - (b->y - a->y) * (inside->x - a->x);
	double sidePoint = (b->x - a->x) * (p->y - a->y) - (b->y - a->y) * (p->x - a->x);
	return sideInside * sidePoint <= 0.0;
}

/* Grow the cavity of the new point of centerPtr: breadth-first over
 * neighbours whose circumcircle holds the point.  A boundary segment the
 * point encroaches (when the centre is a triangle) stops the search and
 * is returned; otherwise NULL, with the cavity in beforeList, its border
 * edges in borderList and each border edge mapped to its outside
 * neighbour in the edge map. */
static element_t *TMgrowRegion(TM_ARGDECL element_t *centerPtr, region_t *r)
{
	bool_t centerIsSegment = centerPtr->numCoordinate == 2;
	coordinate_t point = element_getNewPoint(centerPtr);
	list_clear(r->beforeListPtr);
	list_clear(r->borderListPtr);
	rbtree_clear(r->edgeMapPtr);
	queue_clear(r->expandQueuePtr);
	queue_push(r->expandQueuePtr, centerPtr);
	while (!queue_isEmpty(r->expandQueuePtr)) {
		element_t *current = queue_pop(r->expandQueuePtr);
		list_insert(r->beforeListPtr, current);
		list_t *neighbors = current->neighborListPtr;
		list_iter_t it;
		TMLIST_ITER_RESET(&it, neighbors);
		while (TMLIST_ITER_HASNEXT(&it, neighbors)) {
			element_t *neighbor = TMLIST_ITER_NEXT(&it, neighbors);
			TMELEMENT_ISGARBAGE(neighbor);   /* read: conflict detection */
			if (list_find(r->beforeListPtr, neighbor) != NULL)
				continue;
			if (!centerIsSegment && neighbor->numCoordinate == 2 &&
			    (element_isInCircumCircle(neighbor, &point) ||
			     isBeyondSegment(neighbor, current, &point)))
				return neighbor;   /* encroached: split it first */
			if (element_isInCircumCircle(neighbor, &point)) {
				queue_push(r->expandQueuePtr, neighbor);
			} else {
				/* Outside the cavity: their common edge is its border. */
				edge_t *border = element_getCommonEdge(neighbor, current);
				if (border == NULL)
					TM_RESTART();   /* neighbours without an edge: stale view */
				list_insert(r->borderListPtr, border);
				if (!MAP_CONTAINS(r->edgeMapPtr, border))
					MAP_INSERT(r->edgeMapPtr, border, neighbor);
			}
		}
	}
	return NULL;
}

static element_t *TMnewElement(TM_ARGDECL region_t *r, const coordinate_t *coordinates,
                               long numCoordinate)
{
	element_t *e = TMELEMENT_ALLOC(coordinates, numCoordinate);
	if (e == NULL || !vector_pushBack(r->allocatedPtr, e))
		outOfMemory();
	return e;
}

/* Replace the cavity by triangles joining the new point to its border;
 * a segment centre is split in two at the point. */
static long TMretriangulate(TM_ARGDECL element_t *centerPtr, region_t *r, mesh_t *m)
{
	long numDelta = 0;
	coordinate_t point = element_getNewPoint(centerPtr);

	list_iter_t it;
	list_iter_reset(&it, r->beforeListPtr);
	while (list_iter_hasNext(&it, r->beforeListPtr)) {
		TMMESH_REMOVE(m, list_iter_next(&it, r->beforeListPtr));
		numDelta--;
	}

	if (centerPtr->numCoordinate == 2) {
		coordinate_t halves[2][2] = {
			{ point, centerPtr->coordinates[0] },
			{ point, centerPtr->coordinates[1] },
		};
		element_t *a = TMnewElement(TM_ARG r, halves[0], 2);
		TMMESH_INSERT(m, a, r->edgeMapPtr);
		element_t *b = TMnewElement(TM_ARG r, halves[1], 2);
		TMMESH_INSERT(m, b, r->edgeMapPtr);
		TMMESH_REMOVEBOUNDARY(m, &centerPtr->edges[0]);
		TMMESH_INSERTBOUNDARY(m, &a->edges[0]);
		TMMESH_INSERTBOUNDARY(m, &b->edges[0]);
		numDelta += 2;
	}

	list_iter_reset(&it, r->borderListPtr);
	while (list_iter_hasNext(&it, r->borderListPtr)) {
		edge_t *border = list_iter_next(&it, r->borderListPtr);
		coordinate_t corners[3] = {
			point, *(coordinate_t *)border->firstPtr, *(coordinate_t *)border->secondPtr,
		};
		element_t *e = TMnewElement(TM_ARG r, corners, 3);
		TMMESH_INSERT(m, e, r->edgeMapPtr);
		if (element_isBad(e)) {
			TMELEMENT_SETISREFERENCED(e, TRUE);
			vector_pushBack(r->badVectorPtr, e);
		}
		numDelta++;
	}
	return numDelta;
}

long TMregion_refine(TM_ARGDECL region_t *r, element_t *elementPtr, mesh_t *m)
{
	long numDelta = 0;
	TMELEMENT_ISGARBAGE(elementPtr);   /* read: conflict detection */
	for (;;) {
		element_t *encroached = TMgrowRegion(TM_ARG elementPtr, r);
		if (encroached == NULL)
			break;
		/* Split the encroached segment first; that may remove this
		 * element too. */
		TMELEMENT_SETISREFERENCED(encroached, TRUE);
		numDelta += TMregion_refine(TM_ARG r, encroached, m);
		if (TMELEMENT_ISGARBAGE(elementPtr))
			return numDelta;
	}
	if (!TMELEMENT_ISGARBAGE(elementPtr))
		numDelta += TMretriangulate(TM_ARG elementPtr, r, m);
	return numDelta;
}

void TMregion_transferBad(TM_ARGDECL region_t *r, heap_t *workHeapPtr)
{
	for (long i = 0; i < vector_getSize(r->badVectorPtr); i++) {
		element_t *e = vector_at(r->badVectorPtr, i);
		if (TMELEMENT_ISGARBAGE(e))
			TMELEMENT_SETISREFERENCED(e, FALSE);
		else
			TMHEAP_INSERT(workHeapPtr, e);
	}
}
