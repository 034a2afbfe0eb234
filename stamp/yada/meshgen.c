/*
 * meshgen.c — writes yada's input: the Delaunay triangulation of random
 * points, with its convex hull as boundary segments, in Triangle's
 * .node/.ele/.poly formats (what STAMP's inputs are: Triangle's meshes of
 * random point sets, triangulated with -c).
 *
 *     yada-meshgen <numPoints> <seed> <prefix>
 *         writes <prefix>.node, <prefix>.ele and <prefix>.poly
 *
 * Points: numPoints integer points in [0, 2^26)^2 with distinct x,
 * drawn from MT19937 seeded with <seed>.  Triangulation: a sweep over the
 * points by increasing x; each point is joined to the hull edges it sees,
 * then the new triangles are made Delaunay by edge flips (Lawson).  The
 * predicates are exact (128-bit integers), so the result is a valid
 * Delaunay triangulation whatever the point set.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"

#define COORD_BITS 26

typedef __int128 wide_t;

typedef struct point {
	int64_t x, y;
	long id;            /* 1-based, in generation order */
} point_t;

typedef struct triangle {
	long v[3];          /* counter-clockwise; indices into the sorted points */
	long n[3];          /* n[i]: the triangle across the edge opposite v[i] */
} triangle_t;

static point_t *pts;
static triangle_t *tris;
static long numTri, capTri;
static long *hullNext, *hullPrev, *hullTri;
static long *stack;
static long stackSize, stackCap;

static void fail(const char *what)
{
	fprintf(stderr, "yada-meshgen: %s\n", what);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		fail("out of memory");
	return p;
}

/* > 0 if c lies to the left of a->b. */
static wide_t orient(long a, long b, long c)
{
	const point_t *pa = &pts[a], *pb = &pts[b], *pc = &pts[c];
	return (wide_t)(pb->x - pa->x) * (pc->y - pa->y) - (wide_t)(pb->y - pa->y) * (pc->x - pa->x);
}

/* > 0 if d lies inside the circumcircle of the counter-clockwise a, b, c. */
static wide_t inCircle(long a, long b, long c, long d)
{
	const point_t *pd = &pts[d];
	wide_t adx = pts[a].x - pd->x, ady = pts[a].y - pd->y;
	wide_t bdx = pts[b].x - pd->x, bdy = pts[b].y - pd->y;
	wide_t cdx = pts[c].x - pd->x, cdy = pts[c].y - pd->y;
	return (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) +
	       (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy) +
	       (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady);
}

static long newTriangle(long a, long b, long c)
{
	if (numTri == capTri) {
		capTri = capTri ? 2 * capTri : 1024;
		tris = realloc(tris, capTri * sizeof *tris);
		if (tris == NULL)
			fail("out of memory");
	}
	triangle_t *t = &tris[numTri];
	t->v[0] = a;
	t->v[1] = b;
	t->v[2] = c;
	t->n[0] = t->n[1] = t->n[2] = -1;
	return numTri++;
}

/* In triangle t, the index of the edge from u to w (counter-clockwise). */
static int edgeIndex(long t, long u, long w)
{
	for (int i = 0; i < 3; i++)
		if (tris[t].v[(i + 1) % 3] == u && tris[t].v[(i + 2) % 3] == w)
			return i;
	fail("internal error: edge not found");
	return -1;
}

