/*
 * tests/regression/store/store_test.h — what the record store's tests
 * share: starting the library (a skip where the backend cannot run),
 * a random generator, running registered worker threads.
 */
#ifndef POTM_STORE_TEST_H
#define POTM_STORE_TEST_H

#include <potm/store.h>
#include <potm/tm.h>

#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_init.h"

/* Under ASan or an emulator (POTM_TEST_EMULATED, tests/CMakeLists.txt):
 * fewer operations, the same checks. */
#if defined(__SANITIZE_ADDRESS__) || defined(POTM_TEST_EMULATED)
#define STORE_TEST_SCALE 4
#else
#define STORE_TEST_SCALE 1
#endif

static inline bool single_thread_backend(void)
{
	return strcmp(POTM_BACKEND_NAME, "seq") == 0;
}

/* tm_init, or exit 77 (skipped) where this machine cannot run the
 * backend. */
static inline void store_test_init(void)
{
	test_tm_init(NULL);
}

/* tm_init and register the calling thread as 0. */
static inline void store_test_start(void)
{
	store_test_init();
	ck_assert_int_eq(tm_thread_enter(0), 0);
}

static inline void store_test_stop(void)
{
	tm_thread_exit();
	tm_shutdown();
}

static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A bijective 64-bit mix: payloads that are a function of their key. */
static inline uint64_t test_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ull;
	x = (x ^ (x >> 27)) * 0x81dadef4bc2dd44dull;
	return x ^ (x >> 33);
}

#endif /* POTM_STORE_TEST_H */
