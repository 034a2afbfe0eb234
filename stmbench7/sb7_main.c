/*
 * stmbench7/sb7_main.c — the STMBench7 driver: options, the operation mix,
 * worker threads, the invariant check, the report.
 *
 * The main thread builds the structure, starts the workers, lets them run
 * for the duration (or until each has done --ops operations), joins them,
 * checks the whole structure and prints one JSON line on stdout (and, with
 * --table, a human-readable table on stderr).  Exit status: 0 if the
 * invariants hold, 1 if they do not, 2 for a usage or setup error, 77 if
 * this machine cannot run the backend (a test then counts as skipped).
 *
 * Each operation is one transaction.  Its random choices come from the
 * thread's generator, which is restored at the start of every attempt: a
 * retried operation makes the same choices, so the sequence of operations
 * a thread commits does not depend on how often it aborted (the
 * deterministic backends need that, and so do reproducible runs).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <potm/stats.h>

#include "sb7_check.h"
#include "sb7_ops.h"
#include "sb7_struct.h"
#include "sb7_tm.h"

__thread unsigned long sb7_stores_by_this_thread __attribute__((tls_model("initial-exec")));

#if defined(SB7_LOCK_COARSE)
#define SB7_VARIANT_NAME "coarse"
#elif defined(SB7_LOCK_MEDIUM)
#define SB7_VARIANT_NAME "medium"
#endif

#define SB7_EXIT_VIOLATION 1
#define SB7_EXIT_USAGE 2
#define SB7_EXIT_UNSUPPORTED 77

/* ---- options ------------------------------------------------------------------- */

typedef struct sb7_options {
	const char *workload;        /* "r", "rw", "w" */
	int read_only_percent;       /* from the workload, or -p */
	bool long_traversals;        /* -t */
	bool structural_mods;        /* -m */
	bool op11;                   /* -r: OP11 writes the manual */
	bool serial_hint;            /* --serial-hint: tm_hint_serial for the
	                                long update traversals */
	unsigned threads;            /* -n */
	long duration_ms;            /* -d */
	long ops_per_thread;         /* --ops: run this many instead of -d */
	uint64_t seed;               /* --seed */
	const char *size;            /* -s */
	bool cycle;                  /* --cycle: every operation in turn */
	const char *only;            /* --only: comma-separated operation names */
	const char *inject_fault;    /* --inject-fault: break the structure (tests) */
	bool table;                  /* --table */
} sb7_options_t;

static void sb7_usage(FILE *f, const char *prog)
{
	fprintf(f,
	        "usage: %s [options]\n"
	        "  -w, --workload r|rw|w       read-dominated (90%% read-only), mixed (60%%),\n"
	        "                              write-dominated (10%%); default rw\n"
	        "  -p, --read-only-percent N   override the workload's read-only share (0..100)\n"
	        "  -t, --long-traversals B     long traversals on/off (default on)\n"
	        "  -m, --structural-mods B     structural modifications on/off (default on)\n"
	        "  -r, --op11 B                OP11 (writes the 1 MB manual) on/off (default on)\n"
	        "      --serial-hint B         start long update traversals serially\n"
	        "                              (tm_hint_serial; default on; serial mode\n"
	        "                              itself is POTM_SERIAL, on here)\n"
	        "  -n, --threads N             worker threads (default 1)\n"
	        "  -d, --duration MS           run for MS milliseconds (default 10000)\n"
	        "      --ops N                 instead of -d: each thread runs N operations\n"
	        "  -s, --size tiny|small|medium|big   structure size (default small; tiny is\n"
	        "                              a reduced size for tests)\n"
	        "      --seed N                random seed (default 1)\n"
	        "      --cycle                 run the enabled operations in turn, not at random\n"
	        "      --only OP[,OP...]       run only these operations, equally often (for\n"
	        "                              profiling one operation: --only T3c)\n"
	        "      --table                 print a human-readable table on stderr\n"
	        "      --inject-fault link|date|manual   break one invariant after the run (tests\n"
	        "                              that the check notices: exit status 1)\n"
	        "  -h, --help\n"
	        "B is true|false|on|off|1|0.  One JSON line per run goes to stdout.\n"
	        "TM settings come from POTM_* variables (README); this program's own\n"
	        "defaults: POTM_SERIAL=1, POTM_SEQUENCER=weighted (each operation weighs\n"
	        "its run time; round-robin under POTM_MODE=destm).\n",
	        prog);
}

static void sb7_bad_option(const char *prog, const char *flag, const char *value, const char *allowed)
{
	fprintf(stderr, "%s: bad value '%s' for %s; allowed: %s\n", prog, value, flag, allowed);
	exit(SB7_EXIT_USAGE);
}

