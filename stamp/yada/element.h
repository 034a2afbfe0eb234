/*
 * element.h — yada's mesh elements: triangles and boundary segments.
 *
 * An element's geometry (coordinates, angles, circumcircle, edges) never
 * changes after it is created, so it is read without barriers; its
 * neighbour list and its isGarbage/isReferenced flags are shared and
 * transactional.
 */
#ifndef YADA_ELEMENT_H
#define YADA_ELEMENT_H 1

#include "list.h"
#include "pair.h"
#include "tm.h"
#include "types.h"

typedef struct coordinate {
	double x, y;
} coordinate_t;

/* An edge: two coordinate_t *, the lexicographically smaller first. */
typedef pair_t edge_t;

typedef struct element {
	coordinate_t coordinates[3];  /* the smallest first, order kept */
	long numCoordinate;           /* 3: triangle, 2: boundary segment */
	coordinate_t circumCenter;    /* a segment's: its midpoint */
	double circumRadius;
	double minAngle;              /* degrees (triangles) */
	edge_t edges[3];
	long numEdge;
	coordinate_t midpoints[3];    /* of each edge */
	double radii[3];              /* half of each edge's length */
	edge_t *encroachedEdgePtr;    /* the boundary edge opposite an obtuse
	                                 angle, if any */
	bool_t isSkinny;              /* an angle below the constraint */
	list_t *neighborListPtr;      /* elements sharing an edge (shared) */
	bool_t isGarbage;             /* removed from the mesh (shared) */
	bool_t isReferenced;          /* held by a work list (shared) */
} element_t;

/* The minimum angle (degrees) below which a triangle is skinny; set once,
 * before any element is created. */
void element_setAngleConstraint(double degrees);

long coordinate_compare(const coordinate_t *a, const coordinate_t *b);
double coordinate_distance(const coordinate_t *a, const coordinate_t *b);

/* Orders edges by their coordinates (list and map comparator). */
long element_compareEdge(const void *aPtr, const void *bPtr);
/* Orders elements by coordinate count, then coordinates. */
long element_compare(const void *aPtr, const void *bPtr);
/* Work-heap order: elements encroaching a boundary edge first. */
long element_heapCompare(const void *aPtr, const void *bPtr);

element_t *element_alloc(const coordinate_t *coordinates, long numCoordinate);
element_t *TMelement_alloc(TM_ARGDECL const coordinate_t *coordinates, long numCoordinate);
/* Frees the element and its neighbour list (sequential, at the end). */
void element_free(element_t *elementPtr);

bool_t element_isBad(const element_t *elementPtr);
bool_t element_isInCircumCircle(const element_t *elementPtr, const coordinate_t *p);
/* The point that refining the element inserts: the midpoint of its
 * encroached edge, or its circumcentre. */
coordinate_t element_getNewPoint(const element_t *elementPtr);
/* a's edge that b shares, or NULL. */
edge_t *element_getCommonEdge(element_t *aPtr, element_t *bPtr);
void element_clearEncroached(element_t *elementPtr);

bool_t TMelement_isGarbage(TM_ARGDECL element_t *elementPtr);
void TMelement_setIsGarbage(TM_ARGDECL element_t *elementPtr, bool_t status);
void TMelement_setIsReferenced(TM_ARGDECL element_t *elementPtr, bool_t status);
bool_t TMelement_addNeighbor(TM_ARGDECL element_t *elementPtr, element_t *neighborPtr);
bool_t TMelement_removeNeighbor(TM_ARGDECL element_t *elementPtr, element_t *neighborPtr);

#define TMELEMENT_ALLOC(c, n)            TMelement_alloc(TM_ARG (c), (n))
#define TMELEMENT_ISGARBAGE(e)           TMelement_isGarbage(TM_ARG (e))
#define TMELEMENT_SETISGARBAGE(e, s)     TMelement_setIsGarbage(TM_ARG (e), (s))
#define TMELEMENT_SETISREFERENCED(e, s)  TMelement_setIsReferenced(TM_ARG (e), (s))
#define TMELEMENT_ADDNEIGHBOR(e, n)      TMelement_addNeighbor(TM_ARG (e), (n))
#define TMELEMENT_REMOVENEIGHBOR(e, n)   TMelement_removeNeighbor(TM_ARG (e), (n))

#endif /* YADA_ELEMENT_H */
