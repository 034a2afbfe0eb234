/*
 * element.c — see element.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "element.h"

static double angleConstraint = 20.0;   /* set before the parallel phase */

void element_setAngleConstraint(double degrees)
{
	angleConstraint = degrees;
}

long coordinate_compare(const coordinate_t *a, const coordinate_t *b)
{
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return 0;
}

double coordinate_distance(const coordinate_t *a, const coordinate_t *b)
{
	double dx = a->x - b->x, dy = a->y - b->y;
	return sqrt(dx * dx + dy * dy);
}

/* The angle at vertex a of the triangle a, b, c, in degrees. */
static double coordinate_angle(const coordinate_t *a, const coordinate_t *b,
                               const coordinate_t *c)
{
	double ux = b->x - a->x, uy = b->y - a->y;
	double vx = c->x - a->x, vy = c->y - a->y;
	double cosine = (ux * vx + uy * vy) / (sqrt(ux * ux + uy * uy) * sqrt(vx * vx + vy * vy));
	if (cosine > 1.0)
		cosine = 1.0;
	else if (cosine < -1.0)
		cosine = -1.0;
	return acos(cosine) * 180.0 / M_PI;
}

long element_compareEdge(const void *aPtr, const void *bPtr)
{
	const edge_t *a = aPtr, *b = bPtr;
	long diff = coordinate_compare(a->firstPtr, b->firstPtr);
	return diff != 0 ? diff : coordinate_compare(a->secondPtr, b->secondPtr);
}

long element_compare(const void *aPtr, const void *bPtr)
{
	const element_t *a = aPtr, *b = bPtr;
	if (a->numCoordinate != b->numCoordinate)
		return a->numCoordinate < b->numCoordinate ? -1 : 1;
	for (long i = 0; i < a->numCoordinate; i++) {
		long diff = coordinate_compare(&a->coordinates[i], &b->coordinates[i]);
		if (diff != 0)
			return diff;
	}
	return 0;
}

long element_heapCompare(const void *aPtr, const void *bPtr)
{
	const element_t *a = aPtr, *b = bPtr;
	return (a->encroachedEdgePtr != NULL) - (b->encroachedEdgePtr != NULL);
}

static void setEdge(element_t *e, long i, long from, long to)
{
	coordinate_t *p = &e->coordinates[from], *q = &e->coordinates[to];
	if (coordinate_compare(p, q) > 0) {
		coordinate_t *t = p;
		p = q;
		q = t;
	}
	e->edges[i].firstPtr = p;
	e->edges[i].secondPtr = q;
	e->midpoints[i] = (coordinate_t){ (p->x + q->x) / 2.0, (p->y + q->y) / 2.0 };
	e->radii[i] = coordinate_distance(p, q) / 2.0;
}

/* Everything about an element but its neighbour list. */
static void element_init(element_t *e, const coordinate_t *coordinates, long numCoordinate)
{
	/* Start at the smallest coordinate, keeping the cyclic order, so that
	 * equal elements have equal coordinate arrays. */
	long first = 0;
	for (long i = 1; i < numCoordinate; i++)
		if (coordinate_compare(&coordinates[i], &coordinates[first]) < 0)
			first = i;
	for (long i = 0; i < numCoordinate; i++)
		e->coordinates[i] = coordinates[(first + i) % numCoordinate];
	e->numCoordinate = numCoordinate;
	e->encroachedEdgePtr = NULL;
	e->isSkinny = FALSE;
	e->isGarbage = FALSE;
	e->isReferenced = FALSE;
	const coordinate_t *c = e->coordinates;
	if (numCoordinate == 2) {
		e->numEdge = 1;
		setEdge(e, 0, 0, 1);
		e->circumCenter = e->midpoints[0];
		e->circumRadius = e->radii[0];
		e->minAngle = 180.0;
		return;
	}
	e->numEdge = 3;
	for (long i = 0; i < 3; i++)
		setEdge(e, i, i, (i + 1) % 3);
	/* The angle at vertex i faces edge (i + 1) % 3. */
	e->minAngle = 180.0;
	for (long i = 0; i < 3; i++) {
		double angle = coordinate_angle(&c[i], &c[(i + 1) % 3], &c[(i + 2) % 3]);
		if (angle < e->minAngle)
			e->minAngle = angle;
		if (angle < angleConstraint)
			e->isSkinny = TRUE;
		if (angle > 90.0)
			e->encroachedEdgePtr = &e->edges[(i + 1) % 3];
	}
	/* Circumcentre, relative to the first vertex. */
	double bx = c[1].x - c[0].x, by = c[1].y - c[0].y;
	double cx = c[2].x - c[0].x, cy = c[2].y - c[0].y;
	double d = 2.0 * (bx * cy - by * cx);
	double b2 = bx * bx + by * by, c2 = cx * cx + cy * cy;
	e->circumCenter.x = c[0].x + (cy * b2 - by * c2) / d;
	e->circumCenter.y = c[0].y + (bx * c2 - cx * b2) / d;
	e->circumRadius = coordinate_distance(&e->circumCenter, &c[0]);
}