static bool sb7_parse_bool(const char *prog, const char *flag, const char *v)
{
	if (!strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes"))
		return true;
	if (!strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no"))
		return false;
	sb7_bad_option(prog, flag, v, "true, false, on, off, 1, 0");
	return false;
}

static long sb7_parse_long(const char *prog, const char *flag, const char *v, long lo, long hi)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || *v == '\0' || *end != '\0' || n < lo || n > hi) {
		char allowed[80];
		snprintf(allowed, sizeof allowed, "an integer in %ld..%ld", lo, hi);
		sb7_bad_option(prog, flag, v, allowed);
	}
	return n;
}

static void sb7_parse_options(int argc, char **argv, sb7_options_t *o)
{
	const char *prog = argv[0];
	*o = (sb7_options_t){
		.workload = "rw",
		.read_only_percent = -1,
		.long_traversals = true,
		.structural_mods = true,
		.op11 = true,
		.serial_hint = true,
		.threads = 1,
		.duration_ms = 10000,
		.seed = 1,
		.size = "small",
	};
	enum { OPT_OPS = 256, OPT_SEED, OPT_CYCLE, OPT_TABLE, OPT_ONLY, OPT_INJECT, OPT_HINT };
	static const struct option longopts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "read-only-percent", required_argument, NULL, 'p' },
		{ "long-traversals", required_argument, NULL, 't' },
		{ "structural-mods", required_argument, NULL, 'm' },
		{ "op11", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, OPT_OPS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "cycle", no_argument, NULL, OPT_CYCLE },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "inject-fault", required_argument, NULL, OPT_INJECT },
		{ "table", no_argument, NULL, OPT_TABLE },
		{ "serial-hint", required_argument, NULL, OPT_HINT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "w:p:t:m:r:n:d:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (strcmp(optarg, "r") && strcmp(optarg, "rw") && strcmp(optarg, "w"))
				sb7_bad_option(prog, "-w", optarg, "r, rw, w");
			o->workload = optarg;
			break;
		case 'p':
			o->read_only_percent = (int)sb7_parse_long(prog, "-p", optarg, 0, 100);
			break;
		case 't': o->long_traversals = sb7_parse_bool(prog, "-t", optarg); break;
		case 'm': o->structural_mods = sb7_parse_bool(prog, "-m", optarg); break;
		case 'r': o->op11 = sb7_parse_bool(prog, "-r", optarg); break;
		case 'n': o->threads = (unsigned)sb7_parse_long(prog, "-n", optarg, 1, 1024); break;
		case 'd': o->duration_ms = sb7_parse_long(prog, "-d", optarg, 1, 86400000L); break;
		case 's': o->size = optarg; break;
		case OPT_OPS: o->ops_per_thread = sb7_parse_long(prog, "--ops", optarg, 1, 1L << 40); break;
		case OPT_SEED:
			o->seed = (uint64_t)sb7_parse_long(prog, "--seed", optarg, 0, INT64_MAX);
			break;
		case OPT_CYCLE: o->cycle = true; break;
		case OPT_ONLY: o->only = optarg; break;
		case OPT_INJECT:
			if (strcmp(optarg, "link") && strcmp(optarg, "date") && strcmp(optarg, "manual"))
				sb7_bad_option(prog, "--inject-fault", optarg, "link, date, manual");
			o->inject_fault = optarg;
			break;
		case OPT_TABLE: o->table = true; break;
		case OPT_HINT: o->serial_hint = sb7_parse_bool(prog, "--serial-hint", optarg); break;
		case 'h':
			sb7_usage(stdout, prog);
			exit(0);
		default:
			sb7_usage(stderr, prog);
			exit(SB7_EXIT_USAGE);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		sb7_usage(stderr, prog);
		exit(SB7_EXIT_USAGE);
	}
	if (o->read_only_percent < 0)
		o->read_only_percent = !strcmp(o->workload, "r") ? 90 : !strcmp(o->workload, "rw") ? 60 : 10;
	if (o->only) {
		char *names = strdup(o->only), *save = NULL;
		for (char *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
			int i = 0;
			while (i < SB7_OPERATION_COUNT && strcmp(sb7_operations[i].name, n) != 0)
				i++;
			if (i == SB7_OPERATION_COUNT)
				sb7_bad_option(prog, "--only", n, "operation names as in the report (T1, ST6, OP11, SM8, ...)");
		}
		free(names);
	}
}

/* Is name one of the comma-separated names in list? */
static bool sb7_listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && strncmp(p, name, len) == 0)
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

/* ---- the operation mix ---------------------------------------------------------------
 * Category weights: long traversals 5, short traversals 40, operations 45,
 * structural modifications 10 x the update share; normalised; every
 * category but the modifications split into its read-only and update
 * halves by the read-only share; equal shares inside a (sub)category. */

