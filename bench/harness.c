/*
 * bench/harness.c — option parsing, worker threads, timing and the JSON
 * report shared by every microbenchmark (see harness.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "harness.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- random numbers -------------------------------------------------------- */

void bench_rng_seed(bench_rng_t *r, uint64_t seed, uint64_t stream)
{
	/* Scramble seed and stream through splitmix itself, so that nearby
	 * seeds and ids do not give overlapping sequences. */
	bench_rng_t s = { seed };
	uint64_t a = bench_rng_next(&s);
	s.state = a ^ (stream * 0xd1b54a32d192ed03ull);
	r->state = bench_rng_next(&s);
}

/* ---- options --------------------------------------------------------------- */

#define BENCH_MAX_THREADS 1024    /* parse limit; the TM may allow fewer */

/* The common options, as a table like the benchmark's own. */
static size_t bench_common_options(bench_common_t *c, bench_option_t *o,
                                   bool *dur_given, bool *ops_given)
{
	size_t n = 0;
	o[n++] = (bench_option_t){ 't', BENCH_OPT_UINT, "thread count",
		"worker threads, logical ids 0..N-1 (default 1)",
		1, BENCH_MAX_THREADS, NULL, &c->threads, NULL };
	o[n++] = (bench_option_t){ 'd', BENCH_OPT_UINT, "duration in milliseconds",
		"run for this many milliseconds (default 1000)",
		1, 24ull * 3600 * 1000, NULL, &c->duration_ms, dur_given };
	o[n++] = (bench_option_t){ 'n', BENCH_OPT_UINT, "operations per thread",
		"run this many operations per thread instead of a duration",
		1, (uint64_t)1 << 40, NULL, &c->ops_per_thread, ops_given };
	o[n++] = (bench_option_t){ 'S', BENCH_OPT_UINT, "seed",
		"random seed (default 1)", 0, UINT64_MAX, NULL, &c->seed, NULL };
	o[n++] = (bench_option_t){ 'H', BENCH_OPT_FLAG, "human-readable output",
		"also print a human-readable line after the JSON", 0, 0, NULL,
		&c->human, NULL };
	o[n++] = (bench_option_t){ 'h', BENCH_OPT_FLAG, "help",
		"print this help", 0, 0, NULL, &c->help, NULL };
	return n;
}

static void bench_print_choices(FILE *f, const char *const *choices, const char *sep)
{
	for (size_t i = 0; choices[i]; i++)
		fprintf(f, "%s%s", i ? sep : "", choices[i]);
}

static void bench_print_usage(FILE *f, const bench_common_t *c, const char *summary,
                              const bench_option_t *opts, size_t nopts,
                              const bench_option_t *common, size_t ncommon)
{
	fprintf(f, "usage: %s [options]\n  %s\n", c->name, summary);
	for (size_t pass = 0; pass < 2; pass++) {
		const bench_option_t *o = pass ? common : opts;
		size_t n = pass ? ncommon : nopts;
		fprintf(f, "%s:\n", pass ? "common options" : "options");
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "  -%c ", o[i].letter);
			int w = 0;
			if (o[i].kind == BENCH_OPT_UINT) {
				w = fprintf(f, "N");
			} else if (o[i].kind == BENCH_OPT_STR) {
				w = fprintf(f, "S");
			} else if (o[i].kind == BENCH_OPT_CHOICE) {
				for (size_t k = 0; o[i].choices[k]; k++)
					w += fprintf(f, "%s%s", k ? "|" : "", o[i].choices[k]);
			}
			fprintf(f, "%*s %s", w < 12 ? 12 - w : 0, "", o[i].help);
			if (o[i].kind == BENCH_OPT_UINT)
				fprintf(f, " [%" PRIu64 "..%" PRIu64 "]", o[i].min, o[i].max);
			fputc('\n', f);
		}
	}
	fprintf(f, "Prints one JSON line per run.  Exit status: 0 verified, 1 "
	        "verification failed, 2 usage error, 77 backend unsupported here.\n"
	        "The TM is configured by the POTM_* environment variables.\n");
}

