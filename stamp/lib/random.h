/*
 * random.h — the pseudo-random generator of the STAMP interface: a
 * Mersenne Twister (MT19937, 32-bit outputs) whose state lives in the
 * caller's random_t, so each thread or client can own a stream.
 *
 * Every workload is a fixed function of its seeds: the same seed gives the
 * same sequence on every platform (the reference MT19937 sequence).
 */
#ifndef RANDOM_H
#define RANDOM_H 1

#include "tm.h"

#define RANDOM_MT_N 624
#define RANDOM_DEFAULT_SEED 0UL

typedef struct random {
	unsigned long mt[RANDOM_MT_N];
	long mti;
} random_t;

/* A generator seeded with RANDOM_DEFAULT_SEED. */
random_t *random_alloc(void);
void random_free(random_t *randomPtr);

/* Restart the sequence from seed (the low 32 bits count). */
void random_seed(random_t *randomPtr, unsigned long seed);

/* The next 32-bit output, in [0, 2^32). */
unsigned long random_generate(random_t *randomPtr);

/* Allocation in parallel code is plain malloc natively. */
#define Prandom_alloc()          random_alloc()
#define Prandom_free(r)          random_free(r)

#define PRANDOM_ALLOC()          Prandom_alloc()
#define PRANDOM_FREE(r)          Prandom_free(r)
#define PRANDOM_SEED(r, s)       random_seed((r), (s))
#define PRANDOM_GENERATE(r)      random_generate(r)

#endif /* RANDOM_H */
