/*
 * router.c — see router.h.
 *
 * The route transaction copies the whole shared grid with plain loads
 * (STAMP's design: the copy is not instrumented, only the path is), so
 * the expansion may see paths that later turn out to be gone or miss
 * paths committed meanwhile.  Claiming is what counts: every interior
 * cell of the chosen path is read transactionally and must still be
 * EMPTY, otherwise the transaction restarts and routes again on a fresh
 * copy.
 *
 * Deterministic backends.  A stale copy is harmless to correctness but
 * not to determinism: a path found on it may still be claimable, and
 * then which path a pair gets depends on how far the earlier transactions
 * in the order had got when the copy was taken.  So with such a backend
 * the route transaction also reads the shared grid's epoch (paths claimed
 * so far) before copying and bumps it when it claims: any claim committed
 * after the read invalidates the transaction, so a route that commits was
 * computed on exactly the state its place in the order gives it.  Other
 * backends skip this, which keeps their routes free of a common conflict.
 */
#include <stdio.h>
#include <stdlib.h>

#include "router.h"
#include "thread.h"
#include "tm.h"

enum { DIR_NONE = -1, DIR_PX, DIR_MX, DIR_PY, DIR_MY, DIR_PZ, DIR_MZ, NUM_DIR };

static const long dirDelta[NUM_DIR][3] = {
	[DIR_PX] = { 1, 0, 0 },  [DIR_MX] = { -1, 0, 0 },
	[DIR_PY] = { 0, 1, 0 },  [DIR_MY] = { 0, -1, 0 },
	[DIR_PZ] = { 0, 0, 1 },  [DIR_MZ] = { 0, 0, -1 },
};
/* The traceback looks at the positive directions first. */
static const int traceOrder[NUM_DIR] = { DIR_PX, DIR_PY, DIR_PZ, DIR_MX, DIR_MY, DIR_MZ };

static void outOfMemory(void)
{
	fprintf(stderr, "labyrinth: out of memory\n");
	exit(1);
}

/* A growable FIFO of cell indices, private to a thread. */
typedef struct fifo {
	long *items;
	long head, tail, capacity;   /* items[head..tail) */
} fifo_t;

static void fifo_push(fifo_t *q, long v)
{
	if (q->tail == q->capacity) {
		if (q->head > 0) {   /* reuse the consumed front */
			for (long i = q->head; i < q->tail; i++)
				q->items[i - q->head] = q->items[i];
			q->tail -= q->head;
			q->head = 0;
		}
		if (q->tail == q->capacity) {
			q->capacity = q->capacity ? 2 * q->capacity : 1024;
			q->items = realloc(q->items, q->capacity * sizeof *q->items);
			if (q->items == NULL)
				outOfMemory();
		}
	}
	q->items[q->tail++] = v;
}

static long dirCost(const router_t *r, int dir)
{
	return dir <= DIR_MX ? r->xCost : dir <= DIR_MY ? r->yCost : r->zCost;
}

/* Neighbour of index in direction dir, or -1 outside the grid. */
static long neighbourOf(const grid_t *g, long index, int dir)
{
	long x, y, z;
	grid_getCoordinates(g, index, &x, &y, &z);
	x += dirDelta[dir][0];
	y += dirDelta[dir][1];
	z += dirDelta[dir][2];
	return grid_isPointValid(g, x, y, z) ? grid_getIndex(g, x, y, z) : -1;
}

/* Breadth-first expansion from src: every reachable cell gets the cost of
 * the cheapest way found to it (lowered and re-queued when a cheaper way
 * turns up).  TRUE when dst is reached. */
static bool_t expand(const router_t *r, grid_t *myGrid, fifo_t *q, long src, long dst)
{
	long *points = myGrid->points;
	q->head = q->tail = 0;
	points[src] = 0;
	points[dst] = GRID_POINT_EMPTY;
	fifo_push(q, src);
	while (q->head < q->tail) {
		long current = q->items[q->head++];
		if (current == dst)
			return TRUE;
		long value = points[current];
		for (int dir = 0; dir < NUM_DIR; dir++) {
			long n = neighbourOf(myGrid, current, dir);
			if (n < 0)
				continue;
			long cost = value + dirCost(r, dir);
			long old = points[n];
			if (old == GRID_POINT_EMPTY || (old != GRID_POINT_FULL && cost < old)) {
				points[n] = cost;
				fifo_push(q, n);
			}
		}
	}
	return FALSE;
}

/* The next cell of the traceback: among the expanded neighbours (looked
 * at in traceOrder), each one replaces the best so far if its cost, plus
 * bendCost for a change of direction when useBend, is at most the best's
 * own cost; the best starts as the current cell.  So equal costs go to
 * the later neighbour, and a bend must pay for itself.  -1 if no
 * neighbour qualifies. */
