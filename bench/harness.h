/*
 * bench/harness.h — what every microbenchmark shares.
 *
 *  - Strict option parsing: each benchmark describes its options in a table
 *    (letter, meaning, range); the harness adds the common ones (-t -d -n -S
 *    -H -h), rejects anything malformed or out of range with a message that
 *    names the option and what it allows, and returns exit code 2.
 *  - A per-thread RNG (splitmix64), seeded from -S and the thread's id, so a
 *    run is reproducible from its JSON line.
 *  - The run: N workers with logical ids 0..N-1 register with the TM, meet
 *    at a start barrier, run one operation (one transaction) after another
 *    for -d milliseconds or -n operations each, and unregister.
 *  - The report: one JSON object per run on one line of stdout, with stable
 *    keys, and on request (-H) one human-readable line.
 *
 * A benchmark function follows one life cycle (see intset.c, bank.c):
 * bench_parse → bench_tm_start → set up (registered as thread 0) →
 * tm_stats_reset → bench_run → tm_stats → verify and tear down (thread 0
 * again) → bench_tm_stop → bench_report.  Nothing here keeps global state,
 * so a benchmark function can run once in any process (a dlopen()ed
 * library included).
 */
#ifndef POTM_BENCH_HARNESS_H
#define POTM_BENCH_HARNESS_H

#include <potm/tm.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes of every benchmark. */
#define BENCH_EXIT_OK          0
#define BENCH_EXIT_FAILED      1   /* verification failed, or a run-time error */
#define BENCH_EXIT_USAGE       2   /* bad option, or a configuration that cannot run */
#define BENCH_EXIT_UNSUPPORTED 77  /* this machine cannot run the backend (skip) */

/* ---- random numbers -------------------------------------------------------- */

/* splitmix64: one add and three multiply-xorshifts per number, and every
 * seed, 0 included, gives a full-period stream. */
typedef struct bench_rng {
	uint64_t state;
} bench_rng_t;

static inline uint64_t bench_rng_next(bench_rng_t *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) for n >= 1, by multiply-shift (no division, and no
 * modulo bias worth speaking of for n far below 2^64). */
static inline uint64_t bench_rng_below(bench_rng_t *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)bench_rng_next(r) * n) >> 64);
}

/* Independent streams for one seed: stream is the thread id (or any tag). */
void bench_rng_seed(bench_rng_t *r, uint64_t seed, uint64_t stream);

/* ---- options --------------------------------------------------------------- */

typedef enum bench_opt_kind {
	BENCH_OPT_UINT,    /* unsigned integer in [min, max]; dst: uint64_t */
	BENCH_OPT_CHOICE,  /* one of choices; dst: unsigned (the index) */
	BENCH_OPT_FLAG,    /* no value; dst: bool, set to true */
	BENCH_OPT_STR,     /* a non-empty string; dst: const char *, argv's */
} bench_opt_kind_t;

typedef struct bench_option {
	char letter;
	bench_opt_kind_t kind;
	const char *what;              /* "update percentage": for messages */
	const char *help;              /* one line of usage, default included */
	uint64_t min, max;             /* BENCH_OPT_UINT */
	const char *const *choices;    /* BENCH_OPT_CHOICE, NULL-terminated */
	void *dst;
	bool *given;                   /* optional: set when the option appears */
} bench_option_t;

/* The options every benchmark has. */
typedef struct bench_common {
	const char *name;          /* "intset": prefix of every message */
	uint64_t threads;          /* -t */
	uint64_t duration_ms;      /* -d, when ops_per_thread == 0 */
	uint64_t ops_per_thread;   /* -n; 0 = run for duration_ms */
	uint64_t seed;             /* -S */
	bool human;                /* -H */
	bool help;                 /* -h was given: usage printed, exit 0 */
	bool unregistered;         /* set by the program: its workers call no TM
	                            * function, so they do not register (and
	                            * seq's one-thread limit does not apply) */
} bench_common_t;