static void sb7_operation_weights(const sb7_options_t *o, double weight[SB7_OPERATION_COUNT])
{
	double ro = o->read_only_percent / 100.0;
	double traversal = o->long_traversals ? 0.05 : 0.0;
	double modification = o->structural_mods ? 0.10 * (1.0 - ro) : 0.0;
	double sum = traversal + 0.40 + 0.45 + modification;
	double share[SB7_CAT_COUNT] = {
		[SB7_CAT_TRAVERSAL] = traversal * (1.0 - ro) / sum,
		[SB7_CAT_TRAVERSAL_RO] = traversal * ro / sum,
		[SB7_CAT_SHORT_TRAVERSAL] = 0.40 * (1.0 - ro) / sum,
		[SB7_CAT_SHORT_TRAVERSAL_RO] = 0.40 * ro / sum,
		[SB7_CAT_OPERATION] = 0.45 * (1.0 - ro) / sum,
		[SB7_CAT_OPERATION_RO] = 0.45 * ro / sum,
		[SB7_CAT_STRUCTURAL_MODIFICATION] = modification / sum,
	};
	if (o->only) {
		int listed = 0;
		for (int i = 0; i < SB7_OPERATION_COUNT; i++)
			listed += sb7_listed(o->only, sb7_operations[i].name);
		for (int i = 0; i < SB7_OPERATION_COUNT; i++)
			weight[i] = sb7_listed(o->only, sb7_operations[i].name) ? 1.0 / listed : 0.0;
		return;
	}
	bool enabled[SB7_OPERATION_COUNT];
	int members[SB7_CAT_COUNT] = { 0 };
	for (int i = 0; i < SB7_OPERATION_COUNT; i++) {
		enabled[i] = o->op11 || strcmp(sb7_operations[i].name, "OP11") != 0;
		if (enabled[i])
			members[sb7_operations[i].category]++;
	}
	for (int i = 0; i < SB7_OPERATION_COUNT; i++) {
		sb7_category_t c = sb7_operations[i].category;
		weight[i] = enabled[i] ? share[c] / members[c] : 0.0;
	}
}

/* ---- per-operation statistics ------------------------------------------------------------ */

typedef struct sb7_op_stats {
	uint64_t successful, failed, aborts;
	uint64_t total_ns, max_ns;
} sb7_op_stats_t;

static uint64_t sb7_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- synchronisation of the lock builds ------------------------------------------------------ */

#ifdef SB7_LOCKS
typedef struct sb7_locks {
#ifdef SB7_LOCK_COARSE
	pthread_rwlock_t all;
#else
	pthread_rwlock_t level[SB7_LOCK_COUNT];
	unsigned present;            /* locks of levels that exist */
#endif
} sb7_locks_t;

static void sb7_rwlock_init(pthread_rwlock_t *l)
{
	/* Writer preference: in the read-dominated mix a reader-preferring
	 * lock starves the writers. */
	pthread_rwlockattr_t attr;
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(l, &attr);
	pthread_rwlockattr_destroy(&attr);
}

static void sb7_locks_init(sb7_locks_t *l, const sb7_params_t *p)
{
#ifdef SB7_LOCK_COARSE
	(void)p;
	sb7_rwlock_init(&l->all);
#else
	for (int i = 0; i < SB7_LOCK_COUNT; i++)
		sb7_rwlock_init(&l->level[i]);
	l->present = (SB7_LOCK_EVERYTHING & ~SB7_LOCK_ALL_ASSEMBLIES) |
	             ((1u << p->num_assm_levels) - 1);
#endif
}

static void sb7_locks_destroy(sb7_locks_t *l)
{
#ifdef SB7_LOCK_COARSE
	pthread_rwlock_destroy(&l->all);
#else
	for (int i = 0; i < SB7_LOCK_COUNT; i++)
		pthread_rwlock_destroy(&l->level[i]);
#endif
}

static void sb7_locks_acquire(sb7_locks_t *l, const sb7_operation_t *op)
{
#ifdef SB7_LOCK_COARSE
	if (sb7_category_read_only(op->category))
		pthread_rwlock_rdlock(&l->all);
	else
		pthread_rwlock_wrlock(&l->all);
#else
	/* One global order (bit order) for every operation: no deadlock. */
	unsigned wr = op->locks_write & l->present;
	unsigned rd = op->locks_read & l->present & ~wr;
	for (int i = 0; i < SB7_LOCK_COUNT; i++) {
		if (wr & (1u << i))
			pthread_rwlock_wrlock(&l->level[i]);
		else if (rd & (1u << i))
			pthread_rwlock_rdlock(&l->level[i]);
	}
#endif
}

static void sb7_locks_release(sb7_locks_t *l, const sb7_operation_t *op)
{
#ifdef SB7_LOCK_COARSE
	(void)op;
	pthread_rwlock_unlock(&l->all);
#else
	unsigned held = (op->locks_write | op->locks_read) & l->present;
	for (int i = SB7_LOCK_COUNT - 1; i >= 0; i--)
		if (held & (1u << i))
			pthread_rwlock_unlock(&l->level[i]);
#endif
}
#endif /* SB7_LOCKS */

