/*
 * bitmap.h — fixed-size bit set of the STAMP interface (private data only,
 * no transactional flavour).
 */
#ifndef BITMAP_H
#define BITMAP_H 1

#include "tm.h"
#include "types.h"

typedef struct bitmap {
	long numBit;
	long numWord;
	unsigned long *bits;
} bitmap_t;

bitmap_t *bitmap_alloc(long numBit);      /* all bits clear */
void bitmap_free(bitmap_t *bitmapPtr);
/* set/clear return FALSE if i is out of range. */
bool_t bitmap_set(bitmap_t *bitmapPtr, long i);
bool_t bitmap_clear(bitmap_t *bitmapPtr, long i);
void bitmap_clearAll(bitmap_t *bitmapPtr);
bool_t bitmap_isSet(bitmap_t *bitmapPtr, long i);     /* FALSE if out of range */
bool_t bitmap_isClear(bitmap_t *bitmapPtr, long i);   /* FALSE if out of range */
/* The first set/clear bit at index >= startIndex, or -1. */
long bitmap_findSet(bitmap_t *bitmapPtr, long startIndex);
long bitmap_findClear(bitmap_t *bitmapPtr, long startIndex);
long bitmap_getNumSet(bitmap_t *bitmapPtr);
long bitmap_getNumClear(bitmap_t *bitmapPtr);
void bitmap_copy(bitmap_t *dstPtr, bitmap_t *srcPtr); /* same numBit */
void bitmap_toggleAll(bitmap_t *bitmapPtr);

#define Pbitmap_alloc(n)        bitmap_alloc(n)
#define Pbitmap_free(b)         bitmap_free(b)
#define PBITMAP_ALLOC(n)        Pbitmap_alloc(n)
#define PBITMAP_FREE(b)         Pbitmap_free(b)

#endif /* BITMAP_H */