/* Parse argv (argv[0] is the program name) against the common options and
 * the benchmark's own.  Returns BENCH_EXIT_OK, or BENCH_EXIT_USAGE after
 * printing what is wrong and the usage on stderr.  With -h it prints the
 * usage on stdout, sets c->help and returns BENCH_EXIT_OK. */
int bench_parse(bench_common_t *c, const char *summary,
                const bench_option_t *opts, size_t nopts, int argc, char **argv);

/* Report a bad combination of options found after parsing (the message
 * names the options); returns BENCH_EXIT_USAGE. */
int bench_usage_error(const bench_common_t *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the TM around a run ---------------------------------------------------- */

/* tm_init with the defaults plus the POTM_* environment, after checking
 * that the backend can run c->threads threads.  Returns BENCH_EXIT_OK,
 * BENCH_EXIT_USAGE (seq with threads > 1, too many threads, bad POTM_*
 * setting) or BENCH_EXIT_UNSUPPORTED, with the reason on stderr. */
int bench_tm_start(const bench_common_t *c);

/* Register the calling thread as logical id 0 for set-up or verification;
 * on failure prints why and returns BENCH_EXIT_FAILED. */
int bench_enter_main(const bench_common_t *c);

void bench_tm_stop(void);

/* ---- running the workers ---------------------------------------------------- */

#define BENCH_MAX_COUNTERS 6

/* One worker's state.  Each worker writes only its own, and the array is
 * padded so that no two workers share a cache line. */
typedef struct bench_thread {
	unsigned id;                          /* logical id 0..threads-1 */
	bench_rng_t rng;
	uint64_t ops;                         /* operations completed */
	uint64_t count[BENCH_MAX_COUNTERS];   /* the benchmark's own counters */
} __attribute__((aligned(64))) bench_thread_t;

/* One operation: normally exactly one transaction. */
typedef void (*bench_op_fn)(void *shared, bench_thread_t *self);

typedef struct bench_run_result {
	double elapsed_s;      /* from the start barrier to the last join */
	uint64_t ops;          /* all workers' operations */
	uint64_t count[BENCH_MAX_COUNTERS];   /* the counters, summed */
} bench_run_result_t;

/* Start c->threads workers, each calling op(shared, self) until the time or
 * the operation budget is spent.  Returns BENCH_EXIT_OK, or
 * BENCH_EXIT_FAILED (with the reason on stderr) if a thread could not be
 * created or registered; then no operation has run. */
int bench_run(const bench_common_t *c, bench_op_fn op, void *shared,
              bench_run_result_t *out);

/* The same, with per-worker hooks: enter(shared, self) after the start
 * gate, before the first operation, and leave(shared, self) after the
 * last one, before the worker unregisters from the TM (for layers with
 * their own thread registration: Doppel's dp_thread_enter/exit).  Either
 * may be NULL.  The time spent in leave is part of elapsed_s. */
typedef void (*bench_thread_fn)(void *shared, bench_thread_t *self);
int bench_run_with(const bench_common_t *c, bench_op_fn op, bench_thread_fn enter,
                   bench_thread_fn leave, void *shared, bench_run_result_t *out);

/* ---- latencies ----------------------------------------------------------------
 * A histogram of nanoseconds: one bucket per ns below 16, then 16 per power
 * of two, so a percentile is reported within 1/16 of its value. */

#define BENCH_LAT_BUCKETS 640   /* up to 2^40 ns */

typedef struct bench_lat {
	uint32_t n[BENCH_LAT_BUCKETS];
} bench_lat_t;

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

static inline void bench_lat_add(bench_lat_t *h, uint64_t ns)
{
	unsigned b = (unsigned)ns;
	if (ns >= 16) {
		unsigned log = 63 - (unsigned)__builtin_clzll(ns);   /* >= 4 */
		b = log * 16 + (unsigned)((ns >> (log - 4)) & 15);
	}
	h->n[b < BENCH_LAT_BUCKETS ? b : BENCH_LAT_BUCKETS - 1]++;
}

/* into += h (the workers' histograms into one). */
void bench_lat_merge(bench_lat_t *into, const bench_lat_t *h);

/* The pct-th percentile (the lower bound of its bucket); 0 if empty. */
uint64_t bench_lat_percentile(const bench_lat_t *h, unsigned pct);

/* ---- the report -------------------------------------------------------------- */

typedef enum bench_kv_type {
	BENCH_KV_U64, BENCH_KV_I64, BENCH_KV_STR, BENCH_KV_NULL,
	BENCH_KV_U64S          /* an array of n uint64_t: a time series */
} bench_kv_type_t;

/* One key of the JSON line: a parameter or a counter. */
typedef struct bench_kv {
	const char *key;
	bench_kv_type_t type;
	uint64_t u;
	int64_t i;
	const char *s;
	const uint64_t *arr;   /* BENCH_KV_U64S */
	size_t n;
} bench_kv_t;

#define BENCH_U64(k, v) ((bench_kv_t){ .key = (k), .type = BENCH_KV_U64, .u = (v) })
#define BENCH_I64(k, v) ((bench_kv_t){ .key = (k), .type = BENCH_KV_I64, .i = (v) })
#define BENCH_STR(k, v) ((bench_kv_t){ .key = (k), .type = BENCH_KV_STR, .s = (v) })
#define BENCH_NULL(k)   ((bench_kv_t){ .key = (k), .type = BENCH_KV_NULL })
#define BENCH_U64S(k, a, len) \
	((bench_kv_t){ .key = (k), .type = BENCH_KV_U64S, .arr = (a), .n = (len) })

typedef struct bench_report {
	const bench_kv_t *params;      /* the benchmark's parameters */
	size_t nparams;
	const bench_kv_t *counts;      /* its result counters ("counts": {...}) */
	size_t ncounts;
	const bench_run_result_t *run;
	const tm_stats_t *stats;
	bool verified;
	const char *verify_msg;        /* "ok" or why verification failed */
} bench_report_t;

/* Print the run's JSON line on stdout (and the -H line).  The keys, in
 * order: bench, backend, threads, <params>, duration_ms, ops_per_thread,
 * seed, elapsed_s, ops, throughput, counts, stats, verified, verify_msg. */
void bench_report(const bench_common_t *c, const bench_report_t *r);

/* ---- verification messages --------------------------------------------------- */

/* A fixed buffer for "why verification failed"; the first failure wins. */
typedef struct bench_verdict {
	bool failed;
	char msg[256];
} bench_verdict_t;

/* The end of every benchmark: bench_report with the verdict, and the
 * failure on stderr too.  Returns BENCH_EXIT_OK or BENCH_EXIT_FAILED.
 * BENCH_FINISH takes the params and counts arrays and counts them. */
int bench_finish(const bench_common_t *c, const bench_kv_t *params, size_t nparams,
                 const bench_kv_t *counts, size_t ncounts, const bench_run_result_t *run,
                 const tm_stats_t *stats, const bench_verdict_t *v);
#define BENCH_FINISH(c, params, counts, run, stats, v)                          \
	bench_finish((c), (params), sizeof(params) / sizeof((params)[0]), (counts), \
	             sizeof(counts) / sizeof((counts)[0]), (run), (stats), (v))

/* Record a failure (if none is recorded yet); returns false so that a check
 * can read `return bench_fail(v, ...)`. */
bool bench_fail(bench_verdict_t *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the registry -----------------------------------------------------------
 * BENCH_REGISTER(name, fn) in a benchmark's source makes fn reachable as
 * potm_bench_main("name", ...) in the shared benchmark library: the entry
 * goes to a linker section that registry.c walks, so a new benchmark needs
 * no edit anywhere else. */

typedef struct bench_entry {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} bench_entry_t;

#define BENCH_REGISTER(bname, bfn, bsummary)                                  \
	static const bench_entry_t bench_entry_##bfn = {                        \
		.name = (bname), .fn = (bfn), .summary = (bsummary) };          \
	static const bench_entry_t *const bench_entry_ptr_##bfn                 \
		__attribute__((used, section("potm_bench_registry"),            \
		               aligned(sizeof(void *)))) = &bench_entry_##bfn

#endif /* POTM_BENCH_HARNESS_H */