/* ---- the run ---------------------------------------------------------------------------- */

typedef struct sb7_run {
	sb7_options_t opt;
	sb7_db_t db;
	double weight[SB7_OPERATION_COUNT];
	double cumulative[SB7_OPERATION_COUNT];
	int enabled[SB7_OPERATION_COUNT];    /* indexes of operations with weight > 0 */
	int nenabled;
#ifdef SB7_LOCKS
	sb7_locks_t locks;
	pthread_barrier_t start;
#else
	tm_barrier_t start;
	tm_config_t tm;                      /* as tm_init took it, for the report */
#endif
	uint64_t start_ns;                   /* set by the last thread through the barrier */
	int started;                         /* atomic */
	int stop;                            /* atomic */
} sb7_run_t;

typedef struct sb7_worker {
	pthread_t thread;
	sb7_run_t *run;
	sb7_thread_t th;
	uint64_t done;
	sb7_op_stats_t stats[SB7_OPERATION_COUNT];
} sb7_worker_t;

/* A failed operation whose stores cannot be undone: a lock build, seq, or
 * the serial clone. */
static void sb7_fail_after_stores(const sb7_operation_t *op)
{
	fprintf(stderr,
	        "stmbench7: %s failed after changing the structure, and this build cannot "
	        "roll back: the structure is corrupt\n", op->name);
	exit(SB7_EXIT_VIOLATION);
}

#ifdef SB7_LOCKS
static long sb7_execute(sb7_worker_t *w, const sb7_operation_t *op, uint64_t *aborts)
{
	sb7_locks_acquire(&w->run->locks, op);
	unsigned long stores_before = sb7_stores_by_this_thread;
	long r = op->run(&w->th);
	if (r == SB7_FAILED && sb7_stores_by_this_thread != stores_before)
		sb7_fail_after_stores(op);
	sb7_locks_release(&w->run->locks, op);
	*aborts = 0;
	return r;
}
#else
/* The operation's aborts are the library's count for this thread, taken
 * around it: a count kept here inside the transaction would be rolled
 * back with every hardware attempt (rtm), and a cancelled one too. */
static uint64_t sb7_thread_aborts(void)
{
	tm_stats_t s;
	if (tm_thread_stats(&s) != 0) {
		fprintf(stderr, "stmbench7: %s\n", tm_last_error());
		exit(SB7_EXIT_VIOLATION);
	}
	return s.aborts;
}

/* The weight from which an update traversal is hinted serial (256 us). */
#define SB7_SERIAL_WEIGHT 128

static long sb7_execute(sb7_worker_t *w, const sb7_operation_t *op, uint64_t *aborts)
{
	sb7_thread_t *const th = &w->th;
	const sb7_rng_t before = th->rng;
	volatile long result = SB7_FAILED;
	const uint64_t aborts_before = sb7_thread_aborts();
	/* The weighted order lets the other threads commit about this many
	 * short operations while a long traversal runs (no effect elsewhere). */
	const unsigned weight = sb7_operation_weight(th, op);
	tm_set_weight(weight);
	/* A long update traversal (its weight: seq's time in 2 us units)
	 * restarts serially at its promotion mark anyway: say so, and it
	 * starts that way.  A shorter one (the structure shrunk) stays
	 * speculative: serial mode's barrier and drain would cost more. */
	if (w->run->opt.serial_hint && op->category == SB7_CAT_TRAVERSAL &&
	    weight >= SB7_SERIAL_WEIGHT)
		tm_hint_serial();
	TM_BEGIN();
	th->rng = before;
	unsigned long stores_before = sb7_stores_by_this_thread;
	/* In serial mode (tl2 with POTM_SERIAL: a long transaction restarted
	 * alone) the uninstrumented clone runs; its stores cannot be undone. */
	const bool serial = tm_serial();
	long r = serial ? sb7_serial_operations[op - sb7_operations].run(th) : op->run(th);
	if (r == SB7_FAILED) {
		result = SB7_FAILED;
		if (serial && sb7_stores_by_this_thread != stores_before)
			sb7_fail_after_stores(op);
#if SB7_CAN_ROLL_BACK
		tm_cancel();
#else
		if (sb7_stores_by_this_thread != stores_before)
			sb7_fail_after_stores(op);
#endif
	}
	result = r;
	TM_END();
	*aborts = sb7_thread_aborts() - aborts_before;
	return result;
}
#endif

static int sb7_pick_operation(sb7_worker_t *w)
{
	sb7_run_t *run = w->run;
	if (run->opt.cycle)
		return run->enabled[(w->th.id + w->done) % (uint64_t)run->nenabled];
	double u = sb7_rand_unit(&w->th.rng);
	for (int k = 0; k < run->nenabled; k++)
		if (u < run->cumulative[run->enabled[k]])
			return run->enabled[k];
	return run->enabled[run->nenabled - 1];
}