static void replaceNeighbour(long t, long old, long now)
{
	if (t < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (tris[t].n[i] == old) {
			tris[t].n[i] = now;
			return;
		}
	fail("internal error: neighbour not found");
}

static void push(long t)
{
	if (stackSize == stackCap) {
		stackCap = stackCap ? 2 * stackCap : 1024;
		stack = realloc(stack, stackCap * sizeof *stack);
		if (stack == NULL)
			fail("out of memory");
	}
	stack[stackSize++] = t;
}

/* Make the triangles on the stack Delaunay: each has the new point p as
 * v[0]; while the edge opposite p has a neighbour whose far vertex lies
 * in t's circumcircle, flip that edge. */
static void legalize(long p)
{
	while (stackSize > 0) {
		long t = stack[--stackSize];
		long a = tris[t].v[1], b = tris[t].v[2];
		long o = tris[t].n[0];
		if (o < 0)
			continue;
		int j = edgeIndex(o, b, a);
		long d = tris[o].v[j];
		if (inCircle(p, a, b, d) <= 0)
			continue;
		long nA = tris[t].n[1];              /* across b -> p */
		long nB = tris[t].n[2];              /* across p -> a */
		long oB = tris[o].n[(j + 1) % 3];    /* across a -> d */
		long oA = tris[o].n[(j + 2) % 3];    /* across d -> b */
		/* t becomes (p, a, d), o becomes (p, d, b). */
		tris[t] = (triangle_t){ { p, a, d }, { oB, o, nB } };
		tris[o] = (triangle_t){ { p, d, b }, { oA, nA, t } };
		replaceNeighbour(oB, o, t);
		replaceNeighbour(nA, t, o);
		if (oB < 0)
			hullTri[a] = t;
		if (nA < 0)
			hullTri[b] = o;
		if (nB < 0)
			hullTri[p] = t;
		if (oA < 0)
			hullTri[d] = o;
		push(t);
		push(o);
	}
}

/* p sees the hull edge u -> hullNext[u] from outside. */
static int sees(long p, long u)
{
	return orient(u, hullNext[u], p) < 0;
}

static void insertPoint(long p, long last)
{
	long first = last, end = last;
	if (!sees(p, last) && !sees(p, hullPrev[last])) {
		/* Not next to the last point (only in degenerate cases): look
		 * along the whole hull. */
		long u = hullNext[last];
		while (u != last && !sees(p, u))
			u = hullNext[u];
		if (u == last)
			fail("a point sees no hull edge (collinear input?)");
		first = end = u;
	}
	while (sees(p, hullPrev[first]) && hullPrev[first] != end)
		first = hullPrev[first];
	while (sees(p, end) && hullNext[end] != first)
		end = hullNext[end];
	/* Triangles (w, u, p) on the edges u -> w from first to end; the new
	 * point goes first in each, as legalize() wants. */
	long prevTri = -1, firstTri = -1;
	for (long u = first; u != end;) {
		long w = hullNext[u];
		long t = newTriangle(p, w, u);
		long o = hullTri[u];
		tris[t].n[0] = o;
		tris[o].n[edgeIndex(o, u, w)] = t;
		/* Across u -> p lies the previous new triangle. */
		tris[t].n[1] = prevTri;
		if (prevTri >= 0)
			tris[prevTri].n[2] = t;
		else
			firstTri = t;
		prevTri = t;
		push(t);
		u = w;
	}
	for (long u = hullNext[first]; u != end;) {
		long next = hullNext[u];
		hullNext[u] = hullPrev[u] = -1;   /* now inside */
		u = next;
	}
	hullNext[first] = p;
	hullPrev[p] = first;
	hullNext[p] = end;
	hullPrev[end] = p;
	hullTri[first] = firstTri;   /* edge first -> p */
	hullTri[p] = prevTri;        /* edge p -> end */
	legalize(p);
}

/* Every triangle counter-clockwise, every neighbour link mutual, every
 * edge locally Delaunay, and 2n - h - 2 triangles (Euler): then the whole
 * triangulation is the Delaunay triangulation of the hull. */
static void verify(long n, long numHull)
{
	if (numTri != 2 * n - numHull - 2)
		fail("verification: wrong number of triangles");
	for (long t = 0; t < numTri; t++) {
		triangle_t *tr = &tris[t];
		if (orient(tr->v[0], tr->v[1], tr->v[2]) <= 0)
			fail("verification: a triangle is not counter-clockwise");
		for (int i = 0; i < 3; i++) {
			long o = tr->n[i];
			if (o < 0)
				continue;
			long u = tr->v[(i + 1) % 3], w = tr->v[(i + 2) % 3];
			int j = edgeIndex(o, w, u);
			if (tris[o].n[j] != t)
				fail("verification: neighbour links are not mutual");
			if (inCircle(tr->v[0], tr->v[1], tr->v[2], tris[o].v[j]) > 0)
				fail("verification: an edge is not Delaunay");
		}
	}
}

static int compareByX(const void *a, const void *b)
{
	const point_t *p = a, *q = b;
	return (p->x > q->x) - (p->x < q->x);
}

static FILE *openOut(const char *prefix, const char *ext)
{
	char name[4096];
	snprintf(name, sizeof name, "%s%s", prefix, ext);
	FILE *f = fopen(name, "w");
	if (f == NULL) {
		fprintf(stderr, "yada-meshgen: %s: %s\n", name, strerror(errno));
		exit(1);
	}
	return f;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s <numPoints> <seed> <prefix>\n", argv[0]);
		return 2;
	}
	char *end;
	long n = strtol(argv[1], &end, 10);
	if (*end != '\0' || n < 3 || n > (1L << (COORD_BITS - 1))) {
		fprintf(stderr, "yada-meshgen: bad number of points '%s' (3..%ld)\n", argv[1],
		        1L << (COORD_BITS - 1));
		return 2;
	}
	unsigned long seed = strtoul(argv[2], &end, 10);
	if (*end != '\0') {
		fprintf(stderr, "yada-meshgen: bad seed '%s'\n", argv[2]);
		return 2;
	}

	/* Points with distinct x, so that the sweep order is strict. */
	random_t *r = random_alloc();
	random_seed(r, seed);
	long range = 1L << COORD_BITS;
	unsigned char *usedX = calloc(range / 8, 1);
	pts = xmalloc(n * sizeof *pts);
	if (usedX == NULL)
		fail("out of memory");
	for (long i = 0; i < n; i++) {
		long x;
		do
			x = (long)(random_generate(r) % (unsigned long)range);
		while (usedX[x / 8] & (1 << (x % 8)));
		usedX[x / 8] |= (unsigned char)(1 << (x % 8));
		pts[i].x = x;
		pts[i].y = (long)(random_generate(r) % (unsigned long)range);
		pts[i].id = i + 1;
	}
	free(usedX);
	random_free(r);
	qsort(pts, n, sizeof *pts, compareByX);

	hullNext = xmalloc(n * sizeof *hullNext);
	hullPrev = xmalloc(n * sizeof *hullPrev);
	hullTri = xmalloc(n * sizeof *hullTri);
	wide_t o = orient(0, 1, 2);
	if (o == 0)
		fail("the first three points are collinear: use another seed");
	long t0 = o > 0 ? newTriangle(0, 1, 2) : newTriangle(0, 2, 1);
	for (int i = 0; i < 3; i++) {
		long v = tris[t0].v[i], w = tris[t0].v[(i + 1) % 3];
		hullNext[v] = w;
		hullPrev[w] = v;
		hullTri[v] = t0;
	}
	for (long p = 3; p < n; p++)
		insertPoint(p, p - 1);

	long numHull = 0;
	long start = n - 1;   /* the rightmost point is always on the hull */
	long v = start;
	do {
		numHull++;
		v = hullNext[v];
	} while (v != start);
	verify(n, numHull);

	FILE *f = openOut(argv[3], ".node");
	fprintf(f, "%ld 2 0 0\n", n);
	point_t *byId = xmalloc(n * sizeof *byId);
	long *idOf = xmalloc(n * sizeof *idOf);
	for (long i = 0; i < n; i++) {
		byId[pts[i].id - 1] = pts[i];
		idOf[i] = pts[i].id;
	}
	for (long i = 0; i < n; i++)
		fprintf(f, "%ld %ld %ld\n", byId[i].id, (long)byId[i].x, (long)byId[i].y);
	fprintf(f, "# Generated by yada-meshgen %s %s\n", argv[1], argv[2]);
	fclose(f);

	f = openOut(argv[3], ".ele");
	fprintf(f, "%ld 3 0\n", numTri);
	for (long t = 0; t < numTri; t++)
		fprintf(f, "%ld %ld %ld %ld\n", t + 1, idOf[tris[t].v[0]], idOf[tris[t].v[1]],
		        idOf[tris[t].v[2]]);
	fprintf(f, "# Generated by yada-meshgen %s %s\n", argv[1], argv[2]);
	fclose(f);

	f = openOut(argv[3], ".poly");
	fprintf(f, "0 2 0 1\n%ld 1\n", numHull);
	long k = 1;
	v = start;
	do {
		fprintf(f, "%ld %ld %ld 1\n", k++, idOf[v], idOf[hullNext[v]]);
		v = hullNext[v];
	} while (v != start);
	fprintf(f, "0\n# Generated by yada-meshgen %s %s\n", argv[1], argv[2]);
	fclose(f);

	printf("%ld points, %ld triangles, %ld hull segments\n", n, numTri, numHull);
	free(byId);
	free(idOf);
	free(pts);
	free(tris);
	free(hullNext);
	free(hullPrev);
	free(hullTri);
	free(stack);
	return 0;
}
