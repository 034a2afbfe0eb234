/*
 * region.h — a yada thread's private work area for refining one element:
 * the cavity found by growing a region around the new point, its border,
 * the edge map that links the new triangles, and the bad elements the
 * re-triangulation created.
 */
#ifndef YADA_REGION_H
#define YADA_REGION_H 1

#include "element.h"
#include "heap.h"
#include "list.h"
#include "map.h"
#include "mesh.h"
#include "queue.h"
#include "tm.h"
#include "vector.h"

typedef struct region {
	queue_t *expandQueuePtr;   /* elements to visit */
	list_t *beforeListPtr;     /* the cavity: elements to remove */
	list_t *borderListPtr;     /* edges between the cavity and the rest */
	MAP_T *edgeMapPtr;         /* border edge -> outside neighbour */
	vector_t *badVectorPtr;    /* new bad elements */
	vector_t *allocatedPtr;    /* every element this thread created */
	long numCommittedAlloc;    /* ... by committed transactions */
} region_t;

region_t *region_alloc(void);
/* Frees the region and every element it created. */
void region_free(region_t *regionPtr);

/* Start of a refinement transaction: forget what an aborted attempt left
 * in the private vectors. */
void region_beginAttempt(region_t *regionPtr);
/* After its commit: keep what it allocated. */
void region_commitAttempt(region_t *regionPtr);

/* Refine elementPtr: insert its new point (splitting first any boundary
 * segment that the point encroaches), removing the cavity and joining
 * the point to the cavity's border.  Returns the change in the number of
 * elements. */
long TMregion_refine(TM_ARGDECL region_t *regionPtr, element_t *elementPtr, mesh_t *meshPtr);

/* Move the new bad elements that are still live into the work heap. */
void TMregion_transferBad(TM_ARGDECL region_t *regionPtr, heap_t *workHeapPtr);

#define TMREGION_REFINE(r, e, m)        TMregion_refine(TM_ARG (r), (e), (m))
#define TMREGION_TRANSFERBAD(r, h)      TMregion_transferBad(TM_ARG (r), (h))

#endif /* YADA_REGION_H */