/* Parse one value into o; returns false after printing the complaint. */
static bool bench_parse_value(const bench_common_t *c, const bench_option_t *o,
                              const char *val)
{
	if (o->kind == BENCH_OPT_STR) {
		if (*val == '\0') {
			fprintf(stderr, "%s: -%c: %s must not be empty\n", c->name, o->letter,
			        o->what);
			return false;
		}
		*(const char **)o->dst = val;
		return true;
	}
	if (o->kind == BENCH_OPT_CHOICE) {
		for (unsigned k = 0; o->choices[k]; k++)
			if (strcmp(val, o->choices[k]) == 0) {
				*(unsigned *)o->dst = k;
				return true;
			}
		fprintf(stderr, "%s: -%c %s: %s must be one of ", c->name, o->letter,
		        val, o->what);
		bench_print_choices(stderr, o->choices, ", ");
		fputc('\n', stderr);
		return false;
	}
	/* strtoull accepts a sign and leading blanks, and "-1" wraps around:
	 * insist on a plain run of digits. */
	const char *p = val;
	bool digits = *p != '\0';
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			digits = false;
	errno = 0;
	unsigned long long v = digits ? strtoull(val, NULL, 10) : 0;
	if (!digits || errno == ERANGE) {
		fprintf(stderr, "%s: -%c %s: %s must be an integer in %" PRIu64 "..%" PRIu64 "\n",
		        c->name, o->letter, val, o->what, o->min, o->max);
		return false;
	}
	if (v < o->min || v > o->max) {
		fprintf(stderr, "%s: -%c %s: %s must be %" PRIu64 "..%" PRIu64 "\n",
		        c->name, o->letter, val, o->what, o->min, o->max);
		return false;
	}
	*(uint64_t *)o->dst = v;
	return true;
}

int bench_parse(bench_common_t *c, const char *summary,
                const bench_option_t *opts, size_t nopts, int argc, char **argv)
{
	bench_option_t common[8];
	bool dur_given = false, ops_given = false;
	size_t ncommon = bench_common_options(c, common, &dur_given, &ops_given);

	c->threads = 1;
	c->duration_ms = 1000;
	c->ops_per_thread = 0;
	c->seed = 1;
	c->human = false;
	c->help = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const bench_option_t *o = NULL;
		if (arg[0] == '-' && arg[1] != '\0') {
			for (size_t k = 0; k < nopts && !o; k++)
				if (opts[k].letter == arg[1])
					o = &opts[k];
			for (size_t k = 0; k < ncommon && !o; k++)
				if (common[k].letter == arg[1])
					o = &common[k];
		}
		if (o == NULL || (o->kind == BENCH_OPT_FLAG && arg[2] != '\0')) {
			if (arg[0] == '-')
				fprintf(stderr, "%s: unknown option %s\n", c->name, arg);
			else
				fprintf(stderr, "%s: unexpected argument '%s' (options only)\n",
				        c->name, arg);
			bench_print_usage(stderr, c, summary, opts, nopts, common, ncommon);
			return BENCH_EXIT_USAGE;
		}
		if (o->given)
			*o->given = true;
		if (o->kind == BENCH_OPT_FLAG) {
			*(bool *)o->dst = true;
			continue;
		}
		const char *val = arg[2] ? arg + 2 : NULL;   /* -u20 or -u 20 */
		if (val == NULL) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: -%c needs a value (%s)\n", c->name,
				        o->letter, o->what);
				return BENCH_EXIT_USAGE;
			}
			val = argv[++i];
		}
		if (!bench_parse_value(c, o, val))
			return BENCH_EXIT_USAGE;
	}
	if (c->help) {
		bench_print_usage(stdout, c, summary, opts, nopts, common, ncommon);
		return BENCH_EXIT_OK;
	}
	if (dur_given && ops_given)
		return bench_usage_error(c, "-d and -n exclude each other: run for a "
		                         "duration or for a number of operations");
	return BENCH_EXIT_OK;
}

int bench_usage_error(const bench_common_t *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", c->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return BENCH_EXIT_USAGE;
}

/* ---- the TM around a run ---------------------------------------------------- */

/* What runs the transactions: the linked potm backend, or libitm when the
 * benchmark was built on GCC's TM (bench/itm.h), with its method. */
static const char *bench_backend_name(void)
{
#ifdef POTM_BENCH_ITM
	static char name[64];
	const char *method = getenv("ITM_DEFAULT_METHOD");
	snprintf(name, sizeof name, "libitm-%s", method && *method ? method : "default");
	return name;
#else
	return tm_backend_name();
#endif
}

/* potm's statistics of the run; NULL when potm ran no transaction. */
static const tm_stats_t *bench_potm_stats(const tm_stats_t *s)
{
#ifdef POTM_BENCH_ITM
	(void)s;
	return NULL;
#else
	return s;
#endif
}