element_t *element_alloc(const coordinate_t *coordinates, long numCoordinate)
{
	element_t *e = malloc(sizeof *e);
	if (e == NULL)
		return NULL;
	element_init(e, coordinates, numCoordinate);
	e->neighborListPtr = list_alloc(element_compare);
	if (e->neighborListPtr == NULL) {
		free(e);
		return NULL;
	}
	return e;
}

element_t *TMelement_alloc(TM_ARGDECL const coordinate_t *coordinates, long numCoordinate)
{
	element_t *e = TM_MALLOC(sizeof *e);
	if (e == NULL)
		return NULL;
	element_init(e, coordinates, numCoordinate);   /* private until inserted */
	e->neighborListPtr = TMLIST_ALLOC(element_compare);
	if (e->neighborListPtr == NULL) {
		TM_FREE(e);
		return NULL;
	}
	return e;
}

void element_free(element_t *e)
{
	list_free(e->neighborListPtr);
	free(e);
}

bool_t element_isBad(const element_t *e)
{
	return e->encroachedEdgePtr != NULL || e->isSkinny;
}

bool_t element_isInCircumCircle(const element_t *e, const coordinate_t *p)
{
	return coordinate_distance(p, &e->circumCenter) <= e->circumRadius;
}

coordinate_t element_getNewPoint(const element_t *e)
{
	if (e->encroachedEdgePtr != NULL)
		for (long i = 0; i < e->numEdge; i++)
			if (element_compareEdge(e->encroachedEdgePtr, &e->edges[i]) == 0)
				return e->midpoints[i];
	return e->circumCenter;
}

edge_t *element_getCommonEdge(element_t *a, element_t *b)
{
	for (long i = 0; i < a->numEdge; i++)
		for (long j = 0; j < b->numEdge; j++)
			if (element_compareEdge(&a->edges[i], &b->edges[j]) == 0)
				return &a->edges[i];
	return NULL;
}

void element_clearEncroached(element_t *e)
{
	e->encroachedEdgePtr = NULL;
}

bool_t TMelement_isGarbage(TM_ARGDECL element_t *e)
{
	return (bool_t)TM_SHARED_READ(e->isGarbage);
}

void TMelement_setIsGarbage(TM_ARGDECL element_t *e, bool_t status)
{
	TM_SHARED_WRITE(e->isGarbage, status);
}

void TMelement_setIsReferenced(TM_ARGDECL element_t *e, bool_t status)
{
	TM_SHARED_WRITE(e->isReferenced, status);
}

bool_t TMelement_addNeighbor(TM_ARGDECL element_t *e, element_t *neighbor)
{
	return TMLIST_INSERT(e->neighborListPtr, neighbor);
}

bool_t TMelement_removeNeighbor(TM_ARGDECL element_t *e, element_t *neighbor)
{
	return TMLIST_REMOVE(e->neighborListPtr, neighbor);
}