static void *sb7_worker_main(void *arg)
{
	sb7_worker_t *w = arg;
	sb7_run_t *run = w->run;
#ifndef SB7_LOCKS
	if (tm_thread_enter(w->th.id) != 0) {
		fprintf(stderr, "stmbench7: thread %u: %s\n", w->th.id, tm_last_error());
		exit(SB7_EXIT_USAGE);
	}
	int serial = tm_barrier_wait(&run->start) == TM_BARRIER_SERIAL;
#else
	int serial = pthread_barrier_wait(&run->start) == PTHREAD_BARRIER_SERIAL_THREAD;
#endif
	if (serial) {
		__atomic_store_n(&run->start_ns, sb7_now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&run->started, 1, __ATOMIC_RELEASE);
	}
	for (;;) {
		if (run->opt.ops_per_thread ? w->done >= (uint64_t)run->opt.ops_per_thread
		                            : __atomic_load_n(&run->stop, __ATOMIC_RELAXED))
			break;
		int i = sb7_pick_operation(w);
		const sb7_operation_t *op = &sb7_operations[i];
		uint64_t aborts;
		uint64_t t0 = sb7_now_ns();
		long r = sb7_execute(w, op, &aborts);
		uint64_t dt = sb7_now_ns() - t0;
		sb7_op_stats_t *s = &w->stats[i];
		if (r == SB7_FAILED)
			s->failed++;
		else
			s->successful++;
		s->aborts += aborts;
		s->total_ns += dt;
		if (dt > s->max_ns)
			s->max_ns = dt;
		w->done++;
	}
#ifndef SB7_LOCKS
	tm_thread_exit();
#endif
	return NULL;
}

/* ---- the report ------------------------------------------------------------------------ */

typedef struct sb7_report {
	sb7_op_stats_t op[SB7_OPERATION_COUNT];
	uint64_t ops, successful, failed, aborts;
	double elapsed_s, build_s, check_s;
	tm_stats_t tm;
	long violations;
	sb7_census_t census;
	uint64_t hash;
} sb7_report_t;

static const char *sb7_backend(void)
{
#ifdef SB7_LOCKS
	return SB7_VARIANT_NAME;
#else
	return tm_backend_name();
#endif
}

static void sb7_print_json(FILE *f, const sb7_run_t *run, const sb7_report_t *rep)
{
	const sb7_options_t *o = &run->opt;
	fprintf(f, "{\"bench\": \"stmbench7\", \"backend\": \"%s\", \"threads\": %u, "
	           "\"workload\": \"%s\", \"read_only_percent\": %d, \"size\": \"%s\", "
	           "\"long_traversals\": %s, \"structural_mods\": %s, \"op11\": %s, ",
	        sb7_backend(), o->threads, o->workload, o->read_only_percent,
	        run->db.params.size_name, o->long_traversals ? "true" : "false",
	        o->structural_mods ? "true" : "false", o->op11 ? "true" : "false");
	fprintf(f, "\"only\": \"%s\", \"serial_hint\": %s, ", o->only ? o->only : "",
	        o->serial_hint ? "true" : "false");
	/* The TM settings the results depend on, as tm_init took them (the
	 * environment over the program's defaults). */
#ifdef SB7_LOCKS
	fputs("\"tm_mode\": \"\", \"sequencer\": \"\", \"serial\": false, ", f);
#else
	fprintf(f, "\"tm_mode\": \"%s\", \"sequencer\": \"%s\", \"serial\": %s, ",
	        run->tm.mode, run->tm.sequencer, run->tm.serial ? "true" : "false");
#endif
	fprintf(f, "\"mode\": \"%s\", \"duration_s\": %.3f, \"ops_per_thread\": %ld, "
	           "\"elapsed_s\": %.6f, \"build_s\": %.6f, \"check_s\": %.6f, \"seed\": %" PRIu64 ", ",
	        o->cycle ? "cycle" : "random",
	        o->ops_per_thread ? rep->elapsed_s : o->duration_ms / 1000.0, o->ops_per_thread,
	        rep->elapsed_s, rep->build_s, rep->check_s, o->seed);
	double secs = rep->elapsed_s > 0 ? rep->elapsed_s : 1e-9;
	fprintf(f, "\"ops\": %" PRIu64 ", \"successful_ops\": %" PRIu64 ", \"failed_ops\": %" PRIu64
	           ", \"aborts\": %" PRIu64 ", \"throughput\": %.3f, \"throughput_with_failed\": %.3f, ",
	        rep->ops, rep->successful, rep->failed, rep->aborts, rep->successful / secs,
	        rep->ops / secs);
	fputs("\"per_operation\": {", f);
	for (int i = 0; i < SB7_OPERATION_COUNT; i++) {
		const sb7_operation_t *op = &sb7_operations[i];
		const sb7_op_stats_t *s = &rep->op[i];
		uint64_t n = s->successful + s->failed;
		fprintf(f, "%s\"%s\": {\"category\": \"%s\", \"read_only\": %s, \"enabled\": %s, "
		           "\"count\": %" PRIu64 ", \"successful\": %" PRIu64 ", \"failed\": %" PRIu64
		           ", \"aborts\": %" PRIu64 ", \"mean_latency_us\": %.3f, \"max_latency_us\": %.3f, "
		           "\"total_time_s\": %.6f}",
		        i ? ", " : "", op->name, sb7_category_name(op->category),
		        sb7_category_read_only(op->category) ? "true" : "false",
		        run->weight[i] > 0 ? "true" : "false", n, s->successful, s->failed, s->aborts,
		        n ? s->total_ns / 1e3 / n : 0.0, s->max_ns / 1e3, s->total_ns / 1e9);
	}
	fputs("}, \"stats\": ", f);
	tm_stats_print_json(f, &rep->tm);
	fprintf(f, ", \"structure\": {\"complex_assemblies\": %ld, \"base_assemblies\": %ld, "
	           "\"composite_parts\": %ld, \"atomic_parts\": %ld, \"component_links\": %ld, "
	           "\"connections\": %ld}",
	        rep->census.complex_assemblies, rep->census.base_assemblies,
	        rep->census.composite_parts, rep->census.atomic_parts,
	        rep->census.component_links, rep->census.connections);
	fprintf(f, ", \"invariants_ok\": %s, \"invariant_violations\": %ld, "
	           "\"structure_hash\": \"%016" PRIx64 "\"}\n",
	        rep->violations == 0 ? "true" : "false", rep->violations, rep->hash);
	fflush(f);
}