int bench_tm_start(const bench_common_t *c)
{
	const char *backend = tm_backend_name();
	if (strcmp(backend, "seq") == 0 && c->threads > 1 && !c->unregistered)
		return bench_usage_error(c, "-t %" PRIu64 ": the seq backend runs one "
		                         "thread only; use -t 1, or a concurrent backend "
		                         "(gl, tl2, ...)", c->threads);
	tm_config_t cfg;
	tm_config_default(&cfg);
	int rc = tm_init(&cfg);
	if (rc == TM_ERR_UNSUPPORTED) {
		fprintf(stderr, "%s: the %s backend cannot run on this machine: %s\n",
		        c->name, backend, tm_last_error());
		return BENCH_EXIT_UNSUPPORTED;
	}
	if (rc != 0) {
		fprintf(stderr, "%s: tm_init failed: %s\n", c->name, tm_last_error());
		return BENCH_EXIT_USAGE;
	}
	unsigned max = tm_current_config()->max_threads;
	if (c->threads > max && !c->unregistered) {
		tm_shutdown();
		return bench_usage_error(c, "-t %" PRIu64 ": thread count must be 1..%u "
		                         "(POTM_MAX_THREADS)", c->threads, max);
	}
	return BENCH_EXIT_OK;
}

int bench_enter_main(const bench_common_t *c)
{
	if (tm_thread_enter(0) != 0) {
		fprintf(stderr, "%s: tm_thread_enter(0): %s\n", c->name, tm_last_error());
		return BENCH_EXIT_FAILED;
	}
	return BENCH_EXIT_OK;
}

void bench_tm_stop(void)
{
	tm_shutdown();
}

/* ---- running the workers ---------------------------------------------------- */

/* The start gate: workers register, report ready and wait; the main thread
 * opens the gate once all are ready (or calls the run off if one failed).
 * Unlike a pthread barrier it copes with a thread that was never created. */
typedef struct bench_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready;        /* workers registered (or failed to) */
	bool open;             /* the run starts */
	bool abandoned;        /* the run is called off: workers just leave */
	char error[256];       /* first registration failure */
} bench_gate_t;

typedef struct bench_run_ctx {
	const bench_common_t *c;
	bench_op_fn op;
	bench_thread_fn enter, leave;
	void *shared;
	bench_gate_t gate;
	int stop;              /* atomic: the duration is over */
} bench_run_ctx_t;

typedef struct bench_worker_arg {
	bench_run_ctx_t *ctx;
	bench_thread_t *self;
} bench_worker_arg_t;

static void *bench_worker(void *p)
{
	bench_worker_arg_t *a = p;
	bench_run_ctx_t *ctx = a->ctx;
	bench_thread_t *self = a->self;
	bench_gate_t *g = &ctx->gate;

	bool registered = ctx->c->unregistered || tm_thread_enter(self->id) == 0;
	pthread_mutex_lock(&g->lock);
	if (!registered && g->error[0] == '\0')
		snprintf(g->error, sizeof g->error, "tm_thread_enter(%u): %s", self->id,
		         tm_last_error());
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open && !g->abandoned)
		pthread_cond_wait(&g->cond, &g->lock);
	bool run = g->open && registered;
	pthread_mutex_unlock(&g->lock);

	if (run) {
		const bench_op_fn op = ctx->op;
		void *const shared = ctx->shared;
		uint64_t budget = ctx->c->ops_per_thread;
		if (ctx->enter)
			ctx->enter(shared, self);
		if (budget) {
			for (uint64_t i = 0; i < budget; i++)
				op(shared, self);
			self->ops = budget;
		} else {
			uint64_t ops = 0;
			while (!__atomic_load_n(&ctx->stop, __ATOMIC_RELAXED)) {
				op(shared, self);
				ops++;
			}
			self->ops = ops;
		}
		if (ctx->leave)
			ctx->leave(shared, self);
	}
	if (registered && !ctx->c->unregistered)
		tm_thread_exit();
	return NULL;
}

static double bench_seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

int bench_run(const bench_common_t *c, bench_op_fn op, void *shared,
              bench_run_result_t *out)
{
	return bench_run_with(c, op, NULL, NULL, shared, out);
}

