/*
 * bitmap.c — see bitmap.h.  Bits beyond numBit in the last word are kept
 * clear, so counting and toggling can work a word at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"

#define WORD_BITS ((long)(8 * sizeof(unsigned long)))

bitmap_t *bitmap_alloc(long numBit)
{
	bitmap_t *b = malloc(sizeof *b);
	if (b == NULL)
		return NULL;
	b->numBit = numBit > 0 ? numBit : 0;
	b->numWord = (b->numBit + WORD_BITS - 1) / WORD_BITS;
	b->bits = calloc(b->numWord > 0 ? b->numWord : 1, sizeof *b->bits);
	if (b->bits == NULL) {
		free(b);
		return NULL;
	}
	return b;
}

void bitmap_free(bitmap_t *b)
{
	if (b == NULL)
		return;
	free(b->bits);
	free(b);
}

bool_t bitmap_set(bitmap_t *b, long i)
{
	if (i < 0 || i >= b->numBit)
		return FALSE;
	b->bits[i / WORD_BITS] |= 1UL << (i % WORD_BITS);
	return TRUE;
}

bool_t bitmap_clear(bitmap_t *b, long i)
{
	if (i < 0 || i >= b->numBit)
		return FALSE;
	b->bits[i / WORD_BITS] &= ~(1UL << (i % WORD_BITS));
	return TRUE;
}

void bitmap_clearAll(bitmap_t *b)
{
	memset(b->bits, 0, b->numWord * sizeof *b->bits);
}

bool_t bitmap_isSet(bitmap_t *b, long i)
{
	return i >= 0 && i < b->numBit &&
	       (b->bits[i / WORD_BITS] >> (i % WORD_BITS) & 1UL) != 0;
}

bool_t bitmap_isClear(bitmap_t *b, long i)
{
	return i >= 0 && i < b->numBit &&
	       (b->bits[i / WORD_BITS] >> (i % WORD_BITS) & 1UL) == 0;
}

long bitmap_findSet(bitmap_t *b, long startIndex)
{
	for (long i = startIndex < 0 ? 0 : startIndex; i < b->numBit; i++)
		if (bitmap_isSet(b, i))
			return i;
	return -1;
}

long bitmap_findClear(bitmap_t *b, long startIndex)
{
	for (long i = startIndex < 0 ? 0 : startIndex; i < b->numBit; i++)
		if (bitmap_isClear(b, i))
			return i;
	return -1;
}

long bitmap_getNumSet(bitmap_t *b)
{
	long n = 0;
	for (long w = 0; w < b->numWord; w++)
		n += __builtin_popcountl(b->bits[w]);
	return n;
}

long bitmap_getNumClear(bitmap_t *b)
{
	return b->numBit - bitmap_getNumSet(b);
}

void bitmap_copy(bitmap_t *dst, bitmap_t *src)
{
	memcpy(dst->bits, src->bits, src->numWord * sizeof *src->bits);
}

void bitmap_toggleAll(bitmap_t *b)
{
	for (long w = 0; w < b->numWord; w++)
		b->bits[w] = ~b->bits[w];
	long tail = b->numBit % WORD_BITS;
	if (tail != 0)
		b->bits[b->numWord - 1] &= (1UL << tail) - 1;
}