static void sb7_print_table(FILE *f, const sb7_run_t *run, const sb7_report_t *rep)
{
	const sb7_options_t *o = &run->opt;
	fprintf(f, "STMBench7 on %s: %u thread(s), workload %s (%d%% read-only), size %s, "
	           "long traversals %s, structural modifications %s\n",
	        sb7_backend(), o->threads, o->workload, o->read_only_percent, run->db.params.size_name,
	        o->long_traversals ? "on" : "off", o->structural_mods ? "on" : "off");
	fprintf(f, "%-5s %-24s %10s %10s %10s %12s %12s %10s\n", "op", "category", "successful",
	        "failed", "aborts", "mean_us", "max_us", "time_%");
	uint64_t thread_ns = 0;
	for (int i = 0; i < SB7_OPERATION_COUNT; i++)
		thread_ns += rep->op[i].total_ns;
	for (int i = 0; i < SB7_OPERATION_COUNT; i++) {
		const sb7_op_stats_t *s = &rep->op[i];
		uint64_t n = s->successful + s->failed;
		if (run->weight[i] == 0)
			continue;
		fprintf(f, "%-5s %-24s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12.1f %12.1f %10.2f\n",
		        sb7_operations[i].name, sb7_category_name(sb7_operations[i].category),
		        s->successful, s->failed, s->aborts, n ? s->total_ns / 1e3 / n : 0.0,
		        s->max_ns / 1e3, thread_ns ? 100.0 * s->total_ns / thread_ns : 0.0);
	}
	fprintf(f, "%-24s %14s %14s\n", "category", "expected_%", "achieved_%");
	for (int c = 0; c < SB7_CAT_COUNT; c++) {
		double expected = 0;
		uint64_t n = 0;
		for (int i = 0; i < SB7_OPERATION_COUNT; i++)
			if (sb7_operations[i].category == (sb7_category_t)c) {
				expected += run->weight[i];
				n += rep->op[i].successful + rep->op[i].failed;
			}
		fprintf(f, "%-24s %14.2f %14.2f\n", sb7_category_name(c), 100 * expected,
		        rep->ops ? 100.0 * n / rep->ops : 0.0);
	}
	fprintf(f, "elapsed %.3f s: %" PRIu64 " operations, %" PRIu64 " successful, %" PRIu64
	           " failed, %" PRIu64 " aborts; throughput %.1f ops/s (%.1f with failed)\n",
	        rep->elapsed_s, rep->ops, rep->successful, rep->failed, rep->aborts,
	        rep->successful / rep->elapsed_s, rep->ops / rep->elapsed_s);
	fprintf(f, "build %.3f s, check %.3f s, invariants %s, structure hash %016" PRIx64 "\n",
	        rep->build_s, rep->check_s, rep->violations ? "VIOLATED" : "ok", rep->hash);
}

/* ---- main ------------------------------------------------------------------------------ */

/* Break one invariant the way a lost or torn update would, so that the
 * tests can see the check fail: a link recorded on one side only, a build
 * date changed without its index, an OP11 applied to one line only. */
