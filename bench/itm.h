/*
 * bench/itm.h — a benchmark on GCC's own transactional memory (libitm)
 * instead of a potm backend, for comparison: the same source, compiled
 * with -fgnu-tm -DPOTM_BENCH_ITM (bench/itm.cmake).
 *
 * The transaction block becomes a __transaction_relaxed block and accesses
 * become plain C: GCC instruments them itself, and libitm runs them with
 * the method ITM_DEFAULT_METHOD names (ml_wt, its multi-lock write-through
 * STM; gl_wt; serialirr; htm where the CPU has it).  tm_malloc and tm_free
 * become malloc and free, which GCC makes transactional (allocation undone
 * on abort, frees deferred to commit).
 *
 * Functions that run inside transactions and are called through pointers
 * (a structure's operations) are marked POTM_BENCH_TX_FN: GCC then builds
 * a transactional clone of each and registers it, so that an indirect call
 * inside a transaction finds the clone; an unmarked callee would make the
 * transaction irrevocable (serial), which is not what we want to measure.
 * Relaxed, not atomic: an atomic transaction refuses at compile time to
 * call through a pointer whose type is not transaction_safe, or anything
 * that might print (a failed check, out of memory).  Both run the same
 * instrumented code; a relaxed one only turns irrevocable if it executes
 * something unsafe, which these benchmarks do only on the way to an
 * error.  Locals that cross the block need not be volatile
 * (POTM_BENCH_TX_LOCAL): nothing longjmps back.
 *
 * The potm library is still linked (gl), for the harness's thread
 * registration only; no transaction goes through it, so the run reports
 * no potm statistics ("stats": null).
 */
#ifndef POTM_BENCH_ITM_H
#define POTM_BENCH_ITM_H

#include <stdlib.h>

#undef TM_BEGIN
#undef TM_END
#undef TM_LOAD
#undef TM_STORE
#define TM_BEGIN() __transaction_relaxed {
#define TM_END() }
#define TM_LOAD(p) (*(p))
#define TM_STORE(p, v) ((void)(*(p) = (v)))
#define tm_malloc malloc
#define tm_free free

#define POTM_BENCH_TX_FN __attribute__((transaction_callable))
#define POTM_BENCH_TX_LOCAL

#endif /* POTM_BENCH_ITM_H */
