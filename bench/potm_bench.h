/*
 * bench/potm_bench.h — entry points of the microbenchmarks.
 *
 * Each benchmark is a function with the signature of main(): argv[0] is the
 * program name, the rest are its options.  It initializes and shuts down the
 * TM itself, prints one JSON line per run on stdout and returns the exit
 * status (0 verified, 1 verification failed, 2 usage error, 77 backend not
 * supported on this machine).  A process may run one benchmark.
 *
 * The shared library libpotm-bench-<backend>.so exports potm_bench_main for
 * the Python package, which dlopen()s it in a worker process.
 */
#ifndef POTM_BENCH_H
#define POTM_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define POTM_BENCH_EXPORT __attribute__((visibility("default")))
#else
#define POTM_BENCH_EXPORT
#endif

/* argv[0] names the benchmark ("intset", "bank", ...); the rest are its
 * options.  An unknown name prints the known ones and returns 2. */
POTM_BENCH_EXPORT int potm_bench_main(int argc, char **argv);

POTM_BENCH_EXPORT int potm_bench_intset(int argc, char **argv);
POTM_BENCH_EXPORT int potm_bench_bank(int argc, char **argv);
POTM_BENCH_EXPORT int potm_bench_doppel(int argc, char **argv);
POTM_BENCH_EXPORT int potm_bench_rubis(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* POTM_BENCH_H */