int bench_run_with(const bench_common_t *c, bench_op_fn op, bench_thread_fn enter,
                   bench_thread_fn leave, void *shared, bench_run_result_t *out)
{
	unsigned n = (unsigned)c->threads;
	memset(out, 0, sizeof *out);
	bench_thread_t *threads = aligned_alloc(64, n * sizeof *threads);
	pthread_t *tids = calloc(n, sizeof *tids);
	bench_worker_arg_t *args = calloc(n, sizeof *args);
	if (threads == NULL || tids == NULL || args == NULL) {
		free(threads);
		free(tids);
		free(args);
		fprintf(stderr, "%s: out of memory for %u threads\n", c->name, n);
		return BENCH_EXIT_FAILED;
	}
	memset(threads, 0, n * sizeof *threads);

	bench_run_ctx_t ctx = { .c = c, .op = op, .enter = enter, .leave = leave,
	                        .shared = shared };
	pthread_mutex_init(&ctx.gate.lock, NULL);
	pthread_cond_init(&ctx.gate.cond, NULL);

	unsigned created = 0;
	int create_err = 0;
	for (unsigned i = 0; i < n; i++) {
		threads[i].id = i;
		bench_rng_seed(&threads[i].rng, c->seed, i + 1);   /* stream 0: set-up */
		args[i] = (bench_worker_arg_t){ &ctx, &threads[i] };
		create_err = pthread_create(&tids[i], NULL, bench_worker, &args[i]);
		if (create_err != 0)
			break;
		created++;
	}

	struct timespec start, end;
	pthread_mutex_lock(&ctx.gate.lock);
	while (ctx.gate.ready < created)
		pthread_cond_wait(&ctx.gate.cond, &ctx.gate.lock);
	bool ok = created == n && ctx.gate.error[0] == '\0';
	if (ok)
		ctx.gate.open = true;
	else
		ctx.gate.abandoned = true;
	clock_gettime(CLOCK_MONOTONIC, &start);
	pthread_cond_broadcast(&ctx.gate.cond);
	pthread_mutex_unlock(&ctx.gate.lock);

	if (ok && c->ops_per_thread == 0) {
		struct timespec until = start;
		until.tv_sec += (time_t)(c->duration_ms / 1000);
		until.tv_nsec += (long)(c->duration_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
			;
		__atomic_store_n(&ctx.stop, 1, __ATOMIC_RELAXED);
	}
	for (unsigned i = 0; i < created; i++)
		pthread_join(tids[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &end);

	int rc = BENCH_EXIT_OK;
	if (created != n) {
		fprintf(stderr, "%s: cannot create worker thread %u of %u: %s\n", c->name,
		        created, n, strerror(create_err));
		rc = BENCH_EXIT_FAILED;
	} else if (!ok) {
		fprintf(stderr, "%s: %s\n", c->name, ctx.gate.error);
		rc = BENCH_EXIT_FAILED;
	} else {
		out->elapsed_s = bench_seconds_between(&start, &end);
		for (unsigned i = 0; i < n; i++) {
			out->ops += threads[i].ops;
			for (unsigned k = 0; k < BENCH_MAX_COUNTERS; k++)
				out->count[k] += threads[i].count[k];
		}
	}
	pthread_cond_destroy(&ctx.gate.cond);
	pthread_mutex_destroy(&ctx.gate.lock);
	free(threads);
	free(tids);
	free(args);
	return rc;
}

/* ---- the report -------------------------------------------------------------- */

static void bench_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void bench_json_kv(FILE *f, const bench_kv_t *kv)
{
	bench_json_string(f, kv->key);
	fputs(": ", f);
	switch (kv->type) {
	case BENCH_KV_U64: fprintf(f, "%" PRIu64, kv->u); break;
	case BENCH_KV_I64: fprintf(f, "%" PRId64, kv->i); break;
	case BENCH_KV_STR: bench_json_string(f, kv->s); break;
	case BENCH_KV_NULL: fputs("null", f); break;
	case BENCH_KV_U64S:
		fputc('[', f);
		for (size_t i = 0; i < kv->n; i++)
			fprintf(f, "%s%" PRIu64, i ? ", " : "", kv->arr[i]);
		fputc(']', f);
		break;
	}
}

static double bench_abort_percent(const tm_stats_t *s)
{
	uint64_t attempts = s->commits + s->cancels + s->aborts;
	return attempts ? 100.0 * (double)s->aborts / (double)attempts : 0.0;
}

void bench_report(const bench_common_t *c, const bench_report_t *r)
{
	FILE *f = stdout;
	const bench_run_result_t *run = r->run;
	double tput = run->elapsed_s > 0 ? (double)run->ops / run->elapsed_s : 0.0;

	fputc('{', f);
	bench_json_kv(f, &BENCH_STR("bench", c->name));
	fputs(", ", f);
	bench_json_kv(f, &BENCH_STR("backend", bench_backend_name()));
	fprintf(f, ", \"threads\": %" PRIu64, c->threads);
	for (size_t i = 0; i < r->nparams; i++) {
		fputs(", ", f);
		bench_json_kv(f, &r->params[i]);
	}
	if (c->ops_per_thread)
		fprintf(f, ", \"duration_ms\": null, \"ops_per_thread\": %" PRIu64,
		        c->ops_per_thread);
	else
		fprintf(f, ", \"duration_ms\": %" PRIu64 ", \"ops_per_thread\": null",
		        c->duration_ms);
	fprintf(f, ", \"seed\": %" PRIu64 ", \"elapsed_s\": %.6f, \"ops\": %" PRIu64
	        ", \"throughput\": %.1f, \"counts\": {", c->seed, run->elapsed_s,
	        run->ops, tput);
	for (size_t i = 0; i < r->ncounts; i++) {
		if (i)
			fputs(", ", f);
		bench_json_kv(f, &r->counts[i]);
	}
	fputs("}, \"stats\": ", f);
	const tm_stats_t *stats = bench_potm_stats(r->stats);
	if (stats)
		tm_stats_print_json(f, stats);
	else
		fputs("null", f);
	fprintf(f, ", \"verified\": %s, \"verify_msg\": ", r->verified ? "true" : "false");
	bench_json_string(f, r->verify_msg);
	fputs("}\n", f);

	if (c->human) {
		fprintf(f, "%s on %s, %" PRIu64 " thread%s,", c->name, bench_backend_name(),
		        c->threads, c->threads == 1 ? "" : "s");
		for (size_t i = 0; i < r->nparams; i++) {
			const bench_kv_t *kv = &r->params[i];
			if (kv->type == BENCH_KV_U64)
				fprintf(f, " %s=%" PRIu64, kv->key, kv->u);
			else if (kv->type == BENCH_KV_I64)
				fprintf(f, " %s=%" PRId64, kv->key, kv->i);
			else if (kv->type == BENCH_KV_STR)
				fprintf(f, " %s=%s", kv->key, kv->s);
		}
		fprintf(f, ": %.3f M tx/s (%" PRIu64 " ops in %.3f s), ", tput / 1e6,
		        run->ops, run->elapsed_s);
		if (stats)
			fprintf(f, "aborts %" PRIu64 " (%.2f%% of attempts), ", stats->aborts,
			        bench_abort_percent(stats));
		fprintf(f, "%s%s\n", r->verified ? "verified" : "VERIFICATION FAILED: ",
		        r->verified ? "" : r->verify_msg);
	}
	fflush(f);
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_lat_merge(bench_lat_t *into, const bench_lat_t *h)
{
	for (unsigned i = 0; i < BENCH_LAT_BUCKETS; i++)
		into->n[i] += h->n[i];
}

uint64_t bench_lat_percentile(const bench_lat_t *h, unsigned pct)
{
	uint64_t total = 0, acc = 0;
	for (unsigned i = 0; i < BENCH_LAT_BUCKETS; i++)
		total += h->n[i];
	for (unsigned b = 0; total && b < BENCH_LAT_BUCKETS; b++) {
		acc += h->n[b];
		if (acc * 100 >= total * pct)
			return b < 16 ? b : ((uint64_t)16 + b % 16) << (b / 16 - 4);
	}
	return 0;
}

int bench_finish(const bench_common_t *c, const bench_kv_t *params, size_t nparams,
                 const bench_kv_t *counts, size_t ncounts, const bench_run_result_t *run,
                 const tm_stats_t *stats, const bench_verdict_t *v)
{
	const bench_report_t report = {
		.params = params, .nparams = nparams, .counts = counts, .ncounts = ncounts,
		.run = run, .stats = stats,
		.verified = !v->failed, .verify_msg = v->failed ? v->msg : "ok",
	};
	bench_report(c, &report);
	if (!v->failed)
		return BENCH_EXIT_OK;
	fprintf(stderr, "%s: verification failed: %s\n", c->name, v->msg);
	return BENCH_EXIT_FAILED;
}

/* ---- verification messages --------------------------------------------------- */

bool bench_fail(bench_verdict_t *v, const char *fmt, ...)
{
	if (!v->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(v->msg, sizeof v->msg, fmt, ap);
		va_end(ap);
		v->failed = true;
	}
	return false;
}
