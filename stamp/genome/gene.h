/*
 * gene.h — genome's input: a random gene over {a,c,g,t} and the segments
 * sampled from it.
 */
#ifndef GENOME_GENE_H
#define GENOME_GENE_H 1

#include "bitmap.h"
#include "random.h"
#include "vector.h"

typedef struct gene {
	long length;
	char *contents;        /* NUL-terminated */
} gene_t;

/* length characters, each "acgt"[rand % 4]. */
gene_t *gene_create(long length, random_t *randomPtr);
void gene_free(gene_t *genePtr);

typedef struct segments {
	long length;           /* characters per segment */
	long minNum;           /* segments requested */
	vector_t *contentsPtr; /* char * of every segment, duplicates included */
	char *storage;         /* all segment strings, length + 1 bytes each */
	bitmap_t *startBitmapPtr;   /* gene positions some segment starts at */
} segments_t;

/* At least minNum segments of the given length starting at random
 * positions, then one more at every gap longer than length - 1 positions
 * (and at position 0 and the last position), so that consecutive segments
 * overlap and the whole gene is covered. */
segments_t *segments_create(gene_t *genePtr, long length, long minNum,
                            random_t *randomPtr);
void segments_free(segments_t *segmentsPtr);

#endif /* GENOME_GENE_H */
