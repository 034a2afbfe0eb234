/*
 * mesh.h — yada's mesh: the elements linked to their neighbours, one of
 * them as the root, the set of boundary edges (shared, transactional) and
 * the initial bad elements.
 */
#ifndef YADA_MESH_H
#define YADA_MESH_H 1

#include "element.h"
#include "map.h"
#include "queue.h"
#include "random.h"
#include "set.h"
#include "tm.h"
#include "vector.h"

typedef struct mesh {
	element_t *rootElementPtr;     /* any live element (transactional) */
	queue_t *initBadQueuePtr;      /* bad elements after reading */
	SET_T *boundarySetPtr;         /* edge_t * of the boundary segments */
	vector_t *initElementsPtr;     /* the elements read, for freeing */
	double initArea;               /* total triangle area after reading */
} mesh_t;

mesh_t *mesh_alloc(void);
/* Frees the mesh and the elements it read (not later ones). */
void mesh_free(mesh_t *meshPtr);

/* Read <prefix>.node, .poly and .ele (Triangle formats); returns the
 * number of elements.  Exits with a message on a malformed file. */
long mesh_read(mesh_t *meshPtr, const char *prefix);

/* Shuffle the initial bad elements (as STAMP does, seed 0). */
void mesh_shuffleBad(mesh_t *meshPtr, random_t *randomPtr);

/* Link a new element to the mesh.  edgeMap (private) maps edges whose
 * other element is known to that element: a mapped edge links the two
 * and leaves the map, an unmapped one enters it. */
void TMmesh_insert(TM_ARGDECL mesh_t *meshPtr, element_t *elementPtr, MAP_T *edgeMapPtr);
/* Unlink an element from its neighbours and mark it garbage. */
void TMmesh_remove(TM_ARGDECL mesh_t *meshPtr, element_t *elementPtr);
bool_t TMmesh_insertBoundary(TM_ARGDECL mesh_t *meshPtr, edge_t *boundaryPtr);
bool_t TMmesh_removeBoundary(TM_ARGDECL mesh_t *meshPtr, edge_t *boundaryPtr);

/* The self-check, sequential: every element reachable from the root is
 * live, linked both ways to neighbours it shares an edge with, and not
 * bad; their number is expectedSize; the boundary set holds exactly the
 * reachable segments; the triangles cover the area they covered after
 * reading.  Messages on stderr; TRUE if all holds. */
bool_t mesh_check(mesh_t *meshPtr, long expectedSize);

#define TMMESH_INSERT(m, e, map)      TMmesh_insert(TM_ARG (m), (e), (map))
#define TMMESH_REMOVE(m, e)           TMmesh_remove(TM_ARG (m), (e))
#define TMMESH_INSERTBOUNDARY(m, b)   TMmesh_insertBoundary(TM_ARG (m), (b))
#define TMMESH_REMOVEBOUNDARY(m, b)   TMmesh_removeBoundary(TM_ARG (m), (b))

#endif /* YADA_MESH_H */
