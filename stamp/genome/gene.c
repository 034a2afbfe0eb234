/*
 * gene.c — see gene.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gene.h"

static void outOfMemory(void)
{
	fprintf(stderr, "genome: out of memory\n");
	exit(1);
}

gene_t *gene_create(long length, random_t *randomPtr)
{
	static const char nucleotides[4] = { 'a', 'c', 'g', 't' };
	gene_t *g = malloc(sizeof *g);
	if (g == NULL || (g->contents = malloc(length + 1)) == NULL)
		outOfMemory();
	g->length = length;
	for (long i = 0; i < length; i++)
		g->contents[i] = nucleotides[random_generate(randomPtr) % 4];
	g->contents[length] = '\0';
	return g;
}

void gene_free(gene_t *g)
{
	free(g->contents);
	free(g);
}

segments_t *segments_create(gene_t *genePtr, long length, long minNum,
                            random_t *randomPtr)
{
	long numStart = genePtr->length - length + 1;
	segments_t *s = malloc(sizeof *s);
	if (s == NULL)
		outOfMemory();
	s->length = length;
	s->minNum = minNum;
	s->startBitmapPtr = bitmap_alloc(numStart);
	/* The gap filling adds at most one segment per length - 1 positions,
	 * plus the two ends. */
	long maxNum = minNum + numStart / (length > 1 ? length - 1 : 1) + 2;
	s->contentsPtr = vector_alloc(maxNum);
	s->storage = malloc((size_t)maxNum * (length + 1));
	if (s->startBitmapPtr == NULL || s->contentsPtr == NULL || s->storage == NULL)
		outOfMemory();

	long numSegment = 0;
	/* Appends the segment starting at gene position start. */
#define ADD_SEGMENT(start)                                                     \
	do {                                                                   \
		char *seg = s->storage + (size_t)numSegment * (length + 1);     \
		memcpy(seg, genePtr->contents + (start), length);              \
		seg[length] = '\0';                                            \
		vector_pushBack(s->contentsPtr, seg);                          \
		bitmap_set(s->startBitmapPtr, (start));                        \
		numSegment++;                                                  \
	} while (0)

	for (long i = 0; i < minNum; i++) {
		long start = (long)(random_generate(randomPtr) % (unsigned long)numStart);
		ADD_SEGMENT(start);
	}
	if (!bitmap_isSet(s->startBitmapPtr, 0))
		ADD_SEGMENT(0);
	/* From each start, the next one must lie within length - 1
	 * positions (so the two overlap); where none does, add one at the
	 * farthest such position.  This also covers the last position. */
	long i = 0;
	while (i < numStart - 1) {
		long limit = i + length - 1 < numStart - 1 ? i + length - 1 : numStart - 1;
		long next = -1;
		for (long j = i + 1; j <= limit; j++) {
			if (bitmap_isSet(s->startBitmapPtr, j)) {
				next = j;
				break;
			}
		}
		if (next < 0) {
			next = limit;
			ADD_SEGMENT(next);
		}
		i = next;
	}
#undef ADD_SEGMENT
	return s;
}

void segments_free(segments_t *s)
{
	vector_free(s->contentsPtr);
	bitmap_free(s->startBitmapPtr);
	free(s->storage);
	free(s);
}
