/*
 * grid.c — see grid.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

grid_t *grid_alloc(long width, long height, long depth)
{
	grid_t *g = malloc(sizeof *g);
	if (g == NULL)
		return NULL;
	g->width = width;
	g->height = height;
	g->depth = depth;
	g->epoch = 0;
	long n = width * height * depth;
	/* Aligned like STAMP's, so copies work on whole cache lines. */
	if (posix_memalign((void **)&g->points, 32, n * sizeof *g->points) != 0) {
		free(g);
		return NULL;
	}
	for (long i = 0; i < n; i++)
		g->points[i] = GRID_POINT_EMPTY;
	return g;
}

void grid_free(grid_t *g)
{
	free(g->points);
	free(g);
}

void grid_copy(grid_t *dst, const grid_t *src)
{
	memcpy(dst->points, src->points,
	       src->width * src->height * src->depth * sizeof *src->points);
}

bool_t grid_isPointValid(const grid_t *g, long x, long y, long z)
{
	return x >= 0 && x < g->width && y >= 0 && y < g->height && z >= 0 && z < g->depth;
}

long grid_getIndex(const grid_t *g, long x, long y, long z)
{
	return (z * g->height + y) * g->width + x;
}

void grid_getCoordinates(const grid_t *g, long index, long *x, long *y, long *z)
{
	*x = index % g->width;
	*y = index / g->width % g->height;
	*z = index / (g->width * g->height);
}

void grid_print(const grid_t *g)
{
	for (long z = 0; z < g->depth; z++) {
		printf("[z = %ld]\n", z);
		for (long y = 0; y < g->height; y++) {
			for (long x = 0; x < g->width; x++)
				printf("%4ld", g->points[grid_getIndex(g, x, y, z)]);
			putchar('\n');
		}
		putchar('\n');
	}
}