static void sb7_inject_fault(sb7_db_t *db, const char *kind)
{
	SB7_SOLO_BEGIN();
	if (!strcmp(kind, "link")) {
		SB7_MAP_FOREACH(node, &db->base_by_id) {
			sb7_base_assembly_t *ba = sb7_map_node_value(node);
			if (sb7_vec_count(&ba->components) > 0) {
				sb7_vec_remove_at(&ba->components, 0);
				break;
			}
		}
	} else if (!strcmp(kind, "date")) {
		sb7_atomic_part_t *ap = sb7_map_node_value(sb7_map_first_from(&db->atomic_by_id, 0));
		SB7_STORE(&ap->build_date, SB7_LOAD(&ap->build_date) + 2);
	} else {
		sb7_text_t *t = &SB7_LOAD(&db->module->manual)->text;
		if (!sb7_text_replace_prefix(t, "I", "i"))
			sb7_text_replace_prefix(t, "i", "I");
	}
	SB7_SOLO_END();
}

/* The invariant check and the hash, in one transaction while no worker
 * runs (a function of its own: nothing of main lives across the
 * transaction's setjmp). */
static void sb7_check_structure(sb7_db_t *db, sb7_report_t *rep)
{
	SB7_SOLO_BEGIN();
	rep->violations = sb7_check_invariants(db, stderr, &rep->census);
	rep->hash = sb7_structure_hash(db);
	SB7_SOLO_END();
}