static long cheapestNeighbour(const router_t *r, const grid_t *myGrid, long current,
                              long currentValue, int prevDir, bool_t useBend, int *dirPtr)
{
	long best = -1, bestValue = currentValue;
	for (int k = 0; k < NUM_DIR; k++) {
		int dir = traceOrder[k];
		long n = neighbourOf(myGrid, current, dir);
		if (n < 0 || myGrid->points[n] < 0)
			continue;   /* outside, FULL or never reached */
		long value = myGrid->points[n];
		long bend = useBend && dir != prevDir ? r->bendCost : 0;
		if (value + bend <= bestValue) {
			best = n;
			bestValue = value;
			*dirPtr = dir;
		}
	}
	return best;
}

/* Walk back from dst to the source (cost 0), preferring straight lines;
 * path receives the shared cells, dst first.  Visited cells become FULL
 * in the private grid, so the walk cannot loop. */
static bool_t traceback(const router_t *r, grid_t *myGrid, grid_t *shared, long dst,
                        vector_t *path)
{
	vector_clear(path);
	long current = dst;
	int prevDir = DIR_NONE;   /* the first step counts as a bend */
	for (;;) {
		long value = myGrid->points[current];
		vector_pushBack(path, &shared->points[current]);
		myGrid->points[current] = GRID_POINT_FULL;
		if (value == 0)
			return TRUE;
		int dir = DIR_NONE;
		long next = cheapestNeighbour(r, myGrid, current, value, prevDir, TRUE, &dir);
		if (next < 0)
			next = cheapestNeighbour(r, myGrid, current, value, prevDir, FALSE, &dir);
		if (next < 0)
			return FALSE;
		current = next;
		prevDir = dir;
	}
}

/* ---- the transactions ------------------------------------------------------------ */

static route_pair_t *takeWork(TM_ARGDECL queue_t *workQueue)
{
	route_pair_t *volatile pair = NULL;
	TM_BEGIN();
	route_pair_t *p = NULL;
	if (!TMQUEUE_ISEMPTY(workQueue))
		p = TMQUEUE_POP(workQueue);
	pair = p;
	TM_END();
	return pair;
}

/* Route one pair and claim its path; TRUE if it was routed (path then
 * holds its cells). */
static bool_t route(TM_ARGDECL const router_t *r, grid_t *shared, grid_t *myGrid,
                    fifo_t *q, vector_t *path, const route_pair_t *pair)
{
	volatile bool_t success = FALSE;
	long src = grid_getIndex(shared, pair->src.x, pair->src.y, pair->src.z);
	long dst = grid_getIndex(shared, pair->dst.x, pair->dst.y, pair->dst.z);
	bool deterministic = tm_is_deterministic();
	TM_BEGIN();
	long epoch = deterministic ? (long)TM_SHARED_READ(shared->epoch) : 0;
	grid_copy(myGrid, shared);
	if (expand(r, myGrid, q, src, dst) && traceback(r, myGrid, shared, dst, path)) {
		long n = vector_getSize(path);
		for (long i = 1; i < n - 1; i++) {   /* the endpoints are ours */
			long *cell = vector_at(path, i);
			if ((long)TM_SHARED_READ(*cell) != GRID_POINT_EMPTY)
				TM_RESTART();   /* taken since the copy: route again */
			TM_SHARED_WRITE(*cell, GRID_POINT_FULL);
		}
		if (deterministic)
			TM_SHARED_WRITE(shared->epoch, epoch + 1);
		TM_LOCAL_WRITE(success, TRUE);
	}
	TM_END();
	return success;
}

static void publish(TM_ARGDECL list_t *pathVectorList, vector_t *myPaths)
{
	TM_BEGIN();
	TMLIST_INSERT(pathVectorList, myPaths);
	TM_END();
}

void router_solve(void *argPtr)
{
	TM_THREAD_ENTER();
	router_solve_arg_t *a = argPtr;
	maze_t *m = a->mazePtr;
	grid_t *shared = m->gridPtr;
	grid_t *myGrid = grid_alloc(shared->width, shared->height, shared->depth);
	vector_t *path = vector_alloc(64);
	vector_t *myPaths = vector_alloc(16);
	fifo_t q = { 0 };
	if (myGrid == NULL || path == NULL || myPaths == NULL)
		outOfMemory();

	for (;;) {
		route_pair_t *pair = takeWork(TM_ARG m->workQueuePtr);
		if (pair == NULL)
			break;
		if (!route(TM_ARG a->routerPtr, shared, myGrid, &q, path, pair))
			continue;
		routed_path_t *routed = malloc(sizeof *routed);
		if (routed == NULL || (routed->cellsPtr = vector_alloc(vector_getSize(path))) == NULL)
			outOfMemory();
		routed->pairPtr = pair;
		vector_copy(routed->cellsPtr, path);
		vector_pushBack(myPaths, routed);
	}
	publish(TM_ARG a->pathVectorListPtr, myPaths);

	free(q.items);
	vector_free(path);
	grid_free(myGrid);
	TM_THREAD_EXIT();
}
