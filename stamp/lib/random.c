/*
 * random.c — MT19937 (Matsumoto & Nishimura, 1998), written from the
 * published recurrence: a twisted generalized feedback shift register over
 * 624 words, seeded with the Knuth-style multiplier 1812433253, outputs
 * tempered by four shift-and-mask steps.
 */
#include <stdlib.h>

#include "random.h"

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfUL    /* the twist matrix's last row */
#define MT_UPPER_MASK 0x80000000UL  /* most significant bit */
#define MT_LOWER_MASK 0x7fffffffUL  /* least significant 31 bits */
#define MT_WORD_MASK 0xffffffffUL   /* unsigned long may be wider */

void random_seed(random_t *r, unsigned long seed)
{
	r->mt[0] = seed & MT_WORD_MASK;
	for (long i = 1; i < RANDOM_MT_N; i++) {
		unsigned long prev = r->mt[i - 1];
		r->mt[i] = (1812433253UL * (prev ^ (prev >> 30)) + (unsigned long)i) &
		           MT_WORD_MASK;
	}
	r->mti = RANDOM_MT_N;   /* twist before the first output */
}

/* Regenerate all 624 words of state at once. */
static void mt_twist(random_t *r)
{
	unsigned long *mt = r->mt;
	for (long k = 0; k < RANDOM_MT_N; k++) {
		unsigned long y = (mt[k] & MT_UPPER_MASK) |
		                  (mt[(k + 1) % RANDOM_MT_N] & MT_LOWER_MASK);
		mt[k] = mt[(k + MT_M) % RANDOM_MT_N] ^ (y >> 1) ^
		        ((y & 1UL) ? MT_MATRIX_A : 0UL);
	}
	r->mti = 0;
}

unsigned long random_generate(random_t *r)
{
	if (r->mti >= RANDOM_MT_N)
		mt_twist(r);
	unsigned long y = r->mt[r->mti++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680UL;
	y ^= (y << 15) & 0xefc60000UL;
	y ^= y >> 18;
	return y & MT_WORD_MASK;
}

random_t *random_alloc(void)
{
	random_t *r = malloc(sizeof *r);
	if (r != NULL)
		random_seed(r, RANDOM_DEFAULT_SEED);
	return r;
}

void random_free(random_t *r)
{
	free(r);
}