static void sb7_sleep_until(uint64_t deadline_ns, const int *stop_early)
{
	for (;;) {
		uint64_t now = sb7_now_ns();
		if (now >= deadline_ns || (stop_early && __atomic_load_n(stop_early, __ATOMIC_RELAXED)))
			return;
		uint64_t left = deadline_ns - now;
		if (left > 10000000)
			left = 10000000;
		struct timespec ts = { 0, (long)left };
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	/* Lives until main returns, after every worker has been joined. */
	sb7_run_t run;
	memset(&run, 0, sizeof run);
	sb7_parse_options(argc, argv, &run.opt);
	/* Keep freed memory in the process.  OP11 frees the manual's 1 MB of
	 * chunks and allocates as much again; with glibc's default trimming the
	 * heap's top can shrink and grow back with fresh zeroed pages at every
	 * OP11, in some builds and not in others depending on what else lies
	 * at the top, and OP11's cost would differ between builds by chance.
	 * The same setting for every build, lock builds included. */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	sb7_params_t params;
	if (sb7_params_for_size(&params, run.opt.size) != 0)
		sb7_bad_option(argv[0], "-s", run.opt.size, "tiny, small, medium, big (or t, s, m, b)");

#ifndef SB7_LOCKS
	/* Long transactions run serially, on the clone (POTM_SERIAL=0: in
	 * place, instrumented, as any program's). */
	tm_config_t cfg;
	tm_config_default(&cfg);
	cfg.serial = 1;
	/* Every operation declares its weight (sb7_execute), so Pot's modes
	 * order by it: in round-robin order the other thread commits one short
	 * operation per long traversal, the two in lockstep behind it; in the
	 * weighted order it commits as many as fit in the traversal's time.  Still
	 * deterministic: a weight depends on the operation and the structure,
	 * not on timing.  POTM_SEQUENCER=round-robin gives Pot's own order;
	 * DeSTM's rounds are round-robin turns, so it keeps that order.  (The
	 * environment is read here to learn the mode; tm_init reads it again,
	 * and reports a bad value.) */
	if (tm_config_from_env(&cfg) == 0 && getenv("POTM_SEQUENCER") == NULL &&
	    strcmp(cfg.mode, "destm") != 0)
		strcpy(cfg.sequencer, "weighted");
	int rc = tm_init(&cfg);
	if (rc == TM_ERR_UNSUPPORTED) {
		fprintf(stderr, "stmbench7: backend %s cannot run here: %s\n", tm_backend_name(),
		        tm_last_error());
		return SB7_EXIT_UNSUPPORTED;
	}
	if (rc != 0) {
		fprintf(stderr, "stmbench7: tm_init: %s\n", tm_last_error());
		return SB7_EXIT_USAGE;
	}
	run.tm = *tm_current_config();
#endif

	sb7_operation_weights(&run.opt, run.weight);
	double acc = 0;
	for (int i = 0; i < SB7_OPERATION_COUNT; i++) {
		acc += run.weight[i];
		run.cumulative[i] = acc;
		if (run.weight[i] > 0)
			run.enabled[run.nenabled++] = i;
	}

	sb7_report_t rep;
	memset(&rep, 0, sizeof rep);
	sb7_db_init(&run.db, &params);
	/* The main thread builds, checks and tears down as logical thread 0,
	 * and leaves the registry while the workers run. */
	sb7_thread_t builder;
	sb7_thread_init(&builder, &run.db, 0, run.opt.seed ^ 0xb01d5eedull);
#ifndef SB7_LOCKS
	if (tm_thread_enter(0) != 0) {
		fprintf(stderr, "stmbench7: %s\n", tm_last_error());
		return SB7_EXIT_USAGE;
	}
#endif
	uint64_t t0 = sb7_now_ns();
	sb7_db_build(&run.db, &builder);
	rep.build_s = (sb7_now_ns() - t0) / 1e9;
#ifndef SB7_LOCKS
	tm_thread_exit();
	tm_stats_reset();
	tm_barrier_init(&run.start, run.opt.threads);
#else
	sb7_locks_init(&run.locks, &params);
	pthread_barrier_init(&run.start, NULL, run.opt.threads);
#endif

	sb7_worker_t *workers = calloc(run.opt.threads, sizeof *workers);
	if (workers == NULL) {
		fprintf(stderr, "stmbench7: out of memory\n");
		return SB7_EXIT_USAGE;
	}
	for (unsigned i = 0; i < run.opt.threads; i++) {
		workers[i].run = &run;
		sb7_thread_init(&workers[i].th, &run.db, i, run.opt.seed);
		if (pthread_create(&workers[i].thread, NULL, sb7_worker_main, &workers[i]) != 0) {
			fprintf(stderr, "stmbench7: cannot start thread %u\n", i);
			return SB7_EXIT_USAGE;
		}
	}
	while (!__atomic_load_n(&run.started, __ATOMIC_ACQUIRE))
		sb7_sleep_until(sb7_now_ns() + 1000000, NULL);
	uint64_t start = __atomic_load_n(&run.start_ns, __ATOMIC_RELAXED);
	if (run.opt.ops_per_thread == 0) {
		sb7_sleep_until(start + (uint64_t)run.opt.duration_ms * 1000000ull, NULL);
		__atomic_store_n(&run.stop, 1, __ATOMIC_RELAXED);
	}
	for (unsigned i = 0; i < run.opt.threads; i++)
		pthread_join(workers[i].thread, NULL);
	rep.elapsed_s = (sb7_now_ns() - start) / 1e9;

	for (unsigned i = 0; i < run.opt.threads; i++) {
		for (int k = 0; k < SB7_OPERATION_COUNT; k++) {
			sb7_op_stats_t *s = &workers[i].stats[k], *t = &rep.op[k];
			t->successful += s->successful;
			t->failed += s->failed;
			t->aborts += s->aborts;
			t->total_ns += s->total_ns;
			if (s->max_ns > t->max_ns)
				t->max_ns = s->max_ns;
		}
		sb7_thread_fini(&workers[i].th);
	}
	free(workers);
	for (int k = 0; k < SB7_OPERATION_COUNT; k++) {
		rep.successful += rep.op[k].successful;
		rep.failed += rep.op[k].failed;
		rep.aborts += rep.op[k].aborts;
	}
	rep.ops = rep.successful + rep.failed;

#ifndef SB7_LOCKS
	tm_stats(&rep.tm);
	/* Only the operations ran transactions since the reset: their aborts,
	 * each taken from the library around it, add up to its total. */
	if (rep.aborts != rep.tm.aborts) {
		fprintf(stderr, "stmbench7: the operations' aborts (%" PRIu64 ") differ from "
		        "the library's count (%" PRIu64 ")\n", rep.aborts, rep.tm.aborts);
		return SB7_EXIT_VIOLATION;
	}
	tm_barrier_destroy(&run.start);
	if (tm_thread_enter(0) != 0) {
		fprintf(stderr, "stmbench7: %s\n", tm_last_error());
		return SB7_EXIT_USAGE;
	}
#else
	/* What the transactional builds would count: one commit per
	 * operation, the failed ones as cancels. */
	rep.tm.commits = rep.successful;
	rep.tm.cancels = rep.failed;
	for (int k = 0; k < SB7_OPERATION_COUNT; k++)
		if (sb7_category_read_only(sb7_operations[k].category))
			rep.tm.commits_ro += rep.op[k].successful;
	pthread_barrier_destroy(&run.start);
	sb7_locks_destroy(&run.locks);
#endif
	if (run.opt.inject_fault)
		sb7_inject_fault(&run.db, run.opt.inject_fault);
	t0 = sb7_now_ns();
	sb7_check_structure(&run.db, &rep);
	rep.check_s = (sb7_now_ns() - t0) / 1e9;
	sb7_db_destroy(&run.db, &builder);
	sb7_thread_fini(&builder);
#ifndef SB7_LOCKS
	tm_thread_exit();
	tm_shutdown();
#endif

	if (run.opt.table)
		sb7_print_table(stderr, &run, &rep);
	sb7_print_json(stdout, &run, &rep);
	if (rep.violations) {
		fprintf(stderr, "stmbench7: FAILED: %ld invariant violation(s) after the run\n",
		        rep.violations);
		return SB7_EXIT_VIOLATION;
	}
	return 0;
}
